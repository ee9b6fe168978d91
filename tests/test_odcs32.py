"""ODCS 3.2 on real engines: enum objects, maps (key and value types and constraints), `${NAME}`
variables (from `--var` / `vars=` and the environment), relationship ids, semanticType.

Each contract runs once in GX, Soda and the native engine; every planted count is asserted per engine,
so one engine agreeing with a wrong reference cannot hide.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

import dc_bridge
from dc_bridge.cli import main
from dc_bridge.compiler import ContractError
from dc_bridge.contract.lint import lint_file
from dc_bridge.plan import checks as c
from dc_bridge.plan.build import build_plan
from dc_bridge.runner.drift import schema_drift

ENGINES = ("gx", "soda", "spark")
HEAD = "apiVersion: v3.2.0\nkind: DataContract\nid: odcs32\nversion: 1.0.0\nstatus: active\n"


def write(tmp_path, text: str, name: str = "contract.yaml"):
    path = tmp_path / name
    path.write_text(HEAD + text)
    return path


def run_all(path, frames, spark, **kwargs):
    verdict = dc_bridge.run(str(path), dataframes=frames, spark=spark, engines=ENGINES, samples=False, **kwargs)
    return {check.check_id: check for check in verdict.checks()}


def assert_counts(checks: dict, expected: dict) -> None:
    """Each check observed the planted count in every engine, and its outcome follows from it."""
    for check_id, count in expected.items():
        check = checks[check_id]
        assert set(check.engines) == set(ENGINES), (check_id, check.reason)
        for engine, result in check.engines.items():
            assert result.observed == count, (check_id, engine, result)
        assert check.outcome == ("passed" if count == 0 else "failed"), (check_id, check.outcome, check.reason)


ENUMS = """\
schema:
  - name: orders
    properties:
      - name: status
        logicalType: string
        enum:
          - {value: pending, label: Pending, description: received}
          - {value: shipped, label: Shipped, tags: [terminal]}
      - name: priority
        logicalType: integer
        enum: [{value: 1, label: One}, {value: 2}, {value: 3}]
      - name: country
        logicalType: string
        enum: [{value: FR, label: France}, {value: US, label: United States}]
"""


def test_enum_objects_run_as_their_values_in_every_engine(spark, tmp_path):
    path = write(tmp_path, ENUMS)
    plan = {check.id: check for check in build_plan(lint_file(path).contract).checks}
    assert plan["orders.status.enum"].params == c.InSet(("pending", "shipped"))  # never `in_set [null]`
    assert plan["orders.priority.enum"].params == c.InSet((1, 2, 3))
    frame = spark.createDataFrame(
        [("pending", 1, "FR"), ("shipped", 2, "US"), ("lost", 3, "FR"), ("Pending", 1, None), (None, None, "US")],
        "status string, priority int, country string")
    checks = run_all(path, {"orders": frame}, spark)
    # `lost` and `Pending` (a label is not a value) fail; nulls are allowed; every priority and country is listed
    assert_counts(checks, {"orders.status.enum": 2, "orders.priority.enum": 0, "orders.country.enum": 0})


@pytest.mark.parametrize("enum, found", [
    ("[{label: Pending}, {label: Shipped}]", "no `value`"),  # labels only: no value to check against
    ("[]", "an empty list"),
    ("[{value: null}]", "only null"),
])
def test_an_enum_that_gives_no_values_is_a_lint_error(tmp_path, enum, found):
    path = write(tmp_path, "schema:\n  - name: orders\n    properties:\n      - name: status\n"
                           f"        logicalType: string\n        enum: {enum}\n")
    errors = [f for f in lint_file(path).findings if f.level == "error" and f.code == "DCB101"]
    assert errors and errors[0].path.startswith("schema[0].properties[0].enum"), lint_file(path).findings
    assert found in errors[0].found
    with pytest.raises(ContractError):
        dc_bridge.run(str(path), dataframes={}, engines=("spark",))


MAPS = """\
schema:
  - name: things
    properties:
      - name: id
        logicalType: integer
      - name: attrs
        logicalType: map
        map:
          key:
            logicalType: string
            logicalTypeOptions: {pattern: '^[a-z]+$', maxLength: 5}
          value:
            logicalType: integer
            required: true
            logicalTypeOptions: {minimum: 0}
            enum: [{value: 0}, {value: 1}, {value: 2}, {value: 3}]
      - name: labels
        logicalType: map
        physicalType: "MAP<STRING, STRING>"
        map:
          key: {logicalType: string}
          value:
            logicalType: string
            logicalTypeOptions: {minLength: 2}
      - name: scores
        logicalType: map
        map:
          key: {logicalType: string}
          value: {logicalType: integer}
      - name: details
        logicalType: map
        map:
          key: {logicalType: string, unique: true}
          value:
            logicalType: object
            properties:
              - {name: n, logicalType: string, required: true}
"""


def test_map_key_and_value_types_and_constraints_in_every_engine(spark, tmp_path):
    path = write(tmp_path, MAPS)
    frame = spark.createDataFrame([
        (1, {"ab": 1}, {"k": "ok"}, {"a": 1.5}, {"x": {"n": "a"}}),
        (2, {"Bad": 2}, {"k": "x"}, None, None),          # key breaks the pattern; a one-letter label
        (3, {"toolong": 1}, None, None, None),             # key too long (matches the pattern)
        (4, {"x": None, "y": 2}, None, None, None),        # a null value
        (5, {"y": -1}, None, None, None),                  # a value below the minimum and not listed
        (6, None, None, None, None),                       # no map: nothing to check
    ], "id int, attrs map<string,int>, labels map<string,string>, scores map<string,double>, "
       "details map<string,struct<n:string>>")
    checks = run_all(path, {"things": frame}, spark)
    assert_counts(checks, {
        "things.attrs.keys.pattern": 1, "things.attrs.keys.length": 1, "things.attrs.values.required": 1,
        "things.attrs.values.range": 1, "things.attrs.values.enum": 1, "things.labels.values.length": 1,
    })
    # key and value types: the contract's integer values are doubles in `scores`
    for column, outcome in (("attrs", "passed"), ("labels", "passed"), ("scores", "failed"), ("details", "passed")):
        check = checks[f"things.{column}.type"]
        assert check.outcome == outcome, (column, check.reason)
        assert {result.outcome for result in check.engines.values()} == {outcome}, (column, check.engines)
    assert "values" in checks["things.scores.type"].reason
    # what has no per-element check says so instead of passing
    assert checks["things.details.keys.unique"].outcome == "not_executable"
    assert "map's keys" in checks["things.details.keys.unique"].reason
    assert checks["things.details.values.fields.n"].outcome == "not_executable"


VARIABLES = """\
servers:
  - server: local
    type: local
    format: parquet
    path: ${DCB_TEST_DIR}/${DCB_TEST_FILE:-things}.parquet
schema:
  - name: things
    physicalName: ${DCB_TEST_TABLE}
    properties:
      - name: code
        logicalType: string
        logicalTypeOptions: {pattern: '^${DCB_TEST_PREFIX}-[0-9]+$'}
    quality:
      - type: sql
        description: ${table} is a placeholder, never a variable; $${DCB_TEST_PREFIX} is the text itself
        query: SELECT COUNT(*) FROM ${table} WHERE code IS NULL
        mustBe: 0
"""


def test_variables_from_vars_and_the_environment_run_in_every_engine(spark, tmp_path, monkeypatch):
    path = write(tmp_path, VARIABLES)
    spark.createDataFrame([("AB-1",), ("AB-22",), ("CD-3",), (None,)], "code string").write.parquet(str(tmp_path / "things.parquet"))
    monkeypatch.setenv("DCB_TEST_DIR", str(tmp_path))
    monkeypatch.setenv("DCB_TEST_PREFIX", "XX")  # `vars` wins over the environment
    monkeypatch.setenv("DCB_TEST_FILE", "")      # empty counts as unset: the default applies
    checks = run_all(path, None, spark, vars={"DCB_TEST_TABLE": "things_table", "DCB_TEST_PREFIX": "AB"})
    assert_counts(checks, {"things.code.pattern": 1, "things.quality[0]": 1})
    contract = lint_file(path).contract  # read with the environment only
    assert contract.models[0].fields[0].pattern == "^XX-[0-9]+$"
    assert contract.models[0].quality[0].description == "${table} is a placeholder, never a variable; ${DCB_TEST_PREFIX} is the text itself"
    assert contract.servers[0].location == f"{tmp_path}/things.parquet"


def test_var_option_and_an_unresolved_variable_on_the_command_line(spark, tmp_path, monkeypatch):
    path = write(tmp_path, VARIABLES)
    spark.createDataFrame([("AB-1",), ("AB-x",)], "code string").write.parquet(str(tmp_path / "things.parquet"))
    for name in ("DCB_TEST_DIR", "DCB_TEST_TABLE", "DCB_TEST_PREFIX", "DCB_TEST_FILE"):
        monkeypatch.delenv(name, raising=False)
    runner = CliRunner()
    unresolved = runner.invoke(main, ["lint", str(path), "--var", "DCB_TEST_DIR=" + str(tmp_path)])
    assert unresolved.exit_code == 1
    lines = [line for line in unresolved.output.splitlines() if "DCB174" in line]
    # each unresolved variable: the file, the line, the path and its name; no DCB173 for the name it sits in
    assert lines == [f"{path}:13: error DCB174 at schema[0].physicalName: variable `DCB_TEST_TABLE` is not set (or empty) and has no default",
                     f"{path}:17: error DCB174 at schema[0].properties[0].logicalTypeOptions.pattern: variable `DCB_TEST_PREFIX` "
                     "is not set (or empty) and has no default"], unresolved.output
    assert "--var DCB_TEST_TABLE=VALUE" in unresolved.output and "DCB173" not in unresolved.output
    assert runner.invoke(main, ["compile", str(path), "--out", str(tmp_path / "out")]).exit_code == 2
    given = ["--var", f"DCB_TEST_DIR={tmp_path}", "--var", "DCB_TEST_TABLE=t", "--var", "DCB_TEST_PREFIX=AB"]
    result = runner.invoke(main, ["run", str(path), "--engines", "gx,soda,spark", "--output", "json", "--no-samples", *given])
    assert result.exit_code == 1, result.output
    checks = {check["check_id"]: check for check in json.loads(result.stdout)["models"][0]["checks"]}
    assert checks["things.code.pattern"]["observed"] == 1 and checks["things.code.pattern"]["outcome"] == "failed"
    assert runner.invoke(main, ["lint", str(path), "--var", "no-equals-sign"]).exit_code == 2
    # every command that reads a contract takes --var: without it the contract does not resolve
    assert runner.invoke(main, ["compile", str(path), "--out", str(tmp_path / "soda"), *given]).exit_code == 0
    for command in (["diff", str(path), str(path)], ["check-version", str(path), str(path)],
                    ["drift", str(path)], ["soda", "config", str(path), "--out", str(tmp_path / "soda")],
                    ["gx", "init", str(path), "--project-dir", str(tmp_path / "gx")]):
        without = runner.invoke(main, command)
        assert without.exit_code != 0 and "DCB_TEST_TABLE" in without.output, (command, without.output)
        given_all = runner.invoke(main, [*command, *given])
        assert given_all.exit_code == 0 and "DCB174" not in given_all.output, (command, given_all.output)


def test_variables_are_odcs_32_only(tmp_path, monkeypatch):
    monkeypatch.delenv("DCB_TEST_TABLE", raising=False)
    path = write(tmp_path, "schema:\n  - name: things\n    description: costs ${DCB_TEST_TABLE}\n")
    path.write_text(path.read_text().replace("v3.2.0", "v3.1.0"))
    found = lint_file(path)
    assert not [f for f in found.findings if f.code == "DCB174"]
    assert found.contract.models[0].description == "costs ${DCB_TEST_TABLE}"


RELATIONSHIPS = """\
schema:
  - name: customers
    properties:
      - {name: id, logicalType: string}
  - name: orders
    relationships:
      - {id: orders_customer, from: orders.customer, to: customers.id}
    properties:
      - name: customer
        logicalType: string
      - name: total
        semanticType: measure
        logicalType: number
        transformLogic: SUM(amount)
      - name: region_dim
        semanticType: dimension
        logicalType: string
        transformLogic: upper(region)
"""


def test_relationship_ids_name_the_check_and_measures_are_not_columns(spark, tmp_path):
    path = write(tmp_path, RELATIONSHIPS)
    customers = spark.createDataFrame([("C1",), ("C2",)], "id string")
    orders = spark.createDataFrame([("C1",), ("C9",), (None,)], "customer string")
    checks = run_all(path, {"customers": customers, "orders": orders}, spark)
    assert_counts(checks, {"orders.orders_customer": 1})
    # a measure or dimension is computed: no column check fails on data that rightly lacks it
    for name in ("orders.total.measure", "orders.region_dim.dimension"):
        assert checks[name].outcome == "not_executable" and "transformLogic" in checks[name].reason
    assert not [check_id for check_id in checks if check_id.startswith(("orders.total.", "orders.region_dim.")) and
                checks[check_id].outcome != "not_executable"]
    assert not schema_drift(lint_file(path).contract, {"customers": customers, "orders": orders})
    duplicate = write(tmp_path, RELATIONSHIPS.replace("    relationships:\n", "    relationships:\n      - {id: orders_customer, "
                                                                                "from: orders.customer, to: customers.id}\n"), "dup.yaml")
    assert [f.path for f in lint_file(duplicate).findings if f.code == "DCB124"] == ["schema[1].relationships[1].id"]


def test_the_32_schema_requires_map_only_of_a_map(tmp_path):
    """The official schema's `if: {properties: {logicalType: {const: map}}}` also holds without a logicalType;
    lint reads it as intended, so an untyped property is not asked for `map`, and a map without one still is."""
    path = write(tmp_path, "schema:\n  - name: things\n    properties:\n      - name: untyped\n"
                           "      - name: bare_map\n        logicalType: map\n")
    schema = [(f.path, f.message) for f in lint_file(path).findings if f.code == "DCB100"]
    assert [p for p, message in schema if "'map' is a required property" in message] == ["schema[0].properties[1]"], schema
