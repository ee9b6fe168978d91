"""Which of a check's columns the DataFrame has, and how GX names a column of a Spark DataFrame.

A column path is a top-level column name (which may itself contain a dot: `e.mail`) or, for struct
children, `parent.child` (how plan/build.py names nested fields). Every runner asks `unrunnable`
before it sends a check to its engine, and reports what it says up front, rather than let the engine
fail. That matters for Soda, which fuses the metrics of all columns into one query, so a single
unknown column would otherwise turn every check of that query into an error.

- A column the check names is not in the data: `failed`, with the reason naming the column. That is
  a judgement about the data (the contract says the column is there, and it is not), like the
  column's own `exists` check, never `passed` and never `error` (which a CI reads as "the tool
  broke"). docs/reliability.md, "Fail closed".
- The column is there, but its type takes no such check (a pattern on an array column): `error`.
  The tool could not judge the check; the column's `type` check, where the contract states a
  type, is what fails.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Iterable, Literal

from dc_bridge.contract.limits import every_digit_whole
from dc_bridge.contract.sql import query_columns
from dc_bridge.plan.checks import CheckPlan, ForeignKey, ValueBetween, kind_of


def has_column(schema, path: str, case_sensitive: bool = False) -> bool:
    """Whether a Spark StructType has `path`: a top-level name, or a dotted path into structs."""
    return _column_type(schema, path, case_sensitive) is not None


def missing_columns(df, columns: Iterable[str]) -> list[str]:
    # a name found as written is there in either mode: the session's setting (a call into the JVM, which a split
    # of many checks made per check) is asked only for a name that is not
    lacking = [column for column in columns if not has_column(df.schema, column, True)]
    if not lacking or _case_sensitive(df):
        return lacking
    return [column for column in lacking if not has_column(df.schema, column, False)]


def _case_sensitive(df) -> bool:
    try:
        return str(df.sparkSession.conf.get("spark.sql.caseSensitive", "false")).lower() == "true"
    except Exception:
        return False


def unfit_message(df, check) -> str | None:
    """Why `check` cannot run on its column's type (a pattern on an array column), or None. Spark
    rejects such a comparison for the whole query, and Soda fuses the metrics of all columns into
    one query: reported up front, it stays this check's error."""
    from pyspark.sql.types import ArrayType, MapType, StringType, StructType

    if not kind_of(check).single_value or check.column is None:
        return None
    data_type = column_type(df, check.column)
    if isinstance(data_type, (ArrayType, MapType, StructType)):
        return f"column `{check.column}` is {data_type.simpleString()}; a {check.kind} check needs a single value per row"
    if isinstance(check.params, ValueBetween) and isinstance(data_type, StringType) and any(
            _is_number(bound) for bound in (check.params.min_value, check.params.max_value)):
        # Spark 3.5 converts each text to a number (a value that does not convert is NULL and passes), Spark 4's
        # ANSI mode fails the whole query (all of Soda's checks of the model): neither is a judgement of the data
        return (f"column `{check.column}` holds text; a range with numeric bounds needs a number column "
                f"(its type check says what the data holds)")
    return None


def _is_number(bound) -> bool:
    """A numeric bound, also one quoted to keep its digits (`"0.01"`); a date bound is text."""
    if isinstance(bound, (int, float)) and not isinstance(bound, bool):
        return True
    try:
        return isinstance(bound, str) and Decimal(bound).is_finite()
    except ArithmeticError:
        return False


def _column_type(schema, path: str, case_sensitive: bool):
    from pyspark.sql.types import StructType

    fold = (lambda text: text) if case_sensitive else str.lower
    for field in schema.fields:
        if fold(field.name) == fold(path):
            return field.dataType
        prefix = field.name + "."
        if isinstance(field.dataType, StructType) and fold(path).startswith(fold(prefix)):
            found = _column_type(field.dataType, path[len(prefix):], case_sensitive)
            if found is not None:
                return found
    return None


@dataclass(frozen=True)
class Unrunnable:
    """Why an engine does not send a check to the data, and the check's outcome for it."""
    outcome: Literal["failed", "error"]
    reason: str


def unrunnable(df, check) -> Unrunnable | None:
    """`failed` when a column the check names is missing (unless the check is about presence
    itself, which the engine evaluates); `error` when its column's type takes no single-value
    comparison. None: the engine can run it."""
    missing = [] if kind_of(check).presence else missing_columns(df, check.columns)
    if missing:
        return Unrunnable("failed", missing_message(missing))
    unfit = unfit_message(df, check)
    return Unrunnable("error", unfit) if unfit else None


def missing_message(columns: list[str], model: str | None = None) -> str:
    """The reason of a check on missing columns: which ones (of which model, when not the check's own)."""
    names = ", ".join(f"`{c}`" for c in columns)
    of = f" of `{model}`" if model else ""
    return f"column {names}{of} is not in the data" if len(columns) == 1 else f"columns {names}{of} are not in the data"


def absent_references(checks, frames: dict) -> dict[str, str]:
    """check id -> why it fails before any engine runs: it reads a column, beyond its own columns,
    that the contract declares and the data lacks. A foreign key whose referenced column is not in
    the referenced model's data; a SQL check whose query names a column of its model that is not
    in the data. An engine would fail on the whole query (`UNRESOLVED_COLUMN`): a judgement about
    the data, reported as `failed` like the checks on the column itself (`unrunnable`)."""
    checks = list(checks)
    declared: dict[str, set[str]] = {}
    for check in checks:
        if kind_of(check).presence and check.column is not None:
            declared.setdefault(check.model, set()).add(check.column)
    found: dict[str, str] = {}
    for check in checks:
        if check.model not in frames or missing_columns(frames[check.model], check.columns):
            continue  # its own column is missing: every engine says so itself (`unrunnable`)
        p = check.params
        if isinstance(p, ForeignKey) and p.to_model in frames:
            missing = missing_columns(frames[p.to_model], p.to_columns)
            if missing:
                found[check.id] = f"{missing_message(missing, p.to_model)}, which the foreign key references"
                continue
        query = getattr(check.params, "query", None)
        if isinstance(query, str):
            lower = {name.lower() for name in query_columns(query)}
            named = sorted(c for c in declared.get(check.model, ()) if c.lower() in lower)
            missing = missing_columns(frames[check.model], named)
            if missing:
                found[check.id] = f"{missing_message(missing)}, which the query reads"
    return found


def column_type(df, path: str):
    """The Spark type of column `path` (a top-level name or a dotted path into structs), or None."""
    return _column_type(df.schema, path, _case_sensitive(df))


def exact_ranges(plan: CheckPlan, frames: dict) -> CheckPlan:
    """`plan` with every range on a column the data holds as a decimal of 38 integer digits
    (`decimal(38,0)`) marked `exact_only`: Soda reads `valid min: 0` as a float and writes `0.0`, and
    comparing that decimal(1,1) literal with the column needs 39 digits (a failed query under ANSI
    mode, a row not counted without it). Known once the data is: a run's translation (docs/mapping.md)."""
    def wide(check) -> bool:
        kind = column_type(frames[check.model], check.column) if check.model in frames and check.column else None
        return every_digit_whole(getattr(kind, "precision", 0), getattr(kind, "scale", 0))

    checks = tuple(replace(check, params=replace(check.params, exact_only=True))
                   if isinstance(check.params, ValueBetween) and not check.params.exact_only and wide(check) else check
                   for check in plan.checks)
    return plan if checks == plan.checks else replace(plan, checks=checks)


def gx_listed_name(column: str) -> str:
    """How GX lists a top-level Spark column: `` `e.mail` `` when its name contains a dot (a bare
    `e.mail` means field `mail` of struct `e`). The compiled suite's table-level expectations (column
    exists, column type) name a contract's field so: a field is a top-level column of that name."""
    return f"`{column}`" if "." in column else column


def gx_column_name(df, column: str) -> str:
    """The name a table-level expectation must use on the data at hand, from either form of `column`:
    the listed form where the data has a top-level column of that name, else the bare path (a field of
    a struct, which dc-bridge reads a dotted name as when no such column exists)."""
    name = column[1:-1] if len(column) > 2 and column[0] == column[-1] == "`" else column
    if "." not in name:
        return column
    return gx_listed_name(name) if name in df.columns else name
