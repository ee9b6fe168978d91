"""The verdict history store (dc_bridge/history/store.py, docs/history.md): what real runs reported is
read back exactly; availability and errorRate judged from the store equal today's judgement from the
JSON Lines file of the same runs; several processes appending at once lose nothing; a JSON Lines
history imports once, untouched; prune deletes only what it is told; the schema is the documented one,
and a file of an earlier schema version opened by this one is migrated without losing a row.
"""

from __future__ import annotations

import json
import multiprocessing
import sqlite3
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from click.testing import CliRunner

import dc_bridge
from dc_bridge.cli import main
from dc_bridge.history import SCHEMA_VERSION, HistoryStore, StoreError, is_jsonl, open_store
from dc_bridge.history.store import SCHEMA
from dc_bridge.runner.history import HistoryError, append_record, earlier_runs, read_history, unread_record
from dc_bridge.verdict import PastRun, judge_history

DOCS = Path(__file__).resolve().parent.parent / "docs" / "history.md"

CONTRACT = """\
apiVersion: v3.1.0
kind: DataContract
id: history-store
version: 1.0.0
status: active
schema:
  - name: events
    properties:
      - {name: id, logicalType: integer, required: true, unique: true}
      - {name: status, logicalType: string, quality: [{type: library, rule: invalidValues, arguments: {validValues: [new, done]}, mustBe: 0}]}
      - {name: amount, logicalType: number, quality: [{type: library, rule: nullValues, mustBeLessThan: 5}]}
slaProperties:
  - {id: availability, property: availability, value: 60, unit: percent}
  - {id: error_rate, property: errorRate, value: 20, unit: percent}
"""


def _record(contract_id: str, at: datetime, number: int, checks: int = 3) -> dict:
    """A record as runner/history.py writes one, with `checks` check outcomes named after the run."""
    outcomes = {f"check_{number}_{i}": ("failed" if i == 0 else "passed") for i in range(checks)}
    return {"dc_bridge_history": 1, "contract_id": contract_id, "contract_version": "1.0.0", "run_at": at.isoformat(),
            "outcome": "failed", "read": {"events": True}, "models": {"events": "failed"}, "checks": outcomes,
            "evaluated": checks, "in_error": 1}


def test_runs_of_a_contract_with_changing_data_read_back_and_judged_as_from_json_lines(spark, tmp_path):
    contract = tmp_path / "contract.yaml"
    contract.write_text(CONTRACT)
    jsonl, store = tmp_path / "history.jsonl", HistoryStore(tmp_path / "history.db")
    planted = [  # each run's data: a bad status in the second, nulls in the third
        [(1, "new", 1.0), (2, "done", 2.0)],
        [(1, "new", 1.0), (2, "lost", 2.0), (3, "done", 3.0)],
        [(1, "new", None), (2, "done", None), (3, "new", None), (4, "new", None), (5, "new", None), (6, "done", 1.0)],
        [(1, "new", 1.0)],
    ]
    for rows in planted:
        frame = spark.createDataFrame(rows, "id int, status string, amount double")
        verdict = dc_bridge.run(str(contract), dataframes={"events": frame}, spark=spark, engines=("gx", "soda", "spark"),
                                history=str(jsonl))
        # the JSON Lines history and the store hold the same run; the store the whole verdict too
        record = json.loads(jsonl.read_text().splitlines()[-1])
        run_id = store.append(record, verdict, data_source="dataframe")
        stored = {c["check_id"]: c for c in store.checks(run_id)}
        assert set(stored) == {c.check_id for c in verdict.checks()}
        for check in verdict.checks():
            got = stored[check.check_id]
            assert (got["outcome"], got["observed"], got["model"], got["kind"], got["severity"]) == (
                check.outcome, check.observed, check.model, check.kind, check.severity)
            assert got["source_line"] == check.source["line"] and got["source_file"] == check.source["file"]
            assert {e: (r["outcome"], r["observed"]) for e, r in got["engines"].items()} == {
                e: (r.outcome, r.observed) for e, r in check.engines.items()}
        latest = store.runs("history-store", limit=1)[0]
        assert (latest.run_id, latest.outcome, latest.evaluated, latest.in_error) == (
            run_id, verdict.outcome, record["evaluated"], record["in_error"])

    # availability and errorRate from the store equal today's judgement from the JSON Lines file
    now = datetime.now(timezone.utc)
    from_file = earlier_runs(read_history(jsonl), jsonl, "history-store", now)
    from_store = store.earlier_runs("history-store", now)
    assert from_store.runs == from_file.runs and len(from_store.runs) == 4
    this_run = PastRun(data_read=True, evaluated=4, in_error=0)
    for check in (c for c in verdict.checks() if c.check_id in ("availability", "error_rate")):
        planned = _planned(contract, check.check_id)
        assert judge_history(planned, check, from_store, this_run).model_dump(exclude={"reason"}) == \
            judge_history(planned, check, from_file, this_run).model_dump(exclude={"reason"})
    # outside the window: neither counts a run
    later = now + timedelta(days=31)
    assert store.earlier_runs("history-store", later).runs == earlier_runs(read_history(jsonl), jsonl, "history-store", later).runs == ()


def _planned(contract: Path, check_id: str):
    from dc_bridge.contract.reading.load import load_contract
    from dc_bridge.plan.build import build_plan
    return next(c for c in build_plan(load_contract(str(contract)).contract).checks if c.id == check_id)


def test_window_bounds_are_those_of_the_json_lines_history(tmp_path):
    now = datetime(2026, 6, 30, 12, tzinfo=timezone.utc)
    jsonl, store = tmp_path / "h.jsonl", HistoryStore(tmp_path / "h.db")
    # exactly at both ends of the window, just outside it, another contract, an offset other than UTC
    times = [now - timedelta(days=30), now, now - timedelta(days=30, microseconds=1), now + timedelta(microseconds=1),
             (now - timedelta(days=3)).astimezone(timezone(timedelta(hours=-5)))]
    for number, at in enumerate(times):
        record = _record("c", at, number)
        append_record(jsonl, record)
        store.append(record)
    other = _record("other", now, 9)
    append_record(jsonl, other)
    store.append(other)
    append_record(jsonl, unread_record("c", "1.0.0", {"events": False}, now - timedelta(days=1), "no such path"))
    store.append(unread_record("c", "1.0.0", {"events": False}, now - timedelta(days=1), "no such path"))
    assert store.earlier_runs("c", now).runs == earlier_runs(read_history(jsonl), jsonl, "c", now).runs
    assert len(store.earlier_runs("c", now).runs) == 4


def _append_many(path: str, worker: int, count: int) -> None:
    store = HistoryStore(path)
    for number in range(count):
        store.append(_record(f"worker-{worker}", datetime.now(timezone.utc), number, checks=20))


def test_several_processes_appending_at_once_lose_nothing(tmp_path):
    path = str(tmp_path / "shared.db")
    context = multiprocessing.get_context("spawn")  # no Spark or sqlite state inherited: separate processes as separate runs are
    workers = [context.Process(target=_append_many, args=(path, worker, 25)) for worker in range(6)]
    for process in workers:
        process.start()
    for process in workers:
        process.join(120)
    assert [p.exitcode for p in workers] == [0] * 6
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT count(*) FROM runs").fetchone() == (150,)
        # none torn: every run has all of its checks and its model
        assert db.execute("SELECT count(*) FROM runs r WHERE (SELECT count(*) FROM checks c WHERE c.run_id = r.run_id) != 20 "
                          "OR (SELECT count(*) FROM models m WHERE m.run_id = r.run_id) != 1").fetchone() == (0,)
        per_worker = dict(db.execute("SELECT contract_id, count(*) FROM runs GROUP BY contract_id").fetchall())
        assert per_worker == {f"worker-{w}": 25 for w in range(6)}
        assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)


def test_a_json_lines_history_imports_once_and_stays_untouched(tmp_path):
    jsonl, target = tmp_path / "old.jsonl", tmp_path / "history.db"
    now = datetime.now(timezone.utc)
    for number in range(5):
        append_record(jsonl, _record("c", now - timedelta(hours=number), number))
    append_record(jsonl, unread_record("c", "1.0.0", {"events": True, "orders": False}, now, "orders: no such path"))
    before = jsonl.read_bytes()
    result = CliRunner().invoke(main, ["history", "import", str(jsonl), "--into", str(target)])
    assert result.exit_code == 0, result.output
    assert "imported 6 runs" in result.output
    assert jsonl.read_bytes() == before
    store = HistoryStore(target)
    assert store.earlier_runs("c", now).runs == earlier_runs(read_history(jsonl), jsonl, "c", now).runs
    with sqlite3.connect(target) as db:
        recorded = db.execute("SELECT count(*) FROM checks").fetchone()[0]
        assert recorded == 15
        assert db.execute("SELECT reason FROM runs WHERE data_read = 0").fetchall() == [("orders: no such path",)]
        assert sorted(db.execute("SELECT model, data_read FROM models WHERE data_read = 0").fetchall()) == [("orders", 0)]
    # again: nothing; grown by one run since: that run only
    assert store.import_jsonl(jsonl) == 0
    append_record(jsonl, _record("c", now, 7))
    assert store.import_jsonl(jsonl) == 1
    assert len(store.runs("c")) == 7
    # a file that is not a history is refused as a run refuses it, and nothing is imported
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"run": 1}\n')
    with pytest.raises(HistoryError, match="line 1"):
        store.import_jsonl(bad)
    assert len(store.runs()) == 7


def test_prune_deletes_only_runs_older_than_asked_with_their_rows(tmp_path):
    store = HistoryStore(tmp_path / "h.db")
    now = datetime.now(timezone.utc)
    for days in (1, 10, 40, 100):
        store.append(_record("c", now - timedelta(days=days), days))
    result = CliRunner().invoke(main, ["history", "prune", str(tmp_path / "h.db"), "--older-than", "30d"])
    assert result.exit_code == 0, result.output
    assert "pruned 2 runs" in result.output
    assert sorted(r.run_at for r in store.runs()) == sorted((now - timedelta(days=d)).isoformat() for d in (1, 10))
    with sqlite3.connect(tmp_path / "h.db") as db:
        assert db.execute("SELECT count(*) FROM checks").fetchone() == (6,)
        assert db.execute("SELECT count(*) FROM models").fetchone() == (2,)


def test_targets_and_schema_versions(tmp_path):
    assert is_jsonl("runs/h.jsonl") and is_jsonl("H.JSONL") and not is_jsonl("runs/h.db")
    with pytest.raises(StoreError, match="dc-bridge history import"):
        open_store(tmp_path / "h.jsonl")
    with pytest.raises(StoreError, match="in a run's Spark session"):
        open_store("table:quality.runs")
    assert not Path("table:quality.runs").exists()
    with pytest.raises(StoreError, match="is a folder"):
        open_store(tmp_path)
    with pytest.raises(StoreError, match="does not exist"):
        open_store(tmp_path / "missing" / "h.db")
    path = tmp_path / "h.db"
    open_store(path)
    open_store(path)  # opening again neither fails nor adds a version
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT version FROM schema_version").fetchall() == [(SCHEMA_VERSION,)]
        db.execute("INSERT INTO schema_version VALUES (?, ?)", (SCHEMA_VERSION + 1, "later"))
    with pytest.raises(StoreError, match="newer than this dc-bridge"):
        open_store(path)
    not_sqlite = tmp_path / "notes.db"
    not_sqlite.write_text("a text file\n")
    with pytest.raises(StoreError, match="notes.db"):
        open_store(not_sqlite)
    assert not_sqlite.read_text() == "a text file\n"


def test_a_store_of_schema_version_1_is_migrated_when_opened_and_loses_nothing(tmp_path):
    # a file as dc-bridge's schema version 1 wrote it: the tables of today without runs.data_docs and what came after it
    v1 = SCHEMA.split(",\n    data_docs TEXT")[0] + "\n);" + SCHEMA.split("INTEGER\n);", 1)[1].split("CREATE TABLE IF NOT EXISTS metrics")[0]
    assert "data_docs" not in v1 and "lifecycle" not in v1 and SCHEMA_VERSION == 4
    path = tmp_path / "v1.db"
    with sqlite3.connect(path) as db:
        db.executescript(v1)
        db.execute("INSERT INTO schema_version VALUES (1, '2026-01-01T00:00:00+00:00')")
        # a run of version 1, with its 16 columns
        db.execute("INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   ("old-run", "orders", "1.0.0", "2026-01-01T06:00:00+00:00", 1767247200000000, "failed", 1, 3, 1,
                    "orders.yaml", None, None, None, 1.5, None, "run"))
        db.execute("INSERT INTO checks (run_id, check_id, outcome) VALUES ('old-run', 'orders.id.required', 'failed')")
    with sqlite3.connect(path) as db:
        before = {table: db.execute(f"SELECT * FROM {table} ORDER BY rowid").fetchall() for table in ("runs", "checks")}

    store = HistoryStore(path)  # migrated here, in the transaction that opens it
    docs = {"index": str(tmp_path / "docs" / "index.html"), "validations": {"orders": str(tmp_path / "docs" / "v.html")}}
    store.append(_record("orders", datetime(2026, 1, 2, 6, tzinfo=timezone.utc), 2), data_docs=docs)
    HistoryStore(path)  # opening again migrates nothing more
    with sqlite3.connect(path) as db:
        assert [v for (v,) in db.execute("SELECT version FROM schema_version ORDER BY rowid")] == [1, 2, 3, 4]
        assert [row[1] for row in db.execute("PRAGMA table_info(runs)")][-5:] == [
            "data_docs", "lifecycle_state", "lifecycle_sunset", "lifecycle_successor", "lifecycle_days_to_sunset"]
        after = {table: db.execute(f"SELECT * FROM {table} ORDER BY rowid").fetchall() for table in ("runs", "checks")}
    # every row of version 1 as it was, the new column NULL in it
    assert after["runs"][0] == before["runs"][0] + (None,) * 5 and after["checks"][: len(before["checks"])] == before["checks"]
    assert [(r.run_id == "old-run", r.data_docs) for r in reversed(store.runs("orders"))] == [(True, None), (False, docs)]
    assert store.earlier_runs("orders", datetime(2026, 1, 3, tzinfo=timezone.utc)).runs == (PastRun(True, 3, 1), PastRun(True, 3, 1))


def test_docs_describe_every_table_and_column_of_the_schema(tmp_path):
    text = DOCS.read_text(encoding="utf-8")
    HistoryStore(tmp_path / "h.db")
    with sqlite3.connect(tmp_path / "h.db") as db:
        tables = [name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        assert len(tables) == 9
        for table in tables:
            assert f"### `{table}`" in text, table
            section = text.split(f"### `{table}`", 1)[1].split("\n### ", 1)[0]
            for column in (row[1] for row in db.execute(f"PRAGMA table_info({table})")):
                assert f"| `{column}` |" in section, (table, column)


def test_run_with_a_store_as_its_history_records_each_verdict_and_judges_the_slas(spark, tmp_path):
    contract = tmp_path / "contract.yaml"
    contract.write_text(CONTRACT)
    target = tmp_path / "history.db"
    for rows in ([(1, "new", 1.0)], [(1, "lost", 1.0)], [(1, "new", 2.0), (2, "done", 3.0)]):
        frame = spark.createDataFrame(rows, "id int, status string, amount double")
        verdict = dc_bridge.run(str(contract), dataframes={"events": frame}, spark=spark, engines=("spark",), history=str(target))
    store = HistoryStore(target)
    runs = store.runs("history-store")
    assert len(runs) == 3 and [r.in_error for r in runs] == [0, 1, 0]
    stored = {c["check_id"]: (c["outcome"], c["observed"]) for c in store.checks(runs[0].run_id)}
    assert stored == {c.check_id: (c.outcome, c.observed) for c in verdict.checks()}
    availability = next(c for c in verdict.checks() if c.check_id == "availability")
    assert availability.outcome == "passed" and availability.reason.startswith("3 of the 3 runs")
    with sqlite3.connect(target) as db:
        phases = json.loads(db.execute("SELECT phases FROM runs WHERE run_id = ?", (runs[0].run_id,)).fetchone()[0])
    assert {p["phase"] for p in phases} >= {"lint", "plan", "data", "fold"}
