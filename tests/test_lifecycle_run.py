"""A run of a registered version carries what the registry says of its life (the embedded Iceberg catalog, real
Spark through the suite's session): a deprecated version's finding in every report, each read by its own parser or
schema; past a sunset, the enforcement level; a retired version refused unless --allow-retired; `run --registered`
skipping retired contracts."""

from __future__ import annotations

import json
import shutil
import subprocess
import xml.etree.ElementTree as ET
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from click.testing import CliRunner

from dc_bridge.cli import main

SCHEMAS = Path(__file__).parent / "schemas"
CONTRACT = """\
apiVersion: v3.1.0
kind: DataContract
id: {id}
version: {version}
status: active
servers:
  - server: local
    type: local
    path: ./customers.csv
    format: csv
schema:
  - name: customers
    properties:
      - name: customer_id
        logicalType: string
        required: true
"""


def invoke(*args: str):
    return CliRunner().invoke(main, list(args))


def write(folder: Path, version: str, id: str = "customers") -> str:
    name = f"{id}-{version}.yaml"
    (folder / name).write_text(CONTRACT.format(id=id, version=version), encoding="utf-8")
    return name


@pytest.fixture(scope="module")
def project(tmp_path_factory, spark):
    """customers 1.0.0 deprecated (sunset in 10 days, successor 2.0.0), 2.0.0 active, 3.0.0 sunset by a transition,
    4.0.0 retired (the current version); orders 1.0.0 active."""
    folder = tmp_path_factory.mktemp("lifecycle-run")
    (folder / "dc-bridge.toml").write_text('catalog = "iceberg"\nnamespace = "sales"\n', encoding="utf-8")
    (folder / "customers.csv").write_text("customer_id\nc1\nc2\n", encoding="utf-8")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        for version in ("1.0.0", "2.0.0", "3.0.0", "4.0.0"):
            assert invoke("register", write(folder, version)).exit_code == 0
        assert invoke("register", write(folder, "1.0.0", "orders")).exit_code == 0
        sunset = (datetime.now(timezone.utc) + timedelta(days=10)).date().isoformat()
        assert invoke("lifecycle", "customers@1.0.0", "--to", "deprecated", "--sunset", sunset, "--successor", "customers@2.0.0").exit_code == 0
        for version, steps in (("3.0.0", ("deprecated", "sunset")), ("4.0.0", ("deprecated", "sunset", "retired"))):
            for step in steps:
                extra = ("--sunset", "2099-01-01") if step == "deprecated" else ()
                assert invoke("lifecycle", f"customers@{version}", "--to", step, *extra).exit_code == 0
    return folder


def run(project: Path, *args: str, config: str | None = None):
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(project)
        if config is not None:
            (project / "dc-bridge.toml").write_text(config, encoding="utf-8")
        try:
            return invoke("run", *args, "--engines", "spark")
        finally:
            (project / "dc-bridge.toml").write_text('catalog = "iceberg"\nnamespace = "sales"\n', encoding="utf-8")


def test_a_deprecated_version_carries_its_finding_in_every_report(project):
    import jsonschema
    import xmlschema
    from openlineage.client.serde import Serde

    from dc_bridge.report.openlineage import run_event
    from dc_bridge.verdict import Verdict
    from test_oors import _validate as oors_valid
    from test_openlineage import _valid as openlineage_valid

    words = "deprecated, sunset "
    reports = {}
    for output in ("json", "junit", "sarif", "html", "oors"):
        target = project / f"report.{output}"
        result = run(project, "customers-1.0.0.yaml", "--output", output, "--output-file", str(target), "--metrics-file", str(project / "m.prom"))
        assert result.exit_code == 0, result.output  # a deprecated version's run passes: the finding is a note
        reports[output] = target.read_text(encoding="utf-8")
    console = run(project, "customers-1.0.0.yaml")
    assert console.exit_code == 0 and "lifecycle: deprecated, sunset" in " ".join(console.output.split())
    assert "successor customers@2.0.0" in " ".join(console.output.split())

    verdict = json.loads(reports["json"])
    lifecycle = verdict["lifecycle"]
    assert (lifecycle["state"], lifecycle["weighs_as"], lifecycle["successor"], verdict["outcome"]) == (
        "deprecated", "passed", "customers@2.0.0", "passed")
    assert lifecycle["days_to_sunset"] in (9, 10) and lifecycle["message"].startswith(words)

    xmlschema.XMLSchema(str(SCHEMAS / "junit-10.xsd")).validate(reports["junit"])
    cases = [case for case in ET.fromstring(reports["junit"]).iter("testcase") if case.get("classname") == "customers.lifecycle"]
    assert len(cases) == 1 and words in cases[0].find("system-out").text and cases[0].find("failure") is None

    sarif = json.loads(reports["sarif"])
    jsonschema.Draft4Validator(json.loads((SCHEMAS / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))).validate(sarif)
    found = [r for r in sarif["runs"][0]["results"] if r["ruleId"] == "contract/lifecycle"]
    assert len(found) == 1 and found[0]["level"] == "note" and words in found[0]["message"]["text"]

    assert 'class="lifecycle"' in reports["html"] and words in reports["html"]

    oors = json.loads(reports["oors"])
    oors_valid(oors)
    assert [(r["status"], r["message"][:len(words)]) for r in oors["results"] if r["id"] == "lifecycle"] == [("pass", words)]

    event = json.loads(Serde.to_json(run_event(Verdict.model_validate(verdict))))
    openlineage_valid(event)
    assertions = [a for d in event["inputs"] for a in d["inputFacets"]["dataQualityAssertions"]["assertions"] if a["assertion"] == "lifecycle"]
    assert len(assertions) == 1 and assertions[0]["success"] and assertions[0]["params"]["successor"] == "customers@2.0.0"

    prom = (project / "m.prom").read_text(encoding="utf-8")
    assert 'dc_bridge_contract_lifecycle{contract="customers",state="deprecated",version="1.0.0"} 1.0' in prom
    assert 'dc_bridge_contract_lifecycle{contract="customers",state="active",version="1.0.0"} 0.0' in prom
    stamp = next(float(line.split()[-1]) for line in prom.splitlines() if line.startswith("dc_bridge_contract_sunset_timestamp_seconds{"))
    assert stamp == datetime.fromisoformat(lifecycle["sunset"].replace("Z", "+00:00")).timestamp()
    if shutil.which("promtool"):
        checked = subprocess.run(["promtool", "check", "metrics"], input=prom.encode(), capture_output=True, timeout=60)
        assert b"error" not in checked.stdout.lower() + checked.stderr.lower(), checked


def test_past_its_sunset_the_enforcement_level_decides(project):
    warned = run(project, "customers-3.0.0.yaml", "--output", "json")
    assert warned.exit_code == 0, warned.output
    verdict = json.loads(warned.stdout)
    assert (verdict["outcome"], verdict["lifecycle"]["state"], verdict["lifecycle"]["level"]) == ("warning", "sunset", "warn")
    failed = run(project, "customers-3.0.0.yaml", "--output", "json", config='catalog = "iceberg"\nnamespace = "sales"\n'
                                                                             '[enforcement]\nlifecycle = "strict"\n')
    assert failed.exit_code == 1, failed.output
    verdict = json.loads(failed.stdout)
    assert verdict["outcome"] == "failed" and verdict["reason"].startswith("lifecycle: sunset")
    off = run(project, "customers-3.0.0.yaml", "--output", "json", config='catalog = "iceberg"\nnamespace = "sales"\n'
                                                                          '[enforcement]\nlifecycle = "off"\n')
    assert off.exit_code == 0 and json.loads(off.stdout)["outcome"] == "passed"


def test_a_retired_version_is_refused_unless_allowed(project):
    refused = run(project, "customers-4.0.0.yaml")
    assert refused.exit_code == 2 and "customers 4.0.0 is retired" in " ".join(refused.output.split()), refused.output
    allowed = run(project, "customers-4.0.0.yaml", "--allow-retired", "--output", "json")
    assert allowed.exit_code == 0, allowed.output
    assert json.loads(allowed.stdout)["lifecycle"]["state"] == "retired"


def test_run_registered_skips_retired_contracts_and_says_how_many(project):
    result = run(project, "--registered", "--output", "json")
    assert result.exit_code == 0, result.output
    assert "skipped 1 retired contract(s): sales/customers@4.0.0" in " ".join(result.output.split())
    assert [v["contract_id"] for v in json.loads(result.stdout)] == ["orders"]


def test_contracts_of_one_run_read_their_namespace_once_and_each_its_own_state(project):
    """The namespace's lifecycle is read once for every contract of a command (cli/lifecycle.py for_run's `known`): each
    contract still gets its own version's state from it, in the order given."""
    for files, expected in ((("orders-1.0.0.yaml", "customers-3.0.0.yaml"), [("orders", None), ("customers", "sunset")]),
                            (("customers-1.0.0.yaml", "orders-1.0.0.yaml"), [("customers", "deprecated"), ("orders", None)])):
        result = run(project, *files, "--output", "json")
        assert result.exit_code == 0, result.output
        states = [(v["contract_id"], (v.get("lifecycle") or {}).get("state")) for v in json.loads(result.stdout)]
        assert states == expected, states


@pytest.mark.skipif(shutil.which("promtool") is None, reason="promtool (Debian's `prometheus` package) is not installed")
def test_the_documented_sunset_rule_fires_a_week_before_the_sunset(tmp_path):
    """Prometheus's own rule engine (`promtool test rules`) on the documented rule file as it is, over the series a
    deprecated version's run exposes (read back from the exposition by prometheus-client's parser): the sunset at day
    10 of Prometheus's test clock, the alert quiet on day 2 and firing on day 4."""
    import yaml
    from prometheus_client.parser import text_string_to_metric_families

    from dc_bridge.report.prometheus import exposition
    from dc_bridge.verdict import LifecycleVerdict, Verdict

    sunset = 10 * 86400
    verdict = Verdict(contract_id="customers", contract_version="1.0.0", contract_file="c.yaml", outcome="passed", counts={},
                      models=[], engines=["spark"],
                      lifecycle=LifecycleVerdict(state="deprecated", weighs_as="passed", level="warn", message="deprecated",
                                                 sunset_timestamp=sunset, where="iceberg namespace sales"))
    samples = [sample for family in text_string_to_metric_families(exposition([verdict]))
               for sample in family.samples if sample.name == "dc_bridge_contract_sunset_timestamp_seconds"]
    assert len(samples) == 1 and samples[0].value == sunset
    labels = ",".join(f'{key}="{value}"' for key, value in sorted(samples[0].labels.items()))
    series = f"{samples[0].name}{{{labels}}}"
    rules = Path(__file__).resolve().parent.parent / "docs" / "examples" / "monitoring" / "dc-bridge-alerts.yml"
    alert = {"contract": "customers", "version": "1.0.0", "priority": "ticket"}
    test = {"rule_files": [str(rules)], "evaluation_interval": "1h",
            "tests": [{"interval": "1h", "input_series": [{"series": series, "values": f"{sunset}+0x200"}],
                       "alert_rule_test": [{"eval_time": "2d", "alertname": "DataContractSunsetSoon", "exp_alerts": []},
                                           {"eval_time": "4d", "alertname": "DataContractSunsetSoon",
                                            "exp_alerts": [{"exp_labels": alert,
                                                            "exp_annotations": {"summary": "Data contract customers 1.0.0 is sunset in 6d 0h 0m 0s"}}]}]}]}
    (tmp_path / "test.yml").write_text(yaml.safe_dump(test), encoding="utf-8")
    done = subprocess.run(["promtool", "test", "rules", str(tmp_path / "test.yml")], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_status_that_contradicts_the_registry_is_a_finding(project):
    """customers 2.0.0 is active in the registry; a file of it saying `retired` (a state it has not been in) carries the
    contradiction as a lifecycle note, and the outcome stays the checks'."""
    (project / "contradicting.yaml").write_text(CONTRACT.format(id="customers", version="2.0.0").replace("status: active", "status: retired"),
                                                encoding="utf-8")
    result = run(project, "contradicting.yaml", "--output", "json")
    assert result.exit_code == 0, result.output
    verdict = json.loads(result.stdout)
    assert verdict["outcome"] == "passed" and verdict["lifecycle"]["state"] == "active"
    assert verdict["lifecycle"]["contradiction"] == "the contract's status is retired, but the registry says active: the registry decides"
    plain = run(project, "customers-2.0.0.yaml", "--output", "json")
    assert plain.exit_code == 0 and json.loads(plain.stdout)["lifecycle"] is None
