"""Conformance with the standard's own material (issue 15): lint is conformance, run is robustness.

tests/conformance/odcs/ holds the ODCS repository's example contracts and negative tests (Apache-2.0; origins in
its README.md), copied so nothing is fetched here. Every example compiles; every negative test is rejected by lint
with the code for its own defect, at its place. Lint and compile only, but for one run on Spark at the end.
"""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import dc_bridge
from dc_bridge.cli import main
from dc_bridge.compiler import compile_for_run
from dc_bridge.contract.lint import lint_file

ODCS = Path(__file__).resolve().parent / "conformance" / "odcs"
VALID = sorted(p.name for p in (ODCS / "valid").glob("*.yaml"))

# negative test -> (code, path, words its message must hold): the defect each file is about, as its name says
DEFECTS = {
    "additional-unknown-property": ("DCB100", "", "unknownRootField"),
    "enum-duplicate-values": ("DCB100", "schema[0].properties[0].enum", "non-unique"),
    "enum-empty": ("DCB101", "schema[0].properties[0].enum", "no value"),
    "enum-missing-value": ("DCB101", "schema[0].properties[0].enum[0]", "`value`"),
    "invalid-api-version": ("DCB005", "apiVersion", "v4.0.0"),
    "invalid-kind": ("DCB100", "kind", "DataModel"),
    "invalid-quality-dimension": ("DCB100", "schema[0].properties[0].quality[0].dimension", "validity"),
    "invalid-quality-metric": ("DCB163", "schema[0].properties[0].quality[0].metric", "invalidMetric"),
    "invalid-quality-type": ("DCB101", "schema[0].properties[0].quality[0].type", "unknown"),
    "map-missing-block": ("DCB100", "schema[0].properties[0]", "'map' is a required property"),
    "map-missing-key": ("DCB100", "schema[0].properties[0].map", "'key' is a required property"),
    "map-missing-value": ("DCB100", "schema[0].properties[0].map", "'value' is a required property"),
    "missing-required-fields": ("DCB102", "", "`id`"),
    "quality-custom-missing-implementation": ("DCB183", "schema[0].properties[0].quality[0]", "implementation"),
    "quality-element-field": ("DCB100", "schema[0].properties[0].quality[0]", "'element'"),
    "quality-library-missing-metric": ("DCB102", "schema[0].properties[0].quality[0]", "`metric`"),
    "quality-multiple-operators": ("DCB161", "schema[0].properties[0].quality[0]", "2 thresholds"),
    "quality-mustbebetween-wrong-size": ("DCB101", "schema[0].quality[0].mustBeBetween", "two numbers"),
    "quality-sql-missing-query": ("DCB102", "schema[0].properties[0].quality[0]", "`query`"),
    "relationship-property-level-with-from": ("DCB100", "schema[0].properties[0].relationships[0].from", "`from`"),
    "relationship-schema-level-missing-from-to": ("DCB102", "schema[0].relationships[0]", "`to`"),
    "schema-property-invalid-logicaltype": ("DCB110", "schema[0].properties[0].logicalType", "binary"),
    "schema-property-missing-name": ("DCB102", "schema[0].properties[0]", "`name`"),
    "server-invalid-type": ("DCB100", "servers[0].type", "mongodb"),
    "server-missing-conditional-fields": ("DCB100", "servers[0]", "'schema' is a required property"),
    "server-missing-required-fields": ("DCB102", "servers[0]", "`type`"),
    "sla-missing-required-value": ("DCB100", "slaProperties[0]", "'value' is a required property"),
    "synonym-missing-term": ("DCB100", "schema[0].properties[0].synonyms[0]", "'synonym' is a required property"),
}


def test_every_negative_test_has_its_defect():
    assert sorted(p.name.removesuffix(".odcs.yaml") for p in (ODCS / "invalid").glob("*.yaml")) == sorted(DEFECTS)


@pytest.mark.parametrize("name", VALID)
def test_every_example_of_the_standard_compiles(name, tmp_path):
    result = CliRunner().invoke(main, ["compile", "--out", str(tmp_path), str(ODCS / "valid" / name)])
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("name", sorted(DEFECTS))
def test_every_negative_test_is_rejected_by_lint_for_its_defect(name):
    result = CliRunner().invoke(main, ["lint", "--format", "json", str(ODCS / "invalid" / f"{name}.odcs.yaml")])
    assert result.exit_code == 1, result.output
    code, path, words = DEFECTS[name]
    errors = [(f["code"], f["path"], f["message"]) for f in json.loads(result.stdout)["findings"] if f["severity"] == "error"]
    assert any(c == code and p == path and words in m for c, p, m in errors), errors


EXAMPLE = ODCS / "valid" / "main--all--full-example.odcs.yaml"


def test_errors_confined_to_one_check_leave_it_out_of_compile_and_make_it_error_in_a_run(tmp_path):
    """The full example's relationship names a property that does not exist and its SLAs an element that does not:
    lint rejects the contract; compile leaves those checks out with the findings; a run's compile marks them invalid."""
    findings = [f for f in lint_file(EXAMPLE).findings if f.level == "error"]
    dangling = {f.path for f in findings if f.code == "DCB125"}
    assert "schema[1].properties[3].relationships[0].to" in dangling and "slaProperties[0].element" in dangling
    result = CliRunner().invoke(main, ["compile", "--out", str(tmp_path), str(EXAMPLE)])
    assert result.exit_code == 0 and "left out for the errors above" in result.output
    assert "DCB125 at schema[1].properties[3].relationships[0].to" in result.output
    compiled = compile_for_run(EXAMPLE)
    by_path = {check.source.path: check.id for check in compiled.plan.checks}
    # the SLA's check is where the SLA is; the relationship, read as no foreign key, gets one of its own
    assert by_path["slaProperties[0]"] in compiled.invalid
    assert by_path["schema[1].properties[3].relationships[0].to"] in compiled.invalid
    assert all(reason.startswith("DCB125") for reason in compiled.invalid.values())


@pytest.mark.parametrize("name, rule", [("v3.0.0--quality--column-accuracy.odcs.yaml", "between"),
                                        ("v3.0.0--quality--column-validity.odcs.yaml", "minCheck")])
def test_odcs_3_0_free_form_rule_names_are_a_warning_and_not_executable(name, rule):
    path = ODCS / "valid" / name
    assert [(f.code, f.level) for f in lint_file(path).findings if f.path.endswith(".rule")] == [("DCB106", "warning")]
    checks = [c for c in compile_for_run(path).plan.checks if c.kind == "not_executable"]
    assert len(checks) == 1 and f"`{rule}` is not a library metric" in checks[0].params.reason


def test_invalid_values_without_arguments_is_a_warning_and_not_executable(tmp_path):
    contract = tmp_path / "c.odcs.yaml"
    contract.write_text("apiVersion: v3.1.0\nkind: DataContract\nid: c\nversion: 1.0.0\nstatus: active\nschema:\n"
                        "  - name: t\n    properties:\n      - name: a\n        logicalType: string\n"
                        "        quality:\n          - metric: invalidValues\n            mustBe: 0\n", encoding="utf-8")
    assert [(f.code, f.level) for f in lint_file(contract).findings] == [("DCB106", "warning")]
    [check] = [c for c in compile_for_run(contract).plan.checks if c.kind == "not_executable"]
    assert "invalidValues" in check.params.reason


DANGLING = """\
apiVersion: v3.1.0
kind: DataContract
id: dangling
version: 1.0.0
schema:
  - name: orders
    properties:
      - name: id
        logicalType: string
        required: true
      - name: customer_id
        logicalType: string
        relationships:
          - to: customers.id
slaProperties:
  - property: freshness
    value: 1
    unit: d
    element: orders.updated_at
"""


def test_a_run_goes_past_schema_and_check_local_errors_and_makes_those_checks_error(tmp_path, spark):
    """No `status` (DCB100), a relationship and an SLA naming nothing (DCB125): the run checks the rest."""
    contract = tmp_path / "dangling.odcs.yaml"
    contract.write_text(DANGLING, encoding="utf-8")
    assert {(f.code, f.path) for f in lint_file(contract).findings if f.level == "error"} == {
        ("DCB100", ""), ("DCB125", "schema[0].properties[1].relationships[0].to"), ("DCB125", "slaProperties[0].element")}
    frame = spark.createDataFrame([("1", "c1"), ("2", "c2")], "id string, customer_id string")
    verdict = dc_bridge.run(str(contract), dataframes={"orders": frame}, spark=spark)
    outcomes = {check.source["path"]: check.outcome for check in verdict.checks()}
    assert {c.outcome for c in verdict.checks() if c.source["path"] == "schema[0].properties[0]"} == {"passed"}
    assert outcomes["schema[0].properties[1].relationships[0].to"] == "error"
    assert outcomes["slaProperties[0]"] == "error"
    assert verdict.outcome == "error"
