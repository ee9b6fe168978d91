"""dc-bridge inside the tools teams already run: a GX project run with plain GX in another process,
a plain Soda scan, and the HTML report in a real browser.

Each fold is compared with `dc-bridge run` on the same data, check by check (outcome and observed
number), so a GX project or a Soda setup that measured something else would fail here.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from datetime import datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

import dc_bridge
from browser import need_chromium, open_offline
from plain_engines import assert_plain_engines_fold_as_a_run, plain_gx_batch
from dc_bridge.cli import main
from dc_bridge.compiler import compile_for_run
from dc_bridge.contract.sql import view_name

NOW = datetime.now().replace(microsecond=0)

SHOP = """
apiVersion: v3.1.0
kind: DataContract
id: shop-integrations
name: Shop
version: 1.2.0
status: active
team:
  name: Checkout Team
schema:
  - name: customers
    properties:
      - name: customer_id
        logicalType: string
        required: true
        unique: true
        logicalTypeOptions: {pattern: '^C[0-9]{3}$'}
      - name: email
        logicalType: string
        quality:
          - id: email_missing
            description: At most a fifth of the customers without an email address.
            metric: missingValues
            arguments: {missingValues: ['', 'n/a']}
            mustBeLessOrEqualTo: 20
            unit: percent
      - name: tier
        logicalType: string
        quality:
          - id: tier_valid
            metric: invalidValues
            arguments: {validValues: [gold, silver]}
            mustBe: 0
      - name: age
        logicalType: integer
        logicalTypeOptions: {minimum: 18, maximum: 99}
    quality:
      - id: customers_rows
        metric: rowCount
        mustBeGreaterThan: 3
  - name: orders
    properties:
      - name: order_id
        logicalType: integer
        primaryKey: true
      - name: customer_id
        logicalType: string
        relationships:
          - to: customers.customer_id
      - name: amount
        logicalType: number
        quality:
          - id: big_amounts
            description: No order above 1000.
            type: sql
            query: SELECT COUNT(*) FROM ${table} WHERE ${column} > 1000
            mustBeLessThan: 1
          - id: amount_sum
            type: sql
            query: SELECT SUM(${column}) FROM ${table}
            mustBeGreaterThan: 0
      - name: created_at
        logicalType: timestamp
        required: true
    quality:
      - id: gx_rows
        type: custom
        engine: great-expectations
        implementation: {type: expect_table_row_count_to_be_between, kwargs: {min_value: 1, max_value: 100}}
      - id: soda_rows
        type: custom
        engine: soda
        implementation: "row_count > 2"
slaProperties:
  - property: freshness
    value: 2
    unit: d
    element: orders.created_at
"""

# a user's own code: plain GX and PySpark, no dc_bridge import (asserted at the end)
PLAIN_GX = """
import json, sys
from datetime import datetime, timedelta
import great_expectations as gx
from pyspark.sql import SparkSession

project, data, views, out = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), sys.argv[4]
spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
         .config("spark.sql.shuffle.partitions", "2").config("spark.sql.session.timeZone", "UTC").getOrCreate())
spark.sparkContext.setLogLevel("ERROR")
context = gx.get_context(mode="file", project_root_dir=project)
frames = {model: spark.read.parquet(f"{data}/{model}.parquet") for model in views}
for model, view in views.items():          # the foreign key reads the customers view
    frames[model].createOrReplaceTempView(view)
parameters = {"freshness_cutoff__orders_freshness": datetime.now() - timedelta(days=2)}
results = []
for model in views:
    checkpoint = context.checkpoints.get(f"shop-integrations.{model}")
    result = checkpoint.run(batch_parameters={"dataframe": frames[model]}, expectation_parameters=parameters)
    results += [validation.to_json_dict() for validation in result.run_results.values()]
sites = context.build_data_docs()
with open(out, "w") as handle:
    json.dump({"validations": results, "sites": sites}, handle, default=str)
assert not any(name.startswith("dc_bridge") for name in sys.modules), "the GX side must not need dc_bridge"
"""


@pytest.fixture(scope="module")
def shop(spark, tmp_path_factory):
    """The contract and its data as parquet files, with planted violations in both models."""
    folder = tmp_path_factory.mktemp("shop")
    (folder / "shop.yaml").write_text(SHOP)
    spark.createDataFrame(
        [("C001", "a@example.com", "gold", 30),
         ("C002", "", "silver", 17),            # missing email, too young
         ("C002", "n/a", "bronze", 100),        # duplicate id, missing email, bad tier, too old
         ("X9", None, "gold", 45),              # bad pattern, missing email
         (None, "e@example.com", None, 50),     # no id
         ("C006", "f@example.com", "silver", 18),
         ("C007", "g@example.com", "gold", 99)],
        "customer_id string, email string, tier string, age int").write.parquet(str(folder / "customers.parquet"))
    spark.createDataFrame(
        [(1, "C001", 10.0, NOW - timedelta(hours=1)),
         (1, "C002", 2000.0, NOW - timedelta(hours=2)),   # duplicate key, big amount
         (3, "C404", 20.0, NOW - timedelta(hours=3)),     # orphan customer
         (None, "C006", 30.0, NOW - timedelta(hours=4)),  # no key
         (5, None, 40.0, NOW - timedelta(hours=5))],
        "order_id int, customer_id string, amount double, created_at timestamp").write.parquet(str(folder / "orders.parquet"))
    return folder


def data_options(folder: Path) -> list[str]:
    return ["--data", f"customers={folder / 'customers.parquet'}", "--data", f"orders={folder / 'orders.parquet'}"]


def cli(*args) -> tuple[int, str]:
    result = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    return result.exit_code, result.output


def run_json(folder: Path, out: Path, *args) -> dict:
    code, output = cli("run", folder / "shop.yaml", *data_options(folder), "--no-samples", "--output", "json", "--output-file", out, *args)
    assert code in (1, 2), output
    return json.loads(out.read_text())


def assert_same_verdict(folded, reference: dict, observed_only_in_run: frozenset[str] = frozenset()) -> None:
    """Same checks, outcomes and numbers (freshness: the same age up to the minutes between the two runs)."""
    expected = {c["check_id"]: c for m in reference["models"] for c in m["checks"]}
    got = {c.check_id: c for c in folded.checks()}
    assert got.keys() == expected.keys()
    for check_id, want in expected.items():
        have = got[check_id]
        assert have.outcome == want["outcome"], (check_id, have.outcome, have.reason, want["outcome"], want["reason"])
        if check_id in observed_only_in_run:
            assert have.observed is None and want["observed"] is not None, (check_id, have.observed, want["observed"])
        elif have.kind == "freshness":
            assert have.observed == pytest.approx(want["observed"], abs=600), check_id
        else:
            assert have.observed == pytest.approx(want["observed"]), (check_id, have.observed, want["observed"])
    assert {m.name: m.outcome for m in folded.models} == {m["name"]: m["outcome"] for m in reference["models"]}
    assert (folded.outcome, folded.contract_id, folded.contract_version) == (reference["outcome"], reference["contract_id"],
                                                                          reference["contract_version"])


# ---------------------------------------------------------------------------------------------
# GX: `dc-bridge gx init`, then the checkpoints run by plain GX in a new process, then fold_gx


@pytest.fixture(scope="module")
def gx_checkpoint_run(shop, tmp_path_factory):
    """gx init; the user's process runs the checkpoints while this one runs `dc-bridge run --engines gx`."""
    project = tmp_path_factory.mktemp("gx_project")
    code, init_output = cli("gx", "init", shop / "shop.yaml", "--project-dir", project)
    assert code == 0, init_output
    views = {model: view_name("shop-integrations", model) for model in ("customers", "orders")}
    script, out = project / "user_checkpoint.py", project / "checkpoint_results.json"
    script.write_text(PLAIN_GX)
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable, "GX_ANALYTICS_ENABLED": "false", "SPARK_LOCAL_IP": "127.0.0.1"}
    user = subprocess.Popen([sys.executable, str(script), str(project), str(shop), json.dumps(views), str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, cwd=project)
    try:
        reference = run_json(shop, project / "verdict_gx.json", "--engines", "gx")
        output, _ = user.communicate(timeout=240)
    finally:
        user.kill()
    assert user.returncode == 0, output[-3000:]
    return project, init_output, views, json.loads(out.read_text()), reference


def test_gx_checkpoint_run_by_plain_gx_folds_into_the_run_verdict(shop, gx_checkpoint_run):
    project, init_output, views, written, reference = gx_checkpoint_run
    # what a user needs to run the checkpoints is printed by gx init
    for text in ("shop-integrations.customers", "shop-integrations.orders", "freshness_cutoff__orders_freshness", *views.values()):
        assert text in init_output, text
    folded = dc_bridge.fold_gx(written["validations"], shop / "shop.yaml")
    # GX's SUMMARY result format drops a failed scalar SQL check's value: same outcome, no number (docs/gx-project.md)
    assert_same_verdict(folded, reference, observed_only_in_run=frozenset({"big_amounts"}))
    by_id = {c.check_id: c for c in folded.checks()}
    assert by_id["soda_rows"].outcome == "skipped" and by_id["gx_rows"].outcome == "passed"
    assert by_id["email_missing"].observed == pytest.approx(300 / 7) and by_id["orders.customer_id.foreign_key"].observed == 1
    assert folded.outcome == "failed"


def test_gx_data_docs_name_the_contract_its_owner_and_each_check(gx_checkpoint_run):
    project, _, _, written, _ = gx_checkpoint_run
    site = project / "gx" / "uncommitted" / "data_docs" / "local_site"
    index = site / "index.html"
    assert index.exists() and written["sites"]
    assert "shop-integrations" in index.read_text()
    suite_page = (site / "expectations" / "shop-integrations" / "orders.html").read_text()
    # suite notes: contract id, version, owner; expectation notes: the contract check id; its description
    for text in ("shop-integrations", "version 1.2.0", "Checkout Team", "orders.customer_id.foreign_key", "No order above 1000."):
        assert text in suite_page, text


def test_gx_init_again_updates_and_keeps_what_the_user_added(shop, spark, tmp_path):
    import great_expectations as gx
    import great_expectations.expectations as gxe
    from great_expectations.checkpoint import SlackNotificationAction

    contract = tmp_path / "shop.yaml"
    contract.write_text(SHOP)
    assert cli("gx", "init", contract, "--project-dir", tmp_path)[0] == 0
    code, output = cli("gx", "init", contract, "--project-dir", tmp_path)
    changes = re.findall(r"^  (?:data source|asset|suite|validation definition|checkpoint) .*$", output, re.M)
    assert code == 0 and len(changes) == 7 and all(line.endswith("unchanged") for line in changes), output

    context = gx.get_context(mode="file", project_root_dir=str(tmp_path))
    name = "shop-integrations.orders"
    context.suites.get(name).add_expectation(gxe.ExpectColumnValuesToBeBetween(column="amount", min_value=0, notes="mine"))
    checkpoint = context.checkpoints.get(name)
    checkpoint.actions.append(SlackNotificationAction(name="slack", slack_webhook="https://hooks.example.invalid/x"))
    checkpoint.save()
    context.data_sources.get("shop-integrations").add_dataframe_asset("my_asset")
    contract.write_text(SHOP.replace("mustBeLessThan: 1", "mustBeLessThan: 2"))     # the contract changes

    code, output = cli("gx", "init", contract, "--project-dir", tmp_path)
    compiled = len(compile_for_run(contract).artifacts["gx"]["orders"]["expectations"])
    assert code == 0 and f"{name}  updated ({compiled} expectations, kept 1 added by hand)" in output, output
    context = gx.get_context(mode="file", project_root_dir=str(tmp_path))
    suite = context.suites.get(name)
    assert [e.notes for e in suite.expectations].count("mine") == 1 and len(suite.expectations) == compiled + 1
    assert any("SELECT COUNT(*)" in str(e.configuration.kwargs) and "< 2" in str(e.configuration.kwargs) for e in suite.expectations)
    assert [a.name for a in context.checkpoints.get(name).actions] == ["update_data_docs", "slack"]
    assert {a.name for a in context.data_sources.get("shop-integrations").assets} == {"customers", "orders", "my_asset"}
    assert len(list((tmp_path / "gx" / "checkpoints").iterdir())) == 2

    # a suite of the same name that dc-bridge did not compile is left alone, and nothing is written
    context.suites.delete(name)
    context.suites.add(gx.ExpectationSuite(name=name))
    code, output = cli("gx", "init", contract, "--project-dir", tmp_path)
    assert code == 2 and "nothing written" in output and "was not compiled by dc-bridge" in output


# ---------------------------------------------------------------------------------------------
# GX: a field whose name has a dot, in the compiled suite and in a run

def people_contract(contract_id: str, prop: str) -> str:
    """An ODCS contract of one model `people` with the one property `prop` (YAML flow mapping)."""
    return (f"apiVersion: v3.1.0\nkind: DataContract\nid: {contract_id}\nversion: 1.0.0\nstatus: active\n"
            f"schema:\n  - name: people\n    properties:\n      - {prop}\n")


def test_compiled_suite_finds_a_top_level_column_whose_name_has_a_dot(spark, tmp_path):
    """A contract's field `e.mail` is a top-level column of that name. GX lists such a column as
    `` `e.mail` `` (a bare `e.mail` is field `mail` of struct `e`), so the compiled suite's column-exists
    and column-type expectations name it so, and pass in a plain GX validation of the user's own;
    a run passes them on either shape of the data (a dotted name read as a struct path where the
    data has no such column, as dc-bridge reads it)."""
    from great_expectations.core import ExpectationSuite

    contract = tmp_path / "dotted.yaml"
    contract.write_text(people_contract("dotted", "{name: e.mail, logicalType: string, physicalType: string, required: true}"))
    assert cli("compile", contract, "--out", tmp_path)[0] == 0
    suite = json.loads((tmp_path / "expectation_suites" / "dotted" / "people.json").read_text())
    top = spark.createDataFrame([("a@example.com",), (None,)], "`e.mail` string")
    nested = spark.createDataFrame([(("a@example.com",),), ((None,),)], "e struct<mail: string>")

    results = plain_gx_batch(top).validate(ExpectationSuite(**suite)).results
    by_check = {r.expectation_config.meta["dc_bridge"]["check_id"]: r for r in results}
    assert {check: (r.success, r.exception_info.get("raised_exception")) for check, r in by_check.items()} == {
        "people.e.mail.exists": (True, False), "people.e.mail.type": (True, False), "people.e.mail.required": (False, False)}

    for frame in (top, nested):
        verdict = dc_bridge.run(contract, dataframes={"people": frame}, spark=spark, engines=["gx"], samples=False)
        outcomes = {c.check_id: (c.outcome, c.observed) for c in verdict.checks()}
        assert outcomes == {"people.e.mail.exists": ("passed", None), "people.e.mail.type": ("passed", None),
                            "people.e.mail.required": ("failed", 1)}, frame.schema.simpleString()


def test_a_type_checked_by_two_expectations_folds_alike_in_any_order(spark, tmp_path):
    """An exact decimal type is two expectations in the suite (GX's type class, and the query of its
    precision and scale). A run validates them in two parts, a user's checkpoint in one, and GX may
    return them in any order: the check's result is the same either way (before, a plain validation
    folded `observed` 0.0 where the run said None, found on the bundled retail_pos suite)."""
    from great_expectations.core import ExpectationSuite

    contract = tmp_path / "priced.yaml"
    contract.write_text(people_contract("priced", "{name: price, logicalType: number, physicalType: 'decimal(10,2)'}"))
    assert cli("compile", contract, "--out", tmp_path)[0] == 0
    suite = json.loads((tmp_path / "expectation_suites" / "priced" / "people.json").read_text())
    assert [e["type"] for e in suite["expectations"] if e["meta"]["dc_bridge"]["check_id"] == "people.price.type"] == [
        "expect_column_values_to_be_of_type", "unexpected_rows_expectation"]
    frame = spark.createDataFrame([(Decimal("1.50"),), (None,)], "price decimal(10,2)")
    validated = plain_gx_batch(frame).validate(ExpectationSuite(**suite)).to_json_dict()
    run = dc_bridge.run(contract, dataframes={"people": frame}, spark=spark, engines=["gx"], samples=False)
    expected = {c.check_id: (c.outcome, c.observed) for c in run.checks()}
    assert expected["people.price.type"] == ("passed", None)
    for order in (validated["results"], validated["results"][::-1]):
        folded = dc_bridge.fold_gx({**validated, "results": order}, contract)
        assert {c.check_id: (c.outcome, c.observed) for c in folded.checks()} == expected


BUNDLED = sorted(p for p in (Path(__file__).resolve().parents[1] / "contracts").glob("*.yaml")
                 if p.name != "common-quality-rules.yaml")  # a rule library, no models


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.stem)
def test_bundled_contracts_compiled_artifacts_in_plain_engines_fold_as_a_run(spark, tmp_path, path):
    """What `dc-bridge compile` writes for each bundled contract, run as a user runs it, folds as a run
    with that engine alone on the data shipped beside it (tests/plain_engines.py)."""
    from dc_bridge.contract.reading.load import load_contract
    from dc_bridge.runner.data import model_sources, source_dataframe

    contract = load_contract(path).contract
    server, sources = model_sources(contract, {}, set(), None)
    frames = {m.name: source_dataframe(spark, m, sources[m.name], server) for m in contract.models}
    assert_plain_engines_fold_as_a_run(spark, path, frames, tmp_path)


# ---------------------------------------------------------------------------------------------
# Soda: the compiled SodaCL in a plain Soda Core v3 scan, names from `dc-bridge soda config`


def test_plain_soda_scan_folds_into_the_run_verdict(shop, spark, tmp_path):
    import dc_bridge.engines.soda.run  # noqa: F401  (Soda telemetry off in this test process, as in every dc-bridge run)
    from soda.scan import Scan

    contract = shop / "shop.yaml"
    assert cli("compile", contract, "--out", tmp_path)[0] == 0
    code, _ = cli("soda", "config", contract, "--out", tmp_path, "--output-file", tmp_path / "soda.yml")
    assert code == 0
    config = yaml.safe_load((tmp_path / "soda.yml").read_text())

    scan = Scan()
    scan.set_data_source_name(config["data_source"])
    scan.add_spark_session(spark, data_source_name=config["data_source"])
    for model, entry in config["models"].items():
        spark.read.parquet(str(shop / f"{model}.parquet")).createOrReplaceTempView(entry["view"])
        scan.add_sodacl_yaml_file(entry["sodacl"])
    try:
        scan.execute()
    finally:
        for entry in config["models"].values():
            spark.catalog.dropTempView(entry["view"])

    folded = dc_bridge.fold_soda(scan, contract)
    reference = run_json(shop, tmp_path / "verdict_soda.json", "--engines", "soda")
    assert_same_verdict(folded, reference)
    by_id = {c.check_id: c for c in folded.checks()}
    assert by_id["big_amounts"].observed == 1 and by_id["soda_rows"].outcome == "passed"
    assert by_id["orders.order_id.type"].outcome == "skipped"       # a type check runs in GX only
    with pytest.raises(TypeError, match="executed soda.scan.Scan"):
        dc_bridge.fold_soda(scan.get_scan_results(), contract)


# ---------------------------------------------------------------------------------------------
# the HTML report, in headless Chromium


def test_html_report_in_headless_chromium(shop, tmp_path):
    need_chromium()
    report, docs, shot = tmp_path / "report.html", tmp_path / "docs", tmp_path / "report.png"
    code, output = cli("run", shop / "shop.yaml", *data_options(shop), "--output", "html", "--output-file", report,
                       "--data-docs", docs)
    assert code == 1, output
    html = report.read_text()

    browser = open_offline(report, shot, tmp_path / "chromium")
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", browser.stdout))
    compiled = compile_for_run(shop / "shop.yaml")
    missing = sorted(check.id for check in compiled.plan.checks if check.id not in text)
    assert not missing, (missing, browser.stderr[-2000:])
    assert shot.exists() and shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    # nothing fetched: no URL with a scheme in src/href but links to Data Docs files, no CSS imports,
    # and a policy that would block any request
    links = re.findall(r'\b(?:src|href)\s*=\s*"([^"]*)"', html)
    assert not [link for link in links if re.match(r"[a-z][a-z0-9+.-]*:", link, re.I) and not link.startswith("file:")]
    assert not re.search(r"https?://", html) and "@import" not in html and "url(" not in html
    assert "default-src 'none'" in html
    # the Data Docs pages the run built are linked, relative to the report, and exist
    docs_links = {link for link in links if link.startswith("docs/")}
    assert "docs/index.html" in docs_links and len(docs_links) == 3       # the site and one page per model
    assert all((tmp_path / re.sub(r"%3A", ":", link)).exists() for link in docs_links)


def test_html_marks_engines_that_disagree():
    from dc_bridge.engines.results import CheckResult
    from dc_bridge.report.html import as_html
    from dc_bridge.verdict import CheckVerdict, ModelVerdict, Verdict

    check = CheckVerdict(check_id="orders.id.unique", model="orders", kind="unique", columns=["id"], outcome="error",
                         severity="error", expected="= 0", observed=2, source={"file": "c.yaml", "line": 3},
                         reason="engines disagree: gx=2, soda=1",
                         engines={"gx": CheckResult("orders.id.unique", "gx", "failed", observed=2),
                                  "soda": CheckResult("orders.id.unique", "soda", "failed", observed=1)})
    counts = {o: 0 for o in ("passed", "warning", "failed", "not_executable", "skipped")} | {"error": 1}
    verdict = Verdict(contract_id="c", contract_version="1", contract_file="c.yaml", outcome="error", counts=counts,
                      models=[ModelVerdict(name="orders", outcome="error", counts=counts, checks=[check])], engines=["gx", "soda"])
    page = as_html(verdict)
    row = re.search(r'<tr class="([^"]*)">(?:(?!</tr>).)*orders\.id\.unique', page, re.S)
    assert row and "disagree" in row.group(1).split()
    assert "disagreement: the engines measured different numbers" in page


def test_soda_config_compares_with_what_compile_writes_when_a_check_is_left_out(tmp_path):
    """A check-local lint error (an invalid regex) leaves the check out of what `compile` writes; `soda config`
    compares the files on disk with that same compile, so freshly compiled files are not reported stale."""
    contract = Path(__file__).parent / "broken" / "odcs_regex_invalid.yaml"
    assert cli("compile", contract, "--out", tmp_path)[0] == 0
    code, output = cli("soda", "config", contract, "--out", tmp_path, "--output-file", tmp_path / "soda.yml")
    assert code == 0 and "stale" not in output.lower() and "missing" not in output.lower(), output
