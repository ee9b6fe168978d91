"""Results over time (docs/history.md): the verdict history store of
`--history TARGET` (store.py: an embedded SQLite file) and what is built from it.

`open_store(target)` is the door (targets.py): a `.jsonl` file stays today's JSON Lines history
(runner/history.py), `table:db.name` is a table in the Spark catalog, any other path a SQLite store.
"""

from dc_bridge.history.spark_store import SparkTableStore, is_table
from dc_bridge.history.store import SCHEMA_VERSION, HistoryStore, StoreError
from dc_bridge.history.targets import is_jsonl, open_history, open_store

__all__ = ["SCHEMA_VERSION", "HistoryStore", "SparkTableStore", "StoreError", "is_jsonl", "is_table", "open_history", "open_store"]
