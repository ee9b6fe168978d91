"""Monitors in a real run (dc_bridge/runner/monitoring.py, docs/monitoring.md "Monitors: configuration"): a
SQLite store and a Spark-table store, each seeded with a month of daily runs through the store's own API
(weekdays busier than weekends), then `dc-bridge run` on planted data with half the usual rows. The `rows`
monitor says `anomalous` with its band while the contract's verdict stays as its checks say (`warning`);
`strict` fails the run (exit 1); a series with fewer runs than the warm-up is `learning`, never `normal`;
`off` judges none; a JSON Lines history says once that monitors need a store. Then `monitor backtest` over
the seeded store, and the schema migration of a version 2 file."""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime, timedelta, timezone

import pytest
from click.testing import CliRunner

from dc_bridge.cli import main
from dc_bridge.contract.lint import lint_file
from dc_bridge.history.series import arrival_seconds
from dc_bridge.history.spark_store import SparkTableStore
from dc_bridge.history.store import SCHEMA, HistoryStore
from dc_bridge.monitors import SeriesKey

CONTRACT = """\
apiVersion: v3.1.0
kind: DataContract
id: monitored-events
version: 1.0.0
status: active
customProperties:
  - property: x-dc-bridge-monitors
    value: {metrics: [rows, arrival], lookback: 40}
schema:
  - name: events
    properties:
      - {name: id, logicalType: integer, required: true}
      - name: note
        logicalType: string
        quality:
          - {id: note_present, metric: nullValues, mustBe: 0, severity: warning}
  - name: lines
    properties:
      - {name: id, logicalType: integer}
"""
NOW = datetime.now(timezone.utc)
DAYS = 30
LEARNING_RUNS = 3  # `lines` appears in the newest runs only: fewer than the warm-up of 7


def usual_rows(at: datetime, days_ago: int) -> int:
    """Weekdays 400 rows, weekends 240, each day a little off (within 2%)."""
    base = 240 if at.weekday() >= 5 else 400
    return round(base * (1 + ((days_ago * 7) % 5 - 2) / 100))


def _record(at: datetime) -> dict:
    return {"dc_bridge_history": 1, "contract_id": "monitored-events", "contract_version": "1.0.0", "run_at": at.isoformat(),
            "outcome": "passed", "read": {"events": True, "lines": True}, "models": {"events": "passed", "lines": "passed"},
            "checks": {}, "evaluated": 1, "in_error": 0}


def seed(store) -> None:
    """A month of daily runs, oldest first, through the store's own append."""
    for days_ago in range(DAYS, 0, -1):
        at = NOW - timedelta(days=days_ago)
        metrics = {SeriesKey("rows", "events"): float(usual_rows(at, days_ago)), SeriesKey("arrival"): arrival_seconds(at)}
        if days_ago <= LEARNING_RUNS:
            metrics[SeriesKey("rows", "lines")] = 50.0
        store.append(_record(at), metrics=metrics)


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """The contract and planted data: half of today's usual rows of `events`, one of them without a note (the warning)."""
    folder = tmp_path_factory.mktemp("monitored")
    (folder / "contract.yaml").write_text(CONTRACT)
    half = usual_rows(NOW, 0) // 2
    (folder / "events.csv").write_text("id,note\n" + "".join(f"{i},{'' if i == 0 else 'n'}\n" for i in range(half)))
    (folder / "lines.csv").write_text("id\n" + "".join(f"{i}\n" for i in range(50)))
    return folder, half


def _run(folder, history: str, *extra: str):
    result = CliRunner().invoke(main, ["run", str(folder / "contract.yaml"), "--engines", "spark", "--history", history,
                                       "--data", f"events={folder / 'events.csv'}", "--data", f"lines={folder / 'lines.csv'}",
                                       "--output", "json", *extra])
    return result, json.loads(result.stdout[result.stdout.index("{"):]) if "{" in result.stdout else None


def _monitors(verdict: dict) -> dict[str, dict]:
    return {m["monitor_id"]: m for m in verdict["monitors"]}


def _said_of_half(monitors: dict, half: int) -> None:
    events = monitors["rows(events)"]
    assert events["outcome"] == "anomalous" and events["observed"] == half
    assert events["lower"] is not None and events["upper"] is not None and half < events["lower"] < events["upper"]
    assert "below the expected" in events["sentence"]
    lines = monitors["rows(lines)"]  # three earlier runs, a warm-up of seven
    assert lines["outcome"] == "learning" and lines["needed"] == 7 - LEARNING_RUNS and lines["lower"] is None


def test_a_month_of_history_in_a_sqlite_store_flags_half_the_rows(spark, project, tmp_path, monkeypatch):
    folder, half = project
    monkeypatch.chdir(tmp_path)  # no project configuration: monitors at `warn`
    store = HistoryStore(tmp_path / "history.db")
    seed(store)

    result, verdict = _run(folder, str(tmp_path / "history.db"))
    assert result.exit_code == 0, result.output
    assert verdict["outcome"] == "warning" and verdict["reason"] is None  # as the checks say: the warning check
    assert {m["name"]: m["rows"] for m in verdict["models"]} == {"events": half, "lines": 50}
    monitors = _monitors(verdict)
    _said_of_half(monitors, half)
    # the contract's own x-dc-bridge-monitors adds arrival to the project's defaults
    assert set(monitors) == {"rows(events)", "rows(lines)", "arrival"} and monitors["rows(events)"]["severity"] == "warn"
    # recorded with the run: the value, and the anomaly kept out of the baselines after it
    newest = store.series("monitored-events", [SeriesKey("rows", "events")])[SeriesKey("rows", "events")][-1]
    assert (newest.value, newest.anomalous) == (half, True)
    run_id = store.runs("monitored-events", limit=1)[0].run_id
    said = store.monitor_outcomes([run_id])
    assert said[(run_id, SeriesKey("rows", "events"))].lower == monitors["rows(events)"]["lower"]
    assert said[(run_id, SeriesKey("rows", "lines"))].outcome == "learning"

    # strict: the anomaly fails the contract, with a reason naming the monitor
    (tmp_path / "dc-bridge.toml").write_text('[enforcement]\nmonitors = "strict"\n')
    result, verdict = _run(folder, str(tmp_path / "history.db"))
    assert result.exit_code == 1, result.output
    assert verdict["outcome"] == "failed" and "rows(events)" in verdict["reason"]
    assert _monitors(verdict)["rows(events)"]["severity"] == "strict"

    # off: no monitor judged, none recorded, the verdict as the checks say
    (tmp_path / "dc-bridge.toml").write_text('[enforcement]\nmonitors = "off"\n')
    result, verdict = _run(folder, str(tmp_path / "history.db"))
    assert result.exit_code == 0, result.output
    assert verdict["monitors"] == [] and verdict["outcome"] == "warning"
    run_id = store.runs("monitored-events", limit=1)[0].run_id
    assert store.monitor_outcomes([run_id]) == {}

    # an unknown metric in the project's table is bad input, exit 2, naming the file and the key
    (tmp_path / "dc-bridge.toml").write_text('[monitors]\nmetrics = ["rows", "row"]\n')
    result, _ = _run(folder, str(tmp_path / "history.db"))
    assert result.exit_code == 2 and "monitors.metrics" in result.output and "'row'" in result.output


def test_a_month_of_history_in_a_spark_table_flags_half_the_rows(spark, project, tmp_path, monkeypatch):
    folder, half = project
    monkeypatch.chdir(tmp_path)
    spark.sql("CREATE DATABASE IF NOT EXISTS monitored")
    spark.sql("DROP TABLE IF EXISTS monitored.runs")
    store = SparkTableStore(spark, "table:monitored.runs")
    seed(store)
    result, verdict = _run(folder, "table:monitored.runs")
    assert result.exit_code == 0, result.output
    assert verdict["outcome"] == "warning"
    _said_of_half(_monitors(verdict), half)
    newest = store.series("monitored-events", [SeriesKey("rows", "events")], limit=3)[SeriesKey("rows", "events")]
    assert len(newest) == 3 and (newest[-1].value, newest[-1].anomalous) == (half, True)
    run_id = spark.table("monitored.runs").orderBy("run_at_us", ascending=False).first().run_id
    said = store.monitor_outcomes([run_id])
    assert said[(run_id, SeriesKey("rows", "events"))].outcome == "anomalous"


def test_a_json_lines_history_says_once_that_monitors_need_a_store(spark, project, tmp_path, monkeypatch):
    folder, _ = project
    monkeypatch.chdir(tmp_path)
    result, verdict = _run(folder, str(tmp_path / "history.jsonl"))
    assert result.exit_code == 0, result.output
    assert result.output.count("monitors need a history store") == 1 and "dc-bridge history import" in result.output
    assert verdict["monitors"] == []


def test_backtest_replays_the_seeded_store(tmp_path):
    seed(HistoryStore(tmp_path / "history.db"))
    result = CliRunner().invoke(main, ["monitor", "backtest", "--history", str(tmp_path / "history.db"), "--output", "json"])
    assert result.exit_code == 0, result.output
    replay = json.loads(result.stdout)
    by_monitor = {s["monitor_id"]: s for s in replay["summary"]}
    # rows(events): the first 7 runs learn; until the weekly rhythm is learned a weekend may alarm, a weekday never,
    # and once it is (the last week), nothing does
    events = by_monitor["rows(events)"]
    assert events["runs"] == DAYS and events["learning"] == 7 and events["learning"] + events["normal"] + events["anomalous"] == DAYS
    replayed = [r for r in replay["runs"] if r["monitor_id"] == "rows(events)"]
    assert len(replayed) == DAYS and [r["outcome"] for r in replayed[-7:]] == ["normal"] * 7
    assert all(datetime.fromisoformat(r["at"]).weekday() >= 5 for r in replayed if r["outcome"] == "anomalous")
    assert by_monitor["rows(lines)"] == {**by_monitor["rows(lines)"], "runs": LEARNING_RUNS, "learning": LEARNING_RUNS}
    text = CliRunner().invoke(main, ["monitor", "backtest", "--history", str(tmp_path / "history.db"), "--metric", "rows",
                                     "--sensitivity", "0.5"])
    assert text.exit_code == 0, text.output
    assert "rows(events)" in text.output and "arrival" not in text.output
    missing = CliRunner().invoke(main, ["monitor", "backtest", "--history", str(tmp_path / "nothing.db")])
    assert missing.exit_code == 2 and "nothing.db" in missing.output
    (tmp_path / "notes.txt").write_text("not a store\n")
    other = CliRunner().invoke(main, ["monitor", "backtest", "--history", str(tmp_path / "notes.txt")])
    assert other.exit_code == 2 and "notes.txt" in other.output
    assert (tmp_path / "notes.txt").read_text() == "not a store\n"


def test_a_store_of_schema_version_2_gains_the_monitor_tables_and_keeps_its_runs(tmp_path):
    # the tables of version 2: runs without the lifecycle columns (version 4), no metrics or monitors (version 3)
    v2 = SCHEMA.split(",\n    lifecycle_state TEXT")[0] + "\n);" + SCHEMA.split("INTEGER\n);", 1)[1].split("-- version 3")[0]
    path = tmp_path / "v2.db"
    with sqlite3.connect(path) as db:
        db.executescript(v2)
        db.execute("INSERT INTO schema_version VALUES (2, '2026-01-01T00:00:00+00:00')")
        # a run of version 2, with its 17 columns
        db.execute("INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   ("old-run", "monitored-events", "1.0.0", "2026-01-01T06:00:00+00:00", 1767247200000000, "passed", 1, 1, 0,
                    "contract.yaml", None, None, None, 1.5, None, "run", None))
    with sqlite3.connect(path) as db:
        before = db.execute("SELECT * FROM runs").fetchall()
    store = HistoryStore(path)  # migrated here
    store.append(_record(NOW - timedelta(days=1)), metrics={SeriesKey("rows", "events"): 10.0})
    with sqlite3.connect(path) as db:
        assert [v for (v,) in db.execute("SELECT version FROM schema_version ORDER BY rowid")] == [2, 3, 4]
        assert db.execute("SELECT * FROM runs ORDER BY rowid").fetchall()[:1] == [before[0] + (None,) * 4]
    points = store.series("monitored-events")
    assert [p.value for p in points[SeriesKey("rows", "events")]] == [10.0]


def test_a_contracts_monitor_settings_are_read_strictly(tmp_path):
    contract = tmp_path / "contract.yaml"
    contract.write_text(CONTRACT.replace("{metrics: [rows, arrival], lookback: 40}", "{metrics: [rows], sensitivty: 3, lookback: 0}"))
    findings = {(f.code, f.path) for f in lint_file(str(contract)).findings}
    assert ("DCB104", "customProperties[0].value.sensitivty") in findings  # unknown: not applied
    assert ("DCB101", "customProperties[0].value.lookback") in findings  # a whole number of at least 1


def test_what_a_run_adds_to_its_series_is_read_from_its_verdict():
    from dc_bridge.history.series import run_metrics
    from dc_bridge.verdict import CheckVerdict, ModelVerdict, Verdict

    def check(check_id, kind, observed, model="events"):
        return CheckVerdict(check_id=check_id, model=model, kind=kind, columns=[], outcome="passed", severity="error",
                            observed=observed, source={})

    models = [ModelVerdict(name="events", outcome="passed", counts={}, rows=120,
                           checks=[check("fresh_a", "freshness", 3600.0), check("fresh_b", "freshness", 7200.0),
                                   check("ids", "not_null", 0.0), check("avail", "availability", 99.0)]),
              ModelVerdict(name="lines", outcome="passed", counts={}, rows=None, checks=[check("n", "row_count", 7.0, "lines")])]
    verdict = Verdict(contract_id="c", contract_version="1", contract_file="c.yaml", outcome="passed", counts={}, models=models,
                      engines=["spark"], where="day = 'mon'", where_not_applied={})
    at = datetime(2026, 3, 2, 7, 30, tzinfo=timezone.utc)
    assert run_metrics(verdict, at) == {
        SeriesKey("arrival"): 7.5 * 3600,
        SeriesKey("slice_rows", "events"): 120.0,  # under --where: the slice's rows, not the table's
        SeriesKey("check", "events", "fresh_a"): 3600.0, SeriesKey("check", "events", "fresh_b"): 7200.0,
        SeriesKey("freshness_age", "events"): 7200.0,  # of two freshness checks, the oldest data
        SeriesKey("check", "events", "ids"): 0.0, SeriesKey("check", "lines", "n"): 7.0,
    }  # availability is judged over the history itself; lines' rows were not counted
    unfiltered = verdict.model_copy(update={"where_not_applied": {"events": "checked unfiltered"}})
    assert run_metrics(unfiltered, at)[SeriesKey("rows", "events")] == 120.0
    assert run_metrics(None, at) == {}


def test_lint_reads_a_contracts_monitor_settings_as_a_run_will_have_them(tmp_path, monkeypatch):
    """What a run would refuse or never apply, lint says: an infinite sensitivity, a metric no run records, a floor
    for a metric with no name, a lookback shorter than the warm-up (this table's over the project's), and a second
    `x-dc-bridge-monitors` that silently replaced the first."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "dc-bridge.toml").write_text("[monitors]\nwarm-up = 20\n", encoding="utf-8")
    contract = tmp_path / "contract.yaml"
    contract.write_text(CONTRACT.replace("{metrics: [rows, arrival], lookback: 40}",
                                         "{metrics: [rows, null_fraction], sensitivity: .inf, lookback: 10, "
                                         "min-band-absolute: {rowz: 3}}\n  - property: x-dc-bridge-monitors\n"
                                         "    value: {lookback: 12, sensitivity: .nan}"))
    from dc_bridge import config
    with config.using(config.load(tmp_path)):
        found = {(f.code, f.path): f.message for f in lint_file(str(contract)).findings}
    assert ("DCB103", "customProperties[0].value") in found  # given twice: the first is not applied
    assert "shorter than the warm-up of 20" in found[("DCB101", "customProperties[1].value.lookback")]  # the project's warm-up
    assert "not nan" in found[("DCB101", "customProperties[1].value.sensitivity")]
    contract.write_text(CONTRACT.replace("{metrics: [rows, arrival], lookback: 40}",
                                         "{metrics: [rows, null_fraction], sensitivity: .inf, min-band-absolute: {rowz: 3}}"))
    found = {(f.code, f.path): f.message for f in lint_file(str(contract)).findings}
    assert "cannot be 'null_fraction'" in found[("DCB101", "customProperties[0].value.metrics")]
    assert "not inf" in found[("DCB101", "customProperties[0].value.sensitivity")]
    assert "cannot hold 'rowz'" in found[("DCB101", "customProperties[0].value.min-band-absolute")]


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "0", "-1"])
def test_backtest_refuses_a_sensitivity_the_file_refuses(tmp_path, value):
    seed(HistoryStore(tmp_path / "history.db"))
    result = CliRunner().invoke(main, ["monitor", "backtest", "--history", str(tmp_path / "history.db"), f"--sensitivity={value}"])
    assert result.exit_code == 2, result.output
    assert "`--sensitivity` must be a number above 0" in result.output


def test_backtest_replays_the_contracts_own_settings_the_warm_up_and_slices_apart(tmp_path, monkeypatch):
    """The live runs judged with the contract's own `x-dc-bridge-monitors` (here warm-up 14): so does the replay, from
    the file the runs recorded; `--warm-up` over it; the runs of a `--where` slice are a series of their own."""
    monkeypatch.chdir(tmp_path)
    store = HistoryStore(tmp_path / "history.db")
    seed(store)
    contract = tmp_path / "contract.yaml"
    contract.write_text(CONTRACT.replace("{metrics: [rows, arrival], lookback: 40}", "{metrics: [rows], warm-up: 14}"))
    with sqlite3.connect(tmp_path / "history.db") as db:
        db.execute("UPDATE runs SET contract_file = ?", (str(contract),))
        # the newest 10 runs were of a slice: their rows of `events` are another series than the whole table's
        db.execute("UPDATE runs SET slice = 'day = today' WHERE run_id IN (SELECT run_id FROM runs ORDER BY run_at_us DESC LIMIT 10)")

    def summary(*options):
        result = CliRunner().invoke(main, ["monitor", "backtest", "--history", "history.db", "--output", "json", *options])
        assert result.exit_code == 0, result.output
        return {(s["monitor_id"], s["sliced"]): s for s in json.loads(result.stdout)["summary"]}

    own = summary()
    assert {key for key in own} == {("rows(events)", False), ("rows(events)", True), ("rows(lines)", True)}  # arrival: not the contract's
    assert own[("rows(events)", False)]["runs"] == DAYS - 10 and own[("rows(events)", False)]["learning"] == 14
    assert own[("rows(events)", True)]["runs"] == 10 and own[("rows(events)", True)]["learning"] == 10
    assert summary("--warm-up", "3")[("rows(events)", False)]["learning"] == 3
    refused = CliRunner().invoke(main, ["monitor", "backtest", "--history", "history.db", "--warm-up", "0"])
    assert refused.exit_code == 2 and "`--warm-up` must be a whole number of at least 1" in refused.output
    contract.unlink()  # gone: the project's settings, and a note that says so
    gone = CliRunner().invoke(main, ["monitor", "backtest", "--history", "history.db"])
    assert gone.exit_code == 0 and "not applied" in gone.stderr
