"""Schema drift on real Spark DataFrames: the contract's schema (DCS and ODCS, nested structs, arrays,
maps) against what the DataFrame actually has. Drift reads only `DataFrame.schema`, so no Spark job
runs here except to write the files the command-line tests read.
"""

from __future__ import annotations

import json
from pathlib import Path
from textwrap import dedent

import pytest
from click.testing import CliRunner

from dc_bridge.cli import main
from dc_bridge.contract.reading.load import load_contract
from dc_bridge.runner.drift import schema_drift

# the data as the producer writes it
DATA = ("order_id string, amount bigint, customer struct<id: string, address: struct<city: string, zip: string>>, "
        "items array<struct<sku: string, qty: int>>, tags array<string>, attributes map<string, int>")
ROW = ("A1", 5, ("C1", ("Berlin", "10115")), [("S1", 2)], ["new"], {"gift": 1})

DCS = """
dataContractSpecification: 1.1.0
id: urn:datacontract:shop:orders
info: {title: Orders, version: 1.0.0}
models:
  orders:
    fields:
      order_id: {type: string, required: true}
      amount: {type: long}
      customer:
        type: object
        fields:
          id: {type: string}
          address:
            type: object
            fields:
              city: {type: string}
              zip: {type: string}
      items:
        type: array
        items:
          type: object
          fields:
            sku: {type: string}
            qty: {type: int}
      tags: {type: array, items: {type: string}}
      attributes: {type: map, keys: {type: string}, values: {type: int}}
"""

ODCS = """
apiVersion: v3.1.0
kind: DataContract
id: urn:datacontract:shop:orders
name: Orders
version: 1.0.0
status: active
schema:
  - name: orders
    properties:
      - {name: order_id, logicalType: string, required: true}
      - {name: amount, logicalType: integer, physicalType: bigint}
      - name: customer
        logicalType: object
        properties:
          - {name: id, logicalType: string}
          - name: address
            logicalType: object
            properties:
              - {name: city, logicalType: string}
              - {name: zip, logicalType: string}
      - name: items
        logicalType: array
        items:
          logicalType: object
          properties:
            - {name: sku, logicalType: string}
            - {name: qty, logicalType: integer}
      - {name: tags, logicalType: array, items: {logicalType: string}}
      - {name: attributes, logicalType: object, physicalType: 'map<string,int>'}
"""


def contract(tmp_path: Path, text: str, name: str = "contract.yaml"):
    path = tmp_path / name
    path.write_text(dedent(text).lstrip(), encoding="utf-8")
    loaded = load_contract(path)
    assert loaded.contract is not None and not [f for f in loaded.findings if f.level == "error"], loaded.findings
    return loaded.contract


@pytest.fixture(scope="module")
def orders(spark):
    return spark.createDataFrame([ROW], DATA)


def frame(spark, ddl: str, row: tuple):
    return spark.createDataFrame([row], ddl)


def summary(findings) -> list[tuple]:
    return [(f.code, f.level, f.message) for f in findings]


@pytest.mark.parametrize("text", [DCS, ODCS], ids=["dcs", "odcs"])
def test_matching_schema_has_no_drift(tmp_path, orders, text):
    assert summary(schema_drift(contract(tmp_path, text), {"orders": orders})) == []


# (what the data does differently: DDL and a row; the findings on the DCS contract)
DRIFTS = [
    ("missing top-level column", DATA.replace("amount bigint, ", ""), ROW[:1] + ROW[2:],
     [("DCB300", "error", "`orders.amount` is not in the data")]),
    ("missing field in a nested struct", DATA.replace(", zip: string", ""), ROW[:2] + (("C1", ("Berlin",)),) + ROW[3:],
     [("DCB300", "error", "`orders.customer.address.zip` is not in the data")]),
    ("type mismatch at the top", DATA.replace("amount bigint", "amount string"), ("A1", "5") + ROW[2:],
     [("DCB301", "error", "`orders.amount` is string in the data; the contract allows bigint or int or smallint or tinyint")]),
    ("type mismatch inside array items", DATA.replace("qty: int", "qty: string"), ROW[:3] + ([("S1", "2")],) + ROW[4:],
     [("DCB301", "error", "`orders.items.items.qty` is string in the data; the contract allows int or smallint or tinyint")]),
    ("array element type", DATA.replace("tags array<string>", "tags array<int>"), ROW[:4] + ([1],) + ROW[5:],
     [("DCB301", "error", "`orders.tags.items` is int in the data; the contract allows string or varchar or char")]),
    ("array where the contract has a struct", DATA.replace("customer struct<id: string, address: struct<city: string, zip: string>>", "customer array<string>"),
     ROW[:2] + (["C1"],) + ROW[3:],
     [("DCB301", "error", "`orders.customer` is array<string> in the data; the contract allows struct")]),
    ("map value type", DATA.replace("map<string, int>", "map<string, string>"), ROW[:5] + ({"gift": "1"},),
     [("DCB301", "error", "`orders.attributes.values` is string in the data; the contract allows int or smallint or tinyint")]),
    ("extra top-level column", DATA + ", note string", ROW + ("x",),
     [("DCB302", "info", "`orders.note` (string) is in the data but not in the contract")]),
    ("extra field in a nested struct", DATA.replace("zip: string>", "zip: string, country: string>"), ROW[:2] + (("C1", ("Berlin", "10115", "DE")),) + ROW[3:],
     [("DCB302", "info", "`orders.customer.address.country` (string) is in the data but not in the contract")]),
    ("extra field inside array items", DATA.replace("qty: int>", "qty: int, price: double>"), ROW[:3] + ([("S1", 2, 1.5)],) + ROW[4:],
     [("DCB302", "info", "`orders.items.items.price` (double) is in the data but not in the contract")]),
    ("column names differ only in case", DATA.replace("order_id", "Order_ID"), ROW, []),
]


@pytest.mark.parametrize(("name", "ddl", "row", "expected"), DRIFTS, ids=[d[0] for d in DRIFTS])
def test_drift(tmp_path, spark, name, ddl, row, expected):
    assert summary(schema_drift(contract(tmp_path, DCS), {"orders": frame(spark, ddl, row)})) == expected


def test_strict_makes_extra_columns_errors(tmp_path, spark):
    df = frame(spark, DATA + ", note string", ROW + ("x",))
    (finding,) = schema_drift(contract(tmp_path, ODCS), {"orders": df}, strict=True)
    assert (finding.code, finding.level, finding.path, finding.line) == ("DCB302", "error", "schema[0]", 8)


def test_findings_point_at_the_field_in_the_contract(tmp_path, spark):
    df = frame(spark, DATA.replace("qty: int", "qty: bigint"), ROW)
    (finding,) = schema_drift(contract(tmp_path, ODCS), {"orders": df})
    assert (finding.code, finding.path, finding.line) == ("DCB301", "schema[0].properties[3].items.properties[1]", 27)
    assert (finding.expected, finding.found) == ("int or smallint or tinyint", "bigint")


def test_physical_type_must_match_exactly(tmp_path, spark):
    text = ODCS.replace("physicalType: bigint}", "physicalType: int}")
    (finding,) = schema_drift(contract(tmp_path, text), {"orders": spark.createDataFrame([ROW], DATA)})
    assert summary([finding]) == [("DCB301", "error", "`orders.amount` is bigint in the data; the contract allows int")]


def test_physical_name_is_the_column(tmp_path, spark):
    text = ODCS.replace("{name: order_id, logicalType: string, required: true}", "{name: order_id, physicalName: id, logicalType: string}")
    df = frame(spark, DATA.replace("order_id string", "id string"), ROW)
    assert summary(schema_drift(contract(tmp_path, text), {"orders": df})) == []


def test_undescribed_struct_is_not_drift(tmp_path, spark):
    text = DCS.split("      customer:")[0] + "      customer: {type: object}\n" + "      items:" + DCS.split("      items:", 1)[1]
    assert summary(schema_drift(contract(tmp_path, text), {"orders": spark.createDataFrame([ROW], DATA)})) == []


def test_model_without_data_is_reported_not_checked(tmp_path):
    (finding,) = schema_drift(contract(tmp_path, DCS), {})
    assert summary([finding]) == [("DCB303", "info", "model `orders` has no data to compare; its schema was not checked")]


# ---------------------------------------------------------------------------------------------
# dc-bridge drift


@pytest.fixture(scope="module")
def parquet(spark, tmp_path_factory):
    """orders written as parquet with a type drift (amount string) and an extra column."""
    path = tmp_path_factory.mktemp("data") / "orders.parquet"
    spark.createDataFrame([("A1", "5") + ROW[2:] + ("x",)], DATA.replace("amount bigint", "amount string") + ", note string") \
        .coalesce(1).write.parquet(str(path))
    return path


def test_cli_drift_reports_and_exits_1(tmp_path, parquet):
    path = tmp_path / "contract.yaml"
    path.write_text(dedent(DCS).lstrip(), encoding="utf-8")
    result = CliRunner().invoke(main, ["drift", str(path), "--data", f"orders={parquet}"])
    assert result.exit_code == 1, result.output
    assert (f"{path}:8: error DCB301 at models.orders.fields.amount: `orders.amount` is string in the data; "
            "the contract allows bigint or int or smallint or tinyint") in result.output
    assert f"{path}:5: info DCB302 at models.orders: `orders.note` (string) is in the data but not in the contract" in result.output
    assert result.output.rstrip().endswith("1 file(s) checked: 1 error(s), 0 warning(s), 1 info")


def test_cli_drift_strict_json_and_sarif(tmp_path, parquet):
    path = tmp_path / "contract.yaml"
    path.write_text(dedent(DCS).lstrip().replace("amount: {type: long}", "amount: {type: string}"), encoding="utf-8")
    lenient = CliRunner().invoke(main, ["drift", str(path), "--data", f"orders={parquet}", "--format", "json"])
    assert lenient.exit_code == 0, lenient.output
    assert [(f["code"], f["severity"]) for f in json.loads(lenient.output)["findings"]] == [("DCB302", "info")]
    strict = CliRunner().invoke(main, ["drift", str(path), "--data", f"orders={parquet}", "--strict", "--format", "sarif"])
    assert strict.exit_code == 1, strict.output
    (result,) = json.loads(strict.output)["runs"][0]["results"]
    assert (result["ruleId"], result["level"]) == ("DCB302", "error")


def test_cli_drift_infers_csv_types_instead_of_imposing_the_contract(tmp_path):
    (tmp_path / "orders.csv").write_text("order_id,amount\nA1,five\n", encoding="utf-8")
    path = tmp_path / "contract.yaml"
    path.write_text(dedent(DCS).lstrip().split("      customer:")[0], encoding="utf-8")
    result = CliRunner().invoke(main, ["drift", str(path), "--data", f"orders={tmp_path / 'orders.csv'}"])
    assert result.exit_code == 1, result.output
    assert "`orders.amount` is string in the data" in result.output


@pytest.mark.parametrize(("args", "message"), [
    (["--data", "nosuchmodel=x.parquet"], "has no model named nosuchmodel"),
    (["--data", "orders=/no/such/dir/orders.parquet"], "cannot read parquet data at /no/such/dir/orders.parquet"),
])
def test_cli_drift_bad_data_exits_2(tmp_path, args, message):
    path = tmp_path / "contract.yaml"
    path.write_text(dedent(DCS).lstrip(), encoding="utf-8")
    result = CliRunner().invoke(main, ["drift", str(path), *args])
    assert result.exit_code == 2, result.output
    assert message in result.output


def test_cli_drift_without_data_or_server_checks_nothing(tmp_path):
    path = tmp_path / "contract.yaml"
    path.write_text(dedent(DCS).lstrip(), encoding="utf-8")
    result = CliRunner().invoke(main, ["drift", str(path)])
    assert result.exit_code == 0, result.output
    assert "info DCB303 at models.orders: model `orders` has no data to compare" in result.output


def test_cli_drift_reads_the_data_as_run_does(tmp_path, spark):
    """A parquet folder whose files have evolving schemas: drift sees every file's columns (merged, as
    `run` reads it), not only the columns of the file Spark happens to sample."""
    evolving = Path(__file__).resolve().parent / "data_reading" / "evolving"
    path = tmp_path / "contract.yaml"
    path.write_text(dedent("""
        dataContractSpecification: 1.1.0
        id: evolving
        info: {title: evolving, version: 1.0.0}
        models:
          items:
            fields:
              id: {type: long}
              name: {type: string}
              legacy: {type: string}
              discount: {type: integer}
    """).lstrip(), encoding="utf-8")
    result = CliRunner().invoke(main, ["drift", str(path), "--data", f"items={evolving}:parquet"])
    assert result.exit_code == 0, result.output
    assert "DCB30" not in result.output, result.output


def test_cli_drift_treats_findings_as_run_does(tmp_path, parquet):
    """Errors of conformance alone (DCB100: a missing ODCS `status`) are no reason to refuse: drift compares, as
    `compile` and `run` go on; an error that changes what runs (DCB104: DCS's `type` in ODCS) is refused, exit 2."""
    path = tmp_path / "contract.yaml"
    conformance_only = dedent(ODCS).lstrip().replace("status: active\n", "")
    path.write_text(conformance_only, encoding="utf-8")
    result = CliRunner().invoke(main, ["drift", str(path), "--data", f"orders={parquet}"])
    assert result.exit_code == 1, result.output  # the drift found (amount is a string in the data), not a refusal
    assert "DCB301" in result.output and "DCB100" not in result.output
    path.write_text(conformance_only.replace("logicalType: string", "type: string", 1), encoding="utf-8")
    result = CliRunner().invoke(main, ["drift", str(path), "--data", f"orders={parquet}"])
    assert result.exit_code == 2, result.output
    assert "DCB104" in result.output and "did you mean `logicalType`" in result.output
