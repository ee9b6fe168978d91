"""The bundled example contracts load into the normalised model exactly as their files say."""

from datetime import timedelta
from pathlib import Path

import pytest

from dc_bridge.contract.reading.load import load_contract
from dc_bridge.contract.model import Threshold

CONTRACTS = Path(__file__).resolve().parent.parent / "contracts"


def load(name):
    result = load_contract(CONTRACTS / name)
    assert result.contract is not None, [f.message for f in result.findings]
    assert not result.errors, [f"{f.code} {f.path}: {f.message}" for f in result.errors]
    return result.contract


def fields(model):
    return {f.name: f for f in model.fields}


def test_orders_dcs_contract():
    contract = load("orders.yaml")
    assert (contract.id, contract.version, contract.format, contract.spec_version) == (
        "urn:datacontract:checkout:orders-latest", "1.0.0", "dcs", "1.1.0")
    assert (contract.title, contract.owner) == ("Orders Latest", "Checkout Team")
    assert [(s.name, s.type, s.format) for s in contract.servers] == [("production", "s3", "json"), ("local", "local", "csv")]
    assert [m.name for m in contract.models] == ["orders", "line_items"]

    orders = contract.model("orders")
    assert orders.primary_key == ("order_id",)
    f = fields(orders)
    assert list(f) == ["order_id", "order_timestamp", "order_total", "customer_id", "customer_email_address", "processed_timestamp"]
    # order_id inherits type, format, pii and classification from #/definitions/order_id
    order_id = f["order_id"]
    assert (order_id.ref, order_id.logical_type, order_id.format, order_id.pii, order_id.classification) == (
        "#/definitions/order_id", "string", "uuid", True, "restricted")
    assert (order_id.required, order_id.unique, order_id.primary_key) == (True, True, True)
    assert (f["order_total"].logical_type, f["order_timestamp"].logical_type) == ("long", "timestamp")
    assert (f["customer_id"].min_length, f["customer_id"].max_length, f["customer_id"].required) == (10, 20, False)
    email = f["customer_email_address"]
    assert (email.format, email.pii, email.classification, email.required) == ("email", True, "sensitive", True)
    assert [r.type for r in email.quality] == ["text"]

    percentile = f["order_total"].quality[0]
    assert percentile.type == "sql" and "percentile(order_total, 0.95)" in percentile.query
    # DCS mustBeBetween includes its bounds
    assert percentile.threshold == Threshold(operator="between", low=1000, high=49900, low_inclusive=True, high_inclusive=True)
    gap, count = orders.quality
    assert gap.threshold == Threshold(operator="<", value=3600)
    assert count.threshold == Threshold(operator=">", value=5)
    assert gap.source.file.endswith("orders.yaml") and gap.source.path == "models.orders.quality[0]" and gap.source.line

    line_items = contract.model("line_items")
    assert line_items.primary_key == ("order_id", "line_item_id")
    sku = fields(line_items)["sku"]
    assert (sku.ref, sku.pattern, sku.logical_type) == ("#/definitions/sku", "^[A-Za-z0-9]{8,14}$", "string")
    [key] = line_items.foreign_keys
    assert (key.columns, key.to_model, key.to_columns) == (("order_id",), "orders", ("order_id",))

    levels = {s.kind: s for s in contract.service_levels}
    assert (levels["freshness"].threshold, levels["freshness"].model, levels["freshness"].field) == (
        timedelta(hours=25), "orders", "order_timestamp")
    latency = levels["latency"]
    assert (latency.threshold, latency.field, latency.source_field) == (timedelta(hours=25), "processed_timestamp", "order_timestamp")
    assert levels["retention"].threshold == timedelta(days=365) and levels["retention"].field is None


def test_letters_to_santa_odcs_contract():
    contract = load("letters_to_santa.yaml")
    assert (contract.id, contract.version, contract.format, contract.spec_version, contract.title) == (
        "DC-0001", "0.1.0", "odcs", "3.0.0", "Letters to Santa")
    [model] = contract.models
    assert (model.name, model.physical_name) == ("letters_to_santa", "santa_service_requests")
    f = fields(model)
    assert list(f) == ["DATE", "NAME", "UPRN", "ADDRESS", "D.O.B", "INTERESTS/0", "INTERESTS/1", "INTERESTS/2",
                       "MERITS/0", "DEMERITS/0", "LETTER"]
    assert all(field.required for field in f.values())
    assert (f["DATE"].logical_type, f["DATE"].physical_type, f["DATE"].classification) == ("date", "DATE", "public")
    assert (f["NAME"].classification, f["LETTER"].classification) == ("confidential", "restricted")
    # the old `rule: nullCheck` is the library metric nullValues with the default threshold "= 0"
    null_check, sql = f["DATE"].quality
    assert (null_check.type, null_check.metric, null_check.threshold, null_check.dimension) == (
        "library", "nullValues", Threshold(operator="=", value=0), "completeness")
    assert sql.type == "sql" and "${table}" in sql.query
    # mustBeGreaterThan + mustBeLessThan together: one exclusive range
    assert sql.threshold == Threshold(operator="between", low=0, high=6500000000, low_inclusive=False, high_inclusive=False)
    [latency] = contract.service_levels
    assert (latency.kind, latency.threshold, latency.model, latency.field) == ("latency", timedelta(hours=24), "letters_to_santa", "DATE")


def test_retail_pos_contract_with_ids_relationships_and_imports():
    contract = load("retail_pos.yaml")
    assert (contract.id, contract.spec_version, contract.owner) == ("retail-pos-system", "3.1.0", "retail-data-platform")
    assert [(m.name, m.id) for m in contract.models] == [
        ("customers", "customers_tbl"), ("categories", "categories_tbl"), ("products", "products_tbl"),
        ("orders", "orders_tbl"), ("order_items", "order_items_tbl"), ("product_reviews", "reviews_tbl")]
    assert contract.model("categories").physical_name == "product_categories"
    keys = {(m.name, k.columns): (k.to_model, k.to_columns) for m in contract.models for k in m.foreign_keys}
    assert keys == {
        ("categories", ("parent_category_id",)): ("categories", ("category_id",)),  # self reference
        ("products", ("category_id",)): ("categories", ("category_id",)),
        ("orders", ("customer_id",)): ("customers", ("customer_id",)),
        ("order_items", ("order_id",)): ("orders", ("order_id",)),  # schema level, from/to by id
        ("order_items", ("product_id",)): ("products", ("product_id",)),
        ("product_reviews", ("customer_id",)): ("customers", ("customer_id",)),
        ("product_reviews", ("product_id",)): ("products", ("product_id",)),
    }
    assert [r.to for r in contract.model("order_items").relates_to] == [
        ("schema/products_tbl/properties/prod_price",),
        ("schema/order_items_tbl/properties/item_quantity", "schema/order_items_tbl/properties/item_unit_price")]
    rules = {(m.name, f.name if f else None, r.id): r for m, f, r in contract.quality_rules()}
    assert set(rules) == {
        ("customers", "customer_id", "cust_id_not_null"), ("customers", "email", "email_format"),
        ("customers", "email", "email_validation"), ("products", "unit_price", "price_positive"),
        ("order_items", "quantity", "qty_positive"), ("product_reviews", "rating", "rating_range")}
    imported = rules[("customers", "email", "email_validation")]
    assert imported.imported_from == "common-quality-rules.yaml#quality.email_validation"
    assert imported.source.file.endswith("common-quality-rules.yaml")  # messages point at the library
    assert rules[("product_reviews", "rating", "rating_range")].arguments == {"validValues": [1, 2, 3, 4, 5]}
    objectives = {o.id: o.rule_ids for o in contract.quality_objectives}
    assert objectives["slo_product_pricing_validity"] == ("price_positive",)
    assert len(objectives["slo_overall_data_quality"]) == 5
    levels = {s.kind: s for s in contract.service_levels}
    assert (levels["retention"].threshold, levels["retention"].field) == (timedelta(days=7 * 365), "order_date")
    assert levels["latency"].threshold == timedelta(minutes=5)


def test_library_imports_and_composite_foreign_key():
    customers = load("customer_master.yaml").model("customers")
    assert [(f.name, [r.id for r in f.quality]) for f in customers.fields] == [
        ("email", ["email_validation"]), ("phone", ["phone_us_format"]), ("balance", ["non_negative_amount"])]
    orders = load("multi_tenant_orders.yaml").model("orders")
    [key] = orders.foreign_keys
    assert (key.columns, key.to_model, key.to_columns) == (("tenant_id", "product_id"), "products", ("tenant_id", "product_id"))


@pytest.mark.parametrize("name", sorted(p.name for p in CONTRACTS.glob("*.yaml")))
def test_every_bundled_contract_loads_without_errors(name):
    result = load_contract(CONTRACTS / name)
    assert result.contract is not None and not result.errors
