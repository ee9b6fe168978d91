"""One monitor's judgement of one run: the band its series' own history expects, and where the run's value lies.

`judge(key, history, current, settings)` learns a band from the earlier points of one series and says
whether the current value lies in it (docs/monitoring.md, "Monitors: learned bands"):

- the baseline: the newest `lookback` earlier points that have a value, were not anomalous themselves
  and belong to the current contract version's MAJOR (a new major version restarts learning; two majors
  run side by side each learn from their own); where the
  series moved (more than half of 7 runs in a row anomalous), only the points since the move;
- the centre and spread: the median, and the MAD (scaled by 1.4826, a standard deviation for normal
  noise) refined as the root mean square of the deviations within 3 MADs, after a Theil-Sen trend and a
  weekday or hour-of-day season where each fits clearly better than the plain median; time is the
  points' timestamps (gaps are not filled);
- the band: the centre +- `sensitivity` spreads, widened for few points, never narrower than
  `min_band_relative` of the centre nor the metric's floor in its own unit (`min_band_absolute` per metric;
  for a data's age also a tenth of the time between runs, the schedule's own jitter, and of its SLA);
- the outcome: `learning` with fewer than `warm_up` baseline points (or no value), `anomalous` beyond the
  band on the side the metric's direction watches, `normal` otherwise.

Pure Python (`statistics`): for the 60 points of a lookback it is faster than numpy's per-call overhead
(bench/monitors.py measures both). The constants (`Tuning`) were chosen on bench/monitors.py's planted series.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime, timezone
from statistics import median
from typing import Callable, Sequence

from dc_bridge.monitors.metrics import METRICS, render, render_band, unit_of
from dc_bridge.monitors.model import Metric, MonitorSettings, MonitorVerdict, Point, SeriesKey

# the MAD of normal noise times this is its standard deviation
MAD_SCALE = 1.4826
# runs closer than this (the median gap of the baseline) are sub-daily: their season is the hour
SUB_DAILY_SECONDS = 20 * 3600
DAY_SECONDS = 86400.0
# the most points a slope is fitted on (a lookback of 365 would be 66,000 pairs)
TREND_MAX_POINTS = 100


@dataclass(frozen=True)
class Tuning:
    """The method's constants, each chosen on bench/monitors.py's planted series (docs/benchmarks.md,
    "Monitors: planted series", where leaving each out is measured). Not a setting: the bench varies them."""
    # the spread is the root mean square of the deviations within `trim` MADs of the median: as robust as the
    # MAD to the few points beyond, and it wastes less of a small sample (the MAD alone: more false alarms)
    trim: float = 3.0
    # the band is (1 + small_sample / n) times wider for a centre learned from n points: a spread from 7
    # points is often a third too small (without it, twice the false alarms in the first weeks)
    small_sample: float = 4.0
    # a trend is fitted on this many points at least (a slope of fewer is mostly noise: 14 gave spurious
    # trends, hence false alarms, on gapped series) and kept where it leaves residuals this much tighter
    trend_min_points: int = 28
    trend_gain: float = 0.8
    # a season is used where every season of the baseline holds this many points (with 3, a weekly series
    # alarms on its third weekend still) and it leaves the residuals (their capped mean absolute size) this
    # much smaller: pure noise fitted to seasons of 2 points shrinks by about a third, a weekly rhythm by far more
    season_min_points: int = 2
    season_gain: float = 0.5
    # the series moved where more than half of this many usable runs in a row were anomalous
    move_window: int = 7


TUNING = Tuning()


@dataclass(frozen=True)
class Season:
    """A way of grouping runs by their timestamp (UTC): its key, and how a sentence names a group."""
    key: Callable[[datetime], int]
    label: Callable[[int], str]
    # "for a Monday (12 earlier Mondays)", "at 14:00-15:00 (9 earlier runs at 14:00-15:00)"
    phrase: Callable[[str], str]
    count: Callable[[int, str], str]


_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
SEASONS: dict[str, Season] = {
    "weekday": Season(lambda at: at.weekday(), lambda key: _WEEKDAYS[key],
                      lambda label: f" for a {label}", lambda n, label: f"{n} earlier {label}{'' if n == 1 else 's'}"),
    "hour": Season(lambda at: at.hour, lambda key: f"{key:02d}:00-{(key + 1) % 24:02d}:00",
                   lambda label: f" at {label}", lambda n, label: f"{n} earlier run{'' if n == 1 else 's'} at {label}"),
}


@dataclass(frozen=True)
class Baseline:
    """The earlier points a band is learned from, oldest first, and why learning restarted where it did."""
    at: list[datetime]
    values: list[float]
    # the anomalous points among them in time (oldest first): out of the level and the spread, but a
    # season is looked for in them too, since a weekday that is always high is flagged until it is learned
    flagged_at: list[datetime] = field(default_factory=list)
    flagged: list[float] = field(default_factory=list)
    # "version" (a new major version), "moved" (the series moved), None (the history simply ends)
    restart: str | None = None
    restart_at: datetime | None = None


@dataclass(frozen=True)
class Band:
    """The expected values for one run: centre, bounds, and what they were learned from."""
    centre: float
    lower: float
    upper: float
    points: int
    # the trend's change per day (0 without one); the season's kind, name and how many points it holds
    slope: float = 0.0
    season_kind: str | None = None
    season: str | None = None
    season_points: int = 0


def _utc(at: datetime) -> datetime:
    """A timestamp in UTC; one without a zone is taken as UTC (the run's clock, `started_at`, is)."""
    return at.replace(tzinfo=timezone.utc) if at.tzinfo is None else at.astimezone(timezone.utc)


def _major(version: str) -> str:
    """`2` of `2.1.0` (and of `v2.1`): the part whose change restarts learning."""
    return version.split(".", 1)[0].strip().lstrip("vV")


def baseline(history: Sequence[Point], current: Point, settings: MonitorSettings, tuning: Tuning = TUNING) -> Baseline:
    """The newest `lookback` usable points before `current` (history in time order, oldest first).

    Usable: a finite value, earlier than `current`, of the current MAJOR version (an empty version
    matches any; another major's points are passed over, whether older or run beside it). Not anomalous, but where more than half of
    `move_window` usable points in a row were anomalous, the series moved there: the baseline is every
    usable point from the oldest of those on, anomalous ones included, since they are the new level
    (without this a lasting change would stay anomalous for ever).
    """
    now, major = _utc(current.at), _major(current.contract_version)
    window = tuning.move_window
    scanned: list[Point] = []  # usable, newest first
    kept: list[Point] = []  # usable and not anomalous, newest first
    flags: deque[bool] = deque(maxlen=window)  # whether each of the newest `window` scanned points was anomalous
    restart, restart_at, other_major = None, None, False
    for point in reversed(history):
        if point.value is None or not math.isfinite(point.value) or _utc(point.at) >= now:
            continue
        if major and point.contract_version and _major(point.contract_version) != major:
            # another major's run (older, or run beside this one while its consumers move): never this one's baseline
            other_major = True
            continue
        scanned.append(point)
        flags.append(point.anomalous)
        if point.anomalous and sum(flags) * 2 > window:
            kept, restart, restart_at = scanned[:settings.lookback], "moved", _utc(point.at)
            break
        if not point.anomalous:
            kept.append(point)
            if len(kept) >= settings.lookback:
                break
    restart = restart or ("version" if other_major else None)
    flagged = [p for p in reversed(scanned) if p.anomalous] if restart != "moved" else []
    kept.reverse()
    return Baseline([_utc(p.at) for p in kept], [float(p.value) for p in kept],
                    [_utc(p.at) for p in flagged], [float(p.value) for p in flagged], restart, restart_at)


def _mad(values: Sequence[float]) -> float:
    """The MAD about the median, scaled to a standard deviation."""
    centre = median(values)
    return MAD_SCALE * median([abs(v - centre) for v in values])


def _spread(values: Sequence[float], tuning: Tuning) -> float:
    """The spread of values about their median: the root mean square of the deviations within `trim` MADs
    (the MAD itself where `trim` is 0 or the MAD is 0)."""
    mad = _mad(values)
    if not tuning.trim or not mad:
        return mad
    centre = median(values)
    inner = [(v - centre) ** 2 for v in values if abs(v - centre) <= tuning.trim * mad]
    return math.sqrt(sum(inner) / len(inner))


def _misfit(deviations: Sequence[float], cap: float) -> float:
    """How far values lie from what a model expects: the mean absolute deviation, each capped at `cap`. The
    MAD would not do: it ignores the one weekday in seven a season explains, as it ignores any minority;
    the cap keeps one wild point from hiding a season (it would dominate both means)."""
    return sum(min(abs(d), cap) for d in deviations) / len(deviations)


def theil_sen(days: Sequence[float], values: Sequence[float]) -> float:
    """The median of the slopes between every two points at different times: one wild point cannot tilt it.
    Of more than TREND_MAX_POINTS points, every k-th: the pairs grow with the square of the points."""
    step = -(-len(days) // TREND_MAX_POINTS)
    days, values = days[::step], values[::step]
    slopes = [(values[j] - values[i]) / (days[j] - days[i])
              for i in range(len(days)) for j in range(i + 1, len(days)) if days[j] != days[i]]
    return median(slopes) if slopes else 0.0


def _season_kind(at: Sequence[datetime], settings: MonitorSettings) -> str | None:
    """The season asked for; in `auto`, the hour where runs come more often than daily, the weekday otherwise."""
    if settings.seasonality != "auto":
        return None if settings.seasonality == "off" else settings.seasonality
    gaps = [(b - a).total_seconds() for a, b in zip(at, at[1:])]
    return "hour" if gaps and median(gaps) < SUB_DAILY_SECONDS else "weekday"


def floor(metric: Metric, base: Baseline, settings: MonitorSettings, limit: float | None = None) -> float:
    """The band's smallest half-width in the metric's unit: its floor (or the settings' for it), for a metric that
    moves with the schedule a share of the median time between the baseline's runs, and a share of the limit the
    contract sets on it (`limit`: a freshness SLA's age)."""
    gaps = sorted((b - a).total_seconds() for a, b in zip(base.at, base.at[1:]))
    schedule = metric.schedule_share * median(gaps) if metric.schedule_share and gaps else 0.0
    sla = metric.limit_share * limit if limit is not None and math.isfinite(limit) else 0.0
    return max(settings.min_band_absolute.get(metric.name, metric.floor), schedule, sla)


def fit(base: Baseline, now: datetime, metric: Metric, settings: MonitorSettings, tuning: Tuning = TUNING,
        limit: float | None = None) -> Band:
    """The band for a run at `now`: level, then trend and season where they fit (module docstring)."""
    unit = unit_of(metric.unit)
    days = [(at - now).total_seconds() / DAY_SECONDS for at in base.at]
    residuals, spread, slope = base.values, _spread(base.values, tuning), 0.0
    if len(days) >= tuning.trend_min_points:
        candidate = theil_sen(days, base.values)
        detrended = [v - candidate * d for v, d in zip(base.values, days)]
        tighter = _spread(detrended, tuning)
        if tighter < tuning.trend_gain * spread:
            residuals, spread, slope = detrended, tighter, candidate
    centre, used, kind, label = median(residuals), len(days), _season_kind(base.at, settings), None
    if kind is not None:
        flagged = [v - slope * (at - now).total_seconds() / DAY_SECONDS for at, v in zip(base.flagged_at, base.flagged)]
        seasonal = _seasonal(SEASONS[kind], [*base.at, *base.flagged_at], [*residuals, *flagged], now,
                             settings.seasonality != "auto", tuning)
        if seasonal is None:
            kind = None
        else:
            centre, spread, label, used = seasonal
    # few points estimate the centre and the spread loosely: widen the band for them, as a t-quantile would
    half = max(settings.sensitivity * spread * (1 + tuning.small_sample / used),
               settings.min_band_relative * abs(centre) if unit.relative else 0.0,
               floor(metric, base, settings, limit))
    return Band(centre, centre - half, centre + half, len(days), slope, kind, label, used if kind else 0)


def _seasonal(season: Season, at: Sequence[datetime], residuals: Sequence[float], now: datetime,
              forced: bool, tuning: Tuning) -> tuple[float, float, str, int] | None:
    """The centre, spread, label and points of `now`'s season, or None where the seasons are thin or (unless forced) do not fit."""
    groups: dict[int, list[float]] = {}
    keys = [season.key(when) for when in at]
    for key, value in zip(keys, residuals):
        groups.setdefault(key, []).append(value)
    key = season.key(now)
    if len(groups) < 2 or key not in groups or min(len(g) for g in groups.values()) < tuning.season_min_points:
        return None
    centres = {k: median(g) for k, g in groups.items()}
    deviations = [v - centres[k] for k, v in zip(keys, residuals)]
    plain = [v - median(residuals) for v in residuals]
    # a deviation counts up to 10 spreads (all of it where the plain spread is 0: a series flat on each season)
    cap = 10 * _mad(residuals) or math.inf
    if not forced and _misfit(deviations, cap) >= tuning.season_gain * _misfit(plain, cap):
        return None
    return centres[key], _spread(deviations, tuning), season.label(key), len(groups[key])


# how a judged sentence says a value: "rows 41,002 are", "null_fraction 0.4% is"
_VERB = {"rows": "are"}
# the side a one-way metric watches, for the sentence of a value beyond the other side
_WATCHED = {"up": "a rise", "down": "a fall"}


def metric_of(key: SeriesKey) -> Metric:
    """The key's metric (monitors/metrics.py METRICS); a name it does not hold is an error naming the known ones."""
    try:
        return METRICS[key.metric]
    except KeyError:
        raise ValueError(f"monitor {key.monitor_id}: no metric {key.metric!r}; the metrics are {', '.join(METRICS)}") from None


def judge(key: SeriesKey, history: Sequence[Point], current: Point, settings: MonitorSettings,
          tuning: Tuning = TUNING, limit: float | None = None) -> MonitorVerdict:
    """What the monitor of `key` says of `current`, its band learned from `history` (time order, oldest first);
    `limit`: the contract's own limit on the series (a freshness SLA's age), a floor of the band's width."""
    metric = metric_of(key)
    said = {"monitor_id": key.monitor_id, "metric": key.metric, "model": key.model, "subject": key.subject,
            "severity": settings.level, "unit": metric.unit, "direction": metric.direction, "observed": current.value}
    if current.value is None or not math.isfinite(current.value):
        return MonitorVerdict(**said, outcome="learning", sentence=f"no value for {key.monitor_id} in this run: not judged")
    base = baseline(history, current, settings, tuning)
    if len(base.values) < settings.warm_up:
        return MonitorVerdict(**said, outcome="learning", points=len(base.values), needed=settings.warm_up - len(base.values),
                              sentence=_learning(key, base, current, settings))
    band = fit(base, _utc(current.at), metric, settings, tuning, limit)
    value = current.value
    side = "above" if value > band.upper else "below" if value < band.lower else "within"
    watched = {"above": metric.direction != "down", "below": metric.direction != "up", "within": False}[side]
    return MonitorVerdict(**said, outcome="anomalous" if watched else "normal", centre=band.centre, lower=band.lower,
                          upper=band.upper, season=band.season, points=band.points,
                          sentence=_judged(key, metric, value, side, watched, band, base))


def _learning(key: SeriesKey, base: Baseline, current: Point, settings: MonitorSettings) -> str:
    """`learning: 4 more runs needed before rows(orders) is judged (3 of 7 so far)`, saying why learning started again where it did."""
    why = {"version": f"learning anew for version {current.contract_version} (a new major version)",
           "moved": f"learning anew since {key.monitor_id} moved on {base.restart_at:%Y-%m-%d}" if base.restart_at else "",
           None: "learning"}[base.restart]
    more = settings.warm_up - len(base.values)
    return (f"{why}: {more} more run{'' if more == 1 else 's'} needed before {key.monitor_id} is judged "
            f"({len(base.values)} of {settings.warm_up} so far)")


def _judged(key: SeriesKey, metric: Metric, value: float, side: str, watched: bool, band: Band, base: Baseline) -> str:
    """`rows 41,002 are below the expected 79,500-84,100 for a Monday (12 earlier Mondays)`."""
    season = SEASONS[band.season_kind] if band.season_kind else None
    text = (f"{key.metric} {render(value, metric.unit)} {_VERB.get(metric.unit, 'is')} {side} the expected "
            f"{render_band(band.lower, band.upper, metric.unit, value)}{season.phrase(band.season) if season else ''}")
    learned = [season.count(band.season_points, band.season) if season else f"{band.points} earlier runs"]
    if band.slope:
        # a slope in seconds per day reads as seconds whatever the unit of its values (a clock time too)
        learned.append(f"{'rising' if band.slope > 0 else 'falling'} {render(abs(band.slope), 'seconds' if metric.unit == 'clock' else metric.unit)} a day")
    if base.restart == "moved" and base.restart_at:
        learned.append(f"since it moved on {base.restart_at:%Y-%m-%d}")
    text += f" ({', '.join(learned)})"
    if side != "within" and not watched:
        text += f"; only {_WATCHED[metric.direction]} is an anomaly"
    return text
