"""`dc_bridge.run`: contract -> plan -> suites and SodaCL -> both engines on Spark -> one verdict.

The only module that wires the steps together; each step stays a function of its own module. One pass:
each step runs once per contract, in this order, and is recorded as a phase (runner/phases.py):
read, lint, plan, data (each model's DataFrame and temp view), references (checks the data keeps from
running: runner/reads.py, engines/columns.py), translate (once, with every such check already known),
each engine on each model, judge (each check from the engines' reports), evidence (what the fold needs
from the data besides them: row counts, empty models, failing values), fold, monitors (with a history
store: each watched series judged on its earlier points, runner/monitoring.py), then the history record,
Data Docs and cleanup; `spark` when the run starts its own session.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import os
import re
import time
import warnings
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Callable

from dc_bridge import __version__, config
from dc_bridge.compiler import Compiled, ContractError, compile_contract, lint_for_run, plan_for_run
from dc_bridge.contract.lint.java_regex import compiler_in
from dc_bridge.contract.model import Contract, Server
from dc_bridge.contract.reading.load import LoadResult, load_contract
from dc_bridge.contract.sql import view_name
from dc_bridge.engines.columns import absent_references, exact_ranges, missing_columns
from dc_bridge.engines.registry import DEFAULT_ENGINES, ENGINES
from dc_bridge.engines.results import EngineReport
from dc_bridge.engines.views import held
from dc_bridge.report.prometheus import Targets, publish, warn_unpublished
from dc_bridge.runner.data import (
    SMALL_DATA_BYTES, DataError, DataLocation, UnreadModel, embedded, get_session, jvm_of, local_bytes, model_sources,
    source_dataframe,
)
from dc_bridge.runner.drift import schema_drift
from dc_bridge.history.spark_store import SparkTableStore, is_table
from dc_bridge.history.store import HistoryStore
from dc_bridge.history.targets import is_jsonl, open_history, open_store
from dc_bridge.monitors import MonitorSettings, contract_monitor_settings, monitor_settings
from dc_bridge.runner.history import History, HistoryError, run_record, unread_record
from dc_bridge.runner.monitoring import judge_monitors, warn_jsonl
from dc_bridge.runner.options import RunOptions
from dc_bridge.runner.outputs import OutputRefused, check_run_outputs
from dc_bridge.runner.phases import Phases
from dc_bridge.runner.reads import foreign_reads
from dc_bridge.runner.rows import objective_row_counts
from dc_bridge.runner.samples import gather_samples
from dc_bridge.runner.session_guard import SessionGuard
from dc_bridge.runner.threads import run_side_by_side
from dc_bridge.runner.timeouts import DEFAULT_SECONDS, within
from dc_bridge.runner.vacuous import empty_models
from dc_bridge.verdict import Evidence, Verdict, conclude, judge, with_lifecycle, with_monitors

def run(contract: str | Path | Contract, dataframes: dict | None = None, spark=None, engines: tuple[str, ...] | list[str] = DEFAULT_ENGINES,
        server: str | None = None, data: dict[str, DataLocation] | None = None, where: str | None = None,
        master: str | None = None, conf: dict[str, str] | None = None, samples: bool = True,
        progress: Callable[[str], None] | None = None, data_docs: str | Path | None = None,
        timeout: float | None = DEFAULT_SECONDS, side_by_side: bool = True, cache: bool = False,
        vars: dict[str, str] | None = None, history: str | Path | None = None, now: datetime | None = None,
        metrics_push: str | None = None, metrics_file: str | Path | None = None,
        monitors: MonitorSettings | None = None) -> Verdict:
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
    SLAs are judged; this run's record is appended to it once the verdict exists, or when the run ends without
    one (a model's data unreadable, the contract in error: an `error` record with the reason, `check`).
    `now`: the run's one clock (default: when the call starts; naive is UTC): every engine judges freshness
    and retention against it, samples and history use it, and the verdict records it as `started_at`.
    The verdict's `phases` say how long each step of the run took (runner/phases.py).
    `metrics_push`, `metrics_file`: a Pushgateway URL and a textfile collector's file the verdict's Prometheus
    metrics go to (report/prometheus.py, docs/monitoring.md), checked before the run (a MetricsError, a ValueError);
    what cannot be published after it is a `MetricsWarning`, and the verdict is returned all the same. A run that ends
    without a verdict (its exception raised, e.g. ContractError, DataError) publishes its `error` first, as `check` records it.
    `monitors`: how monitors judge the run over a history store (docs/monitoring.md; default: the settings in
    effect, `warn` with rows and freshness watched); a `.jsonl` history has no series, and says so in a `MonitorsWarning`.
    """
    options = RunOptions(engines=tuple(engines), server=server, data=data or {}, where=where, master=master, conf=conf,
                         samples=samples, data_docs=data_docs, timeout=timeout, side_by_side=side_by_side, cache=cache,
                         vars=vars or {}, history=history, progress=progress, now=now, monitors=monitors, metrics_file=metrics_file)
    metrics = Targets(push=metrics_push, file=options.metrics_file, words=("metrics_push=", "metrics_file="))
    if history is not None and is_jsonl(history) and (monitors or monitor_settings(config.current())).level != "off":
        warn_jsonl(history)  # monitors need a store: said once, and the run goes on without them
    def published(verdict: Verdict) -> None:  # a run without a verdict of its own checks replaces its last good run's metrics too
        if metrics:
            warn_unpublished(publish(verdict, metrics))

    verdict = check(contract, options, dataframes=dataframes, spark=spark, on_unchecked=published)
    published(verdict)
    return verdict


@dataclass(frozen=True)
class ReadContract:
    """A contract file read, with every file it references, and not yet linted: `dc-bridge run` reads each
    contract once, checks its outputs against the files read, and hands the read contract to `check`."""
    result: LoadResult
    seconds: float


def read_contract(file: str | Path, variables: dict[str, str] | None = None) -> ReadContract:
    """Read a contract file as a run reads it (`variables`: `--var`, before the environment)."""
    began = time.perf_counter()
    result = load_contract(file, variables)
    return ReadContract(result, time.perf_counter() - began)


@dataclass(frozen=True)
class Refused:
    """A contract a command refuses to run, in place of its read (`run --registered`: a stored text that is not the
    registered one, or cannot be fetched; two contracts of one command that share an id): why, and the contract's
    id and version as far as they are known, so that its `error` is said where its checked runs are said."""
    file: str
    reason: str
    contract_id: str | None = None
    contract_version: str = ""


Known = str | Path | Contract | ReadContract | LoadResult | Refused


@dataclass
class _Run:
    """What a run knows of its contract so far (the more it read, the better it names it) and the history it appends to."""
    contract: Known
    history: History | HistoryStore | SparkTableStore | None


def check(contract: str | Path | Contract | ReadContract | Refused, options: RunOptions, dataframes: dict | None = None, spark=None,
          history: History | HistoryStore | SparkTableStore | None = None, preflight: Callable[[object], None] | None = None,
          on_unchecked: Callable[[Verdict], None] | None = None) -> Verdict:
    """`run` with its options as one value. `contract` may be read already (`read_contract`) or refused by the caller
    (`Refused`), and the history file read too (`History`: a command that runs several contracts reads it once).
    `preflight`: a check of the run's session before any data is read (its DataError ends the run as an unreadable model's does).

    A run that ends without a verdict of its own checks (refused, the contract in error, its data unreadable, bad
    input of the contract's, an error no engine caught) raises, as always, after its `error` verdict (`unchecked`:
    the contract's id and version where they were read, the run's clock) went to every channel: the history gets its
    record (as a run without data), `on_unchecked` the verdict, for the caller's reports, metrics and lineage; a history
    that cannot be appended to (HistoryError) gets no record of its own failure."""
    options = options if options.now is not None else dataclasses.replace(options, now=options.clock())
    run = _Run(contract, history)
    try:
        return _check(run, options, dataframes, spark, preflight)
    except OutputRefused:  # an output the rule refused: nothing of the run is written anywhere, its error included
        raise
    except Exception as exc:
        verdict = unchecked(run.contract, exc, options)
        if not isinstance(exc, HistoryError):  # a history that cannot be appended to gets no record of its own failure
            _record_unchecked(run, verdict, exc, options, spark)
        if on_unchecked is not None:
            on_unchecked(verdict)
        raise


def shared_ids(reads: list[ReadContract | Refused]) -> list[ReadContract | Refused]:
    """The reads of one command, each contract that shares its id with another of them `Refused`: one id is one
    contract's history, metrics group and lineage job, which two contracts' runs would overwrite and mix."""
    def id_of(read: ReadContract | Refused) -> str | None:
        return read.contract_id if isinstance(read, Refused) else read.result.contract.id if read.result.contract is not None else None

    files: dict[str, list[str]] = {}
    for read in reads:
        if id_of(read) is not None:
            files.setdefault(id_of(read), []).append(_identity(read)[0])
    return [read if len(files.get(id_of(read), ())) < 2 else
            Refused(_identity(read)[0], f"refused: {len(files[id_of(read)])} contracts of this run have the id {id_of(read)!r} "
                                        f"({', '.join(files[id_of(read)])}); their history, metrics and lineage would be one "
                                        f"contract's: give each its own id (or run each with a --history and metrics of its own)", id_of(read), _identity(read)[2])
            for read in reads]


def unchecked(contract: Known, exc: BaseException | str, options: RunOptions) -> Verdict:
    """The `error` verdict of a run that ended with `exc` before a verdict of its own checks, named as far as `contract` was read."""
    file, contract_id, version = _identity(contract)
    return Verdict.unchecked(file, list(options.engines), unchecked_reason(exc, file), contract_id, version, options.clock().isoformat())


def unchecked_reason(exc: BaseException | str, file: str) -> str:
    """Why a run has no verdict, as every report says it: a ContractError by its count of findings (lint lists them),
    the message of an error a run expects (bad input, unreadable data, a refusal), else the error's type too."""
    if isinstance(exc, str):
        return exc
    if isinstance(exc, ContractError):
        return f"the contract has errors ({len(exc.findings)} finding(s), listed by dc-bridge lint {file})"
    return str(exc) if isinstance(exc, (ValueError, DataError)) else f"{type(exc).__name__}: {exc}"


def _identity(known: Known) -> tuple[str, str, str]:
    """(file, id, version) of the contract as far as it was read: its file where even its id could not be read."""
    if isinstance(known, Refused):
        return known.file, known.contract_id or known.file, known.contract_version
    if isinstance(known, ReadContract):
        known = known.result
    if isinstance(known, LoadResult):
        return (known.file, known.file, "") if known.contract is None else _identity(known.contract)
    if isinstance(known, Contract):
        return known.file, known.id, known.version
    return str(known), str(known), ""


def _record_unchecked(run: _Run, verdict: Verdict, exc: BaseException, options: RunOptions, spark) -> None:
    """The history's record of a run without a verdict: a run without data (`read`: the models read before the one that
    could not be, which is false; none when the run stopped before its data). A record that cannot be appended is a
    warning: the run's own error is the one raised."""
    known = run.contract.result if isinstance(run.contract, ReadContract) else run.contract
    contract = known.contract if isinstance(known, LoadResult) else known if isinstance(known, Contract) else None
    models = [m.name for m in contract.models] if contract is not None else []
    failed = exc.model if isinstance(exc, UnreadModel) and exc.model in models else None
    read = {name: name != failed for name in models[:models.index(failed) + 1]} if failed is not None else {}
    record = unread_record(verdict.contract_id, verdict.contract_version, read, options.clock(), verdict.error or "")
    try:
        # a history file is opened only once the run's outputs were checked (`_check`): one not opened yet gets no record
        history = run.history if run.history is not None or options.history is None or not is_table(str(options.history)) \
            else _table_history(str(options.history), spark, options)
        if history is not None:
            history.append(record)
    except Exception as failure:  # noqa: BLE001 - the run's own error is the one the caller must see
        warnings.warn(f"the history's record of this run (an error: {verdict.error}) could not be appended: {failure}", RuntimeWarning,
                      stacklevel=3)


def _table_history(target: str, spark, options: RunOptions) -> SparkTableStore:
    """A `table:db.name` history a run stopped before opening: in the command's (or the caller's) session, else one started for it."""
    if isinstance(spark, SessionOnFirstNeed):
        return open_store(target, spark.get()[0])
    if spark is not None:
        return open_store(target, spark)
    own = SessionOnFirstNeed(options.master, options.conf, ())
    try:
        store = open_store(target, own.get()[0])
        return _AppendThenStop(store, own)
    except BaseException:
        own.stop()
        raise


@dataclass
class _AppendThenStop:
    """A table history in a session started only to record a run without a verdict: stopped once the record is in."""
    store: SparkTableStore
    session: "SessionOnFirstNeed"

    def append(self, record: dict) -> None:
        try:
            self.store.append(record)
        finally:
            self.session.stop()


def _check(run: _Run, options: RunOptions, dataframes: dict | None, spark, preflight) -> Verdict:
    contract, history = run.contract, run.history
    if isinstance(contract, Refused):
        raise DataError(contract.reason)
    # the run's `seconds` count the reading of its contract, wherever it was read
    started = time.perf_counter() - (contract.seconds if isinstance(contract, ReadContract) else 0.0)
    started_at = options.clock()
    # the monitors' settings, checked before Spark starts (a metric no monitor knows is a ConfigError)
    monitoring = options.monitors or monitor_settings(config.current())
    phases = Phases(_label(contract))
    session = _SessionOnDemand(spark, options, phases)
    with session.stopped_on_error():
        read = _read(contract, options, phases)
        run.contract = read
        # where the run and its caller write, held to the rule the command line holds them to, before Spark starts
        check_run_outputs(read, options.outputs(), options.data, options.server, options.spelled)
        # the user's history, checked before anything starts Spark: a file that is not one stops the run here
        # (a table in the catalog is opened in the run's session, below)
        if history is None and options.history is not None and not is_table(str(options.history)):
            history = run.history = open_history(options.history)
        sources = _Sources(dataframes or {}, options, spark is None)

        def ready(contract: Contract) -> None:
            sources.find(contract)
            session.small_data = _small_data(sources.found) and not dataframes
        with phases.timed("lint"):
            # lint compiles the contract's patterns in the run's own JVM (contract/lint/java_regex.py), not a second
            # one. Before that, all that needs no JVM: lint's other rules, then where each model's data is (`ready`)
            loaded, local_errors = lint_for_run(read, compiler_in(session.jvm), ready=ready)
        with phases.timed("plan"):
            plan, invalid = plan_for_run(loaded, local_errors)
        # the contract's own `x-dc-bridge-monitors` on top of the project's (a metric no monitor knows: a ConfigError)
        run.contract = loaded
        monitoring = contract_monitor_settings(monitoring, loaded.monitors, loaded.file)
    past = history.earlier_runs(loaded.id, started_at) if history is not None else None

    spark, created = session.get()
    with session.stopped_on_error():
        if history is None and options.history is not None:  # `table:db.name`: the SLAs' earlier runs from the table
            history = run.history = open_store(options.history, spark)
            past = history.earlier_runs(loaded.id, started_at)
        if preflight is not None:
            preflight(spark)
    versions = _versions(spark.version)
    views = [view_name(loaded.id, model.name) for model in loaded.models]
    # another run of this contract in the process's other threads waits until this one's views are gone (engines/views.py)
    holding = contextlib.ExitStack()
    holding.enter_context(held(views))
    guard = None
    cached: list = []
    reports: dict[str, dict[str, EngineReport]] = {}
    seconds = {engine: 0.0 for engine in options.engines}
    try:
        # a session the caller gave is put back as the run found it (views under the run's names included)
        # (not a session the command started for its contracts: nobody else's state is in it, and contracts run side
        # by side would put back each other's settings)
        guard = None if created or session.owned else SessionGuard.record(spark, views)
        with phases.timed("data"):
            frames, unfiltered, data_sources = _model_frames(spark, loaded, dataframes or {}, sources.found, sources.server, options.where,
                                                             options.where_filter)
            for model, frame in frames.items():
                view = view_name(loaded.id, model)
                frame.createOrReplaceTempView(view)
        with phases.timed("references"):
            # the second look at SQL checks: what Spark resolved their names to, and those it cannot resolve (runner/reads.py)
            # (a SQL check on its own column, which the data lacks, is `failed` by every engine before it runs anything:
            # engines/columns.py `unrunnable`; not Spark's analysis error)
            queried = [c for c in plan.checks if c.id not in invalid and isinstance(getattr(c.params, "query", None), str)
                       and not (c.model in frames and missing_columns(frames[c.model], c.columns))]
            foreign = foreign_reads(spark, queried, {model: view_name(loaded.id, model) for model in frames}, unanalysable=True)
            # checks that read a declared column the data lacks beyond their own (a foreign key's referenced
            # column, a column a query names): failed before any engine, which would fail on the whole query
            absent = absent_references(plan.checks, frames)
        with phases.timed("translate"):
            # once, after the data is known: the checks it keeps from running get no engine artifact
            compiled = compile_contract(loaded, invalid={**invalid, **foreign, **absent}, plan=exact_ranges(plan, frames))
        if options.cache:
            cached = _persist(frames, dataframes or {})
        reports.update({model: {} for model in plan.models})
        present = [model for model in plan.models if model in frames]
        # side by side, the engines of a model at once; on small data (a few local megabytes) those of MODELS_AT_ONCE
        # models at once: a tiny table's jobs are mostly the driver's latency, which another model's jobs fill
        # not on one core: a model whose task a timeout left running (a Java regex cannot be interrupted) holds it, and
        # the model beside it would time out too instead of keeping its results
        at_once = MODELS_AT_ONCE if options.side_by_side and session.small_data and _cores(spark) >= MODELS_AT_ONCE else 1
        for group in (present[i:i + at_once] for i in range(0, len(present), at_once)):
            works = {(model, engine): functools.partial(_timed_engine, engine, spark, frames, compiled, model, started_at,
                                                        options.timeout, options.say)
                     for model in group for engine in options.engines}
            named = {f"{engine} on {model}": work for (model, engine), work in works.items()}
            ran = run_side_by_side(named, spark) if options.side_by_side else {name: work() for name, work in named.items()}
            for (model, engine), (report, took) in zip(works, ran.values()):
                reports[model][engine] = report
                seconds[engine] += took
                phases.add("engine", took, model=model, engine=engine)
        with phases.timed("judge"):
            # the checks left out of the engines' artifacts are `error`, those reading an absent column `failed`
            in_error = {check_id: why for check_id, why in compiled.invalid.items() if check_id not in absent}
            judged = judge(plan, reports, compiled.coverage, options.engines, in_error, absent)
        with phases.timed("evidence"):
            drift = [finding.to_dict() for finding in schema_drift(loaded, frames)]  # reads schemas only: no Spark job
            # the evidence beside the engines' reports (the rows dataQuality SLOs divide by, empty models,
            # failing values), read for the checks the engines judged; after a timeout, a task Spark could
            # not interrupt may still hold the cores: these extra jobs get the same limit, and on expiry the
            # verdict goes without them
            # a model an engine counted on its way (EngineReport.rows) is not counted again
            counted = {model: report.rows for model, by_engine in reports.items() for report in by_engine.values()
                       if report.rows is not None and report.error is None}
            # the models whose rows a monitor watches are counted where no engine counted them on its way
            watched = set(frames) if isinstance(history, (HistoryStore, SparkTableStore)) and monitoring.level != "off" and (
                {"rows", "slice_rows"} & set(monitoring.metrics)) else set()
            rows = within(options.timeout, spark, "row counts", lambda: objective_row_counts(plan, frames, counted, also=watched),
                          on_timeout=lambda _: {})
            empty = within(options.timeout, spark, "empty models", lambda: empty_models(judged, frames, {**counted, **rows}),
                           on_timeout=lambda _: frozenset())
            found = {}
            if options.samples and any(c.outcome in ("failed", "warning") for c in judged.checks()):
                options.say("fetching failing values")
                repeated = {check_id: keys for by_engine in reports.values() for report in by_engine.values()
                            for check_id, keys in report.repeated_keys.items()}
                found = within(options.timeout, spark, "samples", lambda: gather_samples(judged, plan, frames, started_at, repeated),
                               on_timeout=lambda _: {})
        facts = dict(contract_file=loaded.file, where=options.where, where_not_applied=unfiltered, data_sources=data_sources,
                     started_at=started_at.isoformat(),
                     engine_seconds={e: round(s, 3) for e, s in seconds.items()}, versions=versions, drift=drift)
        with phases.timed("fold"):
            verdict = conclude(plan, judged, options.engines,
                               Evidence(empty_models=empty, samples=found, row_counts={**counted, **rows}, history=past), **facts)
        if isinstance(history, (HistoryStore, SparkTableStore)) and monitoring.level != "off":
            with phases.timed("monitors"):
                # each watched series against its earlier points in the store: after the fold, before this run is recorded
                verdict = with_monitors(verdict, judge_monitors(history, verdict, started_at, monitoring))
        verdict = with_lifecycle(verdict, options.lifecycle)
        data_docs = None
        if options.data_docs is not None:
            from dc_bridge.report.data_docs import build_data_docs, run_data_docs

            options.say("gx: Data Docs")
            with phases.timed("data_docs"):
                build_data_docs(spark, frames, compiled, options.data_docs, started_at)
            # built before the run is recorded, so that a store records where its pages are (the history site links them)
            data_docs = run_data_docs(options.data_docs, verdict)
        if history is not None:
            with phases.timed("history"):
                # a store keeps the verdict's numbers and the phases so far (the history's own comes after)
                history.append(run_record(verdict, plan.models, started_at), verdict.model_copy(update={"phases": list(phases.records)}),
                               data_docs=data_docs)
    finally:
        with phases.timed("cleanup"):
            for frame in cached:
                frame.unpersist()
            if guard is not None:
                guard.restore()
            if created:
                spark.stop()
            holding.close()
    return verdict.model_copy(update={"seconds": round(time.perf_counter() - started, 3), "phases": phases.records})


# models whose engines run at once on small data (`_small_data`), side by side; larger data, one model at a time
MODELS_AT_ONCE = 2


# a local master and its task slots: `local` one, `local[N]` N, `local[*]` the machine's cores
_LOCAL_MASTER = re.compile(r"local(?:\[(?P<cores>\d+|\*)(?:,\d+)?\])?")


def _cores(spark) -> int:
    """The cores a local master runs tasks on; a cluster (or a master the session does not say) as many as needed."""
    local = _LOCAL_MASTER.fullmatch(spark.conf.get("spark.master", ""))
    if local is None:
        return MODELS_AT_ONCE
    cores = local.group("cores") or "1"
    return (os.cpu_count() or 1) if cores == "*" else int(cores)


def small_contracts(reads: list, server: str | None, local: bool) -> bool:
    """Whether every contract of a command (`read_contract`'s reads; those refused and quality-rule libraries left
    out) reads local files of SMALL_DATA_BYTES at most from its server, as `_Sources` finds them: the session they
    share then compiles with C1 only, as a run of one of them does. A contract whose data cannot be found yet counts
    as not small."""
    for read in reads:
        contract = None if isinstance(read, Refused) or read.result.kind == "library" else read.result.contract
        if contract is None:
            continue
        try:
            _, found = model_sources(contract, {}, set(), server, local, None)
        except DataError:  # its run says why; the session keeps Spark's JIT
            return False
        if not _small_data(found):
            return False
    return True


def _small_data(found: dict[str, DataLocation | str]) -> bool:
    """Whether the run's models read local files of SMALL_DATA_BYTES at most in all."""
    size = local_bytes(found)
    return size is not None and size <= SMALL_DATA_BYTES


def _label(contract: str | Path | Contract | ReadContract) -> str:
    """The contract as its phases name it: the file."""
    return contract.result.file if isinstance(contract, ReadContract) else contract.file if isinstance(contract, Contract) else str(contract)


def _read(contract: str | Path | Contract | ReadContract, options: RunOptions, phases: Phases) -> LoadResult | Contract:
    """The contract read (a Contract object needs no reading: lint holds its rules over it all the same)."""
    if isinstance(contract, Contract):
        return contract
    if isinstance(contract, ReadContract):
        phases.add("read", contract.seconds)
        return contract.result
    with phases.timed("read"):
        return load_contract(contract, options.vars)


@dataclass
class _Sources:
    """Each model's source that is not a DataFrame (data.py `model_source`) and the server chosen, found before
    Spark starts (`find`, between lint's halves). A model that is not the contract's, or a server it does not
    have, is bad input (DataError); a model whose data is not there is a run without data (`UnreadModel`, recorded
    in the history with the models read before it: `check`)."""
    dataframes: dict
    options: RunOptions
    starts_session: bool  # no session given: the run starts one (or takes the active one)
    found: dict[str, DataLocation | str] = field(default_factory=dict)
    server: Server | None = None

    def find(self, contract: Contract) -> None:
        # a --data path without a scheme is this machine's only when the session will be an embedded one
        local = self.starts_session and embedded(self.options.master, self.options.conf)
        self.server, self.found = model_sources(contract, self.options.data, set(self.dataframes), self.options.server, local,
                                                self.options.elsewhere)


def _model_frames(spark, contract: Contract, dataframes: dict, sources: dict[str, DataLocation | str], server,
                 where: str | None = None, where_filter: tuple[str, frozenset[str]] | None = None) -> tuple[dict, dict[str, str], dict[str, str]]:
    """Each model's DataFrame (the caller's, else read from its source: `_Sources`), filtered by `where` where
    it can be; model -> why it was not filtered; and model -> where its data came from (the verdict's
    `data_sources`).

    A model that lacks a column the filter names is checked unfiltered, with that note in the verdict:
    a contract's models rarely share a date column (`line_items` has no `order_timestamp`), and checking
    such a model whole is what a run without --where does. A filter no model can take is an error."""
    frames, unfiltered, origins = {}, {}, {}
    for model in contract.models:
        frame = dataframes.get(model.name)
        if frame is None:
            try:
                frame = source_dataframe(spark, model, sources[model.name], server)
            except DataError as exc:
                raise UnreadModel(model.name, str(exc)) from None
        origins[model.name] = "dataframe" if model.name in dataframes else _origin(sources[model.name])
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
        # run's views, GX's batch views), which would otherwise be the caller's cached DataFrame. Not
        # select("*"): Spark 4 resolves that to the caller's plan itself; a filter stays a node of its own
        frames[model.name] = frame.where("true")
    if where_filter is not None and frames and len(unfiltered) == len(frames):
        columns = ", ".join(f"`{c}`" for c in sorted(where_filter[1]))
        have = "; ".join(f"{name}: {', '.join(frame.columns)}" for name, frame in frames.items())
        raise DataError(f"--where {where!r} names {columns}, which no model of {contract.file} has, so it would filter nothing; "
                        f"name a column of the models ({have})")
    return frames, unfiltered, origins


def _origin(source: DataLocation | str) -> str:
    """Where a model's data was read from (read already, so the location is known to be good): the path or
    URI of a file location, `table:NAME` of a catalog table or view."""
    return f"table:{source}" if isinstance(source, str) else source.path


def _persist(frames: dict, given: dict) -> list:
    """Persist every model's DataFrame that is not cached yet, so that the engines, the empty-model
    notes and the samples read the source once; the frames persisted here, for the caller to release.
    A DataFrame the caller cached already (`given`, model -> the caller's DataFrame) is read from its
    cache as it is: the run's own plan over it (`_model_frames`) is not a cached plan to Spark, and
    persisting that would build a second copy of the caller's data."""
    from pyspark import StorageLevel

    persisted = []
    for model, frame in frames.items():
        try:
            level = given[model].storageLevel if model in given else None
            if level is None or not (level.useMemory or level.useDisk):
                persisted.append(frame.persist(StorageLevel.MEMORY_AND_DISK))
        except Exception:  # a session that refuses persisting (Databricks serverless): the run reads the source as without --cache
            return persisted
    return persisted


def _timed_engine(engine: str, spark, frames: dict, compiled: Compiled, model: str, now: datetime,
                  timeout: float | None, say: Callable[[str], None]) -> tuple[EngineReport, float]:
    """One engine on one model within the time limit, and the seconds it took."""
    say(f"{engine}: {model}")
    began = time.perf_counter()
    report = within(timeout, spark, f"{engine} on {model}", lambda: run_engine(engine, spark, frames, compiled, model, now),
                    on_timeout=lambda reason: EngineReport(engine, model, {}, float(timeout), error=reason))
    return report, time.perf_counter() - began


def run_engine(engine: str, spark, frames: dict, compiled: Compiled, model: str, now: datetime) -> EngineReport:
    """One engine on one model. An engine that raises becomes a report with the error, never a crash."""
    began = time.perf_counter()
    try:
        return ENGINES[engine].run(spark, frames, compiled, model, now)
    except Exception as exc:  # fail closed: every check of this engine becomes `error` in the fold
        # the whole text: a Py4J error's first line names only the JVM call; EngineReport keeps the root cause
        return EngineReport(engine=engine, model=model, results={}, seconds=time.perf_counter() - began,
                            error=f"{type(exc).__name__}: {str(exc).strip()}")


class SessionOnFirstNeed:
    """A Spark session started when it is first asked for, the engines' imports beside the JVM's start:
    a run's own, or the one the contracts of `run A B C` share, started by the first of them that needs
    Spark, so that a contract lint refuses before then starts nothing. `stop()` stops it if it was started here."""

    def __init__(self, master: str | None, conf: dict[str, str] | None, engines):
        self._master, self._conf, self._engines = master, conf, engines
        self._session: tuple | None = None
        self.small_data = False  # every contract of the command reads a few local megabytes (`small_contracts`)

    @property
    def started(self) -> bool:
        return self._session is not None

    def get(self, small_data: bool = False) -> tuple:
        """(session, created here); `small_data` (runner/data.py `local_bytes`) counts for the start only."""
        if self._session is None:
            preload_engines(self._engines)  # GX's and Soda's imports while the JVM starts
            self._session = get_session(self._master, self._conf, small_data=small_data or self.small_data)
        return self._session

    def jvm(self):
        return jvm_of(self.get()[0])

    def stop(self) -> None:
        if self._session is not None and self._session[1]:
            self._session[0].stop()


class _SessionOnDemand:
    """The run's session: the caller's, else the command's shared `SessionOnFirstNeed` or one of the run's
    own, got on first need, which is lint's when the contract has patterns (compiled in Spark's JVM), else
    right after the contract is planned. Getting it is the run's `spark` phase when this run starts it."""

    def __init__(self, spark, options: RunOptions, phases: Phases):
        self._shared = isinstance(spark, SessionOnFirstNeed)
        self._session = (spark, False) if spark is not None and not self._shared else None
        self._start = spark if self._shared else SessionOnFirstNeed(options.master, options.conf, options.engines)
        self._options = options
        self._phases = phases
        self.small_data = False  # the run reads a few local megabytes (runner/data.py `local_bytes`)
        self.owned = False  # started by this run or by the command's shared start: no caller's session

    def get(self) -> tuple:
        """(session, created here)."""
        if self._session is None:
            if not self._start.started:  # a shared session an earlier contract started is no start of this run's
                self._options.say("starting Spark")
                with self._phases.timed("spark"):
                    # a session shared by several contracts: one contract's few megabytes say nothing of the rest, the
                    # command's `small_contracts` does
                    self._start.get(small_data=self.small_data and not self._shared)
            spark, created = self._start.get()
            self._session = (spark, created and not self._shared)
            self.owned = created
        return self._session

    def jvm(self):
        return jvm_of(self.get()[0])

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
