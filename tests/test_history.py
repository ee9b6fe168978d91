"""The run history (`--history`, runner/history.py) and the availability and errorRate SLAs judged over
it (verdict.py `judge_history`): on the real engines, a history written by the product's own runs (one
that read its data, one that could not) judges one SLA met and one missed, and is only ever appended
to; a file that is not a dc-bridge history, or is an input of the run, is refused with exit 2 before
Spark starts."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.console import Console

import dc_bridge
from dc_bridge.cli import main
from dc_bridge.contract.reading.load import load_contract
from dc_bridge.plan.build import build_plan
from dc_bridge.report.html import as_html
from dc_bridge.report.verdict_formats import as_json, as_junit, print_console
from dc_bridge.runner.data import DataError, DataLocation
from dc_bridge.runner.history import HistoryError, append_record, earlier_runs, read_history, unread_record
from dc_bridge.verdict import checks_in_error

ENGINES = ("gx", "soda", "spark")

CONTRACT = """\
apiVersion: v3.1.0
kind: DataContract
id: history-sla
version: 1.0.0
status: active
schema:
  - name: events
    properties:
      - {name: id, logicalType: integer, required: true, unique: true}
      - {name: status, logicalType: string, quality: [{type: library, rule: invalidValues, arguments: {validValues: [new, done]}, mustBe: 0}]}
slaProperties:
  - {id: availability, property: availability, value: 60, unit: percent}
  - {id: error_rate, property: errorRate, value: 1, unit: percent}
"""


@pytest.fixture
def contract(tmp_path) -> Path:
    path = tmp_path / "contract.yaml"
    path.write_text(CONTRACT)
    return path


def _sla(verdict, check_id: str):
    return next(check for check in verdict.checks() if check.check_id == check_id)


def test_availability_met_and_error_rate_missed_over_runs_the_product_recorded(spark, contract, tmp_path):
    history = tmp_path / "runs" / "history.jsonl"
    history.parent.mkdir()
    # one status outside the set: one failed check per run
    events = spark.createDataFrame([(1, "new"), (2, "done"), (3, "lost")], "id INT, status STRING")

    first = dc_bridge.run(str(contract), dataframes={"events": events}, spark=spark, engines=("spark",), history=str(history))
    for check_id in ("availability", "error_rate"):
        sla = _sla(first, check_id)
        assert (sla.outcome, sla.model) == ("not_executable", "(contract)")
        assert sla.reason == f"needs at least 3 runs of the contract in the last 30 days, this one included; {history} records 0 before it"
    # a run whose data cannot be read records a run without data, then stops as before
    with pytest.raises(DataError):
        dc_bridge.run(str(contract), data={"events": DataLocation(str(tmp_path / "missing.parquet"), "parquet")}, spark=spark,
                      engines=("spark",), history=str(history))
    written = history.read_bytes()
    records = [json.loads(line) for line in written.splitlines()]
    assert [(r["read"], r["outcome"], r["evaluated"], r["in_error"]) for r in records] == [
        ({"events": True}, "failed", *checks_in_error(first.checks())), ({"events": False}, "error", 0, 0)]
    assert "missing.parquet" in records[1]["reason"]

    verdict = dc_bridge.run(str(contract), dataframes={"events": events}, spark=spark, engines=ENGINES, history=str(history))

    # appended, never rewritten: the earlier bytes are as they were, and one line more
    after = history.read_bytes()
    assert after.startswith(written) and after[len(written):].count(b"\n") == 1
    evaluated, in_error = checks_in_error(verdict.checks())
    assert (evaluated, in_error) == checks_in_error(first.checks()) and in_error == 1
    availability, error_rate = _sla(verdict, "availability"), _sla(verdict, "error_rate")
    # 2 of 3 runs read the data: 66.7% >= 60%
    assert (availability.outcome, availability.expected) == ("passed", ">= 60.0%")
    assert availability.observed == pytest.approx(200 / 3)
    assert availability.reason == "2 of the 3 runs of the last 30 days read the data (this one included)"
    # one failed check in each run that read data: far above 1%
    assert (error_rate.outcome, error_rate.expected) == ("failed", "<= 1.0%")
    assert error_rate.observed == pytest.approx(100 * 2 / (2 * evaluated))
    assert error_rate.reason == (f"2 of {2 * evaluated} check evaluations failed or were in error in the 3 runs of the last 30 days "
                                 f"(this one included)")
    assert verdict.outcome == "failed"
    assert json.loads(after.splitlines()[-1])["checks"]["error_rate"] == "failed"

    # every report shows the two SLAs like any other check
    data = json.loads(as_json(verdict))
    shown = {c["check_id"]: c for m in data["models"] for c in m["checks"]}
    assert (shown["availability"]["outcome"], shown["error_rate"]["outcome"]) == ("passed", "failed")
    cases = {case.get("name"): case for case in ET.fromstring(as_junit(verdict)).iter("testcase")}
    assert cases["error_rate"].find("failure") is not None and cases["availability"].find("failure") is None
    console = Console(record=True, width=250)
    print_console(verdict, console)
    assert "error_rate" in console.export_text()
    html = as_html(verdict)
    assert "error_rate" in html and "availability" in html


def test_without_a_history_the_slas_say_how_to_keep_one(spark, contract):
    events = spark.createDataFrame([(1, "new")], "id INT, status STRING")
    verdict = dc_bridge.run(str(contract), dataframes={"events": events}, spark=spark, engines=("spark",))
    for check_id in ("availability", "error_rate"):
        sla = _sla(verdict, check_id)
        assert sla.outcome == "not_executable" and "pass --history PATH (Python: history=PATH)" in sla.reason
    assert verdict.outcome == "passed"  # the SLAs never make a verdict better or worse


LINE = json.dumps({"dc_bridge_history": 1, "contract_id": "history-sla", "contract_version": "1.0.0",
                   "run_at": "2026-01-01T00:00:00+00:00", "outcome": "passed", "read": {"events": True}, "models": {},
                   "checks": {}, "evaluated": 3, "in_error": 0})


@pytest.mark.parametrize("text, line, found", [
    ("this is not json\n", 1, "text that is not JSON"),
    (LINE + "\n" + '{"run": 1}\n', 2, "dict without `dc_bridge_history`"),
    ("\n" + LINE.replace('"evaluated": 3', '"evaluated": "3"') + "\n", 2, '`evaluated` = "3" (it must be a whole number, 0 or more)'),
    (LINE.replace('"in_error": 0', '"in_error": 4') + "\n", 1, "`in_error` 4 over `evaluated` 3"),
    (LINE.replace("+00:00", "") + "\n", 1, "`run_at` = \"2026-01-01T00:00:00\" (it must be an ISO 8601 time with its offset from UTC)"),
])
def test_a_history_that_is_not_ours_is_refused_before_spark_starts(contract, tmp_path, text, line, found):
    history = tmp_path / "history.jsonl"
    history.write_text(text)
    result = CliRunner().invoke(main, ["run", str(contract), "--history", str(history)])
    assert result.exit_code == 2, result.output
    assert f"history file {history}, line {line}: expected one JSON object per line, written by dc-bridge run --history" in result.output
    assert found in result.output
    assert history.read_text() == text
    with pytest.raises(HistoryError, match=f"line {line}"):
        dc_bridge.run(str(contract), history=str(history))


def test_the_history_may_not_be_an_input_or_the_report(contract, tmp_path):
    before = contract.read_text()
    result = CliRunner().invoke(main, ["run", str(contract), "--history", str(contract)])
    assert result.exit_code == 2 and f"--history {contract} is the contract" in result.output
    report = tmp_path / "report.json"
    result = CliRunner().invoke(main, ["run", str(contract), "--history", str(report), "--output", "json", "--output-file", str(report)])
    assert result.exit_code == 2 and "is also the --history file" in result.output
    assert contract.read_text() == before and not report.exists()


def test_the_window_holds_this_contracts_runs_of_the_last_30_days(tmp_path):
    history = tmp_path / "history.jsonl"
    now = datetime(2026, 6, 1, tzinfo=timezone.utc)
    for at, contract_id in [(now - timedelta(days=31), "history-sla"), (now - timedelta(days=29), "history-sla"),
                            (now - timedelta(days=1), "other"), (now + timedelta(hours=1), "history-sla")]:
        append_record(history, unread_record(contract_id, "1.0.0", {"events": False}, at, "gone"))
    past = earlier_runs(read_history(history), history, "history-sla", now)
    assert len(past.runs) == 1 and not past.runs[0].data_read
    # a hand-edited last line without its newline gets one before the next record
    history.write_bytes(history.read_bytes().rstrip(b"\n"))
    append_record(history, unread_record("history-sla", "1.0.0", {}, now, "gone"))
    assert len(read_history(history)) == 5


@pytest.mark.parametrize("value, unit, target", [
    ("99.9", "percent", None), (99.9, "percent", 99.9), (99.9, None, 99.9), (120, "percent", None), (5, "count", None),
])
def test_an_sla_value_that_is_no_percent_is_not_executable(tmp_path, value, unit, target):
    path = tmp_path / "c.yaml"
    sla = {"id": "avail", "property": "availability", "value": value, **({"unit": unit} if unit else {})}
    path.write_text(CONTRACT.split("slaProperties:")[0] + f"slaProperties:\n  - {json.dumps(sla)}\n")
    [check] = [c for c in build_plan(load_contract(path).contract).checks if c.id == "avail"]
    if target is None:
        assert check.kind == "not_executable" and "a number from 0 to 100 with `unit: percent`" in check.params.reason
    else:
        assert (check.kind, check.threshold.operator, check.threshold.value) == ("availability", ">=", target)
