"""Schema drift: the contract's schema against the Spark schema a DataFrame actually has.

Only `DataFrame.schema` is read, so no Spark job runs and drift costs the same on any amount of data.
Nested structs, array items and map keys and values are compared at any depth. A column the contract
names and the data lacks is an error (DCB300), as is a type the contract does not allow (DCB301);
a column the data has and the contract does not describe is info (DCB302), an error with `strict`.

Types follow the check plan (contract/types.py): a physical type Spark knows must match exactly, a
logical type allows the Spark types in `SPARK_TYPES`. Column names match as Spark resolves them by
default: exactly, else ignoring case. Extra nested fields are reported only where the contract lists
the struct's fields; a struct the contract leaves undescribed is not drift.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from dc_bridge.contract.model import Contract, Field, Model, Source
from dc_bridge.contract.findings import Finding
from dc_bridge.contract.types import SPARK_TYPES, spark_physical_type

# complex Spark types written as physical types (`array<string>`): compared as Spark prints them
_COMPLEX_PREFIXES = ("array<", "map<", "struct<")
# contract shape -> the Spark type it needs when no type is written: sub-fields make a struct, items an array
_SHAPES = (("fields", ("struct",)), ("items", ("array",)), ("keys", ("map",)), ("values", ("map",)))
# Spark container type -> how to reach its children: (Field attribute, Spark type attribute, path step)
_CHILDREN = {
    "array": (("items", "elementType", "items"),),
    "map": (("keys", "keyType", "keys"), ("values", "valueType", "values")),
}


def schema_drift(contract: Contract, frames: Mapping[str, Any], *, strict: bool = False) -> list[Finding]:
    """Drift of every model against its DataFrame (or StructType) in `frames`, keyed by model name.
    A model without one gets DCB303 (info): not checked. For `dc-bridge run` to call on its frames."""
    findings: list[Finding] = []
    for model in contract.models:
        frame = frames.get(model.name)
        if frame is None:
            findings.append(_at(model.source, "DCB303", f"model `{model.name}` has no data to compare; its schema was not checked",
                                expected="a DataFrame or --data for the model", found="no data"))
            continue
        findings += model_drift(model, getattr(frame, "schema", frame), strict=strict)
    return findings


def model_drift(model: Model, schema, *, strict: bool = False) -> list[Finding]:
    """Drift of one model against a Spark StructType (measures and dimensions are computed, no columns)."""
    return _struct_drift(model.name, [f for f in model.fields if not f.computed], schema, model.source, strict)


def _at(source: Source, code: str, message: str, **details) -> Finding:
    return Finding(code, source.file, source.path, message, line=source.line, **details)


def _column(field: Field) -> str:
    return field.physical_name or field.name


def _struct_drift(prefix: str, fields: Sequence[Field], struct, owner: Source, strict: bool) -> list[Finding]:
    findings: list[Finding] = []
    exact = {f.name: f for f in struct.fields}
    folded = {f.name.lower(): f for f in struct.fields}
    matched: set[str] = set()
    for field in fields:
        column = _column(field)
        actual = exact.get(column) or folded.get(column.lower())
        path = f"{prefix}.{column}"
        if actual is None:
            present = ", ".join(f.name for f in struct.fields[:8]) + (", ..." if len(struct.fields) > 8 else "")
            findings.append(_at(field.source, "DCB300", f"`{path}` is not in the data", expected=f"`{column}`",
                                found=present or "nothing"))
            continue
        matched.add(actual.name)
        findings += _value_drift(path, field, actual.dataType, strict)
    for extra in struct.fields:
        if extra.name not in matched:
            findings.append(_at(owner, "DCB302", f"`{prefix}.{extra.name}` ({extra.dataType.simpleString()}) is in the data but not in the contract",
                                expected="only what the contract describes", found=extra.name,
                                severity="error" if strict else None))
    return findings


def _value_drift(path: str, field: Field, data_type, strict: bool) -> list[Finding]:
    """The type of one value (a column, a struct field, array items, map keys or values), then its children."""
    actual = data_type.simpleString()
    allowed = allowed_types(field)
    if allowed is not None and _base(actual) not in allowed and actual.replace(" ", "") not in allowed:
        return [_at(field.source, "DCB301", f"`{path}` is {actual} in the data; the contract allows {' or '.join(allowed)}",
                    expected=" or ".join(allowed), found=actual)]
    kind = data_type.typeName()
    if kind == "struct" and field.fields:
        return _struct_drift(path, field.fields, data_type, field.source, strict)
    findings = []
    for attribute, spark_attribute, step in _CHILDREN.get(kind, ()):
        child = getattr(field, attribute)
        if child is not None:
            findings += _value_drift(f"{path}.{step}", child, getattr(data_type, spark_attribute), strict)
    return findings


def allowed_types(field: Field) -> tuple[str, ...] | None:
    """Spark type names the field's value may have; None when the contract states no type."""
    if field.physical_type:
        spark = spark_physical_type(field.physical_type)
        if spark is not None:
            return (spark,)
        text = field.physical_type.strip().lower().replace(" ", "")
        if text.startswith(_COMPLEX_PREFIXES):
            return (text,)
    if field.logical_type in SPARK_TYPES:
        return SPARK_TYPES[field.logical_type]
    return next((types for attribute, types in _SHAPES if getattr(field, attribute)), None)


def _base(simple: str) -> str:
    """`decimal(10,2)` -> decimal, `array<string>` -> array, `varchar(5)` -> varchar."""
    return simple.split("(", 1)[0].split("<", 1)[0]
