"""Lint: the official JSON schema plus the semantic rules that decide whether a contract can run.

Findings of the loader (wrong types, unresolved references, cycles) come first; this module adds
the JSON-schema findings and the rules that need the whole normalised contract.
"""

from __future__ import annotations

import difflib
import functools
import json
import re
from dataclasses import dataclass, replace
from decimal import Decimal, InvalidOperation
from importlib import resources
from pathlib import Path
from typing import Any, Iterable

import jsonschema_rs
import yaml

from dc_bridge.contract import gx_catalog
from dc_bridge.contract.document import Document, format_path
from dc_bridge.contract.inheritance import inheritance_findings
from dc_bridge.contract.java_regex import java_regex_errors
from dc_bridge.contract.load import LoadResult, load_contract
from dc_bridge.contract.quality import THRESHOLD_KEYS
from dc_bridge.contract.limits import (
    LENGTH_RANGE, MAX_PRECISION, NUMBER_RANGE, PRECISION_RANGE, length_problem, number_problem, shown,
)
from dc_bridge.contract.model import Contract, Field, Model, QualityRule, Source, walk_fields
from dc_bridge.contract.types import NUMERIC_TYPES, SPARK_TYPES, STRING_TYPES, TEMPORAL_TYPES, spark_physical_type
from dc_bridge.contract.findings import CODES, Finding
from dc_bridge.contract.formats import format_regex
from dc_bridge.contract.sql import (
    FIELD_STAND_IN, TABLE_MARKER, TOO_DEEP, SqlProblem, allowed_tables_text, check_expression, check_read_only, custom_placeholders,
    model_tables, substitute, unknown_placeholders, view_tables,
)

# (standard, version or version prefix) -> bundled official schema; the packages carry the newest ones. ODCS 3.0's
# patch releases each have their own (3.0.1 added a property's `physicalName`, 3.0.2 renamed server keys)
_SCHEMAS = {
    ("odcs", "3.0.0"): ("dc_bridge.contract", "schemas/odcs-v3.0.0.json"),
    ("odcs", "3.0.1"): ("dc_bridge.contract", "schemas/odcs-v3.0.1.json"),
    ("odcs", "3.0.2"): ("dc_bridge.contract", "schemas/odcs-v3.0.2.json"),
    ("odcs", "3.0"): ("dc_bridge.contract", "schemas/odcs-v3.0.2.json"),
    ("odcs", "3.1"): ("dc_bridge.contract", "schemas/odcs-v3.1.0.json"),
    ("odcs", "3.2"): ("open_data_contract_standard", "schema.json"),
    ("dcs", "1.0"): ("dc_bridge.contract", "schemas/dcs-1.1.0.json"),
    ("dcs", "1.1"): ("dc_bridge.contract", "schemas/dcs-1.1.0.json"),
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


def lint_file(path: str | Path) -> LoadResult:
    """Load one contract and add every lint finding to the result."""
    result = load_contract(path)
    if result.contract is None and not result.documents:
        return result
    main = result.documents[0] if result.documents else None
    schema_findings: list[Finding] = []
    schema_at = len(result.findings)
    if main is not None and result.kind is not None:
        schema_findings = validate_schema(main, result.kind, result.contract.spec_version if result.contract else "")
        if result.contract is not None:
            result.findings.extend(referenced_key_findings(main, result.kind, result.definitions, result.contract.spec_version))
    if result.contract is not None:
        # a name still holding an unresolved variable is DCB174's: DCB173 would say to rename it
        unresolved = {(f.file, f.path) for f in result.findings if f.code == "DCB174"}
        result.findings.extend(f for f in semantic_findings(result.contract) if f.code != "DCB173" or not
                               {(f.file, f"{f.path}.{key}") for key in ("name", "physicalName")} & unresolved)
        result.findings.extend(inheritance_findings(result))
    # what dc-bridge's own rules already said as an error at a place (DCB151 for `minimum: .nan`) is not
    # said again by the schema; a warning (DCB112) must not hide what the schema rejects
    said: dict[tuple[str, str], list[str]] = {}
    for finding in result.findings:
        if finding.level == "error":
            said.setdefault((finding.file, finding.path), []).append(finding.message)
    result.findings[schema_at:schema_at] = [f for f in schema_findings if not _said_already(f, said)]
    # the normalisers can meet one bad value on several paths (`schema: {}` is read for models,
    # relationships and SLAs): report each finding once
    result.findings[:] = list(dict.fromkeys(result.findings))
    result.findings.sort(key=lambda f: (f.file, f.line or 0, f.code))
    return result


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
    findings = _unknown_key_findings(document, unknown)
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
                                            line=document.line_of(path), expected=_expected(error), found=_short(error.instance)),
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

    @property
    def changes_run(self) -> bool:
        return self.suggestion in RUN_KEYS


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
            elif key not in place.allowed:
                found.append(UnknownKey(path, key, nearest_key(key, place.allowed), place.forbidden))


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
    return found


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
        findings += _unknown_key_findings(document, unknown)
    return findings


def navigate_path(data: Any, path: tuple) -> Any:
    for part in path:
        data = data[part]
    return data


@functools.lru_cache(maxsize=None)
def _places(standard: str, prefix: str) -> _SchemaPlaces:
    return _SchemaPlaces(_schema(standard, prefix), _READ_BEYOND_SCHEMA[standard])


def _unknown_key_findings(document: Document, unknown: list[UnknownKey]) -> list[Finding]:
    """DCB104 for keys that would change what runs; DCB100 for the rest where the schema does not say it itself."""
    findings = []
    for item in unknown:
        path = item.parent + (item.key,)
        meant = f"; did you mean `{item.suggestion}`?" if item.suggestion else ""
        if item.changes_run:
            findings.append(Finding("DCB104", document.file, format_path(path), f"`{item.key}` is not a field of the standard{meant}",
                                    line=document.line_of(path), expected=f"`{item.suggestion}`", found=repr(item.key),
                                    hint=f"Rename `{item.key}` to `{item.suggestion}`; as written, dc-bridge ignores it, so what it says is not checked."))
        elif not item.forbidden:
            findings.append(Finding("DCB100", document.file, format_path(path), f"'{item.key}' is not a field of the standard{meant}",
                                    line=document.line_of(path), expected=f"`{item.suggestion}`" if item.suggestion else "a key of the standard",
                                    found=repr(item.key), hint=_unknown_hint(item.key, item.suggestion)))
    return findings


def _unknown_hint(key: str, suggestion: str | None) -> str:
    fix = f"Rename `{key}` to `{suggestion}`, remove it" if suggestion else "Remove it"
    return f"{fix}, or write it as `x-{key}` to mark an extension; dc-bridge went on because it does not change which checks run."


_QUOTED = re.compile(r"'((?:[^'\\]|\\.)*)'")


def _without_run_keys(finding: Finding, error: SchemaError, unknown: dict[tuple, dict[str, UnknownKey]]) -> Finding | None:
    """A schema finding about unknown keys, without the keys DCB104 reports (its hint says it does not change
    what runs, which is only true of the others), and with a did-you-mean for the others; None if none is left."""
    if error.validator not in ("additionalProperties", "unevaluatedProperties"):
        return finding
    here = unknown.get(tuple(error.absolute_path), {})
    named = _QUOTED.findall(error.message.partition("(")[2])
    left = [k for k in named if not (k in here and here[k].changes_run)]
    if named and not left:
        return None
    meant = [f"`{k}` -> `{here[k].suggestion}`" for k in left if k in here and here[k].suggestion]
    hint = f"Did you mean {', '.join(meant)}? " + CODES["DCB100"].hint if meant else None
    if left == named:
        return replace(finding, hint=hint) if hint else finding
    listed = ", ".join(f"'{k}'" for k in left)
    return replace(finding, message=f"schema: {listed} {'is not a field' if len(left) == 1 else 'are not fields'} of the standard", hint=hint)


def _for_schema(data: Any, standard: str) -> Any:
    """A plain copy for the validator, without what the schema predates and dc-bridge checks itself."""
    if isinstance(data, dict):
        copy = {}
        for key, value in data.items():
            if key == "relationships" and isinstance(value, list) and standard == "odcs":
                value = [r for r in value if not (isinstance(r, dict) and isinstance(r.get("type"), str) and r["type"] in _RFC_RELATIONSHIPS)]
                if not value:
                    continue
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
    return error.message


def _expected(error: SchemaError) -> str:
    if error.validator == "enum":
        return "one of " + ", ".join(map(str, error.validator_value))
    if error.validator == "type":
        return f"type {error.validator_value}"
    return f"{error.validator} {_short(error.validator_value)}"


def _short(value: Any) -> str:
    text = json.dumps(value, default=str) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


# ---------------------------------------------------------------------------------------------
# semantic rules over the normalised contract


def semantic_findings(contract: Contract) -> list[Finding]:
    findings: list[Finding] = []
    patterns: list[tuple[str, Source, str]] = []  # (pattern, where, path suffix)
    # where a field's constraints are written: DCS on the field, ODCS under logicalTypeOptions
    options = "logicalTypeOptions." if contract.format == "odcs" else ""
    views = view_tables(contract)
    for model in contract.models:
        findings += _key_findings(contract, model)
        findings += _name_findings(model)
        rules = model.quality_rules()
        # what the model's quality SQL may read (only built where there is SQL: it lists every model)
        tables = model_tables(contract, model) if any(rule.type == "sql" for _, _, rule in rules) else ()
        for field in walk_fields(model.fields):
            findings += _constraint_findings(field, options)
            if field.pattern is not None:
                patterns.append((field.pattern, field.source, options + "pattern"))
        allowed = allowed_tables_text(contract, model) if tables else None
        for _, field, rule in rules:
            findings += _rule_findings(rule, field, tables, allowed, views)
            if rule.metric == "invalidValues" and isinstance(rule.arguments.get("pattern"), str):
                patterns.append((rule.arguments["pattern"], rule.source, "arguments.pattern"))
    findings += _regex_findings(patterns)
    findings += _service_level_findings(contract)
    return findings


# time-based service level kind -> the canonical types whose values are points in time it can measure
# (a string holds them only with a date or date-time format; timeOfAvailability needs a time of day)
_SLA_TIME_TYPES = {
    "freshness": {"date", "timestamp", "timestamp_ntz"}, "latency": {"date", "timestamp", "timestamp_ntz"},
    "retention": {"date", "timestamp", "timestamp_ntz"}, "frequency": {"date", "timestamp", "timestamp_ntz"},
    "timeOfAvailability": {"timestamp", "timestamp_ntz"},
}
_TIME_FORMATS = {"date": "date", "date-time": "timestamp"}


def _service_level_findings(contract: Contract) -> list[Finding]:
    """DCB190: a time-based SLA on a declared column of another type would read its values (1, 2, 'abc')
    as seconds since 1970, or as nothing, and judge that."""
    findings = []
    for level in contract.service_levels:
        allowed = _SLA_TIME_TYPES.get(level.kind)
        model = contract.model(level.model) if allowed and level.model else None
        for name in (level.field, level.source_field) if model else ():
            field = model.field(name) if name else None
            declared = _declared_type(field) if field else None
            if declared is not None and declared not in allowed:
                findings.append(_at(level.source, "DCB190", f"{level.name} is measured on `{level.model}.{name}`, declared `{declared}`, "
                                    "which holds no point in time", expected=" or ".join(sorted(allowed)), found=declared))
    return findings


def _declared_type(field: Field) -> str | None:
    """The canonical type a field declares (its logical type, else its physical type); a string with a date format counts as that."""
    declared = field.logical_type or spark_physical_type(field.physical_type or "")
    return _TIME_FORMATS.get(field.format or "", declared) if declared == "string" else declared


def _at(source: Source, code: str, message: str, suffix: str = "", **details) -> Finding:
    path = f"{source.path}.{suffix}" if suffix else source.path
    return Finding(code, source.file, path, message, line=source.line, **details)


def _name_findings(model: Model) -> list[Finding]:
    """DCB173: `${` in a name. Names are quoted, never spliced, but Spark fills in `${...}` from its
    configuration, the environment and JVM system properties before it parses SQL, inside quoted
    names too, on every session that has not turned that off (a caller's, a cluster's)."""
    named = [(model.source, "model", model.name), (model.source, "physical name", model.physical_name)]
    named += [(f.source, "field", f.name) for f in walk_fields(model.fields)]
    named += [(f.source, "physical name", f.physical_name) for f in walk_fields(model.fields)]
    return [_at(source, "DCB173", f"the {what} `{name}` holds `${{`, which Spark would fill in from its configuration, "
                                  "the environment or system properties before running SQL",
                expected="a name without `${`", found=repr(name))
            for source, what, name in named if name and "${" in name]


def _key_findings(contract: Contract, model: Model) -> list[Finding]:
    findings = []
    names = {f.name for f in model.fields}
    for column in model.primary_key:
        if column not in names:
            findings.append(_at(model.source, "DCB125", f"primary key column `{column}` is not a field of `{model.name}`", "primaryKey",
                                expected="a field of the model", found=repr(column)))
    for key in model.foreign_keys:
        target = contract.model(key.to_model)
        missing = [c for c in key.columns if c not in names]
        if target is None:
            missing_target = f"model `{key.to_model}`"
        else:
            absent = [c for c in key.to_columns if target.field(c) is None]
            missing_target = f"field(s) {', '.join(f'`{key.to_model}.{c}`' for c in absent)}" if absent else None
        if missing or missing_target:
            what = missing_target or f"field(s) {', '.join(missing)} of `{model.name}`"
            named = f" `{key.id}`" if key.id else ""
            findings.append(_at(key.source, "DCB125", f"the foreign key{named} points at {what}, which does not exist",
                                expected="an existing model.field", found=f"{key.to_model}.{','.join(key.to_columns)}"))
    return findings


def _constraint_findings(field: Field, options: str = "") -> list[Finding]:
    findings = []
    for low_name, high_name, low, high in (
        ("minLength", "maxLength", field.min_length, field.max_length),
        ("minimum", "maximum", field.minimum, field.maximum),
        ("exclusiveMinimum", "exclusiveMaximum", field.exclusive_minimum, field.exclusive_maximum),
    ):
        pair = _ordered(low, high)
        if pair is not None and pair[0] > pair[1]:
            findings.append(_at(field.source, "DCB164", f"`{low_name}` {low} is larger than `{high_name}` {high}; no value can satisfy both",
                                options + low_name, expected=f"{low_name} <= {high_name}", found=f"{low} > {high}"))
    findings += _limit_findings(field, options)
    logical = field.logical_type
    if logical in NUMERIC_TYPES:
        # a bound that is no number compares as NULL in Spark SQL: no value would ever be outside it
        for name, bound in (("minimum", field.minimum), ("maximum", field.maximum),
                            ("exclusiveMinimum", field.exclusive_minimum), ("exclusiveMaximum", field.exclusive_maximum)):
            if bound is not None and not _is_number(bound):
                findings.append(_at(field.source, "DCB101", f"`{name}` of a `{logical}` field must be a number",
                                    options + name, expected="a number", found=_short(bound)))
    if logical is not None:
        if (field.pattern or field.min_length is not None or field.max_length is not None or field.format) and logical not in STRING_TYPES:
            findings.append(_at(field.source, "DCB165", f"string constraints on a `{logical}` field are checked on its text form",
                                expected="a string field", found=logical))
        if any(v is not None for v in (field.minimum, field.maximum, field.exclusive_minimum, field.exclusive_maximum)) \
                and logical not in NUMERIC_TYPES | TEMPORAL_TYPES:
            findings.append(_at(field.source, "DCB165", f"a numeric range on a `{logical}` field", expected="a number or date field",
                                found=logical))
    if field.format is not None and format_regex(field.format) is None:
        findings.append(_at(field.source, "DCB111", f"format `{field.format}` is not one dc-bridge can check; it is skipped",
                            options + "format", expected="email, uri, uuid, date, date-time, ipv4, ipv6, hostname", found=repr(field.format)))
    return findings


_DECIMAL_TYPE = re.compile(r"^\s*(?:decimal|numeric|number)\s*\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\)\s*$", re.IGNORECASE)


def _limit_findings(field: Field, options: str = "") -> list[Finding]:
    """DCB151 for a bound, length or decimal precision no engine can run (contract/limits.py)."""
    findings = []
    for name, bound in (("minimum", field.minimum), ("maximum", field.maximum),
                        ("exclusiveMinimum", field.exclusive_minimum), ("exclusiveMaximum", field.exclusive_maximum)):
        problem = None if bound is None else number_problem(bound)
        if problem:
            findings.append(_at(field.source, "DCB151", f"`{name}: {shown(bound)}` {problem}: no engine can compare a value with it", options + name,
                                expected=NUMBER_RANGE, found=shown(bound)))
    for name, length in (("minLength", field.min_length), ("maxLength", field.max_length)):
        problem = None if length is None else length_problem(length)
        if problem:
            findings.append(_at(field.source, "DCB151", f"`{name}: {shown(length)}` {problem}: no engine can compare a length with it", options + name,
                                expected=LENGTH_RANGE, found=shown(length)))
    declared = _DECIMAL_TYPE.match(field.physical_type or "")
    decimals = []
    if SPARK_TYPES.get(field.logical_type or "", ("",))[0] == "decimal":  # as runner/data.py reads a decimal's precision
        decimals.append(("precision", "scale", field.precision, field.scale, options))
    if declared:
        decimals.append(("physicalType", "physicalType", _whole(declared[1]), _whole(declared[2]), ""))
    for precision_key, scale_key, precision, scale, prefix in decimals:
        bad_precision = precision is not None and not 1 <= precision <= MAX_PRECISION
        bad_scale = scale is not None and not 0 <= scale <= (MAX_PRECISION if precision is None or bad_precision else precision)
        if bad_precision or bad_scale:
            written = field.physical_type if precision_key == "physicalType" else \
                ", ".join(f"{k} {v}" for k, v in (("precision", precision), ("scale", scale)) if v is not None)
            findings.append(_at(field.source, "DCB151", f"`{shown(written)}` is no Spark decimal type: no engine can read or check it",
                                prefix + (precision_key if bad_precision else scale_key), expected=PRECISION_RANGE, found=shown(written)))
    return findings


def _whole(digits: str | None) -> int | None:
    """A precision as written; digits beyond any precision are not converted (Python refuses 4,300 of them)."""
    if digits is None:
        return None
    return int(digits) if len(digits) <= 9 else 10**9


def _is_number(value: Any) -> bool:
    """A number, or text that is one (`"0.01"`, written in quotes to keep a decimal's digits)."""
    if isinstance(value, bool):
        return False
    if isinstance(value, (int, float)):
        return True
    try:
        float(str(value))
    except ValueError:
        return False
    return True


def _ordered(a: Any, b: Any) -> tuple[Any, Any] | None:
    """Two bounds as values that compare as the engines compare them, or None when they do not compare:
    numbers (also quoted ones, `"5"` < `"10"`) as exact decimals, other text (dates) as text."""
    if a is None or b is None:
        return None
    numbers = _exact(a), _exact(b)
    if None not in numbers:
        return numbers
    if isinstance(a, str) and isinstance(b, str) and not _is_number(a) and not _is_number(b):
        return a, b
    return None


def _exact(value: Any) -> Decimal | None:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return None
    try:
        number = Decimal(value.strip() if isinstance(value, str) else repr(value) if isinstance(value, float) else value)
    except (InvalidOperation, ValueError):
        return None
    return number if number.is_finite() else None


def _rule_findings(rule: QualityRule, field: Field | None, tables: tuple[tuple[str, str], ...] = (), allowed: str | None = None,
                   views: frozenset[str] = frozenset()) -> list[Finding]:
    findings = []
    if rule.type == "sql" and rule.query:
        for placeholder in unknown_placeholders(rule.query):
            findings.append(_at(rule.source, "DCB172", f"unknown placeholder {placeholder} in the query", "query",
                                expected="{model} {table} {field} {column} {object} {property} (optionally with $)", found=placeholder))
        problem = None if findings else _sql_problem(rule.query, field is not None, tables, allowed)
        if problem is not None:
            findings.append(_at(rule.source, problem.code, str(problem), "query", expected="one read-only SELECT",
                                found=rule.query.strip().splitlines()[0][:80] if rule.query.strip() else "empty"))
    if rule.type == "custom":
        findings += _custom_findings(rule, views)
    if field is None and rule.metric in ("nullValues", "missingValues", "invalidValues"):
        findings.append(_at(rule.source, "DCB102", f"{rule.metric} counts values of one field; this rule is on the model",
                            expected="the rule under the property it checks", found="a model-level rule",
                            hint="Move the rule into the `quality` list of the property it is about."))
    # the standard does not require them: the one rule cannot run (`not_executable`), as an SLA without a value
    if rule.metric == "invalidValues" and not ({"validValues", "pattern"} & set(rule.arguments)):
        findings.append(_at(rule.source, "DCB106", "invalidValues needs `arguments.validValues` or `arguments.pattern`; the rule is not run", "arguments",
                            expected="validValues: [...] or pattern: '...'", found=", ".join(rule.arguments) or "no arguments"))
    return findings


@functools.lru_cache(maxsize=4096)
def _sql_problem(query: str, has_field: bool, tables: tuple[tuple[str, str], ...] = (), allowed: str | None = None) -> SqlProblem | None:
    """Contracts repeat the same query on many fields and models: each text is parsed once (contract/sql.py
    caches the parse, here with the plan's stand-ins so the plan reuses it), each model's tables are checked."""
    try:
        check_read_only(substitute(query, table=TABLE_MARKER, column=FIELD_STAND_IN if has_field else None),
                        [name for name, _ in tables], allowed=allowed)
    except SqlProblem as problem:
        return problem
    except RecursionError:  # contract/sql.py refuses deep SQL itself; should a path of the parser still recurse out
        return SqlProblem("DCB171", TOO_DEEP)
    return None


def _custom_findings(rule: QualityRule, views: frozenset[str] = frozenset()) -> list[Finding]:
    if rule.engine not in ("gx", "soda"):
        return [_at(rule.source, "DCB180", f"engine `{rule.engine}` is not one dc-bridge runs", "engine",
                    expected="great-expectations or soda", found=repr(rule.engine))]
    return _custom_shape_findings(rule) or _custom_sql_findings(rule, views)


# SQL a custom check hands to Spark: GX `unexpected_rows_query`, Soda `fail query`, `<metric> query`
# (keys ending in "query"), and SQL expressions: Soda `<metric> expression`, `fail condition`,
# `filter`, GX `row_condition` (with `condition_parser: spark`) and its `pass_through_filter`
_SQL_EXPRESSION_KEYS = ("expression", "condition", "filter")
# GX's own row-condition grammar (`col("x") > 5`): GX turns it into Spark columns itself, never into SQL
_GX_CONDITION_PARSERS = {"great_expectations", "great_expectations__experimental__"}


def _custom_sql_findings(rule: QualityRule, views: frozenset[str] = frozenset()) -> list[Finding]:
    """The SQL inside a custom check runs verbatim in Spark, so the rules of quality SQL apply, and it may
    read only what is the run's own data when it runs: GX's `{batch}` and the models' views."""
    body = rule.implementation
    if isinstance(body, str):
        try:
            body = yaml.safe_load(body)
        except yaml.YAMLError:
            return []
    allowed = "its model as {batch} (GX) or the models' views " + ", ".join(sorted(views)[:6]) + (", ..." if len(views) > 6 else "")
    findings = []
    for key, text, parent in _string_values(body):
        name = key.lower().replace("_", " ")
        if name.endswith("query"):
            check = check_read_only
        elif name.endswith(_SQL_EXPRESSION_KEYS):
            if key == "row_condition" and str(parent.get("condition_parser", "")).lower() in _GX_CONDITION_PARSERS:
                continue  # GX's own grammar; `condition_parser: spark` hands the text to Spark as SQL
            check = check_expression
        else:
            continue
        try:
            check(custom_placeholders(text), views, allowed=allowed)
        except SqlProblem as problem:
            findings.append(_at(rule.source, problem.code, f"`{key}` of the custom check: {problem}", "implementation",
                                expected="one read-only SELECT" if check is check_read_only else "one SQL expression",
                                found=_short(text)))
    return findings


def _string_values(node: Any, key: str = "", parent: dict | None = None) -> Iterable[tuple[str, str, dict]]:
    """(key, text, the mapping it is in) for every string value in a nested mapping/list, with the key it is written under."""
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _string_values(v, str(k), node)
    elif isinstance(node, list):
        for item in node:
            yield from _string_values(item, key, parent)
    elif isinstance(node, str) and key:
        yield key, node, parent if parent is not None else {}


def _custom_shape_findings(rule: QualityRule) -> list[Finding]:
    body = rule.implementation
    if rule.engine == "soda":
        if isinstance(body, str):
            try:
                yaml.safe_load(body)
            except yaml.YAMLError as exc:
                return [_at(rule.source, "DCB184", f"the SodaCL text is not valid YAML: {getattr(exc, 'problem', None) or exc}",
                            "implementation", expected="SodaCL (YAML)", found=_short(body))]
        elif not isinstance(body, (dict, list)):
            return [_at(rule.source, "DCB184", "a Soda check must be a mapping, a list or SodaCL text", expected="mapping or text",
                        found=type(body).__name__)]
        return []
    if not isinstance(body, dict):
        return [_at(rule.source, "DCB181", "a GX check must be a mapping with `type` and `kwargs`", expected="a mapping", found=_short(body))]
    findings = []
    if "expectation_type" in body and "type" not in body:
        findings.append(_at(rule.source, "DCB185", "`expectation_type` is the GX 0.x spelling", expected="type", found="expectation_type"))
    name = body.get("type") or body.get("expectation_type")
    if not isinstance(name, str) or gx_catalog.to_snake_case(name) not in gx_catalog.EXPECTATION_TYPES:
        findings.append(_at(rule.source, "DCB181", f"`{name}` is not a GX 1.x expectation type", expected="e.g. expect_column_values_to_not_be_null",
                            found=repr(name)))
    kwargs = body.get("kwargs")
    if isinstance(kwargs, dict):
        camel = [k for k in kwargs if isinstance(k, str) and gx_catalog.to_snake_case(k) != k]
        if camel:
            findings.append(_at(rule.source, "DCB182", f"GX kwargs {', '.join(camel)} are camelCase", expected="snake_case",
                                found=", ".join(camel)))
    return findings


# ---------------------------------------------------------------------------------------------
# regular expressions, compiled by Java as Spark will


def _regex_findings(patterns: list[tuple[str, Source, str]]) -> list[Finding]:
    if not patterns:
        return []
    distinct = sorted({p for p, _, _ in patterns})
    compiled = java_regex_errors(distinct)
    errors = None if compiled is None else [dict(zip(distinct, compiled))[p] for p, _, _ in patterns]
    return _catastrophic_findings(patterns, errors) + _compile_findings(patterns, errors)


def _catastrophic_findings(patterns: list[tuple[str, Source, str]], errors: list[str | None] | None) -> list[Finding]:
    """DCB142 for patterns that compile but can backtrack exponentially or polynomially (see contract/redos.py)."""
    from dc_bridge.contract.redos import catastrophic_backtracking  # here: `import lint` stays fast

    found = []
    for index, (pattern, source, suffix) in enumerate(patterns):
        problem = None if errors is not None and errors[index] else catastrophic_backtracking(pattern)
        if problem:
            found.append(_at(source, "DCB142", problem.message, suffix, expected=problem.expected, found=repr(pattern)))
    return found


def _compile_findings(patterns: list[tuple[str, Source, str]], errors: list[str | None] | None) -> list[Finding]:
    if errors is None:
        import re

        findings = [_at(patterns[0][1], "DCB141", "Java was not found; patterns were checked with Python's re only")]
        for pattern, source, suffix in patterns:
            try:
                re.compile(pattern)
            except re.error as exc:
                findings.append(_at(source, "DCB140", f"the pattern does not compile: {exc}", suffix, expected="a valid regular expression", found=repr(pattern)))
        return findings
    return [
        _at(source, "DCB140", f"Java rejects the pattern: {error}", suffix, expected="a pattern java.util.regex compiles", found=repr(pattern))
        for (pattern, source, suffix), error in zip(patterns, errors) if error
    ]
