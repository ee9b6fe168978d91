"""The history as a table in the Spark catalog (`--history table:db.name`, dc_bridge/history/spark_store.py)
on Spark's embedded Hive metastore (Derby), in processes of their own (a Hive session cannot share the
suite's session): runs appended in one process are read back, unrewritten, by another, and the SLAs'
earlier runs from the table equal those from the JSON Lines file of the same runs; a table of schema
version 1 is migrated when a run opens it, its rows kept."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from dc_bridge.history.spark_store import COLUMNS, SCHEMA_VERSION

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "history.md"

SESSION = """
import json, sys
from datetime import datetime, timedelta, timezone
from pyspark.sql import SparkSession
spark = (SparkSession.builder.master("local[1]").appName("history-table").enableHiveSupport()
         .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "1")
         .config("spark.sql.warehouse.dir", "warehouse").config("spark.sql.session.timeZone", "UTC").getOrCreate())
spark.sparkContext.setLogLevel("ERROR")
from dc_bridge.history.spark_store import SparkTableStore
from dc_bridge.runner.history import append_record, earlier_runs, read_history, unread_record
NOW = datetime(2026, 6, 30, 12, tzinfo=timezone.utc)
def record(number, days):
    checks = {f"c{i}": ("failed" if i == number % 3 else "passed") for i in range(3)}
    return {"dc_bridge_history": 1, "contract_id": "orders", "contract_version": "1.0.0",
            "run_at": (NOW - timedelta(days=days)).isoformat(), "outcome": "failed", "read": {"orders": True},
            "models": {"orders": "failed"}, "checks": checks, "evaluated": 3, "in_error": 1}
spark.sql("CREATE DATABASE IF NOT EXISTS quality")
store = SparkTableStore(spark, "table:quality.runs")
"""

WRITE = SESSION + """
for number, days in enumerate((40, 20, 10, 1)):
    append_record("history.jsonl", record(number, days))
    store.append(record(number, days), data_source="dataframe")
unread = unread_record("orders", "1.0.0", {"orders": False}, NOW - timedelta(days=2), "no such path")
append_record("history.jsonl", unread)
store.append(unread)
"""

READ = SESSION + """
table = store.earlier_runs("orders", NOW)
jsonl = earlier_runs(read_history("history.jsonl"), "history.jsonl", "orders", NOW)
rows = spark.table("quality.runs").where("check_id IS NOT NULL").groupBy("run_at").count().orderBy("run_at").collect()
print(json.dumps({"table": sorted(map(repr, table.runs)), "jsonl": sorted(map(repr, jsonl.runs)), "file": table.file,
                  "checks_per_run": [r["count"] for r in rows], "provider": spark.conf.get("spark.sql.catalogImplementation"),
                  "tables": [t.name for t in spark.catalog.listTables("quality")]}))
"""


def _in_process(code: str, folder: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=folder, capture_output=True, text=True,
                          timeout=600, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "HOME": str(folder),
                                            **{k: v for k, v in __import__("os").environ.items() if k.startswith(("JAVA", "SPARK"))}})


@pytest.fixture(scope="module")
def hive_folder(tmp_path_factory):
    """A folder with an embedded metastore made by one process (one JVM start for three tests, each its own
    database): the database the run test's table lives in (`quality`), the runs appended for the read-back
    test (`appended`, and history.jsonl), then the migration test's table of schema version 1 (`legacy`)."""
    folder = tmp_path_factory.mktemp("hive")
    return folder, _in_process(SESSION + WRITE.replace("quality", "appended") + MIGRATE.replace("quality", "legacy"), folder)


def test_runs_appended_to_a_hive_table_are_read_back_by_another_process(hive_folder, second_process):
    tmp_path, written = hive_folder
    assert written.returncode == 0, written.stderr[-3000:]
    assert (tmp_path / "metastore_db").is_dir()
    read = second_process
    assert read.returncode == 0, (read.stdout[-2000:], read.stderr[-3000:])
    found = json.loads(read.stdout.strip().splitlines()[-1])
    assert found["provider"] == "hive" and found["tables"] == ["runs"]
    assert found["table"] == found["jsonl"] and len(found["table"]) == 4  # the 40-days-old run is outside the window
    assert found["file"] == "table:appended.runs"
    assert found["checks_per_run"] == [3, 3, 3, 3]  # the unread run has no check rows


def test_docs_list_the_table_columns():
    section = DOCS.read_text(encoding="utf-8").split("## A table in the Spark catalog", 1)[1].split("\n## ", 1)[0]
    for column, kind in COLUMNS:
        assert f"| `{column}` | `{kind}` |" in section, column


RUN_CONTRACT = """\
apiVersion: v3.1.0
kind: DataContract
id: table-history
version: 1.0.0
status: active
servers:
  - {server: local, type: local, path: "./events.csv", format: csv}
schema:
  - name: events
    properties:
      - {name: id, logicalType: integer, required: true}
      - {name: day, logicalType: string}
slaProperties:
  - {id: availability, property: availability, value: 50, unit: percent}
"""

# `dc-bridge run` itself, in a process of its own (no session running when the first run starts: its `--conf` makes
# the session reach the embedded Hive metastore), once per slice, one after the other: each run stops the session it
# started, so the next starts its own (in the same JVM) and reads the earlier runs from the table; then their exit codes
RUN = """
import json, sys
from dc_bridge.cli import main
codes = []
for where in sys.argv[1:]:
    try:
        main(["run", "contract.yaml", "--engines", "spark", "--history", "table:quality.runs", "--where", where,
              "--conf", "spark.sql.catalogImplementation=hive", "--conf", "spark.sql.warehouse.dir=warehouse"])
    except SystemExit as exit:
        codes.append(exit.code or 0)
    else:
        codes.append(0)
print(json.dumps(codes))
"""

RUNS_READ = SESSION.replace('spark.sql("CREATE DATABASE IF NOT EXISTS quality")\\nstore = SparkTableStore(spark, "table:quality.runs")\\n', "") + """
rows = spark.table("quality.runs").where("check_id IS NULL AND metric IS NULL").orderBy("run_at_us").collect()
checks = spark.table("quality.runs").where("check_id = 'availability'").orderBy("run_at_us").collect()
print(json.dumps({"runs": [[r.contract_id, r.run_outcome, r.data_source, r.slice] for r in rows],
                  "availability": [[r.outcome, r.slice] for r in checks]}))
"""


@pytest.fixture(scope="module")
def second_process(hive_folder):
    """The process after the one that made the metastore (one JVM start for two tests): `dc-bridge run` three times
    (RUN), the table those runs wrote read back (RUNS_READ), then the runs the first process appended (READ)."""
    tmp_path, prepare = hive_folder
    (tmp_path / "contract.yaml").write_text(RUN_CONTRACT)
    (tmp_path / "events.csv").write_text("id,day\n1,mon\n2,mon\n3,tue\n")
    assert prepare.returncode == 0, prepare.stderr[-3000:]  # the database the table lives in
    # the runs, then (their sessions stopped) a new session of the same process reads the table back from the metastore
    code = textwrap.dedent(RUN) + textwrap.dedent(RUNS_READ) + textwrap.dedent(READ.replace("quality", "appended"))
    return subprocess.run([sys.executable, "-c", code, "day = 'mon'", "day = 'tue'", "id > 1"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=600, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path),
                                                       **{k: v for k, v in __import__("os").environ.items() if k.startswith(("JAVA", "SPARK"))}})


def test_dc_bridge_run_records_into_a_catalog_table_with_source_and_slice(hive_folder, second_process):
    tmp_path, _ = hive_folder
    run = second_process
    assert run.returncode == 0, (run.stdout[-2000:], run.stderr[-3000:])
    codes, read = run.stdout.strip().splitlines()[-3:-1]
    assert json.loads(codes) == [0, 0, 0], (run.stdout[-2000:], run.stderr[-3000:])
    found = json.loads(read)
    source = json.dumps({"events": str(tmp_path / "events.csv")})
    assert found["runs"] == [["table-history", "passed", source, where] for where in ("day = 'mon'", "day = 'tue'", "id > 1")]
    # availability needs three runs: the third was judged over the first two, read from the table
    assert found["availability"] == [["not_executable", "day = 'mon'"], ["not_executable", "day = 'tue'"], ["passed", "id > 1"]]


# a table as schema version 1 made it (the columns of today before data_docs) with one run's row, then opened by this version
MIGRATE = SESSION.replace('store = SparkTableStore(spark, "table:quality.runs")\n', "") + """
from dc_bridge.history.spark_store import COLUMNS
v1 = list(COLUMNS[:[column for column, _ in COLUMNS].index("data_docs")])
spark.sql(f"CREATE TABLE quality.runs ({', '.join(f'{c} {k}' for c, k in v1)}) USING parquet")
old = record(0, 3)
spark.createDataFrame([(1, "old-run", "orders", "1.0.0", old["run_at"], 1, "failed", True, 3, 1, None, None, None,
                        None, None, None, None, None, {}, None)], ", ".join(f"{c} {k.lower()}" for c, k in v1)).write.insertInto("quality.runs")
before = [r.asDict() for r in spark.table("quality.runs").collect()]
store = SparkTableStore(spark, "table:quality.runs")
store.append(record(1, 1), data_docs={"index": "/ci/docs/index.html", "validations": {"orders": "/ci/docs/v.html"}})
SparkTableStore(spark, "table:quality.runs")  # opening again adds nothing
rows = spark.table("quality.runs").orderBy("run_at_us", "check_id").collect()
columns = spark.table("quality.runs").columns
spark.sql("ALTER TABLE quality.runs ADD COLUMNS (later_fact STRING)")  # as a newer dc-bridge's migration would
from dc_bridge.history.store import StoreError
try:
    SparkTableStore(spark, "table:quality.runs")
    refused = None
except StoreError as error:
    refused = str(error)
print(json.dumps({"columns": columns, "before": before, "refused": refused, "count": spark.table("quality.runs").count(),
                  "old": [r.asDict() for r in rows if r.run_id == "old-run"],
                  "new": sorted({(r.schema_version, r.data_docs) for r in rows if r.run_id != "old-run"})}, default=str))
"""


def test_a_table_of_schema_version_1_gets_the_new_column_and_keeps_its_rows(hive_folder):
    _, migrated = hive_folder
    assert migrated.returncode == 0, migrated.stderr[-3000:]
    found = json.loads(migrated.stdout.strip().splitlines()[-1])
    # data_docs (version 2), the metric and monitor columns (version 3), the lifecycle's (version 4) added at the end, once
    assert found["columns"] == [column for column, _ in COLUMNS]
    added = {column: None for column in found["columns"][len(found["before"][0]):]}
    assert "data_docs" in added and "band_lower" in added and "lifecycle_state" in added
    assert found["old"] == [{**row, **added} for row in found["before"]]  # the old row as written
    docs = json.dumps({"index": "/ci/docs/index.html", "validations": {"orders": "/ci/docs/v.html"}}, sort_keys=True)
    # the new run's rows (its own and its checks') carry this version and where its docs are
    assert found["new"] == [[SCHEMA_VERSION, docs]]
    # a table a newer dc-bridge migrated is refused, not written to, with the column that says so
    assert "later_fact" in found["refused"] and "upgrade dc-bridge" in found["refused"]
    assert found["count"] == len(found["before"]) + 1 + 3
