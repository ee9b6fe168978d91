"""What `dc-bridge site --history FILE` accepts: a history store `run --history` wrote, looked at before it is
opened (opening a store creates its tables in any file, so an empty file or another program's database would
silently become a store), and refused with what the file is instead."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from dc_bridge.history.store import SCHEMA_VERSION

# the first 16 bytes of every SQLite 3 database file
SQLITE_HEADER = b"SQLite format 3\x00"
# the tables every version of the store has had
TABLES = {"runs", "schema_version"}
IMPORT = "dc-bridge history import {file} --into history.db"


class StoreRefused(ValueError):
    """The --history file is not a history store this dc-bridge can read (bad input, exit 2)."""


def readable_store(path: str | Path) -> None:
    """Raise StoreRefused, saying what `path` is, unless it is a history store of a schema this dc-bridge reads."""
    path = Path(path)
    with path.open("rb") as file:
        head = file.read(len(SQLITE_HEADER))
    if not head:
        raise StoreRefused(f"--history {path} is an empty file, not a history store: name the file `run --history` "
                           f"wrote (a store is created by the first run that records to it); nothing was written")
    if head != SQLITE_HEADER:
        jsonl = path.suffix == ".jsonl" or head.lstrip()[:1] == b"{"
        raise StoreRefused(f"--history {path} is " + ("a JSON Lines history, not a history store: import it into a store "
                                                      f"first ({IMPORT.format(file=path)}) and build the site from that"
                                                      if jsonl else "not a history store (not a SQLite database file)")
                           + "; nothing was written")
    try:
        with closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)) as db:
            tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            found = db.execute("SELECT max(version) FROM schema_version").fetchone()[0] if TABLES <= tables else None
    except sqlite3.Error as exc:
        raise StoreRefused(f"--history {path} cannot be read as a history store: {exc}; nothing was written") from None
    if not TABLES <= tables:
        raise StoreRefused(f"--history {path} is a SQLite database but not a dc-bridge history store (it has no "
                           f"{' and no '.join(sorted(TABLES - tables))} table); nothing was written")
    if found is not None and found > SCHEMA_VERSION:
        raise StoreRefused(f"--history {path} has schema version {found}, written by a dc-bridge newer than this one "
                           f"({_installed()}, which reads versions up to {SCHEMA_VERSION}): upgrade dc-bridge "
                           f"(pip install --upgrade dc-bridge) to the release that wrote it, or build the site there")


def _installed() -> str:
    try:
        return f"dc-bridge {version('dc-bridge')}"
    except PackageNotFoundError:
        return "dc-bridge from a checkout"
