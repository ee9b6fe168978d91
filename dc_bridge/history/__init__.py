"""Results over time (docs/history.md, DESIGN.md section 10): the verdict history store of
`--history TARGET` (store.py: an embedded SQLite file) and what is built from it.

`open_store(target)` is the door: a target naming a `.jsonl` file stays today's JSON Lines history
(runner/history.py); any other path is a SQLite store.
"""

from dc_bridge.history.store import SCHEMA_VERSION, HistoryStore, StoreError, is_jsonl, open_store

__all__ = ["SCHEMA_VERSION", "HistoryStore", "StoreError", "is_jsonl", "open_store"]
