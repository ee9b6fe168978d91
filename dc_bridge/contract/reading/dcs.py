"""Data Contract Specification 1.x -> Contract."""

from __future__ import annotations

from typing import Any

from dc_bridge.contract.reading.document import Document, format_path
from dc_bridge.contract.durations import DurationOutOfRange, parse_duration
from dc_bridge.contract.limits import DURATION_RANGE
from dc_bridge.contract.model import Contract, Field, ForeignKey, Model, Server, ServiceLevel
from dc_bridge.contract.reading.monitors import read_monitors
from dc_bridge.contract.reading.quality import THRESHOLD_KEYS, read_quality_rule
from dc_bridge.contract.reading.reader import Reader, describe
from dc_bridge.contract.types import DCS_TYPES
from dc_bridge.contract.reading.workspace import Workspace, navigate_pointer, split_reference
from dc_bridge.contract.findings import Finding

# field keys copied as they are: DCS key -> (Field attribute, kind)
_FIELD_VALUES: dict[str, tuple[str, str]] = {
    "description": ("description", "string"),
    "required": ("required", "boolean"),
    "unique": ("unique", "boolean"),
    "primaryKey": ("primary_key", "boolean"),
    "pattern": ("pattern", "string"),
    "format": ("format", "string"),
    "minLength": ("min_length", "integer"),
    "maxLength": ("max_length", "integer"),
    "minimum": ("minimum", "bound"),
    "maximum": ("maximum", "bound"),
    "exclusiveMinimum": ("exclusive_minimum", "bound"),
    "exclusiveMaximum": ("exclusive_maximum", "bound"),
    "precision": ("precision", "integer"),
    "scale": ("scale", "integer"),
    "pii": ("pii", "boolean"),
    "classification": ("classification", "string"),
    "physicalType": ("physical_type", "string"),
}

# servicelevels entries that become checks: name -> (threshold key, timestamp field keys)
_SERVICE_LEVELS: dict[str, tuple[str, tuple[str, ...]]] = {
    "freshness": ("threshold", ("timestampField",)),
    "latency": ("threshold", ("processedTimestampField", "sourceTimestampField")),
    "retention": ("period", ("timestampField",)),
}

# the keys whose values this module turns into checks (or into what a check reads), by where they stand; read in
# every 1.x version (lint/schema.py says so of a key the declared version's schema lacks: `physicalType`, 1.2's `metric`)
CHECKED_KEYS: dict[str, frozenset[str]] = {
    "contract": frozenset({"id", "info", "models", "servicelevels", "definitions"}),
    "model": frozenset({"fields", "primaryKey", "quality"}),
    "field": frozenset(_FIELD_VALUES) - {"description"} | {
        "type", "config", "primary", "enum", "quality", "fields", "items", "keys", "values", "references", "$ref"},
    "quality": frozenset(THRESHOLD_KEYS) | {"type", "metric", "rule", "arguments", "query", "engine", "implementation",
                                            "specification", "severity", "unit"},
    "sla": frozenset({threshold for threshold, _ in _SERVICE_LEVELS.values()} |
                     {field for _, fields in _SERVICE_LEVELS.values() for field in fields}),
}


def read_contract(document: Document, version: str, workspace: Workspace) -> Contract:
    reader = Reader(document, workspace.findings)
    data = document.data
    info = reader.mapping(data, "info", ())
    models = tuple(
        _read_model(reader, workspace, name, node, ("models", name))
        for name, node in reader.mapping(data, "models", ()).items()
        if _is_mapping(reader, node, ("models", name), "a model")
    )
    contract_id = reader.get(data, "id", (), "scalar")
    if contract_id is None:
        reader.report("DCB102", (), "the contract has no `id`", expected="`id: urn:datacontract:...`", found="nothing")
    return Contract(
        id=str(contract_id or document.file),
        version=str(reader.get(info, "version", ("info",), "scalar") or "0.0.0"),
        format="dcs",
        spec_version=version,
        file=document.file,
        source=reader.source(()),
        title=reader.get(info, "title", ("info",), "string"),
        owner=reader.get(info, "owner", ("info",), "string"),
        description=reader.get(info, "description", ("info",), "string"),
        models=models,
        servers=tuple(_read_servers(reader, data)),
        service_levels=tuple(_read_service_levels(reader, data, models)),
        monitors=read_monitors(reader, data),
    )


def _is_mapping(reader: Reader, node: Any, path: tuple, what: str) -> bool:
    if isinstance(node, dict):
        return True
    reader.report("DCB101", path, f"{what} must be a mapping", expected="a mapping", found=describe(node))
    return False


def _read_model(reader: Reader, workspace: Workspace, name: str, node: dict, path: tuple) -> Model:
    fields = _read_fields(reader, workspace, node, path)
    primary_key = reader.get(node, "primaryKey", path, "list")
    if primary_key is None:
        primary_key = [f.name for f in fields if f.primary_key]
    quality = tuple(
        rule for rule_path, rule_node in reader.items(node, "quality", path)
        if (rule := read_quality_rule(reader, rule_node, rule_path, standard="dcs")) is not None
    )
    return Model(
        name=str(name),
        source=reader.source(path),
        type=reader.get(node, "type", path, "string"),
        description=reader.get(node, "description", path, "string"),
        fields=fields,
        primary_key=tuple(str(k) for k in primary_key),
        quality=quality,
        foreign_keys=tuple(_read_references(reader, node, path)),
    )


def _read_references(reader: Reader, model_node: dict, model_path: tuple) -> list[ForeignKey]:
    """DCS `references: model.field` on fields become foreign keys of the model."""
    keys = []
    fields = model_node.get("fields")  # a wrong `fields` is reported once, by _read_fields
    for name, field_node in (fields.items() if isinstance(fields, dict) else ()):
        if not isinstance(field_node, dict) or "references" not in field_node:
            continue
        path = model_path + ("fields", name)
        target = reader.get(field_node, "references", path, "string")
        if target is None:
            continue
        to_model, dot, to_field = target.rpartition(".")
        if not dot or not to_model:
            reader.report("DCB125", path + ("references",), f"`references: {target}` does not name a model and a field",
                          expected="model.field", found=repr(target))
            continue
        keys.append(ForeignKey(columns=(str(name),), to_model=to_model, to_columns=(to_field,), source=reader.source(path + ("references",))))
    return keys


def _read_fields(reader: Reader, workspace: Workspace, node: dict, path: tuple) -> tuple[Field, ...]:
    fields = []
    for name, field_node in reader.mapping(node, "fields", path).items():
        field_path = path + ("fields", name)
        if field_node is None:
            field_node = {}
        if _is_mapping(reader, field_node, field_path, "a field"):
            fields.append(_read_field(reader, workspace, str(name), field_node, field_path))
    return tuple(fields)


def _read_field(reader: Reader, workspace: Workspace, name: str, node: dict, path: tuple) -> Field:
    ref = reader.get(node, "$ref", path, "string")
    if ref is not None:
        node = _merge_definition(reader, workspace, ref, node, path)
    values = reader.values(node, _FIELD_VALUES, path)
    raw_type = reader.get(node, "type", path, "string")
    if raw_type is not None:
        logical = DCS_TYPES.get(raw_type.lower())
        if logical is None:
            reader.report("DCB110", path + ("type",), f"`{raw_type}` is not a DCS data type",
                          expected=", ".join(sorted(DCS_TYPES)), found=repr(raw_type))
        values["logical_type"] = logical
    config = reader.mapping(node, "config", path)
    spark_type = reader.get(config, "sparkType", path + ("config",), "string")
    if spark_type:
        values["physical_type"] = spark_type
    if "primaryKey" not in node and reader.get(node, "primary", path, "boolean"):
        # DCS's deprecated spelling of primaryKey: still part of the standard, so it is honoured, not ignored
        values["primary_key"] = True
    enum = reader.value_list(node, "enum", path, logical_type=values.get("logical_type"))
    if enum is not None:
        values["enum"] = enum
    tags = reader.get(node, "tags", path, "list")
    if tags is not None:
        values["tags"] = tuple(str(t) for t in tags)
    quality = tuple(
        rule for rule_path, rule_node in reader.items(node, "quality", path)
        if (rule := read_quality_rule(reader, rule_node, rule_path, standard="dcs", logical_type=values.get("logical_type"))) is not None
    )
    children = {}
    for key in ("items", "keys", "values"):
        child = node.get(key)
        if child is not None and _is_mapping(reader, child, path + (key,), f"`{key}`"):
            children[key] = _read_field(reader, workspace, key, child, path + (key,))
    return Field(
        name=name,
        source=reader.source(path),
        quality=quality,
        fields=_read_fields(reader, workspace, node, path),
        ref=ref,
        **children,
        **values,
    )


def _merge_definition(reader: Reader, workspace: Workspace, ref: str, node: dict, path: tuple) -> dict:
    """The field's own keys over the keys of the definition its `$ref` points at (recursively)."""
    ref_path = path + ("$ref",)
    where = Finding("DCB120", reader.file, format_path(ref_path), "", line=reader.document.line_of(ref_path))
    if ref.startswith(("http://", "https://")):
        reader.report("DCB120", ref_path, f"`$ref: {ref}` points at a remote file; dc-bridge reads local files only",
                      expected="a local file or #/definitions/...", found=ref, hint="Download the definitions file next to the contract and reference it by relative path.")
        return node
    file, pointer = split_reference(ref, reader.file)
    target_doc = workspace.document(file, referenced_from=(reader.file, format_path(ref_path), where.line))
    if target_doc is None:
        return node
    target = f"{target_doc.file}#{pointer}"
    if not workspace.enter(target, where):
        return node
    try:
        found = navigate_pointer(target_doc.data, pointer)
        if found is None or not isinstance(found[0], dict):
            reader.report("DCB120", ref_path, f"`$ref: {ref}` points at nothing", expected="an existing definition", found=ref)
            return node
        definition, definition_path = found
        workspace.definitions.append((target_doc, definition_path, "field"))
        if "$ref" in definition:
            definition = _merge_definition(Reader(target_doc, workspace.findings), workspace, definition["$ref"], definition, definition_path)
        merged = {k: v for k, v in definition.items() if k != "$ref"}
        merged.update({k: v for k, v in node.items() if k != "$ref"})
        return merged
    finally:
        workspace.leave()


def _read_servers(reader: Reader, data: dict) -> list[Server]:
    servers = []
    for name, node in reader.mapping(data, "servers", ()).items():
        path = ("servers", name)
        if not _is_mapping(reader, node, path, "a server"):
            continue
        server_type = reader.require(node, "type", path, "string", f"server `{name}`")
        servers.append(Server(
            name=str(name),
            type=server_type or "unknown",
            source=reader.source(path),
            format=reader.get(node, "format", path, "string"),
            location=reader.get(node, "location", path, "string") or reader.get(node, "path", path, "string"),
            settings={k: v for k, v in node.items() if k not in ("type", "format", "location", "path")},
        ))
    return servers


def _read_service_levels(reader: Reader, data: dict, models: tuple[Model, ...]) -> list[ServiceLevel]:
    levels = []
    for name, node in reader.mapping(data, "servicelevels", ()).items():
        path = ("servicelevels", name)
        if not _is_mapping(reader, node, path, "a service level"):
            continue
        if name not in _SERVICE_LEVELS:
            kind = name if name in ("availability", "frequency") else "other"
            levels.append(ServiceLevel(kind=kind, name=name, source=reader.source(path), description=reader.get(node, "description", path, "string"),
                                       raw_value=node.get("percentage") or node.get("interval")))
            continue
        threshold_key, field_keys = _SERVICE_LEVELS[name]
        raw = reader.get(node, threshold_key, path, "string")
        threshold = None
        if raw is not None:
            try:
                threshold = parse_duration(raw)
            except DurationOutOfRange as exc:
                reader.report("DCB151", path + (threshold_key,), str(exc), expected=DURATION_RANGE, found=repr(raw))
            except ValueError as exc:
                reader.report("DCB150", path + (threshold_key,), str(exc), expected="PT24H, P1D, 25h, 30d, 1 year", found=repr(raw))
        columns = []
        for key in field_keys:
            columns.append(_resolve_column(reader, node, key, path, models))
        (model, field), source_column = columns[0], columns[1] if len(columns) > 1 else (None, None)
        levels.append(ServiceLevel(
            kind=name, name=name, source=reader.source(path), description=reader.get(node, "description", path, "string"),
            threshold=threshold, raw_value=raw, model=model, field=field, source_field=source_column[1],
        ))
    return levels


def _resolve_column(reader: Reader, node: dict, key: str, path: tuple, models: tuple[Model, ...]) -> tuple[str | None, str | None]:
    """`orders.order_timestamp` -> ("orders", "order_timestamp"), reporting names that do not exist."""
    reference = reader.get(node, key, path, "string")
    if reference is None:
        return None, None
    model_name, dot, field_name = reference.rpartition(".")
    if not dot and len(models) == 1:
        model_name, field_name = models[0].name, reference
    model = next((m for m in models if m.name == model_name), None)
    if model is None or model.field(field_name) is None:
        reader.report("DCB125", path + (key,), f"`{key}: {reference}` names no field of the contract",
                      expected="model.field of an existing field", found=repr(reference))
        return None, None
    return model_name, field_name

