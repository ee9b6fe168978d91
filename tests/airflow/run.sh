#!/usr/bin/env bash
# dc-bridge's Airflow operator (dc_bridge.airflow) in real Airflow 3, in a venv of its own (.venv-airflow) beside the
# README's (.venv): Airflow pins its dependencies and configures logging and its ORM when imported, so it stays out of
# the main suite's process. Installed as Airflow's documentation says, with a constraints file: the versions measured
# here (tests/airflow/constraints.txt), Airflow's own file not being reachable. .ci/run runs this.
#   bash tests/airflow/run.sh     the tests of tests/airflow (dag.test() on a SQLite metadata database in a temporary
#                                 AIRFLOW_HOME); extra arguments go to pytest
set -euo pipefail
cd "$(dirname "$0")/../.."
python3 -m venv .venv-airflow
.venv-airflow/bin/pip install -q -c tests/airflow/constraints.txt -e ".[spark,airflow,test]"
DC_BRIDGE_AIRFLOW_TESTS=1 exec .venv-airflow/bin/pytest -q tests/airflow "$@"
