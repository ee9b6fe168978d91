"""Lint validates contracts with jsonschema-rs (compiled, fast) and words its errors as the Python `jsonschema`
did: the findings must be the same, in the same order, field by field (code, path, line, message, expected,
found, hint).

The reference is the Python `jsonschema` itself (a dependency of Great Expectations, and of the tests), run on
the same data and turned into `lint_schema.SchemaError` exactly as lint read its errors before. Every YAML contract
under tests/ and contracts/ is linted both ways, and so is one small contract per JSON-schema keyword the
official schemas use, so that every error kind and message form is compared. No timing here: the speed is
measured by bench/lint_speed.py (docs/benchmarks.md).
"""

from __future__ import annotations

import functools
from pathlib import Path

import jsonschema
import pytest

from dc_bridge.contract import lint
from dc_bridge.contract.lint import schema as lint_schema
from dc_bridge.contract.reading.load import load_contract

TESTS = Path(__file__).parent
ROOT = TESTS.parent
CORPUS = sorted({p for folder in (TESTS, ROOT / "contracts") for pattern in ("*.yaml", "*.yml") for p in folder.rglob(pattern)
                 if "data" not in p.relative_to(folder).parts[:-1]})


@functools.lru_cache(maxsize=None)
def _reference_validator(standard: str, prefix: str):
    schema = lint_schema._schema(standard, prefix)
    return jsonschema.validators.validator_for(schema)(schema)


def _reference_errors(standard: str, prefix: str, data):
    return [lint_schema.SchemaError(e.validator, tuple(e.absolute_path), e.message, e.validator_value, e.instance)
            for e in _reference_validator(standard, prefix).iter_errors(data)]


def _schema_findings(path: Path) -> list:
    """The schema's findings alone, before the loader's findings on the same place take their place."""
    loaded = load_contract(path)
    if not loaded.documents or loaded.kind is None:
        return []
    return lint_schema.validate_schema(loaded.documents[0], loaded.kind, loaded.contract.spec_version if loaded.contract else "")


def _both(path: Path, monkeypatch) -> tuple[tuple[list, list], tuple[list, list]]:
    """(lint's findings, the schema's findings) with jsonschema-rs, and the same with the reference."""
    fast = lint.lint_file(path).findings, _schema_findings(path)
    with monkeypatch.context() as patch:
        patch.setattr(lint_schema, "schema_errors", _reference_errors)
        reference = lint.lint_file(path).findings, _schema_findings(path)
    return fast, reference


def test_the_corpus_is_there():
    names = {p.name for p in CORPUS}
    assert len(CORPUS) > 100 and {"orders.yaml", "retail_pos.yaml"} <= names


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: str(p.relative_to(ROOT)))
def test_corpus_findings_match_jsonschema(path, monkeypatch):
    fast, reference = _both(path, monkeypatch)
    assert fast == reference


ODCS = """\
apiVersion: {version}
kind: DataContract
id: urn:parity
version: 1.0.0
status: active
"""
DCS = """\
dataContractSpecification: 1.1.0
id: parity
info: {title: Parity, version: 1.0.0}
"""

# (name, contract text): each breaks the official schema in one way; together they reach every keyword the
# schemas use that can fail (type, enum, const, required, pattern, propertyNames, minItems, maxItems, minimum,
# exclusiveMinimum, uniqueItems, minProperties, not, oneOf none/several, anyOf, if/then, additionalProperties,
# unevaluatedProperties), and several errors on one object (their order)
KEYWORDS = [
    ("type", ODCS + "schema:\n  - name: t\n    properties: {a: 1}\n"),
    ("type of several", DCS + "models:\n  m:\n    fields:\n      a: {type: string, minLength: x}\n"),
    ("enum", ODCS + "schema:\n  - name: t\n    logicalType: table\n"),
    ("enum of a number", ODCS.replace("status: active", "status: 3")),
    ("const", ODCS.replace("kind: DataContract", "kind: Contract")),
    ("required", "apiVersion: v3.1.0\nkind: DataContract\nid: x\n"),
    ("required, several", ODCS + "schema:\n  - name: t\n    properties:\n      - {logicalType: string}\n"),
    ("pattern", ODCS + "schema:\n  - name: t\n    quality:\n      - {id: 'a b', type: sql, query: SELECT 1, mustBe: 1}\n"),
    ("propertyNames", DCS + "models:\n  'a b':\n    fields:\n      x: {type: string}\n"),
    ("minItems", DCS + "models:\n  m:\n    quality:\n      - {type: sql, query: SELECT 1, mustBeBetween: [1]}\n"),
    ("maxItems", DCS + "models:\n  m:\n    quality:\n      - {type: sql, query: SELECT 1, mustBeBetween: [1, 2, 3]}\n"),
    ("minimum", ODCS + "schema:\n  - name: t\n    properties:\n      - {name: a, logicalType: string, logicalTypeOptions: {minLength: -1}}\n"),
    ("exclusiveMinimum", ODCS + "schema:\n  - name: t\n    properties:\n      - {name: a, logicalType: number, logicalTypeOptions: {multipleOf: 0}}\n"),
    ("uniqueItems", ODCS + "schema:\n  - name: t\n    quality:\n      - {type: sql, query: SELECT 1, mustBeBetween: [1, 1]}\n"),
    ("uniqueItems (DCS)", DCS + "models:\n  m:\n    fields:\n      a: {type: string, enum: [x, x]}\n"),
    ("minProperties", DCS + "models: {}\n"),
    ("not", ODCS + "schema:\n  - name: t\n    properties:\n      - name: a\n        relationships:\n          - {type: foreignKey, from: t.a, to: u.b}\n"),
    ("oneOf none", ODCS + "schema:\n  - name: t\n    quality:\n      - {type: sql, query: SELECT 1}\n"),
    ("oneOf several", ODCS + "schema:\n  - name: t\n    quality:\n      - {type: sql, query: SELECT 1, mustBeGreaterThan: 1, mustBeLessThan: 5}\n"),
    ("anyOf", ODCS + "slaProperties:\n  - {property: latency, value: [1, 2]}\n"),
    ("additionalProperties", ODCS + "slaProperties:\n  - {property: latency, value: 1, impact: high}\n"),
    ("additionalProperties, several", ODCS + "slaProperties:\n  - {property: latency, value: 1, impact: high, area: x}\n"),
    ("unevaluatedProperties", ODCS + "schema:\n  - name: t\n    properties:\n      - {name: a, logicalType: string, colour: red}\n"),
    ("unevaluatedProperties, run key", ODCS + "schema:\n  - name: t\n    properties:\n      - {name: a, logicalType: string, requird: true}\n"),
    ("several on one object", ODCS + "schema:\n  - properties:\n      - {logicalType: text, colour: red, required: maybe}\n"),
    ("DCS unknown keys", DCS + "models:\n  m:\n    colour: red\n    fields:\n      a: {type: strin, requird: true}\n"),
    ("if/then (DCS server)", DCS + "servers:\n  s: {format: csv}\nmodels:\n  m:\n    fields:\n      a: {type: string}\n"),
    ("not a mapping", ODCS + "schema: {name: t}\n"),
    ("description as a list", ODCS + "description: [a]\nteam: 3\n"),
]


@pytest.mark.parametrize("name, text", KEYWORDS, ids=[name for name, _ in KEYWORDS])
def test_each_keyword_matches_jsonschema(name, text, tmp_path, monkeypatch):
    broken = False
    versions = ["v3.0.0", "v3.1.0", "v3.2.0"] if "{version}" in text else [""]
    for version in versions:
        path = tmp_path / f"contract{version}.yaml"
        path.write_text(text.replace("{version}", version), encoding="utf-8")
        fast, reference = _both(path, monkeypatch)
        assert fast == reference, version
        broken = broken or bool(fast[1])
    assert broken, "the contract must break the schema in some version"


@pytest.mark.parametrize("key", sorted(lint_schema._SCHEMAS))
def test_every_official_schema_compiles(key):
    assert lint_schema._validator(*key).is_valid({}) in (True, False)


def test_messages_keep_their_wording(tmp_path):
    """Tests and users read these texts; they came from `jsonschema` and stay as they were."""
    path = tmp_path / "contract.yaml"
    path.write_text(ODCS.replace("{version}", "v3.1.0") + "description: [a]\n"
                    "slaProperties:\n  - {property: latency, value: 1, impact: high}\n"
                    "schema:\n  - name: t\n    properties:\n      - {name: a, logicalType: string}\n"
                    "    quality:\n      - {type: sql, query: SELECT 1, mustBeGreaterThan: 1, mustBeLessThan: 5}\n", encoding="utf-8")
    messages = {f.message for f in lint.lint_file(path).findings}
    assert "schema: ['a'] is not of type 'object'" in messages
    assert "schema: the value matches none of the allowed forms" in messages
    assert "schema: Additional properties are not allowed ('impact' is not a field of the standard)" in messages
