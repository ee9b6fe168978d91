"""Which of a check's columns the DataFrame has, and how GX names a column of a Spark DataFrame.

A column path is a top-level column name (which may itself contain a dot: `e.mail`) or, for struct
children, `parent.child` (how plan/build.py names nested fields). A check on a column the data does not
have cannot be evaluated; both runners report it as `error` up front, rather than let the engine
fail. That matters for Soda, which fuses the metrics of all columns into one query, so a single
unknown column would otherwise turn every check of that query into an error.
"""

from __future__ import annotations

from typing import Iterable

from dc_bridge.plan.checks import kind_of

def has_column(schema, path: str, case_sensitive: bool = False) -> bool:
    """Whether a Spark StructType has `path`: a top-level name, or a dotted path into structs."""
    from pyspark.sql.types import StructType

    fold = (lambda text: text) if case_sensitive else str.lower
    for field in schema.fields:
        if fold(field.name) == fold(path):
            return True
        prefix = field.name + "."
        if isinstance(field.dataType, StructType) and fold(path).startswith(fold(prefix)):
            if has_column(field.dataType, path[len(prefix):], case_sensitive):
                return True
    return False


def missing_columns(df, columns: Iterable[str]) -> list[str]:
    case_sensitive = _case_sensitive(df)
    return [column for column in columns if not has_column(df.schema, column, case_sensitive)]


def _case_sensitive(df) -> bool:
    try:
        return str(df.sparkSession.conf.get("spark.sql.caseSensitive", "false")).lower() == "true"
    except Exception:
        return False


def unfit_message(df, check) -> str | None:
    """Why `check` cannot run on its column's type (a pattern on an array column), or None. Spark
    rejects such a comparison for the whole query, and Soda fuses the metrics of all columns into
    one query: reported up front, it stays this check's error."""
    from pyspark.sql.types import ArrayType, MapType, StructType

    if not kind_of(check).single_value or check.column is None:
        return None
    data_type = _column_type(df.schema, check.column, _case_sensitive(df))
    if isinstance(data_type, (ArrayType, MapType, StructType)):
        return f"column `{check.column}` is {data_type.simpleString()}; a {check.kind} check needs a single value per row"
    return None


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


def unrunnable_message(df, check) -> str | None:
    """Why an engine cannot send `check` to the data: a column it names is missing (unless the check
    is about presence itself), or its column's type takes no single-value comparison. None: it can."""
    missing = [] if kind_of(check).presence else missing_columns(df, check.columns)
    return missing_message(missing) if missing else unfit_message(df, check)


def missing_message(columns: list[str]) -> str:
    names = ", ".join(f"`{c}`" for c in columns)
    return f"column {names} is not in the data" if len(columns) == 1 else f"columns {names} are not in the data"


def gx_column_name(df, column: str) -> str:
    """GX lists a top-level Spark column whose name contains a dot as `` `e.mail` `` (a bare
    `e.mail` means field `mail` of struct `e`): its table-level expectations (column exists, column
    type) must name it that way."""
    if "." in column and not column.startswith("`") and column in df.columns:
        return f"`{column}`"
    return column
