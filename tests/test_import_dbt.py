"""`dc-bridge import dbt:PATH`: every row of the mapping table, refusals with their reasons, and hostile input.

No Spark here (tests/test_import_dbt_fidelity.py runs dbt and the imported contract on the same rows). Each
import goes through the command, which lints the contract it writes: every SQL rule the reader writes must be one
read-only Spark SELECT that names only the contract's models, for any model or column name.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from dc_bridge.cli import main
from dc_bridge.importing.dbt import MANIFEST_VERSIONS, TESTS, read

HERE = Path(__file__).parent
DATACONTRACT_MANIFEST = HERE / "dbt" / "datacontract_cli" / "manifest_jaffle_duckdb.json"

# arguments each test of the table is written with here (dbt's documented examples' shapes)
ARGS = {
    "not_null": {},
    "unique": {},
    "accepted_values": {"values": ["a", "b"]},
    "relationships": {"to": "ref('parent')", "field": "id"},
    "dbt_utils.expression_is_true": {"expression": "amount >= 0"},
    "dbt_utils.accepted_range": {"min_value": 0, "max_value": 100},
    "dbt_utils.not_null_proportion": {"at_least": 0.9},
    "dbt_utils.unique_combination_of_columns": {"combination_of_columns": ["amount", "status"]},
    "dbt_utils.not_accepted_values": {"values": ["x"]},
    "dbt_utils.not_empty_string": {},
    "dbt_utils.at_least_one": {},
    "dbt_utils.not_constant": {},
    "dbt_utils.equal_rowcount": {"compare_model": "ref('parent')"},
    "dbt_expectations.expect_column_to_exist": {},
    "dbt_expectations.expect_column_values_to_not_be_null": {},
    "dbt_expectations.expect_column_values_to_be_null": {},
    "dbt_expectations.expect_column_values_to_be_unique": {},
    "dbt_expectations.expect_column_values_to_be_between": {"min_value": 1, "max_value": 9},
    "dbt_expectations.expect_column_values_to_be_in_set": {"value_set": ["a", "b"]},
    "dbt_expectations.expect_column_values_to_not_be_in_set": {"value_set": ["z"]},
    "dbt_expectations.expect_column_values_to_match_regex": {"regex": "^[a-z]+$"},
    "dbt_expectations.expect_column_values_to_not_match_regex": {"regex": "[0-9]"},
    "dbt_expectations.expect_column_value_lengths_to_be_between": {"min_value": 1, "max_value": 5},
    "dbt_expectations.expect_table_row_count_to_be_between": {"min_value": 1, "max_value": 1000},
    "dbt_expectations.expect_table_row_count_to_equal": {"value": 3},
    "dbt_expectations.expect_column_values_to_be_of_type": {"column_type": "varchar"},
}
SHAPE_ONLY = {"dbt_expectations.expect_column_to_exist", "dbt_expectations.expect_column_values_to_be_of_type"}


def _import(tmp_path: Path, *sources: str, name: str = "out.yaml"):
    out = tmp_path / name
    report = tmp_path / (name + ".report.json")
    result = CliRunner().invoke(main, ["import", *sources, "--out", str(out), "--report", str(report), "--overwrite"])
    data = json.loads(report.read_text()) if report.exists() else None
    return result, out, data


def _property_file(tmp_path: Path, document: dict, name: str = "schema.yml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(document, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path


def _column_node(test: str, args: dict, config: dict | None = None) -> dict:
    body = {"arguments": args} if args else {}
    if config:
        body["config"] = config
    return {test: body} if body else test


def test_every_row_plain_and_scoped(tmp_path):
    """Each test of the table with a plain config and with `where` + severity warn + error_if: mapped (a scoped
    test as dbt's own query), the contract lints clean, and every test is one row of the report."""
    assert set(ARGS) == set(TESTS), "a row of the table without a case here"
    model_level = {name for name, row in TESTS.items() if not row.column}
    tests = {"column": [], "model": []}
    columns = [{"name": "amount"}, {"name": "status"}]
    for i, (name, args) in enumerate(ARGS.items()):
        plain = _column_node(name, args)
        scoped = _column_node(name, args, {"where": "amount > 0", "severity": "warn", "warn_if": "> 2"})
        if name in model_level:
            tests["model"] += [plain, scoped]
        else:  # a column each: two tests of one column may set the same property
            columns.append({"name": f"c{i}", "data_tests": [plain, scoped]})
    document = {"version": 2, "models": [
        {"name": "parent", "columns": [{"name": "id", "tests": ["unique"]}]},
        {"name": "orders", "data_tests": tests["model"], "columns": columns}]}
    result, out, report = _import(tmp_path, f"dbt:{_property_file(tmp_path, document)}")
    assert "lint: clean" in result.output, result.output
    rows = [r for r in report["checks"] if r["dataset"] == "orders"]
    assert len(rows) == 2 * len(ARGS)
    refused = [r for r in rows if r["outcome"] == "refused"]
    # a test of the table's shape has no rows to count under a filter; everything else is carried
    assert len(refused) == len(SHAPE_ONLY), refused
    assert all("no contract form" in r["reason"] for r in refused)
    contract = yaml.safe_load(out.read_text())
    orders = next(s for s in contract["schema"] if s["name"] == "orders")
    rules = orders["quality"] + [q for p in orders["properties"] for q in p.get("quality", [])]
    scoped = [q for q in rules if q.get("type") == "sql" and "amount > 0" in q["query"]]
    assert len(scoped) == len(ARGS) - len(SHAPE_ONLY)
    assert all(q["severity"] == "warning" and q["mustBeLessOrEqualTo"] == 2 for q in scoped)
    assert result.exit_code == 1  # the refused ones


@pytest.mark.parametrize("test, reason", [
    ("dbt_utils.recency", "not in dc-bridge's mapping table"),
    ("my_package.custom_check", "not in dc-bridge's mapping table"),
    ({"accepted_values": {"values": ["a"], "case_sensitive": False}}, "argument(s) case_sensitive"),
    ({"accepted_values": {"config": {"severity": "warn"}}}, "lacks its argument(s) values"),
    ({"not_null": {"config": {"enabled": False}}}, "disabled in dbt"),
    ({"not_null": {"config": {"error_if": "> {{ var('n') }}"}}}, "no comparison with a number"),
    ({"not_null": {"config": {"severity": "fatal"}}}, "neither error nor warn"),
    ({"not_null": {"config": {"persist_docs": True}}}, "config persist_docs"),
    ({"relationships": {"to": "{{ target.schema }}.parent", "field": "id"}}, "no ref('model')"),
    ({"dbt_expectations.expect_column_values_to_match_regex": {"regex": "a", "flags": "i"}}, "regex flags"),
    ({"accepted_values": {"values": "a"}}, "non-empty list"),
])
def test_refused_with_the_reason(tmp_path, test, reason):
    document = {"models": [{"name": "m", "columns": [{"name": "c", "tests": [test]}]}]}
    result, out, report = _import(tmp_path, f"dbt:{_property_file(tmp_path, document)}")
    (row,) = report["checks"]
    assert row["outcome"] == "refused" and reason in row["reason"], row
    assert result.exit_code == 1


def test_thresholds_and_severity_carry_to_the_rule():
    """dbt's failing conditions are negated into the contract's thresholds on the same count."""
    cases = {
        (("severity", "warn"),): {"metric": "nullValues", "mustBe": 0, "severity": "warning"},
        (("error_if", ">10"),): {"metric": "nullValues", "mustBeLessOrEqualTo": 10},
        (("error_if", ">= 3"), ("warn_if", ">= 3")): {"metric": "nullValues", "mustBeLessThan": 3},
        (("severity", "warn"), ("warn_if", "<5")): {"metric": "nullValues", "mustBeGreaterOrEqualTo": 5, "severity": "warning"},
        (("error_if", "= 2"),): {"metric": "nullValues", "mustNotBe": 2},
        (("error_if", "<> 1"),): {"metric": "nullValues", "mustBe": 1},
    }
    from dc_bridge.importing.dbt import Test, carry
    from dc_bridge.importing.model import SourceCheck

    for config, rule in cases.items():
        item = carry(Test(SourceCheck("dbt", "f", "l", "m", "t"), "m", "c", "not_null", {}, dict(config)))
        assert item.outcome == "mapped" and item.rule == rule, (config, item)
    lost = carry(Test(SourceCheck("dbt", "f", "l", "m", "t"), "m", "c", "not_null", {}, {"error_if": "> 10"}))
    assert "dbt warns when its count is != 0" in lost.reason


def test_model_contract_types_and_constraints(tmp_path):
    document = {"models": [
        {"name": "parent", "columns": [{"name": "id", "tests": ["unique"]}]},
        {"name": "orders", "config": {"contract": {"enforced": True}},
         "constraints": [{"type": "check", "expression": "amount >= 0"},
                         {"type": "primary_key", "columns": ["id", "line"]},
                         {"type": "custom", "expression": "x"}],
         "columns": [{"name": "id", "data_type": "integer", "constraints": [{"type": "not_null"}, {"type": "unique"}]},
                     {"name": "line", "data_type": "int"},
                     {"name": "parent_id", "data_type": "bigint",
                      "constraints": [{"type": "foreign_key", "to": "ref('parent')", "to_columns": ["id"]}]},
                     {"name": "amount", "data_type": "decimal(10,2)"}]},
        # a contract not enforced: dbt checks neither types nor constraints, so neither is a check
        {"name": "loose", "columns": [{"name": "x", "data_type": "integer", "constraints": [{"type": "not_null"}]}]}]}
    result, out, report = _import(tmp_path, f"dbt:{_property_file(tmp_path, document)}")
    rows = {(r["location"], r["outcome"]) for r in report["checks"]}
    assert len(report["checks"]) == 1 + 3 + 4 + 3, report["checks"]
    assert ("models[1].constraints[2]", "refused") in rows
    assert not any(loc.startswith("models[2]") for loc, _ in rows)
    contract = yaml.safe_load(out.read_text())
    orders = next(s for s in contract["schema"] if s["name"] == "orders")
    props = {p["name"]: p for p in orders["properties"]}
    assert props["id"]["required"] is True and props["id"]["unique"] is True and props["id"]["physicalType"] == "integer"
    assert props["parent_id"]["relationships"] == [{"type": "foreignKey", "to": "parent.id"}]
    assert {"metric": "duplicateValues", "arguments": {"properties": ["id", "line"]}, "mustBe": 0} in orders["quality"]
    assert "lint: clean" in result.output, result.output


def test_datacontract_cli_manifest(tmp_path):
    """datacontract-cli's jaffle-shop manifest (dbt 1.8, v12): all 20 tests carried; the contract lints clean."""
    manifest = json.loads(DATACONTRACT_MANIFEST.read_text())
    tests = [k for k, n in manifest["nodes"].items() if n["resource_type"] == "test"]
    result, out, report = _import(tmp_path, f"dbt:{DATACONTRACT_MANIFEST}")
    assert result.exit_code == 0, result.output
    assert sorted(r["location"] for r in report["checks"]) == sorted(f"nodes.{k}" for k in tests)
    assert report["summary"] == {"checks": 20, "mapped": 20, "custom": 0, "refused": 0}
    contract = yaml.safe_load(out.read_text())
    orders = next(s for s in contract["schema"] if s["name"] == "orders")
    customer = next(p for p in orders["properties"] if p["name"] == "customer_id")
    assert customer["relationships"] == [{"type": "foreignKey", "to": "customers.customer_id"}]


@pytest.mark.parametrize("version", ["v1", "v8", "v13", "v20"])
def test_manifest_of_another_version_is_refused(tmp_path, version):
    manifest = json.loads(DATACONTRACT_MANIFEST.read_text())
    manifest["metadata"]["dbt_schema_version"] = f"https://schemas.getdbt.com/dbt/manifest/{version}.json"
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps(manifest))
    result, out, report = _import(tmp_path, f"dbt:{path}")
    assert result.exit_code == 2 and not out.exists()
    assert f"schema {version}" in result.output and ", ".join(MANIFEST_VERSIONS) in result.output


@pytest.mark.parametrize("name, content, words", [
    ("schema.yml", b"models: [\n", "not a dbt property file (YAML)"),
    ("schema.yml", b"\xff\xfe\x00binary", "not UTF-8"),
    ("schema.yml", b"- just\n- a list\n", "not a dbt property file: expected a mapping"),
    ("suite.yml", b"name: my_suite\nexpectations: []\n", "not a dbt property file"),
    ("dbt_project.yml", b"name: p\nversion: '1'\nprofile: p\n", "not a dbt property file"),
    ("schema.yml", b"models: []\nchecks for orders: []\n", "are not dbt's"),
    ("schema.yml", b"models:\n  - columns: []\n", "expected a mapping with a `name`"),
    ("schema.yml", b"models:\n  - name: m\n    tests: not_null\n", "expected a list of tests"),
    ("schema.yml", b"models:\n  - name: m\n    tests:\n      - {a: 1, b: 2}\n", "a mapping of one name"),
    ("manifest.json", b"{not json", "not a dbt manifest.json"),
    ("manifest.json", b'{"expectation_suite_name": "s", "expectations": []}', "not a dbt manifest"),
    ("manifest.json", b'[1, 2]', "not a dbt manifest"),
])
def test_unreadable_input_exits_2(tmp_path, name, content, words):
    path = tmp_path / name
    path.write_bytes(content)
    result, out, report = _import(tmp_path, f"dbt:{path}")
    assert result.exit_code == 2 and not out.exists(), result.output
    assert words in result.output and str(path) in result.output, result.output


def test_folder_of_property_files(tmp_path):
    """A dbt project's folder: every property file, the project's own files and installed packages skipped."""
    (tmp_path / "models" / "staging").mkdir(parents=True)
    (tmp_path / "dbt_packages" / "dbt_utils").mkdir(parents=True)
    (tmp_path / "dbt_project.yml").write_text("name: p\nprofile: p\n")
    (tmp_path / "dbt_packages" / "dbt_utils" / "schema.yml").write_text("models: [{name: x, tests: [bogus]}]\n")
    _property_file(tmp_path / "models", {"models": [{"name": "a", "columns": [{"name": "id", "tests": ["not_null"]}]}]})
    _property_file(tmp_path / "models" / "staging", {"sources": [{"name": "raw", "tables": [
        {"name": "b", "columns": [{"name": "id", "data_tests": ["unique"]}]}]}]}, name="_sources.yaml")
    carried = read(str(tmp_path))
    assert [(c.model, c.field, c.outcome) for c in carried] == [("a", "id", "mapped"), ("b", "id", "mapped")]
    assert carried[1].check.dataset == "source('raw', 'b')"
    empty = tmp_path / "empty"
    empty.mkdir()
    result, out, report = _import(tmp_path, f"dbt:{empty}")
    assert result.exit_code == 2 and "no dbt property file" in result.output


HOSTILE = ["order.lines", "order lines", "it's \"quoted\"", "price$usd", "ünïcødé_名前", "back`tick"]


def test_hostile_names(tmp_path):
    """Model and column names with dots, spaces, quotes, `$`, backticks and unicode: every test is carried, each
    SQL rule quotes them (the contract lints clean: every query parses and reads only the contract's models), and
    a foreign key whose model or column has a dot, which ODCS's `model.field` cannot name, is dbt's query."""
    models = []
    for name in HOSTILE:
        models.append({"name": name, "columns": [{"name": other, "tests": [
            "not_null",
            {"not_null": {"config": {"where": "1 = 1"}}},
            {"accepted_values": {"values": ["it's", "${HOME}", "{batch}"]}},
            {"relationships": {"to": f"ref('{HOSTILE[0]}')", "field": HOSTILE[1]}}]} for other in HOSTILE]})
    result, out, report = _import(tmp_path, f"dbt:{_property_file(tmp_path, {'models': models})}")
    assert report["summary"]["refused"] == 0 and report["summary"]["checks"] == 4 * len(HOSTILE) ** 2
    assert "lint: clean" in result.output, result.output[-3000:]
    contract = yaml.safe_load(out.read_text())
    assert [s["name"] for s in contract["schema"]] == HOSTILE
    first = contract["schema"][0]["properties"][0]
    assert first["name"] == HOSTILE[0]
    joins = [q["query"] for q in first["quality"] if "LEFT JOIN" in q.get("query", "")]
    assert len(joins) == 1 and "`order.lines`" in joins[0] and "`order lines`" in joins[0]
    assert result.exit_code == 0


def test_two_tests_of_one_property(tmp_path):
    """Two tests setting one field property (two ranges, a range and a regex in `logicalTypeOptions`, two foreign
    keys): one keeps the property, the others are their SQL rules, so the contract keeps every test (assembling would
    keep the first value alone, listed as a conflict); the same forms whatever the tests' order."""
    tests = [{"dbt_utils.accepted_range": {"min_value": 0, "max_value": 100}},
             {"dbt_expectations.expect_column_values_to_be_between": {"min_value": 1, "max_value": 9}},
             {"dbt_expectations.expect_column_values_to_match_regex": {"regex": "^[0-9]+$"}},
             {"relationships": {"to": "ref('a')", "field": "id"}},
             {"relationships": {"to": "ref('b')", "field": "id"}}]
    forms = []
    for order in (tests, tests[::-1]):
        document = {"models": [{"name": "a", "columns": [{"name": "id", "tests": ["unique"]}]},
                               {"name": "b", "columns": [{"name": "id", "tests": ["unique"]}]},
                               {"name": "m", "columns": [{"name": "c", "tests": order}]}]}
        result, out, report = _import(tmp_path, f"dbt:{_property_file(tmp_path, document)}")
        assert result.exit_code == 0 and "conflict" not in result.output, result.output
        column = next(s for s in yaml.safe_load(out.read_text())["schema"] if s["name"] == "m")["properties"][0]
        assert len(column["quality"]) == 3 and all(q["type"] == "sql" for q in column["quality"])
        assert len(column["logicalTypeOptions"]) == 2 and len(column["relationships"]) == 1
        forms.append(sorted(json.dumps(q, sort_keys=True) for q in column["quality"]))
    assert forms[0] == forms[1]


@pytest.mark.parametrize("node", [
    "not an object",
    {"resource_type": "test", "test_metadata": "not_null", "attached_node": "seed.p.s"},
    {"resource_type": "test", "test_metadata": {"name": "not_null", "kwargs": ["x"]}, "attached_node": "seed.p.s"},
    {"resource_type": "model", "name": "m", "config": {"contract": {"enforced": True}}, "columns": {"c": "text"}},
])
def test_manifest_nodes_of_the_wrong_shape_exit_2(tmp_path, node):
    manifest = {"metadata": {"dbt_schema_version": "https://schemas.getdbt.com/dbt/manifest/v12.json"},
                "nodes": {"seed.p.s": {"resource_type": "seed", "name": "s"}, "x.p.bad": node}}
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps(manifest))
    result, out, report = _import(tmp_path, f"dbt:{path}")
    assert result.exit_code == 2 and "nodes.x.p.bad" in result.output, result.output


@pytest.mark.parametrize("test", [{"not_null": {"config": "warn"}}, {"accepted_values": {"arguments": ["a"]}}])
def test_test_body_of_the_wrong_shape_exits_2(tmp_path, test):
    document = {"models": [{"name": "m", "columns": [{"name": "c", "tests": [test]}]}]}
    result, out, report = _import(tmp_path, f"dbt:{_property_file(tmp_path, document)}")
    assert result.exit_code == 2 and "expected a mapping" in result.output, result.output


def test_limit_that_is_no_count_is_refused(tmp_path):
    document = {"models": [{"name": "m", "columns": [{"name": "c", "tests": [{"not_null": {"config": {"limit": "ten"}}}]}]}]}
    result, out, report = _import(tmp_path, f"dbt:{_property_file(tmp_path, document)}")
    assert report["checks"][0]["outcome"] == "refused" and "no count of rows" in report["checks"][0]["reason"]
