"""A run that ends without a verdict of its own checks says so in every channel, under the contract's own id (issue 48,
class 1; docs/monitoring.md, docs/history.md, docs/catalogs.md).

One project with an embedded Iceberg catalog (a real SQLite file) holds a registered contract that passes. Run by
`run --registered` with every channel on (the JSON report in a file, a real SQLite history, the textfile metrics, a real
Pushgateway where installed, OpenLineage through its file transport), it passes; then its stored text is edited, and
the refused run must replace the good word everywhere: exit 2, the JSON verdict, the metrics under `contract="ID"` at
its version (no `NS/ID@VERSION` group, no `dc_bridge_last_success_timestamp_seconds`), the history's newest run an
`error` with the reason, the site's overview failing, and a FAIL lineage event named by the id. The same table of ends
for contract files (lint errors, data not there, two contracts of one id): each a record in the history and an error
in the metrics under its id, the report file rewritten rather than left at the last good run's."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner
from prometheus_client.parser import text_string_to_metric_families

from dc_bridge.cli import main
from dc_bridge.outcomes import ALL

from tests.test_metrics import need, pushed, pushgateway

NS = "sales.channels"
CONTRACT = """\
apiVersion: v3.1.0
kind: DataContract
id: {id}
version: {version}
status: active
servers:
  - server: local
    type: local
    format: csv
    path: {path}
schema:
  - name: things
    properties:
      - name: id
        logicalType: integer
        required: true
        quality:
          - metric: duplicateValues
            mustBe: 0
"""
# a second property of the same name: a lint error that stops the run (DCB103), the contract's id still read
TWICE = "      - name: id\n        logicalType: integer\n"


def samples(text: str) -> list:
    return [s for family in text_string_to_metric_families(text) for s in family.samples]


def contract_outcomes(found: list) -> dict[tuple[str, str], str]:
    """(contract, version) -> the outcome its `dc_bridge_contract_outcome` says (the one at 1)."""
    return {(s.labels["contract"], s.labels["version"]): s.labels["outcome"] for s in found
            if s.name == "dc_bridge_contract_outcome" and s.value == 1}


def succeeded(found: list) -> set[tuple[str, str]]:
    return {(s.labels["contract"], s.labels["version"]) for s in found if s.name == "dc_bridge_last_success_timestamp_seconds"}


def newest_runs(history: Path) -> dict[str, tuple[str, str, str | None]]:
    """contract id -> (version, outcome, reason) of its newest run in the SQLite store."""
    with sqlite3.connect(history) as db:
        rows = db.execute("SELECT contract_id, contract_version, outcome, reason FROM runs ORDER BY run_at_us, rowid").fetchall()
    return {contract_id: (version, outcome, reason) for contract_id, version, outcome, reason in rows}


def lineage(folder: Path) -> list[dict]:
    return [json.loads(line) for file in sorted(folder.glob("*")) for line in file.read_text().splitlines() if line.strip()]


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A project with its embedded catalog, `good` registered in NS, and OpenLineage's file transport configured."""
    import os

    (tmp_path / "dc-bridge.toml").write_text(f'catalog = "iceberg"\nnamespace = "{NS}"\n', encoding="utf-8")
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "good.csv").write_text("id\n1\n2\n", encoding="utf-8")
    (tmp_path / "good.yaml").write_text(CONTRACT.format(id="good", version="1.0.0", path="data/good.csv"), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    for name in list(os.environ):
        if name.startswith("OPENLINEAGE"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "lineage").mkdir()
    monkeypatch.setenv("OPENLINEAGE__TRANSPORT__TYPE", "file")
    monkeypatch.setenv("OPENLINEAGE__TRANSPORT__LOG_FILE_PATH", str(tmp_path / "lineage" / "events"))
    monkeypatch.setenv("OPENLINEAGE__TRANSPORT__APPEND", "true")
    registered = CliRunner().invoke(main, ["register", "good.yaml"])
    assert registered.exit_code == 0, registered.output
    return tmp_path


def test_a_refused_registered_text_replaces_the_last_good_word_in_every_channel(spark, project):
    need_gateway = __import__("shutil").which("prometheus-pushgateway") is not None
    with (pushgateway(project) if need_gateway else _nothing()) as gateway:
        def run(*args: str):
            push = ["--metrics-push", gateway] if gateway else []
            return CliRunner().invoke(main, ["run", "--registered", "--engines", "spark", "--no-samples", "--output", "json",
                                             "--output-file", "report.json", "--history", "history.db", "--metrics-file", "m.prom",
                                             "--openlineage", *push, *args], catch_exceptions=False)

        good = run()
        assert good.exit_code == 0, good.output
        assert contract_outcomes(samples((project / "m.prom").read_text())) == {("good", "1.0.0"): "passed"}
        assert succeeded(samples((project / "m.prom").read_text())) == {("good", "1.0.0")}

        stored = next((project / ".dc-bridge").rglob("good*.yaml"))
        stored.write_text(stored.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
        refused = run()
        assert refused.exit_code == 2, refused.output
        assert "is not the registered text" in refused.output
        # the JSON verdict: the contract's id and version, the reason
        [verdict] = json.loads((project / "report.json").read_text())
        assert (verdict["contract_id"], verdict["contract_version"], verdict["outcome"]) == ("good", "1.0.0", "error")
        assert verdict["contract_file"] == f"{NS}/good@1.0.0" and verdict["error"].startswith("refused: ")
        assert verdict["started_at"]
        # the metrics file: the contract's own group says error, nothing under the label, no success time
        found = samples((project / "m.prom").read_text())
        assert contract_outcomes(found) == {("good", "1.0.0"): "error"}, (project / "m.prom").read_text()
        assert not succeeded(found) and not any("@" in s.labels.get("contract", "") for s in found)
        # the Pushgateway: the group `good` replaced, no other group made
        if gateway:
            on_gateway = pushed(gateway)
            assert contract_outcomes(on_gateway) == {("good", "1.0.0"): "error"}
            assert not succeeded(on_gateway)
    # the history: the refused run recorded under the id, with why
    assert newest_runs(project / "history.db")["good"][:2] == ("1.0.0", "error")
    assert "is not the registered text" in newest_runs(project / "history.db")["good"][2]
    # the site built from it: the contract is failing, not passing
    site = CliRunner().invoke(main, ["site", "--history", "history.db", "--out", "site"])
    assert site.exit_code == 0, site.output
    index = (project / "site" / "index.html").read_text(encoding="utf-8")
    assert re.search(r'data-contract="good"[^>]*data-state="failing"|data-state="failing"[^>]*data-contract="good"', index), index
    # OpenLineage: the second event a FAIL of the job `good`, with the reason
    events = lineage(project / "lineage")
    assert [(e["eventType"], e["job"]["name"]) for e in events] == [("COMPLETE", "good"), ("FAIL", "good")]
    assert "is not the registered text" in events[1]["run"]["facets"]["errorMessage"]["message"]


class _nothing:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def test_every_end_without_a_verdict_is_said_under_the_contracts_id(spark, tmp_path, monkeypatch):
    """Files: a contract with lint errors, one whose data is not there, two of one id. Each alone replaces the JSON report
    and the metrics file of the last good run, and each is a run of its id in the history."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ok.csv").write_text("id\n1\n", encoding="utf-8")
    (tmp_path / "other.csv").write_text("id\n1\n", encoding="utf-8")
    good = CONTRACT.format(id="orders", version="2.0.0", path="ok.csv")
    ends = {
        # name: (files written, the id and version it is named by, what its reason says)
        "lint errors": ({"c.yaml": good + TWICE}, ("orders", "2.0.0"),
                        "the contract has errors"),
        "data not there": ({"c.yaml": good.replace("ok.csv", "gone.csv")}, ("orders", "2.0.0"), "gone.csv does not exist"),
        "two of one id": ({"c.yaml": good, "d.yaml": good.replace("ok.csv", "other.csv")}, ("orders", "2.0.0"),
                          "2 contracts of this run have the id 'orders'"),
    }
    for name, (files, (contract_id, version), said) in ends.items():
        for file in ("c.yaml", "d.yaml"):
            (tmp_path / file).unlink(missing_ok=True)
        (tmp_path / "c.yaml").write_text(good, encoding="utf-8")
        first = CliRunner().invoke(main, ["run", "c.yaml", "--engines", "spark", "--output", "json", "--output-file", "r.json",
                                          "--metrics-file", "m.prom", "--history", "h.db"], catch_exceptions=False)
        assert first.exit_code == 0, first.output
        for file, text in files.items():
            (tmp_path / file).write_text(text, encoding="utf-8")
        result = CliRunner().invoke(main, ["run", *files, "--engines", "spark", "--output", "json", "--output-file", "r.json",
                                           "--metrics-file", "m.prom", "--history", "h.db"], catch_exceptions=False)
        assert result.exit_code == 2, (name, result.output)
        report = json.loads((tmp_path / "r.json").read_text())
        report = report if isinstance(report, list) else [report]
        assert {(v["contract_id"], v["contract_version"], v["outcome"]) for v in report} == {(contract_id, version, "error")}, name
        assert all(said in v["error"] for v in report), (name, report)
        found = samples((tmp_path / "m.prom").read_text())
        assert contract_outcomes(found) == {(contract_id, version): "error"}, (name, (tmp_path / "m.prom").read_text())
        assert not succeeded(found), name
        assert {s.labels["outcome"]: s.value for s in found if s.name == "dc_bridge_contract_outcome"} == {o: float(o == "error") for o in ALL}
        assert newest_runs(tmp_path / "h.db")[contract_id][:2] == (version, "error"), name
        assert said in newest_runs(tmp_path / "h.db")[contract_id][2], name


def test_the_python_api_publishes_and_records_the_error_it_raises(tmp_path):
    """dc_bridge.run raises ContractError as always, after the history and the metrics file said `error` under the id."""
    import dc_bridge
    from dc_bridge.compiler import ContractError

    contract = tmp_path / "c.yaml"
    contract.write_text(CONTRACT.format(id="api", version="3.1.0", path="x.csv") + TWICE, encoding="utf-8")
    with pytest.raises(ContractError):
        dc_bridge.run(contract, history=tmp_path / "h.db", metrics_file=tmp_path / "m.prom")
    assert contract_outcomes(samples((tmp_path / "m.prom").read_text())) == {("api", "3.1.0"): "error"}
    assert newest_runs(tmp_path / "h.db")["api"][:2] == ("3.1.0", "error")


def test_a_streaming_batch_without_a_verdict_publishes_its_error(spark, tmp_path):
    """The streaming guard: a batch whose contract is in error stops the query, and its metrics say `error` under the
    contract's id first (the previous batch's word would otherwise stand)."""
    from pyspark.errors import StreamingQueryException

    import dc_bridge

    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "000.json").write_text('{"id": 1}\n', encoding="utf-8")
    (tmp_path / "c.yaml").write_text(CONTRACT.format(id="streamed", version="4.0.0", path="x.csv").replace("things", "orders") + TWICE,
                                     encoding="utf-8")
    guard = dc_bridge.streaming.guard(tmp_path / "c.yaml", "orders", sink=str(tmp_path / "sink"), log=str(tmp_path / "log.jsonl"),
                                      metrics_file=str(tmp_path / "m.prom"))
    query = (spark.readStream.schema("id long").json(str(tmp_path / "in")).writeStream.foreachBatch(guard)
             .option("checkpointLocation", str(tmp_path / "checkpoint")).trigger(availableNow=True).start())
    with pytest.raises(StreamingQueryException):
        query.awaitTermination(120)
    assert contract_outcomes(samples((tmp_path / "m.prom").read_text())) == {("streamed", "4.0.0"): "error"}


def test_two_contracts_of_one_id_still_have_their_outputs_checked(tmp_path, monkeypatch):
    """Refused for their shared id, they are still inputs: a report that would replace one is refused before anything runs."""
    monkeypatch.chdir(tmp_path)
    for name in ("c.yaml", "d.yaml"):
        (tmp_path / name).write_text(CONTRACT.format(id="twin", version="1.0.0", path="x.csv"), encoding="utf-8")
    before = (tmp_path / "c.yaml").read_bytes()
    result = CliRunner().invoke(main, ["run", "c.yaml", "d.yaml", "--output", "json", "--output-file", "c.yaml"])
    assert result.exit_code == 2 and "is the contract (c.yaml)" in result.output, result.output
    assert (tmp_path / "c.yaml").read_bytes() == before


def test_a_catalog_table_history_records_a_run_that_stopped_before_spark(spark, tmp_path, monkeypatch):
    """`--history table:db.name` is opened in the run's session, which a contract in error never reached: the record
    is appended through the session all the same (the caller's active one here)."""
    monkeypatch.chdir(tmp_path)
    spark.sql("CREATE DATABASE IF NOT EXISTS unchecked_channels")
    (tmp_path / "c.yaml").write_text(CONTRACT.format(id="tabled", version="5.0.0", path="x.csv") + TWICE, encoding="utf-8")
    result = CliRunner().invoke(main, ["run", "c.yaml", "--history", "table:unchecked_channels.runs"], catch_exceptions=False)
    assert result.exit_code == 2, result.output
    rows = spark.table("unchecked_channels.runs").where("contract_id = 'tabled' AND check_id IS NULL AND metric IS NULL").collect()
    assert [(r.contract_version, r.run_outcome) for r in rows] == [("5.0.0", "error")] and "the contract has errors" in rows[0].reason
