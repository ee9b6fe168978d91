"""Temp views an engine run needs, registered for the run and put back afterwards.

Both runners register DataFrames as temp views (Soda reads the model's view, foreign keys read the
referenced model's view, GX's `{batch}` queries register the batch as a view of the validation's own,
gx/metrics.py `batch_view`). A run must leave the session as it found it: a view it created is dropped,
and a temp view of the same name that existed before is restored.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterable, Iterator, Mapping


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
