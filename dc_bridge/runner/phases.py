"""The phases of one contract's run and their durations, recorded as the run goes (verdict.Phase): the
verdict carries them (`phases` in its JSON) and `dc-bridge run --explain` shows them, so that a slow run
says where its time went and a test can hold each phase to once per contract.

A phase that starts inside another (Spark started for lint's patterns) is its own record, and the
outer phase's seconds leave it out: the records add up to the run's time, never more."""

from __future__ import annotations

import contextlib
import time
from typing import Iterator

from dc_bridge.verdict import Phase


class Phases:
    """The records of one contract's run (`contract`: the file, or the id of a contract given as an object)."""

    def __init__(self, contract: str):
        self.contract = contract
        self.records: list[Phase] = []
        self._open: list[float] = []  # per open phase, the seconds of the phases inside it

    @contextlib.contextmanager
    def timed(self, phase: str, model: str | None = None, engine: str | None = None) -> Iterator[None]:
        """Record the block as `phase` (of `model`, of `engine`), once it ends, also when it raises."""
        began = time.perf_counter()
        self._open.append(0.0)
        try:
            yield
        finally:
            inner = self._open.pop()
            took = time.perf_counter() - began
            if self._open:
                self._open[-1] += took
            self.add(phase, took - inner, model=model, engine=engine)

    def add(self, phase: str, seconds: float, model: str | None = None, engine: str | None = None) -> None:
        """Record a phase timed elsewhere (an engine in its own thread)."""
        self.records.append(Phase(phase=phase, contract=self.contract, model=model, engine=engine, seconds=round(seconds, 3)))
