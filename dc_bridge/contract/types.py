"""The type vocabulary: logical types of both standards mapped to one canonical set, the Spark types
each canonical type allows, and physical type spellings as Spark names them.

The canonical names are what the rest of dc-bridge uses; the plan, schema drift, the diff and the
read schema of typeless files all take their Spark types from here.
"""

from __future__ import annotations

# DCS 1.x data types -> canonical
DCS_TYPES: dict[str, str] = {
    "string": "string", "text": "string", "varchar": "string",
    "number": "number", "decimal": "decimal", "numeric": "decimal",
    "int": "integer", "integer": "integer",
    "long": "long", "bigint": "long",
    "float": "float", "double": "double",
    "boolean": "boolean",
    "timestamp": "timestamp", "timestamp_tz": "timestamp", "timestamp_ntz": "timestamp_ntz",
    "date": "date", "time": "time",
    "array": "array", "map": "map", "bytes": "bytes",
    "object": "object", "record": "object", "struct": "object",
    "null": "null",
}

# ODCS 3.x logicalType -> canonical
ODCS_TYPES: dict[str, str] = {
    "string": "string", "date": "date", "timestamp": "timestamp", "time": "time",
    "number": "number", "integer": "integer", "object": "object", "array": "array",
    "boolean": "boolean", "map": "map", "vector": "array",
}

STRING_TYPES = {"string"}
NUMERIC_TYPES = {"number", "decimal", "integer", "long", "float", "double"}
TEMPORAL_TYPES = {"date", "timestamp", "timestamp_ntz", "time"}
NESTED_TYPES = {"array", "map", "object"}

# logical type -> Spark simple-type names a column of that type may have
SPARK_TYPES: dict[str, tuple[str, ...]] = {
    "string": ("string", "varchar", "char"),
    "integer": ("int", "smallint", "tinyint"),
    "long": ("bigint", "int", "smallint", "tinyint"),
    "number": ("tinyint", "smallint", "int", "bigint", "float", "double", "decimal"),
    "decimal": ("decimal",),
    "float": ("float",),
    "double": ("double", "float"),
    "boolean": ("boolean",),
    "timestamp": ("timestamp",),
    "timestamp_ntz": ("timestamp_ntz",),
    "date": ("date",),
    "time": ("string",),
    "bytes": ("binary",),
    "array": ("array",),
    "map": ("map",),
    "object": ("struct",),
}
# physical type spellings -> Spark simpleString, for an exact comparison
PHYSICAL_TYPES: dict[str, str] = {
    "string": "string", "text": "string", "varchar": "string", "char": "string",
    "int": "int", "integer": "int", "int32": "int", "bigint": "bigint", "long": "bigint", "int64": "bigint",
    "smallint": "smallint", "short": "smallint", "tinyint": "tinyint", "byte": "tinyint",
    "float": "float", "real": "float", "double": "double", "double precision": "double",
    "boolean": "boolean", "bool": "boolean", "date": "date", "timestamp": "timestamp",
    "timestamp_ntz": "timestamp_ntz", "binary": "binary",
}


def spark_physical_type(physical: str) -> str | None:
    """`VARCHAR(255)` -> string, `decimal(10, 2)` -> decimal(10,2); None when it is no Spark type."""
    text = physical.strip().lower().replace(" ", "")
    base, _, args = text.partition("(")
    if base in ("decimal", "numeric", "number") and args:
        return f"decimal({args.rstrip(')')})"
    if base in ("varchar", "char", "nvarchar") and args:
        return "string"
    return PHYSICAL_TYPES.get(text.replace("doubleprecision", "double precision"))
