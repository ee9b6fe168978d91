"""SQL safety: a contract's quality SQL is one read-only query, or it does not run.

A contract runs with the rights of whoever runs dc-bridge, on their Spark session. Every statement
that is not a single SELECT (or WITH ... SELECT) is refused, and so is a SELECT that reaches outside
the data: JVM reflection, files read by path, scripts, writing into a table. Refused means:

- at lint: DCB170 at the rule's `query`, with a message saying what was found;
- at run: the check is `error` with that finding, and nothing of it is executed (no engine gets it;
  the statements below would leave visible traces in the session and the JVM if they ran).

Identifiers from contracts are quoted, never spliced: a field named `x; DROP TABLE dcb_victim --`
is checked as a column name.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

import dc_bridge
from dc_bridge.contract.lint import lint_file
from dc_bridge.contract.load import load_contract
from dc_bridge.contract.sql import SqlProblem, check_read_only

PWNED_FILE = "/tmp/dcb-sql-safety-pwned"

# name -> query; every one must be refused with DCB170 (lint) and never run
REFUSED = {
    # DDL
    "drop_table": "DROP TABLE dcb_victim",
    "drop_view": "DROP VIEW IF EXISTS dcb_victim",
    "create_table_as_select": "CREATE TABLE dcb_stolen AS SELECT * FROM {model}",
    "create_temp_view": "CREATE OR REPLACE TEMP VIEW dcb_stolen AS SELECT * FROM {model}",
    "alter_table": "ALTER TABLE dcb_victim RENAME TO dcb_renamed",
    "truncate": "TRUNCATE TABLE dcb_victim",
    "create_function": "CREATE TEMPORARY FUNCTION dcb_evil AS 'org.example.Evil'",
    # DML
    "insert": "INSERT INTO dcb_victim SELECT * FROM dcb_victim",
    "insert_overwrite": "INSERT OVERWRITE TABLE dcb_victim SELECT * FROM dcb_victim",
    "update": "UPDATE dcb_victim SET id = 0",
    "delete": "DELETE FROM dcb_victim WHERE 1 = 1",
    "merge": "MERGE INTO dcb_victim t USING dcb_victim s ON t.id = s.id WHEN MATCHED THEN DELETE",
    "with_insert": "WITH a AS (SELECT 1 AS id) INSERT INTO dcb_victim SELECT * FROM a",
    "load_data": "LOAD DATA LOCAL INPATH '/etc/hosts' INTO TABLE dcb_victim",
    "select_into": "SELECT * INTO dcb_copy FROM {model}",
    # several statements, also hidden behind comments
    "select_then_drop": "SELECT COUNT(*) FROM {model}; DROP TABLE dcb_victim",
    "two_selects": "SELECT COUNT(*) FROM {model}; SELECT 1",
    "line_comment_hides_statement": "SELECT COUNT(*) FROM {model} -- just a count\n; DROP TABLE dcb_victim",
    "block_comment_hides_statement": "SELECT COUNT(*) FROM {model} /* harmless */; /* */ DROP TABLE dcb_victim",
    # session commands
    "set": "SET spark.sql.shuffle.partitions = 1",
    "reset": "RESET",
    "add_jar": "ADD JAR /tmp/dcb-evil.jar",
    "add_file": "ADD FILE /etc/hosts",
    "cache_table": "CACHE TABLE dcb_victim",
    "cache_lazy_as": "CACHE LAZY TABLE dcb_cached AS SELECT * FROM {model}",
    "uncache": "UNCACHE TABLE dcb_victim",
    "clear_cache": "CLEAR CACHE",
    "refresh": "REFRESH TABLE dcb_victim",
    "use": "USE dcb_other_database",
    "msck": "MSCK REPAIR TABLE dcb_victim",
    "analyze": "ANALYZE TABLE dcb_victim COMPUTE STATISTICS",
    "explain": "EXPLAIN SELECT 1",
    "show": "SHOW TABLES",
    "describe": "DESCRIBE dcb_victim",
    # a SELECT that reaches outside the data
    "reflect": "SELECT COUNT(reflect('java.lang.System', 'setProperty', 'dcb.pwned', 'reflect')) FROM {model}",
    "java_method": "SELECT COUNT(*) FROM {model} WHERE java_method('java.lang.System', 'setProperty', 'dcb.pwned', 'java_method') IS NOT NULL",
    "quoted_function_name": "SELECT COUNT(`java_method`('java.lang.System', 'setProperty', 'dcb.pwned', 'quoted')) FROM {model}",
    "reflect_in_subquery": "SELECT COUNT(*) FROM {model} WHERE id IN (SELECT try_reflect('java.lang.System', 'setProperty', 'dcb.pwned', 'sub'))",
    "transform_script": f"SELECT COUNT(*) FROM (SELECT TRANSFORM(id) USING 'touch {PWNED_FILE}' AS (x) FROM {{model}}) AS s",
    "parquet_by_path": "SELECT COUNT(*) FROM parquet.`/etc`",
    "csv_by_path": "SELECT COUNT(*) FROM csv.`/etc/passwd`",
    "text_by_path": "SELECT COUNT(*) FROM text.`file:///etc/hosts`",
    "json_by_quoted_path": "SELECT COUNT(*) FROM `json`.`/etc/hosts`",
    "read_files": "SELECT COUNT(*) FROM read_files('/etc')",
    "input_file_name": "SELECT COUNT(DISTINCT input_file_name()) FROM {model}",
    "secret": "SELECT COUNT(*) FROM {model} WHERE secret('scope', 'key') IS NOT NULL",
}

# read-only queries that must stay allowed (the refusal is about what a query does, not how it looks)
ALLOWED = {
    "count": "SELECT COUNT(*) FROM {model}",
    "lower_case_with_semicolon": "select count(*) from {model};",
    "cte": "WITH big AS (SELECT id FROM {model} WHERE id > 1) SELECT COUNT(*) FROM big",
    "union_subquery": "SELECT COUNT(*) FROM (SELECT id FROM {model} UNION ALL SELECT id FROM {model}) AS u",
    "window": "SELECT MAX(n) FROM (SELECT COUNT(*) OVER (PARTITION BY id) AS n FROM {model}) AS w",
    "comments": "SELECT /* the rows */ COUNT(*) -- all of them\nFROM {model}",
    "keyword_like_text": "SELECT COUNT(*) FROM {model} WHERE 'DROP TABLE x; DELETE' <> 'reflect('",
    "file_named_column": "SELECT COUNT(parquet) FROM (SELECT id AS parquet FROM {model}) AS p",
}


def _contract(queries: dict[str, str]) -> str:
    # a JSON string is a valid YAML double-quoted scalar: newlines and quotes survive as written
    rules = "\n".join(f"      - {{type: sql, description: {name}, query: {json.dumps(query)}, mustBe: 0}}"
                      for name, query in queries.items())
    return textwrap.dedent("""
        dataContractSpecification: 1.1.0
        id: sql-safety
        info: {title: SQL safety, version: 1.0.0}
        models:
          things:
            fields:
              id: {type: integer, required: true}
            quality:
        """) + rules + "\n"


ALL = {**REFUSED, **{f"allowed_{k}": v for k, v in ALLOWED.items()}}
INDEX = {name: i for i, name in enumerate(ALL)}


@pytest.fixture(scope="module")
def contract_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("sql") / "contract.yaml"
    path.write_text(_contract(ALL))
    return path


@pytest.fixture(scope="module")
def linted(contract_file):
    return lint_file(str(contract_file))


# ---------------------------------------------------------------------------------------------
# the rule itself


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_check_read_only_refuses(name):
    with pytest.raises(SqlProblem) as raised:
        check_read_only(REFUSED[name].replace("{model}", "t"))
    assert raised.value.code == "DCB170", str(raised.value)


@pytest.mark.parametrize("name", sorted(ALLOWED))
def test_check_read_only_allows(name):
    check_read_only(ALLOWED[name].replace("{model}", "t"))


def test_unparsable_sql_is_refused_too():
    with pytest.raises(SqlProblem) as raised:
        check_read_only("dfs -ls /")
    assert raised.value.code == "DCB171"


# ---------------------------------------------------------------------------------------------
# lint


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_lint_reports_dcb170(linted, name):
    path = f"models.things.quality[{INDEX[name]}].query"
    found = [f for f in linted.findings if f.path == path]
    assert [f.code for f in found] == ["DCB170"], [(f.code, f.message) for f in found]
    assert found[0].level == "error"


def test_lint_reports_nothing_on_allowed_queries(linted):
    allowed = {f"models.things.quality[{INDEX[name]}].query" for name in ALL if name.startswith("allowed_")}
    assert [(f.code, f.path, f.message) for f in linted.findings if f.path in allowed] == []


# ---------------------------------------------------------------------------------------------
# run: refused checks are errors, and nothing of them reached Spark


@pytest.fixture(scope="module")
def victim(spark):
    frame = spark.createDataFrame([(1,), (2,)], "id int").localCheckpoint()
    frame.createOrReplaceTempView("dcb_victim")
    yield frame
    spark.catalog.dropTempView("dcb_victim")


@pytest.fixture(scope="module")
def verdict(spark, victim, contract_file):
    Path(PWNED_FILE).unlink(missing_ok=True)
    things = spark.createDataFrame([(1,), (2,), (2,)], "id int").localCheckpoint()
    partitions = spark.conf.get("spark.sql.shuffle.partitions")
    result = dc_bridge.run(str(contract_file), dataframes={"things": things}, spark=spark, samples=False)
    assert spark.conf.get("spark.sql.shuffle.partitions") == partitions
    return result


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_run_refused_check_is_error_and_not_run(verdict, name):
    check = {c.check_id: c for c in verdict.checks()}[f"things.quality[{INDEX[name]}]"]
    assert check.outcome == "error"
    assert check.reason.startswith("DCB170 "), check.reason
    assert check.engines == {}, "a refused query must reach no engine"


def test_run_allowed_checks_ran_in_both_engines(verdict):
    checks = {c.check_id: c for c in verdict.checks()}
    expected = {"count": 3, "lower_case_with_semicolon": 3, "cte": 2, "union_subquery": 6, "window": 2, "comments": 3,
                "keyword_like_text": 3, "file_named_column": 3}
    for name, value in expected.items():
        check = checks[f"things.quality[{INDEX['allowed_' + name]}]"]
        assert set(check.engines) == {"gx", "soda"} and check.observed == value and check.outcome == "failed", (name, check)
    assert verdict.outcome == "error" and verdict.exit_code() == 2


def test_run_left_no_trace(spark, victim, verdict):
    """What the refused statements would have done, had any of them run."""
    names = {t.name for t in spark.catalog.listTables()}
    assert "dcb_victim" in names and not {"dcb_stolen", "dcb_copy", "dcb_cached", "dcb_renamed"} & names
    assert spark.table("dcb_victim").count() == 2
    assert not spark.catalog.isCached("dcb_victim")
    assert spark.sparkContext._jvm.java.lang.System.getProperty("dcb.pwned") is None
    assert not Path(PWNED_FILE).exists()
    assert "dcb_evil" not in {f.name for f in spark.catalog.listFunctions()}
    assert spark.catalog.currentDatabase() == "default"


def test_run_with_a_contract_object_refuses_too(spark, tmp_path):
    """The Python API also takes a loaded Contract (never linted as a file): a refused query is
    still `error`, not `not_executable` (which would let the verdict pass)."""
    path = tmp_path / "contract.yaml"
    path.write_text(_contract({"drop": "DROP TABLE dcb_victim", "ok": "SELECT COUNT(*) FROM {model} WHERE id > 5"}))
    contract = load_contract(path).contract
    things = spark.createDataFrame([(1,)], "id int").localCheckpoint()
    result = dc_bridge.run(contract, dataframes={"things": things}, spark=spark, samples=False, engines=["soda"])
    outcomes = {c.check_id: c.outcome for c in result.checks()}
    assert outcomes["things.quality[0]"] == "error" and outcomes["things.quality[1]"] == "passed"
    assert result.outcome == "error"


# ---------------------------------------------------------------------------------------------
# identifiers are names, never SQL

INJECTION = textwrap.dedent("""
    dataContractSpecification: 1.1.0
    id: injection
    info: {title: Injection, version: 1.0.0}
    models:
      "t; DROP TABLE dcb_victim --":
        fields:
          "x; DROP TABLE dcb_victim --":
            type: string
            required: true
            unique: true
            pattern: '^v'
            enum: [v1, v2]
            quality:
              - {type: sql, query: "SELECT COUNT(*) FROM {model} WHERE {column} = 'v1'", mustBe: 1}
          "') OR 1=1 --":
            type: integer
            minimum: 0
""")


def test_names_that_look_like_sql_are_checked_as_names(spark, victim, tmp_path):
    path = tmp_path / "injection.yaml"
    path.write_text(INJECTION)
    model = "t; DROP TABLE dcb_victim --"
    frame = spark.createDataFrame([("v1", 1), ("v1", -1), ("w", None)], "`x; DROP TABLE dcb_victim --` string, `') OR 1=1 --` int")
    result = dc_bridge.run(str(path), dataframes={model: frame.localCheckpoint()}, spark=spark, samples=False)
    observed = {c.check_id.split(".", 1)[1]: (c.outcome, c.observed, sorted(c.engines)) for c in result.checks()
                if c.kind not in ("column_exists", "column_type")}
    column = "x; DROP TABLE dcb_victim --"
    assert observed == {
        f"{column}.required": ("passed", 0.0, ["gx", "soda"]),
        f"{column}.unique": ("failed", 2.0, ["gx", "soda"]),
        f"{column}.pattern": ("failed", 1.0, ["gx", "soda"]),
        f"{column}.enum": ("failed", 1.0, ["gx", "soda"]),
        f"{column}.quality[0]": ("failed", 2.0, ["gx", "soda"]),
        "') OR 1=1 --.range": ("failed", 1.0, ["gx", "soda"]),
    }
    assert spark.table("dcb_victim").count() == 2


# ---------------------------------------------------------------------------------------------
# SQL inside custom engine checks runs in Spark too: the same rule applies

CUSTOM = textwrap.dedent("""
    dataContractSpecification: 1.1.0
    id: custom-sql-safety
    info: {title: Custom SQL, version: 1.0.0}
    models:
      things:
        fields:
          id: {type: integer}
        quality:
          - type: custom
            engine: great-expectations
            specification: {type: unexpected_rows_expectation, kwargs: {unexpected_rows_query: "DROP TABLE dcb_victim"}}
          - type: custom
            engine: soda
            specification: |
              failed rows:
                fail query: DELETE FROM dcb_victim
          - type: custom
            engine: soda
            specification:
              dcb_rows = 0:
                dcb_rows query: "SELECT COUNT(*) FROM things; DROP TABLE dcb_victim"
          - type: custom
            engine: great-expectations
            specification:
              type: expect_column_values_to_not_be_null
              kwargs: {column: id, row_condition: "java_method('java.lang.System', 'setProperty', 'dcb.pwned', 'gx') IS NOT NULL", condition_parser: spark}
          - type: custom
            engine: soda
            specification:
              row_count > 0:
                filter: "reflect('java.lang.System', 'setProperty', 'dcb.pwned', 'soda') IS NOT NULL"
          - type: custom
            engine: great-expectations
            specification: {type: unexpected_rows_expectation, kwargs: {unexpected_rows_query: "SELECT * FROM {batch} WHERE id < 0"}}
          - type: custom
            engine: soda
            specification: |
              failed rows:
                fail query: SELECT 1 AS one WHERE 1 = 0
""")
CUSTOM_REFUSED = {0: "`unexpected_rows_query`", 1: "`fail query`", 2: "`dcb_rows query`", 3: "`row_condition`", 4: "`filter`"}


def test_sql_in_custom_checks_is_refused_at_lint_and_run(spark, victim, tmp_path):
    path = tmp_path / "custom.yaml"
    path.write_text(CUSTOM)
    errors = {f.path: f for f in lint_file(str(path)).findings if f.level == "error"}
    assert set(errors) == {f"models.things.quality[{i}].implementation" for i in CUSTOM_REFUSED}, errors
    for index, key in CUSTOM_REFUSED.items():
        finding = errors[f"models.things.quality[{index}].implementation"]
        assert finding.code == "DCB170" and finding.message.startswith(key), finding.message
    things = spark.createDataFrame([(1,), (2,)], "id int").localCheckpoint()
    verdict = dc_bridge.run(str(path), dataframes={"things": things}, spark=spark, samples=False)
    outcomes = {c.check_id: (c.outcome, sorted(c.engines)) for c in verdict.checks() if c.kind.startswith("custom")}
    assert outcomes == {
        **{f"things.quality[{i}]": ("error", []) for i in CUSTOM_REFUSED},
        "things.quality[5]": ("passed", ["gx"]), "things.quality[6]": ("passed", ["soda"])}
    assert spark.table("dcb_victim").count() == 2
    assert spark.sparkContext._jvm.java.lang.System.getProperty("dcb.pwned") is None
