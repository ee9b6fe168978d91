"""SQL that more than one engine's translation writes the same way: the query of a foreign key, a
number as exact SQL text, exact comparisons of bounds and thresholds, and the one judge of a SQL
metric's value."""

from __future__ import annotations

import math
from decimal import Decimal

from dc_bridge.contract.model import Threshold
from dc_bridge.contract.sql import quote_identifier, sql_literal, view_name
from dc_bridge.contract.thresholds import Syntax, render
from dc_bridge.plan import checks as c
from dc_bridge.plan.checks import Check


def foreign_key_query(check: Check, p: c.ForeignKey, contract_id: str, table: str) -> str:
    """Rows of `table` whose non-null key has no match in the referenced model's view."""
    target = view_name(contract_id, p.to_model)
    on = " AND ".join(f"c.{quote_identifier(a)} = p.{quote_identifier(b)}" for a, b in zip(check.columns, p.to_columns))
    not_null = " AND ".join(f"c.{quote_identifier(a)} IS NOT NULL" for a in check.columns)
    return f"SELECT c.* FROM {table} AS c LEFT ANTI JOIN {target} AS p ON {on} WHERE {not_null}"


def number_text(value) -> str:
    """A number as exact SQL / SodaCL text without an exponent: `5`, `0.5`, `31536000.0`, `0.00001`
    (`:g` alone keeps 6 digits, and SodaCL takes no `1e-05`)."""
    if isinstance(value, float):
        text = f"{value:g}"
        return text if "e" not in text and float(text) == value else format(Decimal(repr(value)), "f")
    return str(value)


# ---------------------------------------------------------------------------------------------
# exact numbers: a contract's bound or threshold against the data's values (docs/mapping.md, "Exact numbers")

# Spark's widest exact number: a decimal literal of more digits is refused
_MAX_DIGITS = 38
# Spark's numeric types as `typeof()` names them
NUMERIC_TYPEOF = "^(tinyint|smallint|int|bigint|float|double|decimal\\\\(.*\\\\))$"


def exact_number(value) -> str:
    """A contract number as a Spark SQL literal with the value the contract wrote: an integer as
    written (beyond a bigint Spark reads it as decimal(38,0)), a float as the decimal its shortest text
    names (`0.1` is decimal(1,1): exact against a decimal or integer column, and the same double
    against a double column). A float whose decimal needs more than Spark's 38 digits (`1e-300`) stays
    a double literal."""
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    text = number_text(value)
    digits = Decimal(text).as_tuple()
    scale = max(0, -digits.exponent)
    whole = max(0, len(digits.digits) + digits.exponent)
    return text if whole + scale <= _MAX_DIGITS else f"CAST('{value!r}' AS DOUBLE)"


def _double_number(value) -> str:
    return f"CAST({exact_number(value)} AS DOUBLE)"


def compare(subject: str, op: str, value) -> str:
    """`subject op value`, exact: a decimal comparison, and where Spark's decimal comparison overflows
    (a decimal(38,2) value against a bound of scale 3 needs 39 digits: Spark says NULL) the double one,
    which is then far from the bound's rounding."""
    return f"COALESCE({subject} {op} {exact_number(value)}, CAST({subject} AS DOUBLE) {op} {_double_number(value)})"


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
    if isinstance(value, float) and math.isnan(value) or isinstance(value, Decimal) and value.is_nan():
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
