"""Prometheus metrics of a verdict (docs/monitoring.md): pushed to a Pushgateway (`run --metrics-push URL`)
or written for node_exporter's textfile collector (`run --metrics-file PATH`), through the official
`prometheus-client` library, which writes the exposition and escapes every label value.

Every family is a gauge: a run is a batch job, and what it reports is the state it found, not a count
that grows (so no family ends in `_total`). Labels are identifiers the contract declares (contract id and
version, model, check id, kind, severity, outcome, engine, SLO id, a monitor's metric and subject (a check id
or a column)): never a data value, a reason or a description. The monitor families exist only in the metrics
of a run whose verdict holds monitors. A contract whose metrics would exceed `SERIES_LIMIT` series (`TooManySeries`) publishes
its contract-level families alone (`summary`): its outcome still replaces its last run's, whatever its size.

Pushgateway: one group per contract (`job="dc-bridge"`, `contract=<id>`), pushed with PUT, so runs of
different contracts never overwrite each other and a contract's run replaces its previous push whole
(a check that no longer exists disappears). The textfile is written to a temporary file in the same
folder and renamed over the target, so a scrape never reads half a file.

Where a target cannot be reached or written after the run, nothing changes the verdict or the exit code:
`publish` returns what was not published, for the caller to warn about.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Iterable, get_args
from urllib.parse import urlsplit

from dc_bridge.contract.thresholds import upper_bound
from dc_bridge.deadline import PUSH_SECONDS, DeadlineExceeded, within
from dc_bridge.monitors import MonitorOutcome
from dc_bridge.outcomes import ALL
from dc_bridge.paths import Place, clash, foreign, local_path, may_write_in, nearest_existing
from dc_bridge.verdict import CheckVerdict, LifecycleState, Verdict, whole_dataset

JOB = "dc-bridge"
# series one contract's metrics may hold: a check is 6 outcome series and one number (3 for freshness), so about 1,400 checks;
# a monitor is 3 outcome series and up to 3 numbers;
# Prometheus' own guidance is to keep a target's series in the thousands, and a Pushgateway keeps every group in memory
SERIES_LIMIT = 10_000
# seconds one read of a push may take before it counts as unreachable; all the pushes of a run take at most
# deadline.PUSH_SECONDS in all (a gateway that answers a byte at a time trips no read's timeout)
PUSH_TIMEOUT = 10.0
_SCHEMES = ("http", "https")

# the unit a check's observed number is in (CheckVerdict.unit) -> (family, its help, the factor to Prometheus' base unit)
OBSERVED = {
    "rows": ("dc_bridge_check_observed_rows", "The number a check counted, in rows (violating rows, or a row count).", 1.0),
    "percent": ("dc_bridge_check_observed_ratio", "The share a check measured (violating rows of all rows, passing runs), 0 to 1.", 0.01),
    "seconds": ("dc_bridge_check_observed_seconds", "The duration a check measured (freshness: age of the newest row).", 1.0),
    None: ("dc_bridge_check_observed_value", "The value a check measured, in the contract's own unit (a SQL metric).", 1.0),
}
# the checks whose observed number is a model's rows (CheckVerdict.dataset_metric, as OpenLineage reads it)
ROW_COUNT_METRIC = "rowCount"
CONTRACT = ("contract", "version")
CHECK = (*CONTRACT, "model", "check", "kind", "severity")
MONITOR = (*CONTRACT, "model", "metric", "subject")
MONITOR_OUTCOMES = get_args(MonitorOutcome)
LIFECYCLE_STATES = get_args(LifecycleState)
# a monitor's numbers, in its metric's own unit (rows, seconds, a ratio): (family, its help, the MonitorVerdict field)
MONITOR_NUMBERS = (
    ("dc_bridge_monitor_observed", "The value a monitor observed in the contract's last run, in its metric's unit.", "observed"),
    ("dc_bridge_monitor_lower", "The lower bound of the band a monitor expected (absent while it is learning).", "lower"),
    ("dc_bridge_monitor_upper", "The upper bound of the band a monitor expected (absent while it is learning).", "upper"),
)


class MetricsWarning(UserWarning):
    """Metrics the Python API could not publish after a run (`warn_unpublished`); the verdict stands."""


def warn_unpublished(problems: list[str]) -> None:
    import warnings

    for problem in problems:
        warnings.warn(problem, MetricsWarning, stacklevel=3)


class MetricsError(ValueError):
    """A metrics target that is bad input (a malformed URL, a path that cannot be written): refused before the run."""


class TooManySeries(MetricsError):
    """A contract whose metrics would exceed SERIES_LIMIT series; none of them was published."""


@dataclass(frozen=True)
class Targets:
    """Where a run's metrics go, checked when made: `push` a Pushgateway's URL, `file` a textfile collector's file."""
    push: str | None = None
    file: str | Path | None = None
    # how messages name the two: the command line's options, or the Python API's keywords
    words: tuple[str, str] = ("--metrics-push", "--metrics-file")

    def __post_init__(self) -> None:
        if self.push is not None:
            check_push_url(self.push, self.words[0])
        if self.file is not None:
            check_file_path(self.file, self.words[1])

    def __bool__(self) -> bool:
        return self.push is not None or self.file is not None


# what makes a URL no Pushgateway's address, as a message says it, and the test of it, in order
_URL_PROBLEMS = (
    ("its scheme is not http or https", lambda url, parts, port: parts.scheme not in _SCHEMES),
    ("it names no host", lambda url, parts, port: not parts.hostname),
    ("it has a query or fragment", lambda url, parts, port: bool(parts.query or parts.fragment)),
    ("its port is 0", lambda url, parts, port: port == 0),
    ("it holds a space or control character", lambda url, parts, port: any(ch.isspace() or ord(ch) < 32 for ch in url)),
)


def check_push_url(url: str, option: str = "--metrics-push") -> None:
    """A Pushgateway URL as prometheus-client's push takes it: http or https, a host, no query or fragment."""
    fix = "give the Pushgateway's address, e.g. http://pushgateway:9091"
    try:
        parts = urlsplit(url)
        port = parts.port  # raises on a port that is not a number from 0 to 65535
    except ValueError as exc:
        raise MetricsError(f"{option} {url!r} is not a URL ({exc}); {fix}") from None
    problem = next((said for said, wrong in _URL_PROBLEMS if wrong(url, parts, port)), None)
    if problem:
        raise MetricsError(f"{option} {url!r}: {problem}; {fix}")


def check_file_path(path: str | Path, option: str = "--metrics-file") -> None:
    """A file the metrics can be written to: not a folder, in a folder that exists (or can be made) and is writable."""
    import os

    target = Path(path)
    if target.is_dir():
        raise MetricsError(f"{option} {path} is a folder; name a file, e.g. {target / 'dc-bridge.prom'}")
    existing = nearest_existing(target.absolute().parent)
    if not existing.is_dir():
        raise MetricsError(f"{option} {path}: its folder cannot be created ({existing} is a file); name a file in a folder")
    if not may_write_in(existing) or (target.exists() and not os.access(target, os.W_OK)):
        raise MetricsError(f"{option} {path} cannot be written (permission denied); name a file in a folder you can write to")


def _timestamp(verdict: Verdict) -> float | None:
    return datetime.fromisoformat(verdict.started_at).timestamp() if verdict.started_at else None


def _finite(value: float | None) -> bool:
    return value is not None and math.isfinite(value)


def registry(verdicts: Iterable[Verdict], limit: int = SERIES_LIMIT):
    """The metrics of `verdicts` in one prometheus-client registry; TooManySeries when one contract's exceed `limit`."""
    from prometheus_client import CollectorRegistry, Gauge

    from dc_bridge.plan.checks import KINDS

    verdicts = list(verdicts)
    reg = CollectorRegistry()

    def gauge(name: str, help: str, labels: tuple[str, ...]):
        return Gauge(name, help, labels, registry=reg)

    contract_outcome = gauge("dc_bridge_contract_outcome", "1 for the outcome of the contract's last run, 0 for the others.", (*CONTRACT, "outcome"))
    contract_checks = gauge("dc_bridge_contract_checks", "The checks of the contract's last run, by outcome.", (*CONTRACT, "outcome"))
    run_seconds = gauge("dc_bridge_run_duration_seconds", "How long the contract's last run took.", CONTRACT)
    run_at = gauge("dc_bridge_run_timestamp_seconds", "When the contract's last run started (its clock), in Unix time.", CONTRACT)
    passed_at = gauge("dc_bridge_last_success_timestamp_seconds",
                      "When the contract's last passing run (outcome passed or warning) started, in Unix time: written by passing runs only.", CONTRACT)
    engine_seconds = gauge("dc_bridge_engine_duration_seconds", "How long each engine took in the contract's last run.", (*CONTRACT, "engine"))
    engine_error = gauge("dc_bridge_engine_error", "1 when the engine failed as a whole in the contract's last run, else 0.", (*CONTRACT, "engine"))
    model_rows = gauge("dc_bridge_model_rows", "A model's rows, where the last run counted them (a row count check).", (*CONTRACT, "model"))
    check_outcome = gauge("dc_bridge_check_outcome", "1 for the outcome of the check in the contract's last run, 0 for the others.", (*CHECK, "outcome"))
    observed = {unit: gauge(name, help, CHECK) for unit, (name, help, _) in OBSERVED.items()}
    age = gauge("dc_bridge_freshness_age_seconds", "The age of a model's newest timestamp when its freshness check ran.", (*CONTRACT, "model", "check"))
    age_limit = gauge("dc_bridge_freshness_limit_seconds", "The age a freshness check allows (its SLA).", (*CONTRACT, "model", "check"))
    slo_value = gauge("dc_bridge_slo_ratio", "An ODCS dataQuality SLO's value: the share of its rules' evaluations that passed, 0 to 1.",
                      (*CONTRACT, "slo"))
    slo_target = gauge("dc_bridge_slo_target_ratio", "An ODCS dataQuality SLO's target, 0 to 1.", (*CONTRACT, "slo"))

    if any(v.monitors for v in verdicts):
        # `level` (warn, strict): what an anomaly does, so an alert tells the anomaly that failed the contract from one reported
        monitor_outcome = gauge("dc_bridge_monitor_outcome", "1 for what the monitor said of the contract's last run "
                                "(normal, anomalous, learning), 0 for the others; level: warn reports it, strict failed the contract.",
                                (*MONITOR, "level", "outcome"))
        monitor_numbers = {field: gauge(name, help, MONITOR) for name, help, field in MONITOR_NUMBERS}

    for verdict in verdicts:
        before = _series(reg)
        contract = {"contract": verdict.contract_id, "version": verdict.contract_version}
        for outcome in ALL:
            contract_outcome.labels(**contract, outcome=outcome).set(int(verdict.outcome == outcome))
            contract_checks.labels(**contract, outcome=outcome).set(verdict.counts.get(outcome, 0))
        if _finite(verdict.seconds):
            run_seconds.labels(**contract).set(verdict.seconds)
        started = _timestamp(verdict)
        if started is not None:
            run_at.labels(**contract).set(started)
            if verdict.exit_code() == 0:
                passed_at.labels(**contract).set(started)
        for engine in verdict.engines:
            if engine in verdict.engine_seconds:
                engine_seconds.labels(**contract, engine=engine).set(verdict.engine_seconds[engine])
            engine_error.labels(**contract, engine=engine).set(int(engine in verdict.engine_errors))
        for check in verdict.checks():
            labels = {**contract, "model": check.model, "check": check.check_id, "kind": check.kind, "severity": check.severity}
            for outcome in ALL:
                check_outcome.labels(**labels, outcome=outcome).set(int(check.outcome == outcome))
            if not _finite(check.observed):
                continue
            observed[check.unit if check.unit in OBSERVED else None].labels(**labels).set(check.observed * OBSERVED.get(check.unit, OBSERVED[None])[2])
            kind = KINDS.get(check.kind)
            if check.dataset_metric == ROW_COUNT_METRIC and whole_dataset(verdict, check):
                model_rows.labels(**contract, model=check.model).set(check.observed)
            if kind is not None and kind.data_age:
                age.labels(**contract, model=check.model, check=check.check_id).set(check.observed)
                limit_seconds = upper_bound(check.threshold)  # the freshness SLA's age
                if limit_seconds is not None:
                    age_limit.labels(**contract, model=check.model, check=check.check_id).set(limit_seconds)
        for slo in verdict.objectives:
            if _finite(slo.value):
                slo_value.labels(**contract, slo=slo.objective_id).set(slo.value / 100)
            if _finite(slo.target):
                slo_target.labels(**contract, slo=slo.objective_id).set(slo.target / 100)
        for monitor in verdict.monitors:
            labels = {**contract, "model": monitor.model, "metric": monitor.metric, "subject": monitor.subject}
            for outcome in MONITOR_OUTCOMES:
                monitor_outcome.labels(**labels, level=monitor.severity, outcome=outcome).set(int(monitor.outcome == outcome))
            for field, family in monitor_numbers.items():
                value = getattr(monitor, field)
                if _finite(value):
                    family.labels(**labels).set(value)
        count = _series(reg) - before
        if count > limit:
            raise TooManySeries(f"contract {verdict.contract_id!r}: its metrics would be {count:,} series, over the limit of {limit:,} "
                                f"per contract ({len(verdict.checks()):,} checks, {len(ALL)} outcome series each"
                                f"{f'; {len(verdict.monitors):,} monitors' if verdict.monitors else ''})")
    _lifecycle_gauges(reg, verdicts)
    return reg


def _lifecycle_gauges(reg, verdicts: list[Verdict]) -> None:
    """The registry's lifecycle state of each contract's version (1 for its state, 0 for the others) and its sunset, so an
    alert can fire days before it (`dc_bridge_contract_sunset_timestamp_seconds - time() < 7 * 86400`)."""
    from prometheus_client import Gauge


    having = [verdict for verdict in verdicts if verdict.lifecycle is not None]
    if not having:
        return
    state = Gauge("dc_bridge_contract_lifecycle", "1 for the lifecycle state the registry gives the contract's version "
                  "(deprecated, sunset, retired, ...), 0 for the others.", (*CONTRACT, "state"), registry=reg)
    sunset = Gauge("dc_bridge_contract_sunset_timestamp_seconds", "When the contract's deprecated version is sunset, in Unix time.",
                   CONTRACT, registry=reg)
    for verdict in having:
        contract = {"contract": verdict.contract_id, "version": verdict.contract_version}
        for name in LIFECYCLE_STATES:
            state.labels(**contract, state=name).set(int(verdict.lifecycle.state == name))
        if verdict.lifecycle.sunset_timestamp is not None:
            sunset.labels(**contract).set(verdict.lifecycle.sunset_timestamp)


def _series(reg) -> int:
    return sum(len(family.samples) for family in reg.collect())


def exposition(verdicts: Iterable[Verdict], limit: int = SERIES_LIMIT) -> str:
    """The metrics of `verdicts` in Prometheus' text format (version 0.0.4), as a scrape or the textfile collector reads it."""
    from prometheus_client import generate_latest

    return generate_latest(registry(verdicts, limit)).decode("utf-8")


def push(url: str, verdict: Verdict, limit: int = SERIES_LIMIT) -> None:
    """Replace the contract's group on the Pushgateway at `url` (PUT) with the metrics of `verdict`."""
    from prometheus_client import push_to_gateway

    push_to_gateway(url, job=JOB, registry=registry([verdict], limit), grouping_key={"contract": verdict.contract_id}, timeout=PUSH_TIMEOUT)


def write_file(path: str | Path, verdicts: list[Verdict], limit: int = SERIES_LIMIT) -> None:
    """Write the metrics of `verdicts` to `path` whole or not at all: a temporary file beside it, renamed over it."""
    from prometheus_client import write_to_textfile

    reg = registry(verdicts, limit)
    Path(path).parent.mkdir(parents=True, exist_ok=True)  # the Python API's file may be in a folder not made yet
    write_to_textfile(str(path), reg)


def metrics(verdicts: Verdict | list[Verdict], *, push: str | None = None, file: str | Path | None = None) -> list[str]:
    """`dc_bridge.metrics`: publish verdicts the caller has (a `split`'s, a folded GX or Soda run's) as `run` does;
    MetricsError for a bad target, else what could not be published (empty when all was)."""
    targets = Targets(push=push, file=local_path(str(file)) if file is not None else None, words=("push=", "file="))
    if targets.file is not None:
        _refuse_inputs(targets.file, [verdicts] if isinstance(verdicts, Verdict) else list(verdicts))
    return publish(verdicts, targets)


# what the first lines of a metrics file dc-bridge wrote hold (every metric's name starts with it)
METRICS_MARK = "dc_bridge_"


def _refuse_inputs(file: str, verdicts: list[Verdict]) -> None:
    """The rule every writer keeps (paths.py): the metrics file is none of the files the verdicts were judged from (their
    contracts, their data), lies in none and is no other program's file (MetricsError)."""
    inputs = [Place(v.contract_file, "the contract of a verdict") for v in verdicts if v.contract_file]
    inputs += [Place(path, f"the data of model `{model}`") for v in verdicts for model, path in v.data_sources.items()
               if path != "dataframe" and not path.startswith("table:")]  # runner/pipeline.py `_origin`
    found = clash([Place(file, f"file={file!r}")], inputs)
    if found:
        _, _, how, other = found
        raise MetricsError(f"file={file!r} {how} {other.what} ({other.path}), which the metrics would replace; nothing was written. "
                           f"Name a file of its own for the metrics, e.g. dc-bridge.prom.")
    if foreign(file, METRICS_MARK):
        raise MetricsError(f"file={file!r} is not a metrics file dc-bridge wrote, and the metrics would replace it; nothing was "
                           f"written. Choose another file, or move it.")


def summary(verdict: Verdict) -> Verdict:
    """A verdict's contract-level facts alone (its outcome, check counts, run and engine times): what a contract over
    the series limit publishes, so that its group and its lines still replace its last run's."""
    return verdict.model_copy(update={"models": [], "monitors": [], "objectives": []})


def _fitted(verdicts: list[Verdict], limit: int) -> tuple[list[Verdict], list[str]]:
    """Each verdict, or its `summary` where its metrics would exceed `limit` series, and what was left out."""
    fitted, problems = [], []
    for verdict in verdicts:
        try:
            registry([verdict], limit)
            fitted.append(verdict)
        except TooManySeries as exc:
            fitted.append(summary(verdict))
            problems.append(f"{exc}: only its contract-level metrics (outcome, check counts, run times) were published. Split the "
                            f"contract, or leave out --metrics-push and --metrics-file for it (docs/monitoring.md).")
    return fitted, problems


def publish(verdicts: Verdict | list[Verdict], targets: Targets, limit: int = SERIES_LIMIT, seconds: float = PUSH_SECONDS) -> list[str]:
    """Push each verdict to `targets.push` (a group per contract; all of them within `seconds` in all) and write them all
    to `targets.file`, a contract over `limit` series by its contract-level metrics alone. Returns what could not be
    published, one line each, for the caller to warn about; nothing here changes a verdict."""
    import time

    verdicts, problems = _fitted([verdicts] if isinstance(verdicts, Verdict) else list(verdicts), limit)
    if targets.push is not None:
        ends = time.monotonic() + seconds
        for verdict in verdicts:
            try:
                left = ends - time.monotonic()
                if left <= 0:
                    raise DeadlineExceeded(f"the pushes of this run did not finish within {seconds:g} s in all; not tried")
                within(left, f"the push to {targets.push}", lambda verdict=verdict: push(targets.push, verdict, limit))
            except Exception as exc:  # the gateway's own failure (refused, timeout, an HTTP error): the verdict stands
                problems.append(f"the metrics of contract {verdict.contract_id!r} were not pushed to {targets.push}: "
                                f"{type(exc).__name__}: {exc}")
    if targets.file is not None:
        try:
            write_file(targets.file, verdicts, limit)
        except OSError as exc:
            problems.append(f"the metrics were not written to {targets.file}: {exc.strerror or exc}")
    return problems
