"""`dc-bridge run --registered`: every contract registered in a catalog's namespaces, in one session and one
report. One fleet in an embedded Iceberg catalog holds a contract that passes, one whose data is missing, one
whose stored text was edited after it was registered, one that fails its checks, and one with no server
(whose tables the session cannot reach): every contract runs and says what it should, and the exit code is
the highest. The same fleet `--parallel 2` with GX and Soda gives the same verdicts in the same order. A
contract registered in the Spark catalog without a server is checked against its catalog table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from dc_bridge.cli import main
from dc_bridge.runner.fleet import Tally

NS = "sales.fleet"
CONTRACT = """\
apiVersion: v3.1.0
kind: DataContract
id: {id}
version: 1.0.0
status: active
{servers}schema:
  - name: things
    physicalName: {table}
    properties:
      - name: id
        logicalType: integer
        required: true
        quality:
          - metric: duplicateValues
            mustBe: 0
      - name: amount
        logicalType: number
        quality:
          - type: sql
            query: SELECT COUNT(*) FROM {{object}} WHERE amount < 0
            mustBe: 0
"""
SERVER = "servers:\n  - server: local\n    type: local\n    format: csv\n    path: data/{file}\n"
# id -> (the data file its server names, None: no server; the rows written, None: no file)
FLEET = {
    "good": ("good.csv", "id,amount\n1,2.5\n2,3.0\n"),
    "missing": ("missing.csv", None),
    "tampered": ("good.csv", None),
    "failing": ("failing.csv", "id,amount\n1,2.5\n1,-3.0\n"),
    "tableonly": (None, None),
}


def contract(id: str, file: str | None, table: str = "things") -> str:
    return CONTRACT.format(id=id, table=table, servers=SERVER.format(file=file) if file else "")


def run(*args: str):
    return CliRunner().invoke(main, ["run", *args, "--no-samples", "--output", "json"], catch_exceptions=False)


@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    """A project whose embedded catalog has the five contracts registered in NS, one text edited afterwards."""
    project = tmp_path_factory.mktemp("fleet")
    (project / "dc-bridge.toml").write_text(f'catalog = "iceberg"\nnamespace = "{NS}"\n', encoding="utf-8")
    (project / "data").mkdir()
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(project)
        for id, (file, rows) in FLEET.items():
            if rows is not None:
                (project / "data" / file).write_text(rows, encoding="utf-8")
            (project / f"{id}.yaml").write_text(contract(id, file), encoding="utf-8")
            result = CliRunner().invoke(main, ["register", f"{id}.yaml"])
            assert result.exit_code == 0, result.output
        stored = next((project / ".dc-bridge").rglob("tampered*.yaml"))
        stored.write_text(stored.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    return project


def verdicts(result) -> dict:
    assert result.stdout.strip(), result.output
    return {v["contract_file"]: v for v in json.loads(result.stdout)}


def test_a_fleet_runs_every_contract_and_says_what_each_is(spark, fleet, monkeypatch):
    monkeypatch.chdir(fleet)
    result = run("--registered", "--engines", "spark")
    assert result.exit_code == 2, result.output
    found = verdicts(result)
    # in the order of the ids, each named NS/ID@VERSION
    assert list(found) == [f"{NS}/{id}@1.0.0" for id in sorted(FLEET)]
    outcome = {name.split("/")[1].split("@")[0]: v for name, v in found.items()}
    assert outcome["good"]["outcome"] == "passed" and outcome["good"]["data_sources"]["things"] == str(fleet / "data" / "good.csv")
    assert outcome["failing"]["outcome"] == "failed"
    assert {c["check_id"] for m in outcome["failing"]["models"] for c in m["checks"] if c["outcome"] == "failed"} >= {
        "things.id.duplicate_values"} or any(c["outcome"] == "failed" for m in outcome["failing"]["models"] for c in m["checks"])
    assert outcome["missing"]["outcome"] == "error" and "missing.csv does not exist" in outcome["missing"]["error"]
    # a fleet refuses --data: the hint says what it can do instead (issue 48)
    assert "--data" not in outcome["missing"]["error"] and "read from the project's folder" in outcome["missing"]["error"]
    # a refused text is named by its registered id and version, as its runs are (issue 48)
    assert (outcome["tampered"]["contract_id"], outcome["tampered"]["contract_version"]) == ("tampered", "1.0.0")
    assert outcome["tampered"]["outcome"] == "error" and outcome["tampered"]["error"].startswith("refused: ")
    assert "is not the registered text" in outcome["tampered"]["error"]
    # no server: its table is in the Iceberg catalog, which this session is not configured to read
    assert outcome["tableonly"]["outcome"] == "error"
    assert "spark.sql.catalog.dc_bridge is not set" in outcome["tableonly"]["error"]
    assert "iceberg-spark-runtime" in outcome["tableonly"]["error"]


def test_a_fleet_in_parallel_keeps_the_order_and_the_verdicts(spark, fleet, monkeypatch):
    monkeypatch.chdir(fleet)
    one = verdicts(run("--registered", "--contract", "[fg]*"))
    two = run("--registered", "--contract", "[fg]*", "--parallel", "2")
    assert two.exit_code == 1, two.output
    both = verdicts(two)
    assert list(both) == list(one) == [f"{NS}/failing@1.0.0", f"{NS}/good@1.0.0"]
    for name in both:
        checks = {(c["check_id"], tuple(sorted(c["engines"]))): c["outcome"] for m in both[name]["models"] for c in m["checks"]}
        assert checks == {(c["check_id"], tuple(sorted(c["engines"]))): c["outcome"] for m in one[name]["models"] for c in m["checks"]}
        assert both[name]["engines"] == ["gx", "soda"]


def test_a_spark_catalog_fleet_reads_the_registered_table(spark, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    spark.sql("CREATE NAMESPACE IF NOT EXISTS fleetdb")
    spark.createDataFrame([(1, 2.0), (2, -1.0)], "id int, amount double").write.mode("overwrite").saveAsTable("fleetdb.fleet_things")
    (tmp_path / "c.yaml").write_text(contract("tabled", None, table="fleet_things"), encoding="utf-8")
    registered = CliRunner().invoke(main, ["register", "c.yaml", "--catalog", "spark", "--namespace", "fleetdb"])
    assert registered.exit_code == 0, registered.output
    result = run("--registered", "--catalog", "spark", "--namespace", "fleetdb", "--engines", "spark")
    found = verdicts(result)
    assert list(found) == ["fleetdb/tabled@1.0.0"] and result.exit_code == 1, result.output
    verdict = found["fleetdb/tabled@1.0.0"]
    assert verdict["data_sources"]["things"] == "table:fleetdb.fleet_things"
    failed = [c for m in verdict["models"] for c in m["checks"] if c["outcome"] == "failed"]
    assert len(failed) == 1 and failed[0]["observed"] == 1


def test_nothing_registered_and_a_misspelt_namespace_are_bad_input(fleet, monkeypatch):
    monkeypatch.chdir(fleet)
    result = run("--registered", "--contract", "nothing*")
    assert result.exit_code == 2 and "nothing to run: no contract matching nothing* is registered" in result.output
    result = run("--registered", "--namespace", "sales.flet")
    assert result.exit_code == 2 and "did you mean sales.fleet?" in result.output
    result = run(str(fleet / "good.yaml"), "--namespace", NS)
    assert result.exit_code == 2 and "--namespace belongs to --registered" in result.output


def test_the_progress_line_counts_and_estimates():
    tally = Tally(10, done=4, failed=1, began=0.0)
    line = tally.line()
    assert line.startswith("4 of 10 contracts done, 1 failed, ") and "elapsed, about " in line and line.endswith(" left")
    assert "left" not in Tally(3, done=3, began=0.0).line()
