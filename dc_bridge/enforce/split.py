"""`dc_bridge.split`: a model's rows judged by the contract's row-level checks and partitioned into
valid and quarantined rows, with the verdict of the same call (docs/enforcing.md).

- Every row-level check of the model (the registry's `Kind.row_level`) becomes a flag evaluated in
  one pass over the rows: the condition the native engine counts (engines/spark_conditions.py
  `VIOLATIONS`), one grouping per uniqueness key and one join per foreign key (scope.py).
- A row violating an `error`-severity check is quarantined; a `warning` or `info` violation annotates
  the row and keeps it valid. Both outputs carry the source columns and `VIOLATIONS_COLUMN`: every
  violated check of the row as (id, kind, severity, reason).
- The counts of each check are collected by a Spark `Observation` on the judged rows (a check's
  count: the rows whose violations list it) of the first pass that reads every row (`Split`): the
  counting pass, which caches the quarantined rows only, or `Split.write`'s one write of both
  outputs; and judged exactly as the native engine judges its own (`judge_rows`). The judged rows
  are never cached whole: the valid rows are recomputed from the source when written. Table-level
  checks (row count, SQL metrics, freshness, column presence and type) cannot send a row anywhere:
  the native engine judges them on the whole table, through its door (`counted_pass`): unless the pass
  judged a slice, the aggregates they need (the rows' count, a freshness's latest time, an aggregate SQL
  metric's value) are observed by the same pass, and the rows are not read again for them.
- With `where`, the rows judged are the slice the expression selects; uniqueness and foreign keys
  still compare against the whole table and the whole referenced model (scope.py); every check of
  the verdict states its scope.
- `engines` other than the native one (GX, Soda) judge the same rows in a run of their own beside the
  split's pass, and their reports fold into the verdict as a run's would: the rows are still split by
  the native conditions. A slice is judged against the whole table by the native engine only.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from dc_bridge import __version__
from dc_bridge.compiler import compile_contract, load_for_run, plan_for_run
from dc_bridge.contract.lint.java_regex import compiler_in
from dc_bridge.contract.model import Contract
from dc_bridge.contract.sql import filter_expression, quote_identifier, sql_literal, view_name
from dc_bridge.enforce.scope import FLAG, flagged
from dc_bridge.engines.columns import (
    absent_references,
    exact_ranges,
    missing_columns,
    missing_message,
    unrunnable,
)
from dc_bridge.engines.native import ENGINE as NATIVE
from dc_bridge.engines.native import counted_pass, judge_rows
from dc_bridge.engines.registry import ENGINES
from dc_bridge.engines.results import EngineReport
from dc_bridge.engines.views import held, temp_views
from dc_bridge.plan.checks import Check, kind_of
from dc_bridge.runner.data import is_connect, jvm_of
from dc_bridge.runner.pipeline import run_engine
from dc_bridge.runner.reads import foreign_reads
from dc_bridge.runner.threads import run_side_by_side
from dc_bridge.verdict import Evidence, Verdict, fold

# the column that lists a row's violated checks, in both outputs
VIOLATIONS_COLUMN = "dc_bridge_violations"
# its type: one struct per violated check
VIOLATION_TYPE = "array<struct<id:string,kind:string,severity:string,reason:string>>"
# the engine whose semantics the split's counts follow, and under whose name its results fold
ENGINE_NAME = NATIVE.name
# the judged rows' own column: whether the row is quarantined (an error-severity violation); `Split.write` partitions by it
_QUARANTINED = "__dc_bridge_quarantined"


class SplitError(ValueError):
    """The split cannot judge the rows: a model the contract lacks, a column the checks need, a
    slice filter it cannot apply. Nothing is written or cached."""


@dataclass
class Split:
    """The split's outputs: `valid, quarantined, verdict = dc_bridge.split(...)` unpacks them.

    The rows are judged lazily. The verdict (`verdict`, `rows`, `quarantined_rows`) comes from the
    first pass that reads every row: the counting pass, run when one of them (or `quarantined`, or
    the unpacking) is first asked for, which caches the quarantined rows only; or `write`, which
    writes both outputs in one pass and fills the same counts. `valid` recomputes its rows from
    the source when it is written (the flags and the joins with the cached key sets), so the
    judged rows are never cached whole. `release()` frees the cached rows and key sets once written.
    `rows` holds the rows judged (`slice`) and, with `where`, the rows of the whole table;
    `quarantined_rows` how many of the rows judged are quarantined."""
    judged: Any  # every judged row: the source columns, the violations column and `_QUARANTINED`
    _settle: Callable[[dict], tuple[Verdict, dict[str, int]]]  # the observed counts -> (verdict, rows)
    _observation: Callable[[], tuple[Any, Any]]  # -> (`judged` observed, its Observation): one per pass
    _recounted: Callable[[], dict]  # the same counts by an aggregation of their own
    _rejudged: Callable[[Any], Any]  # rows of the slice -> judged again against the same key sets
    _column: str = VIOLATIONS_COLUMN
    _cached: list = field(default_factory=list)  # the quarantined rows once counted
    _key_sets: dict = field(default_factory=dict)  # check index -> its cached key set (scope.py `flagged`)
    _judgement: tuple[Verdict, dict[str, int], int] | None = None
    _quarantined: Any = None
    _contract: Any = None  # the contract judged (its file, or a Contract): no output may replace the files it was read from
    _frames: dict = field(default_factory=dict)  # every model's DataFrame the split read (the referenced ones too), likewise

    def __iter__(self) -> Iterator[Any]:
        self._count()
        return iter((self.valid, self.quarantined, self.verdict))

    @property
    def valid(self):
        return _rows(self.judged, quarantined=False)

    @property
    def quarantined(self):
        self._count()
        return self._quarantined

    @property
    def verdict(self) -> Verdict:
        return self._count()[0]

    @property
    def rows(self) -> dict[str, int]:
        return self._count()[1]

    @property
    def quarantined_rows(self) -> int:
        return self._count()[2]

    def write(self, *, valid: str, quarantined: str, format: str = "parquet", overwrite: bool = False) -> Verdict:
        """Write both outputs (folders, as Spark writes them; each with the columns of `valid` and
        `quarantined`) all or none (enforce/outputs.py), and return the verdict. Before the counting
        pass, in one Spark job: the judged rows written once, partitioned by whether they are
        quarantined, into a hidden folder whose two parts are then moved into place; its
        Observation gives the verdict's counts. An existing path is refused (OutputError) unless `overwrite`."""
        from dc_bridge.enforce.outputs import Output

        return self.write_to({False: Output("valid", valid, None, "overwrite=True"),
                              True: Output("quarantined", quarantined, None, "overwrite=True")}, format, overwrite)

    def write_to(self, outputs: dict, format: str, overwrite: bool = False, annotated_valid: bool = True) -> Verdict:
        """`write`, to `outputs` (False: the valid rows', True: the quarantined rows' enforce/outputs.py
        `Output`, their rows None), as their messages name them. `annotated_valid=False`: the valid output
        keeps the source columns alone (the command line's `--valid-output`): the one write holds the
        source columns only, and its quarantined part (the few rows) is read back and judged once more,
        against the same cached key sets, for its violations (only from a format of outputs.py's EXACT_FORMATS:
        another is written by the counting pass and a second one)."""
        from dc_bridge.enforce.outputs import write_all, write_partitioned
        from dc_bridge.runner.outputs import contract_places

        from dc_bridge.enforce.outputs import read_paths
        from dc_bridge.paths import Place

        also = contract_places(self._contract) + [Place(path, f"a path model `{name}` is read from")
                                                  for name, frame in self._frames.items() for path in read_paths(frame)]
        if self._judgement is None:
            observed, observation = self._observation()
            # dropped by its name: a name given to `select` as text is parsed (`e.mail` a field of `e`)
            rows, rewritten = (observed, {}) if annotated_valid else (
                observed.drop(self._column), {True: lambda part: self._rejudged(part).drop(_QUARANTINED)})
            if write_partitioned(rows, _QUARANTINED, outputs, format, overwrite, rewritten, also):
                self._judged_by(observation)
                return self.verdict
        valid_rows = self.valid if annotated_valid else self.valid.drop(self._column)
        write_all([replace(outputs[False], rows=valid_rows), replace(outputs[True], rows=self.quarantined)], format, overwrite, also)
        return self.verdict

    def write_first(self, write: Callable[[Any], None], rows: str = "valid",
                    quarantined: Callable[[Any], None] | None = None) -> Verdict:
        """Make the caller's write of the valid rows (`rows="valid"`) or of every row (`"all"`), each with the
        source columns and the violations column, the pass that reads every row: `write(frame)` writes them,
        and the pass's Observation gives the verdict, returned. No counting pass and no cache (the streaming
        guard's batches). `quarantined(frame)`: the caller's write of the quarantined rows, recomputed from the
        source, run side by side with the first write in a thread of its own: a micro-batch read from one file
        is one task, which leaves the other cores idle."""
        observed, observation = (self.judged, None) if self._judgement is not None else self._observation()
        works = {"first": lambda: write(_rows(observed, quarantined=False) if rows == "valid" else observed.drop(_QUARANTINED))}
        if quarantined is not None:
            works["quarantined"] = lambda: quarantined(_rows(self.judged, quarantined=True))
        run_side_by_side(works, self.judged.sparkSession)
        if observation is not None:
            self._judged_by(observation)
        return self.verdict

    def release(self) -> None:
        for frame in [*self._cached, *self._key_sets.values()]:
            frame.unpersist()
        self._cached.clear()
        self._key_sets.clear()

    def _count(self) -> tuple[Verdict, dict[str, int], int]:
        """The counting pass, once: every row judged and counted, the quarantined rows cached."""
        if self._judgement is None:
            observed, observation = self._observation()
            cached = _rows(observed, quarantined=True).persist()
            cached.count()
            self._cached.append(cached)
            self._quarantined = cached
            self._judged_by(observation)
        return self._judgement

    def _judged_by(self, observation) -> None:
        # Spark's adaptive execution reads a cache it finds empty as no relation at all, and the
        # observation inside it then reaches no listener: with no quarantined row, counted again
        observed = observation.get or self._recounted()
        verdict, rows = self._settle(observed)
        self._judgement = (verdict, rows, int(observed["quarantined"]))
        if self._quarantined is None:  # written in one pass: the quarantined rows are read from the source again, if asked
            self._quarantined = _rows(self.judged, quarantined=True)


def _rows(judged, *, quarantined: bool):
    """The judged rows that are (or are not) quarantined, without the split's own flag."""
    from pyspark.sql import functions as F

    flag = F.col(_QUARANTINED)
    return judged.where(flag if quarantined else ~flag).drop(_QUARANTINED)


def split(contract: str | Path | Contract, model: str, df, *, where: str | None = None, frames: dict | None = None,
          now: datetime | None = None, vars: dict[str, str] | None = None, column: str = VIOLATIONS_COLUMN,
          engines: tuple[str, ...] | list[str] = (ENGINE_NAME,), prepared: Prepared | None = None,
          keys_in_pass: bool = False) -> Split:
    """Judge `df` (the rows of `model`) by the contract and partition them into valid and quarantined rows.

    `where`: judge only the rows it selects (the slice); uniqueness still compares their keys with all
    of `df`, a foreign key looks them up in the whole referenced model. `frames`: the DataFrames of the
    other models the checks read (the models foreign keys reference, the views SQL checks join).
    `now`: the time retention and freshness are judged at (now, unless given). `engines`: whose
    results the verdict folds (the native engine's, counted by the split's own pass, unless given; GX
    and Soda each run the model's checks on the same rows once more). `prepared`: the contract as
    `prepare` loaded, linted and compiled it, for a caller that splits many DataFrames by one
    contract (the streaming guard); `contract` and `vars` are then not read again. `keys_in_pass` (without
    `where`): each uniqueness key's repeats counted by a window inside every pass over the rows, rather than
    cached first (scope.py `flagged`): for the small tables of a stream's micro-batches. Raises SplitError when
    no row can be judged (a model the contract lacks, a column a row-level check needs); the verdict
    reports what only a run would (a table-level check on a missing column is `failed`)."""
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
    prepared = prepared or prepare(contract, spark, vars)
    loaded, plan, compiled = prepared.loaded, prepared.plan, prepared.compiled
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
    table_level = [c for c in checks if c not in row_level]
    with held(views), temp_views(spark, views):
        foreign = foreign_reads(spark, [c for c in table_level if c.id not in compiled.invalid],
                                {name: view_name(loaded.id, name) for name in frames if name in plan.models})
    absent = absent_references(table_level, frames)
    invalid = {**compiled.invalid, **foreign}
    table_compiled = replace(compiled, plan=replace(plan, checks=tuple(table_level)), invalid={**invalid, **absent})
    # the native engine's table-level checks planned up to their one aggregation, computed in the split's own pass
    # (its rows are the table's, unless it judges a slice): a row count, a freshness, an aggregate SQL metric
    table_pass = counted_pass(spark, frames, table_compiled, model, now) if ENGINE_NAME in engines and where is None else None
    judged, observation, recounted, rejudged, counts, keys = _judge_rows(slice_df, df, row_level, frames, now, column,
                                                                         keys_in_pass and where is None,
                                                                         _observable(df, table_pass.columns) if table_pass else [],
                                                                         prepared.built.setdefault((model, column), {}))

    def settle(observed: dict) -> tuple[Verdict, dict[str, int]]:
        """The verdict of the pass that filled `observed`: its row-level counts, and the table-level checks."""
        rows = int(observed["rows"])
        results = {check.id: judge_rows(check, int(observed[name]), rows) for check, name in counts}
        reports = {}
        with held(views), temp_views(spark, views):
            if ENGINE_NAME in engines:
                report = (NATIVE.run(spark, frames, table_compiled, model, now) if table_pass is None
                          else table_pass.report(totals=observed, rows=rows))
                reports[ENGINE_NAME] = EngineReport(ENGINE_NAME, model, {**report.results, **results}, time.perf_counter() - began,
                                                    error=report.error)
            others = [engine for engine in engines if engine != ENGINE_NAME]
            if others:
                # translated again, as a run translates once the data is known: a check the data keeps from running gets no artifact
                translated = compile_contract(loaded, invalid={**invalid, **absent}, plan=exact_ranges(plan, frames))
                session = process_session(spark)
                rebound = {name: _in_session(frame, session) for name, frame in frames.items()}
                with temp_views(session, {view_name(loaded.id, name): frame for name, frame in rebound.items() if name in plan.models}):
                    for engine in others:
                        reports[engine] = run_engine(engine, session, rebound, translated, model, now)
        table_rows = rows if where is None else _table_rows(df, reports[ENGINE_NAME], checks)
        reports = {engine: reports[engine] for engine in engines}  # in the order asked, as a run lists them
        verdict = _verdict(plan, model, compiled, reports, invalid, absent, rows, table_rows, where, row_level,
                           contract_file=loaded.file, started_at=started_at.isoformat(), spark_version=spark.version)
        counted = {"slice": rows, "table": table_rows} if where is not None else {"table": rows}
        return verdict.model_copy(update={"seconds": round(time.perf_counter() - began, 3)}), counted

    return Split(judged=judged, _settle=settle, _observation=observation, _recounted=recounted, _rejudged=rejudged,
                 _column=column, _key_sets=keys, _contract=loaded, _frames=frames)


@dataclass(frozen=True)
class Prepared:
    """A contract loaded, linted (its patterns compiled in the session's JVM, as a run does) and
    compiled: what `split` needs of it before it reads a row. `built`: the columns its splits built that
    depend on no row and no clock (the checks' conditions and counts, by model and violations column), reused
    by every later split of the same model: a stream's batches, each a split of its own, build them once."""
    loaded: Contract
    plan: Any
    compiled: Any
    built: dict = field(default_factory=dict, compare=False, repr=False)


def prepare(contract: str | Path | Contract, spark, vars: dict[str, str] | None = None) -> Prepared:
    """The contract ready for `split`: loaded, linted and compiled once (ContractError when it cannot run)."""
    return prepared_from(*load_for_run(contract, vars, compiler_in(lambda: jvm_of(spark))))


def prepared_from(loaded: Contract, local_errors: list) -> Prepared:
    """A contract its caller linted already (`compiler.lint_for_run`, with its check-local errors) ready for `split`."""
    plan, invalid = plan_for_run(loaded, local_errors)
    return Prepared(loaded, plan, compile_contract(loaded, invalid=invalid, plan=plan))


def process_session(spark):
    """The process's session (`SparkSession.builder.getOrCreate()`), the caller's, which is not a streaming
    micro-batch's own: the one GX and Soda query (GX's Spark data source takes it); under Spark Connect, `spark`."""
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


def _observable(df, columns: dict) -> list:
    """Of the aggregates `columns` (name -> column), those an Observation can give back, aliased: a number's (it
    hands other values, a latest time, as the JVM's objects); the others are left to the native engine's own pass."""
    from pyspark.sql.types import NumericType

    if not columns:
        return []
    try:
        types = df.agg(*[column.alias(name) for name, column in columns.items()]).schema
    except Exception:  # an aggregate Spark refuses: its check's run says why
        return []
    return [columns[field.name].alias(field.name) for field in types.fields if isinstance(field.dataType, NumericType)]


def _judge_rows(slice_df, table, checks: list[Check], frames: dict, now: datetime, column: str, keys_in_pass: bool = False,
                table_columns: list = (), built: dict | None = None):
    """The slice with the violations column and the quarantine flag: (frame, a function giving the
    frame observed and its Observation, one counting the rows alone, one judging rows of the slice
    again, [(check, its count's name)], the cached key sets). `table_columns`: aggregates of the table-level
    checks (each aliased), observed in the same pass. `built` (Prepared's): the columns that depend on no row and
    no clock, taken from it or built and kept there."""
    from pyspark.sql import Observation
    from pyspark.sql import functions as F

    built = {} if built is None else built
    source = list(slice_df.columns)
    judged, keys = _judged(slice_df, table, checks, frames, now, column, keys_in_pass=keys_in_pass, built=built)
    counts = [(check, f"n{i}") for i, check in enumerate(checks)]
    # counted on the judged rows as they are written, from their own columns: Spark's Observation runs
    # outside generated code, and one on the flags, below the last projection, cut the pass in two
    # stages with every row copied between them (10M rows: 19.1 s of task CPU against 17.0 s here,
    # 15.5 s without counting). A check's count is the rows listing its id, looked for only in a row
    # that lists any violation (a clean row's list is empty)
    # (written as SQL, one call into the JVM each: built per micro-batch of a stream, a column's dozen calls added up)
    listed = quote_identifier(column)
    if "counted" not in built:
        built["counted"] = [
            F.count(F.lit(1)).alias("rows"), F.count(F.when(F.col(_QUARANTINED), True)).alias("quarantined"),
            *[F.expr(f"count(CASE WHEN size({listed}) > 0 AND array_contains({listed}.id, {sql_literal(check.id)}) THEN TRUE END)")
              .alias(name) for check, name in counts]]
    counted = [*built["counted"], *table_columns]

    def observed():
        observation = Observation()
        return judged.observe(observation, *counted), observation

    def recounted() -> dict:
        return judged.agg(*counted).first().asDict()

    def rejudged(rows):
        """Rows of the slice (its columns only) judged once more, against the same cached key sets (those counted
        in the pass, `keys_in_pass`, computed from the whole table and cached now)."""
        again, cached = _judged(rows.select(*[F.col(quote_identifier(name)) for name in source]), table, checks, frames, now, column, keys,
                                built=built)
        keys.update(cached)  # released with the others
        return again

    return judged, observed, recounted, rejudged, counts, keys


def _judged(rows, table, checks: list[Check], frames: dict, now: datetime, column: str, key_sets: dict | None = None,
            keys_in_pass: bool = False, built: dict | None = None):
    """`rows` with the violations column and the quarantine flag, and the key sets joined (scope.py `flagged`);
    `built`: as `_judge_rows`'."""
    from pyspark.sql import functions as F

    built = {} if built is None else built
    source = tuple(rows.columns)
    frame, keys = flagged(rows, table, checks, frames, now, key_sets, keys_in_pass, built.setdefault(("flags", keys_in_pass), {}))
    if ("judged", source) not in built:
        built[("judged", source)] = [*[F.col(quote_identifier(name)) for name in source], F.expr(_violations_sql(checks)).alias(column),
                                     F.expr(_quarantined_sql(checks)).alias(_QUARANTINED)]
    return frame.select(*built[("judged", source)]), keys


def _violations_sql(checks: list[Check]) -> str:
    """The violations column of a row flagged by `checks` (scope.py's FLAG columns), as one Spark SQL expression
    (one call into the JVM, where the same built of columns took a dozen per check, per micro-batch of a stream).
    One single-element list per violated check, flattened: no lambda (`filter`, and `array_compact` which Spark
    runs as one), which would keep Spark from compiling the whole pass into one stage of generated code; built
    only for a row with a flag, the clean rows (most) get the constant."""
    none = f"CAST(array() AS {VIOLATION_TYPE})"
    if not checks:
        return none
    flags = [quote_identifier(FLAG.format(i)) for i in range(len(checks))]
    entries = [f"CASE WHEN {flag} THEN array(named_struct('id', {sql_literal(check.id)}, 'kind', {sql_literal(check.kind)}, "
               f"'severity', {sql_literal(check.severity)}, 'reason', {sql_literal(_reason(check))})) ELSE {none} END"
               for flag, check in zip(flags, checks)]
    return f"CASE WHEN {' OR '.join(flags)} THEN flatten(array({', '.join(entries)})) ELSE {none} END"


def _quarantined_sql(checks: list[Check]) -> str:
    """Whether a row is quarantined: it violates an error-severity check. Kept beside the rows, so that each
    output filters on a boolean rather than searching the list of violations."""
    return " OR ".join([quote_identifier(FLAG.format(i)) for i, check in enumerate(checks) if check.severity == "error"]) or "FALSE"


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
