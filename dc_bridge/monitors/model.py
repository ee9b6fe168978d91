"""What a monitor watches and what it says (docs/monitoring.md, "Monitors").

A check is what the contract states; a monitor is what the history learned. A monitor watches one
series: one metric of one contract (of one model, and of one check or column where the metric is
theirs), a value per run. Its outcome is `normal`, `anomalous` or `learning` (too few earlier runs to
judge), never a check outcome: it changes the contract's verdict only when the team set monitors to
`strict`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal, Mapping

from pydantic import BaseModel

from dc_bridge.config import MONITOR_WINDOW

MonitorOutcome = Literal["normal", "anomalous", "learning"]
# which way a value may move before it is an anomaly: rows may drop or spike, a null fraction only rises
Direction = Literal["both", "up", "down"]
Level = Literal["off", "warn", "strict"]
Seasonality = Literal["auto", "off", "weekday", "hour"]


@dataclass(frozen=True)
class Metric:
    """A kind of series: what its values count (`unit`: rows, seconds, ratio, value), which way it may
    go wrong, and whether a history watches it without being asked."""
    name: str
    unit: str
    direction: Direction
    on_by_default: bool
    description: str
    # the band's smallest half-width in the metric's own unit (`min-band-absolute` sets it per metric): a row,
    # a tenth of a percent, fifteen minutes of a data's age, ten minutes of the clock (a scheduler's jitter is no anomaly)
    floor: float = 1.0
    # the band's smallest half-width as a share of the time between the baseline's runs (its schedule): the age
    # of data loaded once a day moves by minutes with when the run starts, never by a tenth of a day unless late
    schedule_share: float = 0.0
    # the band's smallest half-width as a share of the limit the contract sets on it (a freshness SLA): an age that
    # moved by a minute under a 25-hour SLA is no anomaly
    limit_share: float = 0.0


@dataclass(frozen=True)
class SeriesKey:
    """One series of a contract: `model` and `subject` (a check id or a column) are "" where the metric has none."""
    metric: str
    model: str = ""
    subject: str = ""

    @property
    def monitor_id(self) -> str:
        """How reports name the monitor: `rows(orders)`, `null_fraction(orders, email)`."""
        parts = [part for part in (self.model, self.subject) if part]
        return f"{self.metric}({', '.join(parts)})" if parts else self.metric


@dataclass(frozen=True)
class Point:
    """One run's value of a series. `anomalous` is what the monitor said of it when it was recorded (or
    replayed): an anomaly stays out of the baseline of the runs after it."""
    at: datetime
    value: float | None
    contract_version: str = ""
    anomalous: bool = False


@dataclass(frozen=True)
class MonitorSettings:
    """How monitors judge ([tool.dc-bridge.monitors], then the contract's own; docs/monitoring.md)."""
    level: Level = "warn"
    # the metric names watched (monitors/metrics.py METRICS); the defaults are those `on_by_default`
    metrics: tuple[str, ...] = ()
    # how many robust spreads from the centre a value may lie before it is anomalous
    sensitivity: float = 4.0
    # the earlier runs a band is learned from, newest first
    lookback: int = MONITOR_WINDOW["lookback"]
    # no judgement before this many earlier runs with a value: the outcome is `learning`
    warm_up: int = MONITOR_WINDOW["warm-up"]
    seasonality: Seasonality = "auto"
    # the band is never narrower than this share of the centre, nor than each metric's floor in its own unit
    # (metric name -> floor; a metric not named keeps its own, monitors/metrics.py METRICS)
    min_band_relative: float = 0.05
    min_band_absolute: Mapping[str, float] = field(default_factory=dict)


class MonitorVerdict(BaseModel):
    """What one monitor said of this run: the observed value, the band it expected, and one sentence a
    person reads in one go ("rows 41,002 are below the expected 79,500-84,100 for a Monday (12 earlier Mondays)")."""
    monitor_id: str
    metric: str
    model: str = ""
    subject: str = ""
    outcome: MonitorOutcome
    # the level the monitor ran at: `warn` reports, `strict` fails the contract's verdict on an anomaly
    severity: Level = "warn"
    unit: str
    direction: Direction
    observed: float | None = None
    centre: float | None = None
    lower: float | None = None
    upper: float | None = None
    # the season the band is for ("Monday", "14:00-15:00"), None when the band is not seasonal
    season: str | None = None
    # the earlier points the band was learned from, and (learning) how many more runs it needs
    points: int = 0
    needed: int | None = None
    sentence: str
