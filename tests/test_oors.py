"""`run --output oors` (dc_bridge/report/oors.py): real runs of an ODCS and a DCS contract written in
Bitol's Open Observability Results Standard as the TSC's RFC 0018 defines it (apiVersion v0.1.0), valid
against a strict schema written from the RFC's tables (tests/schemas/oors: the RFC publishes none),
one result per check and SLO, each linked by `relatesTo` to the contract element it checks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from dc_bridge.cli import main
from dc_bridge.report.oors import OORS_VERSION, relates_to

jsonschema = pytest.importorskip("jsonschema")

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = json.loads((Path(__file__).parent / "schemas" / "oors" / "oors-rfc0018-described.json").read_text())

CONTRACT = """\
apiVersion: v3.1.0
kind: DataContract
id: oors-orders
version: 2.1.0
status: active
servers:
  - {server: local, type: local, path: "./orders.parquet", format: parquet}
schema:
  - name: orders
    quality:
      - {id: enough_orders, metric: rowCount, mustBeGreaterThan: 2}
    properties:
      - {name: id, logicalType: integer, required: true, unique: true}
      - {name: day, logicalType: string}
      - name: amount
        logicalType: number
        quality:
          - {id: few_missing_amounts, metric: nullValues, mustBeLessThan: 1, severity: warning}
          - {id: amounts_in_range, metric: invalidValues, arguments: {validValues: [1.0, 4.0]}, mustBe: 0}
"""


def _element(document, path: str):
    """The contract element a `relatesTo` path names: a mapping's key, a list item by its id, name or index."""
    node = document
    for step in path.split("/"):
        if isinstance(node, dict):
            node = node[step]
        else:
            node = next((item for item in node if isinstance(item, dict) and step in (item.get("id"), item.get("name"))), None) \
                or node[int(step)]
    return node


def _validate(message: dict) -> None:
    jsonschema.Draft202012Validator(SCHEMA, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER).validate(message)


def test_odcs_run_as_oors_each_result_linked_to_its_element(spark, tmp_path):
    contract = tmp_path / "contract.yaml"
    contract.write_text(CONTRACT)
    spark.createDataFrame([(1, "mon", 10.0), (2, "mon", None), (3, "tue", 4.0), (4, "tue", 1.0)], "id int, day string, amount double") \
        .write.parquet(str(tmp_path / "orders.parquet"))
    out = tmp_path / "results.oors.json"
    result = CliRunner().invoke(main, ["run", str(contract), "--engines", "spark", "--where", "day = 'mon'",
                                       "--output", "oors", "--output-file", str(out)])
    assert result.exit_code == 1, result.output  # a value out of range: failed
    message = json.loads(out.read_text())
    _validate(message)
    assert message["apiVersion"] == OORS_VERSION == "v0.1.0" and message["kind"] == "ObservabilityResults"
    assert message["contract"] == {"contractID": "oors-orders", "standard": "ODCS", "version": "2.1.0"}

    document = yaml.safe_load(CONTRACT)
    results = {r["id"]: r for r in message["results"]}
    verdict = json.loads(CliRunner().invoke(main, ["run", str(contract), "--engines", "spark", "--where", "day = 'mon'",
                                                   "--output", "json"]).stdout)
    checks = [c for m in verdict["models"] for c in m["checks"]]
    assert set(results) == {c["check_id"] for c in checks}
    for check in checks:
        got = results[check["check_id"]]
        assert got["status"] == {"passed": "pass", "warning": "warn", "failed": "fail"}[check["outcome"]]
        assert _element(document, got["relatesTo"]) is not None, got["relatesTo"]
        assert got["target"] == {"resourceType": "dataset", "resourceIdentifier": str(tmp_path / "orders.parquet")}
        # severity is the contract's, whatever the outcome (the RFC: orthogonal to status)
        assert got["severity"] == check["severity"]
        assert got["message"].endswith("(judged on the rows where day = 'mon')")
    # a quality rule by its id, a property's own check by its name
    assert results["few_missing_amounts"]["relatesTo"] == "schema/orders/properties/amount/quality/few_missing_amounts"
    assert _element(document, results["few_missing_amounts"]["relatesTo"])["metric"] == "nullValues"
    assert results["orders.id.required"]["relatesTo"] == "schema/orders/properties/id"
    assert results["enough_orders"]["relatesTo"] == "schema/orders/quality/enough_orders"
    # the slice of --where: 2 rows, one amount missing (warning), 10.0 out of range (failed)
    assert results["few_missing_amounts"]["status"] == "warn"
    assert results["few_missing_amounts"]["measure"] == {"metric": "not_null", "value": 1.0, "unit": "rows",
                                                         "threshold": {"mustBeLessThan": 1}}
    assert results["amounts_in_range"]["status"] == "fail" and results["enough_orders"]["status"] == "fail"


def test_dcs_run_as_oors(tmp_path):
    contract = ROOT / "contracts" / "orders.yaml"
    result = CliRunner().invoke(main, ["run", str(contract), "--engines", "spark", "--output", "oors"])
    message = json.loads(result.stdout)
    _validate(message)
    assert message["contract"]["standard"] == "DCS"
    document = yaml.safe_load(contract.read_text())
    relates = {r["id"]: r.get("relatesTo") for r in message["results"]}
    assert relates["orders.order_id.unique"] == "models/orders/fields/order_id"
    assert relates["orders.order_total.quality[0]"] == "models/orders/fields/order_total/quality/0"
    for path in relates.values():
        assert _element(document, path) is not None, path


def test_relates_to_keeps_hostile_names_one_step_each():
    """Names with dots (a DCS field `e.mail`, split with its source path), slashes, tildes, quotes and unicode
    are one step each, escaped as a JSON Pointer's steps, and lead back to their element."""
    document = {"models": {"or.ders": {"fields": {"e.mail": {"quality": [{}]}, "a/b~c": {}, "naïve \"x\"": {}}}},
                "schema": [{"name": "t/1", "properties": [{"name": "p.q", "quality": [{"id": "r~1"}]}]}]}
    assert relates_to("models.or.ders.fields.e.mail.quality[0]", document) == "models/or.ders/fields/e.mail/quality/0"
    assert relates_to("models.or.ders.fields.a/b~c", document) == "models/or.ders/fields/a~1b~0c"
    assert relates_to('models.or.ders.fields.naïve "x"', document) == 'models/or.ders/fields/naïve "x"'
    path = relates_to("schema[0].properties[0].quality[0]", document)
    assert path == "schema/t~11/properties/p.q/quality/r~01"
    steps = [step.replace("~1", "/").replace("~0", "~") for step in path.split("/")]
    assert steps == ["schema", "t/1", "properties", "p.q", "quality", "r~1"]


def test_relates_to_is_a_path_of_names_else_indices():
    assert relates_to("schema[1].properties[0].quality[2]", {"schema": [{"name": "a"}, {"name": "b", "properties": [
        {"name": "x", "quality": [{}, {}, {"id": "q"}]}]}]}) == "schema/b/properties/x/quality/q"
    assert relates_to("schema[0]", None) == "schema/0"  # the file gone: the indices


def test_a_contract_not_checked_is_one_error_result():
    from dc_bridge.report.oors import as_oors
    from dc_bridge.verdict import Verdict

    message = json.loads(as_oors(Verdict.unchecked("missing.yaml", ["spark"], "the contract has errors")))
    _validate(message)
    assert message["results"] == [
        {"id": "contract", "type": "check", "name": "contract checked", "status": "error", "message": "the contract has errors"}]
    several = json.loads(as_oors([Verdict.unchecked(f"{n}.yaml", ["spark"], "unreadable") for n in "ab"]))
    assert [m["contract"]["contractID"] for m in several] == ["a.yaml", "b.yaml"]
