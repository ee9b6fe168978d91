"""The run's monitors (docs/monitoring.md, "Monitors: configuration"): after the fold, before the run is
recorded, each series the settings watch is judged on its earlier points in the history store, and what the
monitors said goes into the verdict and, with the run, into the store.

A JSON Lines history keeps outcomes only, no series: monitors need a store, and a run over a `.jsonl`
history judges none and says so once (`MonitorsWarning`)."""

from __future__ import annotations

import warnings
from datetime import datetime
from typing import Any

from dc_bridge.history.series import run_metrics, series_limits
from dc_bridge.monitors import MonitorSettings, MonitorVerdict, Point, judge
from dc_bridge.verdict import Verdict


class MonitorsWarning(UserWarning):
    """Monitors asked for where the history cannot give them their series (a JSON Lines file)."""


def jsonl_note(history: Any) -> str:
    return (f"monitors need a history store, and {history} is a JSON Lines history (outcomes only): no monitor is judged. "
            f"Import it into a store (`dc-bridge history import {history} --into history.db`) and name the store with --history, "
            f"or set monitors = \"off\" in [tool.dc-bridge.enforcement]")


def judge_monitors(store: Any, verdict: Verdict, at: datetime, settings: MonitorSettings) -> list[MonitorVerdict]:
    """What each watched series of this run says: its value now against its newest `lookback` earlier points
    in `store` (one read per series, through the store's index). Nothing when the level is `off`."""
    if settings.level == "off":
        return []
    values = {key: value for key, value in run_metrics(verdict, at).items() if key.metric in settings.metrics}
    if not values:
        return []
    # the runs sliced as this one is (a check over a `--where` slice counts the slice, not the table)
    earlier = store.series(verdict.contract_id, list(values), limit=settings.lookback, before=at, sliced=verdict.where is not None)
    limits = series_limits(verdict.checks())
    return [judge(key, earlier.get(key, []), Point(at, value, verdict.contract_version), settings, limit=limits.get(key))
            for key, value in values.items()]


def warn_jsonl(history: Any) -> None:
    """Once per message (Python's warnings registry): a command over several contracts says it once."""
    warnings.warn(MonitorsWarning(jsonl_note(history)), stacklevel=2)
