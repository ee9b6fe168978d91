"""Threads that keep the caller's Spark job properties (or Spark Connect tags), and running works side by side in them.

PySpark pins each Python thread to a JVM thread of its own: a plain thread starts without the
caller's job group and description, so cancelling the caller's group (a `--timeout`, a notebook's
cancel button) would miss the jobs it starts. A thread from `spark_thread` starts with a copy of
them, as PySpark's `InheritableThread` does, but without the caller's call site: PySpark names a
job after the outermost frame that calls into pyspark, which in an `InheritableThread` is its own
wrapper, so every job would show as `copy_local_properties` in the Spark UI.
"""

from __future__ import annotations

import threading
from typing import Callable, Mapping, TypeVar

Result = TypeVar("Result")

_CALL_SITE = ("callSite.short", "callSite.long")


def spark_thread(target: Callable[[], None], name: str, spark=None) -> threading.Thread:
    """A daemon thread (an uninterruptible Spark task must not keep the interpreter alive) that
    starts with the caller's Spark local properties. On Spark Connect (`spark` a Connect session)
    the caller's operation tags are carried instead: the client keeps them per thread, and there
    is no SparkContext in this process to read properties from."""
    from dc_bridge.runner.data import is_connect

    if spark is not None and is_connect(spark):
        tags = spark.getTags()

        def with_tags() -> None:
            for tag in tags:
                spark.addTag(tag)
            target()

        return threading.Thread(target=with_tags, name=name, daemon=True)
    from pyspark import SparkContext

    context = SparkContext._active_spark_context
    if context is None:
        return threading.Thread(target=target, name=name, daemon=True)
    properties = context._jsc.sc().getLocalProperties().clone()
    for key in _CALL_SITE:
        properties.remove(key)

    def with_properties() -> None:
        context._jsc.sc().setLocalProperties(properties)
        target()

    return threading.Thread(target=with_properties, name=name, daemon=True)


def run_side_by_side(works: Mapping[str, Callable[[], Result]], spark=None) -> dict[str, Result]:
    """Every work at once, each in its own `spark_thread` (of session `spark`); their results by key, in the order of `works`.
    One work alone runs in the caller's thread. The first exception raised is raised here, after
    every work has finished."""
    if len(works) <= 1:
        return {key: work() for key, work in works.items()}
    outcomes: dict[str, tuple[bool, object]] = {}

    def runner(key: str, work: Callable[[], Result]) -> Callable[[], None]:
        def target() -> None:
            try:
                outcomes[key] = (True, work())
            except BaseException as exc:  # handed to the caller's thread below
                outcomes[key] = (False, exc)
        return target

    threads = [spark_thread(runner(key, work), name=f"dc-bridge {key}", spark=spark) for key, work in works.items()]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for ok, value in outcomes.values():
        if not ok:
            raise value  # type: ignore[misc]
    return {key: outcomes[key][1] for key in works}  # type: ignore[misc]
