"""A `column_type` check on a Spark type: the column's own type and the types of its nested elements
(array items, struct fields, map keys and values), the same rule in every engine.

A type matches an allowed entry when, lower-cased and without spaces, it equals the entry
(`decimal(10,2)`, `array<bigint>`) or its base name does (`decimal`, `int`). The type's text is
PySpark's `simpleString` (never shortened in Python), the same text as SQL's `typeof`.

The native engine judges the whole check on `DataFrame.schema` (`type_problem`). GX and Soda compare a
top-level type their own way and run `nested_type_query` for the rest: a query over no rows (`LIMIT 0`,
one aggregate row) whose `typeof` of each nested element names its type without reading any data. Such
a query cannot name a struct field the data lacks, or take items of something that is not an array:
`shape_problem` finds those first, and the runners report them as `failed` without sending the query.
"""

from __future__ import annotations

from dc_bridge.contract.sql import quote_identifier
from dc_bridge.plan import checks as c

_STEP_NAMES = {"items": "items", "keys": "keys", "values": "values"}


def path_text(path: tuple) -> str:
    """(("field", "a"), ("items",)) -> `fields.a.items`."""
    return ".".join(f"fields.{step[1]}" if step[0] == "field" else step[0] for step in path) or "(column)"


def matches(actual: str, allowed: tuple[str, ...]) -> bool:
    text = actual.lower().replace(" ", "")
    base = text.split("(", 1)[0].split("<", 1)[0]
    return text in allowed or base in allowed


def top_allowed(params: c.ColumnType) -> tuple[str, ...]:
    return (params.spark_type.lower().replace(" ", ""),) if params.exact else tuple(params.compatible)


def _child(data_type, step: tuple):
    """The Spark type one step below `data_type`, or (None, why)."""
    from pyspark.sql.types import ArrayType, MapType, StructType

    kind = step[0]
    if kind == "items":
        return (data_type.elementType, None) if isinstance(data_type, ArrayType) else (None, "is not an array")
    if kind in ("keys", "values"):
        if not isinstance(data_type, MapType):
            return None, "is not a map"
        return (data_type.keyType if kind == "keys" else data_type.valueType), None
    if not isinstance(data_type, StructType):
        return None, "is not a struct"
    exact = [f for f in data_type.fields if f.name == step[1]]
    folded = exact or [f for f in data_type.fields if f.name.lower() == step[1].lower()]
    if not folded:
        return None, f"has no field `{step[1]}` (fields: {', '.join(f.name for f in data_type.fields) or 'none'})"
    return folded[0].dataType, None


def _walk(data_type, path: tuple):
    """(type at `path`, None) or (None, message about the first step that does not exist)."""
    current, walked = data_type, ()
    for step in path:
        found, why = _child(current, step)
        if found is None:
            where = f"`{path_text(walked)}`" if walked else "the column"
            return None, f"{where} {why}"
        current, walked = found, walked + (step,)
    return current, None


def shape_problem(data_type, params: c.ColumnType) -> str | None:
    """Why a nested element the contract types is not in the data (a struct without the field, items
    of something that is no array, ...), or None: every nested path exists."""
    for path, _ in params.nested:
        _, why = _walk(data_type, path)
        if why is not None:
            return f"`{path_text(path)}` is not in the data: {why}"
    return None


def type_problem(data_type, params: c.ColumnType) -> str | None:
    """Why the column's type does not satisfy the check, or None: the column's own type, then each
    nested element's."""
    actual = data_type.simpleString()
    if not matches(actual, top_allowed(params)):
        return f"the column is {actual}"
    shape = shape_problem(data_type, params)
    if shape:
        return shape
    for path, allowed in params.nested:
        found, _ = _walk(data_type, path)
        if not matches(found.simpleString(), allowed):
            where = f"`{path_text(path)}`" if path else "the column"  # no steps: the logical type beside a physical one
            return f"{where} is {found.simpleString()}; the contract allows {' or '.join(allowed)}"
    return None


def needs_query(params: c.ColumnType) -> bool:
    """Whether the check needs `nested_type_query` beside the engine's own top-level type comparison:
    nested elements, or an exact type with parameters (`decimal(10,2)`, `array<bigint>`) that GX
    compares by its class only (`DecimalType`, `ArrayType`)."""
    return bool(params.nested) or (params.exact and any(ch in params.spark_type for ch in "(<"))


def nested_type_query(column: str, params: c.ColumnType, table: str, *, include_top: bool) -> str:
    """SQL over `table` that returns one row when a type is wrong and none when every type is right;
    it reads no data (`LIMIT 0`: the one row of an aggregate over nothing). `include_top` adds the
    column's own type."""
    value = "v"
    conditions = []
    entries = ([((), top_allowed(params))] if include_top else []) + list(params.nested)
    for path, allowed in entries:
        expression = value
        for step in path:
            if step[0] == "items":
                expression = f"({expression})[0]"
            elif step[0] == "keys":
                expression = f"map_keys({expression})[0]"
            elif step[0] == "values":
                expression = f"map_values({expression})[0]"
            else:
                expression = f"({expression}).{quote_identifier(step[1])}"
        text = f"lower(replace(typeof({expression}), ' ', ''))"
        literals = ", ".join(_literal(a) for a in allowed)
        conditions.append(f"({text} IN ({literals}) OR regexp_extract({text}, '^[a-z_]+', 0) IN ({literals}))")
    col = quote_identifier(column)
    ok = " AND ".join(conditions) or "TRUE"
    return (f"SELECT * FROM (SELECT {ok} AS dc_bridge_type_ok FROM (SELECT first({col}) AS {value} "
            f"FROM (SELECT {col} FROM {table} LIMIT 0) AS dc_bridge_none) AS dc_bridge_one) AS dc_bridge_types "
            f"WHERE NOT dc_bridge_type_ok")


def _literal(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def unsendable(df, check):
    """For the GX and Soda runners, beside engines/columns.py's `unrunnable`: a `column_type` check
    whose nested query could not be analysed (the column is not the container the contract says, or
    lacks a nested element it names) is `failed` up front with the reason, as the native engine judges
    it. None: the query can run (or the check has no nested elements)."""
    from dc_bridge.engines.columns import Unrunnable, column_type

    if not isinstance(check.params, c.ColumnType) or not check.params.nested or check.column is None:
        return None
    found = column_type(df, check.column)
    if found is None:
        return None  # a missing column: `unrunnable` says so
    params = check.params
    if not matches(found.simpleString(), top_allowed(params)) or shape_problem(found, params):
        return Unrunnable("failed", type_problem(found, params))
    return None
