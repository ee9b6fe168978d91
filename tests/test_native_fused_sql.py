"""A SQL check that only counts its model's rows (`SELECT COUNT(*) FROM {model} [WHERE condition]`) is counted
by the native engine inside its one aggregation instead of a query of its own (contract/sql.py
`count_query`, engines/native/run.py): the same value as Spark gives the query itself, on rows with nulls,
NaN, a column named with a dot and text compared with numbers, in both ANSI modes; any other query keeps its
own run. The oracle is Spark running each query on the same rows, not dc-bridge's code."""

from __future__ import annotations

import math

import pytest

from dc_bridge.contract.sql import CountQuery, count_query

M = "__dc_bridge_table__"

FORMS = [
    (f"SELECT COUNT(*) FROM {M}", CountQuery(None)),
    (f"select count(1) as n from `{M}`", CountQuery(None)),
    (f"SELECT COUNT(*) FROM {M} WHERE amount < 0 OR amount > 10000", CountQuery("amount < 0 OR amount > 10000")),
    (f"SELECT COUNT(*) FROM {M} WHERE `e.mail` IS NULL", CountQuery("`e.mail` IS NULL")),
    (f"SELECT COUNT(*) FROM {M} WHERE status IN ('a', 'b') AND NOT qty BETWEEN 1 AND 5",
     CountQuery("status IN ('a', 'b') AND NOT qty BETWEEN 1 AND 5")),
]
# each a query the native engine must run as it is: more than one count, another table, a grouping, a
# condition that can raise or read other rows
OWN_QUERY = [
    f"SELECT COUNT(*) FROM {M} t WHERE t.amount > 1",
    f"SELECT COUNT(*) FROM {M} WHERE amount > (SELECT 1)",
    f"SELECT COUNT(*) FROM {M} WHERE CAST(status AS INT) > 1",
    f"SELECT COUNT(*) FROM {M} WHERE amount / qty > 1",
    f"SELECT COUNT(*) FROM {M} WHERE status LIKE 'a%'",
    f"SELECT COUNT(*) FROM {M} WHERE upper(status) = 'A'",
    f"SELECT COUNT(amount) FROM {M}",
    f"SELECT COUNT(DISTINCT amount) FROM {M}",
    f"SELECT COUNT(NULL) FROM {M}",
    f"SELECT COUNT(*), 1 FROM {M}",
    f"SELECT COUNT(*) FROM {M} GROUP BY status",
    f"SELECT COUNT(*) FROM {M} LIMIT 1",
    f"SELECT COUNT(*) FROM {M} JOIN other ON 1 = 1",
    f"SELECT COUNT(*) FROM db.{M}",
    f"WITH a AS (SELECT * FROM {M}) SELECT COUNT(*) FROM a",
    f"SELECT SUM(amount) FROM {M}",
    "SELECT COUNT(*) FROM other",
]


@pytest.mark.parametrize(("query", "form"), FORMS)
def test_a_query_that_counts_rows_is_recognised(query, form):
    assert count_query(query) == form


@pytest.mark.parametrize("query", OWN_QUERY)
def test_any_other_query_is_left_to_run_on_its_own(query):
    assert count_query(query) is None


# (check name, condition, threshold): every row-count form the native engine counts in its pass, and two it must not
CHECKS = [
    ("all_rows", None, "mustBeGreaterThan: 0"),
    ("out_of_range", "amount < 0 OR amount > 10000", "mustBe: 0"),
    ("dotted_null", "`e.mail` IS NULL", "mustBeLessThan: 3"),
    ("in_and_between", "status IN ('new', 'paid') AND NOT qty BETWEEN 1 AND 5", "mustBe: 0"),
    ("text_as_number", "code > 10", "mustBeLessThanOrEqualTo: 100"),  # 'x1' is no number: NULL, or an error under ANSI
    ("null_literal", "amount = NULL OR qty <> -2", "mustBeGreaterThan: 1"),
    ("not_boolean", "qty", "mustBe: 0"),  # Spark refuses the WHERE: the check's own error, not the pass's
    ("missing_column", "absent > 1", "mustBe: 0"),
]
ROWS = [  # amount, e.mail, status, qty, code
    (5.0, "a@x.org", "new", 3, "5"),
    (-1.0, None, "paid", 7, "x1"),
    (float("nan"), "b@x.org", None, None, "20"),
    (None, None, "shipped", -2, None),
    (20000.0, "c@x.org", "new", 9, "11"),
]


@pytest.fixture(scope="module")
def spark(ansi_spark):
    return ansi_spark


def _contract(path):
    checks = "\n".join(
        f"      - type: sql\n        name: {name}\n        query: SELECT COUNT(*) FROM {{model}}"
        f"{' WHERE ' + condition if condition else ''}\n        {threshold}" for name, condition, threshold in CHECKS)
    path.write_text(f"""\
apiVersion: v3.0.2
kind: DataContract
id: fused_sql
version: 1.0.0
status: active
schema:
  - name: orders
    quality:
{checks}
    properties:
      - {{name: amount, logicalType: number}}
      - {{name: e.mail, logicalType: string}}
      - {{name: status, logicalType: string}}
      - {{name: qty, logicalType: integer}}
      - {{name: code, logicalType: string}}
""", encoding="utf-8")
    return path


def _executions(store, after: int = -1) -> dict[int, str]:
    """The session's Spark SQL executions after id `after`: id -> description. By id, not by position: the store
    keeps the newest `spark.sql.ui.retainedExecutions` only, so a long test run's older ones are gone."""
    listed = store.executionsList()
    found = {}
    for i in range(listed.size()):
        execution = listed.apply(i)
        if execution.executionId() > after:
            found[execution.executionId()] = execution.description()
    return found


def test_the_engine_counts_in_its_pass_what_spark_counts_by_the_query(spark, tmp_path):
    import dc_bridge

    frame = spark.createDataFrame(ROWS, "amount double, `e.mail` string, status string, qty int, code string")
    contract = _contract(tmp_path / "fused.yaml")
    ansi = spark.conf.get("spark.sql.ansi.enabled") == "true"
    store = spark._jsparkSession.sharedState().statusStore()
    before = _executions(store)
    verdict = dc_bridge.run(str(contract), dataframes={"orders": frame}, spark=spark, engines=("spark",), samples=False)
    # the engine's own Spark SQL executions (the session guard's, around a run in a caller's session, left out)
    executions = sum("dc_bridge/engines/" in description for description in _executions(store, after=max(before, default=-1)).values())
    found = {c.check_id: c for c in verdict.checks()}
    results = {name: found[f"orders.quality[{index}]"] for index, (name, _, _) in enumerate(CHECKS)}

    frame.createOrReplaceTempView("fused_sql_oracle")
    try:
        for name, condition, _ in CHECKS:
            query = "SELECT COUNT(*) FROM fused_sql_oracle" + (f" WHERE {condition}" if condition else "")
            try:
                expected = spark.sql(query).first()[0]
            except Exception:
                expected = None  # Spark refuses the query, or raises reading a row (ANSI)
            result = results[name]
            if expected is None:
                assert result.outcome == "error", (name, result)
            else:
                assert result.observed == float(expected), (name, result, expected)
                assert result.outcome in ("passed", "failed"), (name, result)
    finally:
        spark.catalog.dropTempView("fused_sql_oracle")
    # the test can fail: -1, 20,000 and NaN (Spark orders NaN above every number) are out of range
    assert results["out_of_range"].outcome == "failed" and results["out_of_range"].observed == 3
    # without ANSI every query that runs is counted in the one aggregation (the two Spark refuses never run); under
    # ANSI, where comparing text with a number raises for every row of the pass, each runs on its own
    refused = ("not_boolean", "missing_column")
    assert executions == 1 + (len(CHECKS) - len(refused) if ansi else 0), executions
    assert not math.isnan(results["all_rows"].observed) and results["all_rows"].observed == len(ROWS)
