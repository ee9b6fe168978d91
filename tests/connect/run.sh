#!/usr/bin/env bash
# dc-bridge on pyspark 4.x, in a venv of its own (.venv-spark4) beside the README's (.venv, pyspark 3.5).
#   bash tests/connect/run.sh            the Spark Connect tests (tests/connect) against a real Connect server
#                                        this pyspark starts on loopback; .ci/run runs this
#   bash tests/connect/run.sh --classic  the whole suite on pyspark 4.x classic (47 min on a 2-core machine busy with other work)
# Extra arguments go to pytest. DC_BRIDGE_PYSPARK4 picks the pyspark 4.x release (a 4.x ships the connect jars).
set -euo pipefail
cd "$(dirname "$0")/../.."
PYSPARK4="${DC_BRIDGE_PYSPARK4:-4.0.1}"
python3 -m venv .venv-spark4
# pyspark first, then dc-bridge without the `spark` extra: what a Spark 4 environment does, and pip keeps this pyspark
.venv-spark4/bin/pip install -q "pyspark[connect]==$PYSPARK4"
if [ "${1:-}" = "--classic" ]; then
  .venv-spark4/bin/pip install -q -e ".[test]"
else
  # the Connect tests need pytest alone of the `test` extra (its range as pyproject.toml gives it): the rest of the
  # extra (dbt, pre-commit, ...) serves the classic suite, and took 30 s more of a fresh install
  .venv-spark4/bin/pip install -q -e . "$(grep -o '"pytest[<>=~!][^"]*"' pyproject.toml | head -n 1 | tr -d '"')"
fi
.venv-spark4/bin/python -c "import sys, pyspark; sys.exit(pyspark.__version__ != '$PYSPARK4' and 'pyspark was replaced: ' + pyspark.__version__)"
if [ "${1:-}" = "--classic" ]; then
  shift
  # tests/test_integrations.py runs a plain Soda scan, as a user would, through soda-core-spark-df; on pyspark 4
  # that package goes in without its `pyspark<4` (dc-bridge itself never imports it: engines/soda/spark_df.py)
  .venv-spark4/bin/pip install -q --no-deps "soda-core-spark-df==3.5.6"
  exec .venv-spark4/bin/pytest -q "$@"
fi
DC_BRIDGE_CONNECT_TESTS=1 exec .venv-spark4/bin/pytest -q tests/connect "$@"
