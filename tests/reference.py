"""The number docs/mapping.md defines for a check, computed in Python from the model's rows.

The engine-count and property tests compare every engine with this reference. It reads the check
(its params, columns and unit) and the rows PySpark collects, and counts with Python's own means:
`re.search`, `len`, `Decimal`, set membership, `collections.Counter`. It is written from the
semantics in docs/mapping.md ("Semantics, check by check") and docs/contracts.md, not from an
engine: no Spark Column or SQL of `engines/native/translate.py` (or any engine) is evaluated here,
so an engine is never compared with a copy of itself. The test tables are a few dozen rows.

Where Python and Spark read a value differently, the reference follows Spark, which every engine runs on:
- NaN: Spark orders NaN above every number (`NaN > 100` holds) and groups the NaNs as one value
  (Spark SQL reference, "NaN Semantics"); every Python comparison with NaN is false. docs/mapping.md
  says this only for SQL metrics (NaN fails them); for ranges and uniqueness it follows from Spark.
- A bound against a double column is compared as a double; against an integer or decimal column
  exactly, the bound being the decimal its text names (docs/mapping.md "Exact numbers").
- A regular expression is Java's (java.util.regex, what Spark's `rlike` runs), evaluated with
  Python's `re` only where the two agree (`python_regex`).
"""

from __future__ import annotations

import math
import re
import warnings
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from itertools import pairwise
from typing import Any

from dc_bridge.plan import checks as c


@dataclass(frozen=True)
class Rows:
    """A model's rows as PySpark collects them: None for null, Decimal, naive local datetimes."""

    names: tuple[str, ...]
    rows: tuple[tuple, ...]

    @classmethod
    def of(cls, df) -> Rows:
        return cls(tuple(df.columns), tuple(tuple(row) for row in df.collect()))

    def column(self, name: str) -> list:
        at = self.names.index(name)
        return [row[at] for row in self.rows]

    def __len__(self) -> int:
        return len(self.rows)


def reference(check: c.Check, rows: Rows, *, now: datetime | None = None, models: Mapping[str, Rows] | None = None) -> float | None:
    """The check's number (rows, their percent of all rows, or the measured value), or None for a
    check without one here (schema, custom and SQL checks: the tests judge those themselves).
    `now`: the run's start, for freshness and retention; `models`: the rows of referenced models."""
    kind = type(check.params)
    if kind in VALUES:
        return VALUES[kind](check, rows, now)
    if kind not in VIOLATING:
        return None
    n = VIOLATING[kind](check, rows, now, models or {})
    if check.unit == "percent":
        return 100.0 * n / len(rows) if len(rows) else 0.0
    return float(n)


def same(a: float | None, b: float | None) -> bool:
    """Two observed numbers agree (None only with None)."""
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-6)


# ---------------------------------------------------------------------------------------------
# rows that violate a check: "Value constraints never look at null values; required is what forbids nulls"


def _missing(check, rows, now, models) -> int:
    """Null, or one of the listed missing values."""
    listed = set(check.params.missing_values)
    return sum(1 for value in rows.column(check.column) if value is None or value in listed)


def _duplicated(check, rows, now, models) -> int:
    """Duplicates are rows: every row whose key (all columns non-null) occurs more than once."""
    keys = Counter(tuple(_group(v) for v in key) for key in zip(*(rows.column(name) for name in check.columns))
                   if not any(v is None for v in key))
    return sum(n for n in keys.values() if n > 1)


def _unmatched(check, rows, now, models) -> int:
    """A pattern is a search, anchored only by `^` / `$`."""
    pattern = python_regex(check.params.pattern)
    return sum(1 for value in _present(rows, check.column) if not pattern.search(_agreeing(value)))


def _outside_set(check, rows, now, models) -> int:
    allowed = set(check.params.values)
    return sum(1 for value in _present(rows, check.column) if value not in allowed)


def _bad_length(check, rows, now, models) -> int:
    """Lengths (characters) are inclusive on both ends."""
    p = check.params
    return sum(1 for value in _present(rows, check.column)
               if (p.min_length is not None and len(value) < p.min_length) or (p.max_length is not None and len(value) > p.max_length))


def _outside_range(check, rows, now, models) -> int:
    """minimum / maximum inclusive, exclusiveMinimum / exclusiveMaximum (strict) exclusive."""
    p = check.params

    def outside(value) -> bool:
        below = p.min_value is not None and _order(value, p.min_value) <= (0 if p.strict_min else -1)
        above = p.max_value is not None and _order(value, p.max_value) >= (0 if p.strict_max else 1)
        return below or above

    return sum(1 for value in _present(rows, check.column) if outside(value))


def _late(check, rows, now, models) -> int:
    """The processed timestamp (the check's first column) more than the latency after the source one."""
    limit = check.params.max_latency.total_seconds()
    return sum(1 for late, early in zip(rows.column(check.columns[0]), rows.column(check.params.source_column))
               if late is not None and early is not None and _epoch(late) - _epoch(early) > limit)


def _expired(check, rows, now, models) -> int:
    """Older than now minus the retention period."""
    cutoff = (now - check.params.period).timestamp()
    return sum(1 for value in _present(rows, check.column) if _epoch(value) < cutoff)


def _orphans(check, rows, now, models) -> int:
    """A non-null key (all its columns) with no equal key in the referenced model."""
    p = check.params
    parent = models[p.to_model]
    known = set(zip(*(parent.column(name) for name in p.to_columns)))
    return sum(1 for key in zip(*(rows.column(name) for name in check.columns))
               if not any(v is None for v in key) and key not in known)


VIOLATING: dict[type, Callable[..., int]] = {
    c.NotNull: _missing,
    c.Unique: _duplicated,
    c.Regex: _unmatched,
    c.InSet: _outside_set,
    c.LengthBetween: _bad_length,
    c.ValueBetween: _outside_range,
    c.Latency: _late,
    c.Retention: _expired,
    c.ForeignKey: _orphans,
}


# ---------------------------------------------------------------------------------------------
# measured values


def _age(check, rows, now) -> float | None:
    """now minus the newest timestamp, in seconds; a date is fresh until its day ends."""
    newest = max(_present(rows, check.column), default=None)
    if newest is None:
        return None
    if not isinstance(newest, datetime):
        newest = datetime.combine(newest, datetime.max.time())
    return (now - newest.astimezone()).total_seconds()


def _longest_gap(check, rows, now) -> float | None:
    """The longest time between two consecutive distinct updates; none with fewer than two."""
    updates = sorted({_epoch(value) for value in _present(rows, check.column)})
    return max((b - a for a, b in pairwise(updates)), default=None)


VALUES: dict[type, Callable[..., float | None]] = {
    c.RowCount: lambda check, rows, now: float(len(rows)),
    c.Freshness: _age,
    c.Frequency: _longest_gap,
}


# ---------------------------------------------------------------------------------------------
# values as Spark reads them


def _present(rows: Rows, name: str) -> list:
    return [value for value in rows.column(name) if value is not None]


_NAN = object()  # the one group Spark puts every NaN in


def _group(value):
    return _NAN if isinstance(value, float) and math.isnan(value) else value


def _order(value, bound) -> int:
    """-1, 0 or 1 as `value` is below, at or above `bound`: a double as a double (NaN above every
    number), an integer or decimal exactly against the decimal the bound's text names (`0.1` is 0.1)."""
    if isinstance(value, float):
        if math.isnan(value):
            return 1
        bound = float(bound)
    else:
        value, bound = Decimal(value), Decimal(repr(bound)) if isinstance(bound, float) else Decimal(bound)
    return (value > bound) - (value < bound)


def _epoch(value: datetime | date) -> float:
    """Seconds since 1970 of a collected timestamp (naive local time) or date (its local midnight)."""
    return (value if isinstance(value, datetime) else datetime.combine(value, datetime.min.time())).timestamp()


# ---------------------------------------------------------------------------------------------
# Java's regular expressions in Python's re


def python_regex(pattern: str) -> re.Pattern:
    """`pattern` (java.util.regex) as a Python pattern that matches the same values, for the syntax
    both share: literals, classes, groups, alternation, greedy quantifiers, `^`, `$`, `\\d`, `\\s`,
    `(?:...)`, `(?=...)`, and Java's `\\Q...\\E` quote (written out as escaped text, which is what
    Java does). Refused here, not guessed: a class inside a class (Java: a union; Python: a `[`),
    the class operators `&&`, `--`, `||`, `~~` (Java: `&&` intersects; Python warns), and escapes
    Python's `re` does not know (`\\p{...}`, `\\h`, `\\x{...}`: re.error). The remaining differences
    lie in which characters end a line or are a space or a word character (`$`, `.`, `\\s`, `\\w`):
    Java's are ASCII, Python's Unicode, so the reference only matches printable ASCII (`_agreeing`)."""
    out, at, in_class = [], 0, False
    while at < len(pattern):
        if pattern.startswith("\\Q", at):
            end = pattern.find("\\E", at + 2)
            end = len(pattern) if end < 0 else end
            out.append(re.escape(pattern[at + 2:end]))
            at = end + 2
            continue
        piece = pattern[at:at + 2] if pattern[at] == "\\" else pattern[at]
        if piece == "[":
            if in_class:
                raise ValueError(f"a class inside a class, which Java and Python read differently: {pattern!r}")
            in_class = True
        elif piece == "]":
            in_class = False
        out.append(piece)
        at += len(piece)
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)  # Python's warning for Java's class operators
        return re.compile("".join(out))


def _agreeing(value: Any) -> str:
    """A value Java's and Python's regular expressions read alike: printable ASCII."""
    assert isinstance(value, str) and all(" " <= ch <= "~" for ch in value), \
        f"{value!r}: Java and Python differ on line ends, spaces and word characters beyond printable ASCII"
    return value
