"""Monitors on planted series: the learned band (dc_bridge/monitors/band.py) against the peers' plain methods.

    python -m bench.monitors [--out bench/results/monitors.json]

Pure Python, deterministic: each series is drawn from its own seeded random generator, 120 daily runs
(one sub-daily series: 4 runs a day), with its anomalies planted at known runs and labelled. Every method
judges every run on the runs before it, in one process, on the same series:

- `band`: `dc_bridge.monitors.backtest` with the default `MonitorSettings` (its own outcomes fed back);
- `rolling 3-sigma`: mean +- 3 standard deviations of the previous 30 runs, from 7 runs on, silent where
  the deviation is 0 (DQX's `has_no_aggr_outliers`, plainly);
- `z-score 3`: |value - mean| > 3 standard deviations over all earlier runs, from 7 runs on (Elementary's
  volume and freshness anomalies, whose training set is every earlier bucket);
- `rate of change`: the value over the previous run's below 0.75 or above 1.33 (-25% / +33%: Deequ's
  `RelativeRateOfChangeStrategy(maxRateDecrease=0.75, maxRateIncrease=1.33)`), from the second run on.

Every method is told the metric's direction (a null fraction that falls is no anomaly to any of them).

Scoring. A planted spike, drop or late arrival is one run; it is found when that run is flagged. A level
shift is found when one of its first 3 runs is flagged; its next runs, up to 14 after it, count neither
way (a method may keep flagging a lasting change while it learns it, or not), and after them the new
level is normal: a flag there is a false alarm. Every other run is clean, and a flag on it is a false
alarm. Precision = found anomalies / (found anomalies + false alarms); recall = found / planted; F1
their harmonic mean; false alarms per 200 clean runs from the 8th run of each series on (before it no
method judges).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import time
from dataclasses import dataclass, field, replace
from functools import partial
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Callable, Sequence

from dc_bridge.monitors import METRICS, MonitorSettings, Point, SeriesKey, backtest, judge
from dc_bridge.monitors.band import TUNING, Tuning

START = datetime(2026, 1, 5, 2, 0, tzinfo=timezone.utc)  # a Monday
RUNS = 120
WARM_UP = 7
# a shift's runs that count as found when flagged, and the runs after it that count neither way
SHIFT_DETECT = 3
SHIFT_QUIET = 14
GOALS = {"recall drops >= 30%": 0.9, "recall shifts of 5 spreads": 0.9, "false alarms per 200 clean runs": 1.0}


@dataclass(frozen=True)
class Event:
    """One planted anomaly: its kind ("drop 30%", "shift 5 spreads"), the runs that find it, the runs that count neither way."""
    kind: str
    detect: tuple[int, ...]
    quiet: tuple[int, ...] = ()


@dataclass
class Series:
    """A planted series: its metric, its points (time order) and the anomalies planted in it."""
    name: str
    metric: str
    points: list[Point]
    events: list[Event] = field(default_factory=list)

    @property
    def direction(self) -> str:
        return METRICS[self.metric].direction


def _days(count: int = RUNS, every: timedelta = timedelta(days=1), skip: frozenset[int] = frozenset()) -> list[datetime]:
    """`count` run times from START, `every` apart, leaving out the slots in `skip` (missing days)."""
    times, slot = [], 0
    while len(times) < count:
        if slot not in skip:
            times.append(START + slot * every)
        slot += 1
    return times


def _series(name: str, metric: str, times: Sequence[datetime], expected: Callable[[int, datetime], float], noise: float,
            seed: int, planted: dict[int, tuple[str, float]] | None = None, shifts: dict[int, tuple[str, float]] | None = None,
            relative: bool = True, draw: int = 0) -> Series:
    """`expected(i, at)` plus normal noise (a share of it where `relative`, else absolute); `planted` multiplies
    single runs (index -> (kind, factor)), `shifts` adds a lasting change from a run on (index -> (kind, amount in noise spreads))."""
    rng = random.Random(seed + 1000 * draw)
    planted, shifts = planted or {}, shifts or {}
    points, events = [], []
    for i, at in enumerate(times):
        base = expected(i, at)
        spread = noise * abs(base) if relative else noise
        value = base + rng.gauss(0, spread)
        for start, (_, spreads) in shifts.items():
            if i >= start:
                value += spreads * (noise * abs(base) if relative else noise)
        if i in planted:
            value = base * planted[i][1] if relative else base + planted[i][1]
        points.append(Point(at, max(value, 0.0), "1.0.0"))
    events += [Event(kind, (i,)) for i, (kind, _) in planted.items()]
    events += [Event(kind, tuple(range(s, s + SHIFT_DETECT)), tuple(range(s + SHIFT_DETECT, s + SHIFT_QUIET + 1)))
               for s, (kind, _) in shifts.items()]
    return Series(name, metric, points, events)


def _weekly(low: float) -> Callable[[int, datetime], float]:
    """80,000 rows on weekdays, `low` of it on Saturdays and Sundays."""
    return lambda i, at: 80_000 * (low if at.weekday() >= 5 else 1.0)


def _now_and_then_late(i: int, at: datetime) -> float:
    """An hour's age, and in one run of six 2 to 8 minutes more (drawn from the run's own seed)."""
    late = random.Random(i)
    return 3600.0 + (late.uniform(120, 480) if late.random() < 1 / 6 else 0.0)


def planted_series(draw: int = 0) -> list[Series]:
    """The planted series (names say what each holds): clean ones at several noise levels, flat, weekly,
    trending, gapped and sub-daily series, and drops, spikes, shifts and late arrivals. `draw` picks
    another set of seeds: the same series with other noise, for how much the figures owe to one draw."""
    series = partial(_series, draw=draw)
    days = _days()
    level = lambda i, at: 80_000.0  # noqa: E731: a constant expectation
    drops30 = {40: ("drop 30%", 0.7), 75: ("drop 30%", 0.7), 101: ("drop 30%", 0.7)}
    drops50 = {33: ("drop 50%", 0.5), 66: ("drop 50%", 0.5), 99: ("drop 50%", 0.5)}
    spikes = {45: ("spike x2", 2.0), 88: ("spike x2", 2.0)}
    gaps = frozenset(random.Random(7).sample(range(10, 170), 45))
    trend = lambda i, at: 50_000 * (1 + 0.006 * (at - START).days)  # noqa: E731: 0.6% of the start a day
    arrival = lambda i, at: 2 * 3600 + 600.0  # noqa: E731: data lands at 02:10 UTC
    return [
        # clean: no anomaly planted; every flag is a false alarm
        series("clean, noise 1%", "rows", days, level, 0.01, 1),
        series("clean, noise 3%", "rows", days, level, 0.03, 2),
        series("clean, noise 5%", "rows", days, level, 0.05, 3),
        series("clean, noise 10%", "rows", days, level, 0.10, 4),
        series("clean, noise 20%", "rows", days, level, 0.20, 5),
        series("clean, flat", "rows", days, lambda i, at: 5_000.0, 0.0, 6),
        series("clean, flat with +-1 row", "rows", days, lambda i, at: 5_000.0, 1.0, 7, relative=False),
        series("clean, small counts (about 20)", "check", days, lambda i, at: 20.0, 4.5, 8, relative=False),
        series("clean, weekly (weekends at 40%)", "rows", days, _weekly(0.4), 0.02, 9),
        series("clean, weekly (Mondays at 130%)", "rows", days, lambda i, at: 80_000 * (1.3 if at.weekday() == 0 else 1.0), 0.02, 13),
        series("clean, trend +0.6%/day", "rows", days, trend, 0.01, 10),
        series("clean, slow trend +0.2%/day, noise 2%", "rows", days, lambda i, at: 50_000 * (1 + 0.002 * i), 0.02, 14),
        series("clean, gaps (45 of 165 days missing)", "rows", _days(skip=gaps), level, 0.02, 11),
        series("clean, null fraction falling to 0 (harmless)", "null_fraction", days,
                lambda i, at: 0.02 if i < 80 else 0.0, 0.1, 12),
        # a daily load checked an hour after it lands: the age moves by seconds with when each run starts, and
        # one run in six lands a few minutes late (nothing a day's schedule or a 25-hour SLA would call late)
        series("clean, freshness age about 1 h (seconds of jitter, now and then minutes late)", "freshness_age", days,
                _now_and_then_late, 10.0, 15, relative=False),
        series("clean, freshness age about 6 h (20 minutes of jitter)", "freshness_age", days, lambda i, at: 6 * 3600.0, 1200.0, 16,
                relative=False),
        # anomalies planted
        series("drops 30%, noise 2%", "rows", days, level, 0.02, 20, planted=drops30),
        series("drops 50%, noise 5%", "rows", days, level, 0.05, 21, planted=drops50),
        series("drops 30%, noise 5%", "rows", days, level, 0.05, 27, planted=drops30),
        series("drops 30%, weekly", "rows", days, _weekly(0.4), 0.02, 22, planted=drops30),
        series("drops 50%, trend +0.6%/day", "rows", days, trend, 0.01, 23, planted=drops50),
        series("drops 30%, gaps", "rows", _days(skip=gaps), level, 0.02, 24, planted=drops30),
        series("two drops 50% in a row", "rows", days, level, 0.03, 25,
                planted={60: ("drop 50%", 0.5), 61: ("drop 50%", 0.5)}),
        series("spikes x2, noise 3%", "rows", days, level, 0.03, 26, planted=spikes),
        series("shift up 5 spreads, noise 2%", "rows", days, level, 0.02, 30, shifts={70: ("shift 5 spreads", 5.0)}),
        series("shift down 5 spreads, noise 3%", "rows", days, level, 0.03, 31, shifts={60: ("shift 5 spreads", -5.0)}),
        series("shift up 5 spreads, noise 5%", "rows", days, level, 0.05, 32, shifts={50: ("shift 5 spreads", 5.0)}),
        series("shift down 5 spreads, weekly", "rows", days, _weekly(0.4), 0.03, 33, shifts={75: ("shift 5 spreads", -5.0)}),
        series("shift up 5 spreads, noise 8%", "rows", days, level, 0.08, 34, shifts={65: ("shift 5 spreads", 5.0)}),
        series("shift down 5 spreads, gaps", "rows", _days(skip=gaps), level, 0.03, 35, shifts={80: ("shift 5 spreads", -5.0)}),
        series("shift up 5 spreads, trend +0.6%/day", "rows", days, trend, 0.02, 36, shifts={90: ("shift 5 spreads", 5.0)}),
        series("shift down 5 spreads, noise 4%", "rows", days, level, 0.04, 37, shifts={40: ("shift 5 spreads", -5.0)}),
        series("late arrivals (+3 h)", "arrival", days, arrival, 180.0, 40, relative=False,
                planted={30: ("late arrival", 3 * 3600), 64: ("late arrival", 3 * 3600), 97: ("late arrival", 3 * 3600)}),
        series("arrival moved 2 h later", "arrival", days, arrival, 180.0, 41, relative=False,
                shifts={70: ("arrival moved 2 h", 40.0)}),
        series("null fraction spikes to 5x", "null_fraction", days, lambda i, at: 0.02, 0.1, 42,
                planted={50: ("spike x5", 5.0), 90: ("spike x5", 5.0)}),
        series("freshness age spikes (x4)", "freshness_age", days, lambda i, at: 3 * 3600.0, 0.1, 43,
                planted={35: ("spike x4", 4.0), 85: ("spike x4", 4.0)}),
        series("sub-daily, hour pattern, drops 50%", "rows", _days(every=timedelta(hours=6)),
                lambda i, at: 20_000.0 * (2.0 if at.hour == 14 else 1.0), 0.03, 44,
                planted={70: ("drop 50%", 0.5), 101: ("drop 50%", 0.5)}),
    ]


# the peers' methods, plainly: flags per run, each run judged on the runs before it


def _beyond(value: float, lower: float, upper: float, direction: str) -> bool:
    return (value > upper and direction != "down") or (value < lower and direction != "up")


def band(series: Series, settings: MonitorSettings = MonitorSettings(), tuning: Tuning = TUNING) -> list[bool]:
    verdicts = backtest(SeriesKey(series.metric, "bench"), series.points, settings, tuning)
    return [verdict.outcome == "anomalous" for verdict in verdicts]


def rolling_3_sigma(series: Series) -> list[bool]:
    values, flags = [p.value for p in series.points], []
    for i, value in enumerate(values):
        window = values[max(0, i - 30):i]
        sigma = statistics.pstdev(window) if len(window) >= WARM_UP else 0.0
        mean = statistics.fmean(window) if window else 0.0
        flags.append(sigma > 0 and _beyond(value, mean - 3 * sigma, mean + 3 * sigma, series.direction))
    return flags


def z_score_3(series: Series) -> list[bool]:
    values, flags = [p.value for p in series.points], []
    for i, value in enumerate(values):
        earlier = values[:i]
        sigma = statistics.stdev(earlier) if len(earlier) >= WARM_UP else 0.0
        mean = statistics.fmean(earlier) if earlier else 0.0
        flags.append(sigma > 0 and _beyond(value, mean - 3 * sigma, mean + 3 * sigma, series.direction))
    return flags


def rate_of_change(series: Series) -> list[bool]:
    values, flags = [p.value for p in series.points], [False]
    for previous, value in zip(values, values[1:]):
        flags.append(previous > 0 and _beyond(value / previous, 0.75, 1.33, series.direction))
    return flags


METHODS: dict[str, Callable[[Series], list[bool]]] = {
    "band": band, "rolling 3-sigma": rolling_3_sigma, "z-score 3": z_score_3, "rate of change": rate_of_change,
}
# the band with one of its parts left out or changed: what each is worth (docs/benchmarks.md)
VARIANTS: dict[str, Callable[[Series], list[bool]]] = {
    "band, warm-up 14": partial(band, settings=MonitorSettings(warm_up=14)),
    "band, no season": partial(band, settings=MonitorSettings(seasonality="off")),
    "band, 3 points a season": partial(band, tuning=replace(TUNING, season_min_points=3)),
    "band, no trend": partial(band, tuning=replace(TUNING, trend_min_points=10**9)),
    "band, MAD alone": partial(band, tuning=replace(TUNING, trim=0.0)),
    "band, not widened for few points": partial(band, tuning=replace(TUNING, small_sample=0.0)),
    "band, sensitivity 3.5": partial(band, settings=MonitorSettings(sensitivity=3.5)),
}


@dataclass
class Score:
    """One method's tally over every series."""
    found: dict[str, int] = field(default_factory=dict)
    planted: dict[str, int] = field(default_factory=dict)
    false_alarms: int = 0
    clean_runs: int = 0
    false_alarms_clean_series: int = 0
    missed: list[str] = field(default_factory=list)
    false_alarm_runs: list[str] = field(default_factory=list)

    @property
    def recall(self) -> float:
        return sum(self.found.values()) / max(sum(self.planted.values()), 1)

    @property
    def precision(self) -> float:
        found = sum(self.found.values())
        return found / (found + self.false_alarms) if found + self.false_alarms else 1.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    @property
    def per_200_clean(self) -> float:
        return 200 * self.false_alarms / max(self.clean_runs, 1)

    def recall_of(self, prefix: str) -> float:
        kinds = [kind for kind in self.planted if kind.startswith(prefix)]
        return sum(self.found[k] for k in kinds) / max(sum(self.planted[k] for k in kinds), 1)


def score(method: Callable[[Series], list[bool]], series: Sequence[Series]) -> Score:
    tally = Score()
    for one in series:
        flags = method(one)
        excused = {i for event in one.events for i in (*event.detect, *event.quiet)}
        for event in one.events:
            tally.planted[event.kind] = tally.planted.get(event.kind, 0) + 1
            found = any(flags[i] for i in event.detect if i < len(flags))
            tally.found[event.kind] = tally.found.get(event.kind, 0) + found
            if not found:
                tally.missed.append(f"{one.name}: {event.kind} at run {event.detect[0]}")
        for i, flagged in enumerate(flags):
            if i in excused or i < WARM_UP:
                continue
            tally.clean_runs += 1
            if flagged:
                tally.false_alarms += 1
                tally.false_alarms_clean_series += not one.events
                tally.false_alarm_runs.append(f"{one.name}: run {i}")
    return tally


def time_judge(series_count: int = 10, history: int = 10_000, rounds: int = 5) -> dict[str, float]:
    """Seconds to judge `series_count` monitors whose history holds `history` runs each (best of `rounds`),
    beside the z-score peer over the same histories (it reads every earlier run: the work a lookback saves)."""
    rng = random.Random(99)
    at = [START + timedelta(hours=6 * i) for i in range(history + 1)]
    keys = [SeriesKey("rows", f"model_{n}") for n in range(series_count)]
    histories = [[Point(at[i], 80_000 * (1 + rng.gauss(0, 0.03)), "1.0.0") for i in range(history + 1)] for _ in keys]
    settings = MonitorSettings()

    def ours() -> None:
        for key, points in zip(keys, histories):
            judge(key, points[:-1], points[-1], settings)

    def z_score_all() -> None:
        for points in histories:
            earlier = [p.value for p in points[:-1]]
            statistics.fmean(earlier), statistics.stdev(earlier)

    figures = {}
    for name, call in (("band", ours), ("z-score over all earlier runs", z_score_all)):
        best = math.inf
        for _ in range(rounds):
            began = time.perf_counter()
            call()
            best = min(best, time.perf_counter() - began)
        figures[name] = best
    return figures


def median_speed(points: int = 60, rounds: int = 400) -> dict[str, float]:
    """Microseconds per median of `points` values, best of 5 batches of `rounds` (the machine's other work
    only ever adds): the standard library's against numpy's (where installed)."""
    values = [random.Random(5).gauss(0, 1) for _ in range(points)]
    figures = {"statistics.median": _per_call(lambda: statistics.median(values), rounds)}
    try:
        import numpy
    except ImportError:
        return figures
    figures["numpy.median (list in)"] = _per_call(lambda: numpy.median(values), rounds)
    return figures


def _per_call(call: Callable[[], object], rounds: int) -> float:
    best = math.inf
    for _ in range(5):
        began = time.perf_counter()
        for _ in range(rounds):
            call()
        best = min(best, (time.perf_counter() - began) / rounds * 1e6)
    return best


# the planted kinds as the results table groups them (by the start of their names)
KIND_GROUPS = {"drops 30%": ("drop 30%",), "drops 50%": ("drop 50%",), "shifts of 5 spreads": ("shift 5",),
               "spikes": ("spike",), "late arrivals": ("late arrival", "arrival moved")}


def results(methods: dict[str, Callable[[Series], list[bool]]], draw: int = 0) -> dict[str, Score]:
    """Each method's score over the planted series of one draw."""
    series = planted_series(draw)
    return {name: score(method, series) for name, method in methods.items()}


def _table(scores: dict[str, Score]) -> str:
    head = ["method", "precision", "recall", "F1", "false alarms per 200 clean runs", *[f"recall: {k}" for k in KIND_GROUPS]]
    rows = [head, ["---"] * len(head)]
    for name, s in scores.items():
        found = [(sum(s.found[k] for k in s.planted if k.startswith(prefixes)), sum(s.planted[k] for k in s.planted if k.startswith(prefixes)))
                 for prefixes in KIND_GROUPS.values()]
        rows.append([name, f"{s.precision:.2f}", f"{s.recall:.2f}", f"**{s.f1:.2f}**", f"{s.per_200_clean:.2f}",
                     *[f"{a}/{b}" for a, b in found]])
    return "\n".join("| " + " | ".join(row) + " |" for row in rows)


def goals(ours: Score) -> dict[str, tuple[float, bool]]:
    """The goals and where the band stands: recall on drops of 30% and more and on shifts of 5 spreads, false alarms."""
    figures = {"recall drops >= 30%": ours.recall_of("drop"), "recall shifts of 5 spreads": ours.recall_of("shift 5"),
               "false alarms per 200 clean runs": ours.per_200_clean}
    return {goal: (value, value <= GOALS[goal] if goal.startswith("false") else value >= GOALS[goal]) for goal, value in figures.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="write the figures as JSON here")
    parser.add_argument("--why", action="store_true", help="list each method's misses and false alarms")
    parser.add_argument("--variants", action="store_true", help="also the band with each of its parts left out or changed")
    parser.add_argument("--draws", type=int, default=1, help="also score this many other draws of the same series (F1 and false alarms, each draw)")
    args = parser.parse_args()
    methods = {**METHODS, **(VARIANTS if args.variants else {})}
    series = planted_series()
    scores = results(methods)
    print(f"{len(series)} planted series, {sum(len(s.points) for s in series)} runs, "
          f"{sum(len(s.events) for s in series)} planted anomalies\n")
    print(_table(scores))
    ours = scores["band"]
    print()
    for name in METHODS:
        if name != "band":
            print(f"band's F1 over {name}'s: {ours.f1:.2f} vs {scores[name].f1:.2f} (+{ours.f1 - scores[name].f1:.2f}, "
                  f"x{ours.f1 / scores[name].f1 if scores[name].f1 else math.inf:.2f}); false alarms {ours.false_alarms} vs {scores[name].false_alarms}")
    for goal, (value, met) in goals(ours).items():
        print(f"goal {goal}: {value:.2f} ({'met' if met else 'NOT met'}, goal {GOALS[goal]})")
    others = {draw: results(METHODS, draw) for draw in range(1, args.draws)}
    for draw, drawn in others.items():
        print(f"draw {draw}: " + "; ".join(f"{name} F1 {s.f1:.2f}, false alarms/200 {s.per_200_clean:.2f}" for name, s in drawn.items()))
    if args.why:
        for name, s in scores.items():
            print(f"\n{name}: missed {s.missed}\n  false alarms {s.false_alarm_runs}")
    timing = time_judge()
    medians = median_speed()
    print(f"\njudge, 10 monitors with 10,000 runs of history each: {timing['band'] * 1000:.1f} ms "
          f"(z-score over all earlier runs: {timing['z-score over all earlier runs'] * 1000:.1f} ms)")
    print("median of 60 values: " + ", ".join(f"{k} {v:.1f} us" for k, v in medians.items()))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        summary = {name: {"precision": s.precision, "recall": s.recall, "f1": s.f1, "false_alarms_per_200_clean": s.per_200_clean,
                          "found": s.found, "planted": s.planted} for name, s in scores.items()}
        args.out.write_text(json.dumps({
            "series": len(series), "timing_seconds": timing, "median_microseconds": medians, "scores": summary,
            "draws": {draw: {name: {"f1": s.f1, "false_alarms_per_200_clean": s.per_200_clean} for name, s in drawn.items()}
                      for draw, drawn in others.items()},
        }, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
