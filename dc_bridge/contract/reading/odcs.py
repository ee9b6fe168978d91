"""Open Data Contract Standard 3.x -> Contract, including the RFC's ids, relationships and imports.

References are resolved in three forms: ids (`schema.<object id>.properties.<property id>`, also
with `/`), the name shorthand (`table.column`) and either of them behind `other.yaml#`. Imports
transclude quality rules, properties and SLA items from another file as if written in place.
"""

from __future__ import annotations

import difflib
import re
from pathlib import Path
from dataclasses import dataclass, field as dataclass_field
from datetime import timedelta
from typing import Any

from dc_bridge.contract.reading.document import Document, format_path
from dc_bridge.contract.durations import DurationOutOfRange, parse_duration
from dc_bridge.contract.limits import DURATION_RANGE
from dc_bridge.contract.model import (
    Contract, Field, ForeignKey, Model, QualityObjective, QualityRule, RelatesTo, Server, ServiceLevel,
)
from dc_bridge.contract.reading.monitors import read_monitors
from dc_bridge.contract.reading.quality import THRESHOLD_KEYS, read_quality_rule
from dc_bridge.contract.reading.reader import Reader, describe
from dc_bridge.contract.types import ODCS_TYPES
from dc_bridge.contract.reading.workspace import Workspace, split_reference
from dc_bridge.contract.findings import Finding

# logicalTypeOptions key -> Field attribute
_TYPE_OPTIONS = {
    "minLength": "min_length",
    "maxLength": "max_length",
    "pattern": "pattern",
    "format": "format",
    "minimum": "minimum",
    "maximum": "maximum",
    "exclusiveMinimum": "exclusive_minimum",
    "exclusiveMaximum": "exclusive_maximum",
    "precision": "precision",
    "scale": "scale",
}
# property keys copied as they are: ODCS key -> (Field attribute, kind)
_PROPERTY_VALUES = {
    "description": ("description", "string"),
    "physicalType": ("physical_type", "string"),
    "physicalName": ("physical_name", "string"),
    "required": ("required", "boolean"),
    "unique": ("unique", "boolean"),
    "primaryKey": ("primary_key", "boolean"),
    "primaryKeyPosition": ("primary_key_position", "integer"),
    "classification": ("classification", "string"),
    # ODCS 3.2 (RFC 0034): `column`, or a `measure` / `dimension` computed by transformLogic, not a column of the data
    "semanticType": ("semantic_type", "string"),
}
# slaProperties `property` -> ServiceLevel kind (everything else is kept as "other")
_SLA_KINDS = {"freshness": "freshness", "latency": "latency", "retention": "retention", "availability": "availability",
              "frequency": "frequency", "timeOfAvailability": "timeOfAvailability", "errorRate": "errorRate"}
# SLA properties measured on a timestamp column of the data: a duration and an element are read for them
_TIMED_SLAS = ("freshness", "latency", "retention", "frequency")
# SLA properties read with an element: the timed ones, and timeOfAvailability (a time of day, not a duration)
_ELEMENT_SLAS = _TIMED_SLAS + ("timeOfAvailability",)
# a timeOfAvailability value: a time of day and its offset from UTC (ODCS's example `09:00-08:00`; none: UTC)
_TIME_OF_DAY = re.compile(r"^([01]\d|2[0-3]):([0-5]\d)(?::([0-5]\d))?(Z|[+-](?:[01]\d|2[0-3]):?[0-5]\d)?$")
_SECTIONS = {"sla": "slaProperties"}
# the keys whose values this module turns into checks (or into what a check reads: a column's name, its
# sensitivity), by where they stand; read in every 3.x version, so lint (lint/schema.py) can say of a key the
# declared version's schema lacks that the check still runs, and of the other standard's key that it does not
CHECKED_KEYS: dict[str, frozenset[str]] = {
    "contract": frozenset({"id", "version", "name", "schema", "slaProperties", "slaDefaultElement"}),
    "model": frozenset({"name", "physicalName", "properties", "quality", "relationships"}),
    "field": frozenset(_PROPERTY_VALUES) - {"description"} | {
        "name", "logicalType", "logicalTypeOptions", "enum", "pii", "quality", "relationships", "properties", "items", "map"},
    "options": frozenset(_TYPE_OPTIONS),
    "quality": frozenset(THRESHOLD_KEYS) | {"type", "metric", "rule", "arguments", "validValues", "query", "engine",
                                            "implementation", "severity", "unit"},
    "sla": frozenset({"property", "value", "unit", "element"}),
}

_REFERENCE_SEPARATORS = re.compile(r"[./]")


@dataclass
class _Index:
    """Names and ids of the contract's schema, for resolving references."""

    objects: dict[str, str] = dataclass_field(default_factory=dict)  # id or name -> object name
    properties: dict[tuple[str, str], str] = dataclass_field(default_factory=dict)  # (object name, id or name) -> property name


def read_contract(document: Document, version: str, workspace: Workspace) -> Contract:
    reader = Reader(document, workspace.findings)
    data = document.data
    index = _build_index(reader, data)
    models = tuple(
        _read_object(reader, workspace, index, node, path)
        for path, node in reader.items(data, "schema", ())
    )
    _check_duplicate_ids(reader, data)
    contract_id = reader.require(data, "id", (), "scalar", "the contract")
    owner = None
    team = data.get("team")
    if isinstance(team, dict):
        owner = team.get("name")
    return Contract(
        id=str(contract_id or document.file),
        version=str(reader.get(data, "version", (), "scalar") or "0.0.0"),
        format="odcs",
        spec_version=version.lstrip("v"),
        file=document.file,
        source=reader.source(()),
        title=reader.get(data, "name", (), "string"),
        owner=owner if isinstance(owner, str) else reader.get(data, "dataProduct", (), "string") or reader.get(data, "domain", (), "string"),
        description=_description(data.get("description")),
        models=models,
        servers=tuple(_read_servers(reader, data)),
        service_levels=tuple(_read_service_levels(reader, workspace, index, data, models)),
        quality_objectives=tuple(_read_objectives(reader, data, models)),
        monitors=read_monitors(reader, data),
    )


def read_library(document: Document, version: str, workspace: Workspace) -> Contract:
    """A shared quality-rule library (top-level `quality:`): its rules are read so lint can check them."""
    reader = Reader(document, workspace.findings)
    items = reader.items(document.data, "quality", ())  # once: a non-mapping item is reported once
    rules = tuple(r for p, n in items if (r := read_quality_rule(reader, n, p, standard="odcs")) is not None)
    _check_ids(reader, _owned(reader, items), "quality rule")
    return Contract(
        id=str(document.data.get("id") or document.file), version=str(document.data.get("version") or "0.0.0"),
        format="odcs", spec_version=version.lstrip("v"), file=document.file, source=reader.source(()),
        title=document.data.get("name"),
        # the rules are written for the property that imports them, so lint them as field rules
        models=(Model(name="(library)", source=reader.source(("quality",)),
                      fields=(Field(name="(importing property)", source=reader.source(("quality",)), quality=rules),)),),
    )


def _description(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return value.get("purpose") if isinstance(value.get("purpose"), str) else None
    return None


def _build_index(reader: Reader, data: dict) -> _Index:
    index = _Index()
    for path, node in reader.items(data, "schema", ()):
        name = node.get("name")
        if not isinstance(name, str):
            continue
        for key in (node.get("id"), name):
            if isinstance(key, str):
                index.objects.setdefault(key, name)
        for _, prop in reader.items(node, "properties", path) if isinstance(node.get("properties"), list) else []:
            prop_name = prop.get("name")
            for key in (prop.get("id"), prop_name):
                if isinstance(key, str) and isinstance(prop_name, str):
                    index.properties.setdefault((name, key), prop_name)
    return index


def resolve_column(index: _Index, reference: str) -> tuple[str, str] | None:
    """A property reference in any of its forms -> (object name, property name), or None."""
    parts = _REFERENCE_SEPARATORS.split(reference.strip().lstrip("/"))
    if len(parts) == 4 and parts[0] == "schema" and parts[2] == "properties":
        obj = index.objects.get(parts[1])
        return (obj, index.properties[(obj, parts[3])]) if obj and (obj, parts[3]) in index.properties else None
    if len(parts) == 2:
        obj = index.objects.get(parts[0])
        return (obj, index.properties[(obj, parts[1])]) if obj and (obj, parts[1]) in index.properties else None
    return None


def _read_object(reader: Reader, workspace: Workspace, index: _Index, node: dict, path: tuple) -> Model:
    name = reader.require(node, "name", path, "string", "a schema object") or f"schema[{path[-1]}]"
    # (reader, path, node): an imported property is read with its own file's reader, so findings on it point there
    properties = _owned(reader, reader.items(node, "properties", path))
    relationships = list(reader.items(node, "relationships", path))
    for rel_path, rel in relationships:
        if rel.get("type") == "imports":
            imported = _import(reader, workspace, rel, rel_path, expect="properties")
            properties.extend(imported)
    fields = tuple(_read_property(prop_reader, workspace, index, prop, prop_path) for prop_reader, prop_path, prop in properties)
    _check_ids(reader, properties, "property")
    _check_ids(reader, _owned(reader, relationships), "relationship")
    _check_names(reader, properties, path)
    keys = sorted((f for f in fields if f.primary_key), key=lambda f: (f.primary_key_position or 0) if (f.primary_key_position or 0) > 0 else 10**6)
    foreign_keys = []
    relates_to = []
    for prop_reader, prop_path, prop in properties:
        prop_name = prop.get("name")
        if not isinstance(prop_name, str):
            continue  # reported by _read_property; without a name its relationships have no `from`
        prop_relationships = prop_reader.items(prop, "relationships", prop_path)
        _check_ids(prop_reader, _owned(prop_reader, prop_relationships), "relationship")
        for rel_path, rel in prop_relationships:
            fk, info = _read_relationship(prop_reader, index, rel, rel_path, name, implicit_from=prop_name)
            foreign_keys += fk
            relates_to += info
    for rel_path, rel in relationships:
        fk, info = _read_relationship(reader, index, rel, rel_path, name, implicit_from=None)
        foreign_keys += fk
        relates_to += info
    quality = tuple(r for p, n in reader.items(node, "quality", path)
                    if (r := read_quality_rule(reader, n, p, standard="odcs")) is not None)
    return Model(
        name=name,
        id=reader.get(node, "id", path, "string"),
        source=reader.source(path),
        physical_name=reader.get(node, "physicalName", path, "string"),
        type=reader.get(node, "physicalType", path, "string"),
        description=reader.get(node, "description", path, "string"),
        fields=fields,
        primary_key=tuple(f.name for f in keys),
        quality=quality,
        foreign_keys=tuple(foreign_keys),
        relates_to=tuple(relates_to),
    )


def _read_property(reader: Reader, workspace: Workspace, index: _Index, node: dict, path: tuple, *, imported_from: str | None = None) -> Field:
    # a property imported from another file is read with that file's reader, so its sources point there
    values = reader.values(node, _PROPERTY_VALUES, path)
    logical = reader.get(node, "logicalType", path, "string")
    if logical is not None:
        canonical = ODCS_TYPES.get(logical.lower())
        if canonical is None:
            reader.report("DCB110", path + ("logicalType",), f"`{logical}` is not an ODCS logical type",
                          expected=", ".join(ODCS_TYPES), found=repr(logical))
        values["logical_type"] = canonical
    options = reader.mapping(node, "logicalTypeOptions", path)
    for key, attribute in _TYPE_OPTIONS.items():
        if key not in options:
            continue
        value = options[key]
        if key.startswith("exclusive") and isinstance(value, bool):
            # ODCS 3.0 wrote exclusiveMaximum as a flag on maximum
            bound = "maximum" if key == "exclusiveMaximum" else "minimum"
            if value and bound in values:  # the bound as read (and type-checked) above
                values[attribute] = values.pop(bound)
            continue
        kind = "integer" if key in ("minLength", "maxLength", "precision", "scale") else "string" if key in ("pattern", "format") else "bound"
        value = reader.get(options, key, path + ("logicalTypeOptions",), kind)
        if value is not None and not (attribute in ("minimum", "maximum") and attribute in values):
            values[attribute] = value
    enum = reader.value_list(node, "enum", path, logical_type=values.get("logical_type"), objects=True)
    if enum is not None:
        values["enum"] = enum
    tags = reader.get(node, "tags", path, "list")
    if tags is not None:
        values["tags"] = tuple(str(t) for t in tags)
    values["pii"] = _is_pii(node)

    rules = [(p, n, None) for p, n in reader.items(node, "quality", path)]
    for rel_path, rel in reader.items(node, "relationships", path):
        if rel.get("type") == "imports":
            rules += [(p, n, origin) for p, n, origin in _import_rules(reader, workspace, rel, rel_path)]
    quality = tuple(q for p, n, origin in rules
                    if (q := _read_rule(reader, workspace, n, p, origin, values.get("logical_type"))) is not None)

    children = tuple(_read_property(reader, workspace, index, child, child_path)
                     for child_path, child in reader.items(node, "properties", path))
    items = node.get("items")
    # ODCS 3.2 (RFC 0030): `map: {key: <property>, value: <property>}`, read as the key and value elements
    entry = reader.mapping(node, "map", path)
    elements = {attribute: _read_property(reader, workspace, index, {"name": step, **part}, path + ("map", step))
                for step, attribute in (("key", "keys"), ("value", "values"))
                if isinstance(part := reader.get(entry, step, path + ("map",), "mapping"), dict)}
    name = reader.require(node, "name", path, "string", "a property") or f"property[{path[-1]}]"
    return Field(
        name=name,
        id=reader.get(node, "id", path, "string"),
        source=reader.source(path),
        quality=quality,
        fields=children,
        items=_read_property(reader, workspace, index, {"name": "items", **items}, path + ("items",)) if isinstance(items, dict) else None,
        **elements,
        **values,
    )


def _is_pii(node: dict) -> bool:
    """ODCS has no `pii` flag: a `pii` classification, tag or customProperty marks one."""
    if str(node.get("classification", "")).lower() == "pii" or node.get("pii") is True:
        return True
    tags = node.get("tags")
    if isinstance(tags, list) and "pii" in [str(t).lower() for t in tags]:
        return True
    props = node.get("customProperties")
    return isinstance(props, list) and any(isinstance(p, dict) and p.get("property") == "pii" and p.get("value") in (True, "true") for p in props)


def _read_rule(reader: Reader, workspace: Workspace, node: dict, path: tuple, origin: tuple[Document, str] | None,
               logical_type: str | None = None) -> QualityRule | None:
    if origin is None:
        return read_quality_rule(reader, node, path, standard="odcs", logical_type=logical_type)
    document, reference = origin
    return read_quality_rule(Reader(document, workspace.findings), node, path, standard="odcs", imported_from=reference,
                             logical_type=logical_type)


def _import_rules(reader: Reader, workspace: Workspace, rel: dict, rel_path: tuple) -> list[tuple[tuple, dict, tuple[Document, str]]]:
    found = _resolve_import(reader, workspace, rel, rel_path)
    if found is None:
        return []
    document, content, content_path, reference, section = found
    if section != "quality":
        reader.report("DCB127", rel_path + ("to",), f"`{reference}` is a {section} item, imported where quality rules go",
                      expected="a quality rule (`#quality.<id>`)", found=section)
        return []
    items = content if isinstance(content, list) else [content]
    paths = [content_path + (i,) for i in range(len(items))] if isinstance(content, list) else [content_path]
    return [(p, item, (document, reference)) for p, item in zip(paths, items) if isinstance(item, dict)]


def _import(reader: Reader, workspace: Workspace, rel: dict, rel_path: tuple, *, expect: str) -> list[tuple[Reader, tuple, dict]]:
    """Schema-level import of properties: returns (reader, path, node) triples to read as local properties."""
    found = _resolve_import(reader, workspace, rel, rel_path)
    if found is None:
        return []
    document, content, content_path, reference, section = found
    if section not in ("properties", "schema"):
        reader.report("DCB127", rel_path + ("to",), f"`{reference}` is a {section} item, imported where properties go",
                      expected="properties (`#properties.<id>` or `#schema.<id>.properties.<id>`)", found=section)
        return []
    items = content if isinstance(content, list) else [content]
    # properties keep their own file and path in the library; findings on them point there
    library = Reader(document, workspace.findings)
    return [(library, content_path, item) for item in items if isinstance(item, dict)]


def _resolve_import(reader: Reader, workspace: Workspace, rel: dict, rel_path: tuple):
    """Follow an `imports` relationship to its content: (document, content, path, reference, section)."""
    to_path = rel_path + ("to",)
    reference = reader.require(rel, "to", rel_path, "string", "an imports relationship")
    if reference is None:
        return None
    file, fragment = split_reference(reference, reader.file)
    where = Finding("DCB122", reader.file, format_path(to_path), "", line=reader.document.line_of(to_path))
    document = workspace.document(file, referenced_from=(reader.file, format_path(to_path), where.line))
    if document is None:
        return None
    if not workspace.enter(f"{document.file}#{fragment}", where):
        return None
    try:
        located = _locate(document.data, fragment)
        if located is None:
            reader.report("DCB123", to_path, f"`{reference}` points at nothing in {document.file}",
                          expected="an item with that id (e.g. `#quality.<rule id>`)", found=reference)
            return None
        content, content_path, section = located
        workspace.definitions.append((document, content_path, section))
        # an imported item may import in turn: resolve those now so cycles are caught
        for nested_path, nested in Reader(document, workspace.findings).items(content, "relationships", content_path) if isinstance(content, dict) else []:
            if nested.get("type") == "imports":
                _resolve_import(Reader(document, workspace.findings), workspace, nested, nested_path)
        return document, content, content_path, reference, section
    finally:
        workspace.leave()


def _locate(data: Any, fragment: str) -> tuple[Any, tuple, str] | None:
    """Find `section.<id>[.section.<id>...]` in a document; items match by `id`, then by `name`."""
    parts = [p for p in _REFERENCE_SEPARATORS.split(fragment.strip().lstrip("/")) if p]
    if not parts:
        return None
    node, path, section = data, (), ""
    while parts:
        section = _SECTIONS.get(parts[0], parts[0])
        if not isinstance(node, dict) or section not in node:
            return None
        node, path = node[section], path + (section,)
        parts = parts[1:]
        if not parts:
            break
        wanted = parts.pop(0)
        if not isinstance(node, list):
            return None
        position = next((i for i, item in enumerate(node) if isinstance(item, dict) and item.get("id") == wanted), None)
        if position is None:
            position = next((i for i, item in enumerate(node) if isinstance(item, dict) and item.get("name") == wanted), None)
        if position is None:
            return None
        node, path = node[position], path + (position,)
    return node, path, "quality" if section == "quality" else section


def _read_relationship(reader: Reader, index: _Index, rel: dict, path: tuple, model: str,
                       implicit_from: str | None) -> tuple[list[ForeignKey], list[RelatesTo]]:
    rel_type = reader.get(rel, "type", path, "string") or "foreignKey"
    if rel_type == "imports":
        return [], []
    to = rel.get("to")
    if to is None:
        reader.report("DCB102", path, "a relationship needs `to`", expected="`to: schema.<object>.properties.<property>`", found="nothing")
        return [], []
    targets = to if isinstance(to, list) else [to]
    rel_id = reader.get(rel, "id", path, "string")
    if rel_type == "relatesTo":
        return [], [RelatesTo(from_ref=implicit_from or str(rel.get("from", model)), to=tuple(map(str, targets)), source=reader.source(path),
                              description=rel.get("description") if isinstance(rel.get("description"), str) else None, id=rel_id)]
    if rel_type != "foreignKey":
        reader.report("DCB101", path + ("type",), f"unknown relationship type `{rel_type}`", expected="foreignKey, relatesTo or imports", found=repr(rel_type))
        return [], []
    if implicit_from is not None:
        if "from" in rel:
            reader.report("DCB100", path + ("from",), "a property-level relationship must not give `from`; it is the property itself",
                          expected="no `from`", found=describe(rel["from"]))
        sources = [(model, implicit_from)]
    else:
        frm = rel.get("from")
        if frm is None:
            reader.report("DCB102", path, "a schema-level foreign key needs `from`", expected="`from: schema.<object>.properties.<property>`", found="nothing")
            return [], []
        if isinstance(frm, list) != isinstance(to, list):
            reader.report("DCB126", path, "`from` and `to` must both be single references or both be lists",
                          expected="two strings or two lists of equal length", found=f"from: {describe(frm)}, to: {describe(to)}")
            return [], []
        sources = [_resolve(reader, index, str(f), path + ("from",)) for f in (frm if isinstance(frm, list) else [frm])]
    resolved = [_resolve(reader, index, str(t), path + ("to",)) for t in targets]
    if None in sources or None in resolved:
        return [], []
    if len(sources) != len(resolved):
        reader.report("DCB126", path, f"the foreign key pairs {len(sources)} column(s) with {len(resolved)} target column(s)",
                      expected="as many target columns as source columns", found=f"{len(sources)} -> {len(resolved)}")
        return [], []
    if len({m for m, _ in sources}) > 1 or sources[0][0] != model:
        reader.report("DCB125", path + ("from",), f"`from` must name columns of `{model}`, where the relationship is written",
                      expected=f"properties of {model}", found=", ".join(f"{m}.{c}" for m, c in sources))
        return [], []
    if len({m for m, _ in resolved}) > 1:
        reader.report("DCB125", path + ("to",), "the columns of a composite foreign key must belong to one object",
                      expected="properties of one object", found=", ".join(f"{m}.{c}" for m, c in resolved))
        return [], []
    return [ForeignKey(columns=tuple(c for _, c in sources), to_model=resolved[0][0], to_columns=tuple(c for _, c in resolved),
                       source=reader.source(path), description=rel.get("description") if isinstance(rel.get("description"), str) else None,
                       id=rel_id)], []


def _resolve(reader: Reader, index: _Index, reference: str, path: tuple) -> tuple[str, str] | None:
    if "#" in reference:
        file, _, fragment = reference.partition("#")
        if file and Path(reader.file).parent.joinpath(file).resolve() != Path(reader.file).resolve():
            reader.report("DCB125", path, f"`{reference}` points into another contract; foreign keys across contracts are not checked",
                          expected="a property of this contract", found=reference, severity="warning")
            return None
        reference = fragment
    found = resolve_column(index, reference)
    if found is None:
        reader.report("DCB125", path, f"`{reference}` names no property of this contract",
                      expected="`schema.<object id>.properties.<property id>` or `table.column`", found=repr(reference))
    return found


def _owned(reader: Reader, items: list[tuple[tuple, dict]]) -> list[tuple[Reader, tuple, dict]]:
    """(path, node) pairs of one document -> (reader, path, node) triples, which may mix documents."""
    return [(reader, item_path, item) for item_path, item in items]


def _where(owner: Reader, reader: Reader, path: tuple) -> str:
    return format_path(path) if owner is reader else f"{owner.file}#{format_path(path)}"


def _check_names(reader: Reader, properties: list[tuple[Reader, tuple, dict]], path: tuple) -> None:
    seen: dict[str, tuple[Reader, tuple]] = {}
    for prop_reader, prop_path, prop in properties:
        name = prop.get("name")
        if isinstance(name, str) and name in seen:
            prop_reader.report("DCB103", prop_path + ("name",), f"`{name}` is defined twice",
                               expected="unique names", found=f"`{name}` also at {_where(seen[name][0], prop_reader, seen[name][1])}")
        elif isinstance(name, str):
            seen[name] = (prop_reader, prop_path)


def _check_ids(reader: Reader, items: list[tuple[Reader, tuple, dict]], what: str) -> None:
    seen: dict[str, tuple[Reader, tuple]] = {}
    for item_reader, item_path, item in items:
        item_id = item.get("id")
        if not isinstance(item_id, (str, int)):
            continue
        if item_id in seen:
            item_reader.report("DCB124", item_path + ("id",), f"{what} id `{item_id}` is used twice",
                               expected="unique ids", found=f"`{item_id}` also at {_where(seen[item_id][0], item_reader, seen[item_id][1])}")
        else:
            seen[item_id] = (item_reader, item_path)


def _check_duplicate_ids(reader: Reader, data: dict) -> None:
    """Ids that references rely on: schema objects, SLA items, and quality rules anywhere in the file."""
    objects = reader.items(data, "schema", ()) if isinstance(data.get("schema"), list) else []
    _check_ids(reader, _owned(reader, objects), "schema object")
    _check_names(reader, _owned(reader, objects), ())
    if isinstance(data.get("slaProperties"), list):
        _check_ids(reader, _owned(reader, reader.items(data, "slaProperties", ())), "SLA property")
    rules: list[tuple[tuple, dict]] = []

    def collect(node: dict, path: tuple) -> None:
        if isinstance(node.get("quality"), list):
            rules.extend((path + ("quality", i), q) for i, q in enumerate(node["quality"]) if isinstance(q, dict))
        if isinstance(node.get("properties"), list):
            for i, child in enumerate(node["properties"]):
                if isinstance(child, dict):
                    collect(child, path + ("properties", i))

    for obj_path, obj in objects:
        collect(obj, obj_path)
    _check_ids(reader, _owned(reader, rules), "quality rule")


def _read_servers(reader: Reader, data: dict) -> list[Server]:
    servers = []
    for path, node in reader.items(data, "servers", ()) if isinstance(data.get("servers"), list) else []:
        name = reader.require(node, "server", path, "string", "a server")
        servers.append(Server(
            name=name or f"servers[{path[-1]}]",
            type=reader.require(node, "type", path, "string", "a server") or "unknown",
            source=reader.source(path),
            format=reader.get(node, "format", path, "string"),
            location=reader.get(node, "location", path, "string") or reader.get(node, "path", path, "string"),
            settings={k: v for k, v in node.items() if k not in ("server", "type", "format", "location", "path")},
        ))
    return servers


def _read_service_levels(reader: Reader, workspace: Workspace, index: _Index, data: dict, models: tuple[Model, ...]) -> list[ServiceLevel]:
    default_element = reader.get(data, "slaDefaultElement", (), "string")
    levels = []
    for path, node in reader.items(data, "slaProperties", ()) if isinstance(data.get("slaProperties"), list) else []:
        prop = reader.require(node, "property", path, "string", "an SLA property")
        if prop is None or prop == "dataQuality":
            continue
        kind = _SLA_KINDS.get(prop, "other")
        if kind == "other" and _misspelt_sla(reader, prop, path):
            continue
        value, unit = node.get("value"), reader.get(node, "unit", path, "string")
        threshold = None
        if kind in _TIMED_SLAS and value is not None:
            try:
                threshold = parse_duration(value, unit)
            except DurationOutOfRange as exc:
                reader.report("DCB151", path + ("value",), f"SLA `{prop}`: {exc}", expected=DURATION_RANGE,
                              found=f"value {describe(value)}, unit {describe(unit)}")
            except ValueError as exc:
                reader.report("DCB150", path + ("value",), f"SLA `{prop}`: {exc}", expected="a number with a time unit (d, h, hr, minutes, y) or a duration",
                              found=f"value {describe(value)}, unit {describe(unit)}")
        utc_offset = None
        if kind == "timeOfAvailability" and value is not None:
            try:
                threshold, utc_offset = time_of_day(value)
            except ValueError as exc:
                reader.report("DCB150", path + ("value",), f"SLA `{prop}`: {exc}", expected="a quoted time of day, e.g. \"09:00\" or \"09:00-08:00\"",
                              found=describe(value))
        model = field = None
        element = reader.get(node, "element", path, "string") or default_element
        if element and kind in _ELEMENT_SLAS:
            found = resolve_column(index, element.split(",")[0])
            if found is None:
                key = ("element",) if "element" in node else ()
                reader.report("DCB125", path + key if key else ("slaDefaultElement",), f"SLA element `{element}` names no property of this contract",
                              expected="table.column of an existing property", found=repr(element))
            else:
                model, field = found
        levels.append(ServiceLevel(kind=kind, name=prop, id=node.get("id") if isinstance(node.get("id"), str) else None,
                                   source=reader.source(path), description=reader.get(node, "description", path, "string"),
                                   threshold=threshold, raw_value=value, unit=unit, model=model, field=field, utc_offset=utc_offset))
    return levels


def time_of_day(value: Any) -> tuple[timedelta, timedelta]:
    """`"09:00-08:00"` -> (9 hours since midnight, -8 hours from UTC); without an offset, UTC."""
    found = _TIME_OF_DAY.match(value) if isinstance(value, str) else None
    if found is None:
        raise ValueError(f"{describe(value)} is not a time of day (HH:MM, optionally :SS and an offset such as -08:00 or Z)")
    hours, minutes, seconds, offset = found.groups()
    offset = offset if offset and offset != "Z" else "+00:00"
    sign = -1 if offset[0] == "-" else 1
    offset_hours, offset_minutes = offset[1:3], offset[-2:]
    return (timedelta(hours=int(hours), minutes=int(minutes), seconds=int(seconds or 0)),
            sign * timedelta(hours=int(offset_hours), minutes=int(offset_minutes)))


def _misspelt_sla(reader: Reader, prop: str, path: tuple) -> bool:
    """DCB104 for an SLA property that is a near miss of one dc-bridge checks (`Freshness`, `retension`):
    as written it would be kept as a mere note and no check would run."""
    wanted = {name.lower(): name for name in _ELEMENT_SLAS}
    close = [wanted[prop.lower()]] if prop.lower() in wanted else \
        [wanted[name] for name in difflib.get_close_matches(prop.lower(), wanted, n=1, cutoff=0.8)]
    if not close:
        return False
    reader.report("DCB104", path + ("property",), f"SLA property `{prop}` is not one dc-bridge checks; did you mean `{close[0]}`?",
                  expected=f"`{close[0]}` (spelled exactly)", found=repr(prop),
                  hint=f"Write `property: {close[0]}`; as written, the SLA would be kept as a note and no {close[0]} check would run.")
    return True


def _read_objectives(reader: Reader, data: dict, models: tuple[Model, ...]) -> list[QualityObjective]:
    """`dataQuality` SLOs name quality rules through `relatesTo`; every named rule id must exist."""
    known = {rule.id for model in models for _, _, rule in model.quality_rules() if rule.id}
    objectives = []
    for path, node in reader.items(data, "slaProperties", ()) if isinstance(data.get("slaProperties"), list) else []:
        if node.get("property") != "dataQuality":
            continue
        rule_ids = []
        for rel_path, rel in reader.items(node, "relationships", path):
            targets = rel.get("to")
            for i, target in enumerate(targets if isinstance(targets, list) else [targets]):
                rule_id = str(target).rsplit(".quality.", 1)[-1].rsplit("/quality/", 1)[-1]
                if rule_id not in known:
                    reader.report("DCB125", rel_path + ("to",) + ((i,) if isinstance(targets, list) else ()),
                                  f"`{target}` names no quality rule of this contract", expected="the id of an existing quality rule", found=repr(target))
                else:
                    rule_ids.append(rule_id)
        value = reader.get(node, "value", path, "number")
        objectives.append(QualityObjective(id=node.get("id") if isinstance(node.get("id"), str) else None, source=reader.source(path),
                                           value=value, unit=reader.get(node, "unit", path, "string"),
                                           rule_ids=tuple(rule_ids), description=reader.get(node, "description", path, "string")))
    return objectives
