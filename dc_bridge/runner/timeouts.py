"""A time limit for one engine run (`dc-bridge run --timeout`, `dc_bridge.run(timeout=...)`).

Every run has one: `DEFAULT_SECONDS` unless the caller raises it or turns it off (None). The
engine runs in a worker thread whose Spark jobs carry a job tag of their own; a tag is added to the
caller's job group rather than replacing it, so a notebook's cancel button still stops them. When
the limit passes, the runner stops waiting: the jobs with the tag are cancelled (with
`interruptOnCancel`, so tasks running Python code are interrupted) and the engine's checks become
`error` with the reason. Jobs the engine starts while it winds down are cancelled too, for a short
grace period.

What a timeout cannot do: interrupt JVM code that never checks for interruption. A Java regex
match that backtracks catastrophically (DCB142) keeps its Spark task busy until it gives up; the
run still returns at the limit, and a session dc-bridge created is stopped at the end of the run
(the CLI's JVM exits with the process).
"""

from __future__ import annotations

import threading
import time
import uuid
from typing import Callable, TypeVar

from dc_bridge.runner.threads import spark_thread

Report = TypeVar("Report")

# the limit of a run that sets none: long enough for an engine on a large table, short enough that
# a hung run (a catastrophic regex, a stuck source) ends on its own in CI
DEFAULT_SECONDS = 3600.0
# how long to keep cancelling jobs an engine starts after its limit, before giving up on it
CANCEL_GRACE_SECONDS = 5.0


def within(seconds: float | None, spark, what: str, work: Callable[[], Report],
           on_timeout: Callable[[str], Report]) -> Report:
    """`work()` if it finishes within `seconds` (None: no limit), else `on_timeout(reason)`."""
    if seconds is None:
        return work()
    context = _context(spark)
    tag = f"dc-bridge-{uuid.uuid4().hex[:12]}"
    outcome: dict = {}

    def target() -> None:
        try:
            if context is not None:
                context.addJobTag(tag)
                context.setInterruptOnCancel(True)
        except Exception:  # a stopped session: the work reports that itself
            pass
        try:
            outcome["report"] = work()
        except BaseException as exc:  # handed to the caller's thread below
            outcome["error"] = exc

    worker = spark_thread(target, name=f"dc-bridge {what}")
    worker.start()
    worker.join(min(seconds, threading.TIMEOUT_MAX))  # a longer wait is "no limit"; join would overflow
    if worker.is_alive():
        deadline = time.monotonic() + CANCEL_GRACE_SECONDS
        while True:
            _cancel(context, tag)
            if not worker.is_alive() or time.monotonic() > deadline:
                break
            worker.join(0.25)
        return on_timeout(f"timed out after {seconds:g} s (the time limit; raise it with --timeout SECONDS, or --timeout none); "
                          "its Spark jobs were cancelled")
    if "error" in outcome:
        raise outcome["error"]
    return outcome["report"]


def _context(spark):
    """The session's SparkContext, or None where there is none to cancel jobs with (Spark Connect)."""
    try:
        return spark.sparkContext
    except Exception:
        return None


def _cancel(context, tag: str) -> None:
    if context is None:
        return
    try:
        context.cancelJobsWithTag(tag)
    except Exception:  # the session may be gone; then there is nothing left to cancel
        pass
