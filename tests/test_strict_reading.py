"""The contract is read as strictly as the user wrote it (issue 13): unknown keys, values of the wrong
shape, YAML 1.1 scalars and empty or null-holding enums are findings, never quietly read as something else.

Each case lints one small contract and asserts the exact code, severity and path of the finding. A few
also go through `dc-bridge run`, which must refuse the contract (exit 2) before reading any data.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from dc_bridge.cli import main
from dc_bridge.contract.findings import CONFORMANCE_CODES
from dc_bridge.contract.lint import lint_file
from dc_bridge.contract.lint.schema import nearest_key
from dc_bridge.contract.reading.load import load_contract
from dc_bridge.plan import checks as c
from dc_bridge.plan.build import build_plan

DCS_HEAD = "dataContractSpecification: 1.1.0\nid: urn:datacontract:strict\ninfo: {title: Strict, version: 1.0.0}\n"
ODCS_HEAD = "apiVersion: v3.1.0\nkind: DataContract\nid: strict\nversion: 1.0.0\nstatus: active\n"


def dcs(fields: str = "      id: {type: string}\n", model: str = "", extra: str = "") -> str:
    return DCS_HEAD + "models:\n  orders:\n" + model + "    fields:\n" + fields + extra


def odcs(props: str = "", obj: str = "", extra: str = "") -> str:
    return (ODCS_HEAD + "schema:\n  - name: orders\n" + obj + "    properties:\n"
            "      - name: id\n        logicalType: string\n" + props
            + "      - name: ts\n        logicalType: timestamp\n" + extra)


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "contract.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def findings_of(tmp_path: Path, text: str):
    return lint_file(write(tmp_path, text)).findings


# (name, contract, code, severity, path) -- the finding the contract must get
CASES = [
    # 1. unknown keys: a typo of a key that changes what runs is an error (DCB104) ...
    ("dcs_requried", dcs("      id: {type: string, requried: true}\n"), "DCB104", "error", "models.orders.fields.id.requried"),
    ("dcs_uniqe", dcs("      id: {type: string, uniqe: true}\n"), "DCB104", "error", "models.orders.fields.id.uniqe"),
    ("dcs_Pattern", dcs("      id: {type: string, Pattern: '^a'}\n"), "DCB104", "error", "models.orders.fields.id.Pattern"),
    ("dcs_minimun", dcs("      n: {type: integer, minimun: 0}\n"), "DCB104", "error", "models.orders.fields.n.minimun"),
    ("dcs_primarykey", dcs("      id: {type: string, primarykey: true}\n"), "DCB104", "error", "models.orders.fields.id.primarykey"),
    ("dcs_primary_key_snake", dcs("      id: {type: string, primary_key: true}\n"), "DCB104", "error", "models.orders.fields.id.primary_key"),
    ("dcs_reference", dcs("      id: {type: string, reference: orders.id}\n"), "DCB104", "error", "models.orders.fields.id.reference"),
    ("dcs_model_qualty", dcs(model="    qualty:\n      - {type: sql, query: 'SELECT 1', mustBe: 1}\n"), "DCB104", "error",
     "models.orders.qualty"),
    ("dcs_feilds", DCS_HEAD + "models:\n  orders:\n    feilds:\n      id: {type: string, required: true}\n", "DCB104", "error",
     "models.orders.feilds"),
    ("dcs_servicelevel_Freshness", dcs(extra="servicelevels:\n  Freshness: {threshold: 1d, timestampField: orders.id}\n"),
     "DCB104", "error", "servicelevels.Freshness"),
    ("dcs_servicelevel_retension", dcs(extra="servicelevels:\n  retension: {period: 1d, timestampField: orders.id}\n"),
     "DCB104", "error", "servicelevels.retension"),
    ("dcs_servicelevel_timestampfeild", dcs(extra="servicelevels:\n  freshness: {threshold: 1d, timestampfeild: orders.id}\n"),
     "DCB104", "error", "servicelevels.freshness.timestampfeild"),
    ("dcs_quality_treshold_key", dcs(model="    quality:\n      - {type: sql, query: 'SELECT 1', mustbe: 1}\n"), "DCB104", "error",
     "models.orders.quality[0].mustbe"),
    ("dcs_models_typo", DCS_HEAD + "modles:\n  orders:\n    fields:\n      id: {type: string}\n", "DCB104", "error", "modles"),
    ("odcs_requird", odcs("        requird: true\n"), "DCB104", "error", "schema[0].properties[0].requird"),
    ("odcs_options_minimun", odcs("        logicalTypeOptions: {minimun: 3}\n"), "DCB104", "error",
     "schema[0].properties[0].logicalTypeOptions.minimun"),
    ("odcs_object_qualty", odcs(obj="    qualty:\n      - {metric: rowCount, mustBeGreaterThan: 0}\n"), "DCB104", "error", "schema[0].qualty"),
    # ... an ODCS SLA property near a checked one is an error too, also when only its case differs
    ("odcs_sla_Freshness", odcs(extra="slaProperties:\n  - {property: Freshness, value: 1, unit: d, element: orders.ts}\n"),
     "DCB104", "error", "slaProperties[0].property"),
    ("odcs_sla_retension", odcs(extra="slaProperties:\n  - {property: retension, value: 1, unit: y, element: orders.ts}\n"),
     "DCB104", "error", "slaProperties[0].property"),
    ("odcs_sla_Latency", odcs(extra="slaProperties:\n  - {property: LATENCY, value: 1, unit: h, element: orders.ts}\n"),
     "DCB104", "error", "slaProperties[0].property"),
    # ... an argument a library metric does not read, or misspelt, would be ignored
    ("odcs_missing_values_with_valid_values", odcs("        quality:\n          - {metric: missingValues, arguments: {validValues: [a]}}\n"),
     "DCB104", "error", "schema[0].properties[0].quality[0].arguments.validValues"),
    ("odcs_argument_typo", odcs("        quality:\n          - {metric: missingValues, arguments: {missingvalues: ['']}}\n"),
     "DCB104", "error", "schema[0].properties[0].quality[0].arguments.missingvalues"),
    # ... and any other unknown key is a warning with a did-you-mean
    ("dcs_unknown_harmless", dcs("      id: {type: string, descripton: the id}\n"), "DCB100", "error",
     "models.orders.fields.id.descripton"),
    ("dcs_unknown_top_level", dcs() + "colour: blue\n", "DCB100", "error", "colour"),
    # 2. values of the wrong shape are refused, never coerced
    ("odcs_missing_values_text", odcs("        quality:\n          - {metric: missingValues, arguments: {missingValues: 'N/A'}}\n"),
     "DCB101", "error", "schema[0].properties[0].quality[0].arguments.missingValues"),
    ("odcs_valid_values_text", odcs("        quality:\n          - {metric: invalidValues, arguments: {validValues: 'ABC'}}\n"),
     "DCB101", "error", "schema[0].properties[0].quality[0].arguments.validValues"),
    ("odcs30_valid_values_text_beside_rule", odcs("        quality:\n          - {rule: validValues, validValues: 'ABC'}\n"),
     "DCB101", "error", "schema[0].properties[0].quality[0].validValues"),
    ("odcs_valid_values_empty", odcs("        quality:\n          - {metric: invalidValues, arguments: {validValues: []}}\n"),
     "DCB101", "error", "schema[0].properties[0].quality[0].arguments.validValues"),
    ("odcs_valid_values_nested_list", odcs("        quality:\n          - {metric: invalidValues, arguments: {validValues: [[a, b]]}}\n"),
     "DCB101", "error", "schema[0].properties[0].quality[0].arguments.validValues[0]"),
    ("odcs_pattern_argument_number", odcs("        quality:\n          - {metric: invalidValues, arguments: {pattern: 123}}\n"),
     "DCB101", "error", "schema[0].properties[0].quality[0].arguments.pattern"),
    ("odcs_duplicate_properties_text", odcs(obj="    quality:\n      - {metric: duplicateValues, arguments: {properties: 'id, ts'}}\n"),
     "DCB101", "error", "schema[0].quality[0].arguments.properties"),
    ("odcs_threshold_quoted", odcs("        quality:\n          - {metric: nullValues, mustBeLessThan: '5'}\n"),
     "DCB101", "error", "schema[0].properties[0].quality[0].mustBeLessThan"),
    ("dcs_threshold_with_commas", dcs(model="    quality:\n      - {type: sql, query: 'SELECT 1', mustBeGreaterThan: '6,500,000,000'}\n"),
     "DCB101", "error", "models.orders.quality[0].mustBeGreaterThan"),
    ("dcs_minimum_boolean", dcs("      n: {type: integer, minimum: true}\n"), "DCB101", "error", "models.orders.fields.n.minimum"),
    ("odcs_objective_value_quoted", odcs("        quality:\n          - {id: q1, metric: nullValues, mustBe: 0}\n",
                                         extra="slaProperties:\n  - {property: dataQuality, value: '99', relationships: [{type: relatesTo, to: q1}]}\n"),
     "DCB101", "error", "slaProperties[0].value"),
    # 3. enums
    ("dcs_enum_empty", dcs("      s: {type: string, enum: []}\n"), "DCB101", "error", "models.orders.fields.s.enum"),
    ("dcs_enum_only_null", dcs("      s: {type: string, enum: [null]}\n"), "DCB101", "error", "models.orders.fields.s.enum"),
    ("dcs_enum_yaml11_no", dcs("      country: {type: string, enum: [NO, SE, DK]}\n"), "DCB105", "error", "models.orders.fields.country.enum[0]"),
    ("dcs_enum_yaml11_on", dcs("      switch: {type: string, enum: [on, off]}\n"), "DCB105", "error", "models.orders.fields.switch.enum[0]"),
    ("dcs_enum_yaml11_octal", dcs("      code: {type: string, enum: ['001', 010]}\n"), "DCB105", "error", "models.orders.fields.code.enum[1]"),
    ("dcs_enum_yaml11_base60", dcs("      slot: {type: string, enum: ['09:00', 12:30]}\n"), "DCB105", "error", "models.orders.fields.slot.enum[1]"),
    ("dcs_enum_number_in_string_field", dcs("      v: {type: string, enum: [a, 1.10]}\n"), "DCB105", "error", "models.orders.fields.v.enum[1]"),
    ("dcs_enum_text", dcs("      s: {type: string, enum: 'a,b'}\n"), "DCB101", "error", "models.orders.fields.s.enum"),
    ("dcs_enum_boolean_in_integer_field", dcs("      n: {type: integer, enum: [1, true]}\n"), "DCB101", "error", "models.orders.fields.n.enum[1]"),
    ("dcs_minimum_octal", dcs("      n: {type: integer, minimum: 010}\n"), "DCB105", "error", "models.orders.fields.n.minimum"),
    ("odcs_enum_yaml11_no", odcs("        enum: [NO, SE, DK]\n"), "DCB105", "error", "schema[0].properties[0].enum[0]"),
    ("odcs32_enum_object_without_value", odcs("        enum: [{label: Open}, {value: closed}]\n"), "DCB101", "error",
     "schema[0].properties[0].enum[0]"),
    ("odcs32_enum_object_yaml11_value", odcs("        enum: [{value: NO}, {value: SE}]\n"), "DCB105", "error",
     "schema[0].properties[0].enum[0].value"),
    ("odcs_missing_values_yaml11", odcs("        quality:\n          - {metric: missingValues, arguments: {missingValues: ['', n/a, no]}}\n"),
     "DCB105", "error", "schema[0].properties[0].quality[0].arguments.missingValues[2]"),
    # 4. invalidValues with both validValues and pattern: never only one of them
    ("odcs_invalid_values_both", odcs("        quality:\n          - {metric: invalidValues, arguments: {validValues: [a, b], pattern: '^a'}}\n"),
     "DCB101", "error", "schema[0].properties[0].quality[0].arguments"),
]


@pytest.mark.parametrize("name, text, code, severity, path", CASES, ids=[case[0] for case in CASES])
def test_strict_finding(tmp_path, name, text, code, severity, path):
    findings = findings_of(tmp_path, text)
    matches = [f for f in findings if f.code == code and f.path == path]
    shown = "\n".join(f"  {f.code} {f.level} {f.path}: {f.message}" for f in findings)
    assert len(matches) == 1, f"no single {code} at {path!r}:\n{shown}"
    assert matches[0].level == severity
    assert matches[0].line is not None


def test_did_you_mean_names_the_key():
    finding = lint_file_text("      id: {type: string, requried: true}\n")
    assert "did you mean `required`?" in finding.message and "Rename `requried` to `required`" in finding.fix


def lint_file_text(fields: str):
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        findings = findings_of(Path(folder), dcs(fields))
    return next(f for f in findings if f.code == "DCB104")


@pytest.mark.parametrize("key, allowed, meant", [
    ("Pattern", ["pattern", "format"], "pattern"),  # case first
    ("primary_key", ["primaryKey", "primary"], "primaryKey"),  # then `_` and `-`
    ("feilds", ["fields", "title"], "fields"),
    ("zzz", ["fields", "title"], None),
])
def test_nearest_key(key, allowed, meant):
    assert nearest_key(key, allowed) == meant


def test_extensions_and_free_form_places_are_not_unknown_keys(tmp_path):
    text = dcs("      id: {type: string, x-owner: me, config: {sparkType: string, anything: 1}, tags: [a]}\n",
               model="    x-notes: {requried: true}\n") + "x-team: {feilds: 1}\n"
    assert [f for f in findings_of(tmp_path, text) if f.code in ("DCB100", "DCB104")] == []
    odcs_text = odcs("        customProperties: [{property: requird, value: x}]\n        x-note: 1\n")
    assert [f for f in findings_of(tmp_path, odcs_text) if f.code == "DCB104"] == []


def test_odcs_schema_finding_does_not_claim_a_run_changing_key_is_harmless(tmp_path):
    """The schema's own DCB100 on the object names only the keys that do not change what runs."""
    findings = findings_of(tmp_path, odcs("        requird: true\n        colour: red\n"))
    schema = [f for f in findings if f.code == "DCB100" and f.path == "schema[0].properties[0]"]
    assert [f.message for f in schema] == ["schema: 'colour' is not a field of the standard"]
    assert [f.path for f in findings if f.code == "DCB104"] == ["schema[0].properties[0].requird"]


def test_odcs_sla_properties_dc_bridge_does_not_check_stay_notes(tmp_path):
    text = odcs(extra="slaProperties:\n  - {property: generalAvailability, value: '2024-01-01'}\n"
                      "  - {property: frequency, value: 1, unit: d, element: orders.ts}\n")
    assert [f for f in findings_of(tmp_path, text) if f.level == "error"] == []


def test_quoted_numeric_bounds_compare_as_numbers(tmp_path):
    """`"5"` and `"10"` (quoted to keep a decimal's digits) are 5 < 10, not the text "5" > "10"."""
    # the DCS schema wants numbers there (DCB100, conformance alone); dc-bridge reads the quoted digits
    findings = findings_of(tmp_path, dcs("      n: {type: integer, minimum: '5', maximum: '10'}\n"))
    assert [f for f in findings if f.level == "error" and f.code not in CONFORMANCE_CODES] == []
    findings = findings_of(tmp_path, dcs("      n: {type: integer, minimum: '10', maximum: '5'}\n"))
    assert [f.code for f in findings if f.level == "error" and f.code not in CONFORMANCE_CODES] == ["DCB164"]


def test_deprecated_dcs_primary_is_honoured(tmp_path):
    result = load_contract(write(tmp_path, dcs("      id: {type: string, primary: true}\n")))
    assert result.contract.model("orders").primary_key == ("id",)


def _plan(tmp_path: Path, text: str) -> dict[str, c.Check]:
    result = load_contract(write(tmp_path, text))
    assert not result.errors, [f.message for f in result.errors]
    return {check.id: check for check in build_plan(result.contract).checks}


def test_null_in_enum_allows_null_and_still_checks_the_other_values(tmp_path):
    """`enum: [open, closed, null]`: `x IN ('open', 'closed', NULL)` is NULL for `shipped`, never a violation;
    the null only says null is allowed (as it is for every value check), so the set keeps the other values."""
    checks = _plan(tmp_path, dcs("      status: {type: string, enum: [open, closed, null]}\n"))
    assert checks["orders.status.enum"].params == c.InSet(("open", "closed"))
    checks = _plan(tmp_path, odcs("        quality:\n          - {metric: invalidValues, arguments: {validValues: [a, null]}}\n"))
    assert checks["orders.id.quality[0]"].params == c.InSet(("a",))


def test_odcs32_enum_objects_become_their_values(tmp_path):
    text = odcs("        enum: [{value: open, label: Open}, {value: closed}]\n").replace("v3.1.0", "v3.2.0")
    assert _plan(tmp_path, text)["orders.id.enum"].params == c.InSet(("open", "closed"))


def test_plan_refuses_what_lint_refuses_when_given_a_contract_object(tmp_path):
    """The Python API may hand over a Contract that was never linted: the plan never runs a text as its
    characters, an empty set, or only one half of invalidValues."""
    contract = load_contract(write(tmp_path, odcs("        enum: [a]\n        quality:\n"
                                                  "          - {metric: missingValues, arguments: {missingValues: ['']}}\n"
                                                  "          - {metric: invalidValues, arguments: {validValues: [a]}}\n"))).contract
    model = contract.models[0]
    field = model.fields[0]
    rules = (field.quality[0].model_copy(update={"arguments": {"missingValues": "N/A"}}),
             field.quality[1].model_copy(update={"arguments": {"validValues": ["a"], "pattern": "^a"}}))
    field = field.model_copy(update={"enum": (), "quality": rules})
    contract = contract.model_copy(update={"models": (model.model_copy(update={"fields": (field,) + model.fields[1:]}),)})
    checks = {check.id: check for check in build_plan(contract).checks}
    assert isinstance(checks["orders.id.enum"].params, c.NotExecutable)
    assert isinstance(checks["orders.id.quality[0]"].params, c.NotExecutable)
    assert "both validValues and pattern" in checks["orders.id.quality[1]"].params.reason


@pytest.mark.parametrize("text, code", [
    (dcs("      id: {type: string, requried: true}\n"), "DCB104"),
    (dcs("      country: {type: string, enum: [NO, SE, DK]}\n"), "DCB105"),
    (odcs("        quality:\n          - {metric: missingValues, arguments: {missingValues: 'N/A'}}\n"), "DCB101"),
], ids=["typo", "yaml11", "text_as_list"])
def test_run_refuses_the_contract(tmp_path, text, code):
    path = write(tmp_path, text)
    result = CliRunner().invoke(main, ["run", str(path)])
    assert result.exit_code == 2, result.output
    assert code in result.output, result.output


def test_bundled_contracts_stay_clean():
    bundled = sorted((Path(__file__).resolve().parent.parent / "contracts").glob("*.yaml"))
    for path in bundled:
        # conformance alone (DCB100) is no error that stops compile or run
        errors = [f for f in lint_file(path).findings if (f.level == "error" and f.code not in CONFORMANCE_CODES) or f.code in ("DCB104", "DCB105")]
        assert errors == [], (path.name, [f"{f.code} {f.path}: {f.message}" for f in errors])


# ---------------------------------------------------------------------------------------------
# keys in the files a contract reaches: a `$ref`'d definitions file, an imported rule library

REFERENCING = """\
dataContractSpecification: 1.1.0
id: refs
info: {title: refs, version: 1.0.0}
models:
  orders:
    fields:
      order_id: {$ref: defs.yaml#/definitions/order_id}
      other_id: {$ref: defs.yaml#/definitions/order_id}
"""

DEFINITIONS = """\
definitions:
  order_id:
    type: string
    requried: true
    colour: blue
"""

LIBRARY = """\
apiVersion: v3.1.0
kind: DataContract
id: rules
version: 1.0.0
status: active
quality:
  - id: not_empty
    metric: rowCount
    mustBeGreaterThan: 0
    severty: warning
"""

IMPORTING = """\
apiVersion: v3.1.0
kind: DataContract
id: importing
version: 1.0.0
status: active
schema:
  - name: orders
    relationships:
      - {type: imports, to: rules.yaml#quality.not_empty}
    properties:
      - {name: id, logicalType: string}
"""


def test_keys_of_a_referenced_definitions_file_are_checked(tmp_path):
    (tmp_path / "defs.yaml").write_text(DEFINITIONS)
    path = tmp_path / "contract.yaml"
    path.write_text(REFERENCING)
    found = {(Path(f.file).name, f.code, f.path) for f in lint_file(path).findings if f.code in ("DCB100", "DCB104")}
    # reported once, in the file that holds the typo, however many fields reference it
    assert found == {("defs.yaml", "DCB104", "definitions.order_id.requried"), ("defs.yaml", "DCB100", "definitions.order_id.colour")}
    result = CliRunner().invoke(main, ["run", str(path)])
    assert result.exit_code == 2 and "did you mean `required`?" in result.output, result.output


def test_keys_of_an_imported_rule_library_are_checked(tmp_path):
    (tmp_path / "rules.yaml").write_text(LIBRARY)
    path = tmp_path / "contract.yaml"
    path.write_text(IMPORTING)
    found = [(Path(f.file).name, f.code, f.path) for f in lint_file(path).findings if f.code == "DCB104"]
    assert found == [("rules.yaml", "DCB104", "quality[0].severty")]
