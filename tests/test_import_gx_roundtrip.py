"""The way back: the suites `dc-bridge compile` writes for each bundled contract, imported, give back the
contract's rules. Compiled again, the imported contract's suites hold the same expectations (type and kwargs)
as the originals; an `unexpected_rows_expectation` (a query dc-bridge wrote) comes back as a SQL rule counting
its rows, compiled to a query over the original one. And MAPPINGS is the inverse of engines/gx/translate.py:
each row's form, translated, is the expectation it was read from."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from dc_bridge.cli import main

CONTRACTS = sorted(p for p in Path("contracts").glob("*.yaml") if p.name != "common-quality-rules.yaml")


def _expectations(folder: Path) -> dict[str, list[tuple[str, str]]]:
    found = {}
    for suite_file in sorted(folder.rglob("*.json")):
        suite = json.loads(suite_file.read_text())
        found[suite["meta"]["dc_bridge"]["model"]] = [(e["type"], json.dumps(e["kwargs"], sort_keys=True)) for e in suite["expectations"]]
    return found


@pytest.mark.parametrize("contract", CONTRACTS, ids=[p.stem for p in CONTRACTS])
def test_compiled_suites_import_back_to_the_contract(contract, tmp_path):
    runner = CliRunner()
    first, second = tmp_path / "first", tmp_path / "second"
    assert runner.invoke(main, ["compile", str(contract), "--out", str(first)]).exit_code == 0
    imported, report = tmp_path / "imported.yaml", tmp_path / "report.json"
    result = runner.invoke(main, ["import", f"gx:{first / 'expectation_suites'}", "--out", str(imported), "--report", str(report)])
    assert result.exit_code == 0, result.output
    rows = json.loads(report.read_text())["checks"]
    assert not [r for r in rows if r["outcome"] == "refused"]
    compiled = runner.invoke(main, ["compile", str(imported), "--out", str(second)])
    assert compiled.exit_code == 0, compiled.output
    before, after = _expectations(first / "expectation_suites"), _expectations(second / "expectation_suites")
    assert sorted(before) == sorted(after)
    for model in before:
        # a check the contract states twice (a field's `required` and a nullValues rule) compiles to one
        # expectation twice, and comes back once: compared as sets
        plain = lambda pairs: {p for p in pairs if p[0] != "unexpected_rows_expectation"}  # noqa: E731
        assert plain(after[model]) == plain(before[model]), model
        queries = {json.loads(k)["unexpected_rows_query"] for t, k in before[model] if t == "unexpected_rows_expectation"}
        again = [json.loads(k)["unexpected_rows_query"] for t, k in after[model] if t == "unexpected_rows_expectation"]
        assert len(again) == len(queries), model
    assert len(rows) == sum(len(pairs) for pairs in before.values()), "one report row per compiled expectation"


ROWS = [
    {"type": "expect_column_values_to_not_be_null", "kwargs": {"column": "a"}},
    {"type": "expect_column_values_to_not_be_null", "kwargs": {"column": "a", "mostly": 0.95}},
    {"type": "expect_column_values_to_be_unique", "kwargs": {"column": "a"}},
    {"type": "expect_compound_columns_to_be_unique", "kwargs": {"column_list": ["a", "b"], "ignore_row_if": "any_value_is_missing"}},
    {"type": "expect_column_values_to_match_regex", "kwargs": {"column": "a", "regex": "^[a-z]+$"}},
    {"type": "expect_column_values_to_be_in_set", "kwargs": {"column": "a", "value_set": ["x", "y"]}},
    {"type": "expect_column_value_lengths_to_be_between", "kwargs": {"column": "a", "min_value": 1, "max_value": 5}},
    {"type": "expect_column_values_to_be_between", "kwargs": {"column": "n", "min_value": 0, "max_value": 9, "strict_min": False, "strict_max": True}},
    {"type": "expect_table_row_count_to_be_between", "kwargs": {"min_value": 1, "max_value": 10}},
    {"type": "expect_table_row_count_to_equal", "kwargs": {"value": 3}},
    {"type": "expect_column_to_exist", "kwargs": {"column": "a"}},
    {"type": "expect_column_values_to_be_of_type", "kwargs": {"column": "n", "type_": "LongType"}},
    {"type": "expect_column_values_to_be_in_type_list", "kwargs": {"column": "m", "type_list": ["ByteType", "IntegerType", "ShortType"]}},
]


def test_mapping_is_the_inverse_of_translate(tmp_path):
    """Each row that has a form in both directions: the expectation, imported then compiled, is itself."""
    suite = tmp_path / "suite.json"
    suite.write_text(json.dumps({"name": "t", "expectations": ROWS}))
    out = tmp_path / "c.yaml"
    runner = CliRunner()
    assert runner.invoke(main, ["import", f"gx:{suite}", "--out", str(out)]).exit_code == 0
    assert runner.invoke(main, ["compile", str(out), "--out", str(tmp_path / "c")]).exit_code == 0
    got = [(e["type"], e["kwargs"]) for f in (tmp_path / "c").rglob("*.json") for e in json.loads(f.read_text())["expectations"]]
    for row in ROWS:
        assert (row["type"], row["kwargs"]) in got, row


def test_the_docs_table_has_every_expectation_type_as_the_mapping_carries_it():
    from dc_bridge.contract.lint.gx_catalog import EXPECTATION_TYPES
    from dc_bridge.importing.gx import MAPPINGS

    rows = {line.split("|")[1].strip().strip("`"): line.split("|")[2] for line in Path("docs/importing.md").read_text().splitlines()
            if line.startswith("| `")}
    assert set(rows) == set(EXPECTATION_TYPES)
    assert {t for t, becomes in rows.items() if becomes.strip().startswith("custom")} == set(EXPECTATION_TYPES) - set(MAPPINGS)
