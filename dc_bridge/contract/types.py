"""The type vocabulary: logical types of both standards mapped to one canonical set, the Spark types
each canonical type allows, and physical type spellings as Spark names them.

The canonical names are what the rest of dc-bridge uses; the plan, schema drift, the diff and the
read schema of typeless files all take their Spark types from here.
"""

from __future__ import annotations

import re

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
    """`VARCHAR(255)` -> string, `decimal(10, 2)` -> decimal(10,2), `NUMBER(10)` -> decimal(10,0) (a scale left
    out is 0, as SQL and Spark read it); None when it is no Spark type."""
    text = physical.strip().lower().replace(" ", "")
    base, _, args = text.partition("(")
    if base in ("decimal", "numeric", "number") and args:
        digits = args.rstrip(")").split(",")
        return f"decimal({digits[0]},{digits[1] if len(digits) > 1 else 0})"
    if base in ("varchar", "char", "nvarchar") and args:
        return "string"
    return PHYSICAL_TYPES.get(text.replace("doubleprecision", "double precision"))


# a decimal type as spark_physical_type writes it: (precision, scale)
DECIMAL_TYPE = re.compile(r"^decimal\((\d+),(\d+)\)$")


def declared_spark_type(physical: str) -> str | None:
    """The Spark type a physical type names, simple (`spark_physical_type`) or complex written as Spark
    prints it (`ARRAY<BIGINT>` -> array<bigint>); None when dc-bridge cannot tell, so it is not checked."""
    simple = spark_physical_type(physical)
    if simple is not None:
        return simple
    text = physical.strip().lower().replace(" ", "")
    return text if text.startswith(("array<", "map<", "struct<")) and text.endswith(">") else None


_INTEGRAL = ("tinyint", "smallint", "int", "bigint")
# logical type -> the Spark types a physical type may name beside it: the logical type says what kind of
# value a column holds, the physical type how it is stored, so a width the logical type does not fix
# (an ODCS `integer` stored as BIGINT) agrees with it; a physical type outside its kind contradicts it
# (lint DCB113) and no column can be both, so the type check compares the column with both
LOGICAL_KINDS: dict[str, tuple[str, ...]] = {
    "string": SPARK_TYPES["string"], "integer": _INTEGRAL, "long": _INTEGRAL, "number": SPARK_TYPES["number"],
    "decimal": ("decimal",), "float": ("float", "double"), "double": ("float", "double"), "boolean": ("boolean",),
    "timestamp": ("timestamp", "timestamp_ntz"), "timestamp_ntz": ("timestamp_ntz",), "date": ("date",),
    "time": ("string",), "bytes": ("binary",), "array": ("array",), "map": ("map",), "object": ("struct",),
}


def spark_base(spark_type: str) -> str:
    """`decimal(10,2)` -> decimal, `array<string>` -> array."""
    return spark_type.split("(", 1)[0].split("<", 1)[0]


def contradicting_logical(logical: str | None, physical: str | None) -> tuple[str, ...] | None:
    """The Spark types a logical type allows when the physical type contradicts it (`string` stored as
    INT64), else None: they agree, or one of them is missing or unknown."""
    spark = declared_spark_type(physical) if physical else None
    kind = LOGICAL_KINDS.get(logical or "")
    if spark is None or kind is None or spark_base(spark) in kind:
        return None
    if kind == _INTEGRAL and spark.startswith("decimal(") and spark.endswith(",0)"):
        return None  # whole numbers stored as a decimal without a scale (Oracle's NUMBER(10))
    return SPARK_TYPES[logical]
