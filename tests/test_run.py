"""`dc-bridge run` and `dc_bridge.run` end to end: real Spark, GX and Soda, data with planted violations.

Each test runs both engines once on one contract and compares every check's outcome and count with
a plain PySpark reference computed here, so a wrong translation, a wrong fold or a wrong report
fails a test.
"""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from datetime import datetime, timedelta, timezone
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner
from pyspark.sql import functions as F

import dc_bridge
from dc_bridge.cli import main

ROOT = Path(__file__).resolve().parent.parent
NOW = datetime.now(timezone.utc).replace(microsecond=0, tzinfo=None)

# ---------------------------------------------------------------------------------------------
# ODCS contract through the Python API: every check kind, planted violations, DataFrames passed in

SHOP = """
apiVersion: v3.1.0
kind: DataContract
id: shop
version: 2.0.0
status: active
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
        logicalTypeOptions: {format: email}
        quality:
          - id: email_missing
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
      - name: nick
        logicalType: string
        classification: restricted
        logicalTypeOptions: {minLength: 2, maxLength: 5}
      - name: age
        logicalType: integer
        physicalType: int
        logicalTypeOptions: {minimum: 18, exclusiveMaximum: 100}
      - name: signup
        logicalType: timestamp
    quality:
      - id: customers_rows
        metric: rowCount
        mustBeGreaterThan: 5
      - id: customers_about
        type: text
        description: Customers are people.
  - name: orders
    properties:
      - name: region
        logicalType: string
        primaryKey: true
        primaryKeyPosition: 1
      - name: order_no
        logicalType: integer
        primaryKey: true
        primaryKeyPosition: 2
      - name: customer_id
        logicalType: string
        relationships:
          - to: schema.customers.properties.customer_id
      - name: amount
        logicalType: number
        quality:
          - id: big_amounts
            type: sql
            query: SELECT COUNT(*) FROM ${table} WHERE ${column} > 1000
            mustBeLessThan: 1
            severity: warning
      - name: created_at
        logicalType: timestamp
    quality:
      - id: order_dupes
        metric: duplicateValues
        arguments: {properties: [customer_id, amount]}
        mustBe: 0
      - id: gx_row_count
        type: custom
        engine: great-expectations
        implementation: {type: expect_table_row_count_to_be_between, kwargs: {min_value: 1, max_value: 100}}
      - id: soda_row_count
        type: custom
        engine: soda
        implementation: "row_count > 2"
slaProperties:
  - property: freshness
    value: 2
    unit: d
    element: orders.created_at
  - property: retention
    value: 30
    unit: d
    element: orders.created_at
"""


@pytest.fixture(scope="module")
def shop(spark, tmp_path_factory):
    path = tmp_path_factory.mktemp("shop") / "shop.yaml"
    path.write_text(SHOP)
    customers = spark.createDataFrame(
        [("C001", "a@example.com", "gold", "ann", 30, NOW),
         ("C002", "not-an-email", "silver", "b", 17, NOW),            # bad email, nick too short, too young
         ("C002", "", "bronze", "bobby-long", 100, NOW),              # duplicate id, missing email, bad tier, long nick, age at exclusive max
         ("X9", "n/a", None, None, None, None),                       # bad pattern, missing email
         (None, None, "gold", "dee", 99, NOW),                        # null id
         ("C005", "e@example.org", "silver", "eve", 18, NOW),
         ("C006", "f@example.org", "gold", "fay", 45, NOW)],
        "customer_id string, email string, tier string, nick string, age int, signup timestamp").localCheckpoint()
    orders = spark.createDataFrame(
        [("eu", 1, "C001", 10.0, NOW - timedelta(hours=1)),
         ("eu", 1, "C002", 20.0, NOW - timedelta(hours=2)),          # duplicate composite key
         ("us", 2, "C404", 2000.0, NOW - timedelta(days=40)),        # orphan customer, big amount, past retention
         ("us", 3, "C001", 10.0, NOW - timedelta(hours=3)),          # duplicates (customer_id, amount) with row 1
         ("us", None, None, 5.0, NOW - timedelta(hours=4))],
        "region string, order_no int, customer_id string, amount double, created_at timestamp").localCheckpoint()
    # all three engines: the native one must agree with GX and Soda on every number (else `error`)
    verdict = dc_bridge.run(str(path), dataframes={"customers": customers, "orders": orders}, spark=spark,
                            engines=("gx", "soda", "spark"))
    return verdict, customers, orders


def reference_counts(customers, orders) -> dict[str, float]:
    """What each check must observe, computed with plain DataFrame operations."""
    def count(df, condition):
        return df.where(condition).count()

    def duplicate_rows(df, columns):
        present = df.dropna(subset=columns)
        dupes = present.groupBy(*columns).count().where("count > 1")
        return dupes.agg(F.coalesce(F.sum("count"), F.lit(0))).first()[0]

    rows = customers.count()
    email_missing = count(customers, F.col("email").isNull() | F.col("email").isin("", "n/a"))
    return {
        "customers.customer_id.required": count(customers, F.col("customer_id").isNull()),
        "customers.customer_id.unique": duplicate_rows(customers, ["customer_id"]),
        "customers.customer_id.pattern": count(customers, F.col("customer_id").isNotNull() & ~F.col("customer_id").rlike("^C[0-9]{3}$")),
        "customers.email.format": count(customers, F.col("email").isNotNull() & ~F.col("email").rlike(r"^[^@\s]+@[^@\s]+\.[a-z]+$")),
        "email_missing": 100.0 * email_missing / rows,
        "tier_valid": count(customers, F.col("tier").isNotNull() & ~F.col("tier").isin("gold", "silver")),
        "customers.nick.length": count(customers, F.length("nick").isNotNull() & ((F.length("nick") < 2) | (F.length("nick") > 5))),
        "customers.age.range": count(customers, F.col("age").isNotNull() & ((F.col("age") < 18) | (F.col("age") >= 100))),
        "customers_rows": rows,
        "orders.primary_key": duplicate_rows(orders, ["region", "order_no"]),
        "orders.region.required": count(orders, F.col("region").isNull()),
        "orders.order_no.required": count(orders, F.col("order_no").isNull()),
        "orders.customer_id.foreign_key": orders.where(F.col("customer_id").isNotNull())
        .join(customers.select("customer_id").dropna(), "customer_id", "left_anti").count(),
        "big_amounts": count(orders, F.col("amount") > 1000),
        "order_dupes": duplicate_rows(orders, ["customer_id", "amount"]),
        "orders.retention": count(orders, F.col("created_at") < F.lit(NOW - timedelta(days=30))),
    }


def test_api_every_check_matches_the_reference(shop):
    verdict, customers, orders = shop
    by_id = {check.check_id: check for check in verdict.checks()}
    expected = reference_counts(customers, orders)
    for check_id, count in expected.items():
        check = by_id[check_id]
        assert check.observed == pytest.approx(count), (check_id, check.observed, count, check.reason)
        for engine, result in check.engines.items():
            assert result.observed == pytest.approx(count), (check_id, engine, result)
    # the planted counts themselves, so a wrong reference cannot hide a wrong engine
    assert [expected[k] for k in ("customers.customer_id.unique", "customers.customer_id.pattern", "tier_valid",
                                  "customers.nick.length", "customers.age.range", "orders.primary_key",
                                  "orders.customer_id.foreign_key", "order_dupes", "orders.retention")] == [2, 1, 1, 2, 2, 2, 1, 2, 1]


def test_engines_side_by_side_agree_with_one_by_one_and_the_cache_is_released(shop, spark, tmp_path):
    from pyspark import StorageLevel

    verdict, customers, orders = shop  # the default run: engines side by side, no cache
    path = tmp_path / "shop.yaml"
    path.write_text(SHOP)
    orders.persist()  # the caller's own cache stays, though the run drops views over it
    one_by_one = dc_bridge.run(str(path), dataframes={"customers": customers, "orders": orders}, spark=spark,
                               engines=("gx", "soda", "spark"), side_by_side=False)
    cached = dc_bridge.run(str(path), dataframes={"customers": customers, "orders": orders}, spark=spark,
                           engines=("gx", "soda", "spark"), cache=True)
    assert orders.storageLevel.useMemory
    orders.unpersist()
    # the run persisted its own plans of the frames (Spark finds a cached plan by its shape), and released them
    assert customers.select("*").storageLevel == StorageLevel.NONE

    def results(v):  # a freshness age depends on the run's start time: its outcome is compared
        return {c.check_id: (c.outcome, c.observed, {e: (r.outcome, r.observed) for e, r in c.engines.items()})
                if c.kind != "freshness" else c.outcome for c in v.checks()}

    assert results(one_by_one) == results(cached) == results(verdict)


def test_api_outcomes_and_verdict(shop):
    verdict, _, _ = shop
    outcome = {check.check_id: check.outcome for check in verdict.checks()}
    assert outcome["customers.customer_id.unique"] == "failed"
    assert outcome["email_missing"] == "failed"           # 3 of 7 rows = 42.9 % > 20 %
    assert outcome["customers_rows"] == "passed"
    assert outcome["big_amounts"] == "warning"             # failed, but severity warning
    assert outcome["customers_about"] == "not_executable"
    assert outcome["gx_row_count"] == "passed" and outcome["soda_row_count"] == "passed"
    assert set(verdict.checks()[0].engines) <= {"gx", "soda", "spark"}
    custom = {c.check_id: set(c.engines) for c in verdict.checks() if c.kind.startswith("custom")}
    assert custom == {"gx_row_count": {"gx"}, "soda_row_count": {"soda"}}
    freshness = next(c for c in verdict.checks() if c.kind == "freshness")
    # the newest order is an hour older than NOW; the run measures its age at its own start
    run_start = datetime.fromisoformat(verdict.started_at).replace(tzinfo=None)
    expected_age = (run_start - (NOW - timedelta(hours=1))).total_seconds()
    assert freshness.outcome == "passed" and freshness.observed == pytest.approx(expected_age, abs=2)
    assert {m.name: m.outcome for m in verdict.models} == {"customers": "failed", "orders": "failed"}
    assert verdict.outcome == "failed" and verdict.exit_code() == 1
    assert (verdict.contract_id, verdict.contract_version) == ("shop", "2.0.0")
    assert {"spark", "great-expectations", "soda-core", "pyspark"} <= set(verdict.versions)
    assert set(verdict.engine_seconds) == {"gx", "soda", "spark"}
    assert not [c.reason for c in verdict.checks() if c.reason and "disagree" in c.reason]
    assert {engine for c in verdict.checks() for engine in c.engines} == {"gx", "soda", "spark"}


def test_api_samples_are_bounded_and_withheld_for_sensitive_fields(shop):
    verdict, _, _ = shop
    by_id = {check.check_id: check for check in verdict.checks()}
    assert by_id["tier_valid"].samples == ["bronze"]
    assert by_id["customers.customer_id.pattern"].samples == ["X9"]
    assert (by_id["customers.customer_id.unique"].samples, by_id["customers.customer_id.unique"].duplicated_values) == (["C002"], 1)
    assert by_id["orders.customer_id.foreign_key"].samples == ["C404"]
    nick = by_id["customers.nick.length"]   # `nick` is classified restricted
    assert nick.outcome == "failed" and nick.samples == [] and "withheld" in nick.samples_note
    assert by_id["customers_rows"].samples == []


def test_api_json_matches_the_committed_schema(shop):
    verdict, _, _ = shop
    schema = json.loads((ROOT / "docs" / "verdict.schema.json").read_text())
    jsonschema.validate(json.loads(verdict.model_dump_json()), schema)


# ---------------------------------------------------------------------------------------------
# the bundled DCS orders contract through the CLI, with planted violations in its CSV files

ORDER = "6513270e-269e-4d37-b2a7-4de452e6b438"


@pytest.fixture(scope="module")
def broken_orders(tmp_path_factory):
    folder = tmp_path_factory.mktemp("orders")
    (folder / "orders.csv").write_text(
        "order_id,order_timestamp,order_total,customer_id,customer_email_address,processed_timestamp\n"
        f"{ORDER},2030-09-09T08:00:00Z,1500,1000000001,mary@example.com,2030-09-09T08:45:00Z\n"
        f"{ORDER},2030-09-09T08:30:00Z,3200,1000000002,not-an-email,2030-09-10T12:00:00Z\n"   # duplicate id, bad email, late
        "not-a-uuid,2030-09-09T09:00:00Z,2500,123,,2030-09-09T09:10:00Z\n"                    # bad uuid, short id, no email
        "5e0b5b4e-4a5f-4a4e-8f7e-1f0e8c3b9a01,2030-09-09T09:30:00Z,1800,1000000004,x@example.com,2030-09-09T09:40:00Z\n"
        "7c9e6679-7425-40de-944b-e07fc1f90ae7,2030-09-09T10:00:00Z,2700,1000000005,y@example.com,2030-09-09T10:10:00Z\n"
        "16fd2706-8baf-433b-82eb-8c7fada847da,2030-09-09T10:30:00Z,3100,1000000006,z@example.com,2030-09-09T10:40:00Z\n")
    (folder / "line_items.csv").write_text(
        "line_item_id,order_id,sku\n"
        f"LI-1,{ORDER},5901234123457\n"
        "LI-2,00000000-0000-4000-8000-000000000000,4001234567890\n"      # orphan order
        f"LI-3,{ORDER},12-34\n")                                          # bad sku
    return folder


def run_cli(*args):
    result = CliRunner().invoke(main, ["run", *args], catch_exceptions=False)
    return result


def test_cli_orders_json_and_foreign_key_orphans(broken_orders, tmp_path, spark):
    out = tmp_path / "verdict.json"
    result = run_cli(str(ROOT / "contracts" / "orders.yaml"), "--data", f"orders={broken_orders / 'orders.csv'}",
                     "--data", f"line_items={broken_orders / 'line_items.csv'}", "--output", "json", "--output-file", str(out))
    assert result.exit_code == 1, result.output
    verdict = json.loads(out.read_text())
    jsonschema.validate(verdict, json.loads((ROOT / "docs" / "verdict.schema.json").read_text()))
    checks = {c["check_id"]: c for m in verdict["models"] for c in m["checks"]}
    observed = {k: checks[k]["observed"] for k in (
        "orders.order_id.unique", "orders.order_id.format", "orders.customer_email_address.format",
        "orders.customer_email_address.required", "orders.customer_id.length", "orders.latency",
        "line_items.order_id.foreign_key", "line_items.sku.pattern")}
    assert observed == {"orders.order_id.unique": 2, "orders.order_id.format": 1, "orders.customer_email_address.format": 1,
                        "orders.customer_email_address.required": 1, "orders.customer_id.length": 1, "orders.latency": 1,
                        "line_items.order_id.foreign_key": 1, "line_items.sku.pattern": 1}
    assert all(checks[k]["outcome"] == "failed" for k in observed)
    assert checks["orders.quality[1]"]["outcome"] == "passed"        # 6 rows > 5
    assert checks["orders.customer_email_address.quality[0]"]["outcome"] == "not_executable"
    assert verdict["outcome"] == "failed"


def test_cli_junit_has_one_case_per_check(broken_orders, tmp_path, spark):
    out = tmp_path / "verdict.xml"
    result = run_cli(str(ROOT / "contracts" / "orders.yaml"), "--data", f"orders={broken_orders / 'orders.csv'}",
                     "--data", f"line_items={broken_orders / 'line_items.csv'}", "--engines", "soda",
                     "--output", "junit", "--output-file", str(out))
    assert result.exit_code == 1
    root = ET.parse(out).getroot()
    cases = root.findall("./testsuite/testcase")
    # 38 checks that run, the retention and frequency service levels that name no column or duration,
    # the availability service level (judged over a run history, none kept here), the support and
    # backup service levels no data can show, and a text rule: every check of the plan is a case
    assert len(cases) == int(root.get("tests")) == 44
    failures = {c.get("name") for c in cases if c.find("failure") is not None}
    assert "line_items.order_id.foreign_key" in failures
    # with Soda only, checks only GX can run are skipped, not passed
    skipped = {c.get("name") for c in cases if c.find("skipped") is not None}
    assert "orders.order_id.type" in skipped


def test_cli_where_filters_every_model_and_is_recorded(broken_orders, tmp_path, spark):
    out = tmp_path / "verdict.json"
    run_cli(str(ROOT / "contracts" / "orders.yaml"), "--data", f"orders={broken_orders / 'orders.csv'}",
            "--data", f"line_items={broken_orders / 'line_items.csv'}", "--where", "order_id IS NOT NULL",
            "--engines", "soda", "--no-samples", "--output", "json", "--output-file", str(out))
    verdict = json.loads(out.read_text())
    assert verdict["where"] == "order_id IS NOT NULL"
    run_cli(str(ROOT / "contracts" / "orders.yaml"), "--data", f"orders={broken_orders / 'orders.csv'}",
            "--data", f"line_items={broken_orders / 'line_items.csv'}", "--where", "order_id LIKE '6513%'",
            "--engines", "soda", "--no-samples", "--output", "json", "--output-file", str(out))
    checks = {c["check_id"]: c for m in json.loads(out.read_text())["models"] for c in m["checks"]}
    assert checks["orders.quality[1]"]["observed"] == 2 and checks["orders.quality[1]"]["outcome"] == "failed"  # 2 rows, not > 5
    assert checks["line_items.sku.pattern"]["observed"] == 1     # LI-3 still matches the filter
    assert all(c["samples"] == [] for c in checks.values())     # --no-samples


def test_cli_bundled_example_passes(spark):
    result = run_cli(str(ROOT / "contracts" / "orders.yaml"))
    assert result.exit_code == 0, result.output
    assert "contract verdict: passed" in result.output


# ---------------------------------------------------------------------------------------------
# faults: the affected checks are `error` with the reason, the others keep their results

FAULTS = """
dataContractSpecification: 1.1.0
id: faults
info: {title: Faults, version: 1.0.0}
models:
  things:
    fields:
      id: {type: integer, required: true}
      name: {type: string, pattern: '(?P<word>[a-z]+)'}
      ghost: {type: string, required: true}
    quality:
      - type: sql
        query: SELECT MAX(no_such_column) FROM {model}
        mustBeLessThan: 10
"""


def test_faults_become_errors_and_the_rest_keeps_its_results(spark, tmp_path):
    path = tmp_path / "faults.yaml"
    path.write_text(FAULTS)
    things = spark.createDataFrame([(1, "a"), (None, "b")], "id int, name string")
    verdict = dc_bridge.run(str(path), dataframes={"things": things}, spark=spark)
    by_id = {c.check_id: c for c in verdict.checks()}
    assert by_id["things.id.required"].outcome == "failed" and by_id["things.id.required"].observed == 1
    assert by_id["things.ghost.exists"].outcome == "failed"
    # a column missing from the data is a judgement about the data: failed, naming the column (never error)
    assert by_id["things.ghost.required"].outcome == "failed" and "`ghost` is not in the data" in by_id["things.ghost.required"].reason
    assert by_id["things.name.pattern"].outcome == "error" and "DCB140" in by_id["things.name.pattern"].reason
    assert by_id["things.quality[0]"].outcome == "error" and "no_such_column" in by_id["things.quality[0]"].reason
    assert verdict.outcome == "error" and verdict.exit_code() == 2


def test_an_engine_that_raises_fails_closed(spark, tmp_path, monkeypatch):
    from great_expectations.core.validation_definition import ValidationDefinition

    def explode(*args, **kwargs):
        raise RuntimeError("GX crashed mid-run")

    monkeypatch.setattr(ValidationDefinition, "run", explode)
    path = tmp_path / "faults.yaml"
    path.write_text(FAULTS.replace("      ghost: {type: string, required: true}\n", ""))
    things = spark.createDataFrame([(1, "a"), (None, "b")], "id int, name string")
    verdict = dc_bridge.run(str(path), dataframes={"things": things}, spark=spark)
    required = next(c for c in verdict.checks() if c.check_id == "things.id.required")
    assert required.outcome == "error" and "GX crashed mid-run" in required.reason
    assert required.engines["soda"].observed == 1            # Soda's result is kept
    assert verdict.outcome == "error" and verdict.exit_code() == 2


def test_cli_missing_data_is_a_clear_error(tmp_path):
    contract = tmp_path / "orders.yaml"
    shutil.copy(ROOT / "contracts" / "orders.yaml", contract)  # its local server points at files that are not there
    result = run_cli(str(contract))
    assert result.exit_code == 2
    assert "does not exist" in result.output and "--data" in result.output


def test_committed_verdict_schema_is_current():
    from dc_bridge.verdict import Verdict

    committed = json.loads((ROOT / "docs" / "verdict.schema.json").read_text())
    assert committed == json.loads(json.dumps(Verdict.model_json_schema())), "regenerate docs/verdict.schema.json"


@pytest.mark.parametrize("name", ["letters_to_santa.yaml", "retail_pos.yaml"])
def test_bundled_examples_pass_in_every_engine(spark, name):
    """The bundled sample data meets its contract, and all three engines agree on every number."""
    verdict = dc_bridge.run(str(ROOT / "contracts" / name), spark=spark, engines=("gx", "soda", "spark"), samples=False)
    problems = [(c.check_id, c.outcome, c.reason) for c in verdict.checks() if c.outcome not in ("passed", "not_executable")]
    assert verdict.outcome == "passed" and not problems, problems
