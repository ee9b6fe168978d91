"""SQL safety: a contract's quality SQL is one read-only query, or it does not run.

A contract runs with the rights of whoever runs dc-bridge, on their Spark session. Every statement
that is not a single SELECT (or WITH ... SELECT) is refused, and so is a SELECT that reaches outside
the data: JVM reflection, files read by path, scripts, writing into a table. Refused means:

- at lint: DCB170 at the rule's `query`, with a message saying what was found;
- at run: the check is `error` with that finding, and nothing of it is executed (no engine gets it;
  the statements below would leave visible traces in the session and the JVM if they ran).

What a query may read is an allowlist, not a list of things to refuse: its own model (by name,
physical name or placeholder), the contract's other models and its own CTEs; Spark's built-in
functions less those that reach outside the data. Files by path under any format name (short names,
class names, old aliases), `IDENTIFIER(...)`, table functions, the session's other tables and views,
a user's or a catalog's functions and `${...}` (which Spark fills in from its configuration, the
environment and system properties) are refused however they are nested. A sentinel file holds a
canary string: the forms below would read it (`test_the_forms_are_real`), and no refused query lets it
reach any output.

`--where` is one expression held to the same rules, checked before Spark starts; a model lacking a
column it names is checked unfiltered, with a note in the verdict.

Identifiers from contracts are quoted, never spliced: a field named `x; DROP TABLE dcb_victim --`
is checked as a column name.
"""

from __future__ import annotations

import html
import json
import re
import tempfile
import textwrap
from pathlib import Path

import pytest
import sqlglot
from click.testing import CliRunner

import dc_bridge
from dc_bridge.cli import main
from dc_bridge.contract.lint import lint_file
from dc_bridge.contract.reading.load import load_contract
from dc_bridge.contract.spark_functions import SPARK_FUNCTIONS
from dc_bridge.contract.sql import FUNCTIONS, TABLE_MARKER, SqlProblem, check_read_only, filter_expression

ROOT = Path(__file__).resolve().parent.parent
PWNED_FILE = "/tmp/dcb-sql-safety-pwned"
# a file the hostile queries below point at; its canary must never reach any output
SENTINEL = str(Path(tempfile.gettempdir()) / "dcb-sql-safety-sentinel.csv")
CANARY = "dcb-canary-5e1f0a7c"

# every name Spark 3.5 reads a path under (`<name>.`/path``): the short names of its data sources,
# their class names and the old aliases it still maps (DataSource.backwardCompatibilityMap)
FILE_SOURCES = [
    "parquet", "csv", "json", "orc", "avro", "text", "binaryFile", "delta", "image", "libsvm", "jdbc", "noop", "hive",
    "xml", "iceberg", "hudi", "`rate-micro-batch`", "rate", "socket", "console",
    "`com.databricks.spark.csv`", "`com.databricks.spark.avro`",
    "`org.apache.spark.sql.execution.datasources.csv.CSVFileFormat`",
    "`org.apache.spark.sql.execution.datasources.v2.csv.CSVDataSourceV2`",
    "`org.apache.spark.sql.execution.datasources.text.TextFileFormat`",
    "`org.apache.spark.sql.execution.datasources.v2.text.TextDataSourceV2`",
    "`org.apache.spark.sql.execution.datasources.json.JsonFileFormat`",
    "`org.apache.spark.sql.execution.datasources.binaryfile.BinaryFileFormat`",
    "`org.apache.spark.ml.source.image.ImageFileFormat`", "`org.apache.spark.ml.source.libsvm`",
    "`org.apache.spark.sql.json`", "`org.apache.spark.sql.parquet`", "`org.apache.spark.sql.parquet.DefaultSource`",
    "`org.apache.spark.sql.execution.datasources.orc`", "`org.apache.spark.sql.hive.orc`", "`org.apache.spark.sql.jdbc`",
    "`org.apache.spark.sql.avro.AvroFileFormat`",
    # the same, unquoted: sqlglot reads a dotted class name as catalog.db.table parts
    "org.apache.spark.sql.execution.datasources.csv.CSVFileFormat", "com.databricks.spark.csv",
]
FILE_READS = {f"file_source_{re.sub(r'[^A-Za-z0-9]+', '_', source).strip('_').lower()}{'_quoted' if '`' in source else ''}":
              f"SELECT COUNT(*) FROM {source}.`{SENTINEL}`" for source in FILE_SOURCES}
assert len(FILE_READS) == len(FILE_SOURCES)

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
    # files by path under any name Spark knows a data source by
    **FILE_READS,
    "text_by_file_url": f"SELECT COUNT(*) FROM text.`file://{SENTINEL}`",
    "quoted_format_and_path": f"SELECT COUNT(*) FROM `text`.`{SENTINEL}`",
    # IDENTIFIER turns a string into a name only when Spark runs the query
    "identifier_file": f"SELECT COUNT(*) FROM IDENTIFIER('text.`{SENTINEL}`')",
    "identifier_concatenated": f"SELECT COUNT(*) FROM IDENTIFIER('te' || 'xt.`{SENTINEL}`')",
    "identifier_in_subquery": f"SELECT COUNT(*) FROM {{model}} WHERE id IN (SELECT 1 FROM IDENTIFIER('text.`{SENTINEL}`'))",
    "identifier_column": "SELECT COUNT(IDENTIFIER('id')) FROM {model}",
    # table-valued functions and generators in FROM
    "range": "SELECT COUNT(*) FROM range(1000000000000)",
    "explode_as_table": "SELECT COUNT(*) FROM explode(array(1, 2))",
    "inline_as_table": "SELECT COUNT(*) FROM inline(array(struct(1)))",
    "stack_as_table": "SELECT COUNT(*) FROM stack(2, 1, 2)",
    "sql_keywords": "SELECT COUNT(*) FROM sql_keywords()",
    "read_files_in_join": f"SELECT COUNT(*) FROM {{model}} JOIN read_files('{SENTINEL}') AS f ON TRUE",
    # the session's other tables and views: only the contract's models may be read
    "session_temp_view": "SELECT COUNT(*) FROM dcb_victim",
    "session_view_joined": "SELECT COUNT(*) FROM {model} t JOIN dcb_victim v ON t.id = v.id",
    "catalog_table": "SELECT COUNT(*) FROM spark_catalog.default.dcb_victim",
    "global_temp_view": "SELECT COUNT(*) FROM global_temp.dcb_victim",
    "model_name_with_a_database": "SELECT COUNT(*) FROM other_db.things",
    # nested: every subquery, lateral and set operation is held to the same rule
    "file_in_scalar_subquery": f"SELECT (SELECT COUNT(*) FROM text.`{SENTINEL}`) FROM {{model}}",
    "file_in_exists": f"SELECT COUNT(*) FROM {{model}} WHERE EXISTS (SELECT 1 FROM csv.`{SENTINEL}`)",
    "file_deep_in_subqueries": f"SELECT COUNT(*) FROM (SELECT * FROM (SELECT * FROM (SELECT value FROM text.`{SENTINEL}`) a) b) c",
    "file_in_union": f"SELECT COUNT(*) FROM (SELECT CAST(id AS STRING) AS v FROM {{model}} UNION ALL SELECT value FROM text.`{SENTINEL}`) u",
    "file_in_lateral": f"SELECT COUNT(*) FROM {{model}}, LATERAL (SELECT value FROM text.`{SENTINEL}`)",
    # CTEs: a CTE is allowed, its body is checked, and a name is a CTE only in the scope of its WITH
    "file_in_cte": f"WITH f AS (SELECT value FROM text.`{SENTINEL}`) SELECT COUNT(*) FROM f",
    "cte_named_like_the_model": f"WITH things AS (SELECT value FROM text.`{SENTINEL}`) SELECT COUNT(*) FROM things",
    "cte_out_of_scope": "SELECT COUNT(*) FROM (SELECT 1 FROM dcb_victim UNION ALL SELECT * FROM (WITH dcb_victim AS (SELECT 1) SELECT * FROM dcb_victim) s) u",
    "cte_read_before_it_is_defined": "WITH a AS (SELECT * FROM dcb_victim), dcb_victim AS (SELECT * FROM {model}) SELECT COUNT(*) FROM a",
    "cte_reading_itself": "WITH dcb_victim AS (SELECT * FROM dcb_victim) SELECT COUNT(*) FROM dcb_victim",
    # comments and strings: the parse decides, never the look of the text
    "file_behind_a_comment": f"SELECT COUNT(*) FROM /* {{model}} */ text.`{SENTINEL}`",
    "file_before_a_line_comment": f"SELECT COUNT(*) FROM text.`{SENTINEL}` -- FROM {{model}}",
    "env_variable": "SELECT COUNT(*) FROM {model} WHERE LENGTH('${env:HOME}') > 0",
    "system_property": "SELECT COUNT(*) FROM {model} WHERE '${system:user.home}' <> ''",
    "spark_configuration": "SELECT COUNT(*) FROM {model} WHERE '${spark.app.name}' <> ''",
    "escaped_dollar_brace": "SELECT COUNT(*) FROM {model} WHERE '$\\{spark.app.name}' <> ''",
    "at_version_written_back_as_variable": "SELECT COUNT(*) FROM {model}@v1",
    # functions: Spark's built-ins only, less those reaching outside the data
    "user_function": "SELECT COUNT(dcb_touch(id)) FROM {model}",
    "qualified_function": "SELECT COUNT(default.dcb_touch(id)) FROM {model}",
    "builtin_namespace_reflect": "SELECT COUNT(system.builtin.reflect('java.lang.System', 'getProperty', 'user.home')) FROM {model}",
    "current_user": "SELECT COUNT(*) FROM {model} WHERE current_user() <> ''",
    "current_database": "SELECT COUNT(*) FROM {model} WHERE current_database() <> ''",
    "xpath_external_dtd": f"SELECT COUNT(*) FROM {{model}} WHERE xpath_string('<!DOCTYPE a SYSTEM \"file://{SENTINEL}\"><a>b</a>', 'a') <> ''",
    "input_file_block_start": "SELECT MAX(input_file_block_start()) FROM {model}",
    "reflect_in_a_hint": "SELECT /*+ REPARTITION(reflect('java.lang.System', 'setProperty', 'dcb.pwned', 'hint')) */ COUNT(*) FROM {model}",
    "reflect_in_a_lambda": "SELECT COUNT(*) FROM {model} WHERE exists(array(id), x -> java_method('java.lang.System', 'setProperty', 'dcb.pwned', 'lambda') IS NOT NULL)",
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
    # the contract's other model: the plan writes its run view there
    "other_model": "SELECT COUNT(*) FROM {model} AS t JOIN others AS o ON t.id = o.id",
    # the model by its name; a CTE of the same name is the CTE where it is visible (2 rows, not 3)
    "cte_shadowing_the_model": "WITH things AS (SELECT * FROM things WHERE id > 1) SELECT COUNT(*) FROM things",
    "values": "SELECT COUNT(*) FROM {model} WHERE id IN (SELECT x FROM VALUES (2), (5) AS v(x))",
    "builtins": "SELECT COUNT(*) FROM {model} WHERE try_cast(id AS STRING) RLIKE '^[0-9]+$' AND abs(id) > 0 AND coalesce(id, 0) >= 0",
    "lateral_view_explode": "SELECT COUNT(*) FROM {model} LATERAL VIEW explode(array(id, id)) e AS x",
    "hint": "SELECT /*+ REPARTITION(2) */ COUNT(*) FROM {model}",
    "dollar_without_brace": "SELECT COUNT(*) FROM {model} WHERE '$' || '{' <> '' AND '$ {' <> ''",
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
          others:
            fields:
              id: {type: integer}
          things:
            fields:
              id: {type: integer, required: true}
            quality:
        """) + rules + "\n"


ALL = {**REFUSED, **{f"allowed_{k}": v for k, v in ALLOWED.items()}}
INDEX = {name: i for i, name in enumerate(ALL)}


@pytest.fixture(scope="module", autouse=True)
def sentinel():
    Path(SENTINEL).write_text(f"value\n{CANARY}\n")
    yield SENTINEL
    Path(SENTINEL).unlink(missing_ok=True)


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


# what a query on `things` may read besides the {model} placeholder: its name, and the other model
TABLES = {"things", "others"}


def _filled(query: str) -> str:
    return query.replace("{model}", f"`{TABLE_MARKER}`")


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_check_read_only_refuses(name):
    with pytest.raises(SqlProblem) as raised:
        check_read_only(_filled(REFUSED[name]), TABLES)
    assert raised.value.code == "DCB170", str(raised.value)


@pytest.mark.parametrize("name", sorted(ALLOWED))
def test_check_read_only_allows(name):
    check_read_only(_filled(ALLOWED[name]), TABLES)


def test_unparsable_sql_is_refused_too():
    with pytest.raises(SqlProblem) as raised:
        check_read_only("dfs -ls /")
    assert raised.value.code == "DCB171"


def test_the_model_itself_is_all_a_query_may_read_by_default():
    check_read_only(f"SELECT COUNT(*) FROM {TABLE_MARKER}")
    with pytest.raises(SqlProblem, match="reads `things`"):
        check_read_only("SELECT COUNT(*) FROM things")


def test_the_messages_say_what_was_found():
    said = {}
    for name in ("file_source_com_databricks_spark_csv_quoted", "identifier_file", "range", "session_temp_view", "user_function",
                 "qualified_function", "env_variable", "xpath_external_dtd", "explode_as_table"):
        with pytest.raises(SqlProblem) as raised:
            check_read_only(_filled(REFUSED[name]), TABLES)
        said[name] = str(raised.value)
    assert said["file_source_com_databricks_spark_csv_quoted"] == f"the SQL reads files directly (`com.databricks.spark.csv`.`{SENTINEL}`)"
    assert "IDENTIFIER(...)" in said["identifier_file"]
    assert said["range"].startswith("the SQL calls range(), which reaches outside the data")
    assert said["session_temp_view"].startswith("the SQL reads `dcb_victim`, which is not a table it may read")
    assert "not a built-in function" in said["user_function"] and "default.dcb_touch()" in said["qualified_function"]
    assert "`${`" in said["env_variable"] and "environment variable" in said["env_variable"]
    assert "xpath_string()" in said["xpath_external_dtd"] and said["explode_as_table"].endswith("table function explode(), not from a model")


def test_every_spark_builtin_is_allowed_as_sqlglot_writes_it():
    """The function allowlist is Spark 3.5's registry; sqlglot parses many calls into typed nodes and
    writes them back under Spark's name (`approx_distinct` -> APPROX_COUNT_DISTINCT). Every built-in
    that is allowed must stay callable however sqlglot writes it (where sqlglot parses the call at all)."""
    refused = {}
    for name in sorted(FUNCTIONS & SPARK_FUNCTIONS):
        for args in ("id", "id, id", "id, id, id", ""):
            query = f"SELECT {name}({args}) FROM {TABLE_MARKER}"
            try:
                sqlglot.parse_one(query, read="spark").sql(dialect="spark")
            except Exception:
                continue
            try:
                check_read_only(query)
            except SqlProblem as problem:
                if problem.code == "DCB170":
                    refused[name] = str(problem)
            break
    assert refused == {}
    assert {"reflect", "java_method", "input_file_name", "current_user", "xpath_string", "range"} & FUNCTIONS == set()


def test_the_same_text_is_parsed_once():
    from dc_bridge.contract import sql

    sql._analyse.cache_clear()
    query = f"SELECT COUNT(*) FROM `{TABLE_MARKER}` WHERE id > 41"
    for tables in ({"a"}, {"b"}, {"c"}):
        check_read_only(query, tables)
    assert sql._analyse.cache_info().misses == 1


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


def _touch(value):
    """A function of the user's session: a contract must not be able to call it."""
    Path(PWNED_FILE).write_text("touched")
    return value


@pytest.fixture(scope="module")
def victim(spark):
    frame = spark.createDataFrame([(1,), (2,)], "id int").localCheckpoint()
    frame.createOrReplaceTempView("dcb_victim")
    frame.createOrReplaceGlobalTempView("dcb_victim")
    spark.udf.register("dcb_touch", _touch, "int")
    yield frame
    spark.catalog.dropTempView("dcb_victim")
    spark.catalog.dropGlobalTempView("dcb_victim")


@pytest.fixture(scope="module")
def verdict(spark, victim, contract_file):
    Path(PWNED_FILE).unlink(missing_ok=True)
    things = spark.createDataFrame([(1,), (2,), (2,)], "id int").localCheckpoint()
    others = spark.createDataFrame([(2,)], "id int").localCheckpoint()
    partitions = spark.conf.get("spark.sql.shuffle.partitions")
    result = dc_bridge.run(str(contract_file), dataframes={"things": things, "others": others}, spark=spark, samples=False)
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
                "keyword_like_text": 3, "file_named_column": 3, "other_model": 2, "cte_shadowing_the_model": 2, "values": 2,
                "builtins": 3, "lateral_view_explode": 6, "hint": 3, "dollar_without_brace": 3}
    assert set(expected) == set(ALLOWED)
    for name, value in expected.items():
        check = checks[f"things.quality[{INDEX['allowed_' + name]}]"]
        assert set(check.engines) == {"gx", "soda"} and check.observed == value and check.outcome == "failed", (name, check)
    assert verdict.outcome == "error" and verdict.exit_code() == 2


def test_run_reads_nothing_outside_the_models(verdict):
    """No refused query reached Spark: the sentinel's canary is nowhere in the verdict."""
    assert CANARY not in verdict.model_dump_json()
    assert not Path(PWNED_FILE).exists()


def test_the_forms_are_real(spark, sentinel):
    """Control: run as written, these forms read the sentinel file (which the old rule, a list of
    format names, let through); so the canary's absence above means something."""
    for query in (f"SELECT * FROM `com.databricks.spark.csv`.`{SENTINEL}`",
                  f"SELECT * FROM `org.apache.spark.sql.execution.datasources.csv.CSVFileFormat`.`{SENTINEL}`",
                  f"SELECT * FROM IDENTIFIER('text.`{SENTINEL}`')",
                  f"SELECT CAST(content AS STRING) FROM binaryFile.`{SENTINEL}`"):
        assert CANARY in str(spark.sql(query).collect()), query
    assert spark.sql("SELECT '${spark.app.name}' AS v").first().v != "${spark.app.name}"


def test_the_analysed_plan_is_checked_before_any_engine(spark, victim, sentinel):
    """The second look (runner/reads.py): what Spark resolved a query's names to. Queries the parse
    would refuse are handed to it directly here: only those reading outside the run's views are named."""
    from dc_bridge.contract.model import Source
    from dc_bridge.plan.checks import Check, SqlMetric
    from dc_bridge.runner.reads import foreign_reads

    views = {"things": "dcb_reads_things", "others": "dcb_reads_others"}
    for view in views.values():
        spark.createDataFrame([(1,), (2,)], "id int").createOrReplaceTempView(view)
    queries = {
        "model": f"SELECT COUNT(*) FROM `{TABLE_MARKER}`",
        "other_model": f"SELECT COUNT(*) FROM {TABLE_MARKER} t JOIN dcb_reads_others o ON t.id = o.id",
        "inline": f"WITH a AS (SELECT * FROM {TABLE_MARKER}) SELECT COUNT(*) FROM a LATERAL VIEW explode(array(1)) e AS x "
                  "WHERE id IN (SELECT x FROM VALUES (1) AS v(x)) AND (SELECT 1) = 1",
        "does_not_analyse": f"SELECT COUNT(no_such_column) FROM {TABLE_MARKER}",
        "session_view": "SELECT COUNT(*) FROM dcb_victim",
        "view_in_subquery": f"SELECT COUNT(*) FROM {TABLE_MARKER} WHERE id IN (SELECT id FROM dcb_victim)",
        "file": f"SELECT COUNT(*) FROM text.`{SENTINEL}`",
        "identifier": f"SELECT COUNT(*) FROM IDENTIFIER('text.`{SENTINEL}`')",
        "range": "SELECT COUNT(*) FROM range(3)",
    }
    checks = [Check(name, "things", (), SqlMetric(query), Source(file="c.yaml", path=name)) for name, query in queries.items()]
    # one query on two fields is analysed once per model: the second field's column does not even exist
    checks += [Check(f"field_{column}", "things", (column,), SqlMetric(f"SELECT COUNT(*) FROM dcb_victim WHERE `{column}` > 0"),
                     Source(file="c.yaml", path=column)) for column in ("id", "no_such_column")]
    try:
        found = foreign_reads(spark, checks, views)
    finally:
        for view in views.values():
            spark.catalog.dropTempView(view)
    assert set(found) == {"session_view", "view_in_subquery", "file", "identifier", "range", "field_id", "field_no_such_column"}, found
    assert found["session_view"].startswith("the SQL reads the view `dcb_victim`, which is not one of the run's model views")
    assert CANARY not in str(found)


def test_compiled_sql_names_the_run_views(contract_file):
    """Another model is read through its run view, the model through the engines' own table."""
    from dc_bridge.compiler import compile_for_run
    from dc_bridge.contract.sql import view_name

    compiled = compile_for_run(str(contract_file))
    check = {c.id: c for c in compiled.plan.checks}[f"things.quality[{INDEX['allowed_other_model']}]"]
    assert check.params.query == f"SELECT COUNT(*) FROM `{TABLE_MARKER}` AS t JOIN {view_name('sql-safety', 'others')} AS o ON t.id = o.id"
    shadow = {c.id: c for c in compiled.plan.checks}[f"things.quality[{INDEX['allowed_cte_shadowing_the_model']}]"]
    assert shadow.params.query == f"WITH things AS (SELECT * FROM {TABLE_MARKER} WHERE id > 1) SELECT COUNT(*) FROM things"


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
    result = dc_bridge.run(contract, dataframes={"things": things, "others": things}, spark=spark, samples=False, engines=["soda"])
    outcomes = {c.check_id: c.outcome for c in result.checks()}
    assert outcomes["things.quality[0]"] == "error" and outcomes["things.quality[1]"] == "passed"
    assert result.outcome == "error"


def test_run_with_a_contract_object_is_held_to_the_contract_rules(spark):
    """A Contract built or changed in Python skips the file's lint, not the rules over the contract:
    a bound no engine can hold (DCB151) or a minimum above its maximum (DCB164) stops the run, as
    it does for a file."""
    from dc_bridge.compiler import ContractError

    contract = load_contract(ROOT / "contracts" / "orders.yaml").contract
    for bound, code in ((float("inf"), "DCB151"), (-1, "DCB164")):
        orders = contract.model("orders")
        field = orders.field("order_total").model_copy(update={"minimum": 0, "maximum": bound})
        fields = tuple(field if f.name == "order_total" else f for f in orders.fields)
        changed = contract.model_copy(update={"models": tuple(orders.model_copy(update={"fields": fields}) if m.name == "orders" else m
                                                              for m in contract.models)})
        with pytest.raises(ContractError) as refused:
            dc_bridge.run(changed, spark=spark, samples=False, engines=["spark"])
        assert code in {f.code for f in refused.value.findings}


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


SUBSTITUTED = textwrap.dedent("""
    dataContractSpecification: 1.1.0
    id: substituted-names
    info: {title: Substituted names, version: 1.0.0}
    models:
      "things_${env:HOME}":
        fields:
          "${spark.app.name}": {type: string, required: true}
          ok:
            type: object
            fields:
              "${system:user.home}": {type: string}
""")


def test_names_spark_would_fill_in_are_refused(tmp_path):
    """A name holding `${` would be filled in by a session that substitutes variables (the caller's):
    the configuration or a secret would come back as a column name in an error. Lint error DCB173
    at each such name; `run` refuses the contract before Spark starts."""
    path = tmp_path / "substituted.yaml"
    path.write_text(SUBSTITUTED)
    found = {(f.code, f.path) for f in lint_file(path).findings if f.code == "DCB173"}
    assert found == {("DCB173", "models.things_${env:HOME}"), ("DCB173", "models.things_${env:HOME}.fields.${spark.app.name}"),
                     ("DCB173", "models.things_${env:HOME}.fields.ok.fields.${system:user.home}")}
    result = CliRunner().invoke(main, ["run", str(path)])
    assert result.exit_code == 2 and "DCB173" in result.output, result.output


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
          - type: custom
            engine: great-expectations
            specification: {type: unexpected_rows_expectation, kwargs: {unexpected_rows_query: "SELECT value FROM `com.databricks.spark.csv`.`SENTINEL_PATH`"}}
          - type: custom
            engine: great-expectations
            specification: {type: unexpected_rows_expectation, kwargs: {unexpected_rows_query: "SELECT * FROM {batch} WHERE id IN (SELECT id FROM dcb_victim)"}}
          - type: custom
            engine: soda
            specification:
              dcb_leak > 0:
                dcb_leak query: "SELECT COUNT(*) FROM IDENTIFIER('text.`SENTINEL_PATH`')"
          - type: custom
            engine: soda
            specification:
              row_count > 0:
                filter: "1 = 1) UNION ALL (SELECT COUNT(*) FROM text.`SENTINEL_PATH`"
          - type: custom
            engine: great-expectations
            specification:
              type: expect_column_values_to_not_be_null
              kwargs: {column: id, row_condition: "'${env:HOME}' <> ''", condition_parser: spark}
          - type: custom
            engine: soda
            specification:
              dcb_rows = 0:
                dcb_rows query: "SELECT COUNT(*) FROM things WHERE id < 0"
          - type: custom
            engine: great-expectations
            specification:
              type: expect_column_values_to_not_be_null
              kwargs: {column: id, row_condition: 'col("id")>0', condition_parser: great_expectations}
          - type: custom
            engine: soda
            specification:
              dcb_negative = 0:
                dcb_negative query: "SELECT COUNT(*) FROM VIEW_NAME WHERE id < 0"
""")
# index -> the key the refusal names; the codes are DCB170 unless given
CUSTOM_REFUSED = {0: "`unexpected_rows_query`", 1: "`fail query`", 2: "`dcb_rows query`", 3: "`row_condition`", 4: "`filter`",
                  7: "`unexpected_rows_query`", 8: "`unexpected_rows_query`", 9: "`dcb_leak query`", 10: "`filter`",
                  11: "`row_condition`"}
CUSTOM_CODES = {10: "DCB171"}  # the filter breaks out of the WHERE Soda writes it into: not one expression
# 12: a Soda query naming its model by name is bound to the model's run view (CustomSoda.tables), as a team writes it
CUSTOM_PASSED = {5: "gx", 6: "soda", 12: "soda", 13: "gx", 14: "soda"}


def test_sql_in_custom_checks_is_refused_at_lint_and_run(spark, victim, tmp_path):
    from dc_bridge.contract.sql import view_name

    path = tmp_path / "custom.yaml"
    path.write_text(CUSTOM.replace("SENTINEL_PATH", SENTINEL).replace("VIEW_NAME", view_name("custom-sql-safety", "things")))
    errors = {f.path: f for f in lint_file(str(path)).findings if f.level == "error"}
    assert set(errors) == {f"models.things.quality[{i}].implementation" for i in CUSTOM_REFUSED}, errors
    for index, key in CUSTOM_REFUSED.items():
        finding = errors[f"models.things.quality[{index}].implementation"]
        assert finding.code == CUSTOM_CODES.get(index, "DCB170") and finding.message.startswith(key), finding.message
    # a custom check may read the models' views, a Soda query the models by name too, and the message says which
    assert "its model as {batch} (GX), the contract's models by name (in a query), or the models' views dcb_things_" in errors["models.things.quality[8].implementation"].message
    things = spark.createDataFrame([(1,), (2,)], "id int").localCheckpoint()
    verdict = dc_bridge.run(str(path), dataframes={"things": things}, spark=spark, samples=False)
    outcomes = {c.check_id: (c.outcome, sorted(c.engines)) for c in verdict.checks() if c.kind.startswith("custom")}
    assert outcomes == {
        **{f"things.quality[{i}]": ("error", []) for i in CUSTOM_REFUSED},
        **{f"things.quality[{i}]": ("passed", [engine]) for i, engine in CUSTOM_PASSED.items()}}
    assert spark.table("dcb_victim").count() == 2
    assert spark.sparkContext._jvm.java.lang.System.getProperty("dcb.pwned") is None
    assert CANARY not in verdict.model_dump_json()


# ---------------------------------------------------------------------------------------------
# --where: one expression over the models' columns, held to the same rules, checked before Spark

ORDERS = str(ROOT / "contracts" / "orders.yaml")


def run_cli(*args):
    """`dc-bridge run`, with exceptions caught the way a shell would see them (a traceback is a failure)."""
    result = CliRunner().invoke(main, ["run", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exc_info
    assert "Traceback" not in result.output
    return result


WHERE_REFUSED = {
    "syntax_error": ("order_id = ", "does not parse"),
    "unbalanced": ("order_id IS NOT NULL) OR (1 = 1", "does not parse"),
    "second_statement": ("order_id IS NOT NULL; DROP TABLE dcb_victim", "does not parse"),
    "a_whole_query": ("SELECT * FROM orders", "does not parse"),
    "reflect": ("reflect('java.lang.System', 'setProperty', 'dcb.pwned', 'where') IS NOT NULL", "reflect()"),
    "java_method": ("java_method('java.lang.System', 'setProperty', 'dcb.pwned', 'where') IS NULL", "java_method()"),
    "subquery_on_a_file": (f"order_id IN (SELECT value FROM text.`{SENTINEL}`)", "subquery"),
    "subquery_on_a_model": ("order_id IN (SELECT order_id FROM orders)", "subquery"),
    "exists": ("EXISTS (SELECT 1)", "subquery"),
    "user_function": ("dcb_touch(order_total) > 0", "not a built-in function"),
    "environment": ("order_id <> '${env:HOME}'", "`${`"),
    "session": ("current_user() = 'root'", "current_user()"),
    "identifier": ("IDENTIFIER('order_id') IS NOT NULL", "IDENTIFIER"),
    "empty": ("   ", "empty"),
    "not_a_condition": ("order_id AS x", "does not parse"),
}


@pytest.mark.parametrize("name", sorted(WHERE_REFUSED))
def test_where_is_refused_before_spark_starts(name):
    where, said = WHERE_REFUSED[name]
    with pytest.raises(ValueError) as raised:
        filter_expression(where)
    assert said in str(raised.value) and "--where" in str(raised.value), str(raised.value)


@pytest.mark.parametrize("name", ["syntax_error", "second_statement", "reflect", "subquery_on_a_file", "environment"])
def test_cli_where_refused_is_exit_2_with_the_reason(name, spark, victim):
    where, said = WHERE_REFUSED[name]
    result = run_cli(ORDERS, "--where", where, "--engines", "spark", "--no-samples")
    assert result.exit_code == 2, result.output
    assert "dc-bridge run: --where" in result.output and said in result.output, result.output
    assert "Give one boolean expression" in result.output
    assert CANARY not in result.output
    assert spark.sparkContext._jvm.java.lang.System.getProperty("dcb.pwned") is None
    assert spark.table("dcb_victim").count() == 2


def test_where_names_the_columns_it_filters_on():
    assert filter_expression("order_timestamp >= '2024-01-01' AND exists(array(1), x -> x > 0) AND `D.O.B` IS NULL") == (
        "order_timestamp >= '2024-01-01' AND EXISTS(ARRAY(1), x -> x > 0) AND `D.O.B` IS NULL",
        frozenset({"order_timestamp", "D.O.B"}))


def test_cli_where_on_a_column_one_model_lacks_checks_that_model_unfiltered(tmp_path, spark):
    """contracts/orders.yaml: line_items has no order_timestamp. It is checked whole, and the verdict says so."""
    out = tmp_path / "verdict.json"
    result = run_cli(ORDERS, "--where", "order_timestamp >= '2024-01-01'", "--engines", "spark", "--no-samples",
                     "--output", "json", "--output-file", str(out))
    assert result.exit_code == 0, result.output
    verdict = json.loads(out.read_text())
    assert verdict["where"] == "order_timestamp >= '2024-01-01'"
    assert verdict["where_not_applied"] == {
        "line_items": "checked unfiltered: --where names `order_timestamp`, which `line_items` does not have"}
    checks = {c["check_id"]: c for m in verdict["models"] for c in m["checks"]}
    assert checks["orders.quality[1]"]["observed"] == 12    # every bundled order is of 2030
    assert checks["line_items.line_item_id.required"]["outcome"] == "passed"
    # every report says so, not only JSON
    reason = verdict["where_not_applied"]["line_items"]
    console = run_cli(ORDERS, "--where", "order_timestamp >= '2024-01-01'", "--engines", "spark", "--no-samples")
    assert "filter not applied: line_items: " + reason in " ".join(console.output.split()), console.output
    for output in ("junit", "html"):
        path = tmp_path / f"verdict.{output}"
        run_cli(ORDERS, "--where", "order_timestamp >= '2024-01-01'", "--engines", "spark", "--no-samples",
                "--output", output, "--output-file", str(path))
        text = path.read_text()
        assert ("line_items: " if output == "html" else "") + html.escape(reason) in text, text[:2000]


def test_cli_where_on_a_column_no_model_has_is_exit_2(spark):
    """The example docs/running.md gave for years: orders.yaml has no order_date at all."""
    result = run_cli(ORDERS, "--where", "order_date >= '2024-01-01'", "--engines", "spark", "--no-samples")
    assert result.exit_code == 2, result.output
    assert "--where \"order_date >= '2024-01-01'\" names `order_date`, which no model of" in result.output
    assert "orders: order_id, order_timestamp" in result.output


def test_cli_where_spark_cannot_apply_is_exit_2(spark):
    result = run_cli(ORDERS, "--where", "COUNT(order_id) > 1", "--engines", "spark", "--no-samples")
    assert result.exit_code == 2, result.output
    assert "cannot filter model `orders`" in result.output and "INVALID_WHERE_CONDITION" in result.output
