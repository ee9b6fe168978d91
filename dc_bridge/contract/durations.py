"""Durations as the standards write them: ISO 8601 (`PT24H`, `P1D`, `P1Y`) and simple (`25h`, `1 year`).

Years count as 365 days and months as 30 days: service levels are thresholds, not calendars.
A duration that reads but cannot run (infinite, NaN, negative, longer than `MAX_DURATION`) raises
`DurationOutOfRange`, which lint reports as DCB151; no other exception leaves `parse_duration`.
"""

from __future__ import annotations

import math
import re
from datetime import timedelta

from dc_bridge.contract.limits import DURATION_RANGE, MAX_DURATION, shown

_ISO = re.compile(
    r"^P(?!$)(?:(?P<years>\d+(?:\.\d+)?)Y)?(?:(?P<months>\d+(?:\.\d+)?)M)?(?:(?P<weeks>\d+(?:\.\d+)?)W)?"
    r"(?:(?P<days>\d+(?:\.\d+)?)D)?(?:T(?=\d)(?:(?P<hours>\d+(?:\.\d+)?)H)?(?:(?P<minutes>\d+(?:\.\d+)?)M)?"
    r"(?:(?P<seconds>\d+(?:\.\d+)?)S)?)?$",
    re.IGNORECASE,
)

# unit spelling -> seconds; ODCS SLA units (`d`, `day`, `days`, `y`, `yr`, `years`, `hr`) included
_UNIT_SECONDS: dict[str, float] = {}
for _names, _seconds in [
    (("ms", "millisecond", "milliseconds"), 0.001),
    (("s", "sec", "secs", "second", "seconds"), 1),
    (("m", "min", "mins", "minute", "minutes"), 60),
    (("h", "hr", "hrs", "hour", "hours"), 3600),
    (("d", "day", "days"), 86400),
    (("w", "wk", "week", "weeks"), 7 * 86400),
    (("mo", "mon", "month", "months"), 30 * 86400),
    (("y", "yr", "yrs", "year", "years"), 365 * 86400),
]:
    for _name in _names:
        _UNIT_SECONDS[_name] = _seconds

_SIMPLE = re.compile(r"^\s*(?P<amount>\d+(?:\.\d+)?)\s*(?P<unit>[a-z]+)\s*$", re.IGNORECASE)


class DurationOutOfRange(ValueError):
    """A duration that reads but no check can run: `DURATION_RANGE` says what can."""


def parse_duration(text: str | int | float, unit: str | None = None) -> timedelta:
    """Parse a duration, or a number with a separate unit (ODCS `value` + `unit`).
    Raises ValueError (DurationOutOfRange when it reads but cannot run)."""
    if isinstance(text, bool):
        raise ValueError(f"{text!r} is not a duration")
    if isinstance(text, (int, float)):
        if unit is None:
            raise ValueError(f"{text} has no unit")
        return _from_unit(_amount(text), unit, f"{shown(text)} {unit}")
    if not isinstance(text, str):
        raise ValueError(f"a {type(text).__name__.removeprefix('Yaml').lower()} is not a duration")
    iso = _ISO.match(text.strip())
    if iso:
        parts = {k: float(v) for k, v in iso.groupdict().items() if v}
        days = parts.get("years", 0) * 365 + parts.get("months", 0) * 30 + parts.get("weeks", 0) * 7 + parts.get("days", 0)
        _within(days * 86400 + parts.get("hours", 0) * 3600 + parts.get("minutes", 0) * 60 + parts.get("seconds", 0), shown(text))
        return timedelta(days=days, hours=parts.get("hours", 0), minutes=parts.get("minutes", 0), seconds=parts.get("seconds", 0))
    simple = _SIMPLE.match(text)
    if simple:
        return _from_unit(float(simple["amount"]), simple["unit"], shown(text))
    if unit is not None:
        try:
            amount = float(text)
        except ValueError:
            pass
        else:
            return _from_unit(amount, unit, f"{shown(text)} {unit}")
    raise ValueError(f"{text!r} is not an ISO 8601 duration (PT24H, P1D) or a simple duration (25h, 30d, 1 year)")


def _amount(number: int | float) -> float:
    try:
        return float(number)
    except OverflowError:  # an integer too large for a float is as out of range as infinity
        return math.inf if number > 0 else -math.inf


def _from_unit(amount: float, unit: str, written: str) -> timedelta:
    seconds = _UNIT_SECONDS.get(unit.strip().lower())
    if seconds is None:
        raise ValueError(f"unknown time unit {unit!r}")
    total = amount * seconds
    _within(total, written)
    return timedelta(seconds=total)


def _within(seconds: float, written: str) -> None:
    """Raise DurationOutOfRange unless `seconds` is a duration a check can run; `written` is the duration as the contract wrote it."""
    if math.isnan(seconds):
        why = "is not a number (NaN)"
    elif math.isinf(seconds):
        why = "is negative" if seconds < 0 else "is infinite" if "inf" in written.lower() else "is too long to count"
    elif seconds < 0:
        why = "is negative"
    elif seconds > MAX_DURATION.total_seconds():
        why = f"is {seconds / 86400 / 365:,.0f} years"
    else:
        return
    raise DurationOutOfRange(f"`{written}` {why}; a service level needs {DURATION_RANGE}")
