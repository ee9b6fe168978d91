"""A custom GX rule whose `unexpected_rows_query` names its model by table name (`FROM dim_customer`), as a team's
query does, is bound to the model's batch (GX's `{batch}`), and another model it names to that model's run view, as a
custom Soda check's queries are (tests/test_soda_custom_rules.py): lint accepts it and GX runs it. Each outcome and
count is a plain GX run's of the same expectation in GX's own form (`{batch}` for the model, the other model as a
Spark view of its name) on the same rows; the same expectations imported from a GX suite through `dc-bridge import`
run the same. docs/importing.md, "Queries that name their table"."""

from __future__ import annotations

import json
import textwrap

import pytest
import yaml
from click.testing import CliRunner

import dc_bridge
from dc_bridge.cli import main
from dc_bridge.contract.lint import lint_file
from dc_bridge.engines.gx.translate import bind_gx_query
from tests.plain_engines import plain_gx_batch

# the query as the team wrote it -> the same query in GX's own form, what a plain GX run is given
QUERIES = {
    "names_model": ("SELECT * FROM dim_customer WHERE cars > 5", "SELECT * FROM {batch} WHERE cars > 5"),
    "names_model_aliased": ("SELECT * FROM DIM_CUSTOMER AS c WHERE c.cars > 100", "SELECT * FROM {batch} AS c WHERE c.cars > 100"),
    "joins_other_model": ("SELECT c.* FROM dim_customer c LEFT ANTI JOIN dim_employee e ON c.department = e.department_name",
                          "SELECT c.* FROM {batch} c LEFT ANTI JOIN dim_employee e ON c.department = e.department_name"),
    # GX's doubled braces are literal braces (str.format): kept literal after binding
    "names_model_with_braces": ("SELECT * FROM dim_customer WHERE department RLIKE '^[a-z]{{5}}$'",
                                "SELECT * FROM {batch} WHERE department RLIKE '^[a-z]{{5}}$'"),
    "gx_form": ("SELECT * FROM {batch} WHERE cars > 5", "SELECT * FROM {batch} WHERE cars > 5"),
}
CUSTOMERS = [(1, "sales", 1), (2, "ops", 2), (3, None, 9), (4, "legal", 7)]
EMPLOYEES = [("sales",), ("ops",)]


def contract(queries: dict[str, str]) -> str:
    rules = "".join(f"""
      - type: custom
        engine: great-expectations
        implementation:
          type: unexpected_rows_expectation
          kwargs: {{unexpected_rows_query: {json.dumps(query)}}}""" for query in queries.values())
    return textwrap.dedent("""\
        apiVersion: v3.1.0
        kind: DataContract
        id: urn:test:gx-custom-binding
        version: 1.0.0
        status: active
        schema:
          - name: dim_customer
            properties:
              - {name: id, logicalType: integer}
              - {name: department, logicalType: string}
              - {name: cars, logicalType: integer}
            quality:""") + rules + """
  - name: dim_employee
    properties:
      - {name: department_name, logicalType: string}
"""


@pytest.fixture(scope="module")
def frames(spark):
    customers = spark.createDataFrame(CUSTOMERS, "id int, department string, cars int")
    employees = spark.createDataFrame(EMPLOYEES, "department_name string")
    return customers, employees


@pytest.fixture(scope="module")
def plain(spark, frames):
    """(success, unexpected row count) of each query in GX's own form, from a plain GX run."""
    from great_expectations.expectations import UnexpectedRowsExpectation

    customers, employees = frames
    employees.createOrReplaceTempView("dim_employee")
    try:
        batch = plain_gx_batch(customers)
        results = {name: batch.validate(UnexpectedRowsExpectation(unexpected_rows_query=gx_form))
                   for name, (_, gx_form) in QUERIES.items()}
    finally:
        spark.catalog.dropTempView("dim_employee")
    return {name: (r.success, r.result["observed_value"]) for name, r in results.items()}


def dc_bridge_outcomes(spark, frames, path) -> dict:
    customers, employees = frames
    verdict = dc_bridge.run(str(path), dataframes={"dim_customer": customers, "dim_employee": employees}, spark=spark,
                            engines=["gx"], samples=False)
    return {c.check_id: (c.outcome, c.observed, c.engines["gx"].error) for c in verdict.checks()
            if "quality" in c.check_id}


def test_a_custom_gx_query_naming_its_model_runs_as_gx(spark, frames, plain, tmp_path):
    path = tmp_path / "contract.yaml"
    path.write_text(contract({name: query for name, (query, _) in QUERIES.items()}))
    assert [(f.code, f.message) for f in lint_file(str(path)).findings if f.level == "error"] == []
    got = dc_bridge_outcomes(spark, frames, path)
    expected = {f"dim_customer.quality[{index}]": ("passed" if success else "failed", count, None)
                for index, (success, count) in enumerate(plain[name] for name in QUERIES)}
    assert got == expected
    assert {count for _, count in plain.values()} >= {0, 2}, plain  # the rows make some queries pass and some fail


def test_an_imported_suite_whose_query_names_its_table_runs_as_gx(spark, frames, plain, tmp_path):
    """A kwarg the import has no contract form for keeps an unexpected_rows_expectation a custom GX rule (the rest
    become SQL rules, which name tables as any SQL rule may): GX 1.x takes `description` among its kwargs."""
    suite = {"name": "dim_customer", "expectations": [
        {"type": "unexpected_rows_expectation", "kwargs": {"unexpected_rows_query": query, "description": "from the team's suite"}}
        for query, _ in QUERIES.values()]}
    employee_suite = {"name": "dim_employee", "expectations": [
        {"type": "expect_column_to_exist", "kwargs": {"column": "department_name"}}]}
    (tmp_path / "customers.json").write_text(json.dumps(suite))
    (tmp_path / "employees.json").write_text(json.dumps(employee_suite))
    out = tmp_path / "contract.yaml"
    result = CliRunner().invoke(main, ["import", f"gx:{tmp_path / 'customers.json'}", f"gx:{tmp_path / 'employees.json'}",
                                       "--out", str(out)])
    assert result.exit_code == 0, result.output
    rules = yaml.safe_load(out.read_text())["schema"][0]["quality"]
    assert [rule["type"] for rule in rules] == ["custom"] * len(QUERIES)
    got = dc_bridge_outcomes(spark, frames, out)
    expected = {f"dim_customer.quality[{index}]": ("passed" if success else "failed", count, None)
                for index, (success, count) in enumerate(plain[name] for name in QUERIES)}
    assert got == expected


def test_what_the_binding_leaves_as_written(tmp_path):
    """A query naming no model, a format field other than `{batch}` (GX's error), and a query that is no read-only
    SELECT (lint's DCB170/171) reach GX as written; a model named inside a `row_condition` (an expression, which the
    translation does not bind, as a Soda `fail condition`) stays refused by lint."""
    targets = {"dim_customer": "__dc_bridge_table__"}
    for query in ("SELECT * FROM {batch} WHERE cars > 5", "SELECT * FROM somewhere_else", "SELECT * FROM dim_customer WHERE x = {y}",
                  "DELETE FROM dim_customer"):
        assert bind_gx_query(query, targets) == query
    assert bind_gx_query("SELECT * FROM dim_customer", targets) == "SELECT * FROM {batch}"
    path = tmp_path / "contract.yaml"
    text = contract({"in_condition": "SELECT * FROM {batch}"}).replace(
        "kwargs: {unexpected_rows_query: \"SELECT * FROM {batch}\"}",
        "kwargs: {unexpected_rows_query: \"SELECT * FROM {batch}\", row_condition: \"department IN (SELECT department_name "
        "FROM dim_employee)\", condition_parser: spark}")
    path.write_text(text)
    errors = [f.message for f in lint_file(str(path)).findings if f.level == "error"]
    assert len(errors) == 1 and "row_condition" in errors[0] and "dim_employee" in errors[0], errors
