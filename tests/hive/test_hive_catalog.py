"""`--catalog spark` on Spark's built-in Hive support (an embedded Derby metastore, conftest.py): register
into DBPROPERTIES and TBLPROPERTIES, the audit trail, the digest check, check-version against the registered
version (and none registered yet), drift against Hive tables, and init from a Hive table (lint clean, drift clean,
`run` on the table passes).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from dc_bridge.cli import main
from dc_bridge.contract.lint import lint_file

CUSTOMERS = """\
apiVersion: v3.1.0
kind: DataContract
id: customers
name: Customers
version: {version}
status: active
team:
  name: sales-team
schema:
  - name: customers
    properties:
      - name: customer_id
        logicalType: string
        required: true
      - name: email
        logicalType: string
      - name: address
        logicalType: object
        properties:
          - name: city
            logicalType: string
          - name: zip
            logicalType: integer
{more}  - name: orders
    properties:
      - name: order_id
        logicalType: string
"""
PHONE = "      - name: phone\n        logicalType: string\n"


def write(folder: Path, version: str = "1.0.0", more: str = "", name: str = "customers.yaml") -> str:
    path = folder / name
    path.write_text(CUSTOMERS.format(version=version, more=more), encoding="utf-8")
    return str(path)


def invoke(*args: str):
    return CliRunner().invoke(main, list(args))


@pytest.fixture(scope="module")
def tables(spark):
    spark.sql("CREATE DATABASE IF NOT EXISTS sales")
    spark.sql("CREATE TABLE IF NOT EXISTS sales.customers (customer_id BIGINT, address STRUCT<city: STRING, zip: STRING>, "
              "loyalty STRING) USING parquet")
    spark.sql("INSERT INTO sales.customers VALUES (1, named_struct('city', 'Oslo', 'zip', '0150'), 'gold')")
    return spark


def test_register_lists_the_contract_and_tags_its_tables(tables, tmp_path):
    first = invoke("check-version", write(tmp_path), "--against-registered", "--catalog", "spark", "--namespace", "sales")
    assert first.exit_code == 0, first.output  # nothing registered yet: no baseline, the first version is valid
    assert "no version of customers is registered in spark namespace sales" in first.output
    result = invoke("register", write(tmp_path), "--catalog", "spark", "--namespace", "sales")
    assert result.exit_code == 0, result.output
    said = " ".join(result.stdout.split())
    assert "registered customers 1.0.0 (first registration) catalog spark namespace sales" in said
    assert "tables properties set on sales.customers" in said  # sales.orders does not exist
    listed = json.loads(invoke("registrations", "--catalog", "spark", "--namespace", "sales", "--format", "json").stdout)
    assert listed["contracts"]["customers"]["current"] == "1.0.0"
    properties = {row[0]: row[1] for row in tables.sql("SHOW TBLPROPERTIES sales.customers").collect()}
    assert properties["dc-bridge.contract.id"] == "customers" and properties["dc-bridge.contract.version"] == "1.0.0"
    described = " ".join(str(row[1]) for row in tables.sql("DESCRIBE NAMESPACE EXTENDED sales").collect())
    assert "dc-bridge.contract.customers@1.0.0" in described and "dc-bridge.contracts" not in described  # no shared index

    again = invoke("register", write(tmp_path), "--catalog", "spark", "--namespace", "sales")
    assert "nothing changed" in " ".join(again.stdout.split())
    newer = invoke("register", write(tmp_path, "1.1.0", PHONE), "--catalog", "spark", "--namespace", "sales")
    assert newer.exit_code == 0 and "replaces 1.0.0, which stays listed" in " ".join(newer.stdout.split())
    # 1.0.0's text again after 1.1.0: nothing changes, 1.1.0 stays current
    assert "nothing changed" in " ".join(invoke("register", write(tmp_path), "--catalog", "spark", "--namespace", "sales").stdout.split())
    entry = json.loads(invoke("registrations", "--catalog", "spark", "--namespace", "sales", "--format", "json").stdout)["contracts"]["customers"]
    assert entry["current"] == "1.1.0" and [v["version"] for v in entry["versions"]] == ["1.0.0", "1.1.0"]
    assert {row[0]: row[1] for row in tables.sql("SHOW TBLPROPERTIES sales.customers").collect()}["dc-bridge.contract.version"] == "1.1.0"
    # a version below the current one is recorded, and the table keeps the current one's properties
    older = invoke("register", write(tmp_path, "1.0.1", name="older.yaml"), "--catalog", "spark", "--namespace", "sales")
    assert older.exit_code == 0 and "1.1.0 stays current" in " ".join(older.stdout.split()), older.output
    assert {row[0]: row[1] for row in tables.sql("SHOW TBLPROPERTIES sales.customers").collect()}["dc-bridge.contract.version"] == "1.1.0"

    ok = invoke("check-version", write(tmp_path, "1.2.0", PHONE + "      - name: fax\n        logicalType: string\n", "new.yaml"),
                "--against-registered", "--catalog", "spark", "--namespace", "sales")
    assert ok.exit_code == 0 and "MINOR bump: ok" in ok.output, ok.output
    breaking = invoke("check-version", write(tmp_path, "1.2.0", "", "new.yaml"), "--against-registered", "--catalog", "spark",
                      "--namespace", "sales")
    assert breaking.exit_code == 1 and "NOT ENOUGH" in breaking.output, breaking.output


def test_a_tampered_text_in_dbproperties_is_refused(tables, tmp_path):
    import base64

    invoke("register", write(tmp_path, "5.0.0"), "--catalog", "spark", "--namespace", "audit")
    described = " ".join(str(row[1]) for row in tables.sql("DESCRIBE NAMESPACE EXTENDED audit").collect())
    piece = next(part for part in described.split("(") if part.startswith("dc-bridge.text.")).split(",")[0]
    forged = base64.urlsafe_b64encode(b"apiVersion: v3.1.0\n").decode()
    tables.sql(f"ALTER NAMESPACE audit SET DBPROPERTIES ('{piece}' = '{forged}')")
    result = invoke("check-version", write(tmp_path, "5.0.1", "", "new.yaml"), "--against-registered", "--catalog", "spark",
                    "--namespace", "audit")
    assert result.exit_code == 2
    assert "is not the registered text" in result.output


HOSTILE_IDS = ["e.mail", "a b", "a$b#c%d", "a`b", "a'b\"c", "a(b),c", "ünï-cödé", "Customers", "customers", "a", "a@b", "x" * 300]


def test_hostile_contract_ids_in_dbproperties(tables, tmp_path):
    """Ids with quotes, parentheses and commas (which DESCRIBE NAMESPACE's `((key,value), ...)` text cannot delimit),
    that differ only in case, one a prefix of another with `@`, one of 300 characters: each registered, listed with
    its own versions, and each's breaking change compared with its own current version."""
    for n, contract_id in enumerate(HOSTILE_IDS):
        for version, more in (("1.0.0", ""), ("1.1.0", PHONE)):
            text = CUSTOMERS.format(version=version, more=more).replace("id: customers", f"id: {json.dumps(contract_id)}")
            (tmp_path / f"h{n}-{version}.yaml").write_text(text, encoding="utf-8")
            result = invoke("register", str(tmp_path / f"h{n}-{version}.yaml"), "--catalog", "spark", "--namespace", "hostile")
            assert result.exit_code == 0, (contract_id, result.output)
    listed = json.loads(invoke("registrations", "--catalog", "spark", "--namespace", "hostile", "--format", "json").stdout)["contracts"]
    assert sorted(listed) == sorted(HOSTILE_IDS)
    assert all(entry["current"] == "1.1.0" and [(v["id"], v["version"]) for v in entry["versions"]] == [(cid, "1.0.0"), (cid, "1.1.0")]
               for cid, entry in listed.items())
    for n, contract_id in enumerate(HOSTILE_IDS):
        text = CUSTOMERS.format(version="1.1.1", more="").replace("id: customers", f"id: {json.dumps(contract_id)}")
        (tmp_path / "hnew.yaml").write_text(text, encoding="utf-8")
        checked = invoke("check-version", str(tmp_path / "hnew.yaml"), "--against-registered", "--catalog", "spark", "--namespace", "hostile")
        assert checked.exit_code == 1 and "version 1.1.0 -> 1.1.1: PATCH bump: NOT ENOUGH" in checked.stdout, (contract_id, checked.output)


def test_drift_against_hive_tables(tables, tmp_path):
    result = invoke("drift", write(tmp_path), "--catalog", "spark", "--namespace", "sales", "--format", "json")
    assert result.exit_code == 1, result.output
    found = sorted((f["code"], f["message"]) for f in json.loads(result.stdout)["findings"])
    assert found == [
        ("DCB300", "`customers.email` is not in the data"),
        ("DCB301", "`customers.address.zip` is string in the data; the contract allows int or smallint or tinyint"),
        ("DCB301", "`customers.customer_id` is bigint in the data; the contract allows string or varchar or char"),
        ("DCB302", "`customers.loyalty` (string) is in the data but not in the contract"),
        ("DCB304", "table `sales.orders` of model `orders` does not exist in spark yet; its drift check is skipped "
                   "(the first run creates it); tables in sales: customers"),
    ]


def test_init_from_a_hive_table(tables, tmp_path):
    out = tmp_path / "generated.yaml"
    result = invoke("init", "--from", "table:sales.customers", "--out", str(out))
    assert result.exit_code == 0, result.output
    properties = yaml.safe_load(out.read_text(encoding="utf-8"))["schema"][0]["properties"]
    assert [p["name"] for p in properties] == ["customer_id", "address", "loyalty"]
    assert properties[1]["properties"][1] == {"name": "zip", "logicalType": "string", "physicalType": "string"}
    assert [f for f in lint_file(str(out)).findings if f.level == "error"] == []
    drift = invoke("drift", str(out), "--catalog", "spark", "--namespace", "sales")
    assert drift.exit_code == 0 and "0 error(s), 0 warning(s), 0 info" in drift.output, drift.output
    # with the metastore as its server (laid over by --merge), `run` reads the same table, and passes
    (tmp_path / "server.yaml").write_text(METASTORE_SERVER, encoding="utf-8")
    served = tmp_path / "served.yaml"
    merged = invoke("init", "--from", "table:sales.customers", "--merge", str(tmp_path / "server.yaml"), "--out", str(served))
    assert merged.exit_code == 0 and "lint: clean" in merged.output, merged.output
    run = invoke("run", str(served), "--output", "json")
    assert run.exit_code == 0, run.output
    assert json.loads(run.output[run.output.index("{"):])["outcome"] == "passed"


METASTORE_SERVER = """\
apiVersion: v3.1.0
servers:
  - server: metastore
    type: hive
    host: localhost
    database: sales
"""


def test_a_table_tag_holding_spark_variable_syntax_is_stored_as_written(tables, tmp_path):
    """Spark fills in `${env:...}` and `${spark...}` in a statement's text before parsing it (variable substitution):
    a contract id holding it must reach TBLPROPERTIES as written, not as the driver's environment."""
    contract_id = "${env:HOME}-${spark.app.name}"
    text = CUSTOMERS.format(version="1.0.0", more="").replace("id: customers", f"id: {json.dumps(contract_id)}")
    (tmp_path / "substituted.yaml").write_text(text, encoding="utf-8")
    result = invoke("register", str(tmp_path / "substituted.yaml"), "--catalog", "spark", "--namespace", "sales")
    assert result.exit_code == 0, result.output
    tagged = {row[0]: row[1] for row in tables.sql("SHOW TBLPROPERTIES sales.customers").collect()}
    assert tagged["dc-bridge.contract.id"] == contract_id


def test_the_lifecycle_in_dbproperties(tables, tmp_path):
    """Every transition of a version through `--catalog spark` (DBPROPERTIES), with a hostile reason; a refusal that
    writes nothing; the trail read back; the text's status recorded at registration."""
    spark = tables
    where = ("--catalog", "spark", "--namespace", "lifecycle")
    assert invoke("register", write(tmp_path, "1.0.0", name="l1.yaml"), *where).exit_code == 0
    assert invoke("register", write(tmp_path, "2.0.0", name="l2.yaml"), *where).exit_code == 0
    reason = 'moved to "2.0.0"\n${HOME}'
    steps = [("deprecated", ("--sunset", "2099-03-31T18:00:00+02:00", "--successor", "customers@2.0.0", "--reason", reason)),
             ("sunset", ()), ("retired", ())]
    for state, extra in steps:
        moved = invoke("lifecycle", "customers@1.0.0", "--to", state, *extra, *where)
        assert moved.exit_code == 0, moved.output
    before = spark.sql("DESCRIBE NAMESPACE EXTENDED lifecycle").collect()
    backwards = invoke("lifecycle", "customers@1.0.0", "--to", "active", *where)
    assert backwards.exit_code == 2 and "states only move forward" in " ".join(backwards.output.split())
    assert spark.sql("DESCRIBE NAMESPACE EXTENDED lifecycle").collect() == before
    listed = json.loads(invoke("registrations", *where, "--format", "json").stdout)["contracts"]["customers"]
    trail = {v["version"]: v["lifecycle"] for v in listed["versions"]}
    assert [(t["from_state"], t["to"]) for t in trail["1.0.0"]["transitions"]] == [
        (None, "active"), ("active", "deprecated"), ("deprecated", "sunset"), ("sunset", "retired")]
    assert trail["1.0.0"]["transitions"][1]["reason"] == reason and trail["1.0.0"]["sunset"] == "2099-03-31T16:00:00Z"
    assert trail["2.0.0"]["state"] == "active"
