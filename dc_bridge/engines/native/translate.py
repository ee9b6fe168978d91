"""The native engine's form of each check: how it is evaluated, and for row-level checks the Spark
Column that is true on a violating row (shared with runner/samples.py, which fetches failing values
with the same conditions)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Callable

from dc_bridge.contract.sql import quote_identifier
from dc_bridge.engines.engine import Unsupported, from_history, not_executable, unsupported
from dc_bridge.engines.queries import outside_range
from dc_bridge.plan import checks as c
from dc_bridge.plan.checks import Check


def column(name: str):
    from pyspark.sql import functions as F

    return F.col(quote_identifier(name))


def _epoch(expression):
    return expression.cast("timestamp").cast("double")


def _outside_range(check: Check, p: c.ValueBetween):
    """Exact, as in every engine (engines/queries.py `outside_range`): a float bound is the decimal its
    text names, so `0.100000000000000001` in a decimal(38,18) column is above `maximum: 0.1`."""
    from pyspark.sql import functions as F

    return F.expr(outside_range(quote_identifier(check.column), p))


def _bad_length(check: Check, p: c.LengthBetween):
    from pyspark.sql import functions as F

    length = F.length(column(check.column))
    bad = None
    if p.min_length is not None:
        bad = length < p.min_length
    if p.max_length is not None:
        bad = (length > p.max_length) if bad is None else bad | (length > p.max_length)
    return length.isNotNull() & bad


def _missing(check: Check, p: c.NotNull):
    value = column(check.column)
    return value.isNull() | value.isin(list(p.missing_values)) if p.missing_values else value.isNull()


def _late(check: Check, p: c.Latency, now: datetime):
    processed, source = (column(name) for name in check.columns)
    return (_epoch(processed) - _epoch(source)) > p.max_latency.total_seconds()


def _expired(check: Check, p: c.Retention, now: datetime):
    from pyspark.sql import functions as F

    return _epoch(column(check.column)) < F.lit(now.timestamp() - p.period.total_seconds())


# kind -> the rows that violate a check of that kind, as a Column (one count each in the fused aggregation)
VIOLATIONS: dict[str, Callable[..., Any]] = {
    "not_null": lambda check, p, now: _missing(check, p),
    "regex": lambda check, p, now: column(check.column).isNotNull() & ~column(check.column).rlike(p.pattern),
    "in_set": lambda check, p, now: column(check.column).isNotNull() & ~column(check.column).isin(list(p.values)),
    "length_between": lambda check, p, now: _bad_length(check, p),
    "value_between": lambda check, p, now: _outside_range(check, p),
    "latency": _late,
    "retention": _expired,
}
# kind -> how the native engine evaluates it, or why it does not; every kind has an entry (tests/test_kinds.py)
TRANSLATIONS: dict[str, str | Callable[..., Unsupported]] = {
    **{kind: "count in the fused aggregation" for kind in VIOLATIONS},
    "freshness": "max in the fused aggregation",
    "row_count": "rows of the fused aggregation",
    "unique": "grouping",
    "unique_combination": "grouping",
    "foreign_key": "anti join",
    "sql_metric": "query",
    "frequency": "query",
    "column_exists": "schema",
    "column_type": "schema",
    "custom_gx": unsupported("a custom GX check runs in GX only"),
    "custom_soda": unsupported("a custom Soda check runs in Soda only"),
    "availability": from_history,
    "error_rate": from_history,
    "not_executable": not_executable,
}


def translate_check(check: Check, contract_id: str) -> Check | Unsupported:
    """The check itself when the native engine evaluates it (its run reads the params), else why not."""
    how = TRANSLATIONS[check.kind]
    return check if isinstance(how, str) else how(check)
