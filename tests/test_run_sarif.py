"""`dc-bridge run --output sarif` (docs/reports.md, "SARIF"): the verdict as SARIF 2.1.0 for code scanning,
validated against OASIS's schema (tests/schemas). A verdict built here (no Spark) with a check of every
outcome, a failed SLO, four monitors and a contract that could not be checked; then one real run of the
bundled orders contract on broken data, whose results must sit on the lines the contract's YAML puts
the failing checks at (read here with PyYAML's own node marks, not dc-bridge's reader).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import unquote

import yaml
from click.testing import CliRunner

from dc_bridge.cli import main
from dc_bridge.outcomes import ALL
from dc_bridge.report.verdict_formats import as_sarif
from dc_bridge.verdict import CheckVerdict, ModelVerdict, ObjectiveRule, ObjectiveVerdict, Verdict
from test_monitor_reports import LEARNING, MONITORS, NORMAL, STRICT, WARN

ROOT = Path(__file__).resolve().parent.parent
SCHEMAS = Path(__file__).parent / "schemas"
FILE = "contracts/my orders #1.yaml"


def _valid(text: str) -> dict:
    import jsonschema

    schema = json.loads((SCHEMAS / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
    sarif = json.loads(text)
    jsonschema.Draft4Validator(schema, format_checker=jsonschema.FormatChecker()).validate(sarif)
    return sarif


def _check(check_id: str, kind: str, outcome: str, line: int, **extra) -> CheckVerdict:
    return CheckVerdict(check_id=check_id, model="orders", kind=kind, columns=["id"], outcome=outcome, severity="error",
                        source={"file": FILE, "path": f"models.orders.fields.{check_id}", "line": line}, **extra)


def _verdict() -> Verdict:
    checks = [_check("id.required", "not_null", "passed", 10, observed=0, expected="= 0"),
              _check("id.unique", "unique", "failed", 11, observed=2, expected="= 0", samples=["a-1"]),
              _check("email.format", "regex", "failed", 12, observed=1, expected="= 0",
                     samples_note="withheld: the field is marked pii or has a sensitive classification"),
              _check("total.range", "range", "warning", 13, observed=1, expected="= 0"),
              _check("total.quality[0]", "sql_metric", "error", 14, reason="spark: the query names no column `x`"),
              _check("email.quality[0]", "not_executable", "not_executable", 15, reason="a text rule describes quality in words"),
              _check("id.type", "column_type", "skipped", 16, reason="no engine selected runs it")]
    counts = {o: sum(c.outcome == o for c in checks) for o in ALL}
    slo = ObjectiveVerdict(objective_id="(contract).dataQuality[0]", outcome="failed", value=71.5, target=99.0, expected=">= 99%",
                           source={"file": FILE, "path": "slaProperties[0]", "line": 40},
                           rules=[ObjectiveRule(check_id="id.unique", outcome="failed", evaluations=100, passing=43)])
    return Verdict(contract_id="urn:shop:orders", contract_version="1.2.0", contract_file=FILE, outcome="error", counts=counts,
                   models=[ModelVerdict(name="orders", outcome="error", counts=counts, checks=checks)], objectives=[slo],
                   engines=["spark"], monitors=MONITORS)


def test_sarif_of_a_verdict_one_run_a_result_per_problem_at_its_line():
    # the normal monitor watches `orders.amount.required`, a check of no line here: made an anomaly of `id.unique` instead
    of_check = NORMAL.model_copy(update={"subject": "id.unique", "monitor_id": "check(orders, id.unique)", "outcome": "anomalous"})
    verdict = _verdict().model_copy(update={"monitors": [*MONITORS, of_check]})
    unchecked = Verdict.unchecked("contracts/other.yaml", ["spark"], "model `gone`: no data at ./nothing.parquet")
    sarif = _valid(as_sarif([verdict, unchecked], {FILE: {"orders": 7}}))
    (run,) = sarif["runs"]  # code scanning takes one run per tool: every contract's results in it
    assert run["tool"]["driver"]["name"] == "dc-bridge"
    rules = [rule["id"] for rule in run["tool"]["driver"]["rules"]]
    assert len(rules) == len(set(rules))
    got = {}
    for result in run["results"]:
        assert rules[result["ruleIndex"]] == result["ruleId"]
        (location,) = result["locations"]
        physical = location["physicalLocation"]
        # each named by its element: a check's or SLO's path in the contract, a monitor's id; the unchecked contract by its file
        named = [logical["fullyQualifiedName"] for logical in location["logicalLocations"]] or [physical["artifactLocation"]["uri"]]
        got[named[0]] = (result["ruleId"], result["level"], unquote(physical["artifactLocation"]["uri"]),
                         physical.get("region", {}).get("startLine"))
    fields = "models.orders.fields."
    assert got == {
        fields + "id.unique": ("check/unique", "error", FILE, 11),
        fields + "email.format": ("check/regex", "error", FILE, 12),
        fields + "total.range": ("check/range", "warning", FILE, 13),
        fields + "total.quality[0]": ("check/sql_metric", "error", FILE, 14),
        "slaProperties[0]": ("slo/dataQuality", "error", FILE, 40),
        STRICT.monitor_id: ("monitor/rows", "error", FILE, 7),             # strict: at its model's line
        WARN.monitor_id: ("monitor/null_fraction", "warning", FILE, 7),    # warn
        of_check.monitor_id: ("monitor/check", "warning", FILE, 11),       # a check's monitor: at that check
        "contracts/other.yaml": ("contract/unchecked", "error", "contracts/other.yaml", None),  # could not be checked: at its file
    }
    # passed checks, learning monitors and normal ones raise nothing
    texts = " ".join(r["message"]["text"] for r in run["results"])
    assert "id.required" not in texts and LEARNING.monitor_id not in texts and NORMAL.monitor_id not in texts
    messages = {r["locations"][0]["logicalLocations"][0]["fullyQualifiedName"]: r["message"]["text"]
                for r in run["results"] if r["locations"][0]["logicalLocations"]}
    assert messages[fields + "id.unique"].startswith("id.unique failed")
    assert "observed 2, expected = 0" in messages[fields + "id.unique"] and "'a-1'" in messages[fields + "id.unique"]
    assert "withheld" in messages[fields + "email.format"] and "e.g." not in messages[fields + "email.format"]
    assert "the query names no column" in messages[fields + "total.quality[0]"]
    assert messages[STRICT.monitor_id] == f"{STRICT.monitor_id}: {STRICT.sentence}"
    # the checks not run: notes of the invocation, not results (no alert), each with why
    (invocation,) = run["invocations"]
    assert invocation["executionSuccessful"] is False  # a contract could not be checked
    notes = {n["message"]["text"] for n in invocation["toolExecutionNotifications"]}
    assert notes == {"email.quality[0] not_executable: a text rule describes quality in words",
                     "id.type skipped: no engine selected runs it"}
    uris = [a["location"]["uri"] for a in run["artifacts"]]
    assert uris == ["contracts/my%20orders%20%231.yaml", "contracts/other.yaml"]
    # without the models' lines, a model's monitor is at the contract file only
    alone = _valid(as_sarif(verdict))["runs"][0]["results"]
    strict = next(r for r in alone if r["ruleId"] == "monitor/rows")
    assert "region" not in strict["locations"][0]["physicalLocation"]


def _yaml_line(text: str, path: str) -> int:
    """The 1-based line of the element at a dotted path (`models.orders.quality[1]`), by PyYAML's node marks."""
    node, line = yaml.compose(text), None
    for step in re.findall(r"[^.\[\]]+|\[\d+\]", path):
        if step.startswith("["):
            node = node.value[int(step[1:-1])]
            line = node.start_mark.line + 1
        else:
            key, node = next((k, v) for k, v in node.value if k.value == step)
            line = key.start_mark.line + 1
    return line


ORDER = "6513270e-269e-4d37-b2a7-4de452e6b438"


def test_cli_run_sarif_puts_each_failing_check_on_its_contract_line(tmp_path, spark):
    (tmp_path / "orders.csv").write_text(
        "order_id,order_timestamp,order_total,customer_id,customer_email_address,processed_timestamp\n"
        f"{ORDER},2030-09-09T08:00:00Z,1500,1000000001,mary@example.com,2030-09-09T08:45:00Z\n"
        f"{ORDER},2030-09-09T08:30:00Z,3200,1000000002,not-an-email,2030-09-10T12:00:00Z\n"   # duplicate id, bad email, late
        "not-a-uuid,2030-09-09T09:00:00Z,2500,123,,2030-09-09T09:10:00Z\n")                   # bad uuid, short id, no email
    (tmp_path / "line_items.csv").write_text(
        f"line_item_id,order_id,sku\nLI-1,{ORDER},5901234123457\nLI-2,00000000-0000-4000-8000-000000000000,4001234567890\n"
        f"LI-3,{ORDER},12-34\n")                                                                # orphan order, bad sku
    contract = ROOT / "contracts" / "orders.yaml"
    out = tmp_path / "run.sarif"
    result = CliRunner().invoke(main, ["run", str(contract), "--data", f"orders={tmp_path / 'orders.csv'}",
                                       "--data", f"line_items={tmp_path / 'line_items.csv'}", "--engines", "spark",
                                       "--output", "sarif", "--output-file", str(out)], catch_exceptions=False)
    assert result.exit_code == 1, result.output  # the verdict's exit code, as for every output
    assert "contract verdict: failed" in result.output  # the console summary beside the file
    (run,) = _valid(out.read_text(encoding="utf-8"))["runs"]
    text = contract.read_text(encoding="utf-8")
    placed = {}
    for r in run["results"]:
        physical = r["locations"][0]["physicalLocation"]
        assert unquote(physical["artifactLocation"]["uri"]) == str(contract)
        path = r["locations"][0]["logicalLocations"][0]["fullyQualifiedName"]
        assert physical["region"]["startLine"] == _yaml_line(text, path), r
        placed[r["message"]["text"].split(" ")[0]] = (path, r["level"])
    for check_id, path in {"orders.order_id.unique": "models.orders.fields.order_id",
                           "orders.customer_email_address.format": "models.orders.fields.customer_email_address",
                           "orders.customer_id.length": "models.orders.fields.customer_id",
                           "orders.latency": "servicelevels.latency",
                           "line_items.sku.pattern": "models.line_items.fields.sku",
                           "line_items.order_id.foreign_key": "models.line_items.fields.order_id.references"}.items():
        assert placed[check_id] == (path, "error")
    assert not any(check_id.endswith(".exists") for check_id in placed)  # passed checks raise nothing
    notes = run["invocations"][0]["toolExecutionNotifications"]
    assert any(n["message"]["text"].startswith("orders.customer_email_address.quality[0] not_executable:") for n in notes)
