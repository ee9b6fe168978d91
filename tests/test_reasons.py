"""A check's reason is the root cause in a line or two, never a stack: a query that fails inside Spark
at run time (ANSI division by zero, a malformed cast) reaches the console, the JSON and the HTML page
as its Spark error class and message, in GX, Soda and the native engine alike; a check Soda did not
evaluate because its scan stopped at another check's query says so instead of borrowing that error;
and Soda's own log of the failure (with its Java stack) is not printed to the console."""

from __future__ import annotations

import json

from rich.console import Console

import dc_bridge
from dc_bridge.engines.results import cause_text
from dc_bridge.report.html import as_html
from dc_bridge.report.verdict_formats import as_json, print_console

CONTRACT = """\
apiVersion: v3.1.0
kind: DataContract
id: failing-queries
version: 1.0.0
status: active
schema:
  - name: t
    quality:
      - {id: divide, type: sql, query: "SELECT COUNT(*) FROM t WHERE 1 / (a - a) > 0", mustBe: 0}
      - {id: casting, type: sql, query: "SELECT COUNT(*) FROM t WHERE CAST(b AS INT) > 0", mustBe: 0}
    properties:
      - {name: a, logicalType: integer}
      - {name: b, logicalType: string}
"""
# what only a stack or Py4J's wrapper holds
STACK_MARKS = ("\tat ", "at org.apache", "An error occurred while calling", "Traceback", "JVM stacktrace", "Caused by")


def test_a_query_failing_inside_spark_is_its_error_class_in_one_or_two_lines(spark, tmp_path, capfd):
    path = tmp_path / "c.yaml"
    path.write_text(CONTRACT)
    before = spark.conf.get("spark.sql.ansi.enabled")
    spark.conf.set("spark.sql.ansi.enabled", "true")
    try:
        frame = spark.createDataFrame([(1, "x"), (2, "y")], "a int, b string")
        verdict = dc_bridge.run(path, dataframes={"t": frame}, spark=spark, engines=("gx", "soda", "spark"), samples=False)
    finally:
        spark.conf.set("spark.sql.ansi.enabled", before)
    checks = {c.check_id: c for m in verdict.models for c in m.checks}
    assert checks["divide"].outcome == checks["casting"].outcome == "error"
    for check_id, error_class in (("divide", "[DIVIDE_BY_ZERO]"), ("casting", "[CAST_INVALID_INPUT]")):
        engines = checks[check_id].engines
        assert set(engines) == {"gx", "soda", "spark"}
        for engine, result in engines.items():
            if engine == "soda" and check_id == "casting":  # Soda's scan stopped at the first failing query
                assert result.error.startswith("Soda did not evaluate the check, its scan stopped at an error of another check")
                assert "[DIVIDE_BY_ZERO]" in result.error
                continue
            assert error_class in result.error, (check_id, engine, result.error)
    for check in checks.values():
        for text in [check.reason or ""] + [r.error or "" for r in check.engines.values()]:
            assert not any(mark in text for mark in STACK_MARKS), text
            assert text.count("\n") <= 1 and len(text) <= 3 * 400, text

    console = Console(record=True, width=100)
    print_console(verdict, console)
    for report in (console.export_text(), as_json(verdict), as_html(verdict)):
        assert "DIVIDE_BY_ZERO" in report and not any(mark in report for mark in ("\tat ", "\\tat ", "at org.apache", "An error occurred while calling"))
    assert "Query execution error" not in capfd.readouterr().err  # Soda's own log of it


def test_cause_text_keeps_dc_bridges_own_reasons_as_written():
    # a message without a stack is left alone, newlines and all; a Python traceback becomes its last line
    assert cause_text("the referenced model `x` has no data in this run") == "the referenced model `x` has no data in this run"
    assert cause_text("first\nsecond") == "first\nsecond"
    assert cause_text('Traceback (most recent call last):\n  File "x.py", line 1, in <module>\n    f()\nValueError: no') == "ValueError: no"
    assert json.loads(json.dumps(cause_text("")))  == ""
