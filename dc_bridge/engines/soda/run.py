"""Run compiled SodaCL (Soda Core v3) on a Spark DataFrame -> EngineReport.

The DataFrame is registered as the temp view the SodaCL names (`sql.view_name`), one `Scan` per
model runs on the caller's session (`spark_df.attach`), and the results are joined by check name,
which the translator sets to the check id. The view is dropped afterwards.

Numbers (docs/mapping.md, "Semantics, check by check") come from the check's metric value (`diagnostics.value`):

- `missing_count` / `invalid_count` and the bridge's user-defined metrics: the value as is;
- `missing_percent` / `invalid_percent`: Soda rounds these to two decimals, so the exact percent is
  recomputed from the count and row count metrics the percent was derived from;
- `freshness`: Soda's diagnostics value is in milliseconds; the exact age is read from the check's
  own `freshness` timedelta (seconds), with the milliseconds as fallback. Soda measures it against
  the scan variable `NOW`, which is set to the run's `now` so both engines measure the same age.

A check Soda could not evaluate (a query error, a missing column) has no outcome and is missing from
`get_scan_results()["checks"]`; it is reported as outcome "error" with Soda's error log text.

A uniqueness check (in rows or percent) is sent to Soda's data source widened (`key_samples_query`): the
same number of the rows whose key repeats, by a window over the key (cheaper than the SodaCL's grouping
for a mostly distinct key), also gives how many distinct keys repeat and the smallest and largest,
which the result carries as the native engine's does, so the failing-value samples need no query of
their own (runner/samples.py). Soda receives the first column alone, the number its own query computes.

Telemetry: Soda Core 3.5 decides it once, in the `ConfigHelper` singleton, which reads
`~/.soda/config.yml` (`send_anonymous_usage_stats`) and, when that file is missing, *writes* one with
telemetry on; `SodaTelemetry` then installs an OpenTelemetry exporter to collect.soda.io. There is
no environment variable, and `Scan.disable_telemetry()` only clears an unused attribute. So before
`soda.scan` is first imported, the singleton is created here, in memory, with telemetry off: no
file is read or written in the user's home and no exporter is installed. If Soda was imported
before (by the caller), the existing singletons are switched off and the exporter shut down.
"""

from __future__ import annotations

import logging
import sys
import time
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from typing import Any

import yaml

from dc_bridge.outcomes import rank
from dc_bridge.plan.checks import Check, kind_of
from dc_bridge.engines.columns import unrunnable
from dc_bridge.engines.nested_types import unsendable
from dc_bridge.engines.queries import SCALAR_NULL_REASON, judge_metric
from dc_bridge.engines.results import CheckResult, EngineReport, age_seconds
from dc_bridge.engines.views import temp_views
from dc_bridge.engines.spark_conditions import key_examples
from dc_bridge.engines.soda.translate import DATA_SOURCE, RUN_CLOCK_VARIABLE, key_count_query, key_samples_query, soda_resolved

# Soda's outcome of a check it judges itself (a custom check): its `warn` level is a warning, as Soda rates it
# (a check whose `fail` level holds too is `fail`); the contract's severity softens a failure, never a warning
_SODA_OUTCOMES = {"pass": "passed", "warn": "warning", "fail": "failed"}


def disable_soda_telemetry() -> None:
    """Soda telemetry off for this process, without touching ~/.soda (see the module docstring)."""
    from soda.common.config_helper import ConfigHelper

    # private attributes, because no public switch exists (see the module docstring): the singleton is
    # created without its __init__, and the telemetry's own flag and exporter are turned off
    instance = getattr(ConfigHelper, "_ConfigHelper__instance", None)
    if instance is None:
        helper = object.__new__(ConfigHelper)  # no __init__: it would read and write ~/.soda/config.yml
        helper._ConfigHelper__config = {"send_anonymous_usage_stats": False, "user_cookie_id": "dc-bridge"}
        helper._config_path = None
        ConfigHelper._ConfigHelper__instance = helper
    else:
        instance.config["send_anonymous_usage_stats"] = False  # in memory only; never saved
    module = sys.modules.get("soda.telemetry.soda_telemetry")
    telemetry = getattr(getattr(module, "SodaTelemetry", None), "_SodaTelemetry__instance", None)
    if telemetry is not None and getattr(telemetry, "_SodaTelemetry__send", False):
        telemetry._SodaTelemetry__send = False
        provider = getattr(telemetry, "_SodaTelemetry__provider", None)
        if provider is not None:
            provider.shutdown()


# as early as possible: before anything in this process imports soda.scan (and with it the telemetry)
disable_soda_telemetry()
# Soda logs each query error with its Java stack to "soda.scan"; with no handler configured Python's last
# resort printed them on stderr. A run reports them as the checks' errors; a caller's own handlers still get them
logging.getLogger("soda.scan").addHandler(logging.NullHandler())


def preload() -> None:
    """Import what a scan uses, ahead of it (runner/pipeline.py overlaps it with Spark's start): Soda's
    scan and its SodaCL parser, an ANTLR grammar, take seconds to import. Telemetry is off already."""
    import soda.scan  # noqa: F401
    import soda.sodacl.sodacl_parser  # noqa: F401
    import soda.data_sources.spark_data_source  # noqa: F401


def run_soda(spark, df, sodacl_text: str, view: str, checks: list[Check], *,
             extra_views: dict[str, Any] | None = None, now: datetime | None = None) -> EngineReport:
    """Scan `df` (registered as temp view `view`) with `sodacl_text`; one CheckResult per check of
    `checks` that the SodaCL names. `extra_views` (view name -> DataFrame): referenced models for
    foreign keys, registered and dropped like `view`. `now`: the freshness reference time (aware;
    naive is taken as UTC), default the scan's start; pass the same `now` as to run_gx, or the two
    engines measure the age at different moments and disagree."""
    started = time.perf_counter()
    model = checks[0].model if checks else view
    try:
        results, rows = _run(spark, df, sodacl_text, view, checks, extra_views or {}, now)
    except Exception as exc:
        return EngineReport("soda", model, {}, time.perf_counter() - started, error=f"{type(exc).__name__}: {exc}")
    return EngineReport("soda", model, results, time.perf_counter() - started, rows=rows)


def _run(spark, df, sodacl_text: str, view: str, checks: list[Check], extra_views: dict,
         now: datetime | None) -> tuple[dict[str, CheckResult], int | None]:
    """The results, and the model's row count when the scan computed it."""
    disable_soda_telemetry()
    from soda.scan import Scan

    from dc_bridge.engines.soda.spark_df import attach

    by_id = {check.id: check for check in checks}
    # check id -> its SodaCL check lines (a custom Soda check may hold several, all named by its id)
    expected = {name: lines for name, lines in named_lines(sodacl_text).items() if name in by_id}
    results: dict[str, CheckResult] = {}
    # a check on a column the data lacks would break Soda's fused query for every other check
    not_sent = set()
    for check_id, lines in expected.items():
        check = by_id[check_id]
        problem = unrunnable(df, check)  # a missing column: failed; a column of an unfit type: error
        problem = problem or unsendable(df, check)  # a nested type query that could not be analysed: failed
        if problem:
            not_sent.add(check_id)
            results[check_id] = CheckResult(check_id, "soda", problem.outcome, native_name=" | ".join(lines), error=problem.reason)
    if not_sent:
        sodacl_text = _without(sodacl_text, not_sent)
        expected = {k: v for k, v in expected.items() if k not in not_sent}
    if not expected:
        return results, None

    scan = Scan()
    scan.set_data_source_name(DATA_SOURCE)  # before the SodaCL is added, or its checks bind to no data source
    attach(scan, spark, DATA_SOURCE)  # our Spark DataFrame data source (spark_df.py)
    widened, keys = _key_queries(checks, view), {}
    if widened:
        # private: a Scan hands out no data source it holds, and the widened queries need its connection
        source = scan._data_source_manager.data_sources[DATA_SOURCE]
        source.connection = _WidenedConnection(source.connection, widened, keys)
    if hasattr(scan, "_configuration"):
        # private: Scan has no setter for the scan-wide samples limit, and a custom check's SodaCL sets none itself
        scan._configuration.samples_limit = 0  # no failed-row sample queries, for custom checks too
    # NOW: Soda's freshness reference (naive local, `_soda_now`); RUN_CLOCK_VARIABLE: the instant other
    # checks compare with (translate.py `RUN_CLOCK`): both the run's one clock
    clock = now or datetime.now(timezone.utc)
    scan.add_variables({"NOW": _soda_now(clock), RUN_CLOCK_VARIABLE: (clock if clock.tzinfo else clock.replace(tzinfo=timezone.utc)).isoformat()})
    scan.add_sodacl_yaml_str(sodacl_text)
    with temp_views(spark, {view: df, **extra_views}):
        scan.execute()

    results.update(read_scan(scan, expected, by_id))
    try:
        results.update(_key_samples(results, keys, by_id))
    except Exception:  # samples are evidence, never an outcome: runner/samples.py fetches those missing here
        pass
    return results, _row_count(scan, view)


def _key_queries(checks: list[Check], view: str) -> dict[str, tuple[str, str]]:
    """Soda's query of each uniqueness check, in rows or percent -> (check id, the query of the same number
    by a window, widened by the repeated keys' count and extremes): both written by translate.py from
    the check itself."""
    return {key_count_query(check, view): (check.id, key_samples_query(check, view))
            for check in checks if kind_of(check).samples == "duplicate_keys"}


class _WidenedConnection:
    """The scan's connection, whose cursors run each query of `widened` in its widened form."""

    def __init__(self, connection, widened: dict[str, tuple[str, str]], rows: dict[str, tuple]):
        self._connection, self._widened, self._rows = connection, widened, rows

    def cursor(self):
        return _WidenedCursor(self._connection.cursor(), self._widened, self._rows)

    def __getattr__(self, name):
        return getattr(self._connection, name)


class _WidenedCursor:
    """Runs a widened query in one Spark job, keeps its whole row (check id -> row) and hands Soda
    the first column alone: the number Soda's own query computes, from the same grouping."""

    def __init__(self, cursor, widened: dict[str, tuple[str, str]], rows: dict[str, tuple]):
        self._cursor, self._widened, self._rows, self._sql = cursor, widened, rows, None

    @property
    def description(self):
        described = self._cursor.description
        return described[:1] if self._sql in self._widened and described else described

    def execute(self, sql: str):
        self._sql = sql
        self._cursor.execute(self._widened[sql][1] if sql in self._widened else sql)

    def fetchone(self):
        row = self._cursor.fetchone()
        if self._sql not in self._widened:
            return row
        self._rows[self._widened[self._sql][0]] = row
        return row[:1]

    def __getattr__(self, name):  # fetchall, fetchmany, close: the data source's own
        return getattr(self._cursor, name)


def _key_samples(results: dict[str, CheckResult], rows: dict[str, tuple], by_id: dict[str, Check]) -> dict[str, CheckResult]:
    """Each failed uniqueness check with how many distinct keys repeat and the smallest and largest
    (none of a sensitive field), as the native engine reports them: runner/samples.py takes them as they are."""
    return {check_id: replace(results[check_id], duplicated_values=int(row[1]),
                              samples=[] if by_id[check_id].sensitive else key_examples(row[2], row[3]))
            for check_id, row in rows.items() if check_id in results and results[check_id].outcome == "failed"}


def read_scan(scan, expected: dict[str, list[str]], by_id: dict[str, Check], table: str | None = None) -> dict[str, CheckResult]:
    """An executed Scan -> one CheckResult per check id of `expected` (check id -> its SodaCL check
    lines, see `named_lines`), joined by check name. `table`: the view whose row count percent
    checks use, when the scan covered several. Shared by the runner and by reading a scan run
    outside dc-bridge (external.py)."""
    results: dict[str, CheckResult] = {}
    evaluated: dict[str, list[dict]] = {}
    for entry in scan.get_scan_results().get("checks", []):
        evaluated.setdefault(entry.get("name"), []).append(entry)
    objects = {}
    for check_object in scan_checks(scan):
        try:
            objects.setdefault(check_object.name, check_object)
        except Exception:
            continue
    row_count = _row_count(scan, table)
    for check_id, lines in expected.items():
        check, native = by_id[check_id], " | ".join(lines)
        entries = [e for e in evaluated.get(check_id, []) if e.get("outcome") is not None]
        if len(entries) < len(lines):
            error = _error_text(scan, objects.get(check_id), lines)
            if kind_of(check).sql_query and "were not computed" in error and "Query execution error" not in error:
                error = SCALAR_NULL_REASON  # the metric query gave NULL (engines/queries.py `scalar_query`)
            results[check_id] = CheckResult(check_id, "soda", "error", native_name=native, error=error)
        elif len(entries) > 1:
            # several lines of one custom check: the worst of them, no single number
            worst = max((_SODA_OUTCOMES.get(str(e["outcome"]).lower(), "error") for e in entries), key=rank)
            results[check_id] = CheckResult(check_id, "soda", worst, native_name=native)
        else:
            results[check_id] = _check_result(check, entries[0], objects.get(check_id), native, row_count)
    return results


def scan_checks(scan) -> list:
    """Every check object of an executed scan, passed, failed or not evaluated. Private (`_checks`):
    Soda's public accessors hand out the failed and warned ones only (`get_checks_fail`,
    `get_checks_warn_or_fail`), and `get_scan_results()` holds no object, only rounded numbers."""
    return list(getattr(scan, "_checks", []))


def _soda_now(now: datetime) -> str:
    """`now` as the naive local time PySpark collects timestamps in: Soda takes a naive max(column)
    as UTC and subtracts it from NOW, so both must be in the same (local) clock."""
    aware = now if now.tzinfo is not None else now.replace(tzinfo=timezone.utc)
    return aware.astimezone().replace(tzinfo=None).isoformat()


def named_lines(sodacl_text: str) -> dict[str, list[str]]:
    """check name -> its SodaCL check lines, for every named check of the document."""
    try:
        document = yaml.safe_load(sodacl_text) or {}
    except yaml.YAMLError:
        return {}
    lines: dict[str, list[str]] = {}
    for header, items in document.items() if isinstance(document, dict) else ():
        if not (isinstance(header, str) and header.startswith("checks for")) or not isinstance(items, list):
            continue
        for item in items:
            if isinstance(item, dict) and len(item) == 1:
                line, config = next(iter(item.items()))
                if isinstance(config, dict) and config.get("name"):  # the name as Soda reports it (translate.py `soda_inert`)
                    lines.setdefault(soda_resolved(str(config["name"])), []).append(str(line))
    return lines


def _without(sodacl_text: str, names: set[str]) -> str:
    """The SodaCL without the checks named `names`."""
    document = yaml.safe_load(sodacl_text) or {}
    for header, items in document.items():
        if isinstance(header, str) and header.startswith("checks for") and isinstance(items, list):
            document[header] = [item for item in items if not (
                isinstance(item, dict) and len(item) == 1 and isinstance(next(iter(item.values())), dict)
                and soda_resolved(str(next(iter(item.values())).get("name"))) in names)]
    return yaml.safe_dump(document, sort_keys=False, allow_unicode=True, width=10_000)


def _row_count(scan, table: str | None = None) -> int | None:
    """The table's row count if the scan computed it (percent metrics need it), else None. Private
    (`_metrics`): `get_scan_results()["metrics"]` names a metric's table only inside its identity
    text, where the metric objects carry their partition's table."""
    for metric in getattr(scan, "_metrics", ()):
        if table is not None and getattr(getattr(getattr(metric, "partition", None), "table", None), "table_name", None) != table:
            continue
        if getattr(metric, "name", None) == "row_count" and getattr(metric, "filter", None) is None:
            value = getattr(metric, "value", None)
            if isinstance(value, int):
                return value
    return None


def _error_text(scan, check_object, lines: list[str] = ()) -> str:
    """Soda's error logs for a check it did not evaluate: the ones at its location or naming its check
    line (a user-defined metric's query error has no location), else all."""
    errors = scan.get_error_logs()
    location = getattr(getattr(check_object, "check_cfg", None), "location", None)
    own = [log for log in errors if location is not None and getattr(log.location, "line", None) == getattr(location, "line", None)]
    own = own or [log for log in errors if any(f"[{line}]" in str(log.message) or f"'{line}'" in str(log.message) for line in lines)]
    if own and not any(str(log.exception or "") for log in own):
        # a query's error names the query (its exception a bare GeneratorExit); the scan's error that followed carries the cause
        # (by identity: Soda's Log is a dataclass of no fields, so any two compare equal)
        own += [log for log in errors if str(log.exception or "") and all(log is not mine for mine in own)]
    text = "; ".join(dict.fromkeys(_log_text(log) for log in own or errors))
    if not text:
        return "Soda did not evaluate the check (no outcome, no error logged)"
    # none of the errors is this check's own: Soda's scan stopped at another check's query
    return text if own else f"Soda did not evaluate the check, its scan stopped at an error of another check: {text}"


def _log_text(log) -> str:
    text = str(log.message)
    if log.exception is not None and str(log.exception) not in text:
        text += f": {log.exception}"  # the whole of it: CheckResult keeps the root cause (engines/results.py cause_text)
    return text


def _number(value) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _engine_outcome(check: Check, entry: dict, check_object, line: str, row_count: int | None) -> CheckResult:
    """No threshold to judge: Soda's outcome decides. A user's custom check keeps Soda's value when it
    gives one; a column's presence or type has no number in any engine (Soda's value there counts schema
    findings or wrong types, and a run judges a missing or mistyped column before Soda sees it)."""
    outcome_text = str(entry.get("outcome")).lower()
    observed = _number(_value(entry)) if kind_of(check).custom else None
    return CheckResult(check.id, "soda", _SODA_OUTCOMES.get(outcome_text, "error"), observed=observed, native_name=line,
                       error=None if outcome_text in _SODA_OUTCOMES else f"Soda outcome {entry.get('outcome')!r}")


def _age(check: Check, entry: dict, check_object, line: str, row_count: int | None):
    freshness = getattr(check_object, "freshness_values", None) or {}
    # Soda subtracts two naive local times, an hour off across a daylight-saving change: the age is
    # measured from its max like in every engine (results.age_seconds: aware, in epoch seconds)
    try:  # the scan's NOW: the run's `now` as naive local time (`_soda_now`)
        now = datetime.fromisoformat(str(freshness.get("now_timestamp"))).astimezone()
    except ValueError:
        now = None
    age = age_seconds(freshness.get("max_column_timestamp"), now) if now is not None else None
    if age is not None:
        return age, None, None
    if isinstance(freshness.get("freshness"), timedelta):
        return freshness["freshness"].total_seconds(), None, None
    if freshness.get("max_column_timestamp") is None:
        # an empty table (or only nulls): there is no newest row, so it is not fresh
        return CheckResult(check.id, "soda", "failed", native_name=line)
    value = _value(entry)
    return (value / 1000.0 if isinstance(value, (int, float)) else None), None, None  # Soda's value is milliseconds


def _measured_value(check: Check, entry: dict, check_object, line: str, row_count: int | None):
    value = _value(entry)
    if value is None and kind_of(check).sql_query:
        return CheckResult(check.id, "soda", "error", native_name=line, error=SCALAR_NULL_REASON)
    if value is None:
        return None, None, None
    # the one judge of a metric's value (engines/queries.py): no number is error, NaN failed, decimals exact
    outcome, observed, reason = judge_metric(check.threshold, value)
    return CheckResult(check.id, "soda", outcome, observed=observed, native_name=line, error=reason)


def _violating_rows(check: Check, entry: dict, check_object, line: str, row_count: int | None):
    value = _value(entry)
    if line.startswith(("missing_percent", "invalid_percent")):
        # Soda rounds these to two decimals: the exact percent comes from the count and row count behind it
        derived = _derived_counts(check_object)
        if derived is None:
            return CheckResult(check.id, "soda", "error", native_name=line, error=UNCOUNTED_PERCENT)
        count, rows = derived
        if count is not None and rows is not None:
            percent = 100.0 * count / rows if rows else 0.0
            return percent, count, percent
        return (float(value) if value is not None else None), None, None
    observed = _number(value)
    if observed is None or check.unit != "rows":
        return observed, None, None
    count = int(observed)
    return observed, count, (100.0 * count / row_count if row_count else 0.0) if row_count is not None else None


# a kind's measure (plan/checks.py) -> how its number is read from Soda's result: either the final
# CheckResult, or (observed, violating row count, their percent) for the threshold to judge
READERS = {"outcome": _engine_outcome, "seconds": _age, "value": _measured_value, "rows": _violating_rows}


def _value(entry: dict):
    return (entry.get("diagnostics") or {}).get("value")


def _check_result(check: Check, entry: dict, check_object, line: str, row_count: int | None) -> CheckResult:
    measure = "outcome" if check.threshold is None else kind_of(check).measure
    read = READERS[measure](check, entry, check_object, line, row_count)
    if isinstance(read, CheckResult):
        return read
    observed, count, percent = read
    if observed is None:
        return CheckResult(check.id, "soda", "error", native_name=line,
                           error=f"Soda gave no metric value (outcome {entry.get('outcome')}, value {_value(entry)!r})")
    outcome = "passed" if check.threshold.holds(observed) else "failed"
    return CheckResult(check.id, "soda", outcome, observed=observed, unexpected_count=count,
                       unexpected_percent=percent, native_name=line)


# Soda derives a `*_percent` from counts of its aggregation query; when that query failed (a column the
# data lacks, a Spark error) the counts are undefined and Soda's formula says 0, a pass
UNCOUNTED_PERCENT = "Soda computed none of the counts behind this percent (its query failed); its 0 is no measurement"


def _derived_counts(check_object) -> tuple[int | None, int | None] | None:
    """(count, row_count) a Soda `*_percent` metric was derived from; None when one of the metrics it was
    derived from has no number (UNCOUNTED_PERCENT)."""
    for metric in (getattr(check_object, "metrics", None) or {}).values():
        formula = getattr(metric, "derived_formula", None)
        values = {name: getattr(m, "value", None) for name, m in (getattr(formula, "metric_dependencies", None) or {}).items()}
        if any(isinstance(v, bool) or not isinstance(v, (int, float)) for v in values.values()):
            return None
        count = next((v for name, v in values.items() if name.endswith("_count") and name != "row_count"), None)
        rows = values.get("row_count")
        if isinstance(count, int) and isinstance(rows, int):
            return count, rows
    return None, None
