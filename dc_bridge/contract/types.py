"""Logical types of both standards mapped to one canonical set.

The canonical names are what the rest of dc-bridge uses (the plan maps them to Spark types).
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
