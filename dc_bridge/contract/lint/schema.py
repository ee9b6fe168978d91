"""Lint, part one: conformance to the official JSON schema of the declared version, and every key that is not the
standard's, with a "did you mean"."""

from __future__ import annotations

import difflib
import functools
import json
import re
from dataclasses import dataclass, replace
from importlib import resources
from typing import Any, Iterable

import jsonschema_rs

from dc_bridge.contract.reading import dcs as dcs_reader, odcs as odcs_reader
from dc_bridge.contract.reading.document import Document, format_path
from dc_bridge.contract.reading.quality import THRESHOLD_KEYS
from dc_bridge.contract.findings import CODES, Finding

# (standard, version or version prefix) -> bundled official schema; the packages carry the newest ones. ODCS 3.0's
# patch releases each have their own (3.0.1 added a property's `physicalName`, 3.0.2 renamed server keys)
_SCHEMAS = {
    ("odcs", "3.0.0"): ("dc_bridge.contract.lint", "schemas/odcs-v3.0.0.json"),
    ("odcs", "3.0.1"): ("dc_bridge.contract.lint", "schemas/odcs-v3.0.1.json"),
    ("odcs", "3.0.2"): ("dc_bridge.contract.lint", "schemas/odcs-v3.0.2.json"),
    ("odcs", "3.0"): ("dc_bridge.contract.lint", "schemas/odcs-v3.0.2.json"),
    ("odcs", "3.1"): ("dc_bridge.contract.lint", "schemas/odcs-v3.1.0.json"),
    ("odcs", "3.2"): ("open_data_contract_standard", "schema.json"),
    ("dcs", "1.0"): ("dc_bridge.contract.lint", "schemas/dcs-1.1.0.json"),
    ("dcs", "1.1"): ("dc_bridge.contract.lint", "schemas/dcs-1.1.0.json"),
    ("dcs", "1.2"): ("datacontract_specification", "schema.json"),
}
# RFC relationship types that postdate the official schemas; dc-bridge checks them itself
_RFC_RELATIONSHIPS = {"relatesTo", "imports"}
# keys dc-bridge reads although the official schema of some version lacks them (contracts.md says so)
# (both spellings of every threshold operator are read in both standards; DCS 0.9 wrote a custom check's
# body as `specification`; a DCS definition may itself be a `$ref`; ODCS 3.0 wrote `validValues` beside the rule)
_OPERATORS = frozenset(THRESHOLD_KEYS)
_READ_BEYOND_SCHEMA = {"odcs": frozenset({"enum", "pii", "validValues"}) | _OPERATORS,
                       "dcs": frozenset({"specification", "$ref"}) | _OPERATORS}
# free-form places whatever their schema says: extensions are the user's own
_FREE_FORM = frozenset({"customProperties"})
# keys whose spelling decides what runs: an unknown key whose nearest allowed key is one of these is DCB104
RUN_KEYS = frozenset({
    # fields and properties
    "required", "unique", "primaryKey", "primary", "primaryKeyPosition", "references", "enum", "pattern", "format",
    "minLength", "maxLength", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "type", "logicalType",
    "logicalTypeOptions", "physicalType", "physicalName", "precision", "scale", "fields", "properties", "items", "keys",
    "values", "$ref", "config", "pii", "classification", "name",
    # models, schema objects, the contract
    "models", "schema", "quality", "servicelevels", "slaProperties", "slaDefaultElement", "definitions", "relationships",
    "servers", "dataContractSpecification", "apiVersion", "kind",
    # quality rules
    "query", "metric", "rule", "arguments", "engine", "implementation", "specification", "unit", "severity", "validValues",
    "mustBe", "mustNotBe", "mustBeGreaterThan", "mustBeGreaterThanOrEqualTo", "mustBeGreaterOrEqualTo", "mustBeLessThan",
    "mustBeLessThanOrEqualTo", "mustBeLessOrEqualTo", "mustBeBetween", "mustNotBeBetween",
    # service levels and relationships
    "freshness", "latency", "retention", "frequency", "threshold", "period", "timestampField", "processedTimestampField",
    "sourceTimestampField", "element", "value", "property", "to", "from",
    # servers: where and how the data is read
    "location", "path", "delimiter", "server",
})



# standard -> place -> the keys its reader turns into checks (or into what a check reads), in every version
CHECKED_KEYS = {"odcs": odcs_reader.CHECKED_KEYS, "dcs": dcs_reader.CHECKED_KEYS}
_NAMES = {"odcs": "ODCS", "dcs": "DCS"}
_OTHER = {"odcs": "dcs", "dcs": "odcs"}
# (standard, place) -> the places of the other standard whose keys stand there when a contract mixes the two
# (a DCS field holds what ODCS writes on a property and under its logicalTypeOptions)
_OTHER_PLACES = {("dcs", "field"): ("field", "options"), ("odcs", "options"): ()}
_OPTION = "`logicalTypeOptions.{}`"
# (standard, place, key of the other standard or of no standard) -> how this standard writes it
SPELLINGS: dict[tuple[str, str, str], str] = {
    ("odcs", "contract", "info"): "`name`, `version` and `description` at the top level (`info.title` -> `name`, `info.version` -> `version`)",
    ("odcs", "contract", "models"): "`schema` (a list of objects, each with a `name` and `properties`)",
    ("odcs", "contract", "servicelevels"): "`slaProperties` (a list of `{property, value, unit, element}`)",
    ("odcs", "contract", "definitions"): "properties imported through `relationships` of `type: imports`",
    ("odcs", "model", "fields"): "`properties` (a list of properties, each with a `name`)",
    ("odcs", "model", "primaryKey"): "`primaryKey: true` (and `primaryKeyPosition`) on each key property",
    ("odcs", "field", "type"): "`logicalType` (or `physicalType` for the type in the data)",
    ("odcs", "field", "config"): "`physicalType` (the type in the data)",
    ("odcs", "field", "primary"): "`primaryKey`",
    ("odcs", "field", "fields"): "`properties`",
    ("odcs", "field", "keys"): "`map.key` (ODCS v3.2.0)",
    ("odcs", "field", "values"): "`map.value` (ODCS v3.2.0)",
    ("odcs", "field", "references"): "`relationships: [{to: <object>.<property>}]` (ODCS v3.1.0 and later)",
    ("odcs", "field", "$ref"): "`relationships: [{type: imports, to: <file>#properties.<id>}]`",
    ("odcs", "field", "pii"): "`classification: pii`",
    **{("odcs", "field", key): _OPTION.format(key) for key in (
        "pattern", "format", "minLength", "maxLength", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
        "precision", "scale")},
    ("odcs", "quality", "specification"): "`implementation`",
    ("odcs", "sla", "threshold"): "`value` and `unit` (`value: 1`, `unit: d`)",
    ("odcs", "sla", "period"): "`value` and `unit` (`value: 1`, `unit: y`)",
    ("odcs", "sla", "timestampField"): "`element: <object>.<property>`",
    ("odcs", "sla", "processedTimestampField"): "`element: <object>.<property>`",
    ("odcs", "sla", "sourceTimestampField"): "`element: <object>.<property>`",
    ("dcs", "contract", "schema"): "`models` (a mapping of model names to models)",
    ("dcs", "contract", "slaProperties"): "`servicelevels` (a mapping: `freshness`, `latency`, `retention`)",
    ("dcs", "contract", "slaDefaultElement"): "`timestampField` in each of `servicelevels`",
    ("dcs", "contract", "version"): "`info.version`",
    ("dcs", "model", "properties"): "`fields` (a mapping of field names to fields)",
    ("dcs", "model", "physicalName"): "the model's key under `models:`, which is the table's name",
    ("dcs", "model", "relationships"): "`references: <model>.<field>` on the field",
    ("dcs", "field", "logicalType"): "`type`",
    ("dcs", "field", "logicalTypeOptions"): "its keys on the field itself (`minLength: 1`, not `logicalTypeOptions: {minLength: 1}`)",
    ("dcs", "field", "physicalName"): "the field's key under `fields:`, which is the column's name",
    ("dcs", "field", "physicalType"): "`config.sparkType`",
    ("dcs", "field", "primaryKeyPosition"): "the model's `primaryKey: [<field>, ...]` in key order",
    ("dcs", "field", "properties"): "`fields`",
    ("dcs", "field", "map"): "`keys` and `values`",
    ("dcs", "field", "relationships"): "`references: <model>.<field>`",
    ("dcs", "field", "semanticType"): "nothing: DCS has no measures or dimensions (leave the field out, or describe it)",
    ("dcs", "quality", "validValues"): "`metric: invalidValues` with `arguments: {validValues: [...]}` (DCS 1.2.0)",
    ("dcs", "sla", "value"): "`threshold` (freshness, latency) or `period` (retention), e.g. `threshold: 25h`",
    ("dcs", "sla", "unit"): "the unit inside `threshold` or `period` (`25h`, `P1Y`)",
    ("dcs", "sla", "element"): "`timestampField` (latency: `processedTimestampField` and `sourceTimestampField`)",
    ("dcs", "sla", "property"): "the service level's key under `servicelevels:` (`freshness`, `latency`, `retention`)",
}
# (standard, missing required key) -> where the other standard keeps it: an ODCS contract with a DCS `info:` block
_MOVED = {("odcs", "version"): ("info", "version"), ("odcs", "status"): ("info", "status")}
# a field's bounds may be quoted to keep a decimal's digits (docs/contracts.md): the schema sees the number
_BOUNDS = frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"})
_DECIMAL = re.compile(r"^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$")


# what a mapping of a document is, by the list or mapping that holds it, else by its own key
_HELD_IN = {"odcs": {"schema": "model", "properties": "field", "map": "field", "quality": "quality", "slaProperties": "sla",
                     "servers": "server"},
            "dcs": {"models": "model", "fields": "field", "definitions": "field", "quality": "quality", "servicelevels": "sla",
                    "servers": "server"}}
_OWN_KEY = {"odcs": {"items": "field", "logicalTypeOptions": "options"}, "dcs": {"items": "field", "keys": "field", "values": "field"}}


def place_kind(standard: str, path: tuple) -> str | None:
    """What stands at `path`: `contract`, `model`, `field`, `options` (ODCS logicalTypeOptions), `quality`,
    `sla`, `server`, or None (anywhere else). Also for the nodes of a library or definitions file."""
    if not path:
        return "contract"
    holder = path[-2] if len(path) > 1 else None
    return _HELD_IN[standard].get(holder) or _OWN_KEY[standard].get(path[-1])


def _other_standard_keys(standard: str, place: str | None) -> frozenset[str]:
    """The keys the other standard's reader turns into checks at the place that corresponds to `place`."""
    other = _OTHER[standard]
    places = _OTHER_PLACES.get((standard, place), (place,))
    return frozenset().union(*(CHECKED_KEYS[other].get(p, frozenset()) for p in places))


_MISSING_KEY = re.compile(r"schema: '(.+)' is a required property$")
# the keys an additionalProperties / unevaluatedProperties finding names
_EXTRA_KEYS = re.compile(r"\((.*) (?:is not a field|are not fields) of the standard\)$")


def _said_already(finding: Finding, said: dict[tuple[str, str], list[str]]) -> bool:
    """Whether a dc-bridge error at the schema finding's place, inside it or around it says it (better): `.nan` as a
    bound is DCB151 at the bound, where the schema fails the whole rule or each item of `mustBeBetween`. Any of them
    does, except for a missing key the loader's messages do not name (`the contract has no `id`` leaves `status` to
    the schema)."""
    places = [path for file, path in said if file == finding.file]
    extra = _EXTRA_KEYS.search(finding.message)
    if extra:  # keys the schema did not take: said where one holds a value dc-bridge refused (`.nan` fails the
        # whole branch, and the schema names every key of it), never for a key nothing else speaks of (`impact`)
        keys = re.findall(r"'([^']*)'", extra[1])
        return any(_same_place(path, f"{finding.path}.{key}") for key in keys for path in places)
    messages = [message for path in places if _same_place(path, finding.path) for message in said[(finding.file, path)]]
    if not messages:
        return False
    missing = _MISSING_KEY.match(finding.message)
    return missing is None or any(f"`{missing[1]}`" in message for message in messages)


def _same_place(error: str, schema: str) -> bool:
    """Whether a dc-bridge error at `error` speaks of the schema's finding at `schema`: the same place, a place
    inside it, or the value whose item the schema names (`mustBeBetween` for `mustBeBetween[0]`). An error
    around it does not: DCB161 (no threshold) on a rule must not hide the misspelt `mustbe` inside it."""
    inside = schema and error.startswith(schema) and error[len(schema):len(schema) + 1] in (".", "[")
    return error == schema or inside or re.fullmatch(re.escape(error) + r"\[\d+\]", schema) is not None


# ---------------------------------------------------------------------------------------------
# JSON schema


@functools.lru_cache(maxsize=None)
def _schema(standard: str, prefix: str) -> dict:
    package, name = _SCHEMAS[(standard, prefix)]
    schema = json.loads(resources.files(package).joinpath(name).read_text(encoding="utf-8"))
    _require_tested_keys(schema)
    return schema


def _require_tested_keys(node: Any, in_if: bool = False) -> None:
    """The ODCS schemas branch on `if: {properties: {logicalType: {const: map}}}` without requiring
    `logicalType`, so a property that has none takes every branch (3.2: `map is a required property` for
    every typeless property): each such condition is made to require the key it tests, as intended."""
    if isinstance(node, list):
        for item in node:
            _require_tested_keys(item, in_if)
    elif isinstance(node, dict):
        if in_if and isinstance(node.get("properties"), dict) and "required" not in node:
            node["required"] = sorted(node["properties"])
        for key, value in node.items():
            _require_tested_keys(value, in_if or key == "if")


@functools.lru_cache(maxsize=None)
def _validator(standard: str, prefix: str) -> Any:
    """The compiled validator of one official schema (jsonschema-rs: the Python `jsonschema` took 58 s on a
    contract of 500 nested properties, all of it in `unevaluatedProperties`; see docs/benchmarks.md). `format`
    is an annotation, as it was: dc-bridge checks the formats it runs itself."""
    return jsonschema_rs.validator_for(_schema(standard, prefix), validate_formats=False)


@dataclass(frozen=True)
class SchemaError:
    """One error of the official schema, in the terms lint reports it: the keyword that failed (`validator`),
    its value in the schema, the instance and its path, and a message worded as dc-bridge has always worded it."""
    validator: str | None
    absolute_path: tuple
    message: str
    validator_value: Any
    instance: Any


def schema_errors(standard: str, prefix: str, data: Any) -> list[SchemaError]:
    """The schema's errors on `data`, in the order of a depth-first walk of the schema (keywords as written)."""
    root = _schema(standard, prefix)
    found = []
    for error in _validator(standard, prefix).iter_errors(data):
        path = tuple(error.instance_path)
        if type(error.kind).__name__ == "PropertyNames":  # a key's own error, reported at the mapping that holds it
            error = error.kind.error
            instance = error.instance
        else:
            instance = _at_path(data, path)
        found.append((_walk_order(root, error.evaluation_path), _schema_error(root, error, path, instance)))
    return [error for _, error in sorted(found, key=lambda pair: pair[0])]


_MISSING = object()


def _at_path(node: Any, path: Iterable) -> Any:
    for part in path:
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            return _MISSING
    return node


def _walk_order(root: dict, evaluation_path: list) -> tuple:
    """Where a schema location comes in a depth-first walk that takes keywords, properties and branches in the
    order the schema writes them (`then`/`else` where `if` stands), following `$ref`: errors on one instance are
    reported in that order, as the Python `jsonschema` reported them."""
    key: list[int] = []
    node: Any = root
    expect = "keyword"  # what the next step names: a keyword, a name (under properties) or an index (allOf)
    for step in evaluation_path:
        if expect == "name":
            names = list(node) if isinstance(node, dict) else []
            key.append(names.index(step) if step in names else len(names))
            node, expect = node.get(step) if isinstance(node, dict) else None, "keyword"
        elif expect == "index":
            key.append(step if isinstance(step, int) else 0)
            node = node[step] if isinstance(node, list) and isinstance(step, int) and step < len(node) else None
            expect = "keyword"
        elif not isinstance(node, dict):
            key.append(0)
        else:
            names = list(node)
            position = "if" if step in ("then", "else") and "if" in node else step
            key.append(names.index(position) if position in names else len(names))
            if step == "$ref" and isinstance(node.get("$ref"), str):
                node = _resolve_ref(root, node["$ref"])
                continue
            node = node.get(step)
            if step in _NAMED_SCHEMAS:
                expect = "name"
            elif isinstance(node, list):
                expect = "index"
    return tuple(key)


_NAMED_SCHEMAS = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})


def _resolve_ref(root: dict, ref: str) -> Any:
    node: Any = root
    for part in ref.lstrip("#").strip("/").split("/"):
        if not part:
            continue
        part = part.replace("~1", "/").replace("~0", "~")
        node = node[int(part)] if isinstance(node, list) else (node or {}).get(part)
    return node


def _types(value) -> str:
    return ", ".join(repr(t) for t in ([value] if isinstance(value, str) else value))


def _shown(value: Any) -> str:
    """A value as a schema message quotes it: its repr, cut to 60 characters (the finding's path and line say
    where the whole of it is: a `team` object is not printed in full)."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


# keyword -> the message the Python `jsonschema` writes for (instance, keyword value, jsonschema-rs error kind)
_MESSAGES: dict[str, Any] = {
    "type": lambda i, v, k: f"{i!r} is not of type {_types(v)}",
    "enum": lambda i, v, k: f"{i!r} is not one of {v!r}",
    "const": lambda i, v, k: f"{v!r} was expected",
    "pattern": lambda i, v, k: f"{i!r} does not match {v!r}",
    "minItems": lambda i, v, k: f"{i!r} {'should be non-empty' if v == 1 else 'is too short'}",
    "minLength": lambda i, v, k: f"{i!r} {'should be non-empty' if v == 1 else 'is too short'}",
    "maxItems": lambda i, v, k: f"{i!r} {'is expected to be empty' if v == 0 else 'is too long'}",
    "maxLength": lambda i, v, k: f"{i!r} {'is expected to be empty' if v == 0 else 'is too long'}",
    "minProperties": lambda i, v, k: f"{i!r} {'should be non-empty' if v == 1 else 'does not have enough properties'}",
    "maxProperties": lambda i, v, k: f"{i!r} {'is expected to be empty' if v == 0 else 'has too many properties'}",
    "minimum": lambda i, v, k: f"{i!r} is less than the minimum of {v!r}",
    "maximum": lambda i, v, k: f"{i!r} is greater than the maximum of {v!r}",
    "exclusiveMinimum": lambda i, v, k: f"{i!r} is less than or equal to the minimum of {v!r}",
    "exclusiveMaximum": lambda i, v, k: f"{i!r} is greater than or equal to the maximum of {v!r}",
    "uniqueItems": lambda i, v, k: f"{i!r} has non-unique elements",
    "not": lambda i, v, k: f"{i!r} should not be valid under {v!r}",
    "anyOf": lambda i, v, k: f"{i!r} is not valid under any of the given schemas",
    "oneOf": lambda i, v, k: (f"{i!r} is valid under more than one of the given schemas" if k == "OneOfMultipleValid"
                              else f"{i!r} is not valid under any of the given schemas"),
}


def _schema_error(root: dict, error: Any, path: tuple, instance: Any) -> SchemaError:
    """An error of jsonschema-rs as the Python `jsonschema` worded it (lint's messages and tests keep that text)."""
    location = list(error.schema_path)
    keyword = location[-1] if location and isinstance(location[-1], str) else None
    value = _at_path(root, location)
    holder = _at_path(root, location[:-1])
    kind = type(error.kind).__name__
    if kind in ("FalseSchema",) or keyword is None or value is _MISSING:
        return SchemaError(None, path, f"False schema does not allow {instance!r}" if kind == "FalseSchema" else error.message,
                           None, instance)
    if kind in ("AdditionalProperties", "UnevaluatedProperties"):
        extras = sorted(error.kind.unexpected, key=str)
        names, verb = ", ".join(repr(extra) for extra in extras), "was" if len(extras) == 1 else "were"
        if kind == "AdditionalProperties" and isinstance(holder, dict) and "patternProperties" in holder:
            patterns = ", ".join(repr(each) for each in sorted(holder["patternProperties"]))
            message = f"{names} {'does' if len(extras) == 1 else 'do'} not match any of the regexes: {patterns}"
        elif kind == "UnevaluatedProperties" and value is not False:
            message = f"Unevaluated properties are not valid under the given schema ({names} {verb} unevaluated and invalid)"
        else:
            message = f"{'Additional' if kind == 'AdditionalProperties' else 'Unevaluated'} properties are not allowed ({names} {verb} unexpected)"
    elif keyword == "required":
        message = f"{error.kind.property!r} is a required property"
    else:
        message = _MESSAGES[keyword](instance, value, kind) if keyword in _MESSAGES else error.message
    return SchemaError(keyword, path, message, value, instance)


def schema_key(standard: str, spec_version: str) -> tuple[str, str] | None:
    """The `_SCHEMAS` key of a version: its own release's schema where one is bundled, else its minor version's."""
    parts = spec_version.lstrip("v").split(".")
    return next((key for key in ((standard, ".".join(parts[:3])), (standard, ".".join(parts[:2]))) if key in _SCHEMAS), None)


def validate_schema(document: Document, kind: str, spec_version: str) -> list[Finding]:
    standard = "dcs" if kind == "dcs" else "odcs"
    if kind == "library":
        return []  # a rule library is not a contract; its rules are checked by the normaliser
    key = schema_key(standard, spec_version)
    if key is None:
        return []
    data = _for_schema(document.data, standard)
    unknown = unknown_keys(document, kind, spec_version, data)
    by_place: dict[tuple, dict[str, UnknownKey]] = {}
    for item in unknown:
        by_place.setdefault(item.parent, {})[item.key] = item
    findings = _unknown_key_findings(document, unknown, standard, spec_version, data)
    seen = set()  # the same error can come from several branches of a schema (allOf, if/then)
    errors = sorted(schema_errors(*key, data), key=lambda e: list(map(str, e.absolute_path)))
    # a key the schema does not know can fail both `additionalProperties` (one branch of the schema) and
    # `unevaluatedProperties` (the whole object): one finding says it, the first, which every validator reports
    # (jsonschema-rs leaves out the second where the first failed on the same key)
    additional = {(tuple(e.absolute_path), e.message.partition("(")[2]) for e in errors if e.validator == "additionalProperties"}
    for error in errors:
        path = tuple(error.absolute_path)
        if error.validator == "unevaluatedProperties" and (path, error.message.partition("(")[2]) in additional:
            continue
        finding = _without_run_keys(Finding("DCB100", document.file, format_path(path), f"schema: {_schema_message(error)}",
                                            line=document.line_of(path), expected=_expected(error), found=shortened(error.instance),
                                            hint=_value_hint(error, standard, document.data)),
                                    error, by_place)
        if finding is not None and (finding.path, finding.message) not in seen:
            seen.add((finding.path, finding.message))
            findings.append(finding)
    return findings


# ---------------------------------------------------------------------------------------------
# unknown keys: every key must be one of the standard's at its place, read from the official schema


@dataclass(frozen=True)
class UnknownKey:
    parent: tuple  # path of the mapping that holds the key
    key: str
    suggestion: str | None  # the nearest allowed key at that place
    forbidden: bool  # the official schema itself forbids extra keys there (it reports them as DCB100)
    beyond: bool = False  # a key dc-bridge documents reading beyond the schemas (`_READ_BEYOND_SCHEMA`)
    # what dc-bridge does with it (`_verdict`): `read` (its check runs), `other` (the other standard's key, not
    # read here: DCB104), `typo` (a near miss of a key that changes what runs: DCB104), `plain` (changes nothing)
    verdict: str = "plain"

    @property
    def changes_run(self) -> bool:
        return self.verdict in ("other", "typo")

    @property
    def own_finding(self) -> bool:
        """Said by a finding of its own (DCB104, or DCB100 saying the check still runs), not the schema's."""
        return self.changes_run or (self.verdict == "read" and (self.forbidden or not self.beyond))


# keys that name what they stand on, which each standard does its own way (a DCS field is named by its key
# under `fields:`): the other standard's `name` or `id` renames nothing, so it is never DCB104 for that
_IDENTITY = frozenset({"name", "id"})


def _verdict(item: UnknownKey, standard: str) -> str:
    place = place_kind(standard, item.parent)
    if item.key in CHECKED_KEYS[standard].get(place, ()):
        return "read"
    if item.key not in _IDENTITY and (item.key in _other_standard_keys(standard, place) or (standard, place, item.key) in SPELLINGS):
        return "other"
    return "typo" if not item.beyond and item.suggestion in RUN_KEYS else "plain"


class _SchemaPlaces:
    """Which keys the official JSON schema allows at each place of a document: the union of `properties`
    over every branch (`$ref`, allOf/anyOf/oneOf, if/then/else), open where `additionalProperties` or
    `patternProperties` let the user name keys (models, fields, `config`), free-form where no keys are named."""

    def __init__(self, schema: dict, extras: frozenset[str]):
        self.root, self.extras = schema, extras
        # what the schemas at a place allow, by the ids of those schemas (all of them dicts of `root`, which
        # outlives this object): a contract's thousand fields share one field schema, read once
        self._places: dict[tuple[int, ...], _Place] = {}

    def _resolve(self, ref: str) -> Any:
        node: Any = self.root
        for part in ref.lstrip("#").strip("/").split("/"):
            part = part.replace("~1", "/").replace("~0", "~")
            if not isinstance(node, dict) or part not in node:
                return None
            node = node[part]
        return node

    def branches(self, schemas: list) -> list[dict]:
        found: list[dict] = []
        seen: set[int] = set()
        pending = list(schemas)
        while pending:
            node = pending.pop()
            if not isinstance(node, dict) or id(node) in seen:
                continue
            seen.add(id(node))
            found.append(node)
            if isinstance(node.get("$ref"), str) and node["$ref"].startswith("#"):
                pending.append(self._resolve(node["$ref"]))
            for key in ("allOf", "anyOf", "oneOf"):
                pending.extend(node.get(key) or [])
            pending.extend(node[key] for key in ("then", "else") if key in node)
        return found

    def place(self, schemas: list) -> _Place:
        key = tuple(id(schema) for schema in schemas)
        place = self._places.get(key)
        if place is None:
            place = self._places[key] = self._read_place(schemas)
        return place

    def _read_place(self, schemas: list) -> _Place:
        branches = self.branches(schemas)
        items = [b["items"] for b in branches if isinstance(b.get("items"), dict)]
        named: dict[str, list] = {}
        patterns: list[tuple[str, Any]] = []
        open_schemas, open_place, forbidden = [], False, False
        for branch in branches:
            for key, sub in (branch.get("properties") or {}).items():
                named.setdefault(key, []).append(sub)
            patterns += list((branch.get("patternProperties") or {}).items())
            extra = branch.get("additionalProperties")
            if extra is True or isinstance(extra, dict):
                open_place = True
                if isinstance(extra, dict):
                    open_schemas.append(extra)
            forbidden = forbidden or extra is False or branch.get("unevaluatedProperties") is False
        return _Place(items, named, patterns, open_schemas, open_place, forbidden, frozenset(named) | self.extras)

    def walk(self, data: Any, schemas: list, path: tuple, found: list[UnknownKey]) -> None:
        if not isinstance(data, (list, dict)):
            return
        place = self.place(schemas)
        if isinstance(data, list):
            if place.items:
                for index, item in enumerate(data):
                    self.walk(item, place.items, path + (index,), found)
            return
        if not place.named and not place.patterns:
            if place.open_schemas:  # a map of names (models, fields): each value has the schema of additionalProperties
                for key, value in data.items():
                    self.walk(value, place.open_schemas, path + (key,), found)
            return  # else free-form: no keys are named there
        for key, value in data.items():
            if not isinstance(key, str) or key.startswith("x-") or key in _FREE_FORM:
                continue
            subs = place.subs(key)
            if subs:
                self.walk(value, subs, path + (key,), found)
            elif place.open_place:
                self.walk(value, place.open_schemas, path + (key,), found)
            elif key not in place.named:
                beyond = key in self.extras
                found.append(UnknownKey(path, key, None if beyond else nearest_key(key, place.allowed), place.forbidden, beyond))


class _Place:
    """What the official schema says of one place of a document: the schemas of list items, of each named key
    and of keys matching a pattern; whether other keys are open (and their schemas) or forbidden."""

    def __init__(self, items: list, named: dict[str, list], patterns: list[tuple[str, Any]], open_schemas: list,
                 open_place: bool, forbidden: bool, allowed: frozenset[str]):
        self.items, self.named, self.patterns, self.open_schemas = items, named, patterns, open_schemas
        self.open_place, self.forbidden, self.allowed = open_place, forbidden, allowed
        self._subs: dict[str, list] = {}

    def subs(self, key: str) -> list:
        """The schemas of the value of `key` here."""
        subs = self._subs.get(key)
        if subs is None:
            subs = self._subs[key] = self.named.get(key, []) + [sub for pattern, sub in self.patterns if re.search(pattern, key)]
        return subs


def nearest_key(key: str, allowed: Iterable[str]) -> str | None:
    """The allowed key the user most likely meant: equal but for case, `_` and `-` first, then the closest spelling."""
    squash = lambda text: text.lower().replace("_", "").replace("-", "")  # noqa: E731
    allowed = sorted(allowed)
    same = [a for a in allowed if squash(a) == squash(key)]
    if same:
        return same[0]
    lowered = {a.lower(): a for a in allowed}
    close = difflib.get_close_matches(key.lower(), list(lowered), n=1, cutoff=0.75)
    return lowered[close[0]] if close else None


def unknown_keys(document: Document, kind: str, spec_version: str, data: Any = None) -> list[UnknownKey]:
    """Every key of the document that is not part of its standard at its place (nor an `x-` extension).
    `data`: the document's `_for_schema` copy, when the caller has made it already."""
    standard = "dcs" if kind == "dcs" else "odcs"
    key = schema_key(standard, spec_version)
    if kind == "library" or key is None:
        return []
    found: list[UnknownKey] = []
    data = _for_schema(document.data, standard) if data is None else data
    _places(*key).walk(data, [_schema(*key)], (), found)
    return [replace(item, verdict=_verdict(item, standard)) for item in found]


# what a node reached by a `$ref` (DCS) or an import (ODCS) is read as -> its schemas in the standard
_REFERENCED_SCHEMAS = {
    # a DCS field's keys are merged over its definition's: either schema's keys are fine
    "field": ("#/properties/models/additionalProperties/properties/fields/additionalProperties",
              "#/properties/definitions/additionalProperties"),
    "quality": ("#/$defs/DataQuality",),
    "properties": ("#/$defs/SchemaProperty",),
    "schema": ("#/$defs/SchemaObject",),
}


def referenced_key_findings(main: Document, kind: str, definitions: list[tuple[Document, tuple, str]], spec_version: str) -> list[Finding]:
    """The unknown-key findings (DCB104 / DCB100) of the nodes a contract's `$ref`s and imports lead to in
    other files: a typo there (`requried` in a definitions file, `severty` in a rule library) would be as
    silent as in the contract. Read with the schemas of the contract's own standard and version."""
    standard = "dcs" if kind == "dcs" else "odcs"
    key = schema_key(standard, spec_version)
    if key is None:
        return []
    places = _places(*key)
    once = {(document.file, path): (document, path, what) for document, path, what in definitions if document.file != main.file}
    findings: list[Finding] = []
    for document, path, what in once.values():
        schemas = [schema for ref in _REFERENCED_SCHEMAS.get(what, ()) if (schema := places._resolve(ref)) is not None]
        if not schemas:
            continue
        unknown: list[UnknownKey] = []
        node = navigate_path(document.data, path)
        for item_path, item in (zip((path + (i,) for i in range(len(node))), node) if isinstance(node, list) else [(path, node)]):
            places.walk(_for_schema(item, standard), schemas, item_path, unknown)
        findings += _unknown_key_findings(document, [replace(item, verdict=_verdict(item, standard)) for item in unknown],
                                          standard, spec_version, None)
    return findings


def navigate_path(data: Any, path: tuple) -> Any:
    for part in path:
        data = data[part]
    return data


@functools.lru_cache(maxsize=None)
def _places(standard: str, prefix: str) -> _SchemaPlaces:
    return _SchemaPlaces(_schema(standard, prefix), _READ_BEYOND_SCHEMA[standard])


def _unknown_key_findings(document: Document, unknown: list[UnknownKey], standard: str, spec_version: str,
                          data: Any) -> list[Finding]:
    """DCB104 for keys that would change what runs but are not read (the other standard's, a near miss); DCB100
    saying the check still runs for keys dc-bridge reads although the declared version's schema lacks them;
    DCB100 for the rest where the schema does not say it itself. `data`: the document as the schema sees it
    (`_for_schema`), to look a key up in the other versions' schemas; None where the nodes are not a contract's."""
    findings = []
    for item in unknown:
        path = item.parent + (item.key,)
        place = place_kind(standard, item.parent)
        spelled = SPELLINGS.get((standard, place, item.key))
        where = dict(file=document.file, path=format_path(path), line=document.line_of(path), found=repr(item.key))
        if item.verdict == "other":
            other = _NAMES[_OTHER[standard]]
            findings.append(Finding("DCB104", message=f"`{item.key}` is a key of {other}, not of {_NAMES[standard]}, and dc-bridge "
                                    f"does not read it here; did you mean {spelled or 'a key of ' + _NAMES[standard]}?",
                                    expected=spelled or f"a key of {_NAMES[standard]}",
                                    hint=f"Write it as {_NAMES[standard]} does: {spelled or 'see docs/contracts.md'}. As written, what "
                                         f"`{item.key}` says is not checked, so `run` refuses the contract.", **where))
        elif item.verdict == "typo":
            meant = f"; did you mean `{item.suggestion}`?" if item.suggestion else ""
            findings.append(Finding("DCB104", message=f"`{item.key}` is not a field of the standard{meant}", expected=f"`{item.suggestion}`",
                                    hint=f"Rename `{item.key}` to `{item.suggestion}`; as written, dc-bridge ignores it, so what it says "
                                         "is not checked and `run` refuses the contract.", **where))
        elif item.own_finding:
            releases = _releases_with(standard, data, item.parent, item.key) if data is not None else []
            findings.append(_read_finding(item, standard, spec_version, spelled, releases, where))
        elif not item.forbidden and not item.beyond:
            meant = f"; did you mean `{item.suggestion}`?" if item.suggestion else ""
            expected = spelled or (f"`{item.suggestion}`" if item.suggestion else "a key of the standard")
            findings.append(Finding("DCB100", message=f"'{item.key}' is not a field of the standard{meant}", expected=expected,
                                    hint=_unknown_hint(item.key, item.suggestion, spelled), **where))
    return findings


# (standard, version prefix of `_SCHEMAS`) -> the release its schema is, for "the standard has it in version ..."
_RELEASES = {("odcs", "3.0.0"): "v3.0.0", ("odcs", "3.0.1"): "v3.0.1", ("odcs", "3.0.2"): "v3.0.2", ("odcs", "3.1"): "v3.1.0",
             ("odcs", "3.2"): "v3.2.0", ("dcs", "1.1"): "1.1.0", ("dcs", "1.2"): "1.2.0"}
_VERSION_KEY = {"odcs": "apiVersion", "dcs": "dataContractSpecification"}


def _read_finding(item: UnknownKey, standard: str, spec_version: str, spelled: str | None, releases: list[str],
                  where: dict) -> Finding:
    """DCB100 for a key dc-bridge reads where the declared version's schema lacks it: the check still runs; the
    releases of the standard that have it there, or how the standard spells it."""
    name = _NAMES[standard]
    has = f" ({name} {', '.join(releases)} {'has' if len(releases) == 1 else 'have'} it)" if releases else ""
    if releases:
        fix = f"To conform, declare `{_VERSION_KEY[standard]}: {releases[-1]}`, whose schema has `{item.key}` here"
        fix += f", or write it as {spelled}" if spelled else ""
    elif spelled:
        fix = f"{name} spells this {spelled}; dc-bridge reads `{item.key}` too"
    else:
        fix = f"{name} has no such key; dc-bridge reads it beyond the standard (docs/contracts.md)"
    return Finding("DCB100", message=f"`{item.key}` is not a field of {name} {_release(standard, spec_version)} here{has}; "
                   "dc-bridge reads it, so the check still runs", expected=spelled or f"a key of {name} {_release(standard, spec_version)}",
                   hint=f"{fix}. `compile` and `run` go on and check what it says.", **where)


def _release(standard: str, spec_version: str) -> str:
    version = spec_version.lstrip("v")
    return f"v{version}" if standard == "odcs" else version


def _releases_with(standard: str, data: Any, parent: tuple, key: str) -> list[str]:
    """The releases of the standard whose schema names `key` in the mapping at `parent` of `data`."""
    return [release for (std, prefix), release in _RELEASES.items() if std == standard and key in _named_at((std, prefix), data, parent)]


def _named_at(schema: tuple[str, str], data: Any, path: tuple) -> frozenset[str]:
    """The keys one schema names for the mapping at `path` of `data` (empty where the path leaves the schema)."""
    places, schemas, node = _places(*schema), [_schema(*schema)], data
    for step in path:
        here = places.place(schemas)
        if isinstance(node, list):
            schemas = here.items
        else:
            schemas = here.subs(step) or here.open_schemas
        try:
            node = node[step]
        except (KeyError, IndexError, TypeError):
            return frozenset()
        if not schemas:
            return frozenset()
    return frozenset(places.place(schemas).named)


def _unknown_hint(key: str, suggestion: str | None, spelled: str | None = None) -> str:
    fix = f"Write it as {spelled}, remove it" if spelled else f"Rename `{key}` to `{suggestion}`, remove it" if suggestion else "Remove it"
    return f"{fix}, or write it as `x-{key}` to mark an extension; dc-bridge went on because it does not change which checks run."


_QUOTED = re.compile(r"'((?:[^'\\]|\\.)*)'")


def _without_run_keys(finding: Finding, error: SchemaError, unknown: dict[tuple, dict[str, UnknownKey]]) -> Finding | None:
    """A schema finding about unknown keys, without the keys a finding of their own reports (DCB104; DCB100
    saying the check still runs), since its hint says nothing runs differently, which is only true of the others;
    with a did-you-mean for the others; None if none is left."""
    if error.validator not in ("additionalProperties", "unevaluatedProperties"):
        return finding
    here = unknown.get(tuple(error.absolute_path), {})
    named = _QUOTED.findall(error.message.partition("(")[2])
    left = [k for k in named if not (k in here and here[k].own_finding)]
    if named and not left:
        return None
    meant = [f"`{k}` -> `{here[k].suggestion}`" for k in left if k in here and here[k].suggestion]
    hint = f"Did you mean {', '.join(meant)}? " + CODES["DCB100"].hint if meant else None
    if left == named:
        return replace(finding, hint=hint) if hint else finding
    listed = ", ".join(f"'{k}'" for k in left)
    return replace(finding, message=f"schema: {listed} {'is not a field' if len(left) == 1 else 'are not fields'} of the standard", hint=hint)


def _value_hint(error: SchemaError, standard: str, data: Any) -> str | None:
    """What a schema error on a value means for what runs: a value dc-bridge reads is checked as written (a wrong
    type of it would be DCB101); a required key a DCS `info:` block holds belongs at the top level in ODCS."""
    path = tuple(error.absolute_path)
    if error.validator in ("additionalProperties", "unevaluatedProperties"):
        return None  # unknown keys: each has its own finding, or the default hint holds for the rest
    if error.validator == "required":
        missing = _MISSING_KEY.match(f"schema: {error.message}")
        moved = _MOVED.get((standard, missing[1])) if missing else None
        holder = _at_path(data, path)
        if moved and isinstance(holder, dict) and isinstance(holder.get(moved[0]), dict) and moved[1] in holder[moved[0]]:
            return (f"{_NAMES[standard]} writes `{missing[1]}` at the top level, not under `{moved[0]}` as DCS does: move "
                    f"`{moved[0]}.{moved[1]}` to `{missing[1]}` (and `{moved[0]}.title` to `name`). Until then dc-bridge reads "
                    f"no `{missing[1]}`.")
        return None
    key = path[-1] if path and isinstance(path[-1], str) else None
    if key is not None and key in CHECKED_KEYS[standard].get(place_kind(standard, path[:-1]), ()):
        return (f"Fix the value so it matches the standard. dc-bridge reads `{key}` as written, so its check still runs: "
                "`compile` and `run` go on.")
    return None


def _for_schema(data: Any, standard: str) -> Any:
    """A plain copy for the validator, without what the schema predates and dc-bridge checks itself."""
    if isinstance(data, dict):
        copy = {}
        for key, value in data.items():
            if key == "relationships" and isinstance(value, list) and standard == "odcs":
                value = [r for r in value if not (isinstance(r, dict) and isinstance(r.get("type"), str) and r["type"] in _RFC_RELATIONSHIPS)]
                if not value:
                    continue
            if key in _BOUNDS and isinstance(value, str) and _DECIMAL.match(value.strip()):
                value = float(value)  # `minimum: "0.01"`, quoted to keep its digits, is the number it names
            copy[key] = _for_schema(value, standard)
        if standard == "dcs" and "dataContractSpecification" in copy and str(copy["dataContractSpecification"]).startswith("1.0"):
            copy["dataContractSpecification"] = "1.1.0"  # 1.0 has no schema of its own; 1.1 only added fields
        return copy
    if isinstance(data, list):
        return [_for_schema(v, standard) for v in data]
    return data


def _schema_message(error: SchemaError) -> str:
    if error.validator == "additionalProperties" or error.validator == "unevaluatedProperties":
        return error.message.replace("were unexpected", "are not fields of the standard").replace("was unexpected", "is not a field of the standard")
    if error.validator in ("oneOf", "anyOf"):
        return "the value matches none of the allowed forms"
    message = error.message
    for value in (error.instance, error.validator_value):  # a `team` object is not printed whole
        written = repr(value)
        if len(written) > 60 and written in message:
            message = message.replace(written, _shown(value))
    return message


def _expected(error: SchemaError) -> str:
    if error.validator == "enum":
        return "one of " + ", ".join(map(str, error.validator_value))
    if error.validator == "type":
        return f"type {error.validator_value}"
    if error.validator in ("oneOf", "anyOf"):
        return f"one of the {len(error.validator_value)} forms the standard's schema allows here"
    return f"{error.validator} {shortened(error.validator_value)}"


def shortened(value: Any) -> str:
    """A value as a message shows it: JSON or repr, cut to 80 characters."""
    text = json.dumps(value, default=str) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


# ---------------------------------------------------------------------------------------------
# semantic rules over the normalised contract


