"""A SQL check that only counts its model's rows (`SELECT COUNT(*) FROM {model} [WHERE condition]`), or that
aggregates them into one number (`SELECT percentile_approx(amount, 0.95) FROM {model}`), is computed by the
native engine inside its one aggregation instead of a query of its own (contract/sql.py `count_query` and
`aggregate_query`, engines/native/run.py), and by the split inside its own pass (enforce/split.py): the same
value as Spark gives the query itself, on rows with nulls, NaN, a column named with a dot and text compared
with numbers, in both ANSI modes; any other query keeps its own run. The oracle is Spark running each query
on the same rows, not dc-bridge's code."""

from __future__ import annotations

import math

import pytest

from dc_bridge.contract.sql import CountQuery, aggregate_query, count_query

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


# an aggregate query -> the one expression the pass computes
AGGREGATE_FORMS = [
    (f"SELECT percentile_approx(amount, 0.95) FROM {M}", "PERCENTILE_APPROX(amount, 0.95)"),
    (f"select approx_percentile(amount, 0.5, 100) as median from `{M}`", "PERCENTILE_APPROX(amount, 0.5, 100)"),
    (f"SELECT (MAX(amount) - MIN(amount)) / 2 FROM {M}", "(MAX(amount) - MIN(amount)) / 2"),
    (f"SELECT SUM(qty) / COUNT(*) FROM {M}", "SUM(qty) / COUNT(*)"),
    (f"SELECT -AVG(`e.mail`) FROM {M}", "-AVG(`e.mail`)"),
    (f"SELECT COUNT(amount) FROM {M}", "COUNT(amount)"),
    (f"SELECT stddev_samp(qty) FROM {M}", "STDDEV_SAMP(qty)"),
]
# each an aggregate query the pass must not compute: it can raise on a row, reads other rows, differs between
# runs, or is not one aggregate of the model's plain columns
OWN_AGGREGATE = [
    f"SELECT COUNT(DISTINCT amount) FROM {M}",
    f"SELECT MAX(amount) FILTER (WHERE qty > 1) FROM {M}",
    f"SELECT MAX(LENGTH(status)) FROM {M}",
    f"SELECT SUM(CAST(code AS INT)) FROM {M}",
    f"SELECT MAX(amount) + qty FROM {M}",
    f"SELECT MAX(amount) + '1' FROM {M}",
    f"SELECT SUM(amount) - 1 * 2 FROM {M}",
    f"SELECT SUM(1) FROM {M}",
    f"SELECT 1 FROM {M}",
    f"SELECT MAX(t.amount) FROM {M} t",
    f"SELECT MAX(amount) FROM {M} WHERE qty > 1",
    f"SELECT MAX(amount) FROM {M} GROUP BY status",
    f"SELECT MAX(amount), MIN(amount) FROM {M}",
    f"SELECT percentile_approx(amount, array(0.5, 0.9)) FROM {M}",
    f"SELECT percentile_approx(amount, qty) FROM {M}",
    f"SELECT MAX(amount) FROM other",
    f"SELECT COUNT(*) FROM {M}",  # a count_query: the pass's row count, no expression
]


# (recogniser, query, what it gives): each form of the two, and each query it must leave to run on its own (None)
RECOGNISED = [*[(count_query, query, form) for query, form in FORMS], *[(aggregate_query, query, form) for query, form in AGGREGATE_FORMS],
              *[(count_query, query, None) for query in OWN_QUERY], *[(aggregate_query, query, None) for query in OWN_AGGREGATE]]


@pytest.mark.parametrize(("recognise", "query", "form"), RECOGNISED, ids=[f"{r.__name__}: {q}" for r, q, _ in RECOGNISED])
def test_a_query_is_recognised_or_left_to_run_on_its_own(recognise, query, form):
    assert recognise(query) == form


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
# (check name, aggregate, threshold): aggregate queries the pass computes, and two Spark refuses
AGGREGATES = [
    ("p95", "percentile_approx(qty, 0.95)", "mustBeLessThan: 100"),
    ("spread", "max(amount) - min(amount)", "mustBeLessThan: 100000"),  # NaN is the largest double: NaN, failed
    ("per_row", "sum(qty) / count(*)", "mustBeGreaterThan: 0"),
    ("dotted", "count(`e.mail`)", "mustBe: 3"),
    ("deviation", "stddev(qty)", "mustBeLessThan: 100"),
    ("text_mean", "avg(code)", "mustBeGreaterThan: 0"),  # 'x1' is no number: NULL, or an error under ANSI
    ("text_max", "max(status)", "mustBe: 0"),  # text: no number, an error as the query's own value would be
    ("missing_aggregate", "avg(absent)", "mustBe: 0"),
    ("unfit_aggregate", "percentile_approx(status, 0.5)", "mustBe: 0"),
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


def _queries() -> list[tuple[str, str, str]]:
    """(check name, the query over `{model}`, threshold) of every check, in the contract's order."""
    return [*[(name, "SELECT COUNT(*) FROM {model}" + (f" WHERE {condition}" if condition else ""), threshold)
              for name, condition, threshold in CHECKS],
            *[(name, f"SELECT {aggregate} FROM {{model}}", threshold) for name, aggregate, threshold in AGGREGATES]]


def _contract(path):
    checks = "\n".join(f"      - type: sql\n        name: {name}\n        query: {query}\n        {threshold}"
                       for name, query, threshold in _queries())
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


def _oracle(spark, frame) -> tuple[dict[str, object], set[str]]:
    """Spark's own value of each check's query on `frame` (None: it raised reading a row, or gave NULL), and the
    checks whose query Spark refuses before reading any row."""
    values, refused = {}, set()
    frame.createOrReplaceTempView("fused_sql_oracle")
    try:
        for name, query, _ in _queries():
            try:
                planned = spark.sql(query.replace("{model}", "fused_sql_oracle"))
            except Exception:
                refused.add(name)
                values[name] = None
                continue
            try:
                values[name] = planned.first()[0]
            except Exception:  # raises reading a row (ANSI)
                values[name] = None
    finally:
        spark.catalog.dropTempView("fused_sql_oracle")
    return values, refused


def _agrees(name, result, expected) -> None:
    """The check's result is what its query's value gives: no number an error, NaN failed, a number itself."""
    if expected is None or isinstance(expected, str):
        assert result.outcome == "error", (name, result, expected)
    elif isinstance(expected, float) and math.isnan(expected):
        assert result.outcome == "failed" and "NaN" in result.reason, (name, result)
    else:
        assert result.observed == float(expected), (name, result, expected)
        assert result.outcome in ("passed", "failed"), (name, result)


def _engine_executions(store, before: dict) -> int:
    """The native engine's own Spark SQL executions since `before` (a session guard's, or the split's pass, left out)."""
    return sum("dc_bridge/engines/" in description for description in _executions(store, after=max(before, default=-1)).values())


def _engine_plans(store, before: dict) -> list[str]:
    """The physical plans of the native engine's own Spark SQL executions since `before`."""
    listed, after = store.executionsList(), max(before, default=-1)
    return [execution.physicalPlanDescription() for execution in (listed.apply(i) for i in range(listed.size()))
            if execution.executionId() > after and "dc_bridge/engines/" in execution.description()]


def test_the_engine_computes_in_its_pass_what_spark_computes_by_the_query(spark, tmp_path):
    import dc_bridge

    frame = spark.createDataFrame(ROWS, "amount double, `e.mail` string, status string, qty int, code string")
    contract = _contract(tmp_path / "fused.yaml")
    ansi = spark.conf.get("spark.sql.ansi.enabled") == "true"
    store = spark._jsparkSession.sharedState().statusStore()
    before = _executions(store)
    verdict = dc_bridge.run(str(contract), dataframes={"orders": frame}, spark=spark, engines=("spark",), samples=False)
    executions = _engine_executions(store, before)
    plans = _engine_plans(store, before)
    found = {c.check_id: c for c in verdict.checks()}
    results = {name: found[f"orders.quality[{index}]"] for index, (name, _, _) in enumerate(_queries())}

    expected, refused = _oracle(spark, frame)
    for name, value in expected.items():
        _agrees(name, results[name], value)
    # the test can fail: -1, 20,000 and NaN (Spark orders NaN above every number) are out of range
    assert results["out_of_range"].outcome == "failed" and results["out_of_range"].observed == 3
    assert results["p95"].outcome == "passed" and results["p95"].observed == 9
    assert {"not_boolean", "missing_column", "missing_aggregate"} <= refused
    # without ANSI every query that runs is computed in the engine's passes (those Spark refuses never run): the one
    # aggregation Spark generates code for (the counts, sums, averages), and beside it one pass of the aggregates it
    # does not (percentile_approx, the max of text), which in the first would stop Spark generating code for every
    # count of it; under ANSI, where comparing text with a number raises for every row of the pass, each runs on its own
    assert executions == (1 + len(_queries()) - len(refused) if ansi else 2), executions
    if not ansi:
        counts = [plan for plan in plans if "count(CASE WHEN" in plan]
        assert len(counts) == 1 and "HashAggregate" in counts[0], plans
        assert "ObjectHashAggregate" not in counts[0] and "SortAggregate" not in counts[0], counts[0]
        assert any("percentile_approx" in plan and "ObjectHashAggregate" in plan for plan in plans), plans
    assert not math.isnan(results["all_rows"].observed) and results["all_rows"].observed == len(ROWS)


def test_the_split_computes_the_aggregates_in_its_own_pass(spark, tmp_path):
    """The split's verdict holds the same results as Spark's queries, and its pass computes every aggregate whose
    value is a number: the native engine's own pass is left with the one that is text (`max(status)`)."""
    import dc_bridge

    frame = spark.createDataFrame(ROWS, "amount double, `e.mail` string, status string, qty int, code string")
    contract = _contract(tmp_path / "fused.yaml")
    ansi = spark.conf.get("spark.sql.ansi.enabled") == "true"
    store = spark._jsparkSession.sharedState().statusStore()
    before = _executions(store)
    result = dc_bridge.split(str(contract), "orders", frame)
    try:
        verdict = result.verdict
    finally:
        result.release()
    executions = _engine_executions(store, before)
    found = {c.check_id: c for c in verdict.checks()}
    expected, refused = _oracle(spark, frame)
    for index, (name, _, _) in enumerate(_queries()):
        _agrees(name, found[f"orders.quality[{index}]"], expected[name])
    assert found[f"orders.quality[{[name for name, _, _ in _queries()].index('p95')}]"].observed == 9
    assert executions == (1 if not ansi else len(_queries()) - len(refused)), executions
