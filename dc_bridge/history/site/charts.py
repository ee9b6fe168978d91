"""A series over the runs of a contract page's window, as a Vega-Lite specification (a small JSON object the
page carries; the browser draws it with the Vega libraries the site ships as one file, assets/vega.js), or,
when the series says nothing a chart would add (flat and passing every run), one line of text instead.

What a chart shows: the observed value in the unit a person reads (rows, percent, hours or days for an
age), the check's threshold as a dashed line labelled in the contract's words, the monitor's expected band
as a shaded area, each run a point whose shape and colour say its outcome (shape alone reads without
colour), anomalies ringed; the y axis spans the data, the threshold and the band, never inflating a flat
series into noise. Hovering a point shows the run's date, value and outcome.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass

# outcome -> (shape, colour): the shape alone tells a failure from a pass (accessibility: not colour alone)
MARKS = {"passed": ("circle", "#2e7d32"), "warning": ("square", "#ef6c00"), "failed": ("cross", "#c62828"),
         "error": ("diamond", "#6a1b9a"), "not_executable": ("triangle-up", "#757575"), "skipped": ("triangle-down", "#757575")}
# an age in seconds read in the largest of these units its values reach at least twice
AGES = (("days", 86_400.0), ("hours", 3_600.0), ("minutes", 60.0), ("seconds", 1.0))
# unit of the store -> (label, the smallest step of the axis, the format of a value): rows are whole numbers
UNITS = {"rows": ("rows", 1.0, ",.0f"), "percent": ("%", 0.0, ",.2~f")}
# a number in a check's `expected` text (`<= 3%`, `between [1, 5)`, `= 0`): the threshold lines a chart draws
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e[+-]?\d+)?", re.IGNORECASE)


@dataclass(frozen=True)
class Run:
    """One run's point of a series: when (ISO 8601), the observed value, the check's outcome (None for a
    series without one, a monitor's metric), and what the monitor said (band, anomalous) when it judged the run."""
    at: str
    value: float
    outcome: str | None = None
    lower: float | None = None
    upper: float | None = None
    anomalous: bool = False


@dataclass(frozen=True)
class Scale:
    """How a series is shown: its unit's label, the factor from stored to shown values, the value format."""
    label: str
    factor: float
    step: float
    format: str


def scale_for(unit: str | None, values: list[float]) -> Scale:
    """The unit a person reads: rows as whole numbers, percent, an age in seconds as days, hours or minutes."""
    if unit == "seconds":
        largest = max((abs(v) for v in values), default=0.0)
        label, factor = next(((name, size) for name, size in AGES if largest >= 2 * size), AGES[-1])
        return Scale(label, factor, 0.0, ",.1~f")
    label, step, form = UNITS.get(unit or "", ("", 0.0, ",.6~g"))  # 10,000 rather than 1e+4
    return Scale(label, 1.0, step, form)


# a duration in the contract's words: the largest unit it is a whole number of (`25h`, `2d`, `90min`); under two days
# a whole number of hours stays in hours (a contract writes `25h` and `24h`, rarely `1d 1h`)
DURATION_WORDS = (("d", 86_400.0), ("h", 3_600.0), ("min", 60.0), ("s", 1.0))
# the x axis's labels at each tick size, the hours in 24-hour time (Vega's default, `%I:%M`, writes 18:56 as "06:56")
TIME_LABELS = {"year": "%Y", "quarter": "%b %Y", "month": "%b %Y", "week": "%b %d", "date": "%b %d", "hours": "%H:%M",
               "minutes": "%H:%M", "seconds": "%H:%M:%S", "milliseconds": "%H:%M:%S.%L"}


def duration_words(seconds: float) -> str:
    """Seconds as a contract writes a duration: `25h`, `2d`, `90min`, `45s` (`1.5s` where no unit divides it)."""
    for unit, size in DURATION_WORDS:
        whole = seconds / size
        if seconds and whole == int(whole) and not (unit == "d" and seconds < 2 * 86_400.0 and seconds % 3_600.0 == 0):
            return f"{int(whole)}{unit}"
    return f"{seconds:g}s"


def threshold_words(expected: str | None, unit: str | None) -> str | None:
    """A check's `expected` text as its contract says it: an age or a gap in seconds (`<= 90000.0`) as a duration
    (`<= 25h`); any other unit's text as the fold wrote it (`>= 800`, `<= 3%`)."""
    if expected is None or unit != "seconds":
        return expected
    return _NUMBER.sub(lambda number: duration_words(float(number.group())), expected)


def thresholds(expected: str | None) -> list[float]:
    """The numbers of a check's `expected` text, the lines its chart draws (`between [1, 5)` draws two)."""
    return [float(n) for n in _NUMBER.findall(expected or "")]


def shown(value: float, scale: Scale) -> str:
    """A value as the page writes it beside a chart or in its place: `1,204 rows`, `2.5 %`, `3.2 hours`."""
    number = value / scale.factor
    text = f"{number:,.0f}" if scale.step >= 1 or number == int(number) else f"{number:,.2f}".rstrip("0").rstrip(".")
    return f"{text} {scale.label}".strip()


def is_flat(runs: list[Run]) -> bool:
    """One value every run, every run passed (or no outcome), nothing anomalous: a chart would add nothing."""
    return (len({r.value for r in runs}) <= 1 and all(r.outcome in (None, "passed") for r in runs)
            and not any(r.anomalous for r in runs))


def _domain(numbers: list[float], step: float) -> list[float]:
    """The y axis: from the smallest to the largest of the data, threshold and band, padded a tenth; a flat
    series gets a span of its own size (or one step), not a range of noise around it; never below 0 for
    counts that cannot be negative."""
    low, high = min(numbers), max(numbers)
    pad = (high - low) * 0.1 or max(abs(high) * 0.1, step, 1e-9 if step == 0 else step)
    bottom = low - pad if low < 0 or low - pad >= 0 else 0.0
    return [bottom, high + pad]


def spec(title: str, runs: list[Run], unit: str | None, expected: str | None = None) -> dict:
    """The Vega-Lite specification of a series (oldest run first): band, line, a point per run shaped by its
    outcome, anomalies ringed, the threshold of `expected` as a labelled line."""
    scale = scale_for(unit, [r.value for r in runs])
    factor = scale.factor
    values = [{"t": r.at, "v": r.value / factor, "o": r.outcome or "measured",
               **({"lo": r.lower / factor, "hi": r.upper / factor} if r.lower is not None and r.upper is not None else {}),
               **({"a": 1} if r.anomalous else {})} for r in runs]
    limits = [n / factor for n in thresholds(expected)]
    band = [x for v in values for x in (v.get("lo"), v.get("hi")) if x is not None]
    y_numbers = [v["v"] for v in values] + limits + band
    y_numbers = [n for n in y_numbers if math.isfinite(n)]
    y_axis = {"title": scale.label or None, "format": scale.format, "tickCount": 4, "grid": True}
    if scale.step:
        y_axis["tickMinStep"] = scale.step
    y = {"field": "v", "type": "quantitative", "scale": {"domain": _domain(y_numbers, scale.step), "zero": False, "nice": False},
         "axis": y_axis}
    x = {"field": "t", "type": "temporal", "title": None,
         "axis": {"labelOverlap": True, "tickCount": 5, "labelAngle": 0, "format": TIME_LABELS, "formatType": "time"}}
    tooltip = [{"field": "t", "type": "temporal", "title": "run", "format": "%a %Y-%m-%d %H:%M"},
               {"field": "v", "type": "quantitative", "title": scale.label or "value", "format": scale.format},
               {"field": "o", "type": "nominal", "title": "outcome"}]
    shapes = {name: shape for name, (shape, _) in MARKS.items()} | {"measured": "circle"}
    colours = {name: colour for name, (_, colour) in MARKS.items()} | {"measured": "#455a64"}
    layers: list[dict] = []
    if band:
        layers.append({"name": "band", "transform": [{"filter": "isValid(datum.lo)"}],
                       "mark": {"type": "area", "color": "#90caf9", "opacity": 0.45, "interpolate": "step-after"},
                       "encoding": {"x": x, "y": {**y, "field": "lo"}, "y2": {"field": "hi"},
                                    "tooltip": [tooltip[0], {"field": "lo", "title": "expected from", "format": scale.format},
                                                {"field": "hi", "title": "expected to", "format": scale.format}]}})
    layers.append({"name": "line", "mark": {"type": "line", "color": "#607d8b", "strokeWidth": 1}, "encoding": {"x": x, "y": y}})
    layers.append({"name": "runs", "mark": {"type": "point", "filled": True, "size": 36, "opacity": 1},
                   "encoding": {"x": x, "y": y, "tooltip": tooltip,
                                "shape": {"field": "o", "type": "nominal", "legend": None,
                                          "scale": {"domain": list(shapes), "range": list(shapes.values())}},
                                "color": {"field": "o", "type": "nominal", "legend": None,
                                          "scale": {"domain": list(colours), "range": list(colours.values())}}}})
    if any(r.anomalous for r in runs):
        layers.append({"name": "anomalies", "transform": [{"filter": "datum.a === 1"}],
                       "mark": {"type": "point", "shape": "circle", "filled": False, "size": 220, "strokeWidth": 2, "color": "#ef6c00"},
                       "encoding": {"x": x, "y": y, "tooltip": tooltip}})
    if limits:
        # the contract's words, and the line's value in the chart's unit when the chart converted it (an age in hours)
        words = [f"limit {threshold_words(expected, unit)}" + (f" ({n:,.4g} {scale.label})" if factor != 1 else "") for n in limits]
        layers.append({"name": "threshold", "data": {"values": [{"y": n, "label": text} for n, text in zip(limits, words)]},
                       "layer": [{"mark": {"type": "rule", "color": "#c62828", "strokeDash": [5, 3], "strokeWidth": 1.5},
                                  "encoding": {"y": {"field": "y", "type": "quantitative"}}},
                                 {"mark": {"type": "text", "align": "right", "baseline": "bottom", "dx": -2, "dy": -2,
                                           "color": "#c62828", "fontSize": 10, "x": "width"},
                                  "encoding": {"y": {"field": "y", "type": "quantitative"}, "text": {"field": "label"}}}]})
    return {"description": f"{title}: {scale.label or 'value'} per run, {len(runs)} runs"
                           + (", with the threshold" if limits else "") + (", with the expected band" if band else ""),
            "width": 420, "height": 120, "data": {"values": values}, "layer": layers,
            "config": {"view": {"stroke": None}, "axis": {"labelFontSize": 10, "titleFontSize": 10}}}


def spec_text(specification: dict) -> str:
    """The specification as the page's data block: compact JSON that cannot end the <script> holding it."""
    return json.dumps(specification, separators=(",", ":"), ensure_ascii=False).replace("<", "\\u003c")
