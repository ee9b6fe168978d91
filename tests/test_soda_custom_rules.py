"""Custom Soda rules evaluate as Soda itself does: Soda's `warn` is a warning (not a failure), and a check
that names its dataset (a query's `FROM dim_customer`, a reference check's other dataset) is bound to the
model's run view instead of being refused (docs/importing-soda.md, "Binding").

One run of one contract with two models holds every case; each expected outcome is what a plain Soda scan
of the same check lines rates (tests/test_import_soda_fidelity.py compares the two on Soda's own examples)."""

from __future__ import annotations

import pytest

import dc_bridge
from dc_bridge.contract.lint import lint_file

CONTRACT = """
apiVersion: v3.1.0
kind: DataContract
id: urn:test:soda-custom
version: 1.0.0
status: active
schema:
  - name: dim_customer
    properties:
      - {name: id, logicalType: integer}
      - {name: department, logicalType: string}
      - {name: cars, logicalType: integer}
    quality:
      - {id: warn_only, type: custom, engine: soda, implementation: "row_count:\\n  warn: when > 3\\n"}
      - {id: warn_and_fail_warns, type: custom, engine: soda, implementation: "row_count:\\n  warn: when > 3\\n  fail: when > 10\\n"}
      - {id: warn_and_fail_fails, type: custom, engine: soda, implementation: "row_count:\\n  warn: when > 1\\n  fail: when > 3\\n"}
      - {id: warn_passes, type: custom, engine: soda, implementation: "row_count:\\n  warn: when > 100\\n"}
      - id: warn_two_lines
        type: custom
        engine: soda
        implementation: "- row_count > 0\\n- missing_count(department):\\n    warn: when > 0\\n"
      - id: fail_query_names_model
        type: custom
        engine: soda
        implementation: "failed rows:\\n  fail query: SELECT * FROM dim_customer WHERE cars > 5\\n"
      - id: fail_query_names_model_warn
        type: custom
        engine: soda
        implementation: "failed rows:\\n  fail query: SELECT * FROM dim_customer WHERE cars > 5\\n  warn: when > 0\\n"
      - id: metric_query_names_model
        type: custom
        engine: soda
        implementation: "avg_cars between 1 and 3:\\n  avg_cars query: SELECT AVG(cars) FROM dim_customer\\n"
      - id: reference_to_other_model
        type: custom
        engine: soda
        implementation: "values in (department) must exist in dim_employee (department_name)"
      - id: query_joins_other_model
        type: custom
        engine: soda
        implementation: "orphans = 0:\\n  orphans query: SELECT COUNT(*) FROM dim_customer c LEFT ANTI JOIN dim_employee e ON c.department = e.department_name\\n"
  - name: dim_employee
    properties:
      - {name: department_name, logicalType: string}
"""


@pytest.fixture(scope="module")
def verdict(spark, tmp_path_factory):
    path = tmp_path_factory.mktemp("soda_custom") / "contract.yaml"
    path.write_text(CONTRACT)
    customers = spark.createDataFrame([(1, "sales", 1), (2, "ops", 2), (3, None, 9), (4, "legal", 3)],
                                      "id int, department string, cars int")
    employees = spark.createDataFrame([("sales",), ("ops",)], "department_name string")
    return dc_bridge.run(str(path), dataframes={"dim_customer": customers, "dim_employee": employees}, spark=spark,
                         engines=("soda",))


EXPECTED = {
    "warn_only": "warning",                   # 4 rows: Soda warns
    "warn_and_fail_warns": "warning",
    "warn_and_fail_fails": "failed",
    "warn_passes": "passed",
    "warn_two_lines": "warning",              # the worst of its lines: a pass and a warn
    "fail_query_names_model": "failed",       # one row with cars > 5
    "fail_query_names_model_warn": "warning",
    "metric_query_names_model": "failed",     # avg 3.75
    "reference_to_other_model": "failed",     # legal has no employee department (the null is not checked)
    "query_joins_other_model": "failed",      # legal (and the null department) have no match
}


def test_custom_soda_rules_rate_as_soda(verdict):
    outcomes = {c.check_id: c.outcome for m in verdict.models for c in m.checks if c.check_id in EXPECTED}
    reasons = {c.check_id: c.reason for m in verdict.models for c in m.checks if c.check_id in EXPECTED}
    assert outcomes == EXPECTED, reasons


def test_a_custom_soda_query_may_name_its_model(tmp_path):
    path = tmp_path / "contract.yaml"
    path.write_text(CONTRACT)
    errors = [(f.code, f.message) for f in lint_file(str(path)).findings if f.level == "error"]
    assert errors == []


def test_a_name_the_plan_does_not_bind_is_refused(tmp_path):
    """A table that is no model, and a model named inside an expression (the translation binds queries and dataset
    names of check lines, not subqueries of a `fail condition`), stay refused with what the check may read."""
    path = tmp_path / "contract.yaml"
    path.write_text(CONTRACT.replace("    quality:\n      - {id: warn_only", """    quality:
      - id: unknown_table
        type: custom
        engine: soda
        implementation: "n = 0:\\n  n query: SELECT COUNT(*) FROM somewhere_else\\n"
      - id: model_in_condition
        type: custom
        engine: soda
        implementation: "failed rows:\\n  fail condition: department IN (SELECT department_name FROM dim_employee)\\n"
      - {id: warn_only""", 1))
    errors = {f.path.rsplit(".", 2)[-2]: f.message for f in lint_file(str(path)).findings if f.level == "error"}
    assert set(errors) == {"quality[0]", "quality[1]"}, errors
    assert "the contract's models by name (in a query)" in errors["quality[0]"]
    assert "somewhere_else" in errors["quality[0]"] and "dim_employee" in errors["quality[1]"]
