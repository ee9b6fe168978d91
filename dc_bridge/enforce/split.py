"""`dc_bridge.split`: a model's rows judged by the contract's row-level checks and partitioned into
valid and quarantined rows, with the verdict of the same call (DESIGN section 9, docs/enforcing.md).

- Every row-level check of the model (the registry's `Kind.row_level`) becomes a flag evaluated in
  one pass over the rows: the condition the native engine counts (engines/spark_conditions.py
  `VIOLATIONS`), one grouping per uniqueness key and one join per foreign key (scope.py).
- A row violating an `error`-severity check is quarantined; a `warning` or `info` violation annotates
  the row and keeps it valid. Both outputs carry the source columns and `VIOLATIONS_COLUMN`: every
  violated check of the row as (id, kind, severity, reason).
- The counts of each check are collected by a Spark `Observation` on that same pass (the pass that
  also caches the judged rows for the outputs), and judged exactly as the native engine judges its
  own (`judge_rows`). Table-level checks (row count, SQL metrics, freshness, column presence and type)
  cannot send a row anywhere: the native engine judges them on the whole table, through its door.
- With `where`, the rows judged are the slice the expression selects; uniqueness and foreign keys
  still compare against the whole table and the whole referenced model (scope.py); every check of
  the verdict states its scope.
- `engines` other than the native one (GX, Soda) judge the same rows in a run of their own beside the
  split's pass, and their reports fold into the verdict as a run's would: the rows are still split by
  the native conditions. A slice is judged against the whole table by the native engine only.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from dc_bridge import __version__
from dc_bridge.compiler import compile_contract, load_for_run, plan_for_run
from dc_bridge.contract.lint.java_regex import compiler_in
from dc_bridge.contract.model import Contract
from dc_bridge.contract.sql import filter_expression, quote_identifier, view_name
from dc_bridge.enforce.scope import FLAG, flagged
from dc_bridge.engines.columns import (
    absent_references,
    missing_columns,
    missing_message,
    unrunnable,
)
from dc_bridge.engines.native import ENGINE as NATIVE
from dc_bridge.engines.native import judge_rows
from dc_bridge.engines.registry import ENGINES
from dc_bridge.engines.results import EngineReport
from dc_bridge.engines.views import temp_views
from dc_bridge.plan.checks import Check, kind_of
from dc_bridge.runner.data import is_connect
from dc_bridge.runner.pipeline import run_engine
from dc_bridge.runner.reads import foreign_reads
from dc_bridge.verdict import Evidence, Verdict, fold

# the column that lists a row's violated checks, in both outputs
VIOLATIONS_COLUMN = "dc_bridge_violations"
# its type: one struct per violated check
VIOLATION_TYPE = "array<struct<id:string,kind:string,severity:string,reason:string>>"
# the engine whose semantics the split's counts follow, and under whose name its results fold
ENGINE_NAME = NATIVE.name
# the judged rows' own column while they are cached: whether the row is quarantined (an error-severity violation)
_QUARANTINED = "__dc_bridge_quarantined"


class SplitError(ValueError):
    """The split cannot judge the rows: a model the contract lacks, a column the checks need, a
    slice filter it cannot apply. Nothing is written or cached."""


@dataclass
class Split:
    """The split's outputs: `valid, quarantined, verdict = dc_bridge.split(...)` unpacks them.

    `valid` and `quarantined` read the judged rows this call cached; `release()` frees them once
    written. `rows` holds the rows judged (`slice`) and, with `where`, the rows of the whole table;
    `quarantined_rows` how many of the rows judged are quarantined (counted by the same pass)."""
    valid: Any
    quarantined: Any
    verdict: Verdict
    rows: dict[str, int]
    quarantined_rows: int = 0
    _cached: Any = None

    def __iter__(self) -> Iterator[Any]:
        return iter((self.valid, self.quarantined, self.verdict))

    def release(self) -> None:
        if self._cached is not None:
            self._cached.unpersist()


def split(contract: str | Path | Contract, model: str, df, *, where: str | None = None, frames: dict | None = None,
          now: datetime | None = None, vars: dict[str, str] | None = None, column: str = VIOLATIONS_COLUMN,
          engines: tuple[str, ...] | list[str] = (ENGINE_NAME,)) -> Split:
    """Judge `df` (the rows of `model`) by the contract and partition them into valid and quarantined rows.

    `where`: judge only the rows it selects (the slice); uniqueness still compares their keys with all
    of `df`, a foreign key looks them up in the whole referenced model. `frames`: the DataFrames of the
    other models the checks read (the models foreign keys reference, the views SQL checks join).
    `now`: the time retention and freshness are judged at (now, unless given). `engines`: whose
    results the verdict folds (the native engine's, counted by the split's own pass, unless given; GX
    and Soda each run the model's checks on the same rows once more). Raises SplitError when
    no row can be judged (a model the contract lacks, a column a row-level check needs); the verdict
    reports what only a run would (a table-level check on a missing column is `failed`)."""
    from pyspark.sql import functions as F

    began = time.perf_counter()
    started_at = datetime.now(timezone.utc)
    now = now or started_at
    now = now if now.tzinfo is not None else now.replace(tzinfo=timezone.utc)
    spark = df.sparkSession
    engines = chosen_engines(engines)
    if where is not None and engines != (ENGINE_NAME,):
        raise SplitError(f"where {where!r} judges a slice against the whole table, which only the native engine "
                         f"(`{ENGINE_NAME}`) does; leave out engines, or judge the whole DataFrame")
    where_filter = filter_expression(where) if where else None
    # lint compiles the contract's patterns in the session's own JVM, as a run does
    loaded, local_errors = load_for_run(contract, vars, compiler_in(lambda: None if is_connect(spark) else spark._jvm))
    plan, invalid = plan_for_run(loaded, local_errors)
    compiled = compile_contract(loaded, invalid=invalid, plan=plan)
    if model not in plan.models:
        raise SplitError(f"{loaded.file} has no model named `{model}` (models: {', '.join(plan.models)})")
    if column in df.columns:
        raise SplitError(f"the DataFrame already has a column `{column}`, which the split adds: rename it or pass column=...")
    frames = {**(frames or {}), model: df}
    slice_df = _slice(df, where, where_filter, model)
    checks = plan.for_model(model)
    row_level = [c for c in checks if kind_of(c).row_level and c.id not in compiled.invalid
                 and compiled.coverage[c.id].get(ENGINE_NAME) is None]
    _refuse_unjudgeable(df, row_level, frames, model)

    views = {view_name(loaded.id, name): frame for name, frame in frames.items() if name in plan.models}
    with temp_views(spark, views):
        table_level = [c for c in checks if c not in row_level]
        foreign = foreign_reads(spark, [c for c in table_level if c.id not in compiled.invalid],
                                {name: view_name(loaded.id, name) for name in frames if name in plan.models})
        absent = absent_references(table_level, frames)
        invalid = {**compiled.invalid, **foreign}
        judged, observation, counts, keys = _judge_rows(slice_df, df, row_level, frames, now, column)
        cached = judged.persist()
        cached.count()  # the one pass: flags and joins; the observation is filled by it
        for looked_up in keys:  # the judged rows are cached: the key sets their joins read are not needed again
            looked_up.unpersist()
        observed = observation.get
        rows = int(observed["rows"])
        results = {check.id: judge_rows(check, int(observed[name]), rows) for check, name in counts}
        reports = {}
        if ENGINE_NAME in engines:
            table_compiled = replace(compiled, plan=replace(plan, checks=tuple(table_level)), invalid={**invalid, **absent})
            report = NATIVE.run(spark, frames, table_compiled, model, now)
            reports[ENGINE_NAME] = EngineReport(ENGINE_NAME, model, {**report.results, **results}, time.perf_counter() - began,
                                                error=report.error)
        others = [engine for engine in engines if engine != ENGINE_NAME]
        if others:
            # translated again, as a run translates once the data is known: a check the data keeps from running gets no artifact
            translated = compile_contract(loaded, invalid={**invalid, **absent}, plan=plan)
            session = _engine_session(spark)
            rebound = {name: _in_session(frame, session) for name, frame in frames.items()}
            with temp_views(session, {view_name(loaded.id, name): frame for name, frame in rebound.items() if name in plan.models}):
                for engine in others:
                    reports[engine] = run_engine(engine, session, rebound, translated, model, now)
    table_rows = rows if where is None else _table_rows(df, reports[ENGINE_NAME], checks)
    reports = {engine: reports[engine] for engine in engines}  # in the order asked, as a run lists them
    verdict = _verdict(plan, model, compiled, reports, invalid, absent, rows, table_rows, where, row_level,
                       contract_file=loaded.file, started_at=started_at.isoformat(), spark_version=spark.version)
    quarantine = F.col(_QUARANTINED)
    counted = {"slice": rows, "table": table_rows} if where is not None else {"table": rows}
    return Split(valid=cached.where(~quarantine).drop(_QUARANTINED), quarantined=cached.where(quarantine).drop(_QUARANTINED),
                 verdict=verdict.model_copy(update={"seconds": round(time.perf_counter() - began, 3)}), rows=counted,
                 quarantined_rows=int(observed["quarantined"]), _cached=cached)


def _engine_session(spark):
    """The session GX and Soda query: GX's Spark data source takes the process's session
    (`SparkSession.builder.getOrCreate()`), which is not a streaming micro-batch's own."""
    if is_connect(spark):
        return spark
    from pyspark.sql import SparkSession

    return SparkSession.builder.getOrCreate()


def _in_session(frame, session):
    """`frame`'s rows as a DataFrame of `session`, so that a view of it is seen there (a micro-batch's
    rows and the caller's referenced models, each in a session of its own, meet in one)."""
    if is_connect(session) or frame.sparkSession._jsparkSession.equals(session._jsparkSession):
        return frame
    from pyspark.sql import DataFrame

    plan = frame._jdf.queryExecution().analyzed()
    return DataFrame(session._jvm.org.apache.spark.sql.Dataset.ofRows(session._jsparkSession, plan), session)


def chosen_engines(engines) -> tuple[str, ...]:
    """`engines` as a tuple, refused (SplitError) when empty or naming an engine there is not."""
    engines = tuple(engines)
    if not engines or any(engine not in ENGINES for engine in engines):
        raise SplitError(f"engines={engines!r}: choose among {', '.join(ENGINES)}")
    return engines


def _slice(df, where: str | None, where_filter, model: str):
    if where_filter is None:
        return df
    expression, columns = where_filter
    lacking = missing_columns(df, sorted(columns))
    if lacking:
        raise SplitError(f"where {where!r} names {', '.join(f'`{c}`' for c in lacking)}, which the rows of `{model}` do not have")
    try:
        return df.where(expression)
    except Exception as exc:  # Spark's analysis: a type mismatch, an aggregate in a filter
        first = next((line.strip() for line in str(exc).splitlines() if line.strip()), type(exc).__name__)
        raise SplitError(f"where {where!r} cannot filter `{model}`: {first}") from None


def _refuse_unjudgeable(df, checks: list[Check], frames: dict, model: str) -> None:
    """No row can be judged on a column that is not there, nor looked up in a model that is not given:
    refused before any Spark job (a run reports such a check as `failed` instead)."""
    for check in checks:
        problem = unrunnable(df, check)
        if problem is not None:
            raise SplitError(f"cannot split `{model}` by check {check.id}: {problem.reason}")
        to_model = getattr(check.params, "to_model", None)
        if kind_of(check).samples == "orphan_keys":
            if to_model not in frames:
                raise SplitError(f"cannot split `{model}` by check {check.id}: it looks keys up in `{to_model}`; "
                                 f"pass its rows as frames={{'{to_model}': df}}")
            lacking = missing_columns(frames[to_model], check.params.to_columns)
            if lacking:
                raise SplitError(f"cannot split `{model}` by check {check.id}: {missing_message(lacking, to_model)}, "
                                 "which the foreign key references")


def _reason(check: Check) -> str:
    """What the row breaks, in the contract's words when it has them."""
    columns = ", ".join(f"`{c}`" for c in check.columns)
    return check.description or f"{check.kind} on {columns}"


def _judge_rows(slice_df, table, checks: list[Check], frames: dict, now: datetime, column: str):
    """The slice with the violations column, observed: (frame, Observation, [(check, its count's name)])."""
    from pyspark.sql import Observation
    from pyspark.sql import functions as F

    source = list(slice_df.columns)
    frame, keys = flagged(slice_df, table, checks, frames, now)
    entries = [F.when(F.col(FLAG.format(i)), F.struct(F.lit(check.id).alias("id"), F.lit(check.kind).alias("kind"),
                                                       F.lit(check.severity).alias("severity"),
                                                       F.lit(_reason(check)).alias("reason")))
               for i, check in enumerate(checks)]
    # array_compact, not a `filter` lambda: higher-order functions are interpreted row by row, outside whole-stage code generation
    violations = F.array_compact(F.array(*entries)) if entries else F.from_json(F.lit("[]"), VIOLATION_TYPE)
    observation = Observation()
    counts = [(check, f"n{i}") for i, check in enumerate(checks)]
    # a row is quarantined when it violates an error-severity check; the flag is kept beside the rows
    # so that each output filters on a boolean rather than searching the list of violations
    quarantined = F.lit(False)
    for i, check in enumerate(checks):
        if check.severity == "error":
            quarantined = quarantined | F.col(FLAG.format(i))
    observed = frame.observe(observation, F.count(F.lit(1)).alias("rows"), F.count(F.when(quarantined, True)).alias("quarantined"),
                             *[F.count(F.when(F.col(FLAG.format(i)), True)).alias(name) for i, (_, name) in enumerate(counts)])
    judged = observed.select(*[F.col(quote_identifier(name)) for name in source], violations.alias(column), quarantined.alias(_QUARANTINED))
    return judged, observation, counts, keys


def _table_rows(df, report: EngineReport, checks: list[Check]) -> int:
    """The whole table's rows beside the slice's: a row count check of the table measured them already."""
    for check in checks:
        result = report.results.get(check.id)
        if kind_of(check).measure == "value" and not kind_of(check).sql_query and result is not None and result.observed is not None:
            return int(result.observed)
    return df.count()


def _verdict(plan, model: str, compiled, reports: dict[str, EngineReport], invalid: dict, absent: dict, rows: int, table_rows: int,
             where: str | None, row_level: list[Check], *, contract_file: str, started_at: str, spark_version: str) -> Verdict:
    """The fold of the split's reports (engine -> report) for `model` alone, each check with its scope."""
    checks = tuple(plan.for_model(model))
    ids = {check.id for check in checks}
    model_plan = replace(plan, checks=checks, models=(model,),
                         objectives=tuple(o for o in plan.objectives if set(o.check_ids) <= ids))
    evidence = Evidence(empty_models=frozenset({model}) if rows == 0 else frozenset(), row_counts={model: rows})
    verdict = fold(model_plan, {model: reports}, compiled.coverage, tuple(reports), invalid, evidence,
                   absent=absent, contract_file=contract_file, where=where, started_at=started_at,
                   engine_seconds={engine: round(report.seconds, 3) for engine, report in reports.items()},
                   versions={"dc-bridge": __version__, "spark": spark_version})
    errors = {engine: report.error for engine, report in reports.items() if report.error}
    if errors:
        verdict = verdict.model_copy(update={"engine_errors": errors})
    judged_rows = {check.id for check in row_level}
    sliced = where is not None

    def scoped(check):
        scope = "slice" if sliced and check.check_id in judged_rows else "table"
        note = None
        if sliced and kind_of(plan_checks[check.check_id]).measure == "value" and check.check_id not in judged_rows \
                and not kind_of(plan_checks[check.check_id]).sql_query:
            note = f"the table has {table_rows} rows; the slice {rows}"
        update: dict[str, Any] = {"scope": scope}
        if note:
            update["reason"] = f"{check.reason}; {note}" if check.reason else note
        return check.model_copy(update=update)

    plan_checks = {check.id: check for check in checks}
    models = [m.model_copy(update={"checks": [scoped(check) for check in m.checks]}) for m in verdict.models]
    return verdict.model_copy(update={"models": models})
