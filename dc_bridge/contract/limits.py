"""The numbers a contract may give that every engine can run (lint code DCB151).

A number can read well and still not run: `.inf` or `.nan` is no SQL or SodaCL literal, 99999999999
years is no Python `timedelta` (nor a cut-off `now - duration` Spark can hold), an integer of 40
digits is no Spark number. Each such number is refused where it is read (a duration in durations.py,
a quality threshold in quality.py, a field's bounds, lengths and decimal precision in lint.py), so it
never reaches the plan or an engine.
"""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal, InvalidOperation
from typing import Any

# a quality threshold or a field's range bound: Spark SQL's widest exact number is decimal(38, 0)
MAX_NUMBER = 10**38 - 1
NUMBER_RANGE = "a finite number from -(10^38 - 1) to 10^38 - 1 (Spark's widest exact number, decimal(38,0))"
# a string length: Spark's length() is an int
MAX_LENGTH = 2**31 - 1
LENGTH_RANGE = f"a whole number from 0 to {MAX_LENGTH:,} (Spark's longest string)"
# a decimal's precision and scale: Spark's DecimalType
MAX_PRECISION = 38
PRECISION_RANGE = f"precision from 1 to {MAX_PRECISION}, scale from 0 to the precision (Spark's DecimalType)"


def every_digit_whole(precision: int, scale: int) -> bool:
    """A decimal whose digits are all before its point (decimal(38,0)): comparing it with a literal of one
    fraction digit (Soda's `0.0`) needs a digit more than Spark has, a failed query under ANSI, NULL without."""
    return precision - scale >= MAX_PRECISION
# a service level's duration: the run's time minus it is a cut-off that Python and Spark must hold
# (both stop at year 1); a thousand years stays far inside that for any run before year 3000
MAX_DURATION_YEARS = 1000
MAX_DURATION = timedelta(days=365 * MAX_DURATION_YEARS)
DURATION_RANGE = f"a duration from 0 to {MAX_DURATION_YEARS:,} years ({MAX_DURATION.days:,} days)"


def shown(value: Any) -> str:
    """A number as a message quotes it: as written, shortened when it is very long."""
    text = value if isinstance(value, str) else str(value)
    return text if len(text) <= 40 else f"{text[:20]}...{text[-8:]} ({len(text):,} characters)"


def number_problem(value: Any) -> str | None:
    """Why `value` (a number, or text that is one) cannot be a threshold or range bound (`is infinite`);
    None when it can, or when it is no number at all (other rules report that)."""
    exact = _exact(value)
    if exact is None:
        return None
    if exact.is_nan():
        return "is not a number (NaN)"
    if exact.is_infinite():
        return "is infinite"
    if exact.copy_abs() > MAX_NUMBER:
        return "has more digits than Spark's widest exact number (38)"
    return None


def length_problem(value: Any) -> str | None:
    """Why `value` cannot be a string length (`is negative`); None when it can or is no integer (other rules report that)."""
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    if value < 0:
        return "is negative"
    if value > MAX_LENGTH:
        return f"is longer than any Spark string ({MAX_LENGTH:,} characters)"
    return None


def _exact(value: Any) -> Decimal | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return Decimal(value)
    if isinstance(value, str):
        text = value.replace(",", "").replace("_", "").strip()
        try:
            return Decimal(text)
        except (InvalidOperation, ValueError):
            pass
        try:  # what Decimal refuses but float reads (`1e999999999999999999999`) is as large as float makes it
            return Decimal(float(text))
        except ValueError:
            return None
    return None
