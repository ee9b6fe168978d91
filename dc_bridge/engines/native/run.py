"""The native Spark engine (`--engines spark`): the physical floor, and the reference the others are compared with.

Every row-level check of a model is one column of ONE aggregation (count of violating rows, max of
a timestamp; split in passes of at most 90 columns, so that Spark still compiles each); each uniqueness key adds one grouping, each foreign key one anti join, each SQL metric
its own query. The grouping and the anti join also give the smallest and largest failing key, as
samples; failing values of row-level checks are left to runner/samples.py, like for the other engines. That is the floor docs/benchmarks.md measures against (Deequ and cuallee work the
same way). It judges its numbers exactly like the other runners (`Threshold.holds`), and its
results fold like any engine's, so with `--engines gx,soda,spark` a disagreement with either
engine is caught. Custom GX and Soda checks are not run here.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Callable

from dc_bridge.plan import checks as c
from dc_bridge.plan.checks import Check, kind_of
from dc_bridge.contract.sql import TABLE_MARKER, aggregate_query, count_query
from dc_bridge.engines.columns import column_type, missing_columns, missing_message, unrunnable
from dc_bridge.engines.engine import Unsupported
from dc_bridge.engines.nested_types import type_problem
from dc_bridge.engines.queries import judge_metric
from dc_bridge.engines.native.translate import TRANSLATIONS, translate_check
from dc_bridge.engines.results import CheckResult, EngineReport, age_seconds
from dc_bridge.engines.spark_conditions import VIOLATIONS, aggregate, column, duplicates, generated, key_examples


@dataclass
class FusedPass:
    """A run of a model planned up to its one aggregation: `columns`, the pass's columns by name (with the rows'
    count `rows` unless the caller counts them). `report()` runs them as one aggregation and judges every check;
    `totals` (name -> value, other names ignored): those a pass of the caller's own computed already (the split's),
    the others still aggregated here: the same results either way."""
    spark: Any
    df: Any
    now: datetime
    view: str
    frames: dict
    model: str
    known: dict[str, CheckResult]  # judged from the schema alone
    runnable: list[Check]
    columns: dict[str, Any]
    queries: dict[str, bool]  # SQL metric computed in the pass -> whether its value is the rows' count
    started: float
    error: str | None = None  # planning failed: no result can be trusted
    metric_aggregates: frozenset = frozenset()  # the columns of SQL metrics that aggregate a column (`aggregate_query`)

    def report(self, *, totals: dict | None = None, rows: int | None = None) -> EngineReport:
        if self.error is not None:
            return self._failed(self.error)
        try:
            given = totals or {}
            left = {name: column.alias(name) for name, column in self.columns.items() if name not in given}
            # an aggregate Spark does not compute in generated code (percentile_approx) in the pass would stop it
            # generating code for every count of it (1.7x their task CPU at 10M rows): a pass of its own
            apart = [left.pop(name) for name in [n for n in left if n in self.metric_aggregates and not generated(self.df, left[n])]]
            values = {**aggregate(self.df, list(left.values())), **(aggregate(self.df, apart) if apart else {})}
            results, rows = self._results({**values, **given}, rows)
        except Exception as exc:  # the whole run failed: no result can be trusted
            return self._failed(f"{type(exc).__name__}: {exc}")
        return EngineReport("spark", self.model, results, time.perf_counter() - self.started, rows=rows)

    def _failed(self, error: str) -> EngineReport:
        return EngineReport("spark", self.model, {}, time.perf_counter() - self.started, error=error)

    def _results(self, totals: dict, rows: int | None) -> tuple[dict[str, CheckResult], int]:
        rows = int(totals["rows"]) if rows is None else rows
        results = dict(self.known)
        for index, check in enumerate(self.runnable):
            if check.id in self.queries:  # judged as its query's value would be
                value = rows if self.queries[check.id] else totals[f"v{index}"]
                outcome, observed, reason = judge_metric(check.threshold, value)
                results[check.id] = CheckResult(check.id, "spark", outcome, observed=observed, native_name="sql", error=reason)
                continue
            results[check.id] = EVALUATIONS[TRANSLATIONS[check.kind]](
                check, spark=self.spark, df=self.df, frames=self.frames, view=self.view, now=self.now, rows=rows,
                fused=totals.get(f"v{index}"))
        return results, rows


def fused_pass(spark, df, checks: list[Check], now: datetime, *, view: str, frames: dict[str, Any],
               counted: bool = False) -> FusedPass:
    """`checks` of `df` planned up to their one aggregation (FusedPass). `counted`: the caller counts the rows."""
    from pyspark.sql import functions as F

    started = time.perf_counter()
    model = checks[0].model if checks else ""
    now = now if now.tzinfo is not None else now.replace(tzinfo=timezone.utc)
    known: dict[str, CheckResult] = {}
    runnable, columns, queries = [], {} if counted else {"rows": F.count(F.lit(1))}, {}
    try:
        for check in [k for k in checks if not isinstance(translate_check(k, ""), Unsupported)]:
            problem = unrunnable(df, check)
            if kind_of(check).presence:  # evaluated, and failing, when the column is missing
                absent = missing_columns(df, check.columns)
                known[check.id] = CheckResult(check.id, "spark", "failed" if absent else "passed", native_name="schema")
            elif problem is not None:  # a missing column: failed; a column of an unfit type: error (engines/columns.py)
                known[check.id] = CheckResult(check.id, "spark", problem.outcome, native_name="schema", error=problem.reason)
            elif TRANSLATIONS[check.kind] == "schema":  # the column's type, from the schema alone
                known[check.id] = _column_type(df, check)
            else:
                runnable.append(check)
        # one pass: the row count (unless the caller counts the rows: the split's pass), every violation
        # count, every freshness max, every SQL metric that only counts or aggregates the model's rows
        # (`_fused_queries`) (failing values of row-level checks are fetched afterwards for the failed ones
        # only, by runner/samples.py, reading just enough rows); no pass when none of them is left
        fused_queries = _fused_queries(spark, df, runnable)
        for index, check in enumerate(runnable):
            if check.id in fused_queries:  # the row count is the pass's own; a count or an aggregate, a column of it
                if fused_queries[check.id] is not None:
                    columns[f"v{index}"] = fused_queries[check.id]
                queries[check.id] = fused_queries[check.id] is None
                continue
            in_fused_pass = FUSED.get(TRANSLATIONS[check.kind])
            if in_fused_pass is not None:
                columns[f"v{index}"] = in_fused_pass(check, now)
        error = None
    except Exception as exc:  # the whole run failed: no result can be trusted
        error = f"{type(exc).__name__}: {exc}"
    aggregated = frozenset(f"v{index}" for index, check in enumerate(runnable) if check.id in queries and not queries[check.id]
                           and count_query(check.params.query) is None)
    return FusedPass(spark, df, now, view, frames, model, known, runnable, columns, queries, started, error, metric_aggregates=aggregated)


def _fused_queries(spark, df, checks: list[Check]) -> dict[str, Any]:
    """check id -> the column that computes its value in the pass (None: the rows' count), for each SQL metric that
    is `SELECT COUNT(*) FROM {model} [WHERE condition]` (contract/sql.py `count_query`) or one aggregate of the
    model's columns (`aggregate_query`): its value is the fused pass's, not a query of its own. Not under ANSI
    mode, where a comparison of text with a number or an overflowing sum raises for the whole pass; not an
    expression Spark cannot analyse on these rows (as a boolean condition, as an aggregate): its own query then
    reports why."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import BooleanType

    if str(spark.conf.get("spark.sql.ansi.enabled", "false")).lower() == "true":
        return {}
    fused = {}
    for check in checks:
        if not isinstance(check.params, c.SqlMetric):
            continue
        form, aggregated = count_query(check.params.query), aggregate_query(check.params.query)
        try:
            if form is not None and form.condition is None:
                fused[check.id] = None
            elif form is not None and isinstance(df.select(F.expr(form.condition)).schema.fields[0].dataType, BooleanType):
                fused[check.id] = F.count(F.when(F.expr(form.condition), True))
            elif aggregated is not None:
                df.agg(F.expr(aggregated)).schema  # analysed: a column the rows lack, an aggregate of an unfit type
                fused[check.id] = F.expr(aggregated)
        except Exception:  # left to the query's own error
            continue
    return fused


# how a kind is evaluated (translate.TRANSLATIONS) -> its column of the fused aggregation, when it has one
FUSED: dict[str, Callable[[Check, datetime], Any]] = {
    "count in the fused aggregation": lambda check, now: _count_violations(check, now),
    "max in the fused aggregation": lambda check, now: _max(check),
}


def _count_violations(check: Check, now: datetime):
    from pyspark.sql import functions as F

    return F.count(F.when(VIOLATIONS[check.kind](check, check.params, now), True))


def _max(check: Check):
    from pyspark.sql import functions as F

    return F.max(column(check.column))


def _fused_count(check: Check, *, rows: int, fused, **_) -> CheckResult:
    return _judge(check, count=int(fused or 0), rows=rows, native="count_if")


def _fused_max(check: Check, *, now: datetime, fused, **_) -> CheckResult:
    age = age_seconds(fused, now)
    return CheckResult(check.id, "spark", "failed", native_name="max") if age is None else _judge(check, value=age, native="max")


def _grouping(check: Check, *, df, rows: int, **_) -> CheckResult:
    # the contract declares the key unique, so its values are expected to be mostly distinct, where the
    # window costs less than the grouping (10M rows: 11 s against 19 s of Spark CPU). Data that breaks
    # the declaration massively (a handful of values) is counted right all the same, slower: no estimate
    # is taken first (`approx_count_distinct` in the fused pass is no declarative aggregate, so Spark
    # no longer compiled the whole pass, which cost more than the window saved; docs/benchmarks.md)
    count, distinct, examples = duplicates(df, check, mostly_distinct=True)
    return _judge(check, count=count, rows=rows, native="window", samples=examples, duplicated_values=distinct)


# how a kind is evaluated (translate.TRANSLATIONS) -> the function that judges one check from the fused pass or its own job
EVALUATIONS: dict[str, Callable[..., CheckResult]] = {
    "count in the fused aggregation": _fused_count,
    "rows of the fused aggregation": lambda check, *, rows, **_: _judge(check, value=float(rows), native="count"),
    "max in the fused aggregation": _fused_max,
    "grouping": _grouping,
    "anti join": lambda check, *, df, frames, rows, **_: _foreign_key(df, check, check.params, frames, rows),
    "query": lambda check, *, spark, view, **_: _sql_metric(spark, check, check.params, view),
}


def _judge(check: Check, *, native: str, count: int | None = None, rows: int | None = None, value: float | None = None,
           samples: list | None = None, duplicated_values: int | None = None) -> CheckResult:
    percent = None
    if count is not None:
        percent = 100.0 * count / rows if rows else 0.0
        value = percent if check.unit == "percent" else float(count)
    outcome = "passed" if check.threshold.holds(value) else "failed"
    return CheckResult(check.id, "spark", outcome, observed=value, unexpected_count=count, unexpected_percent=percent,
                       native_name=native, samples=(samples or []) if outcome == "failed" else [],
                       duplicated_values=duplicated_values if outcome == "failed" else None)


def _foreign_key(df, check: Check, params: c.ForeignKey, frames: dict, rows: int) -> CheckResult:
    from pyspark.sql import functions as F

    target = frames.get(params.to_model)
    if target is None:
        return CheckResult(check.id, "spark", "error", native_name="anti join",
                           error=f"the referenced model `{params.to_model}` has no data in this run")
    absent = missing_columns(target, params.to_columns)
    if absent:  # a judgement about the data, like a missing column of the check's own (engines/columns.py)
        return CheckResult(check.id, "spark", "failed", native_name="anti join", error=f"{missing_message(absent, params.to_model)}, which the foreign key references")
    keys = [f"k{i}" for i in range(len(check.columns))]
    child = df.select(*[column(name).alias(key) for key, name in zip(keys, check.columns)]).dropna()
    parent = target.select(*[column(name).alias(key) for key, name in zip(keys, params.to_columns)]).dropna().distinct()
    orphan_key = F.col("k0") if len(keys) == 1 else F.struct(*keys)
    row = child.join(parent, keys, "left_anti").agg(F.count(F.lit(1)).alias("n"), F.min(orphan_key).alias("lo"),
                                                     F.max(orphan_key).alias("hi")).first()
    examples = [] if check.sensitive else key_examples(row["lo"], row["hi"])
    return _judge(check, count=int(row["n"]), rows=rows, native="anti join", samples=examples)


def _sql_metric(spark, check: Check, params: c.SqlMetric | c.Frequency, view: str) -> CheckResult:
    query = params.query.replace(f"`{TABLE_MARKER}`", view).replace(TABLE_MARKER, view)
    try:
        row = spark.sql(query).first()
    except Exception as exc:
        # the whole text: a Py4J error's first line names only the JVM call; CheckResult keeps the root cause
        return CheckResult(check.id, "spark", "error", native_name="sql", error=str(exc).strip() or type(exc).__name__)
    # the one judge of a metric's value (engines/queries.py): no number is error, NaN failed, decimals exact
    outcome, observed, reason = judge_metric(check.threshold, row[0] if row is not None else None)
    return CheckResult(check.id, "spark", outcome, observed=observed, native_name="sql", error=reason)


def _column_type(df, check: Check) -> CheckResult:
    params: c.ColumnType = check.params
    found = column_type(df, check.column) if check.column is not None else None
    if found is None:  # a missing column is a failed check, like in every engine (engines/columns.py)
        return CheckResult(check.id, "spark", "failed", native_name="schema", error=missing_message(list(check.columns)))
    # the column's own type and its nested elements' types: the rule every engine follows (engines/nested_types.py)
    problem = type_problem(found, params)
    return CheckResult(check.id, "spark", "failed" if problem else "passed", native_name="schema", error=problem)
