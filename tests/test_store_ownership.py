"""Files that belong to someone else, and commands that only read (dc_bridge/history/store.py `identify`,
`HistoryStore(mode=...)`; docs/history.md): a SQLite database of another program, the embedded Iceberg catalog's
`catalog.db` made by pyiceberg, a text file and an empty file named as a history store are refused (exit 2) by
every command that takes one, each file left byte for byte as it was (its journal mode and tables too); and
`site` and `monitor backtest` leave even a store of an older schema as they found it.
"""

from __future__ import annotations

import hashlib
import sqlite3
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from click.testing import CliRunner

from dc_bridge.cli import main
from dc_bridge.history import SCHEMA_VERSION, HistoryStore, StoreError, open_history, open_store
from dc_bridge.history.store import SCHEMA

JSONL = Path(__file__).resolve().parent.parent / "docs" / "examples" / "history" / "retail.jsonl"


def _state(path: Path) -> tuple:
    """What must not change: the file's bytes, the files beside it (-wal, -shm, -journal), and as SQLite sees it
    (read-only) its journal mode and tables."""
    beside = sorted(p.name for p in path.parent.iterdir() if p.name.startswith(path.name) and p != path)
    facts: tuple = ()
    if path.read_bytes()[:16] == b"SQLite format 3\x00":
        with sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True) as db:
            facts = (db.execute("PRAGMA journal_mode").fetchone()[0],
                     sorted(name for (name,) in db.execute("SELECT name FROM sqlite_master")))
    return hashlib.sha256(path.read_bytes()).hexdigest(), beside, facts


def _another_programs_database(path: Path) -> Path:
    """An application's own SQLite file, in the default rollback journal, with a `runs` table of its own."""
    with sqlite3.connect(path) as db:
        db.executescript("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT);"
                         "CREATE TABLE runs (id INTEGER PRIMARY KEY, started TEXT);"
                         "INSERT INTO customers (name) VALUES ('Ada'), ('Grace');")
    return path


def _iceberg_catalog(folder: Path) -> Path:
    """A real embedded catalog: pyiceberg's SQL catalog on SQLite, with a namespace and its properties."""
    from pyiceberg.catalog.sql import SqlCatalog

    folder.mkdir(parents=True)
    catalog = SqlCatalog("dc-bridge", uri=f"sqlite:///{folder / 'catalog.db'}", warehouse=(folder / "warehouse").as_uri())
    catalog.create_namespace("sales", {"owner": "checkout"})
    catalog.engine.dispose()
    return folder / "catalog.db"


def _invoke(*args: str):
    return CliRunner().invoke(main, list(args))


def test_no_command_writes_to_a_file_that_is_not_a_history_store(tmp_path):
    files = {
        "app.db": (_another_programs_database(tmp_path / "app.db"), "a SQLite database of another program (its tables: customers, runs)"),
        "catalog.db": (_iceberg_catalog(tmp_path / "iceberg"), "a SQLite database of another program (an Iceberg SQL catalog"),
        "notes.db": (tmp_path / "notes.db", "not a dc-bridge history store (not a SQLite database file)"),
    }
    (tmp_path / "notes.db").write_text("a text file\n")
    jsonl = tmp_path / "retail.jsonl"
    jsonl.write_bytes(JSONL.read_bytes())
    for name, (path, said) in files.items():
        before = _state(path)
        for command in (["history", "prune", str(path), "--older-than", "30d"],
                        ["history", "import", str(jsonl), "--into", str(path)],
                        ["site", "--history", str(path), "--out", str(tmp_path / "site")],
                        ["monitor", "backtest", "--history", str(path)]):
            result = _invoke(*command)
            assert result.exit_code == 2, (name, command, result.output)
            assert "Traceback" not in result.output
            if command[0] != "monitor":  # backtest words its own refusal (no runs or schema_version table)
                assert said in result.output, (name, command, result.output)
            assert _state(path) == before, (name, command)
        # a run (and the API) opens its --history before Spark starts: refused there, unchanged
        with pytest.raises(StoreError, match="nothing was written to it"):
            open_history(path)
        assert _state(path) == before, name
    assert not (tmp_path / "site").exists()


def test_prune_of_an_empty_file_or_with_a_bad_duration_writes_nothing(tmp_path):
    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    result = _invoke("history", "prune", str(empty), "--older-than", "30d")
    assert result.exit_code == 2 and f"history store {empty} is an empty file" in result.output, result.output
    assert empty.read_bytes() == b""
    with pytest.raises(StoreError, match="does not exist"):
        open_store(tmp_path / "missing.db", mode="read")
    assert not (tmp_path / "missing.db").exists()
    # an older store and a duration that does not read: refused before the store is opened (not migrated)
    older = _version_2_store(tmp_path / "v2.db")
    before = _state(older)
    result = _invoke("history", "prune", str(older), "--older-than", "soon")
    assert result.exit_code == 2, result.output
    assert _state(older) == before


def _version_2_store(path: Path) -> Path:
    """A store as schema version 2 wrote it (no `metrics` or `monitors`, no lifecycle columns in `runs`), in rollback
    journal mode, with two runs."""
    with sqlite3.connect(path) as db:
        db.executescript(SCHEMA.split(",\n    lifecycle_state TEXT")[0] + "\n);" + SCHEMA.split("INTEGER\n);", 1)[1].split("-- version 3")[0])
        db.execute("INSERT INTO schema_version VALUES (1, '2026-01-01T00:00:00+00:00')")
        db.execute("INSERT INTO schema_version VALUES (2, '2026-02-01T00:00:00+00:00')")
        now = datetime.now(timezone.utc)
        for number, days in enumerate((3, 1)):
            at = now - timedelta(days=days)
            micros = int((at - datetime(1970, 1, 1, tzinfo=timezone.utc)) / timedelta(microseconds=1))
            db.execute("INSERT INTO runs (run_id, contract_id, contract_version, run_at, run_at_us, outcome, data_read, evaluated, "
                       "in_error, origin) VALUES (?, 'orders', '1.0.0', ?, ?, 'passed', 1, 1, 0, 'run')",
                       (f"run-{number}", at.isoformat(), micros))
            db.execute("INSERT INTO checks (run_id, check_id, outcome, model, observed) VALUES (?, 'orders.rows', 'passed', 'orders', ?)",
                       (f"run-{number}", 100.0 + number))
    return path


def test_commands_that_only_read_leave_a_store_of_an_older_schema_as_they_found_it(tmp_path):
    pytest.importorskip("vl_convert")
    store = _version_2_store(tmp_path / "v2.db")
    before = _state(store)
    assert before[2][0] == "delete"
    result = _invoke("site", "--history", str(store), "--out", str(tmp_path / "site"))
    assert result.exit_code == 0, result.output
    assert (tmp_path / "site" / "contracts" / "orders.html").is_file()
    result = _invoke("monitor", "backtest", "--history", str(store), "--metric", "check", "--output", "json")
    assert result.exit_code == 0, result.output
    assert '"monitor_id": "check(orders, orders.rows)"' in result.output
    reader = HistoryStore(store, mode="read")
    assert [run.run_id for run in reader.runs()] == ["run-1", "run-0"]
    assert _state(store) == before  # not migrated, not switched to WAL, no file beside it
    # a command that writes (prune) migrates it, as docs/history.md says
    result = _invoke("history", "prune", str(store), "--older-than", "2d")
    assert result.exit_code == 0 and "pruned 1 runs" in result.output, result.output
    with sqlite3.connect(store) as db:
        assert max(v for (v,) in db.execute("SELECT version FROM schema_version")) == SCHEMA_VERSION


def test_a_spark_table_of_someone_else_is_never_altered_into_a_history(spark):
    from dc_bridge.history import SparkTableStore

    spark.sql("CREATE TABLE ownership_theirs (run_id STRING, contract_id STRING) USING parquet")
    try:
        spark.sql("INSERT INTO ownership_theirs VALUES ('a', 'b')")
        with pytest.raises(StoreError, match=r"history table ownership_theirs is not a dc-bridge history table \(its columns: "
                                             r"run_id, contract_id;.*nothing was changed in it"):
            SparkTableStore(spark, "table:ownership_theirs")
        assert spark.table("ownership_theirs").columns == ["run_id", "contract_id"]
        assert [tuple(r) for r in spark.table("ownership_theirs").collect()] == [("a", "b")]
    finally:
        spark.sql("DROP TABLE ownership_theirs")
