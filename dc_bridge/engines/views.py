"""Temp views an engine run needs, registered for the run and put back afterwards.

Both runners register DataFrames as temp views (Soda reads the model's view, foreign keys read the
referenced model's view, GX's `{batch}` queries register the batch as a view of the validation's own,
gx/metrics.py `batch_view`). A run must leave the session as it found it: a view it created is dropped,
and a temp view of the same name that existed before is restored.

A model's view has one name per contract and model (contract/sql.py `view_name`), and a session's temp
views are shared by all its threads: two runs of one contract at once (an orchestrator's pool checking
two partitions) would read each other's rows under that name. `held` makes the runs that register the
same names take turns; runs of other contracts go on side by side.
"""

from __future__ import annotations

import threading
from collections import defaultdict
from contextlib import contextmanager
from typing import Iterable, Iterator, Mapping

# view name -> the lock of the run using it; re-entrant, as a run may hold its names again (a split inside a run)
_NAMES: defaultdict[str, threading.RLock] = defaultdict(threading.RLock)
_NAMES_LOCK = threading.Lock()


@contextmanager
def held(names: Iterable[str]) -> Iterator[None]:
    """Within the block, no other thread's run registers a view of these names (in any session: a name is
    held process-wide, which only ever makes two runs of one contract wait for each other). Taken by the
    run, the split and the streaming guard around what registers the model views, never by an engine in a
    thread of the run's, which would wait for its own run. Names are taken in order, so two runs never
    each hold a name the other waits for."""
    with _NAMES_LOCK:
        locks = [_NAMES[name] for name in sorted(set(names))]
    taken = []
    try:
        for lock in locks:
            lock.acquire()
            taken.append(lock)
        yield
    finally:
        for lock in reversed(taken):
            lock.release()


def existing_temp_view(spark, name: str):
    """The DataFrame behind an existing temp view `name`, or None when there is none."""
    try:
        table = spark.catalog.getTable(name)
    except Exception:  # AnalysisException: no table or view of that name
        return None
    if not getattr(table, "isTemporary", False):
        return None
    try:
        return spark.table(name)
    except Exception:
        return None


@contextmanager
def temp_views(spark, views: Mapping[str, object], *, protect: Iterable[str] = ()) -> Iterator[None]:
    """Register `views` (name -> DataFrame) for the duration of the block.

    `protect` names views the engine itself may (re)create during the block; like the registered
    ones, they are dropped afterwards, or restored when they existed before. A view lives in the session
    of the DataFrame that registers it, which need not be `spark` (a streaming micro-batch has a session
    of its own beside the caller's): each name is looked up, dropped or restored in that session.
    """
    names = list(dict.fromkeys([*views, *protect]))
    sessions = {name: getattr(views[name], "sparkSession", spark) if name in views else spark for name in names}
    before = {name: existing_temp_view(sessions[name], name) for name in names}
    try:
        for name, df in views.items():
            df.createOrReplaceTempView(name)
        yield
    finally:
        for name in names:
            previous = before[name]
            try:
                if previous is not None:
                    previous.createOrReplaceTempView(name)
                else:
                    sessions[name].catalog.dropTempView(name)
                    if sessions[name] is not spark:
                        spark.catalog.dropTempView(name)
            except Exception:  # the session may be gone; nothing left to clean up then
                pass
