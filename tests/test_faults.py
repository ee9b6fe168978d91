"""Fault injection: an engine or Spark breaks mid-run, and the verdict says so.

Faults are injected where they happen in real life, inside GX, Soda and Spark (a GX metric that
raises, a Soda query that fails, a Python UDF that raises on one row, a session that stops, an
engine that takes too long); no engine's *results* are mocked. In every case:

- the affected checks are `error`, with the reason;
- every other check keeps its result (and the other engine's number is kept on the affected check);
- the verdict is `error` and `dc-bridge run` exits 2;
- the JSON report is still written (`--output json --output-file`), and nothing prints a traceback.

Data comes from temp views through a `dataframe` server, so the CLI runs on the test session.
The session-death fault runs in a subprocess (it stops its session; the shared one must survive).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from dc_bridge.cli import main
from dc_bridge.contract.sql import view_name

ROOT = Path(__file__).resolve().parent.parent

FAULTS = """
dataContractSpecification: 1.1.0
id: injected-faults
info: {title: Injected faults, version: 1.0.0}
servers:
  memory: {type: dataframe}
models:
  fault_patterns:        # GX raises inside the regex expectation
    fields:
      id: {type: integer, required: true, unique: true}
      code: {type: string, pattern: '^[A-Z]+$'}
  fault_dupes:           # Soda's query for the uniqueness metric fails
    fields:
      id: {type: integer, required: true, unique: true}
      name: {type: string, required: true}
  fault_tasks:           # a Spark task fails: a Python UDF column raises on one row
    fields:
      id: {type: integer, required: true}
      boom: {type: integer, required: true}
"""


def _by_id(report: dict) -> dict:
    return {c["check_id"]: c for m in report["models"] for c in m["checks"]}


def _run_cli(args: list[str]):
    result = CliRunner().invoke(main, ["run", *args])
    # a fault must surface as an exit code and a report, never as an exception out of the command
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    # (a reason may quote the *data's* Python error, the UDF's traceback; dc-bridge's own code never shows up)
    assert "dc_bridge/" not in result.output and "site-packages/click" not in result.output, result.output
    return result


@pytest.fixture
def views(spark):
    """Register temp views for the run and drop them afterwards (the session is shared)."""
    registered = []

    def register(name, frame):
        frame.createOrReplaceTempView(name)
        registered.append(name)

    yield register
    for name in registered:
        spark.catalog.dropTempView(name)


def test_gx_metric_soda_query_and_spark_task_faults(spark, views, tmp_path, monkeypatch):
    from great_expectations.expectations.registry import _registered_metrics
    from pyspark.sql import functions as F
    from dc_bridge.engines.soda.spark_df import SparkDfCursor

    # data: `fault_patterns` and `fault_dupes` have one violation each, which the healthy engine still sees
    # (localCheckpoint: held by the JVM, so no Python worker re-creates the rows for every Spark job)
    views("fault_patterns", spark.createDataFrame([(1, "AB"), (2, "ab"), (3, None)], "id int, code string").localCheckpoint())
    views("fault_dupes", spark.createDataFrame([(1, "a"), (1, "b"), (2, None)], "id int, name string").localCheckpoint())

    @F.udf("int")
    def explode_on_two(value):
        if value == 2:
            raise ValueError("boom on row 2")
        return value

    views("fault_tasks", spark.range(1, 5).select(F.col("id").cast("int").alias("id"), explode_on_two("id").alias("boom")))

    # GX: the Spark provider of the regex condition metric raises
    providers = _registered_metrics["column_values.match_regex.condition"]["providers"]
    metric_class, _ = providers["SparkDFExecutionEngine"]

    def gx_raises(*args, **kwargs):
        raise RuntimeError("injected GX metric fault")

    monkeypatch.setitem(providers, "SparkDFExecutionEngine", (metric_class, gx_raises))

    # Soda: the query behind fault_dupes' uniqueness metric fails in Spark
    dupes_view = view_name("injected-faults", "fault_dupes")
    execute = SparkDfCursor.execute

    def soda_query_fails(self, sql):
        # the uniqueness query, as the compiled SodaCL has it (a grouping) or as a bridge run sends it (a window)
        if dupes_view in sql and ("HAVING COUNT(*) > 1" in sql or "OVER (PARTITION BY" in sql):
            raise RuntimeError("injected Soda query fault")
        return execute(self, sql)

    monkeypatch.setattr(SparkDfCursor, "execute", soda_query_fails)

    contract = tmp_path / "faults.yaml"
    contract.write_text(FAULTS)
    out = tmp_path / "verdict.json"
    result = _run_cli([str(contract), "--no-samples", "--output", "json", "--output-file", str(out)])
    assert result.exit_code == 2, result.output
    report = json.loads(out.read_text())
    checks = _by_id(report)
    assert report["outcome"] == "error"

    # GX raised inside one expectation: that check is error, Soda's count on it is kept
    pattern = checks["fault_patterns.code.pattern"]
    assert pattern["outcome"] == "error" and pattern["reason"] == "gx: injected GX metric fault"
    assert pattern["engines"]["gx"]["outcome"] == "error" and pattern["engines"]["soda"]["observed"] == 1
    for check_id in ("fault_patterns.id.required", "fault_patterns.id.unique", "fault_patterns.code.exists"):
        assert checks[check_id]["outcome"] == "passed", check_id
        assert {r["outcome"] for r in checks[check_id]["engines"].values()} == {"passed"}, check_id

    # Soda logged a query error: that check is error with Soda's message, GX's count is kept
    unique = checks["fault_dupes.id.unique"]
    assert unique["outcome"] == "error" and unique["reason"].startswith("soda: Query execution error")
    assert "injected Soda query fault" in unique["reason"]
    assert unique["engines"]["gx"]["outcome"] == "failed" and unique["engines"]["gx"]["observed"] == 2
    assert checks["fault_dupes.name.required"]["outcome"] == "failed" and checks["fault_dupes.name.required"]["observed"] == 1
    assert checks["fault_dupes.id.required"]["outcome"] == "passed"

    # a Spark task failed: the check on the failing column is error with the Python error...
    boom = checks["fault_tasks.boom.required"]
    assert boom["outcome"] == "error" and "ValueError: boom on row 2" in boom["reason"]
    # ...GX isolates it (its other results stand), while Soda computes all column metrics of a table
    # in one fused query and aborts the scan when it fails: all of Soda's checks of the model are
    # error, never passed, and GX's numbers stay beside them
    required = checks["fault_tasks.id.required"]
    assert required["outcome"] == "error" and required["engines"]["gx"]["observed"] == 0
    assert required["engines"]["soda"]["outcome"] == "error"
    assert checks["fault_tasks.boom.exists"]["outcome"] == "error" and checks["fault_tasks.boom.exists"]["engines"]["gx"]["outcome"] == "passed"
    assert checks["fault_tasks.id.type"]["outcome"] == "passed"     # GX only, reads the schema

    assert {m["name"]: m["outcome"] for m in report["models"]} == {
        "fault_patterns": "error", "fault_dupes": "error", "fault_tasks": "error"}


def test_timeout_cancels_the_slow_engine_and_keeps_the_other(spark, views, tmp_path):
    """GX needs a column computed by a Python UDF that sleeps; Soda's checks do not read it. With
    --timeout, GX is stopped at the limit (its Spark jobs cancelled), its checks are error, and
    Soda's results stand. One by one: side by side, GX's sleeping tasks hold both cores until they
    are cancelled, so Soda's limit runs out at the same moment (both `error`, never a pass)."""
    from pyspark.sql import functions as F

    @F.udf("int")
    def sleepy(value):
        time.sleep(30)
        return value

    views("fault_slow", spark.range(1, 5).select(F.col("id").cast("int").alias("id"), sleepy("id").alias("lazy")))
    contract = tmp_path / "slow.yaml"
    contract.write_text(textwrap.dedent("""
        dataContractSpecification: 1.1.0
        id: injected-timeout
        info: {title: Slow, version: 1.0.0}
        servers:
          memory: {type: dataframe}
        models:
          fault_slow:
            fields:
              id: {type: integer, required: true}
            quality:
              - type: custom
                engine: great-expectations
                specification: {type: expect_column_values_to_not_be_null, kwargs: {column: lazy}}
              - type: custom
                engine: soda
                specification: "row_count = 4"
    """))
    out = tmp_path / "verdict.json"
    began = time.monotonic()
    result = _run_cli([str(contract), "--timeout", "12", "--one-by-one", "--no-samples", "--output", "json", "--output-file", str(out)])
    elapsed = time.monotonic() - began
    assert result.exit_code == 2, result.output
    assert elapsed < 60, f"the run took {elapsed:.0f} s; the GX job was not cancelled"
    checks = _by_id(json.loads(out.read_text()))
    gx_only, soda_only, both = checks["fault_slow.quality[0]"], checks["fault_slow.quality[1]"], checks["fault_slow.id.required"]
    assert gx_only["outcome"] == "error" and "timed out after 12 s" in gx_only["reason"]
    assert soda_only["outcome"] == "passed"
    assert both["outcome"] == "error" and "gx: timed out" in both["reason"] and both["engines"]["soda"]["observed"] == 0
    # the cancelled job leaves nothing running on the shared session
    assert spark.sparkContext.statusTracker().getActiveJobsIds() == []


def test_every_run_has_a_time_limit_unless_turned_off():
    """Without --timeout a run still has a limit (an hour per engine and model); `none` turns it off,
    and a limit that is not a positive number is refused before Spark starts."""
    import inspect

    from dc_bridge.runner.pipeline import run
    from dc_bridge.runner.timeouts import DEFAULT_SECONDS

    assert DEFAULT_SECONDS == 3600
    assert inspect.signature(run).parameters["timeout"].default == DEFAULT_SECONDS
    command = main.commands["run"]
    option = next(p for p in command.params if p.name == "timeout")
    context = command.make_context("run", ["x.yaml"])
    assert context.params["timeout"] == DEFAULT_SECONDS
    assert command.make_context("run", ["x.yaml", "--timeout", "none"]).params["timeout"] is None
    assert command.make_context("run", ["x.yaml", "--timeout", "7200"]).params["timeout"] == 7200
    for bad in ("0", "-1", "nan", "inf", "soon"):
        result = CliRunner().invoke(main, ["run", str(ROOT / "contracts" / "orders.yaml"), "--timeout", bad])
        assert result.exit_code == 2, (bad, result.output)
        assert "is not a time limit: give a positive number of seconds, or `none` for no limit" in result.output
    assert option.metavar == "SECONDS|none"
    with pytest.raises(ValueError, match="give a positive number of seconds, or None for no limit"):
        run(ROOT / "contracts" / "orders.yaml", timeout=0)


def test_a_time_limit_keeps_the_callers_job_group(spark):
    """The limit tags its jobs instead of replacing the caller's job group: cancelling the caller's
    group (a notebook's cancel button) still stops a job started inside the limit."""
    import threading

    from pyspark.sql import functions as F

    from dc_bridge.runner.timeouts import within

    @F.udf("int")
    def sleepy(value):
        time.sleep(30)
        return value

    context = spark.sparkContext
    context.setJobGroup("notebook-cell", "a caller's cell", interruptOnCancel=True)
    cancel = threading.Timer(3, lambda: context.cancelJobGroup("notebook-cell"))
    began = time.monotonic()
    try:
        cancel.start()
        with pytest.raises(Exception, match="cancel"):
            within(120, spark, "slow", lambda: spark.range(2).select(sleepy("id")).collect(), on_timeout=lambda reason: reason)
    finally:
        cancel.cancel()
        context.setLocalProperty("spark.jobGroup.id", None)
        context.setLocalProperty("spark.job.description", None)
    assert time.monotonic() - began < 60
    assert context.statusTracker().getActiveJobsIds() == []


SESSION_DEATH = r"""
import json, os, sys
os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
from pyspark.sql import SparkSession
spark = (SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false")
         .config("spark.ui.showConsoleProgress", "false").getOrCreate())
spark.sparkContext.setLogLevel("OFF")
spark.createDataFrame([(1, "a"), (None, "b")], "id int, name string").createOrReplaceTempView("dying")

import soda.scan
execute = soda.scan.Scan.execute

def die_then_execute(self):
    # the session dies between the two engines: GX has run, Soda finds it stopped
    SparkSession.getActiveSession().stop()
    return execute(self)

soda.scan.Scan.execute = die_then_execute
from dc_bridge.cli import main
# with a time limit the engines run in worker threads; a dead session must not break that either (one by one: GX before Soda)
main(["run", sys.argv[1], "--timeout", "120", "--one-by-one", "--output", "json", "--output-file", sys.argv[2]])
"""


def test_session_dies_mid_run(tmp_path):
    contract = tmp_path / "dying.yaml"
    contract.write_text(textwrap.dedent("""
        dataContractSpecification: 1.1.0
        id: dying
        info: {title: Dying, version: 1.0.0}
        servers:
          memory: {type: dataframe}
        models:
          dying:
            fields:
              id: {type: integer, required: true}
              name: {type: string, required: true}
            quality:
              - type: custom
                engine: great-expectations
                specification: {type: expect_table_row_count_to_equal, kwargs: {value: 2}}
    """))
    out = tmp_path / "verdict.json"
    done = subprocess.run([sys.executable, "-c", SESSION_DEATH, str(contract), str(out)], capture_output=True, text=True,
                          timeout=240, cwd=tmp_path, env={**os.environ, "PYSPARK_PYTHON": sys.executable})
    assert done.returncode == 2, done.stderr[-3000:]
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    report = json.loads(out.read_text())
    checks = _by_id(report)
    assert report["outcome"] == "error"
    # GX ran before the session died: its results are kept
    assert checks["dying.quality[0]"]["outcome"] == "passed"
    required = checks["dying.id.required"]
    assert required["engines"]["gx"]["observed"] == 1
    # Soda found the session stopped: every check it runs is error, with its reason
    assert required["outcome"] == "error" and required["reason"].startswith("soda:")
    assert checks["dying.name.required"]["outcome"] == "error"


def test_catastrophic_regex_cannot_hang_a_run(tmp_path):
    """`((a+)+)+$` on 40 a's and a `!` backtracks for hours in java.util.regex, and a Java match cannot
    be interrupted. Lint warns (DCB142); with --timeout the run returns at the limit anyway: the
    model's checks are error, another model keeps its results, the report is written, exit 2.
    On one core (`local[1]`) the stuck task holds the only core after the timeout, so the jobs that
    follow the engines (the empty-model check, samples) must be bounded too, or the run hangs there.
    In a subprocess: the stuck Spark task dies with its JVM, not with the shared test session."""
    (tmp_path / "fine.csv").write_text("id\n1\n2\n")
    (tmp_path / "codes.csv").write_text("code\nab\n" + "a" * 40 + "!\n")
    contract = tmp_path / "regex.yaml"
    contract.write_text(textwrap.dedent("""
        dataContractSpecification: 1.1.0
        id: catastrophic
        info: {title: Catastrophic regex, version: 1.0.0}
        servers:
          local: {type: local, format: csv, path: './{model}.csv'}
        models:
          fine:
            fields:
              id: {type: integer, required: true, unique: true}
          codes:
            fields:
              code: {type: string, pattern: '^((a+)+)+$'}
    """))
    lint = CliRunner().invoke(main, ["lint", str(contract)])
    assert lint.exit_code == 0 and "DCB142" in lint.output, lint.output
    out = tmp_path / "verdict.json"
    dc_bridge = Path(sys.executable).parent / "dc-bridge"
    began = time.monotonic()
    done = subprocess.run([str(dc_bridge), "run", str(contract), "--engines", "soda", "--master", "local[1]", "--timeout", "5", "--output", "json",
                           "--output-file", str(out)], capture_output=True, text=True, timeout=240, cwd=tmp_path,
                          env={**os.environ, "PYSPARK_PYTHON": sys.executable})
    elapsed = time.monotonic() - began
    assert done.returncode == 2, done.stderr[-3000:]
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    checks = _by_id(json.loads(out.read_text()))
    assert checks["codes.code.pattern"]["outcome"] == "error"
    assert checks["codes.code.pattern"]["reason"] == ("soda: timed out after 5 s (the time limit; raise it with --timeout SECONDS, or --timeout none); "
                                                       "its Spark jobs were cancelled")
    assert (checks["fine.id.required"]["outcome"], checks["fine.id.unique"]["outcome"]) == ("passed", "passed")
    assert elapsed < 120, f"the run took {elapsed:.0f} s"
