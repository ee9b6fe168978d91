"""A time limit for one engine run (`dc-bridge run --timeout`, `dc_bridge.run(timeout=...)`).

Every run has one: `DEFAULT_SECONDS` unless the caller raises it or turns it off (None). The
engine runs in a worker thread whose Spark work carries a tag of its own, and when the limit passes
the runner stops waiting and stops that work, by the means the session has:

- classic session: a job tag (`addJobTag`), added to the caller's job group rather than replacing
  it, so a notebook's cancel button still stops the jobs; at the limit the jobs with the tag are
  cancelled (with `interruptOnCancel`, so tasks running Python code are interrupted);
- Spark Connect session (no SparkContext here): an operation tag (`addTag`, per thread in the
  client); at the limit the server interrupts the operations with the tag (`interruptTag`), which
  cancels their jobs there.

The engine's checks become `error` with a reason that says which of these happened. Work the engine
starts while it winds down is stopped too: for a short grace period the runner waits for it, and
after that a daemon thread goes on stopping the tagged work until the engine's thread ends.

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
# how long to wait, cancelling what the engine starts, for it to end after its limit
CANCEL_GRACE_SECONDS = 5.0


def within(seconds: float | None, spark, what: str, work: Callable[[], Report],
           on_timeout: Callable[[str], Report]) -> Report:
    """`work()` if it finishes within `seconds` (None: no limit), else `on_timeout(reason)`."""
    if seconds is None:
        return work()
    stopper = _stopper(spark)
    tag = f"dc-bridge-{uuid.uuid4().hex[:12]}"
    outcome: dict = {}

    def target() -> None:
        try:
            if stopper is not None:
                stopper.tag(tag)
        except Exception:  # a stopped session: the work reports that itself
            pass
        try:
            outcome["report"] = work()
        except BaseException as exc:  # handed to the caller's thread below
            outcome["error"] = exc

    worker = spark_thread(target, name=f"dc-bridge {what}", spark=spark)
    worker.start()
    worker.join(min(seconds, threading.TIMEOUT_MAX))  # a longer wait is "no limit"; join would overflow
    if worker.is_alive():
        deadline = time.monotonic() + CANCEL_GRACE_SECONDS
        while True:
            if stopper is not None:
                stopper.stop(tag)
            if not worker.is_alive() or time.monotonic() > deadline:
                break
            worker.join(0.25)
        done = stopper.done() if stopper is not None else "this session offers no way to stop its Spark work, which may still be running"
        if worker.is_alive() and stopper is not None:
            # an engine that retries a failed query (GX does, up to three times) would start new work
            # here: whatever it starts with the tag is stopped as well, until its thread ends
            threading.Thread(target=_keep_stopping, args=(stopper, tag, worker), name=f"dc-bridge stop {what}", daemon=True).start()
            done += f"; the engine was still busy {CANCEL_GRACE_SECONDS:g} s later, and what it starts is stopped too"
        return on_timeout(f"timed out after {seconds:g} s (the time limit; raise it with --timeout SECONDS, or --timeout none); {done}")
    if "error" in outcome:
        raise outcome["error"]
    return outcome["report"]


def _keep_stopping(stopper, tag: str, worker: threading.Thread) -> None:
    while worker.is_alive() and stopper.stop(tag):
        worker.join(0.5)


class _JobTags:
    """Classic: job tags on the SparkContext (Spark 3.5+)."""

    def __init__(self, context):
        self.context = context

    def tag(self, tag: str) -> None:
        self.context.addJobTag(tag)
        self.context.setInterruptOnCancel(True)

    def stop(self, tag: str) -> bool:
        """False once the session is gone: then there is nothing left to cancel."""
        try:
            self.context.cancelJobsWithTag(tag)
        except Exception:
            return False
        return True

    def done(self) -> str:
        return "its Spark jobs were cancelled"


class _OperationTags:
    """Spark Connect: operation tags of the session's client; the server interrupts what it runs."""

    def __init__(self, spark):
        self.spark = spark
        self.interrupted: set[str] = set()

    def tag(self, tag: str) -> None:
        self.spark.addTag(tag)

    def stop(self, tag: str) -> bool:
        """False once the session or the server is gone: then nothing runs there for us."""
        try:
            self.interrupted.update(self.spark.interruptTag(tag) or ())
        except Exception:
            return False
        return True

    def done(self) -> str:
        if not self.interrupted:
            return "it had no Spark Connect operation running to interrupt"
        return f"its Spark Connect operations were interrupted ({len(self.interrupted)})"


def _stopper(spark):
    """How to stop the session's work: job tags (classic), operation tags (Spark Connect), or None."""
    from dc_bridge.runner.data import is_connect

    if is_connect(spark):
        return _OperationTags(spark)
    try:
        return _JobTags(spark.sparkContext)
    except Exception:  # a stopped session, or a session of a kind that offers neither
        return None
