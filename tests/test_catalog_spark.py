"""`--catalog spark` on a Hive metastore: tests/hive runs in a process of its own, whose session has Hive
support on an embedded Derby metastore in a temporary folder; this suite's shared session keeps its
in-memory catalog (a process holds one SparkContext, and its catalog is fixed when it starts). The catalog
commands' own `--master` and `--conf` are tested here, each command in a process with no session running."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_spark_catalog_on_an_embedded_hive_metastore(tmp_path):
    env = {**os.environ, "DC_BRIDGE_HIVE_TESTS": "1", "PYTHONPATH": str(ROOT)}
    completed = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--basetemp", str(tmp_path / "run"),
                                str(ROOT / "tests" / "hive")], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900)
    assert completed.returncode == 0, completed.stdout[-6000:] + completed.stderr[-3000:]
    # every test of tests/hive ran (none skipped): as many passed as the folder defines
    defined = sum(path.read_text(encoding="utf-8").count("\ndef test_") for path in (ROOT / "tests" / "hive").glob("test_*.py"))
    assert f"{defined} passed" in completed.stdout, completed.stdout[-2000:]


CONTRACT = """\
apiVersion: v3.1.0
kind: DataContract
id: customers
version: {version}
status: active
team:
  name: sales-team
schema:
  - name: customers
    properties:
      - name: customer_id
        logicalType: string
        required: true
{more}"""
# the first process creates the Hive table with the session dc-bridge starts (runner/data.get_session, as `run` starts it)
CREATE_TABLE = """\
import sys
from dc_bridge.runner.data import get_session
spark, _ = get_session("local[1]", dict(option.split("=", 1) for option in sys.argv[1:]))
spark.sql("CREATE DATABASE sales")
spark.sql("CREATE TABLE sales.customers (customer_id STRING, email STRING) USING parquet")
spark.sql("INSERT INTO sales.customers VALUES ('c1', 'a@example.com'), ('c2', NULL)")
spark.stop()
"""


def test_catalog_commands_start_their_session_from_master_and_conf(tmp_path):
    """`register`, `check-version --against-registered` and `init`, each in a process of its own with no session
    running: only their `--conf` options (a Hive metastore on Derby in tmp_path) make their session reach the table
    and the registration the processes before them wrote. `--master` reaches the session too: one Spark cannot
    parse is a catalog that cannot be reached, a warning for `register`."""
    conf = {"spark.sql.catalogImplementation": "hive", "spark.sql.warehouse.dir": str(tmp_path / "warehouse"),
            "spark.hadoop.javax.jdo.option.ConnectionURL": f"jdbc:derby:;databaseName={tmp_path / 'metastore_db'};create=true"}
    options = ["--master", "local[1]", *(arg for key, value in conf.items() for arg in ("--conf", f"{key}={value}"))]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}

    def python(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, *args], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)

    def cli(*args: str) -> subprocess.CompletedProcess:
        return python("-c", "from dc_bridge.cli import main; main()", *args)

    created = python("-c", CREATE_TABLE, *(f"{key}={value}" for key, value in conf.items()))
    assert created.returncode == 0, created.stderr[-3000:]
    (tmp_path / "customers.yaml").write_text(CONTRACT.format(version="1.0.0", more=""), encoding="utf-8")
    (tmp_path / "new.yaml").write_text(CONTRACT.format(version="1.1.0", more="      - name: email\n        logicalType: string\n"),
                                       encoding="utf-8")

    registered = cli("register", "customers.yaml", "--catalog", "spark", "--namespace", "sales", *options)
    assert registered.returncode == 0, registered.stdout + registered.stderr[-3000:]
    assert registered.stdout.splitlines()[:3] == ["customers.yaml: registered customers 1.0.0 (first registration)",
                                                  "  catalog    spark", "  namespace  sales"]
    assert "  tables     properties set on sales.customers" in registered.stdout  # the table of the metastore --conf names
    checked = cli("check-version", "new.yaml", "--against-registered", "--catalog", "spark", "--namespace", "sales", *options)
    assert checked.returncode == 0, checked.stdout + checked.stderr[-3000:]
    assert "version 1.0.0 -> 1.1.0: MINOR bump: ok" in checked.stdout  # the registered baseline, read back from the metastore
    generated = cli("init", "--from", "table:sales.customers", "--out", "generated.yaml", "--profile", *options)
    assert generated.returncode == 0, generated.stdout + generated.stderr[-3000:]
    assert "generated.yaml: 1 model(s), 2 top-level field(s), 3 proposed rule(s) from the first 100000 rows; lint: clean" in generated.stdout

    # Spark that cannot start is bad input on every command (exit 2, one line), not a catalog's outage
    unreachable = cli("register", "new.yaml", "--catalog", "spark", "--namespace", "sales", "--master", "local[bogus]")
    assert unreachable.returncode == 2, unreachable.stdout + unreachable.stderr[-3000:]
    assert "register: --master 'local[bogus]' is not a master URL Spark can parse" in unreachable.stderr
    assert "Traceback" not in unreachable.stderr
