"""Durations as the standards write them: ISO 8601 (`PT24H`, `P1D`, `P1Y`) and simple (`25h`, `1 year`).

Years count as 365 days and months as 30 days: service levels are thresholds, not calendars.
"""

from __future__ import annotations

import re
from datetime import timedelta

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


def parse_duration(text: str | int | float, unit: str | None = None) -> timedelta:
    """Parse a duration, or a number with a separate unit (ODCS `value` + `unit`). Raises ValueError."""
    if isinstance(text, bool):
        raise ValueError(f"{text!r} is not a duration")
    if isinstance(text, (int, float)):
        if unit is None:
            raise ValueError(f"{text} has no unit")
        return _from_unit(float(text), unit)
    if not isinstance(text, str):
        raise ValueError(f"a {type(text).__name__.removeprefix('Yaml').lower()} is not a duration")
    iso = _ISO.match(text.strip())
    if iso:
        parts = {k: float(v) for k, v in iso.groupdict().items() if v}
        return timedelta(
            days=parts.get("years", 0) * 365 + parts.get("months", 0) * 30 + parts.get("weeks", 0) * 7 + parts.get("days", 0),
            hours=parts.get("hours", 0),
            minutes=parts.get("minutes", 0),
            seconds=parts.get("seconds", 0),
        )
    simple = _SIMPLE.match(text)
    if simple:
        return _from_unit(float(simple["amount"]), simple["unit"])
    if unit is not None:
        try:
            return _from_unit(float(text), unit)
        except ValueError:
            pass
    raise ValueError(f"{text!r} is not an ISO 8601 duration (PT24H, P1D) or a simple duration (25h, 30d, 1 year)")


def _from_unit(amount: float, unit: str) -> timedelta:
    seconds = _UNIT_SECONDS.get(unit.strip().lower())
    if seconds is None:
        raise ValueError(f"unknown time unit {unit!r}")
    return timedelta(seconds=amount * seconds)
