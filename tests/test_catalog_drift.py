"""`dc-bridge drift --catalog iceberg`: the contract against an Iceberg table's schema, read from its metadata by
pyiceberg on a real SQL catalog (SQLite, temporary warehouse); no Spark starts.

Seed 003, user story 5: a type mismatch, a missing column, an extra column (info), a table that does not
exist yet (info, skipped); nested structs, lists and maps compared at any depth.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from dc_bridge.cli import main

NS = "sales.customer_360"
CONTRACT = """\
apiVersion: v3.1.0
kind: DataContract
id: customers
name: Customers
version: 1.0.0
status: active
schema:
  - name: customers
    properties:
      - name: customer_id
        logicalType: string
        required: true
      - name: email
        logicalType: string
        required: true
      - name: address
        logicalType: object
        properties:
          - name: city
            logicalType: string
          - name: zip
            logicalType: integer
      - name: tags
        logicalType: array
        items:
          logicalType: string
      - name: scores
        physicalType: map<string,double>
      - name: balance
        physicalType: decimal(10,2)
      - name: updated_at
        logicalType: timestamp
  - name: orders
    properties:
      - name: order_id
        logicalType: string
"""


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "customers.yaml").write_text(CONTRACT, encoding="utf-8")
    return tmp_path


def catalog(folder: Path):
    from pyiceberg.catalog.sql import SqlCatalog

    base = folder / ".dc-bridge" / "iceberg"
    (base / "warehouse").mkdir(parents=True, exist_ok=True)
    return SqlCatalog("dc-bridge", uri=f"sqlite:///{base / 'catalog.db'}", warehouse=(base / "warehouse").as_uri())


def customers_table(folder: Path, customer_id=None, with_email=True, extra=False, zip_type=None):
    from pyiceberg.schema import Schema
    from pyiceberg.types import (
        DecimalType, DoubleType, IntegerType, ListType, LongType, MapType, NestedField, StringType, StructType, TimestamptzType,
    )

    fields = [NestedField(1, "customer_id", customer_id or StringType(), required=True)]
    if with_email:
        fields.append(NestedField(2, "email", StringType(), required=True))
    fields += [
        NestedField(3, "address", StructType(NestedField(10, "city", StringType()), NestedField(11, "zip", zip_type or IntegerType()))),
        NestedField(4, "tags", ListType(12, StringType(), element_required=False)),
        NestedField(5, "scores", MapType(13, StringType(), 14, DoubleType(), value_required=False)),
        NestedField(6, "balance", DecimalType(10, 2)),
        NestedField(7, "updated_at", TimestamptzType()),
    ]
    if extra:
        fields.append(NestedField(8, "loyalty_tier", LongType()))
    lake = catalog(folder)
    lake.create_namespace_if_not_exists(NS)
    lake.create_table(f"{NS}.customers", schema=Schema(*fields))


def drift(*extra: str):
    return CliRunner().invoke(main, ["drift", "customers.yaml", "--catalog", "iceberg", "--namespace", NS, "--format", "json", *extra])


def found(result) -> list[tuple[str, str, str]]:
    return [(f["code"], f["severity"], f["message"]) for f in json.loads(result.stdout)["findings"]]


def label(folder: Path) -> str:
    return f"iceberg ({folder / '.dc-bridge' / 'iceberg' / 'catalog.db'})"


def test_matching_table_has_no_drift_and_a_missing_table_is_info(project):
    customers_table(project)
    result = drift()
    assert result.exit_code == 0, result.output
    assert found(result) == [("DCB304", "info", f"table `sales.customer_360.orders` of model `orders` does not exist in {label(project)} "
                                                f"yet; its drift check is skipped (the first run creates it); tables in {NS}: customers")]


def test_type_mismatch_missing_column_and_extra_column(project):
    from pyiceberg.types import LongType, StringType

    customers_table(project, customer_id=LongType(), with_email=False, extra=True, zip_type=StringType())
    result = drift()
    assert result.exit_code == 1, result.output
    assert sorted(found(result)) == [
        ("DCB300", "error", "`customers.email` is not in the data"),
        ("DCB301", "error", "`customers.address.zip` is string in the data; the contract allows int or smallint or tinyint"),
        ("DCB301", "error", "`customers.customer_id` is bigint in the data; the contract allows string or varchar or char"),
        ("DCB302", "info", "`customers.loyalty_tier` (bigint) is in the data but not in the contract"),
        ("DCB304", "info", f"table `sales.customer_360.orders` of model `orders` does not exist in {label(project)} yet; "
                           f"its drift check is skipped (the first run creates it); tables in {NS}: customers"),
    ]
    strict = drift("--strict")
    assert ("DCB302", "error") in [(code, severity) for code, severity, _ in found(strict)]
    warned = drift("--enforce", "drift=warn")
    assert warned.exit_code == 0
    assert {severity for code, severity, _ in found(warned) if code in ("DCB300", "DCB301")} == {"warning"}


def test_no_table_at_all_is_info_only(project):
    result = drift()
    assert result.exit_code == 0, result.output
    assert [code for code, _, _ in found(result)] == ["DCB304", "DCB304"]


def test_iceberg_types_as_spark_reads_them():
    from pyiceberg.types import (
        BinaryType, FixedType, ListType, MapType, NestedField, StringType, StructType, TimestampType, TimestamptzType, UUIDType,
    )

    from dc_bridge.catalog.iceberg import spark_type

    struct = StructType(NestedField(1, "a", TimestampType()), NestedField(2, "b", TimestamptzType()), NestedField(3, "c", UUIDType()),
                        NestedField(4, "d", FixedType(16)), NestedField(5, "e", BinaryType()),
                        NestedField(6, "f", ListType(7, MapType(8, StringType(), 9, StructType(NestedField(10, "g", StringType()))))))
    assert spark_type(struct).simpleString() == \
        "struct<a:timestamp_ntz,b:timestamp,c:string,d:binary,e:binary,f:array<map<string,struct<g:string>>>>"


def test_an_unreachable_catalog_is_exit_2(project, monkeypatch):
    monkeypatch.setenv("PYICEBERG_CATALOG__DOWN__URI", "http://127.0.0.1:9")
    result = CliRunner().invoke(main, ["drift", "customers.yaml", "--catalog", "iceberg:down", "--namespace", NS])
    assert result.exit_code == 2
    assert "the catalog cannot be reached" in result.output
