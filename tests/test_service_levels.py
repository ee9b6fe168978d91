"""Service levels on the real engines: every SLA property is a check of the data or `not_executable`
with its reason (none is left out), a time-based SLA on a column that holds no time is DCB190, and
the dataQuality SLOs of the RFC's retail example are judged from their rules' results in the same run.
One Spark run per case table, all engines."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from rich.console import Console

import dc_bridge
from dc_bridge.contract.lint import lint_file
from dc_bridge.contract.model import Source
from dc_bridge.plan.checks import Objective
from dc_bridge.report.html import as_html
from dc_bridge.report.verdict_formats import as_json, as_junit, print_console
from dc_bridge.verdict import CheckVerdict, fold_objective

HERE = Path(__file__).resolve().parent / "service_levels"
ENGINES = ("gx", "soda", "spark")

SLA_CONTRACT = """\
apiVersion: v3.1.0
kind: DataContract
id: sla-all
version: 1.0.0
status: active
schema:
  - name: events
    properties:
      - {name: id, logicalType: integer}
      - {name: updated_at, logicalType: timestamp}
      - {name: loaded_at, logicalType: timestamp}
slaProperties:
  - {id: freshness_met, property: freshness, value: 1, unit: d, element: events.updated_at}
  - {id: latency_missed, property: latency, value: 30, unit: minutes, element: events.updated_at}
  - {id: retention_met, property: retention, value: 2, unit: d, element: events.updated_at}
  - {id: retention_missed, property: retention, value: 20, unit: h, element: events.updated_at}
  - {id: frequency_met, property: frequency, value: 1, unit: d, element: events.updated_at}
  - {id: frequency_missed, property: frequency, value: 6, unit: h, element: events.updated_at}
  - {id: time_met, property: timeOfAvailability, value: "09:00", element: events.loaded_at}
  - {id: time_missed, property: timeOfAvailability, value: "08:00Z", element: events.loaded_at}
  - {id: time_offset_met, property: timeOfAvailability, value: "10:00+01:00", element: events.loaded_at}
  - {id: availability, property: availability, value: 99.9, unit: percent}
  - {id: error_rate, property: errorRate, value: 0.1, unit: percent}
  - {id: throughput, property: throughput, value: 100}
  - {id: fresh_on_integer, property: freshness, value: 1, unit: d, element: events.id}
"""


def test_every_sla_property_is_judged_or_says_why(spark, tmp_path):
    path = tmp_path / "sla.yaml"
    path.write_text(SLA_CONTRACT)
    now = datetime.now(timezone.utc)
    day = now.replace(hour=0, minute=0, second=0, microsecond=0)
    # updated every 12 hours, newest an hour ago; loaded each day by 08:59 UTC (09:59 at +01:00)
    updated = [now - timedelta(hours=1), now - timedelta(hours=13), now - timedelta(hours=25)]
    loaded = [day - timedelta(days=3) + timedelta(hours=7, minutes=30), day - timedelta(days=2) + timedelta(hours=8, minutes=15),
              day - timedelta(days=1) + timedelta(hours=8, minutes=59)]
    events = spark.createDataFrame(list(zip(range(1, 4), updated, loaded)), "id INT, updated_at TIMESTAMP, loaded_at TIMESTAMP")

    verdict = dc_bridge.run(str(path), dataframes={"events": events}, spark=spark, engines=ENGINES)

    checks = {check.check_id: check for check in verdict.checks() if check.source["path"].startswith("slaProperties")}
    assert len(checks) == SLA_CONTRACT.count("property:")  # no service level is left out
    assert {check_id: check.outcome for check_id, check in checks.items() if check.model != "(contract)"} == {
        "freshness_met": "passed", "latency_missed": "failed", "retention_met": "passed", "retention_missed": "failed",
        "frequency_met": "passed", "frequency_missed": "failed", "time_met": "passed", "time_missed": "failed",
        "time_offset_met": "passed", "fresh_on_integer": "error"}
    # every engine ran each judged SLA and measured the same numbers
    for check_id in ("freshness_met", "frequency_missed", "time_missed", "retention_missed"):
        assert set(checks[check_id].engines) == set(ENGINES)
    assert checks["frequency_missed"].observed == pytest.approx(12 * 3600, abs=1)
    assert checks["time_missed"].observed == pytest.approx(8 * 3600 + 59 * 60)
    assert checks["time_missed"].expected == "<= 28800.0"
    assert checks["retention_missed"].observed == 1
    assert "DCB190" in checks["fresh_on_integer"].reason
    not_run = {check_id: check.reason for check_id, check in checks.items() if check.outcome == "not_executable"}
    assert set(not_run) == {"availability", "error_rate", "throughput"}
    # judged over a run history, which this run does not keep: the reason says how to keep one
    assert all("history of runs" in not_run[sla] and "--history PATH" in not_run[sla] for sla in ("availability", "error_rate"))
    assert "`throughput` is not a service level" in not_run["throughput"]


@pytest.mark.parametrize("declared, element, allowed", [
    ("{name: version, logicalType: integer}", "version", True),
    ("{name: day, logicalType: string}", "day", True),
    ("{name: day, logicalType: string, logicalTypeOptions: {format: date}}", "day", False),
    ("{name: day, logicalType: date}", "day", False),
])
def test_a_time_based_sla_on_a_column_without_time_is_an_error(tmp_path, declared, element, allowed):
    path = tmp_path / "c.yaml"
    path.write_text(f"apiVersion: v3.1.0\nkind: DataContract\nid: x\nversion: 1.0.0\nstatus: active\n"
                    f"schema:\n  - name: t\n    properties:\n      - {declared}\n"
                    f"slaProperties:\n  - {{property: retention, value: 1, unit: y, element: t.{element}}}\n"
                    f"  - {{property: timeOfAvailability, value: '09:00', element: t.{element}}}\n")
    codes = [(f.code, f.path) for f in lint_file(path).findings if f.code == "DCB190"]
    # retention takes a date; a time of availability needs a timestamp
    assert codes == ([("DCB190", "slaProperties[0]")] if allowed else []) + [("DCB190", "slaProperties[1]")]


def test_dcs_freshness_on_an_integer_column_is_an_error(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("dataContractSpecification: 1.1.0\nid: x\ninfo: {title: x, version: 1.0.0}\n"
                    "models:\n  orders:\n    fields:\n      id: {type: integer}\n"
                    "servicelevels:\n  freshness: {threshold: 1d, timestampField: orders.id}\n")
    [finding] = [f for f in lint_file(path).findings if f.code == "DCB190"]
    assert finding.level == "error" and "`orders.id`, declared `integer`" in finding.message


def test_retail_data_quality_slos_one_met_one_missed(spark):
    """The RFC's retail example: qty_positive (a count query: one evaluation) fails on one row, so the
    100% order SLO is missed; the overall 99.9% SLO over five rules is met although two of its rules fail."""
    customers = spark.createDataFrame([(i, f"c{i}@shop.example") for i in range(1, 1001)], "customer_id INT, email STRING")
    products = spark.createDataFrame([(i, 9.5) for i in range(1, 11)], "product_id INT, unit_price DOUBLE")
    order_items = spark.createDataFrame([(i, 0 if i == 7 else 2) for i in range(1, 51)], "order_item_id INT, quantity INT")
    reviews = spark.createDataFrame([(i, 7 if i == 3 else 1 + i % 5) for i in range(1, 201)], "review_id INT, rating INT")

    verdict = dc_bridge.run(str(HERE / "retail_slos.yaml"), spark=spark, engines=ENGINES,
                            dataframes={"customers": customers, "products": products, "order_items": order_items,
                                        "product_reviews": reviews})

    slos = {o.objective_id: o for o in verdict.objectives}
    assert {k: o.outcome for k, o in slos.items()} == {
        "slo_overall_data_quality": "passed", "slo_customer_completeness": "passed", "slo_product_pricing_validity": "passed",
        "slo_order_validity": "failed", "slo_review_ratings_validity": "passed"}
    overall = slos["slo_overall_data_quality"]
    # rows of the row-level rules (1000 + 1000 + 200), one evaluation per count query (2); 2 fail
    assert [(r.check_id, r.evaluations, r.passing) for r in overall.rules] == [
        ("cust_id_not_null", 1000, 1000), ("email_format", 1000, 1000), ("price_positive", 1, 1), ("qty_positive", 1, 0),
        ("rating_range", 200, 199)]
    assert overall.value == pytest.approx(100 * 2200 / 2202) and overall.expected == ">= 99.9%"
    assert overall.engines == {engine: pytest.approx(100 * 2200 / 2202) for engine in ENGINES}
    assert slos["slo_review_ratings_validity"].value == 99.5  # 199 of 200: exactly the target, met
    assert slos["slo_order_validity"].value == 0 and slos["slo_order_validity"].reason == "0 of 1 evaluations passed"
    assert verdict.outcome == "failed"

    # every report shows each SLO with its value and target
    data = json.loads(as_json(verdict))
    assert [o["objective_id"] for o in data["objectives"]] == list(slos)
    cases = {case.get("name"): case for case in ET.fromstring(as_junit(verdict)).iter("testcase")}
    assert cases["slo_order_validity"].find("failure") is not None
    assert "99.9092% of evaluations passed, expected >= 99.9%" in cases["slo_overall_data_quality"].find("system-out").text
    console = Console(record=True, width=200)
    print_console(verdict, console)
    text = console.export_text()
    assert "SLO failed" in text and "slo_order_validity" in text and "0% of evaluations passed" in text
    html = as_html(verdict)
    assert "Data quality SLOs" in html and "slo_overall_data_quality" in html
    assert "199 of 200 passed" in html


def test_an_errored_or_unevaluated_rule_never_lets_its_slo_pass():
    """The fold alone: a named rule in error makes the SLO error; a rule not evaluated makes it not_executable."""
    source = Source(file="c.yaml", path="slaProperties[0]", line=1)
    objective = Objective("slo", 50.0, ("a", "b"), source)

    def rule(check_id: str, outcome: str) -> CheckVerdict:
        return CheckVerdict(check_id=check_id, model="t", kind="not_null", columns=["x"], outcome=outcome, severity="error",
                            observed=0 if outcome == "passed" else None, source={})

    errored = fold_objective(objective, {"a": rule("a", "passed"), "b": rule("b", "error")}, {"t": 10})
    assert (errored.outcome, errored.reason) == ("error", "named rule(s) in error: b")
    skipped = fold_objective(objective, {"a": rule("a", "passed"), "b": rule("b", "skipped")}, {"t": 10})
    assert (skipped.outcome, skipped.reason) == ("not_executable", "named rule(s) not evaluated: b (skipped)")
    uncounted = fold_objective(objective, {"a": rule("a", "passed"), "b": rule("b", "passed")}, {})
    assert uncounted.outcome == "not_executable" and uncounted.reason.startswith("needs the row count of t")
    met = fold_objective(objective, {"a": rule("a", "passed"), "b": rule("b", "passed")}, {"t": 10})
    assert (met.outcome, met.value) == ("passed", 100)


def test_a_data_quality_slo_without_value_is_not_executable_never_a_100_percent_target(tmp_path):
    """The schema requires `value`; a run of a contract without it must not invent 100% as the target."""
    from dc_bridge.contract.reading.load import load_contract
    from dc_bridge.plan.build import build_plan

    path = tmp_path / "slo.yaml"
    path.write_text("apiVersion: v3.1.0\nkind: DataContract\nid: slo-no-value\nversion: 1.0.0\nstatus: active\n"
                    "schema:\n  - name: t\n    properties:\n      - name: x\n        logicalType: integer\n"
                    "        quality:\n          - {id: q1, metric: nullValues, mustBe: 0}\n"
                    "slaProperties:\n  - {id: slo, property: dataQuality, relationships: [{type: relatesTo, to: q1}]}\n")
    plan = build_plan(load_contract(path).contract)
    (objective,) = plan.objectives
    assert objective.target is None and objective.problem.startswith("no `value`")
    judged = fold_objective(objective, {}, {})
    assert (judged.outcome, judged.expected) == ("not_executable", None) and "no `value`" in judged.reason
