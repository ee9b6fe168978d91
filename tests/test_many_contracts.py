"""`dc-bridge run` with several contracts: one process and one Spark session, one verdict per
contract in every output format, and the highest exit code of them.

One CLI run of four contracts (two bundled ones that pass, one whose data fails, one that cannot be
read) gives the JSON list; the other formats are rendered from those same verdicts.
"""

from __future__ import annotations

import json
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from rich.console import Console

from dc_bridge.cli import contract_files, main
from dc_bridge.report import html, verdict_formats
from dc_bridge.verdict import Verdict

ROOT = Path(__file__).resolve().parent.parent
ORDERS = str(ROOT / "contracts" / "orders.yaml")
SANTA = str(ROOT / "contracts" / "letters_to_santa.yaml")

FAILING = textwrap.dedent("""
    dataContractSpecification: 1.1.0
    id: failing
    info: {title: Failing, version: 2.0.0}
    servers:
      local: {type: local, format: csv, path: ./things.csv}
    models:
      things:
        fields:
          id: {type: integer, required: true, unique: true}
""")

UNREADABLE = textwrap.dedent("""
    dataContractSpecification: 1.1.0
    id: unreadable
    info: {title: Unreadable, version: 1.0.0}
    models:
      things:
        fields:
          id: {type: integer, minimum: 5, maximum: 1}
""")


@pytest.fixture(scope="module")
def many(spark, tmp_path_factory):
    """(CLI result, parsed JSON, verdicts, file paths) of one run of four contracts."""
    folder = tmp_path_factory.mktemp("many")
    (folder / "things.csv").write_text("id\n1\n1\n")
    (folder / "failing.yaml").write_text(FAILING)
    (folder / "unreadable.yaml").write_text(UNREADABLE)
    out = folder / "verdicts.json"
    files = [ORDERS, SANTA, str(folder / "failing.yaml"), str(folder / "unreadable.yaml")]
    result = CliRunner().invoke(main, ["run", *files, "--engines", "spark", "--no-samples", "--output", "json",
                                       "--output-file", str(out)], catch_exceptions=False)
    data = json.loads(out.read_text())
    return result, data, [Verdict.model_validate(item) for item in data], files


def test_one_verdict_per_contract_in_order_and_the_worst_exit_code(many):
    result, data, verdicts, files = many
    assert isinstance(data, list) and [v["contract_file"] for v in data] == files
    assert [v.outcome for v in verdicts] == ["passed", "passed", "failed", "error"]
    assert result.exit_code == 2, result.output
    failing = {c.check_id: c for c in verdicts[2].checks()}
    assert failing["things.id.unique"].outcome == "failed" and failing["things.id.unique"].observed == 2
    # the contract that could not be read is a verdict of its own, saying why; the others ran
    assert verdicts[3].models == [] and "the contract has errors" in verdicts[3].error
    assert "DCB164" in result.output
    assert all(v.error is None for v in verdicts[:3])


def test_exit_code_is_the_highest_of_the_contracts(spark, tmp_path):
    (tmp_path / "things.csv").write_text("id\n1\n1\n")
    (tmp_path / "failing.yaml").write_text(FAILING)
    result = CliRunner().invoke(main, ["run", SANTA, str(tmp_path / "failing.yaml"), "--engines", "spark", "--no-samples"])
    assert result.exit_code == 1, result.output
    assert "2 contracts, checks: " in result.output and "exit code 1" in result.output


def test_junit_has_a_test_suite_per_contract(many):
    _, _, verdicts, files = many
    root = ET.fromstring(verdict_formats.as_junit(verdicts))
    suites = root.findall("testsuite")
    assert [s.get("file") for s in suites] == files
    assert int(root.get("tests")) == sum(sum(v.counts.values()) for v in verdicts)
    assert int(root.get("failures")) == sum(v.counts["failed"] for v in verdicts) >= 1
    orders = suites[0].findall("testcase")
    assert orders and all(case.get("classname").startswith("urn:datacontract:checkout:orders-latest.") for case in orders)
    unread = suites[3].findall("testcase")
    assert len(unread) == 1 and unread[0].find("error").get("message") == verdicts[3].error


def test_console_has_a_report_per_contract_and_a_total(many):
    _, _, verdicts, files = many
    console = Console(record=True, width=240)
    verdict_formats.print_console_many(verdicts, console)
    text = console.export_text()
    for file in files:
        assert file in text
    assert "not checked: the contract has errors" in text
    assert text.rstrip().endswith("exit code 2")
    assert text.count("contract verdict: ") == 4


def test_html_has_a_section_per_contract_with_anchors_of_its_own(many):
    _, _, verdicts, files = many
    page = html.as_html_many(verdicts)
    for index, file in enumerate(files):
        assert f'id="contract-{index}"' in page and html.escape(file) in page
    ids = [part.split('"')[0] for part in page.split(' id="')[1:]]
    assert len(ids) == len(set(ids)), "two sections share an anchor"
    assert html.escape(verdicts[3].error) in page


def test_globs_expand_to_each_file_once(tmp_path):
    for name in ("b.yaml", "a.yaml", "notes.txt"):
        (tmp_path / name).write_text("x")
    glob = str(tmp_path / "*.yaml")
    assert contract_files((glob, str(tmp_path / "a.yaml"))) == [str(tmp_path / "a.yaml"), str(tmp_path / "b.yaml")]
    with pytest.raises(click.UsageError, match="matches no contract file"):
        contract_files((str(tmp_path / "*.json"),))
    # a name that is not a glob is the run's to report (it names the file that is missing)
    assert contract_files(("missing.yaml",)) == ["missing.yaml"]


@pytest.mark.parametrize("option", [["--data", "orders=x.csv"], ["--data-docs", "site"]])
def test_options_of_one_contract_are_refused_with_several(option, tmp_path):
    result = CliRunner().invoke(main, ["run", ORDERS, SANTA, *option])
    assert result.exit_code == 2
    assert f"{option[0]} belongs to one contract, and 2 were given" in result.output


def test_a_report_over_any_of_the_contracts_is_refused(tmp_path):
    second = tmp_path / "second.yaml"
    second.write_text(FAILING)
    before = second.read_bytes()
    result = CliRunner().invoke(main, ["run", ORDERS, str(second), "--output", "json", "--output-file", str(second)])
    assert result.exit_code == 2, result.output
    assert second.read_bytes() == before


def test_contracts_of_small_local_files_share_a_session_that_compiles_with_c1_alone(tmp_path):
    """`small_contracts` (runner/pipeline.py): the session of several contracts compiles with C1 only when every one
    of them reads local files of at most SMALL_DATA_BYTES, as one contract's run does; one larger file, a table, or
    data not there keeps Spark's JIT for all of them. No Spark: decided before it starts."""
    from dc_bridge.runner.data import SMALL_DATA_BYTES
    from dc_bridge.runner.pipeline import read_contract, small_contracts

    bundled = [read_contract(path) for path in sorted((ROOT / "contracts").glob("*.yaml"))]
    assert small_contracts(bundled, None, True)
    (tmp_path / "things.csv").write_text("id\n1\n")
    small = tmp_path / "failing.yaml"
    small.write_text(FAILING)
    assert small_contracts([*bundled, read_contract(small)], None, True)
    with (tmp_path / "things.csv").open("r+b") as handle:  # sparse: the size is what counts
        handle.truncate(SMALL_DATA_BYTES + 1)
    assert not small_contracts([*bundled, read_contract(small)], None, True)
    (tmp_path / "things.csv").unlink()
    assert not small_contracts([read_contract(small), *bundled], None, True)  # data not there: decided by its run
    table = tmp_path / "table.yaml"
    table.write_text(FAILING.replace("{type: local, format: csv, path: ./things.csv}", "{type: databricks, catalog: c, schema: s}"))
    assert not small_contracts([*bundled, read_contract(table)], None, True)
