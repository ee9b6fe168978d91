"""Quality SQL checked against the contract's model at lint time (issue 25): a column no model the query reads
declares is DCB175 (a warning: the data may hold more columns than the contract declares) with a "did you
mean"; a table the query may not read is DCB170 (an error, as before) with a "did you mean". Names the query
defines itself are never reported.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from dc_bridge.contract.lint import lint_file

HEAD = """\
dataContractSpecification: 1.1.0
id: urn:datacontract:sql:names
info: {title: names, version: 1.0.0}
models:
  orders:
    fields:
      order_id: {type: string}
      order_total: {type: long}
      Order Date: {type: date}
      customer: {type: object, fields: {city: {type: string}}}
      email: {type: string, config: {sparkType: string}}
  line_items:
    fields:
      order_id: {type: string}
      sku: {type: string}
"""


def lint_query(tmp_path: Path, query: str, field: bool = False):
    rule = f"        - type: sql\n          query: \"{query}\"\n          mustBe: 0\n"
    if field:
        text = HEAD.replace("      order_total: {type: long}\n", "      order_total:\n        type: long\n        quality:\n"
                            + rule.replace("        - ", "          - ").replace("          query", "            query")
                            .replace("          mustBe", "            mustBe"))
    else:
        text = HEAD.replace("  line_items:\n", "    quality:\n" + rule.replace("        - ", "      - ").replace("          ", "        ")
                            + "  line_items:\n")
    path = tmp_path / "contract.yaml"
    path.write_text(text, encoding="utf-8")
    return [(f.code, f.level, f.message) for f in lint_file(path).findings if f.code in ("DCB170", "DCB175")]


@pytest.mark.parametrize("query, expected", [
    ("SELECT COUNT(*) FROM {model} WHERE order_totl < 0",
     [("DCB175", "warning", "the query names the column `order_totl`, which `orders` does not declare; did you mean `order_total`?")]),
    ("SELECT COUNT(*) FROM orders o JOIN line_items l ON o.order_id = l.order_ids",
     [("DCB175", "warning", "the query names the column `order_ids`, which `line_items` does not declare; did you mean `order_id`?")]),
    ("SELECT COUNT(*) FROM orders o JOIN line_items l ON o.order_id = l.order_id WHERE skus IS NULL",
     [("DCB175", "warning", "the query names the column `skus`, which none of `orders`, `line_items` declares; did you mean `sku`?")]),
    ("SELECT COUNT(*) FROM {model} WHERE amount > 0",
     [("DCB175", "warning", "the query names the column `amount`, which `orders` does not declare")]),
    ("SELECT COUNT(*) FROM ordrs",
     [("DCB170", "error", "the SQL reads `ordrs`, which is not a table it may read; it may read its model `orders` (or {model}) "
                           "and the contract's other models, `line_items`, by name or physical name; did you mean `orders`?")]),
], ids=["typo", "joined_model", "either_model", "no_close_name", "table_typo"])
def test_names_the_model_does_not_declare(tmp_path, query, expected):
    assert lint_query(tmp_path, query) == expected


@pytest.mark.parametrize("query", [
    "SELECT COUNT(*) AS n FROM {model} HAVING n > 0",  # a SELECT alias
    "SELECT COUNT(*) FROM {model} WHERE ORDER_TOTAL < 0 AND `Order Date` IS NULL",  # case, a quoted name with a space
    "SELECT COUNT(*) FROM {model} WHERE customer.city = 'Berlin'",  # a field of a struct column
    "WITH t AS (SELECT order_id AS oid FROM {model}) SELECT COUNT(*) FROM t WHERE t.oid IS NULL",  # a CTE's columns
    "WITH t (a, b) AS (SELECT order_id, order_total FROM {model}) SELECT COUNT(*) FROM t WHERE a IS NULL AND b < 0",
    "SELECT COUNT(*) FROM (SELECT order_id AS x FROM {model}) s WHERE s.x IS NULL",  # a subquery's columns
    "SELECT COUNT(*) FROM {model} WHERE exists(array(order_total), v -> v < 0)",  # a lambda variable
    "SELECT COUNT(*) FROM {model} o WHERE NOT EXISTS (SELECT 1 FROM line_items l WHERE l.order_id = o.order_id)",
], ids=["alias", "case_and_quotes", "struct_field", "cte", "cte_columns", "subquery", "lambda", "correlated"])
def test_names_the_query_defines_or_the_model_declares_are_not_reported(tmp_path, query):
    assert lint_query(tmp_path, query) == []


def test_the_field_placeholder_is_the_field(tmp_path):
    assert lint_query(tmp_path, "SELECT COUNT(*) FROM {model} WHERE {field} < 0", field=True) == []
    assert lint_query(tmp_path, "SELECT COUNT(*) FROM {model} WHERE {field} < totl", field=True) == [
        ("DCB175", "warning", "the query names the column `totl`, which `orders` does not declare")]


def test_bundled_contracts_name_only_declared_columns():
    bundled = sorted((Path(__file__).resolve().parent.parent / "contracts").glob("*.yaml"))
    assert [(p.name, f.path, f.message) for p in bundled for f in lint_file(p).findings if f.code == "DCB175"] == []
