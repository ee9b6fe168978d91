"""What `dc-bridge site --history FILE` accepts: a history store `run --history` wrote, looked at before it is
opened (store.py `identify`: an empty file or another program's database is never made a store), and refused
with what the file is instead."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from dc_bridge.history.store import SCHEMA_VERSION, identify, refusal

IMPORT = "dc-bridge history import {file} --into history.db"


class StoreRefused(ValueError):
    """The --history file is not a history store this dc-bridge can read (bad input, exit 2)."""


def readable_store(path: str | Path) -> None:
    """Raise StoreRefused, saying what `path` is, unless it is a history store of a schema this dc-bridge reads."""
    path = Path(path)
    found = identify(path)
    if found.nature in ("empty", "missing"):
        raise StoreRefused(f"--history {path} is {'an empty file' if found.nature == 'empty' else 'missing'}, not a history store: "
                           f"name the file `run --history` wrote (a store is created by the first run that records to it); "
                           f"nothing was written")
    if found.nature == "jsonl":
        raise StoreRefused(f"--history {path} is a JSON Lines history, not a history store: import it into a store first "
                           f"({IMPORT.format(file=path)}) and build the site from that; nothing was written")
    refused = refusal(path, found)
    if refused:
        raise StoreRefused(f"--history {refused}; nothing was written")
    if found.version > SCHEMA_VERSION:
        raise StoreRefused(f"--history {path} has schema version {found.version}, written by a dc-bridge newer than this one "
                           f"({_installed()}, which reads versions up to {SCHEMA_VERSION}): upgrade dc-bridge "
                           f"(pip install --upgrade dc-bridge) to the release that wrote it, or build the site there")


def _installed() -> str:
    try:
        return f"dc-bridge {version('dc-bridge')}"
    except PackageNotFoundError:
        return "dc-bridge from a checkout"
