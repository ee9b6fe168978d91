"""`dc-bridge import`: exit codes, the report's rows against the sources' checks, several sources for one table,
--merge, and the hostile table (plugin types, odd names, files that are no suite, outputs on inputs, two imports
writing one file at once). No Spark: import reads files and writes one; the contracts it writes are linted."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from dc_bridge.cli import main
from dc_bridge.contract.lint import lint_file
from dc_bridge.importing import ImportInputError, read_source
from dc_bridge.importing.assemble import assemble

ODD = ["order.id", "first name", "it's \"quoted\"", "price$", "straße_ü", "名前"]


def _suite(path: Path, expectations: list[dict], name: str = "orders", **extra) -> Path:
    path.write_text(json.dumps({"name": name, "expectations": expectations, **extra}, ensure_ascii=False), encoding="utf-8")
    return path


def invoke(*args: str):
    return CliRunner().invoke(main, ["import", *args])


def test_every_check_is_a_row_and_the_contract_lints_clean(tmp_path):
    expectations = [{"type": "expect_column_values_to_not_be_null", "kwargs": {"column": name}} for name in ODD]
    expectations += [{"type": "expect_column_values_to_be_in_set", "kwargs": {"column": name, "value_set": ["a", "$x", "ü"]},
                      "meta": {"owner": "team"}, "notes": "from the team", "severity": "warning"} for name in ODD]
    expectations += [{"type": "expect_column_pair_values_a_to_be_greater_than_b", "kwargs": {"column_A": ODD[0], "column_B": ODD[1]}}]
    suite = _suite(tmp_path / "s.json", expectations, name="orders.v1 $ü")
    out, report = tmp_path / "c.yaml", tmp_path / "r.json"
    result = invoke(f"gx:{suite}", "--out", str(out), "--report", str(report))
    assert result.exit_code == 0, result.output
    rows = json.loads(report.read_text())["checks"]
    assert len(rows) == len(expectations) and {r["outcome"] for r in rows} == {"mapped", "custom"}
    assert not [f for f in lint_file(str(out)).findings if f.level == "error"]
    document = yaml.safe_load(out.read_text())
    fields = {p["name"]: p for p in document["schema"][0]["properties"]}
    assert set(fields) == set(ODD) and all(fields[n]["required"] is True for n in ODD)
    kept = fields[ODD[0]]["quality"][0]
    assert kept["severity"] == "warning" and {"property": "gxNotes", "value": "from the team"} in kept["customProperties"]


def test_exit_codes(tmp_path):
    good = _suite(tmp_path / "good.json", [{"type": "expect_column_values_to_be_unique", "kwargs": {"column": "id"}}])
    refused = _suite(tmp_path / "bad.json", [{"type": "expect_column_values_to_be_unique", "kwargs": "id"}, "not an expectation"])
    not_json, not_suite = tmp_path / "x.json", tmp_path / "y.json"
    not_json.write_text("{ not json")
    not_suite.write_text(json.dumps({"expectation_suite": []}))
    assert invoke(f"gx:{good}", "--out", str(tmp_path / "a.yaml")).exit_code == 0
    result = invoke(f"gx:{refused}", "--out", str(tmp_path / "b.yaml"))
    assert result.exit_code == 1 and "refused" in result.output
    for source, said in ((f"gx:{not_json}", "not JSON (line 1"), (f"gx:{not_suite}", "not a GX expectation suite"),
                         (f"gx:{tmp_path / 'missing.json'}", "no such file"), (f"great:{good}", "a source is gx:PATH"),
                         (f"gx:{tmp_path / 'empty'}", "no such file")):
        result = invoke(source, "--out", str(tmp_path / "c.yaml"))
        assert result.exit_code == 2 and said in result.output, (source, result.output)
        assert not (tmp_path / "c.yaml").exists()
    assert invoke(f"gx:{good}", "--out", str(tmp_path / "a.yaml")).exit_code == 2, "--out exists without --overwrite"
    assert invoke(f"gx:{good}", "--out", str(tmp_path / "a.yaml"), "--overwrite").exit_code == 0
    result = invoke(f"gx:{good}", "--out", str(tmp_path / "v32.yaml"), "--standard", "3.2", "--id", "orders-v32", "--name", "Orders")
    assert result.exit_code == 0 and "lint: clean" in result.output
    assert yaml.safe_load((tmp_path / "v32.yaml").read_text())["apiVersion"] == "v3.2.0"


def test_out_is_never_an_input(tmp_path):
    project = tmp_path / "gx"
    (project / "expectations").mkdir(parents=True)
    suite = _suite(project / "expectations" / "orders.json", [{"type": "expect_column_to_exist", "kwargs": {"column": "id"}}])
    for out, extra in ((suite, ["--overwrite"]), (project / "expectations" / "c.yaml", []), (project / "c.yaml", [])):
        source = f"gx:{project}" if out != suite else f"gx:{suite}"
        result = invoke(source, "--out", str(out), *extra)
        assert result.exit_code == 2 and "nothing was written" in result.output, (out, result.output)
    assert json.loads(suite.read_text())["expectations"], "the input is untouched"
    result = invoke(f"gx:{suite}", "--out", str(tmp_path / "c.yaml"), "--report", str(tmp_path / "c.yaml"))
    assert result.exit_code == 2


def test_two_imports_writing_one_file_never_interleave(tmp_path):
    """Two processes import different suites into one --out at once, each with --overwrite: the file is one of
    the two contracts whole, never a mixture."""
    big = [{"type": "expect_column_values_to_not_be_null", "kwargs": {"column": f"c{i}"}} for i in range(3000)]
    first = _suite(tmp_path / "first.json", big, name="first")
    second = _suite(tmp_path / "second.json", big[:1500], name="second")
    out = tmp_path / "shared.yaml"
    command = [str(Path(sys.executable).with_name("dc-bridge")), "import"]
    processes = [subprocess.Popen(command + [f"gx:{suite}", "--out", str(out), "--overwrite"], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE) for suite in (first, second)]
    assert [p.wait(timeout=120) for p in processes] == [0, 0], [p.stderr.read() for p in processes]
    written = yaml.safe_load(out.read_text())
    assert written["id"] in ("first", "second")
    assert len(written["schema"][0]["properties"]) == (3000 if written["id"] == "first" else 1500)
    assert not list(tmp_path.glob(".shared.yaml.*")), "no temporary file left"


def test_plugin_types_and_unknown_kwargs_are_custom_with_the_reason(tmp_path):
    suite = _suite(tmp_path / "s.json", [
        {"type": "expect_column_values_to_be_valid_iban", "kwargs": {"column": "iban"}},
        {"type": "expect_column_values_to_not_be_null", "kwargs": {"column": "id", "future_kwarg": 1}},
        {"type": "expect_column_values_to_not_be_null", "kwargs": {"column": "id"}, "future_key": True},
        {"type": "expect_column_max_to_be_between", "kwargs": {"column": "ts", "min_value": {"$PARAMETER": "now"}}},
        {"type": "expect_column_values_to_be_in_set", "kwargs": {"column": "s", "value_set": ["a"], "row_condition": 'col("x")>1',
                                                                 "condition_parser": "great_expectations"}},
        # a non-critical severity on an expectation whose property is a mapping (it raised TypeError once)
        {"type": "expect_column_values_to_be_between", "kwargs": {"column": "n", "min_value": 0}, "severity": "warning"},
    ])
    rows = [(c.outcome, c.reason) for c in read_source(f"gx:{suite}")]
    assert [outcome for outcome, _ in rows] == ["custom"] * 6
    assert "checked at severity error" in rows[5][1]
    assert "not an expectation type GX ships" in rows[0][1] and "future_kwarg" in rows[1][1] and "future_key" in rows[2][1]
    assert "$PARAMETER" in rows[3][1] and "great_expectations" in rows[4][1]


def test_pre_1_0_suites_projects_and_checkpoints(tmp_path):
    project = tmp_path / "gx"
    for folder in ("expectations", "validation_definitions", "checkpoints"):
        (project / folder).mkdir(parents=True)
    (project / "expectations" / "old.json").write_text(json.dumps({
        "expectation_suite_name": "old", "expectations": [
            {"expectation_type": "expect_column_values_to_not_be_null", "kwargs": {"column": "id"}, "meta": {}}]}))
    _suite(project / "expectations" / "new.json", [{"type": "expect_column_values_to_be_unique", "kwargs": {"column": "id"}}], name="new")
    (project / "validation_definitions" / "vd.json").write_text(json.dumps({
        "name": "vd", "data": {"datasource": {"name": "spark"}, "asset": {"name": "customers"}}, "suite": {"name": "new"}}))
    (project / "checkpoints" / "cp.json").write_text(json.dumps({"name": "cp", "validation_definitions": [{"name": "vd"}]}))
    assert [(c.model, c.field, c.properties) for c in read_source(f"gx:{project}")] == [
        ("new", "id", {"unique": True}), ("old", "id", {"required": True})]
    assert [(c.model, c.properties) for c in read_source(f"gx:{project / 'checkpoints' / 'cp.json'}")] == [("customers", {"unique": True})]
    (project / "checkpoints" / "lost.json").write_text(json.dumps({"name": "lost", "validation_definitions": [{"name": "nope"}]}))
    with pytest.raises(ImportInputError, match="`nope` is not in"):
        read_source(f"gx:{project / 'checkpoints' / 'lost.json'}")


def test_two_sources_one_table_duplicates_once_conflicts_listed(tmp_path):
    a = _suite(tmp_path / "a.json", [{"type": "expect_column_values_to_be_in_set", "kwargs": {"column": "s", "value_set": ["x"]}},
                                     {"type": "expect_table_row_count_to_equal", "kwargs": {"value": 3}},
                                     {"type": "expect_column_values_to_be_of_type", "kwargs": {"column": "n", "type_": "LongType"}}])
    b = _suite(tmp_path / "b.json", [{"type": "expect_column_values_to_be_in_set", "kwargs": {"column": "s", "value_set": ["x"]},
                                      "meta": {"other": "team"}},
                                     {"type": "expect_table_row_count_to_equal", "kwargs": {"value": 4}},
                                     {"type": "expect_column_values_to_be_of_type", "kwargs": {"column": "n", "type_": "StringType"}}])
    carried = read_source(f"gx:{a}") + read_source(f"gx:{b}")
    assembled = assemble(carried, id="orders")
    model = assembled.document["schema"][0]
    assert len(assembled.duplicates) == 1 and len(model["properties"][0]["quality"]) == 1
    assert sorted((c.field or "", c.key) for c in assembled.conflicts) == [("", "rule"), ("n", "physicalType")]
    assert {p["name"]: p.get("physicalType") for p in model["properties"]}["n"] == "bigint"
    assert len(model["quality"]) == 2, "both row counts are written: each source's tool ran its own"


def test_merge_keeps_every_key_of_the_existing_contract(tmp_path):
    existing = tmp_path / "existing.yaml"
    existing.write_text(yaml.safe_dump({
        "apiVersion": "v3.1.0", "kind": "DataContract", "id": "orders-contract", "name": "Orders", "version": "2.1.0",
        "status": "active", "schema": [{"name": "orders", "description": "kept", "properties": [
            {"name": "id", "description": "the key", "required": False}]}]}))
    suite = _suite(tmp_path / "s.json", [{"type": "expect_column_values_to_not_be_null", "kwargs": {"column": "id"}},
                                         {"type": "expect_column_values_to_be_unique", "kwargs": {"column": "id"}}])
    out = tmp_path / "merged.yaml"
    assert invoke(f"gx:{suite}", "--out", str(out), "--merge", str(existing)).exit_code == 0
    merged = yaml.safe_load(out.read_text())
    assert (merged["id"], merged["version"], merged["status"]) == ("orders-contract", "2.1.0", "active")
    field = merged["schema"][0]["properties"][0]
    assert field == {"name": "id", "required": False, "unique": True, "description": "the key"}
    assert merged["schema"][0]["description"] == "kept"
