"""The metrics a monitor can watch (METRICS), and each value in a person's units (`render`, `render_band`).

A metric names a kind of series; its `unit` says how a value reads (`rows` "41,002", `seconds` "3.2 h",
`ratio` "12.5%", `clock` "07:42 UTC", `value` "1,204.5") and its `direction` which way a value may move
before it is an anomaly (docs/monitoring.md, "Monitors: learned bands").
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

from dc_bridge.config import MONITOR_METRICS
from dc_bridge.monitors.model import Metric

METRICS: dict[str, Metric] = {metric.name: metric for metric in (
    Metric("rows", "rows", "both", True, "the rows a run read of a model"),
    Metric("slice_rows", "rows", "both", True, "the rows of the run's --where slice of a model (watched when a slice is given)"),
    Metric("freshness_age", "seconds", "up", True,
           "the age of a model's newest timestamp, where the contract declares freshness: older than usual is the anomaly",
           floor=900.0, schedule_share=0.1, limit_share=0.1),
    Metric("arrival", "clock", "up", False,
           "when the data arrived: the run's time of day, seconds since midnight UTC; later than usual is the anomaly", floor=600.0),
    Metric("check", "value", "both", False, "a check's observed number (violating rows, a percent, an age, a SQL metric's value)"),
    # the profile metrics: series a caller judges through the API (`judge`, `backtest`); no run records them
    Metric("null_fraction", "ratio", "up", False, "the share of a column's values that are null: more than usual is the anomaly",
           floor=0.001),
    Metric("distinct_count", "value", "both", False, "how many distinct values a column holds"),
    Metric("min", "value", "both", False, "a column's smallest value"),
    Metric("max", "value", "both", False, "a column's largest value"),
    Metric("mean", "value", "both", False, "a column's mean"),
    Metric("mean_length", "value", "both", False, "the mean length of a column's strings, in characters"),
)}
# the metrics a run records (history/series.py `run_metrics`): those a project or a contract may name (config.py
# keeps the names, for the contract's lint below this layer; each is defined here)
RECORDED = MONITOR_METRICS

_SECONDS_UNITS = (("d", 86400.0), ("h", 3600.0), ("min", 60.0))


def _number(value: float) -> str:
    """`41,002`, `1,204.5`, `0.003123`: whole numbers with thousands separators, others to 4 significant digits (one decimal at least)."""
    if float(value).is_integer():
        return f"{int(value):,}"
    digits = max(1, 3 - math.floor(math.log10(abs(value))))
    return f"{value:,.{digits}f}".rstrip("0").rstrip(".")


def _seconds(value: float) -> str:
    """`45 s`, `12 min`, `3.2 h`, `2 d`: the largest unit that is at least one, to one decimal."""
    for unit, size in _SECONDS_UNITS:
        if abs(value) >= size:
            return f"{value / size:.1f}".removesuffix(".0") + f" {unit}"
    return f"{value:.0f} s"


def _ratio(value: float) -> str:
    """`12.5%`, `0.04%`: a share of 1 as a percent."""
    return _number(round(value * 100, 4)) + "%"


def _clock(value: float) -> str:
    """`07:42`: seconds since midnight as a time of day (a value past a day, a run late into the next, keeps counting hours)."""
    minutes = round(value / 60)
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


@dataclass(frozen=True)
class Unit:
    """How a unit's values read (`form`); the smallest band is each metric's (`Metric.floor`)."""
    form: Callable[[float], str]
    # whether `min_band_relative` of the centre applies: not to a time of day, whose size is no magnitude
    relative: bool = True
    # whole values (rows): a band's bounds are never shown with fractions
    whole: bool = False
    # said once after a value or a band: "07:42 UTC", "07:30-08:10 UTC"
    suffix: str = ""


UNITS: dict[str, Unit] = {
    "rows": Unit(_number, whole=True),
    "value": Unit(_number),
    "seconds": Unit(_seconds),
    "ratio": Unit(_ratio),
    "clock": Unit(_clock, relative=False, suffix=" UTC"),
}


def unit_of(name: str) -> Unit:
    """A unit by name; a unit no metric declares reads as a plain value."""
    return UNITS.get(name, UNITS["value"])


def render(value: float, unit: str) -> str:
    """One value in its unit's words; a unit no metric declares reads as a plain number."""
    if not math.isfinite(value):
        return str(value)
    return unit_of(unit).form(value) + unit_of(unit).suffix


def _rounded(lower: float, upper: float, step: float, observed: float | None) -> tuple[float, float]:
    """The bounds rounded outwards to `step`, and to finer steps while that would put `observed` on the wrong side of one."""
    while step:
        low, high = math.floor(lower / step) * step, math.ceil(upper / step) * step
        if observed is None or (observed < lower) == (observed < low) and (observed > upper) == (observed > high):
            # round() to the step's digits: a power of ten below one leaves binary fractions (0.30000000000000004)
            digits = max(0, -math.floor(math.log10(step)))
            return round(low, digits), round(high, digits)
        step = step / 10 if step > 1e-12 else 0.0
    return lower, upper


def render_band(lower: float, upper: float, unit: str, observed: float | None = None) -> str:
    """`79,500-84,100`: the band rounded outwards to about a tenth of its width (finer where that would show
    `observed` on the wrong side of it), so a value shown inside it is inside it and one shown outside is outside."""
    form = unit_of(unit)
    if not (math.isfinite(lower) and math.isfinite(upper)):
        return f"{render(lower, unit)}-{render(upper, unit)}"
    width = upper - lower
    step = 10.0 ** math.floor(math.log10(width / 10)) if width > 0 else 0.0
    lower, upper = _rounded(lower, upper, max(step, 1.0) if form.whole else step, observed)
    return f"{form.form(lower)}-{form.form(upper)}{form.suffix}"
