"""Many contracts in one session, `parallel` at a time (`dc-bridge run A B C --parallel N`, `run --registered`).

A contract's run is mostly driver-side work on small tables (lint, plan, translate, GX's and Soda's set-up,
the fold) between short Spark jobs: two contracts side by side overlap one's driver work with the other's
jobs. Each runs in a thread of its own (runner/threads.py `spark_thread`, so a `--timeout` still cancels
its jobs), in a Spark scheduler pool of its own (`spark.scheduler.pool`: with `spark.scheduler.mode=FAIR`
the pools share the cores instead of one contract's jobs queueing behind another's). Every contract's
state is its own (its phases, engine reports, GX context, Soda scan); its temp views are named after its
id (contract/sql.py `view_name`), so two contracts of one id (in two namespaces) never run at once.

The verdicts come back in the contracts' order, whatever order they finish in; a contract whose run raises
is the caller's `on_error` verdict, and the others go on.
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Callable, Sequence, TypeVar

from dc_bridge.runner.threads import spark_thread

Result = TypeVar("Result")

POOL_PROPERTY = "spark.scheduler.pool"


@dataclass
class Tally:
    """How far a fleet is: contracts done of `total`, failed so far, elapsed seconds and an estimate of what is left."""
    total: int
    done: int = 0
    failed: int = 0
    began: float = field(default_factory=time.perf_counter)

    def line(self) -> str:
        elapsed = time.perf_counter() - self.began
        left = f", about {_clock(elapsed / self.done * (self.total - self.done))} left" if self.done and self.done < self.total else ""
        return f"{self.done} of {self.total} contracts done, {self.failed} failed, {_clock(elapsed)} elapsed{left}"


def _clock(seconds: float) -> str:
    minutes, rest = divmod(int(round(seconds)), 60)
    return f"{minutes}:{rest:02d}"


def run_all(works: Sequence[tuple[str, Callable[[], Result]]], parallel: int, failed: Callable[[Result], bool],
            on_error: Callable[[int, BaseException], Result], on_done: Callable[[Tally], None] = lambda tally: None,
            spark: Callable[[], object] | None = None) -> list[Result]:
    """Each work's result, in the order of `works`; `parallel` at a time. `works` are (key, work): works of one key
    never run at once. `failed` counts a result among the failed, `on_error` makes the result of a work that raised
    (its index and the exception), `on_done` hears the tally after each; `spark`: the session, started before the
    workers when `parallel` > 1 (each worker's jobs go to a pool of its own)."""
    tally = Tally(len(works))
    results: list = [None] * len(works)
    lock = threading.Lock()
    keys: dict[str, threading.Lock] = defaultdict(threading.Lock)
    pending = list(range(len(works)))

    def one(index: int) -> None:
        key, work = works[index]
        with keys[key]:
            try:
                result = work()
            except Exception as exc:  # one contract's failure never stops the others
                result = on_error(index, exc)
        with lock:
            results[index] = result
            tally.done += 1
            tally.failed += bool(failed(result))
            on_done(tally)

    if parallel <= 1 or len(works) <= 1:
        for index in pending:
            one(index)
        return results
    session = spark() if spark is not None else None
    context = getattr(session, "sparkContext", None) if session is not None and hasattr(session, "_jsc") else None

    def worker(slot: int) -> Callable[[], None]:
        def target() -> None:
            if context is not None:
                context.setLocalProperty(POOL_PROPERTY, f"dc-bridge-{slot}")
            while True:
                with lock:
                    if not pending:
                        return
                    index = pending.pop(0)
                one(index)
        return target

    threads = [spark_thread(worker(slot), name=f"dc-bridge contract {slot}", spark=session) for slot in range(min(parallel, len(works)))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results
