"""The options of one run as one value: what `dc-bridge run` and `dc_bridge.run(...)` choose, checked once
when the value is made, before anything is read or Spark starts."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Mapping

from dc_bridge.contract.sql import filter_expression
from dc_bridge.engines.registry import DEFAULT_ENGINES, ENGINES
from dc_bridge.monitors import MonitorSettings
from dc_bridge.paths import local_path
from dc_bridge.runner.data import DataLocation
from dc_bridge.runner.outputs import WORDS, RunOutputs
from dc_bridge.runner.timeouts import DEFAULT_SECONDS
from dc_bridge.verdict import LifecycleVerdict


@dataclass(frozen=True)
class RunOptions:
    """What a run is asked to do; each field is the `dc_bridge.run` keyword of the same name (its
    docstring says what each means). `engines` is kept in verdict order (engines/registry.py)."""
    engines: tuple[str, ...] = DEFAULT_ENGINES
    server: str | None = None
    data: Mapping[str, DataLocation] = field(default_factory=dict)
    where: str | None = None
    master: str | None = None
    conf: Mapping[str, str] | None = None
    samples: bool = True
    data_docs: str | Path | None = None
    timeout: float | None = DEFAULT_SECONDS
    side_by_side: bool = True
    cache: bool = False
    vars: Mapping[str, str] = field(default_factory=dict)
    history: str | Path | None = None
    progress: Callable[[str], None] | None = None
    # the run's one clock (None: when the run starts); every engine judges freshness and retention against it
    now: datetime | None = None
    # how monitors judge the run over a history store (monitors/settings.py); None: the settings in effect (config.current())
    monitors: MonitorSettings | None = None
    # how the caller may read a model's data from elsewhere, as a missing-data hint says it (runner/data.py `model_sources`;
    # None: `--data MODEL=PATH`): `run A B` and `run --registered` refuse --data
    elsewhere: str | None = None
    # the files the caller writes from the verdict: the Prometheus textfile (`metrics_file`), the command line's
    # --output-file and --openlineage (its file transport's file); held with `data_docs` and `history` to the one
    # rule of where a run may write (runner/outputs.py), before the run starts
    metrics_file: str | Path | None = None
    output_file: str | Path | None = None
    openlineage: bool = False
    # how refusals name the options: `api` (`metrics_file=`) or `cli` (`--metrics-file`)
    spelled: str = "api"
    # the registry's lifecycle finding of the contract's version, as `dc-bridge run` reads it (cli/lifecycle.py `for_run`;
    # not a `dc_bridge.run` keyword): folded into the verdict before the history records it, so that the store keeps the
    # run's state and outcome as every other channel says them
    lifecycle: LifecycleVerdict | None = None
    # `where` as Spark is given it and the columns it names (contract/sql.py `filter_expression`)
    where_filter: tuple[str, frozenset[str]] | None = field(init=False, default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        selected = tuple(e for e in ENGINES if e in self.engines)
        unknown = set(self.engines) - set(ENGINES)
        if unknown or not selected:
            raise ValueError(f"unknown engine(s) {', '.join(sorted(unknown)) or '(none)'}; choose from {', '.join(ENGINES)}")
        if self.spelled not in WORDS:
            raise ValueError(f"spelled={self.spelled!r}: choose one of {', '.join(WORDS)}")
        if self.timeout is not None and not 0 < self.timeout:  # also refuses NaN
            raise ValueError(f"timeout={self.timeout!r}: give a positive number of seconds, or None for no limit")
        object.__setattr__(self, "engines", selected)
        # a `file:` URI is the local file it names, for the writers as for the rule (which resolves it the same way)
        for name in ("history", "data_docs", "metrics_file", "output_file"):
            value = getattr(self, name)
            if value is not None and str(value).lower().startswith("file:"):
                object.__setattr__(self, name, local_path(str(value)))
        # --where is SQL from the command line: one expression, held to the rules of quality SQL, before Spark starts
        object.__setattr__(self, "where_filter", filter_expression(self.where) if self.where else None)

    def outputs(self) -> RunOutputs:
        """What the run and its caller write, as runner/outputs.py checks them."""
        from dc_bridge.runner.outputs import lineage_file

        text = {name: None if value is None else str(value) for name, value in
                (("output_file", self.output_file), ("data_docs", self.data_docs), ("history", self.history),
                 ("metrics_file", self.metrics_file))}
        return RunOutputs(**text, openlineage=lineage_file() if self.openlineage else None)

    def clock(self) -> datetime:
        """The run's one clock, in UTC (a naive `now` is read as UTC)."""
        if self.now is None:
            return datetime.now(timezone.utc)
        return self.now if self.now.tzinfo else self.now.replace(tzinfo=timezone.utc)

    def say(self, message: str) -> None:
        """Tell the caller's `progress` what the run is doing."""
        if self.progress is not None:
            self.progress(message)
