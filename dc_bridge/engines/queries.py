"""SQL that more than one engine's translation writes the same way: the query of a foreign key, a
number as exact SQL text, exact comparisons of bounds and thresholds, and the one judge of a SQL
metric's value."""

from __future__ import annotations

import math
from datetime import datetime, timedelta, timezone
from decimal import Decimal

from dc_bridge.contract.model import Threshold
from dc_bridge.contract.sql import exact_number, number_text, quote_identifier, sql_literal, view_name
from dc_bridge.contract.thresholds import Syntax, render
from dc_bridge.plan import checks as c
from dc_bridge.plan.checks import Check


def foreign_key_query(check: Check, p: c.ForeignKey, contract_id: str, table: str) -> str:
    """Rows of `table` whose non-null key has no match in the referenced model's view."""
    target = view_name(contract_id, p.to_model)
    on = " AND ".join(f"c.{quote_identifier(a)} = p.{quote_identifier(b)}" for a, b in zip(check.columns, p.to_columns))
    not_null = " AND ".join(f"c.{quote_identifier(a)} IS NOT NULL" for a in check.columns)
    return f"SELECT c.* FROM {table} AS c LEFT ANTI JOIN {target} AS p ON {on} WHERE {not_null}"


def not_in_set(column_sql: str, values) -> str:
    """The Spark SQL condition of a non-null value outside `values`, each an exact, inert literal
    (contract/sql.py `sql_literal`): what every engine counts when it cannot hand the values to its
    library as they are (a bigint beyond a Python-to-Java long, a float against a decimal column, NaN, text Soda would read)."""
    return f"{column_sql} IS NOT NULL AND NOT ({listed(column_sql, values)})"


def missing(column_sql: str, values) -> str:
    """The Spark SQL condition of a missing value: NULL, or one of `values` (exact, inert literals)."""
    if not values:
        return f"{column_sql} IS NULL"
    return f"{column_sql} IS NULL OR {listed(column_sql, values)}"


def listed(column_sql: str, values) -> str:
    """The value is one of `values`; a NaN among them as `isnan(value)`: Spark skips a cached table's
    batches by their smallest and largest value, which leave NaN out, so a filter `IN (NaN, ...)` over a
    cached DataFrame missed its NaN rows (GX's and the samples' queries filter; isnan is never pruned)."""
    nan = any(_is_nan(v) for v in values)
    others = [sql_literal(v) for v in values if not _is_nan(v)]
    parts = ([f"{column_sql} IN ({', '.join(others)})"] if others else []) + ([f"isnan({column_sql})"] if nan else [])
    return " OR ".join(parts)


def _is_nan(value) -> bool:
    return isinstance(value, float) and math.isnan(value) or isinstance(value, Decimal) and value.is_nan()


# a Python int PySpark hands to Java as a literal: a long; a larger one fails in py4j (NumberFormatException)
LONG_RANGE = range(-(2**63), 2**63)
# the integer bounds GX's and Soda's own range forms judge exactly: GX and Soda may read a bound, and GX a
# value, as a double, and a double holds every integer of magnitude below 2^53 and its neighbours; at +-2^53
# itself a value one beyond (2^53 + 1) rounds onto the bound and would pass, so those bounds take the exact query
DOUBLE_EXACT = range(-(2**53) + 1, 2**53)


def plain_literals(values) -> bool:
    """Values an engine's library may take as Python objects and compare exactly with any column:
    text and booleans, integers that fit a long. A float is a double literal (inexact against a
    decimal column), a larger integer crashes py4j; both go through `sql_literal`."""
    return all(isinstance(v, (str, bool)) or isinstance(v, int) and v in LONG_RANGE for v in values)


def retention_cutoff(now: datetime, p: c.Retention) -> int:
    """The run's clock minus the retention period, in microseconds since the epoch: a row whose
    `unix_micros(CAST(column AS TIMESTAMP))` is below it is expired (exact: a double of seconds
    rounds away microseconds far from 1970, and years 1 and 9999 are that far)."""
    aware = now if now.tzinfo is not None else now.replace(tzinfo=timezone.utc)
    return (aware - p.period - _EPOCH) // timedelta(microseconds=1)


_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


# ---------------------------------------------------------------------------------------------
# exact numbers: a contract's bound or threshold against the data's values (docs/mapping.md, "Exact numbers")

# Spark's numeric types as `typeof()` names them
NUMERIC_TYPEOF = "^(tinyint|smallint|int|bigint|float|double|decimal\\\\(.*\\\\))$"


def _double_number(value) -> str:
    return f"CAST({exact_number(value)} AS DOUBLE)"


def compare(subject: str, op: str, value) -> str:
    """`subject op value`, exact: a decimal comparison, and where Spark's decimal comparison overflows
    (a decimal(38,2) value against a bound of scale 3 needs 39 digits: Spark says NULL, and under ANSI
    mode raises NUMERIC_VALUE_OUT_OF_RANGE) the double one, which is then far from the bound's rounding.
    The column's value overflows only at 10^(38 - the bound's scale) or more: such a value is compared
    as a double before Spark casts it (a CASE evaluates only its branch), in both modes alike."""
    literal = exact_number(value)
    double = f"CAST({subject} AS DOUBLE) {op} {_double_number(value)}"
    scale = max(0, -Decimal(literal).as_tuple().exponent) if not literal.startswith("CAST") else 0
    if scale == 0:
        return f"COALESCE({subject} {op} {literal}, {double})"
    return f"COALESCE(CASE WHEN abs(CAST({subject} AS DOUBLE)) < 9e{37 - scale} THEN {subject} {op} {literal} ELSE {double} END, {double})"


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def outside_range(column_sql: str, p: c.ValueBetween) -> str:
    """The Spark SQL condition of a non-null value outside a range: numbers compared exactly (`compare`),
    other bounds (a date as text) as literals."""
    outside = []
    for value, strict, ops in ((p.min_value, p.strict_min, ("<=", "<")), (p.max_value, p.strict_max, (">=", ">"))):
        if value is None:
            continue
        op = ops[0] if strict else ops[1]
        outside.append(compare(column_sql, op, value) if _is_number(value) else f"{column_sql} {op} {sql_literal(value)}")
    return f"{column_sql} IS NOT NULL AND ({' OR '.join(outside)})"


_EXACT_SQL = Syntax(compare="{subject} {op} {value}", between="({subject} {low_op} {low} AND {subject} {high_op} {high})",
                    not_between="NOT {between}", number=exact_number, operators={"!=": "<>"})
_DOUBLE_SQL = Syntax(compare="{subject} {op} {value}", between="({subject} {low_op} {low} AND {subject} {high_op} {high})",
                     not_between="NOT {between}", number=_double_number, operators={"!=": "<>"})


def threshold_holds_sql(t: Threshold, subject: str) -> str:
    """The threshold as a Spark SQL condition on `subject`, exact like `compare` (the one SQL form of `holds_exactly`)."""
    return f"COALESCE({render(t, _EXACT_SQL, subject=subject)}, {render(t, _DOUBLE_SQL, subject=f'CAST({subject} AS DOUBLE)')})"


def threshold_holds_double_sql(t: Threshold, subject: str) -> str:
    """The threshold on `subject` as a double: what a judge of the double `CAST(subject AS DOUBLE)` says."""
    return render(t, _DOUBLE_SQL, subject=f"CAST({subject} AS DOUBLE)")


def holds_exactly(t: Threshold, value) -> bool:
    """`t.holds(value)` as Spark compares: a double against the threshold's numbers as doubles; an
    integer or decimal against them exactly (the threshold's floats as the decimals their text names),
    so `0.100000000000000001` is above `0.1` and 9007199254740993 above 9007199254740992."""
    bounds = ("value", "low", "high")
    if isinstance(value, float):
        return t.model_copy(update={k: float(getattr(t, k)) for k in bounds if getattr(t, k) is not None}).holds(value)
    exact = {k: Decimal(number_text(v)) if isinstance(v, float) else Decimal(v) for k in bounds if (v := getattr(t, k)) is not None}
    return t.model_copy(update=exact).holds(Decimal(value))


def metric_problem(value) -> str | None:
    """Why a SQL metric's value cannot be judged by a threshold (None when it can): NULL, a boolean,
    text (even `'7'`: a metric query must return a number), a date."""
    if value is None:
        return "the metric query returned NULL"
    if isinstance(value, (int, float, Decimal)) and not isinstance(value, bool):
        return None
    # the value itself is not shown: a metric over a pii column (`SELECT MAX(email)`) would put it in every report
    kind = {str: "text", bool: "a boolean"}.get(type(value), type(value).__name__)
    return f"the metric query returned {kind}, not a number (cast it to a number in the query)"


NAN_REASON = "the metric is NaN (not a number): no threshold holds for it"


def judge_metric(t: Threshold, value) -> tuple[str, float | None, str | None]:
    """(outcome, observed, reason) of a SQL metric's value: the rule every engine follows
    (docs/mapping.md, "SQL metrics"): a non-number is `error`, NaN is `failed`, infinities compare
    like any number, integers and decimals exactly."""
    problem = metric_problem(value)
    if problem is not None:
        return "error", None, problem
    if _is_nan(value):
        return "failed", None, NAN_REASON
    return ("passed" if holds_exactly(t, value) else "failed"), float(value), None


# what a NULL from `scalar_query` means, for an engine that reads no more than that number
SCALAR_NULL_REASON = ("the metric is NULL: the query returned NULL, a value that is not a number (text, a boolean), "
                      "or a number with more digits than a double that this engine, which reads metrics as doubles, "
                      "cannot judge exactly against the threshold")


def scalar_query(query: str, t: Threshold) -> str:
    """A metric query wrapped for an engine that reads its value as a double (Soda): the double, or
    NULL (`SCALAR_NULL_REASON`) for a value that is no number, and for a number whose double the
    threshold judges differently from the exact value (a decimal within a double's rounding of the
    threshold): never a quietly different outcome. (An error raised in the query would stop Soda's
    whole scan, which reads the rows outside its error handling.)"""
    numeric = f"typeof(v) RLIKE '{NUMERIC_TYPEOF}'"
    exact = f"(isnan(CAST(v AS DOUBLE)) OR ({threshold_holds_sql(t, 'v')}) = ({threshold_holds_double_sql(t, 'v')}))"
    return (f"SELECT CASE WHEN {numeric} AND {exact} THEN CAST(v AS DOUBLE) END "
            f"FROM (SELECT ({query.strip().rstrip(';')}) AS v) AS metric")
