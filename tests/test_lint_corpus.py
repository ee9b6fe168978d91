"""The broken-contract corpus: each file in tests/broken/ is wrong in one way, and lint must say so
with exactly the right code at exactly the right path (and line, where the loader knows it).

A path written `support/x.yaml#a.b` means the finding belongs to that file (relative to tests/broken/),
e.g. a cycle closed inside a library, or a property imported from one.
"""

from __future__ import annotations

import functools
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from dc_bridge.cli import main
from dc_bridge.contract.findings import CONFORMANCE_CODES
from dc_bridge.contract.lint import lint_file

TESTS = Path(__file__).parent
BROKEN = TESTS / "broken"
CONTRACTS = TESTS.parent / "contracts"
HAS_JAVA = shutil.which("java") is not None

# (file in tests/broken/, expected code, expected path, expected line or None)
CASES = [
    # files and documents
    ("empty_file.yaml", "DCB004", "", None),
    ("not_yaml.yaml", "DCB002", "", 5),
    ("yaml_is_a_list.yaml", "DCB004", "", 2),
    ("tab_indentation.yaml", "DCB002", "", 5),
    ("duplicate_keys.yaml", "DCB003", "models.orders.fields.order_id", 13),
    ("odcs_duplicate_keys.yaml", "DCB003", "schema[0].properties[0].logicalType", 12),
    ("unknown_contract_format.yaml", "DCB004", "", 2),
    ("dcs_unsupported_version.yaml", "DCB005", "dataContractSpecification", 2),
    ("odcs_unsupported_api_version.yaml", "DCB005", "apiVersion", 2),
    # wrong types for fields dc-bridge uses
    ("dcs_required_not_boolean.yaml", "DCB101", "models.orders.fields.order_id.required", 13),
    ("dcs_min_length_not_integer.yaml", "DCB101", "models.orders.fields.order_id.minLength", 13),
    ("odcs_quality_not_a_list.yaml", "DCB101", "schema[0].properties[0].quality", 12),
    ("dcs_fields_not_a_mapping.yaml", "DCB101", "models.orders.fields", 10),
    ("dcs_model_not_a_mapping.yaml", "DCB101", "models.orders", 8),
    ("dcs_must_be_between_one_value.yaml", "DCB101", "models.orders.quality[0].mustBeBetween", 16),
    ("odcs_relationship_type_not_a_string.yaml", "DCB101", "schema[1].properties[0].relationships[0].type", 17),
    ("odcs_property_name_not_a_string.yaml", "DCB101", "schema[1].properties[0].name", 14),
    ("odcs_exclusive_maximum_flag_bad_maximum.yaml", "DCB101", "schema[0].properties[0].logicalTypeOptions.maximum", 13),
    ("odcs_library_rule_not_a_mapping.yaml", "DCB101", "quality[1]", 10),
    # missing required fields
    ("dcs_sql_rule_without_query.yaml", "DCB102", "models.orders.quality[0]", 14),
    ("odcs_custom_rule_without_engine.yaml", "DCB102", "schema[0].quality[0]", 13),
    ("odcs_property_without_name.yaml", "DCB102", "schema[0].properties[1]", 12),
    # types, formats, dimensions
    ("dcs_unknown_type.yaml", "DCB110", "models.orders.fields.order_id.type", 12),
    ("odcs_unknown_logical_type.yaml", "DCB110", "schema[0].properties[0].logicalType", 11),
    ("dcs_unknown_format.yaml", "DCB111", "models.customers.fields.email.format", None),
    ("odcs_unknown_format.yaml", "DCB111", "schema[0].properties[0].logicalTypeOptions.format", None),
    ("odcs_unknown_dimension.yaml", "DCB112", "schema[0].properties[0].quality[0].dimension", 15),
    # $ref, imports, ids, references
    ("dcs_ref_missing_definition.yaml", "DCB120", "models.orders.fields.order_id.$ref", 12),
    ("dcs_ref_missing_file.yaml", "DCB121", "models.orders.fields.order_id.$ref", 12),
    ("dcs_ref_cycle_definitions.yaml", "DCB122", "definitions.b.$ref", 18),
    ("dcs_ref_cycle_files.yaml", "DCB122", "support/ref_cycle_b.yaml#definitions.order_id.$ref", 4),
    ("odcs_import_missing_rule.yaml", "DCB123", "schema[0].properties[0].relationships[0].to", 14),
    ("odcs_import_missing_file.yaml", "DCB121", "schema[0].properties[0].relationships[0].to", 14),
    ("odcs_import_cycle.yaml", "DCB122", "support/import_cycle_b.yaml#properties[0].relationships[0].to", 8),
    ("odcs_import_property_bad_type.yaml", "DCB110", "support/properties_library.yaml#properties[0].logicalType", 5),
    ("odcs_duplicate_quality_rule_ids.yaml", "DCB124", "schema[0].properties[0].quality[1].id", 16),
    ("odcs_duplicate_schema_object_ids.yaml", "DCB124", "schema[1].id", 13),
    ("odcs_fk_property_missing_target.yaml", "DCB125", "schema[1].properties[1].relationships[0].to", 23),
    ("odcs_fk_schema_missing_source.yaml", "DCB125", "schema[1].relationships[0].from", 22),
    ("odcs_fk_composite_length_mismatch.yaml", "DCB126", "schema[1].relationships[0]", 25),
    ("dcs_references_missing_model.yaml", "DCB125", "models.orders.fields.customer_id.references", 15),
    # regular expressions (Java decides: Spark evaluates patterns with java.util.regex)
    pytest.param("dcs_regex_python_only.yaml", "DCB140", "models.orders.fields.order_code.pattern", None,
                 marks=pytest.mark.skipif(not HAS_JAVA, reason="needs Java to see that java.util.regex rejects (?P<name>...)")),
    ("odcs_regex_invalid.yaml", "DCB140", "schema[0].properties[0].logicalTypeOptions.pattern", None),
    # durations
    ("dcs_servicelevel_bad_duration.yaml", "DCB150", "servicelevels.freshness.threshold", 15),
    ("odcs_sla_value_not_a_number.yaml", "DCB150", "slaProperties[0].value", 14),
    ("odcs_sla_unknown_unit.yaml", "DCB150", "slaProperties[0].value", 14),
    ("odcs_sla_value_is_a_list.yaml", "DCB150", "slaProperties[0].value", 14),
    # thresholds and library metrics
    ("dcs_must_be_between_reversed.yaml", "DCB160", "models.orders.quality[0].mustBeBetween", 16),
    ("odcs_greater_than_above_less_than.yaml", "DCB160", "schema[0].quality[0]", 13),
    ("odcs_thresholds_do_not_combine.yaml", "DCB161", "schema[0].properties[0].quality[0]", 13),
    ("odcs_row_count_without_threshold.yaml", "DCB161", "schema[0].quality[0]", 13),
    ("odcs_unknown_metric.yaml", "DCB163", "schema[0].properties[0].quality[0].metric", 14),
    ("dcs_min_length_above_max_length.yaml", "DCB164", "models.orders.fields.order_code.minLength", None),
    ("odcs_min_length_above_max_length.yaml", "DCB164", "schema[0].properties[0].logicalTypeOptions.minLength", None),
    # quality SQL
    ("dcs_sql_drop_table.yaml", "DCB170", "models.orders.quality[0].query", None),
    ("dcs_sql_two_statements.yaml", "DCB170", "models.orders.quality[0].query", None),
    ("odcs_sql_select_then_delete.yaml", "DCB170", "schema[0].properties[0].quality[0].query", None),
    ("odcs_sql_insert.yaml", "DCB170", "schema[0].quality[0].query", None),
    ("dcs_sql_does_not_parse.yaml", "DCB171", "models.orders.fields.order_id.quality[0].query", None),
    ("dcs_sql_unknown_placeholder.yaml", "DCB172", "models.orders.quality[0].query", None),
    # custom checks
    ("odcs_custom_engine_dbt.yaml", "DCB180", "schema[0].quality[0].engine", None),
    ("odcs_gx_unknown_expectation.yaml", "DCB181", "schema[0].properties[0].quality[0]", 13),
    ("odcs_gx_camelcase_kwargs.yaml", "DCB182", "schema[0].quality[0]", 13),
    ("dcs_gx_expectation_type_0x.yaml", "DCB185", "models.orders.quality[0]", 14),
]
# contracts in tests/broken/ that are fine on purpose (warnings allowed, no error)
CLEAN = ["unicode_names_clean.yaml"]
# errors a case causes besides the one it is about, by design. The imported property `audit_a` imports
# a property itself; dc-bridge imports only quality rules at property level (DCB127), though the RFC's
# Example 1 imports a property definition there.
KNOCK_ON = {"odcs_import_cycle.yaml": {"DCB127"}}


@functools.lru_cache(maxsize=None)
def lint(name: str):
    """Lint a corpus file once per test run (several tests look at the same result)."""
    return lint_file(str(BROKEN / name))


def _case_name(case) -> str:
    return (case.values if hasattr(case, "values") else case)[0]


def _split(expected_path: str, name: str) -> tuple[str, str]:
    """`support/x.yaml#a.b` -> (tests/broken/support/x.yaml, a.b); a plain path is in the linted file itself."""
    file, hash_, path = expected_path.rpartition("#")
    return (str(BROKEN / file) if hash_ else str(BROKEN / name)), path


def _show(findings) -> str:
    return "\n".join(f"  {f.code} {f.level} {Path(f.file).name}:{f.line} {f.path!r}: {f.message}" for f in findings) or "  (no findings)"


@pytest.mark.parametrize(("name", "code", "path", "line"), CASES, ids=[_case_name(c) for c in CASES])
def test_broken_contract_is_reported(name: str, code: str, path: str, line: int | None) -> None:
    findings = lint(name).findings
    file, path = _split(path, name)
    matches = [f for f in findings if f.code == code and f.path == path and Path(f.file).resolve() == Path(file).resolve()]
    assert matches, f"no {code} at {path!r} in {Path(file).name}; lint reported:\n{_show(findings)}"
    if line is not None:
        assert line in [f.line for f in matches], f"{code} at {path!r} is on line(s) {[f.line for f in matches]}, expected {line}"


@pytest.mark.parametrize(("name", "code", "path", "line"), CASES, ids=[_case_name(c) for c in CASES])
def test_broken_contract_has_no_other_error(name: str, code: str, path: str, line: int | None) -> None:
    """One thing is broken, so one error: no knock-on errors from what lint already reported. What the official
    schema says of the same defect (DCB100, often at the mapping holding it) may stand beside it."""
    file, path = _split(path, name)
    others = [f for f in lint(name).findings if f.level == "error" and f.code not in KNOCK_ON.get(name, set()) | CONFORMANCE_CODES
              and not (f.code == code and f.path == path and Path(f.file).resolve() == Path(file).resolve())]
    assert not others, f"errors besides {code} at {path!r}:\n{_show(others)}"


@pytest.mark.parametrize("name", sorted({_case_name(c) for c in CASES} | set(CLEAN)))
def test_no_finding_is_reported_twice(name: str) -> None:
    findings = [(f.code, f.file, f.path, f.message) for f in lint(name).findings]
    twice = sorted({f for f in findings if findings.count(f) > 1})
    assert not twice, f"reported more than once: {twice}"


@pytest.mark.parametrize("name", CLEAN)
def test_clean_corpus_contract_has_no_error(name: str) -> None:
    """Nothing that stops compile or run; the official schema may reject it (DCB100: names outside DCS's pattern)."""
    errors = [f for f in lint(name).findings if f.level == "error" and f.code not in CONFORMANCE_CODES]
    assert not errors, _show(errors)


def test_every_corpus_file_is_used_and_says_what_is_broken() -> None:
    used = {_case_name(c) for c in CASES} | set(CLEAN)
    files = sorted(p.name for p in BROKEN.glob("*.yaml"))
    assert sorted(used) == files, f"unused: {sorted(set(files) - used)}; missing: {sorted(used - set(files))}"
    for path in [*BROKEN.glob("*.yaml"), *BROKEN.glob("support/*.yaml")]:
        first = path.read_text(encoding="utf-8").split("\n", 1)[0]
        assert first.startswith("# "), f"{path.name} must start with a comment saying what is broken"


@pytest.mark.parametrize("contract", sorted(CONTRACTS.glob("*.yaml")), ids=lambda p: p.name)
def test_bundled_contract_has_no_error(contract: Path) -> None:
    """Nothing that stops compile or run. Some keep what the official schemas lag behind (a relationship's
    `description`, an SLA's `businessImpact`, `schema.<id>.properties.<id>` references): lint's DCB100 errors."""
    result = lint_file(str(contract))
    errors = [f for f in result.findings if f.level == "error" and f.code not in CONFORMANCE_CODES]
    assert not errors, _show(errors)


# ---------------------------------------------------------------------------------------------
# the command line: exit codes and report formats


@pytest.mark.parametrize(("files", "exit_code"), [
    (["unicode_names_clean.yaml"], 1),  # DCB100: the DCS schema's pattern for names; compile and run go on
    (["odcs_unknown_dimension.yaml"], 1),  # DCB100: the schema's dimension enum, beside dc-bridge's DCB112 warning
    (["dcs_unknown_type.yaml"], 1),
    (["unicode_names_clean.yaml", "odcs_sql_insert.yaml"], 1),
    (["empty_file.yaml"], 1),  # read, but not a contract
    (["does_not_exist.yaml"], 2),
    (["not_yaml.yaml"], 2),
    (["tab_indentation.yaml"], 2),
    (["dcs_unknown_type.yaml", "tab_indentation.yaml"], 2),  # unreadable wins over errors
], ids=lambda v: "+".join(v) if isinstance(v, list) else str(v))
def test_cli_exit_code(files: list[str], exit_code: int) -> None:
    result = CliRunner().invoke(main, ["lint", *[str(BROKEN / f) for f in files]])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert result.exit_code == exit_code, result.output


def test_cli_tab_message_names_the_tab() -> None:
    result = CliRunner().invoke(main, ["lint", str(BROKEN / "tab_indentation.yaml")])
    assert "tab character" in result.output, result.output


def test_cli_json_output_parses() -> None:
    files = [str(BROKEN / "dcs_unknown_type.yaml"), str(BROKEN / "odcs_unknown_dimension.yaml")]
    result = CliRunner().invoke(main, ["lint", "--format", "json", *files])
    assert result.exit_code == 1, result.output
    report = json.loads(result.output)
    assert report["files"] == files
    found = {(f["code"], f["path"], f["severity"]) for f in report["findings"]}
    assert ("DCB110", "models.orders.fields.order_id.type", "error") in found
    assert ("DCB112", "schema[0].properties[0].quality[0].dimension", "warning") in found
    for finding in report["findings"]:
        assert {"code", "severity", "file", "path", "line", "message", "hint"} <= set(finding)


def test_cli_sarif_output_has_one_result_per_finding() -> None:
    names = ["dcs_unknown_type.yaml", "odcs_fk_composite_length_mismatch.yaml", "odcs_gx_camelcase_kwargs.yaml"]
    expected = [f for name in names for f in lint(name).findings]
    result = CliRunner().invoke(main, ["lint", "--format", "sarif", *[str(BROKEN / n) for n in names]])
    assert result.exit_code == 1, result.output
    sarif = json.loads(result.output)
    assert sarif["version"] == "2.1.0"
    (run,) = sarif["runs"]
    assert len(run["results"]) == len(expected)
    assert sorted(r["ruleId"] for r in run["results"]) == sorted(f.code for f in expected)
    rule_ids = [rule["id"] for rule in run["tool"]["driver"]["rules"]]
    for r in run["results"]:
        assert rule_ids[r["ruleIndex"]] == r["ruleId"]
