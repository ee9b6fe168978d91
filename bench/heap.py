"""Peak JVM heap on the driver while a system runs (local mode: the driver is the executor).

Shared by bench/run.py and bench/datacontract_cli_runner.py; the runner runs in datacontract-cli's
own virtualenv, so this module imports nothing but the standard library (it is handed a session).
"""

from __future__ import annotations

import threading


class HeapSampler:
    """Peak JVM heap in use on the driver while a system runs (local mode: the driver is the executor)."""

    def __init__(self, spark):
        jvm = spark.sparkContext._jvm
        self._bean = jvm.java.lang.management.ManagementFactory.getMemoryMXBean()
        self.peak = 0
        self._stop = threading.Event()

    def __enter__(self):
        self._bean.gc()
        self.peak = 0
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def _sample(self):
        while not self._stop.is_set():
            self.peak = max(self.peak, self._bean.getHeapMemoryUsage().getUsed())
            self._stop.wait(0.2)

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self._stop.clear()
