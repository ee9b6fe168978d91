"""What a `--history` target names (docs/history.md, "Targets"): a `.jsonl` file is today's JSON Lines
history (runner/history.py), `table:db.name` a table in the Spark catalog (spark_store.py), any other
path a SQLite store (store.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dc_bridge.history.spark_store import SparkTableStore, is_table
from dc_bridge.history.store import HistoryStore, Mode, StoreError
from dc_bridge.runner.history import History


def is_jsonl(target: str | Path) -> bool:
    """A `.jsonl` target keeps today's JSON Lines history (runner/history.py)."""
    return Path(target).suffix.lower() == ".jsonl"


def open_store(target: str | Path, spark: Any = None, mode: Mode = "create") -> HistoryStore | SparkTableStore:
    """The store a `--history` target names: `table:db.name` a table in `spark`'s catalog
    (spark_store.py), any other path but `.jsonl` a SQLite file (created on first use when `mode` is
    `create`; store.py `Mode`: a command that only reads opens it `read`, and writes nothing to it)."""
    if is_table(str(target)):
        if spark is None:
            raise StoreError(f"history {target} is a table in the Spark catalog: it is read in a run's Spark session "
                             f"(commands without Spark take a SQLite store)")
        return SparkTableStore(spark, str(target))
    if is_jsonl(target):
        raise StoreError(f"{target} is a JSON Lines history (runner/history.py); import it into a store with "
                         f"`dc-bridge history import {target} --into history.db`")
    return HistoryStore(target, mode)


def open_history(target: str | Path) -> History | HistoryStore:
    """The history of a run's `--history`, read or opened before Spark starts: a `.jsonl` file as
    today (read and checked once), else a SQLite store. Both give `earlier_runs` and `append`."""
    return History(target) if is_jsonl(target) else open_store(target)
