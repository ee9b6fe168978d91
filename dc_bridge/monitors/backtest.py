"""A monitor replayed over a series it already has (docs/monitoring.md, "Monitors: learned bands").

`backtest(key, points, settings)` judges every point, in time order, on the points before it, and feeds
each anomalous outcome back into the later baselines: exactly what live runs do, since the history
records each run's outcome. What it says of each point is what the monitor would have said that day.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import datetime
from typing import Sequence

from dc_bridge.monitors.band import TUNING, Tuning, judge
from dc_bridge.monitors.model import MonitorSettings, MonitorVerdict, Point, SeriesKey


def backtest(key: SeriesKey, points: Sequence[Point], settings: MonitorSettings, tuning: Tuning = TUNING,
             limit: float | None = None) -> list[MonitorVerdict]:
    """One verdict per point, in the points' time order; the `anomalous` the points carry is replaced by the replay's own.
    `limit`: the contract's limit on the series (a freshness SLA's age), as the live runs judged with it."""
    replayed: list[Point] = []
    verdicts: list[MonitorVerdict] = []
    for point in sorted(points, key=lambda p: p.at):
        verdict = judge(key, replayed, point, settings, tuning, limit)
        verdicts.append(verdict)
        replayed.append(dataclasses.replace(point, anomalous=verdict.outcome == "anomalous"))
    return verdicts


@dataclass(frozen=True)
class Summary:
    """What a replay of one monitor said, counted: how many runs it judged each way, and when it first and last alarmed."""
    monitor_id: str
    runs: int
    learning: int
    normal: int
    anomalous: int
    first_anomaly: datetime | None
    last_anomaly: datetime | None


def summarize(key: SeriesKey, points: Sequence[Point], verdicts: Sequence[MonitorVerdict]) -> Summary:
    """The counts of a replay (`backtest`'s verdicts beside the points it judged, both in time order)."""
    ordered = sorted(points, key=lambda p: p.at)
    alarms = [point.at for point, verdict in zip(ordered, verdicts) if verdict.outcome == "anomalous"]
    outcomes = [verdict.outcome for verdict in verdicts]
    return Summary(key.monitor_id, len(verdicts), outcomes.count("learning"),
                   outcomes.count("normal"), len(alarms), alarms[0] if alarms else None, alarms[-1] if alarms else None)
