"""`run --openlineage`: one OpenLineage RunEvent per contract run, sent through the `openlineage-python`
client's own transports (docs/reports.md, "OpenLineage").

The event's input datasets are the contract's models, named as OpenLineage names the data the run read
(the verdict's `data_sources`). Each carries the `dataQualityAssertions` facet, one assertion per check
(the contract's own checks, its SLAs, on every dataset) and one per monitor that judged the run (`monitor/<metric>`,
named by the monitor's id; one still learning judged nothing and has none), on its model's dataset,
and the `dataQualityMetrics` facet where the run counted something of the whole dataset: a row count check's
rows, a null check's nulls counted in rows (a check that also counts missingValues counts no `nullCount`).

Configuration is OpenLineage's own (openlineage.yml, `OPENLINEAGE_CONFIG`, `OPENLINEAGE_URL`,
`OPENLINEAGE__TRANSPORT__*`), read by the client. With none, the client would fall back to printing
events on the console; dc-bridge sends nothing instead and says so, so the flag alone never makes a
connection nor writes an event where a report is expected.
"""

from __future__ import annotations

import logging
import os
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Iterator

from dc_bridge import __version__
from dc_bridge.deadline import LINEAGE_SECONDS, DeadlineExceeded, within
from dc_bridge.extras import install_hint
from dc_bridge.paths import local_path
from dc_bridge.monitors import MonitorVerdict
from dc_bridge.report.monitors import band_text
from dc_bridge.verdict import CheckVerdict, Verdict, whole_dataset

PRODUCER = "https://github.com/dc-bridge/dc-bridge"
# the job namespace, unless OPENLINEAGE_NAMESPACE (the variable OpenLineage's integrations read) names another
DEFAULT_NAMESPACE = "dc-bridge"
# dc-bridge outcome -> the assertion's `success` ("no issues found"); a check not evaluated found none either
# way, so it is not a success, and its outcome stays in `params`
SUCCESS = {"passed": True, "warning": False, "failed": False, "error": False, "not_executable": False, "skipped": False}
# the contract's severity -> OpenLineage's ("error" blocks, "warn" only warns)
SEVERITY = {"error": "error", "warning": "warn"}
# a monitor's level -> OpenLineage's severity: only a strict anomaly fails the contract's verdict
MONITOR_SEVERITY = {"strict": "error", "warn": "warn", "off": "warn"}
# object stores Spark reads under another scheme than the one OpenLineage's naming uses
_SCHEMES = {"s3a": "s3", "s3n": "s3"}


class LineageNotConfigured(Exception):
    """--openlineage without an OpenLineage transport configured: nothing was sent."""


def dataset_name(source: str, model: str) -> tuple[str, str]:
    """(namespace, name) of a model's data as OpenLineage's naming conventions write them: a local
    file `file` and its path, an object store `s3://bucket` and its key, a catalog table
    `spark_catalog` and its name; a DataFrame handed to the run, which has no name of its own, `dataframe` and the model."""
    if source == "dataframe":
        return "dataframe", model
    if source.startswith("table:"):
        return "spark_catalog", source[len("table:"):]
    local = local_path(source)  # a plain path, or a `file:` URI decoded: one name for one file, however written
    if local is not None:
        return "file", os.path.abspath(local)
    # a URI with a host or bucket, split by hand: a key's `#` or `?` is part of the name, not a fragment or query
    scheme, _, rest = source.partition("://")
    netloc, _, key = rest.partition("/")
    return f"{_SCHEMES.get(scheme, scheme)}://{netloc}", key or "/"


def _number(value: float) -> str:
    """Every digit a float holds, no more: a row count in the millions stays exact (`:g` rounds to six)."""
    return f"{value:.15g}"


def _actual(check: CheckVerdict) -> str | None:
    if check.observed is None:
        return None
    return f"{_number(check.observed)}{'%' if check.unit == 'percent' else ''}"


def _assertion(check: CheckVerdict):
    from openlineage.client.facet_v2 import data_quality_assertions_dataset as dq

    params = {"outcome": check.outcome, "kind": check.kind, "unit": check.unit if check.observed is not None else None,
              "line": check.source.get("line")}
    if len(check.columns) > 1:
        params["columns"] = check.columns
    if check.reason:
        params["reason"] = check.reason
    return dq.Assertion(
        assertion=check.kind, success=SUCCESS[check.outcome], column=check.columns[0] if len(check.columns) == 1 else None,
        severity=SEVERITY.get(check.severity, check.severity), name=check.check_id, description=check.description,
        expected=check.expected, actual=_actual(check), params={k: v for k, v in params.items() if v is not None})


def _monitor_assertion(monitor: MonitorVerdict):
    """A judged monitor: a success when its value lay inside the band; the band is `expected`, the sentence the description."""
    from openlineage.client.facet_v2 import data_quality_assertions_dataset as dq

    params = {"outcome": monitor.outcome, "metric": monitor.metric, "subject": monitor.subject or None, "unit": monitor.unit,
              "centre": monitor.centre, "lower": monitor.lower, "upper": monitor.upper, "season": monitor.season, "points": monitor.points}
    return dq.Assertion(
        assertion=f"monitor/{monitor.metric}", success=monitor.outcome == "normal", severity=MONITOR_SEVERITY[monitor.severity],
        name=monitor.monitor_id, description=monitor.sentence, expected=band_text(monitor) or None,
        actual=_number(monitor.observed) if monitor.observed is not None else None,
        params={k: v for k, v in params.items() if v is not None})


def _lifecycle_assertion(verdict: Verdict):
    """The registry's lifecycle state of the contract's version, on each dataset it checks: a success unless past its
    sunset at strict; the finding (sunset, days left, successor) is its description."""
    from openlineage.client.facet_v2 import data_quality_assertions_dataset as dq

    lifecycle = verdict.lifecycle
    params = {"state": lifecycle.state, "sunset": lifecycle.sunset, "daysToSunset": lifecycle.days_to_sunset,
              "successor": lifecycle.successor, "level": lifecycle.level}
    return dq.Assertion(assertion="lifecycle", success=lifecycle.weighs_as != "failed",
                        severity="error" if lifecycle.weighs_as == "failed" else "warn", name=f"lifecycle {lifecycle.state}",
                        description=lifecycle.message, expected="not past its sunset", actual=lifecycle.state,
                        params={k: v for k, v in params.items() if v is not None})


def _metrics(verdict: Verdict, checks: list[CheckVerdict]):
    """The dataQualityMetrics facet from the counts the run has of the whole dataset: rows from a row count check,
    nulls per column from a null check counting nulls alone (not missingValues too: `CheckVerdict.dataset_metric`)
    in rows; none of a model a `--where` slice filtered (its counts are the slice's); None when it has neither."""
    from openlineage.client.facet_v2 import data_quality_metrics_input_dataset as dqm

    checks = [c for c in checks if whole_dataset(verdict, c)]
    rows = next((int(c.observed) for c in checks if c.dataset_metric == "rowCount"), None)
    nulls = {c.columns[0]: int(c.observed) for c in checks
             if c.dataset_metric == "nullCount" and c.unit == "rows" and len(c.columns) == 1}
    if rows is None and not nulls:
        return None
    return dqm.DataQualityMetricsInputDatasetFacet(
        rowCount=rows, columnMetrics={column: dqm.ColumnMetrics(nullCount=count) for column, count in nulls.items()},
        producer=PRODUCER)


def input_datasets(verdict: Verdict) -> list:
    """The verdict's models as OpenLineage input datasets, each with its `dataQualityAssertions` facet and, where the run
    counted the whole dataset, its `dataQualityMetrics` facet: a RunEvent's inputs, and what `dc_bridge.airflow` hands
    Airflow's OpenLineage integration."""
    from openlineage.client.event_v2 import InputDataset
    from openlineage.client.facet_v2 import data_quality_assertions_dataset as dq

    # checks of no dataset of their own (the contract's SLAs, of the "(contract)" model) are about all the data read
    read = [m for m in verdict.models if m.name in verdict.data_sources]
    whole = [c for m in verdict.models if m.name not in verdict.data_sources for c in m.checks]
    judged = [m for m in verdict.monitors if m.outcome != "learning"]
    inputs = []
    for model in read:
        namespace, name = dataset_name(verdict.data_sources[model.name], model.name)
        facets = {"dataQualityAssertions": dq.DataQualityAssertionsDatasetFacet(
            assertions=[_assertion(c) for c in model.checks + whole]
            + [_monitor_assertion(m) for m in judged if m.model == model.name or m.model not in verdict.data_sources]
            + ([_lifecycle_assertion(verdict)] if verdict.lifecycle is not None else []),
            producer=PRODUCER)}
        metrics = _metrics(verdict, model.checks)
        if metrics is not None:
            facets["dataQualityMetrics"] = metrics
        inputs.append(InputDataset(namespace=namespace, name=name, inputFacets=facets))
    return inputs


def run_event(verdict: Verdict):
    """The verdict as one RunEvent: COMPLETE when the contract was checked (whatever its outcome), FAIL
    when it could not be (its data unreadable, its file in error), with the reason as the error message."""
    from openlineage.client.event_v2 import Job, Run, RunEvent, RunState
    from openlineage.client.facet_v2 import error_message_run, processing_engine_run
    from openlineage.client.uuid import generate_new_uuid

    started = datetime.fromisoformat(verdict.started_at) if verdict.started_at else None
    ended = started + timedelta(seconds=verdict.seconds or 0) if started else None
    run_facets = {"processing_engine": processing_engine_run.ProcessingEngineRunFacet(
        version=__version__, name="dc-bridge", openlineageAdapterVersion=_client_version(), producer=PRODUCER)}
    if verdict.error:
        run_facets["errorMessage"] = error_message_run.ErrorMessageRunFacet(
            message=verdict.error, programmingLanguage="python", producer=PRODUCER)
    return RunEvent(
        eventType=RunState.FAIL if verdict.error else RunState.COMPLETE,
        eventTime=(ended or datetime.now().astimezone()).isoformat(),
        run=Run(runId=str(generate_new_uuid(started)), facets=run_facets),
        job=Job(namespace=os.environ.get("OPENLINEAGE_NAMESPACE") or DEFAULT_NAMESPACE, name=verdict.contract_id or verdict.contract_file),
        inputs=input_datasets(verdict), outputs=[], producer=PRODUCER)


def _client_version() -> str:
    from importlib.metadata import version

    return version("openlineage-python")


class _NoConsoleFallback(logging.Filter):
    """Drops the client's "will print events to console" warning: without a configuration dc-bridge sends nothing."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "print events to console" not in record.getMessage()


@contextmanager
def _quiet_fallback() -> Iterator[None]:
    logger, quiet = logging.getLogger("openlineage.client.client"), _NoConsoleFallback()
    logger.addFilter(quiet)
    try:
        yield
    finally:
        logger.removeFilter(quiet)


def emit(verdicts: list[Verdict], seconds: float = LINEAGE_SECONDS) -> str:
    """Send one RunEvent per verdict through the transport OpenLineage's configuration names, all of them within `seconds`
    in all (deadline.py: DeadlineExceeded past it, saying how many were sent); what was done, for the console.
    LineageNotConfigured when no transport is configured (nothing sent, no connection)."""
    try:
        from openlineage.client import OpenLineageClient
        from openlineage.client.transport.console import ConsoleTransport
    except ImportError:
        raise LineageNotConfigured(f"the openlineage-python client is not installed: {install_hint('openlineage')}") from None
    with _quiet_fallback():
        client = OpenLineageClient()
    # the client's last resort when nothing names a transport: printing events, which nobody asked for
    if isinstance(client.transport, ConsoleTransport) and not (client.config.transport or {}).get("type"):
        raise LineageNotConfigured("no OpenLineage transport is configured (openlineage.yml, OPENLINEAGE_CONFIG, OPENLINEAGE_URL "
                                   "or OPENLINEAGE__TRANSPORT__TYPE); no event was sent")
    if client.transport.kind == "noop":
        raise LineageNotConfigured("OpenLineage is disabled (OPENLINEAGE_DISABLED=true); no event was sent")
    events = [run_event(verdict) for verdict in verdicts]
    sent: list = []

    def send() -> None:
        try:
            for event in events:
                client.emit(event)
                sent.append(event)
        finally:
            client.close()
    try:
        within(seconds, f"sending OpenLineage events through the {client.transport.kind} transport", send)
    except DeadlineExceeded as exc:
        raise DeadlineExceeded(f"{exc}: {len(sent)} of {len(events)} event(s) sent") from None
    return f"sent {len(verdicts)} OpenLineage run event(s) through the {client.transport.kind} transport"
