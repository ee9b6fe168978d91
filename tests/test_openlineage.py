"""`run --openlineage` (dc_bridge/report/openlineage.py): a real run's RunEvent, received over HTTP by a
server this test starts on loopback and configured only through OpenLineage's own configuration
(OPENLINEAGE_URL, an openlineage.yml), is valid against the official OpenLineage JSON schemas of the
RunEvent and of the two facets (tests/schemas/openlineage, Apache-2.0), carries one assertion per check
and the counts the run has; with no configuration, no event is written and no connection is made (the whole
`run --openlineage` in a process whose every connection beyond loopback is refused: tests/test_egress.py)."""

from __future__ import annotations

import json
import textwrap
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from click.testing import CliRunner

pytest.importorskip("openlineage.client")
jsonschema = pytest.importorskip("jsonschema")
referencing = pytest.importorskip("referencing")

import dc_bridge  # noqa: E402
from dc_bridge.cli import main  # noqa: E402
from dc_bridge.report.openlineage import LineageNotConfigured, dataset_name, emit, run_event  # noqa: E402

SCHEMAS = Path(__file__).parent / "schemas" / "openlineage"
SPEC = "https://openlineage.io/spec/2-0-2/OpenLineage.json"

CONTRACT = """\
apiVersion: v3.1.0
kind: DataContract
id: lineage-orders
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
      - name: amount
        logicalType: number
        quality:
          - {id: few_missing_amounts, metric: nullValues, mustBeLessThan: 2, severity: warning}
"""


class _Receiver(ThreadingHTTPServer):
    """A lineage endpoint on loopback: every connection counted, every POSTed body kept."""

    def __init__(self):
        self.events, self.connections, self.paths = [], 0, []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                receiver.paths.append(self.path)
                receiver.events.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
                self.send_response(201)
                self.end_headers()

            def log_message(self, *args):
                pass

        super().__init__(("127.0.0.1", 0), Handler)

    def get_request(self):
        self.connections += 1
        return super().get_request()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


@pytest.fixture
def receiver():
    server = _Receiver()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture
def no_config(tmp_path, monkeypatch):
    """No OpenLineage configuration anywhere the client looks: no variables, no openlineage.yml in the
    working folder or under $HOME/.openlineage."""
    import os

    for name in list(os.environ):
        if name.startswith("OPENLINEAGE"):
            monkeypatch.delenv(name)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def orders(spark, tmp_path):
    (tmp_path / "contract.yaml").write_text(CONTRACT)
    frame = spark.createDataFrame([(1, 10.0), (2, None), (3, None), (4, 4.0)], "id int, amount double")
    frame.write.parquet(str(tmp_path / "orders.parquet"))
    return tmp_path / "contract.yaml"


def _validator(definition: str):
    resources = []
    for file in SCHEMAS.glob("*.json"):
        schema = json.loads(file.read_text())
        resources.append((schema["$id"], referencing.Resource.from_contents(schema)))
    registry = referencing.Registry().with_resources(resources)
    return jsonschema.Draft202012Validator({"$ref": definition}, registry=registry,
                                           format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)


def _valid(event: dict) -> None:
    """The event against OpenLineage.json's RunEvent, each facet against its own schema."""
    _validator(f"{SPEC}#/$defs/RunEvent").validate(event)
    facets = {"dataQualityAssertions": "https://openlineage.io/spec/facets/1-1-0/DataQualityAssertionsDatasetFacet.json",
              "dataQualityMetrics": "https://openlineage.io/spec/facets/1-0-3/DataQualityMetricsInputDatasetFacet.json"}
    for dataset in event["inputs"]:
        for name, facet in dataset["inputFacets"].items():
            _validator(facets[name]).validate({name: facet})
            assert facet["_schemaURL"].startswith(facets[name])


def test_a_run_event_received_over_http_is_valid_and_carries_every_check(orders, receiver, no_config, monkeypatch, spark):
    monkeypatch.setenv("OPENLINEAGE_URL", receiver.url)
    verdict = dc_bridge.run(str(orders), spark=spark, engines=("gx", "soda", "spark"))
    assert emit([verdict]) == "sent 1 OpenLineage run event(s) through the http transport"
    assert receiver.paths == ["/api/v1/lineage"] and len(receiver.events) == 1
    event = receiver.events[0]
    _valid(event)

    assert event["eventType"] == "COMPLETE" and event["job"] == {"namespace": "dc-bridge", "name": "lineage-orders", "facets": {}}
    [dataset] = event["inputs"]
    assert (dataset["namespace"], dataset["name"]) == ("file", str(orders.parent / "orders.parquet"))
    assertions = {a["name"]: a for a in dataset["inputFacets"]["dataQualityAssertions"]["assertions"]}
    # one assertion per check, each with the check's outcome as success, its column and severity
    assert set(assertions) == {c.check_id for c in verdict.checks()} and len(assertions) == len(verdict.checks())
    for check in verdict.checks():
        assertion = assertions[check.check_id]
        assert assertion["success"] == (check.outcome == "passed") and assertion["assertion"] == check.kind
        assert assertion["params"]["outcome"] == check.outcome
    # 2 null amounts against < 2: failed, a warning by its severity; the row count passed
    assert assertions["few_missing_amounts"] == {
        "assertion": "not_null", "success": False, "column": "amount", "severity": "warn", "name": "few_missing_amounts",
        "expected": "< 2", "actual": "2",
        "params": {"outcome": "warning", "kind": "not_null", "unit": "rows", "line": 17}}
    assert assertions["enough_orders"]["success"] is True and assertions["enough_orders"]["actual"] == "4"
    # the counts the run has: 4 rows, 2 null amounts, 0 null ids (the required id's null check)
    metrics = dataset["inputFacets"]["dataQualityMetrics"]
    assert metrics["rowCount"] == 4
    assert metrics["columnMetrics"] == {"amount": {"nullCount": 2, "quantiles": {}}, "id": {"nullCount": 0, "quantiles": {}}}
    assert event["run"]["facets"]["processing_engine"]["name"] == "dc-bridge"


def test_run_openlineage_sends_through_an_openlineage_yml(orders, receiver, no_config):
    (no_config / "openlineage.yml").write_text(textwrap.dedent(f"""\
        transport:
          type: http
          url: {receiver.url}
          endpoint: api/v1/lineage
        """))
    result = CliRunner().invoke(main, ["run", str(orders), "--engines", "spark", "--openlineage"])
    assert result.exit_code == 0, result.output
    assert "openlineage: sent 1 OpenLineage run event(s) through the http transport" in result.output
    [event] = receiver.events
    _valid(event)
    assert {a["name"] for a in event["inputs"][0]["inputFacets"]["dataQualityAssertions"]["assertions"]} >= {
        "enough_orders", "few_missing_amounts", "orders.id.required"}


def test_no_configuration_no_event_and_no_connection(orders, receiver, no_config, capsys):
    result = CliRunner().invoke(main, ["run", str(orders), "--engines", "spark", "--openlineage", "--output", "json"])
    assert result.exit_code == 0, result.output
    assert "openlineage: no OpenLineage transport is configured" in result.output
    assert json.loads(result.stdout)["contract_id"] == "lineage-orders"  # stdout is the report, not an event
    assert "eventType" not in result.output and "eventType" not in capsys.readouterr().out
    assert receiver.connections == 0 and receiver.events == []
    with pytest.raises(LineageNotConfigured):
        emit([])


def test_a_contract_not_checked_is_a_failed_run(no_config):
    from dc_bridge.verdict import Verdict

    event = json.loads(__import__("openlineage.client.serde", fromlist=["Serde"]).Serde.to_json(
        run_event(Verdict.unchecked("missing.yaml", ["spark"], "the contract has errors"))))
    _valid(event)
    assert event["eventType"] == "FAIL" and event["run"]["facets"]["errorMessage"]["message"] == "the contract has errors"


@pytest.mark.parametrize("source, expected", [
    ("dataframe", ("dataframe", "orders")),
    ("table:sales.orders", ("spark_catalog", "sales.orders")),
    ("s3a://lake/raw/orders/", ("s3://lake", "raw/orders/")),
    ("gs://bucket/orders.parquet", ("gs://bucket", "orders.parquet")),
    ("file:///data/orders.csv", ("file", "/data/orders.csv")),
    ("/data/orders.csv", ("file", "/data/orders.csv")),
])
def test_dataset_names_follow_openlineage_naming(source, expected):
    assert dataset_name(source, "orders") == expected


def test_disabled_by_openlineage_itself(no_config, receiver, monkeypatch):
    monkeypatch.setenv("OPENLINEAGE_URL", receiver.url)
    monkeypatch.setenv("OPENLINEAGE_DISABLED", "true")
    with pytest.raises(LineageNotConfigured, match="disabled"):
        emit([])
    assert receiver.connections == 0


def test_the_contracts_own_checks_are_assertions_on_every_dataset(no_config):
    from openlineage.client.serde import Serde

    from dc_bridge.verdict import CheckVerdict, ModelVerdict, Verdict

    def check(check_id, model, kind):
        return CheckVerdict(check_id=check_id, model=model, kind=kind, columns=[], outcome="passed", severity="error", source={})

    models = [ModelVerdict(name=name, outcome="passed", counts={}, checks=[check(f"{name}.rows", name, "row_count")])
              for name in ("orders", "items")]
    models.append(ModelVerdict(name="(contract)", outcome="passed", counts={}, checks=[check("availability", "(contract)", "availability")]))
    verdict = Verdict(contract_id="c", contract_version="1", contract_file="c.yaml", outcome="passed", counts={}, models=models,
                      engines=["spark"], data_sources={"orders": "table:sales.orders", "items": "s3a://lake/items/"})
    event = json.loads(Serde.to_json(run_event(verdict)))
    _valid(event)
    assert [(d["namespace"], d["name"], sorted(a["name"] for a in d["inputFacets"]["dataQualityAssertions"]["assertions"]))
            for d in event["inputs"]] == [("spark_catalog", "sales.orders", ["availability", "orders.rows"]),
                                          ("s3://lake", "items/", ["availability", "items.rows"])]
