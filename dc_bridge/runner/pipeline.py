"""`dc_bridge.run`: contract -> plan -> suites and SodaCL -> both engines on Spark -> one verdict.

The only module that wires the steps together; each step stays a function of its own module.
"""

from __future__ import annotations

import contextlib
import functools
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

from dc_bridge import __version__
from dc_bridge.compiler import Compiled, compile_contract, load_for_run, plan_for_run
from dc_bridge.contract.lint import java_regex
from dc_bridge.contract.reading import variables
from dc_bridge.contract.model import Contract
from dc_bridge.contract.sql import filter_expression, view_name
from dc_bridge.engines.columns import absent_references, missing_columns
from dc_bridge.engines.registry import DEFAULT_ENGINES, ENGINES
from dc_bridge.engines.results import EngineReport
from dc_bridge.runner.data import DataError, DataLocation, choose_server, get_session, is_connect, model_dataframe
from dc_bridge.runner.drift import schema_drift
from dc_bridge.runner.history import append_record, earlier_runs, read_history, run_record, unread_record
from dc_bridge.runner.reads import foreign_reads
from dc_bridge.runner.rows import objective_row_counts
from dc_bridge.runner.samples import gather_samples
from dc_bridge.runner.threads import run_side_by_side
from dc_bridge.runner.timeouts import DEFAULT_SECONDS, within
from dc_bridge.runner.vacuous import empty_models
from dc_bridge.verdict import Evidence, Verdict, fold

def run(contract: str | Path | Contract, dataframes: dict | None = None, spark=None, engines: tuple[str, ...] | list[str] = DEFAULT_ENGINES,
        server: str | None = None, data: dict[str, DataLocation] | None = None, where: str | None = None,
        master: str | None = None, conf: dict[str, str] | None = None, samples: bool = True,
        progress: Callable[[str], None] | None = None, data_docs: str | Path | None = None,
        timeout: float | None = DEFAULT_SECONDS, side_by_side: bool = True, cache: bool = False,
        vars: dict[str, str] | None = None, history: str | Path | None = None, now: datetime | None = None) -> Verdict:
    """Check `contract` on Spark with the selected engines and return the verdict.

    `dataframes` maps model names to DataFrames the caller already has; other models are read from
    `data` (model -> location) or the contract's server. A session passed in (or already active) is
    used and never stopped; a session this call creates is stopped at the end. `samples` fetches
    a few failing values per failed check (never for pii or sensitive fields). `data_docs`: a folder
    to build a GX Data Docs site of the contract's suites in (report/data_docs.py).
    `timeout`: seconds one engine may take on one model (an hour unless given; None: no limit); then
    its Spark jobs are cancelled and its checks are `error` (runner/timeouts.py). `side_by_side`:
    the selected engines check a model at the same time, on the same session (False: one after the other).
    `cache`: each model's DataFrame is persisted for the run and released at its end, so the source
    is read once (measured slower for parquet: docs/benchmarks.md).
    `vars`: values of the ODCS 3.2 `${NAME}` variables in the contract file, before the environment
    (contract/reading/variables.py); one left unresolved is a lint error, a ContractError here.
    `where`: one boolean expression over the models' columns, applied to every model that has the
    columns it names (the others are checked unfiltered, and the verdict says so: `where_not_applied`);
    checked before Spark starts like quality SQL (contract/sql.py `filter_expression`): anything else is a ValueError.
    `history`: a JSON Lines file of earlier runs (runner/history.py), read before Spark starts (one that
    is not a dc-bridge history raises HistoryError, a ValueError), over which availability and errorRate
    SLAs are judged; this run's record is appended to it once the verdict exists, or when a model's data
    cannot be read (a run without data, as availability counts it).
    `now`: the run's one clock (default: when the call starts; naive is UTC): every engine judges freshness
    and retention against it, samples and history use it, and the verdict records it as `started_at`.
    """
    selected = tuple(e for e in ENGINES if e in engines)
    unknown = set(engines) - set(ENGINES)
    if unknown or not selected:
        raise ValueError(f"unknown engine(s) {', '.join(sorted(unknown)) or '(none)'}; choose from {', '.join(ENGINES)}")
    if timeout is not None and not 0 < timeout:  # also refuses NaN
        raise ValueError(f"timeout={timeout!r}: give a positive number of seconds, or None for no limit")
    say = progress or (lambda message: None)
    # --where is SQL from the command line: one expression, held to the rules of quality SQL, before Spark starts
    where_filter = filter_expression(where) if where else None
    started = time.perf_counter()
    started_at = datetime.now(timezone.utc) if now is None else now if now.tzinfo else now.replace(tzinfo=timezone.utc)
    # the user's history, checked before anything starts Spark: a file that is not one stops the run here
    recorded = read_history(history) if history is not None else None
    session = _SessionOnDemand(spark, master, conf, selected, say)
    # lint compiles the contract's patterns in the run's own JVM (contract/lint/java_regex.py), not a second one
    with session.stopped_on_error(), variables.given(vars), java_regex.compiled_in(session.jvm):
        loaded, local_errors = load_for_run(contract)
        plan, invalid = plan_for_run(loaded, local_errors)
        compiled = compile_contract(loaded, invalid=invalid, plan=plan)
    past = earlier_runs(recorded, history, loaded.id, started_at) if history is not None else None

    spark, created = session.get()
    versions = _versions(spark.version)
    views: list[str] = []
    cached: list = []
    reports: dict[str, dict[str, EngineReport]] = {}
    seconds = {engine: 0.0 for engine in selected}
    try:
        try:
            frames, unfiltered = _model_frames(spark, loaded, dataframes or {}, data or {}, server, where, where_filter)
        except _Unread as exc:
            if history is not None:
                models = [m.name for m in loaded.models]
                read = {name: name != exc.model for name in models[:models.index(exc.model) + 1]}
                append_record(history, unread_record(loaded.id, loaded.version, read, started_at, str(exc)))
            raise
        for model, frame in frames.items():
            view = view_name(loaded.id, model)
            frame.createOrReplaceTempView(view)
            views.append(view)
        # the second look at SQL checks: what Spark resolved their names to (runner/reads.py)
        foreign = foreign_reads(spark, [c for c in compiled.plan.checks if c.id not in compiled.invalid],
                                {model: view_name(loaded.id, model) for model in frames})
        # checks that read a declared column the data lacks beyond their own (a foreign key's referenced
        # column, a column a query names): failed before any engine, which would fail on the whole query
        absent = absent_references(compiled.plan.checks, frames)
        if foreign or absent:
            compiled = compile_contract(loaded, invalid={**compiled.invalid, **foreign, **absent}, plan=plan)
        if cache:
            cached = _persist(frames)
        for model in compiled.plan.models:
            reports[model] = {}
            if model not in frames:
                continue
            works = {engine: functools.partial(_timed_engine, engine, spark, frames, compiled, model, started_at, timeout, say)
                     for engine in selected}
            ran = run_side_by_side(works, spark) if side_by_side else {engine: work() for engine, work in works.items()}
            for engine, (report, took) in ran.items():
                reports[model][engine] = report
                seconds[engine] += took
        drift = [finding.to_dict() for finding in schema_drift(loaded, frames)]  # reads schemas only: no Spark job
        facts = dict(contract_file=loaded.file, where=where, where_not_applied=unfiltered, started_at=started_at.isoformat(),
                     engine_seconds={e: round(s, 3) for e, s in seconds.items()}, versions=versions, drift=drift)
        invalid = {check_id: why for check_id, why in compiled.invalid.items() if check_id not in absent}
        # what dataQuality SLOs divide by, read before the first fold so that it judges them already
        rows = within(timeout, spark, "row counts", lambda: objective_row_counts(compiled.plan, frames), on_timeout=lambda _: {})
        judged = fold(compiled.plan, reports, compiled.coverage, selected, invalid, Evidence(row_counts=rows, history=past),
                      absent=absent, **facts)
        # the evidence beside the engines' reports, read for the checks the engines judged; after a
        # timeout, a task Spark could not interrupt may still hold the cores: these extra jobs get the
        # same limit, and on expiry the verdict goes without them
        empty = within(timeout, spark, "empty models", lambda: empty_models(judged, frames, rows), on_timeout=lambda _: frozenset())
        found = {}
        if samples and judged.outcome != "passed":
            say("fetching failing values")
            found = within(timeout, spark, "samples", lambda: gather_samples(judged, compiled.plan, frames, started_at),
                           on_timeout=lambda _: {})
        verdict = fold(compiled.plan, reports, compiled.coverage, selected, invalid,
                       Evidence(empty_models=empty, samples=found, row_counts=rows, history=past), absent=absent, **facts)
        if history is not None:
            append_record(history, run_record(verdict, compiled.plan.models, started_at))
        if data_docs is not None:
            from dc_bridge.report.data_docs import build_data_docs

            say("gx: Data Docs")
            build_data_docs(spark, frames, compiled, data_docs, started_at)
    finally:
        for frame in cached:
            frame.unpersist()
        for view in views:
            spark.catalog.dropTempView(view)
        if created:
            spark.stop()
    return verdict.model_copy(update={"seconds": round(time.perf_counter() - started, 3)})


def _model_frames(spark, contract: Contract, dataframes: dict, data: dict[str, DataLocation], server: str | None,
                 where: str | None = None, where_filter: tuple[str, frozenset[str]] | None = None) -> tuple[dict, dict[str, str]]:
    """Each model's DataFrame, filtered by `where` where it can be; and model -> why it was not filtered.

    A model that lacks a column the filter names is checked unfiltered, with that note in the verdict:
    a contract's models rarely share a date column (`line_items` has no `order_timestamp`), and checking
    such a model whole is what a run without --where does. A filter no model can take is an error."""
    unknown = set(dataframes) | set(data)
    unknown -= {m.name for m in contract.models}
    if unknown:
        raise DataError(f"{contract.file} has no model named {', '.join(sorted(unknown))} (models: {', '.join(m.name for m in contract.models)})")
    chosen = None if all(m.name in dataframes or m.name in data for m in contract.models) else choose_server(contract, server)
    frames, unfiltered = {}, {}
    for model in contract.models:
        frame = dataframes.get(model.name)
        if frame is None:
            try:
                frame = model_dataframe(spark, contract, model, chosen, data)
            except DataError as exc:
                raise _Unread(model.name, str(exc)) from None
        if where_filter is not None:
            expression, columns = where_filter
            lacking = missing_columns(frame, sorted(columns))
            if lacking:
                named = ", ".join(f"`{c}`" for c in lacking)
                unfiltered[model.name] = f"checked unfiltered: --where names {named}, which `{model.name}` does not have"
            else:
                try:
                    frame = frame.where(expression)
                except Exception as exc:  # Spark's analysis: a type mismatch, an aggregate in a filter, ...
                    first = next((line.strip() for line in str(exc).strip().splitlines() if line.strip()), type(exc).__name__)
                    raise DataError(f"--where {where!r} cannot filter model `{model.name}`: {first}. Give one boolean "
                                    "expression over the model's columns, e.g. --where \"order_timestamp >= '2024-01-01'\"") from None
        # a plan of the run's own: Spark uncaches a temp view's plan when the view is dropped (the
        # run's views, GX's `tmp_view`), which would otherwise be the caller's cached DataFrame. Not
        # select("*"): Spark 4 resolves that to the caller's plan itself; a filter stays a node of its own
        frames[model.name] = frame.where("true")
    if where_filter is not None and frames and len(unfiltered) == len(frames):
        columns = ", ".join(f"`{c}`" for c in sorted(where_filter[1]))
        have = "; ".join(f"{name}: {', '.join(frame.columns)}" for name, frame in frames.items())
        raise DataError(f"--where {where!r} names {columns}, which no model of {contract.file} has, so it would filter nothing; "
                        f"name a column of the models ({have})")
    return frames, unfiltered


class _Unread(DataError):
    """A model's data could not be found or read (not a --where that cannot filter it): the run a
    history records as one without data."""

    def __init__(self, model: str, message: str):
        super().__init__(message)
        self.model = model


def _persist(frames: dict) -> list:
    """Persist every model's DataFrame that is not cached yet, so that the engines, the empty-model
    notes and the samples read the source once; the frames persisted here, for the caller to release.
    A DataFrame the caller cached already is left as it is."""
    from pyspark import StorageLevel

    persisted = []
    for frame in frames.values():
        try:
            if not frame.storageLevel.useMemory and not frame.storageLevel.useDisk:
                persisted.append(frame.persist(StorageLevel.MEMORY_AND_DISK))
        except Exception:  # a session that refuses persisting (Databricks serverless): the run reads the source as without --cache
            return persisted
    return persisted


def _timed_engine(engine: str, spark, frames: dict, compiled: Compiled, model: str, now: datetime,
                  timeout: float | None, say: Callable[[str], None]) -> tuple[EngineReport, float]:
    """One engine on one model within the time limit, and the seconds it took."""
    say(f"{engine}: {model}")
    began = time.perf_counter()
    report = within(timeout, spark, f"{engine} on {model}", lambda: _run_engine(engine, spark, frames, compiled, model, now),
                    on_timeout=lambda reason: EngineReport(engine, model, {}, float(timeout), error=reason))
    return report, time.perf_counter() - began


def _run_engine(engine: str, spark, frames: dict, compiled: Compiled, model: str, now: datetime) -> EngineReport:
    """One engine on one model. An engine that raises becomes a report with the error, never a crash."""
    began = time.perf_counter()
    try:
        return ENGINES[engine].run(spark, frames, compiled, model, now)
    except Exception as exc:  # fail closed: every check of this engine becomes `error` in the fold
        message = f"{type(exc).__name__}: {str(exc).strip().splitlines()[0] if str(exc).strip() else ''}"
        return EngineReport(engine=engine, model=model, results={}, seconds=time.perf_counter() - began, error=message)


class _SessionOnDemand:
    """The run's session: the caller's, else one started on first need, which is lint's when the
    contract has patterns (compiled in Spark's JVM), else right after the contract is compiled."""

    def __init__(self, spark, master: str | None, conf: dict[str, str] | None, engines: tuple[str, ...], say: Callable[[str], None]):
        self._session = (spark, False) if spark is not None else None
        self._start = (master, conf, engines, say)

    def get(self) -> tuple:
        """(session, created here)."""
        if self._session is None:
            master, conf, engines, say = self._start
            say("starting Spark")
            preload_engines(engines)
            self._session = get_session(master, conf)
        return self._session

    def jvm(self):
        """py4j's view of the session's JVM; None for Spark Connect, which has none in this process."""
        spark = self.get()[0]
        return None if is_connect(spark) else spark._jvm

    @contextlib.contextmanager
    def stopped_on_error(self):
        """A session started for lint is stopped when the run stops before its engines (a refused contract)."""
        try:
            yield
        except BaseException:
            if self._session is not None and self._session[1]:
                self._session[0].stop()
            raise


def preload_engines(engines) -> None:
    """Import the engines' libraries (GX, Soda: seconds each) in a thread, while the caller starts Spark,
    whose JVM start leaves the interpreter idle: the engine's run then finds them loaded (`Engine.preload`).
    PySpark is imported first, here, so the two threads never import it at once."""
    import threading

    import pyspark.sql  # noqa: F401

    # an unknown name is refused by `run`
    preloads = [ENGINES[e].preload for e in engines if e in ENGINES and ENGINES[e].preload is not None]

    def load() -> None:
        for preload in preloads:
            try:
                preload()
            except Exception:  # the engine's run imports it again and reports why it cannot
                pass

    threading.Thread(target=load, name="dc-bridge-preload", daemon=True).start()


def _versions(spark_version: str) -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    found = {"dc-bridge": __version__, "spark": spark_version}
    for package in ("pyspark", "great-expectations", "soda-core"):
        try:
            found[package] = version(package)
        except PackageNotFoundError:
            pass
    return found
