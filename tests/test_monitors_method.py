"""The monitors' method (dc_bridge/monitors/band.py, backtest.py, metrics.py) on planted series: pure, no Spark.

Each series is drawn here from a seeded generator with a known truth (a level, a weekly rhythm, a drop
of half), and the tests assert what that truth implies, not what the code computes: a drop of 50% lies
below any band learned from the level, a Monday that is always 30% higher is expected higher. The last
test runs bench/monitors.py's planted series and holds the method to its goals there.
"""

from __future__ import annotations

import importlib.util
import random
import re
import sys
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from dc_bridge.monitors import METRICS, MonitorSettings, Point, SeriesKey, backtest, judge, render, render_band, summarize

ROOT = Path(__file__).resolve().parents[1]
MONDAY = datetime(2026, 1, 5, 6, 0, tzinfo=timezone.utc)
ROWS = SeriesKey("rows", "orders")
SETTINGS = MonitorSettings()


def daily(values, start=MONDAY, version="1.0.0", skip=()):
    """Points one day apart from a Monday, leaving out the days in `skip`."""
    days = [day for day in range(len(values) + len(skip)) if day not in set(skip)]
    return [Point(start + timedelta(days=day), value, version) for day, value in zip(days, values)]


def noisy(count, level=80_000.0, noise=0.01, seed=1, factor=lambda day: 1.0):
    rng = random.Random(seed)
    return [level * factor(day) * (1 + rng.gauss(0, noise)) for day in range(count)]


def test_metrics_are_the_ones_a_team_expects():
    on = {name for name, metric in METRICS.items() if metric.on_by_default}
    assert on == {"rows", "slice_rows", "freshness_age"}
    assert {name for name, metric in METRICS.items() if metric.direction == "up"} == {"freshness_age", "arrival", "null_fraction"}
    assert set(METRICS) >= {"check", "distinct_count", "min", "max", "mean", "mean_length"}
    assert render(41_002, "rows") == "41,002"
    assert render(3.2 * 3600, "seconds") == "3.2 h"
    assert render(2 * 86400, "seconds") == "2 d"
    assert render(0.125, "ratio") == "12.5%"
    assert render(7 * 3600 + 42 * 60, "clock") == "07:42 UTC"


def test_a_band_is_shown_with_the_value_on_its_true_side():
    rng = random.Random(11)
    for _ in range(500):
        lower = rng.uniform(0, 100_000)
        upper = lower + rng.choice((0.5, 3, 40, 900, 20_000)) * rng.random()
        observed = float(round(rng.uniform(lower - 2_000, upper + 2_000)))
        shown = re.fullmatch(r"([\d,.]+)-([\d,.]+)", render_band(lower, upper, "rows", observed))
        low, high = (float(shown[i].replace(",", "")) for i in (1, 2))
        assert low <= lower and high >= upper  # rounded outwards
        assert (observed < low) == (observed < lower) and (observed > high) == (observed > upper), (lower, upper, observed, shown[0])


def test_warm_up_is_learning_with_the_runs_needed_never_normal():
    points = daily(noisy(10))
    verdicts = backtest(ROWS, points, SETTINGS)
    assert [v.outcome for v in verdicts[:7]] == ["learning"] * 7
    assert [v.needed for v in verdicts[:7]] == [7, 6, 5, 4, 3, 2, 1]
    assert verdicts[3].sentence == "learning: 4 more runs needed before rows(orders) is judged (3 of 7 so far)"
    assert all(v.outcome == "normal" and v.needed is None for v in verdicts[7:])
    # no value: not judged, and such runs do not count towards the warm-up
    gap = judge(ROWS, daily(noisy(3)), Point(MONDAY + timedelta(days=3), None), SETTINGS)
    assert (gap.outcome, gap.needed) == ("learning", None) and "not judged" in gap.sentence
    holes = [replace(p, value=None) if i % 2 else p for i, p in enumerate(daily(noisy(12)))]
    assert judge(ROWS, holes, Point(MONDAY + timedelta(days=12), 80_000.0), SETTINGS).needed == 1


def test_a_flat_series_with_tiny_noise_never_alarms():
    rng = random.Random(3)
    points = daily([10_000 + rng.choice((-1, 0, 1)) for _ in range(90)])
    assert [v.outcome for v in backtest(ROWS, points, SETTINGS)].count("anomalous") == 0
    exact = daily([500.0] * 30)
    assert [v.outcome for v in backtest(ROWS, exact, SETTINGS)].count("anomalous") == 0


def test_a_drop_by_half_is_anomalous_and_its_sentence_gives_the_numbers():
    history = daily(noisy(30))
    verdict = judge(ROWS, history, Point(MONDAY + timedelta(days=30, hours=1), 40_000.0, "1.0.0"), SETTINGS)
    assert verdict.outcome == "anomalous"
    assert 40_000 < verdict.lower < 80_000 < verdict.upper < 100_000
    found = re.fullmatch(r"rows 40,000 are below the expected ([\d,]+)-([\d,]+) \((\d+) earlier runs\)", verdict.sentence)
    assert found, verdict.sentence
    lower, upper = (int(found[i].replace(",", "")) for i in (1, 2))
    assert 60_000 < lower < 80_000 < upper < 100_000 and int(found[3]) == verdict.points == 30
    same = judge(ROWS, history, Point(MONDAY + timedelta(days=30, hours=1), 80_500.0, "1.0.0"), SETTINGS)
    assert same.outcome == "normal" and "are within the expected" in same.sentence


def test_direction_a_falling_null_fraction_is_normal_a_rising_one_anomalous():
    key = SeriesKey("null_fraction", "orders", "email")
    history = daily(noisy(30, level=0.02, noise=0.05))
    at = MONDAY + timedelta(days=30, hours=1)
    fell = judge(key, history, Point(at, 0.0, "1.0.0"), SETTINGS)
    assert fell.outcome == "normal" and fell.observed < fell.lower and "only a rise is an anomaly" in fell.sentence
    assert judge(key, history, Point(at, 0.1, "1.0.0"), SETTINGS).outcome == "anomalous"
    # rows watch both ways
    assert judge(ROWS, daily(noisy(30)), Point(at, 160_000.0, "1.0.0"), SETTINGS).outcome == "anomalous"


def test_a_weekly_rhythm_is_learned_as_a_season_and_noise_is_not():
    higher_mondays = daily(noisy(56, factor=lambda day: 1.3 if day % 7 == 0 else 1.0))
    monday, tuesday = MONDAY + timedelta(days=56), MONDAY + timedelta(days=57)
    on_monday = judge(ROWS, higher_mondays, Point(monday, 104_000.0, "1.0.0"), SETTINGS)
    assert (on_monday.outcome, on_monday.season) == ("normal", "Monday")
    assert on_monday.lower > 90_000 and "for a Monday (8 earlier Mondays)" in on_monday.sentence
    # a Tuesday at a Monday's level is above what a Tuesday brings
    on_tuesday = judge(ROWS, higher_mondays, Point(tuesday, 104_000.0, "1.0.0"), SETTINGS)
    assert (on_tuesday.outcome, on_tuesday.season) == ("anomalous", "Tuesday") and on_tuesday.upper < 90_000
    # the rhythm learned although the plain band flagged every Monday as it came
    replayed = backtest(ROWS, higher_mondays, SETTINGS)
    assert [v.outcome for v in replayed[28:]].count("anomalous") == 0
    # pure noise: no season, whichever draw
    for seed in range(5):
        plain = judge(ROWS, daily(noisy(56, noise=0.03, seed=seed)), Point(monday, 80_000.0, "1.0.0"), SETTINGS)
        assert plain.season is None and plain.outcome == "normal", plain.sentence
    assert judge(ROWS, higher_mondays, Point(monday, 104_000.0), replace(SETTINGS, seasonality="off")).season is None


def test_sub_daily_runs_get_the_hour_as_season_in_utc():
    rng = random.Random(4)
    start = datetime(2026, 1, 5, 2, 0, tzinfo=timezone.utc)
    points = [Point(start + timedelta(hours=6 * i), 20_000 * (2 if (2 + 6 * i) % 24 == 14 else 1) * (1 + rng.gauss(0, 0.02)))
              for i in range(60)]
    # 16:00 at UTC+02:00 is 14:00 UTC, the busy hour
    busy = datetime(2026, 1, 20, 16, 0, tzinfo=timezone(timedelta(hours=2)))
    verdict = judge(ROWS, points, Point(busy, 40_000.0), SETTINGS)
    assert (verdict.outcome, verdict.season) == ("normal", "14:00-15:00") and "at 14:00-15:00" in verdict.sentence
    assert judge(ROWS, points, Point(busy, 20_000.0), SETTINGS).outcome == "anomalous"


def test_anomalies_stay_out_of_the_baseline_until_the_series_moved():
    values = noisy(40)
    values[30:32] = [40_000.0, 40_000.0]
    outcomes = [v.outcome for v in backtest(ROWS, daily(values), SETTINGS)]
    assert outcomes[30:32] == ["anomalous", "anomalous"] and outcomes[32:].count("anomalous") == 0
    # a lasting change: a few alarms, then learning anew from the new level, then normal at it
    moved = noisy(30) + noisy(40, level=40_000.0, seed=9)
    replayed = backtest(ROWS, daily(moved), SETTINGS)
    assert [v.outcome for v in replayed[30:34]] == ["anomalous"] * 4
    assert replayed[34].outcome == "learning" and "moved on 2026-02-04" in replayed[34].sentence
    assert all(v.outcome == "normal" for v in replayed[40:]) and replayed[-1].upper < 50_000


def test_a_new_major_version_restarts_learning_a_minor_one_keeps_the_history():
    history = daily(noisy(20), version="1.2.0")
    at = MONDAY + timedelta(days=20, hours=1)
    major = judge(ROWS, history, Point(at, 80_000.0, "2.0.0"), SETTINGS)
    assert (major.outcome, major.needed) == ("learning", 7) and "version 2.0.0" in major.sentence
    minor = judge(ROWS, history, Point(at, 80_000.0, "1.3.0"), SETTINGS)
    assert minor.outcome == "normal" and minor.points == 20
    # the runs of version 2 count from the first of them on
    mixed = history + daily(noisy(8, seed=5), start=MONDAY + timedelta(days=20), version="2.0.0")
    assert judge(ROWS, mixed, Point(MONDAY + timedelta(days=28, hours=1), 80_000.0, "2.1.0"), SETTINGS).points == 8


def test_gaps_are_not_filled_and_seasons_come_from_the_timestamps():
    skip = {3, 4, 10, 11, 12, 20, 27, 33, 34, 40, 41, 50}
    values = noisy(50, factor=lambda day: 1.0)
    points = daily(values, skip=skip)
    weekly = [Point(p.at, p.value * (0.4 if p.at.weekday() >= 5 else 1.0), p.contract_version) for p in points]
    assert [v.outcome for v in backtest(ROWS, weekly, SETTINGS)[21:]].count("anomalous") == 0
    saturday = MONDAY + timedelta(days=68)
    assert judge(ROWS, weekly, Point(saturday, 32_000.0, "1.0.0"), SETTINGS).season == "Saturday"


def test_backtest_is_judge_replayed_in_time_order():
    values = noisy(45)
    values[20], values[33] = 30_000.0, 150_000.0
    points = daily(values)
    shuffled = points[::-1]
    verdicts = backtest(ROWS, shuffled, SETTINGS)
    replayed = []
    for point, verdict in zip(points, verdicts):
        assert judge(ROWS, replayed, point, SETTINGS) == verdict
        replayed.append(replace(point, anomalous=verdict.outcome == "anomalous"))
    summary = summarize(ROWS, shuffled, verdicts)
    assert (summary.runs, summary.learning, summary.anomalous) == (45, 7, 2)
    assert (summary.first_anomaly, summary.last_anomaly) == (points[20].at, points[33].at)
    assert summary.normal == 45 - 7 - 2


def test_an_unknown_metric_is_refused_naming_the_known_ones():
    with pytest.raises(ValueError, match=r"monitor row_count\(orders\): no metric 'row_count'; the metrics are rows, "):
        judge(SeriesKey("row_count", "orders"), [], Point(MONDAY, 1.0), SETTINGS)


def _bench():
    spec = importlib.util.spec_from_file_location("bench_monitors", ROOT / "bench" / "monitors.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_the_bench_goals_hold_and_the_band_beats_each_peer():
    bench = _bench()
    scores = bench.results(bench.METHODS)
    assert all(met for _, met in bench.goals(scores["band"]).values()), bench.goals(scores["band"])
    for name, peer in scores.items():
        assert name == "band" or scores["band"].f1 > peer.f1, (name, peer.f1, scores["band"].f1)


def test_the_defaults_stay_quiet_on_every_clean_bench_series_with_freshness_and_still_find_an_hour_late():
    """A daily load checked an hour after it lands, a few minutes late now and then: the default freshness
    monitor saw a one-minute change as an anomaly (its band was 5% of an hour wide); now its floor is its own
    (fifteen minutes, a tenth of the schedule's day). A load half a day late is still found."""
    bench = _bench()
    clean = [series for series in bench.planted_series() if not series.events]
    assert any(series.metric == "freshness_age" for series in clean)
    # the clean series the band alarmed on before the freshness floor (weekly rhythms before their seasons are learned)
    alarms = {series.name: sum(bench.band(series)[bench.WARM_UP:]) for series in clean}
    assert {name: n for name, n in alarms.items() if n and "weekly" not in name and "noise 3%" not in name} == {}
    assert sum(alarms.values()) <= 4, alarms
    hour = daily([3600.0 + 5 * (day % 3) for day in range(30)])
    key = SeriesKey("freshness_age", "orders")
    minute_later = judge(key, hour, Point(MONDAY + timedelta(days=30), 3600.0 + 66, "1.0.0"), SETTINGS)
    assert minute_later.outcome == "normal", minute_later.sentence
    assert minute_later.upper - minute_later.centre >= 0.1 * 86400  # a tenth of the day between runs
    late = judge(key, hour, Point(MONDAY + timedelta(days=30), 13 * 3600.0, "1.0.0"), SETTINGS)
    assert late.outcome == "anomalous", late.sentence


def test_each_metric_has_its_own_floor_in_its_own_unit():
    """A flat series is judged against its metric's floor: a row, fifteen minutes of age, ten minutes of the clock,
    a tenth of a percent; `min_band_absolute` sets one metric's floor and leaves the others theirs."""
    at = MONDAY + timedelta(days=30)
    cases = {  # metric, flat level, what must be within, what must be beyond (of the floor in the metric's unit)
        "rows": (5_000.0, 5_001.0, 5_000.0 * 1.06 + 2),
        "freshness_age": (60.0, 60.0 + 0.1 * 86400 - 1, 60.0 + 0.1 * 86400 + 1),  # the schedule's tenth beats 15 minutes
        "arrival": (7 * 3600.0, 7 * 3600.0 + 599, 7 * 3600.0 + 601),
        "null_fraction": (0.0, 0.0009, 0.0011),
    }
    for metric, (level, within, beyond) in cases.items():
        flat = daily([level] * 30)
        key = SeriesKey(metric, "orders")
        assert judge(key, flat, Point(at, within), SETTINGS).outcome == "normal", (metric, judge(key, flat, Point(at, within), SETTINGS).sentence)
        assert judge(key, flat, Point(at, beyond), SETTINGS).outcome == "anomalous", metric
    own = replace(SETTINGS, min_band_absolute={"rows": 500.0})
    flat = daily([5_000.0] * 30)
    assert judge(ROWS, flat, Point(at, 5_400.0), own).outcome == "normal"
    assert judge(SeriesKey("arrival"), daily([7 * 3600.0] * 30), Point(at, 7 * 3600.0 + 601), own).outcome == "anomalous"


def test_two_majors_run_side_by_side_each_learn_from_their_own():
    """A fleet runs version 1 and 2 of a contract while its consumers move: each run's baseline is its own major's
    runs. Before, the first run of the other major ended the baseline, so both learned for ever."""
    rng = random.Random(3)
    history = []
    for day in range(40):
        history.append(Point(MONDAY + timedelta(days=day), 80_000 * (1 + rng.gauss(0, 0.01)), "1.4.0"))
        history.append(Point(MONDAY + timedelta(days=day, hours=1), 20_000 * (1 + rng.gauss(0, 0.01)), "2.0.0"))
    at = MONDAY + timedelta(days=40)
    one = judge(ROWS, history, Point(at, 80_500.0, "1.4.1"), SETTINGS)
    two = judge(ROWS, history, Point(at + timedelta(hours=1), 20_100.0, "2.0.0"), SETTINGS)
    assert (one.outcome, two.outcome) == ("normal", "normal"), (one.sentence, two.sentence)
    assert judge(ROWS, history, Point(at, 20_100.0, "1.4.1"), SETTINGS).outcome == "anomalous"  # v2's level is not v1's
    fresh = judge(ROWS, history, Point(at, 5_000.0, "3.0.0"), SETTINGS)  # a new major still learns anew
    assert fresh.outcome == "learning" and fresh.sentence.startswith("learning anew for version 3.0.0")


def test_a_freshness_band_respects_the_contracts_sla():
    """Hourly runs of data about an hour old: the schedule's tenth is six minutes, the floor fifteen; under a 25-hour
    SLA a band is never narrower than a tenth of it, so half an hour more is no anomaly there, and the live runs and the
    replay take the SLA from the contract's freshness check (the tightest of a model's)."""
    from dc_bridge.contract.model import Threshold
    from dc_bridge.history.series import series_limits
    from dc_bridge.verdict import CheckVerdict

    key = SeriesKey("freshness_age", "orders")
    hourly = [Point(MONDAY + timedelta(hours=hour), 3600.0 + 10 * (hour % 3), "1.0.0") for hour in range(48)]
    later = Point(MONDAY + timedelta(hours=48), 3600.0 + 1800, "1.0.0")
    assert judge(key, hourly, later, SETTINGS).outcome == "anomalous"
    judged = judge(key, hourly, later, SETTINGS, limit=90_000.0)
    assert judged.outcome == "normal" and judged.upper - judged.centre >= 9_000.0, judged.sentence
    assert judge(key, hourly, Point(later.at, 3600.0 + 4 * 3600, "1.0.0"), SETTINGS, limit=90_000.0).outcome == "anomalous"
    assert backtest(key, [*hourly, later], SETTINGS, limit=90_000.0)[-1].outcome == "normal"

    def freshness(check_id, operator, value):
        return CheckVerdict(check_id=check_id, model="orders", kind="freshness", columns=["loaded"], outcome="passed",
                            severity="error", threshold=Threshold(operator=operator, value=value), source={})
    checks = [freshness("a", "<=", 90_000.0), freshness("b", "<", 172_800.0), freshness("c", ">=", 5.0)]
    assert series_limits(checks) == {key: 90_000.0}
