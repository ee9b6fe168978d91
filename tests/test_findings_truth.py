"""Findings that tell the truth (issue 25): for every key either standard's official JSON schema defines, put
where the declared version or standard does not define it, what lint says of the key agrees with what
compile and run do with it.

The cases are generated from the schemas: every key named at a place (the contract, a model, a field, ODCS
`logicalTypeOptions`, a quality rule, a service level) by any bundled schema of either standard is written,
with a plausible value, into a small contract of every version whose schema lacks it there. The oracle is
not lint's own tables: it is the plan `compile` builds (`build_plan`, what `run` checks) with the key and
without it, and whether `load_for_run` (what `run` and `compile` call) refuses the contract. A key "changes
what runs" in its home (the version or standard that defines it) when its plan differs there.

What must agree, case by case:
- lint says something of a key whose check is lost here (its own finding, or the schema's on the mapping naming it);
- a finding saying the check still runs is only given where the key changes the plan where it is written;
- a finding saying nothing that runs depends on it is only given where the key changes no plan, here or home;
- a DCB104 (or any finding saying run refuses) is refused by run, and is only given for a key that, as
  written, changes nothing here;
- a key that changes what runs at home but nothing here is refused by run (the user's check would be lost).
"""

from __future__ import annotations

import copy
import functools
import itertools
from pathlib import Path
from typing import Any

import pytest
import yaml

from dc_bridge.compiler import ContractError, load_for_run
from dc_bridge.contract.lint import lint_file
from dc_bridge.contract.lint.schema import _places, _schema, schema_key
from dc_bridge.plan.build import build_plan

# (standard, declared version) -> the version written into the contract
VERSIONS = [("odcs", "v3.0.0"), ("odcs", "v3.0.2"), ("odcs", "v3.1.0"), ("odcs", "v3.2.0"),
            ("dcs", "1.1.0"), ("dcs", "1.2.0")]
PLACES = ("contract", "model", "field", "options", "quality", "sla")
# a place of one standard -> where the other standard writes what stands there
OTHER_PLACE = {("odcs", "options"): "field", ("dcs", "options"): None}

SQL = "SELECT COUNT(*) FROM {model}"


def base(standard: str, version: str) -> dict:
    """A small contract of one version: one model `t` with a string `c` and a timestamp `ts`, a quality rule, a
    freshness SLA; every place of `PLACES` is in it."""
    if standard == "odcs":
        return {"apiVersion": version, "kind": "DataContract", "id": "urn:truth", "version": "1.0.0", "status": "active",
                "name": "truth",
                "schema": [{"name": "t", "properties": [
                    {"name": "c", "logicalType": "string", "logicalTypeOptions": {"maxLength": 10}},
                    {"name": "ts", "logicalType": "timestamp"}],
                    "quality": [{"type": "sql", "query": SQL, "mustBeGreaterThan": 0}]}],
                "slaProperties": [{"property": "freshness", "value": 1, "unit": "d", "element": "t.ts"}]}
    return {"dataContractSpecification": version, "id": "urn:truth", "info": {"title": "truth", "version": "1.0.0"},
            "models": {"t": {"fields": {"c": {"type": "string", "maxLength": 10}, "ts": {"type": "timestamp"}},
                             "quality": [{"type": "sql", "query": SQL, "mustBeGreaterThan": 0}]}},
            "servicelevels": {"freshness": {"threshold": "1d", "timestampField": "t.ts"}}}


def place_path(standard: str, place: str) -> tuple | None:
    return {("odcs", "contract"): (), ("odcs", "model"): ("schema", 0), ("odcs", "field"): ("schema", 0, "properties", 0),
            ("odcs", "options"): ("schema", 0, "properties", 0, "logicalTypeOptions"),
            ("odcs", "quality"): ("schema", 0, "quality", 0), ("odcs", "sla"): ("slaProperties", 0),
            ("dcs", "contract"): (), ("dcs", "model"): ("models", "t"), ("dcs", "field"): ("models", "t", "fields", "c"),
            ("dcs", "quality"): ("models", "t", "quality", 0), ("dcs", "sla"): ("servicelevels", "freshness")}.get((standard, place))


@functools.lru_cache(maxsize=None)
def named_keys(standard: str, version: str, place: str) -> frozenset[str]:
    """The keys the official schema of the version names at the place (not the ones dc-bridge reads beyond it)."""
    path = place_path(standard, place)
    if path is None:
        return frozenset()
    key = schema_key(standard, version)
    places, schemas, node = _places(*key), [_schema(*key)], base(standard, version)
    for step in path:
        here = places.place(schemas)
        schemas = here.items if isinstance(node, list) else (here.subs(step) or here.open_schemas)
        node = node[step]
    return frozenset(places.place(schemas).named)


# key -> a value that means something where it is read (else one is made from the schema's type)
VALUES: dict[tuple[str, str], Any] = {
    ("field", "type"): "string", ("field", "logicalType"): "string", ("field", "physicalType"): "string",
    ("field", "physicalName"): "c_column", ("field", "required"): True, ("field", "unique"): True,
    ("field", "primaryKey"): True, ("field", "primary"): True, ("field", "primaryKeyPosition"): 1,
    ("field", "pattern"): "^a", ("field", "format"): "email", ("field", "minLength"): 1, ("field", "maxLength"): 5,
    ("field", "minimum"): 0, ("field", "maximum"): 9, ("field", "exclusiveMinimum"): 0, ("field", "exclusiveMaximum"): 9,
    ("field", "precision"): 10, ("field", "scale"): 2, ("field", "enum"): ["a"], ("field", "pii"): True,
    ("field", "classification"): "restricted", ("field", "references"): "t.ts", ("field", "config"): {"sparkType": "string"},
    ("field", "fields"): {"f": {"type": "string", "required": True}},
    ("field", "properties"): [{"name": "f", "logicalType": "string", "required": True}],
    ("field", "items"): {"type": "string", "required": True}, ("field", "keys"): {"type": "string", "required": True},
    ("field", "values"): {"type": "string", "required": True},
    ("field", "map"): {"key": {"logicalType": "string", "required": True}, "value": {"logicalType": "string"}},
    ("field", "logicalTypeOptions"): {"minLength": 1}, ("field", "semanticType"): "measure",
    ("field", "relationships"): [{"to": "t.ts"}], ("field", "quality"): [{"type": "sql", "query": SQL, "mustBe": 0}],
    ("options", "pattern"): "^a", ("options", "format"): "email", ("options", "minLength"): 1, ("options", "maxLength"): 5,
    ("options", "minimum"): 0, ("options", "maximum"): 9, ("options", "exclusiveMinimum"): 0,
    ("options", "exclusiveMaximum"): 9, ("options", "precision"): 10, ("options", "scale"): 2,
    ("model", "fields"): {"x": {"type": "string", "required": True}},
    ("model", "properties"): [{"name": "x", "logicalType": "string", "required": True}],
    ("model", "primaryKey"): ["c"], ("model", "physicalName"): "t_table", ("model", "type"): "table",
    ("model", "quality"): [{"type": "sql", "query": SQL, "mustBe": 0}],
    ("model", "relationships"): [{"type": "foreignKey", "from": "t.c", "to": "t.ts"}],
    ("contract", "models"): {"m": {"fields": {"x": {"type": "string", "required": True}}}},
    ("contract", "schema"): [{"name": "m", "properties": [{"name": "x", "logicalType": "string", "required": True}]}],
    ("contract", "servicelevels"): {"latency": {"threshold": "1h", "processedTimestampField": "t.ts",
                                                "sourceTimestampField": "t.ts"}},
    ("contract", "slaProperties"): [{"property": "latency", "value": 1, "unit": "h", "element": "t.ts"}],
    ("contract", "slaDefaultElement"): "t.ts", ("contract", "info"): {"title": "other", "version": "2.0.0"},
    ("contract", "version"): "2.0.0", ("contract", "name"): "other", ("contract", "id"): "urn:other",
    ("contract", "definitions"): {"d": {"type": "string"}},
    ("quality", "type"): "sql", ("quality", "metric"): "rowCount", ("quality", "rule"): "rowCount",
    ("quality", "arguments"): {"properties": ["c"]}, ("quality", "query"): "SELECT 1", ("quality", "engine"): "soda",
    ("quality", "severity"): "warning", ("quality", "unit"): "percent", ("quality", "validValues"): ["a"],
    ("quality", "mustBe"): 1, ("quality", "mustNotBe"): 1, ("quality", "mustBeBetween"): [0, 9],
    ("quality", "mustNotBeBetween"): [0, 9],
    ("sla", "threshold"): "2d", ("sla", "period"): "P1Y", ("sla", "timestampField"): "t.ts",
    ("sla", "processedTimestampField"): "t.ts", ("sla", "sourceTimestampField"): "t.ts", ("sla", "property"): "latency",
    ("sla", "value"): 2, ("sla", "unit"): "h", ("sla", "element"): "t.ts",
}


# what lint says when it says that nothing that runs depends on a key
NOTHING_RUNS = ("does not change which checks run", "nothing dc-bridge checks depends on it")
# (place, key) -> keys the rule holds besides it (with and without it), and keys it must not hold: `metric` and
# `arguments` mean something on a library rule, not beside `type: sql`
CONTEXT: dict[tuple[str, str], tuple[dict, tuple]] = {
    ("quality", "metric"): ({}, ("type", "query")), ("quality", "rule"): ({}, ("type", "query")),
    ("quality", "arguments"): ({"metric": "duplicateValues"}, ("type", "query")),
    ("quality", "validValues"): ({"rule": "validValues"}, ("type", "query")),
}


def value_for(place: str, key: str, schema_node: Any = None) -> Any:
    if (place, key) in VALUES:
        return copy.deepcopy(VALUES[(place, key)])
    if key.startswith("mustBe") or key.startswith("mustNotBe"):
        return 1
    return "x"


def with_key(standard: str, version: str, place: str, key: str, value: Any) -> dict:
    data = base(standard, version)
    node = data
    for step in place_path(standard, place):
        node = node[step]
    node.pop(key, None)
    around, without = CONTEXT.get((place, key), ({}, ()))
    for other in without:
        node.pop(other, None)
    node.update(copy.deepcopy(around))
    if value is not _ABSENT:
        node[key] = value
    return data


_ABSENT = object()


def observe(tmp_path: Path, data: dict) -> tuple[Any, list, bool]:
    """(what the plan would be, lint's findings, whether run refuses) for one contract."""
    path = tmp_path / f"c{next(_COUNTER)}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    result = lint_file(path)
    plan = None
    if result.contract is not None:
        built = build_plan(result.contract)
        # what is checked, not what it is called: a check's id and model name follow names, which each standard
        # gives in its own way (a DCS model's `name:` changes no check; its key under `models:` is its name)
        plan = (result.contract.version, sorted(repr((c.columns, c.params, c.threshold, c.unit, c.severity, c.sensitive))
                                                for c in built.checks))
    try:
        load_for_run(path)
        refused = False
    except ContractError:
        refused = True
    return plan, result.findings, refused


_COUNTER = itertools.count()


def home_of(standard: str, version: str, place: str, key: str) -> tuple[str, str, str] | None:
    """The version (of this standard first, else of the other) whose schema names the key at the place."""
    other = "dcs" if standard == "odcs" else "odcs"
    same = [(s, v, place) for s, v in VERSIONS if s == standard and v != version]
    other_place = OTHER_PLACE.get((standard, place), place)
    if place == "field" and standard == "dcs":
        candidates = same + [(s, v, p) for s, v in VERSIONS if s == other for p in ("field", "options")]
    else:
        candidates = same + ([(s, v, other_place) for s, v in VERSIONS if s == other] if other_place else [])
    return next(((s, v, p) for s, v, p in candidates if key in named_keys(s, v, p)), None)


# (standard, place) -> the places whose keys are tried there: its own in every version, and the other standard's
# at the same place (a DCS field holds what ODCS writes on a property and under its logicalTypeOptions)
TRIED = {("odcs", "field"): (("odcs", "field"), ("dcs", "field")), ("odcs", "options"): (("odcs", "options"),),
         ("dcs", "field"): (("dcs", "field"), ("odcs", "field"), ("odcs", "options"))}


def cases() -> list[tuple[str, str, str, str]]:
    found = []
    for standard, version in VERSIONS:
        for place in PLACES:
            if place_path(standard, place) is None:
                continue
            tried = TRIED.get((standard, place), ((standard, place), ("dcs" if standard == "odcs" else "odcs", place)))
            every = set().union(*(named_keys(s, v, p) for s, v in VERSIONS for t, p in tried if s == t))
            found += [(standard, version, place, key) for key in sorted(every - named_keys(standard, version, place))]
    return found


def about(findings: list, path: str, key: str) -> list:
    """The findings that speak of the key: at its place, or the schema's on the mapping naming it."""
    at_key = f"{path}.{key}" if path else key
    return [f for f in findings if f.path == at_key or f.path.startswith(at_key + ".") or f.path.startswith(at_key + "[")
            or (f.path == path and f"'{key}'" in f.message)]


# keys that name what they stand on: each standard names models and fields in its own way (a DCS field by its key
# under `fields:`), so the other standard's `name` or `id` there renames nothing and loses no check
IDENTITY = frozenset({"name", "id"})


def judge(tmp_path: Path, standard: str, version: str, place: str, key: str) -> list[str]:
    """What disagrees for one case (empty: lint's finding and compile/run agree)."""
    from dc_bridge.contract.reading.document import format_path

    home = home_of(standard, version, place, key)
    value = value_for(home[2] if home else place, key)
    here_plan, findings, refused = observe(tmp_path, with_key(standard, version, place, key, value))
    here_base, _, _ = observe(tmp_path, with_key(standard, version, place, key, _ABSENT))
    changes_here = here_plan != here_base
    changes_home = False
    if home is not None and key not in IDENTITY:
        home_plan, _, _ = observe(tmp_path, with_key(*home, key, value))
        home_base, _, _ = observe(tmp_path, with_key(*home, key, _ABSENT))
        changes_home = home_plan != home_base
    spoken = about(findings, format_path(place_path(standard, place)), key)
    texts = [f"{f.message} {f.fix}" for f in spoken]
    says_runs = any("check still runs" in t for t in texts)
    says_nothing = any(phrase in t for t in texts for phrase in NOTHING_RUNS)
    says_refused = any(f.code == "DCB104" for f in spoken)
    problems = []
    if not spoken and changes_home and not changes_here:
        problems.append("lint says nothing of a key whose check is lost")
    if says_runs and not changes_here:
        problems.append("says the check still runs, but the key changes no check")
    if says_nothing and (changes_here or changes_home):
        problems.append(f"says nothing that runs depends on it, but the key changes the plan {'here' if changes_here else 'in ' + ' '.join(home)}")
    if says_refused and not refused:
        problems.append("DCB104, but run does not refuse")
    if says_refused and changes_here:
        problems.append("DCB104 says dc-bridge ignores it, but it changes the plan")
    if changes_home and not changes_here and not refused:
        problems.append(f"changes what runs in {' '.join(home)} but nothing here, and run goes on")
    return problems


CASES = cases()


def test_the_cases_cover_both_standards_and_every_place():
    assert {(s, p) for s, _, p, _ in CASES} >= {("odcs", p) for p in PLACES} | {("dcs", p) for p in PLACES if p != "options"}
    assert len(CASES) > 300


@pytest.mark.parametrize("standard, version, place, key", CASES, ids=[f"{s}{v}-{p}-{k}" for s, v, p, k in CASES])
def test_finding_agrees_with_compile_and_run(tmp_path, standard, version, place, key):
    assert judge(tmp_path, standard, version, place, key) == []


# ---------------------------------------------------------------------------------------------
# the cases issue 25 measured, one by one


ODCS31 = """\
apiVersion: v3.1.0
kind: DataContract
id: urn:truth
version: 1.0.0
status: active
schema:
  - name: orders
    properties:
"""


def lint_text(tmp_path: Path, text: str):
    path = tmp_path / "contract.yaml"
    path.write_text(text, encoding="utf-8")
    return path, lint_file(path).findings


def test_an_odcs_32_key_in_31_says_the_check_still_runs_and_it_does(tmp_path):
    from dc_bridge.compiler import compile_for_run

    path, findings = lint_text(tmp_path, ODCS31 + "      - {name: status, logicalType: string, enum: [open, shipped]}\n")
    (finding,) = findings
    assert (finding.code, finding.path) == ("DCB100", "schema[0].properties[0].enum")
    assert "dc-bridge reads it, so the check still runs" in finding.message and "ODCS v3.2.0 has it" in finding.message
    assert "`apiVersion: v3.2.0`" in finding.fix
    assert [c.kind for c in compile_for_run(path).plan.checks if c.id == "orders.status.enum"] == ["in_set"]


def test_dcs_keys_in_odcs_say_how_odcs_spells_them_and_run_refuses_the_lost_type_check(tmp_path):
    path, findings = lint_text(tmp_path, ODCS31 + "      - {name: email, type: string, pii: true}\n")
    said = {f.path: f for f in findings}
    assert said["schema[0].properties[0].type"].code == "DCB104"
    assert "did you mean `logicalType` (or `physicalType`" in said["schema[0].properties[0].type"].message
    pii = said["schema[0].properties[0].pii"]
    assert pii.code == "DCB100" and "check still runs" in pii.message and "`classification: pii`" in pii.fix
    with pytest.raises(ContractError):
        load_for_run(path)
    # the same with the type as ODCS writes it: the type check runs, pii still marks the column sensitive
    path, findings = lint_text(tmp_path, ODCS31 + "      - {name: email, logicalType: string, pii: true}\n")
    contract, _ = load_for_run(path)
    assert all(check.sensitive for check in build_plan(contract).checks)


def test_quoted_decimal_bounds_are_no_finding(tmp_path):
    _, findings = lint_text(tmp_path, ODCS31 + "      - name: amount\n        logicalType: number\n"
                                               "        logicalTypeOptions: {minimum: '0.01', maximum: '99.999'}\n")
    assert findings == []


def test_a_dcs_info_block_in_odcs_points_at_the_top_level(tmp_path):
    path, findings = lint_text(tmp_path, ODCS31.replace("version: 1.0.0\n", "info: {title: Orders, version: 1.0.0}\n")
                               + "      - {name: id, logicalType: string}\n")
    said = {(f.code, f.path): f for f in findings}
    assert "`version`" in said[("DCB104", "info")].message and "`info.version` -> `version`" in said[("DCB104", "info")].message
    assert "move `info.version` to `version`" in said[("DCB100", "")].fix
    with pytest.raises(ContractError):
        load_for_run(path)


def test_a_long_value_is_cut_and_the_path_says_where_it_is(tmp_path):
    member = "{username: " + "a" * 300 + ", role: owner, colour: " + "b" * 600 + "}"
    _, findings = lint_text(tmp_path, ODCS31.replace("schema:", f"team: {{name: t, members: [{member}]}}\nschema:")
                            + "      - {name: id, logicalType: string}\n")
    assert findings and all(len(f.message) < 200 and len(f.found or "") <= 80 and len(f.expected or "") < 200 for f in findings)
    assert {f.path.split("[")[0].split(".")[0] for f in findings} == {"team"}


def test_every_key_of_the_other_standard_that_would_be_lost_has_a_spelling_here():
    """A DCB104 for the other standard's key always says how this standard writes it (a key a reader learns to
    turn into checks needs its entry in lint/schema.py SPELLINGS, or this fails)."""
    from dc_bridge.contract.lint.schema import _IDENTITY, CHECKED_KEYS, SPELLINGS, _other_standard_keys

    missing = {(standard, place, key) for standard in ("odcs", "dcs") for place in PLACES
               for key in _other_standard_keys(standard, place) - CHECKED_KEYS[standard].get(place, frozenset()) - _IDENTITY
               if place_path(standard, place) is not None and (standard, place, key) not in SPELLINGS}
    assert missing == set()
