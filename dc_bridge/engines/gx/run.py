"""Run a compiled GX 1.x suite on a Spark DataFrame -> EngineReport.

One ephemeral context per run (nothing is written to disk), a Spark data source with
`persist=False` (GX's default persists the caller's DataFrame and never unpersists it; the bridge
owns caching), one dataframe asset with a whole-dataframe batch definition.

Results are joined by `meta.dc_bridge.check_id`, never by position (GX does not keep suite order).
Numbers come from GX's result, the outcome from the check's own threshold (docs/mapping.md):

- column map expectations: `unexpected_count` is the violating row count; the percent is computed
  here from `unexpected_count / element_count` (GX's own `unexpected_percent` divides by the
  non-null rows, docs/mapping.md divides by all rows);
- `unexpected_rows_expectation` counting rows (not_null with missing values, latency, retention,
  foreign keys): `observed_value` is the number of rows the query returned (GX counts them all);
- `unexpected_rows_expectation` for a scalar metric (sql_metric, row_count that is no range): the
  query returns the metric value `v` only when the threshold fails. Those expectations run in a
  second validation with `result_format: COMPLETE`, whose `details.unexpected_rows` hold `v` (GX
  collects those rows anyway; BASIC and SUMMARY only drop them from the result). When the threshold holds,
  the query returns nothing and GX has no value to give: observed is None, outcome passed;
- table row count expectations: `observed_value`;
- freshness (`expect_column_max_to_be_between` with a run-time cut-off): the age in seconds,
  `now - observed max`.

Analytics: GX 1.24 ships no analytics client at all (no `great_expectations.analytics` package,
no posthog dependency; `GX_ANALYTICS_ENABLED` survives only in a docstring and the config field
`analytics_enabled` is read by nothing). The variable is still set to `false` before the first
import, which is the switch GX 1.x releases that did send events read (`GX_ANALYTICS_ENABLED`),
and the ephemeral context reads no global config file from the home directory.
"""

from __future__ import annotations

import copy
import math
import os
import time
from datetime import date, datetime, timezone
from typing import Any, Callable, Iterable

# before great_expectations is imported anywhere in this process: analytics off, in-process only
os.environ["GX_ANALYTICS_ENABLED"] = "false"

from dc_bridge.outcomes import rank
from dc_bridge.plan import checks as c  # noqa: E402
from dc_bridge.plan.checks import Check, kind_of  # noqa: E402
from dc_bridge.engines.columns import gx_column_name, unrunnable  # noqa: E402
from dc_bridge.engines.nested_types import unsendable  # noqa: E402
from dc_bridge.engines.results import CheckResult, EngineReport, RepeatedKeys, age_seconds  # noqa: E402
from dc_bridge.engines.spark_conditions import key_examples  # noqa: E402
from dc_bridge.engines.views import temp_views  # noqa: E402
from dc_bridge.engines.queries import judge_metric  # noqa: E402
from dc_bridge.engines.gx.translate import cutoff_parameter  # noqa: E402

# a GX project's checkpoints (project.py): the counts, no values kept
SUMMARY = {"result_format": "SUMMARY", "partial_unexpected_count": 0}
# the counts the runner reads (unexpected_count, element_count, observed_value) and no more: SUMMARY
# adds an index list and an index query per column map expectation, no value of which is read
BASIC = {"result_format": "BASIC", "partial_unexpected_count": 0}
# scalar metrics need the returned row's value; GX puts it into the result only in COMPLETE
COMPLETE = {"result_format": "COMPLETE", "partial_unexpected_count": 0}
# table-level expectations that look a column up by GX's own name for it (see columns.gx_column_name)
_BY_COLUMN_NAME = ("expect_column_to_exist", "expect_column_values_to_be_of_type", "expect_column_values_to_be_in_type_list")


def preload() -> None:
    """Import what a validation uses, ahead of it: GX's import takes seconds (pandas, scipy, altair),
    which runner/pipeline.py overlaps with Spark's start."""
    import great_expectations  # noqa: F401
    from great_expectations.core import ExpectationSuite  # noqa: F401
    import dc_bridge.engines.gx.metrics  # noqa: F401  (registers its metrics)
    from great_expectations.data_context.types.base import ProgressBarsConfig  # noqa: F401
    from great_expectations.expectations.expectation_configuration import ExpectationConfiguration  # noqa: F401


def run_gx(spark, df, suite: dict, checks: list[Check], now: datetime, *,
           extra_views: dict[str, Any] | None = None) -> EngineReport:
    """Validate `df` with the compiled `suite`; one CheckResult per check id found in the suite.

    `now` is the run's reference time (aware; naive is taken as UTC): freshness cut-offs are
    `now - max_age`. `extra_views` (view name -> DataFrame) are registered for the run, for
    foreign-key queries that read the referenced model's view, and dropped afterwards.
    """
    started = time.perf_counter()
    model = (suite.get("meta") or {}).get("dc_bridge", {}).get("model") or (checks[0].model if checks else "")
    by_id = {check.id: check for check in checks}
    try:
        results, rows, keys = _run(spark, df, suite, by_id, now, extra_views or {})
    except Exception as exc:  # the whole run failed: no result can be trusted
        return EngineReport("gx", model, {}, time.perf_counter() - started, error=f"{type(exc).__name__}: {exc}")
    return EngineReport("gx", model, results, time.perf_counter() - started, rows=rows, repeated_keys=keys)


def _run(spark, df, suite: dict, by_id: dict[str, Check], now: datetime,
         extra_views: dict) -> tuple[dict[str, CheckResult], int | None, dict[str, RepeatedKeys]]:
    """The results, the model's row count when a result reported it, and the repeated keys of the failed
    uniqueness checks GX counted."""
    import great_expectations as gx
    from great_expectations.core import ExpectationSuite
    from great_expectations.expectations.expectation_configuration import ExpectationConfiguration

    from dc_bridge.engines.gx.metrics import batch_view, collecting_keys, in_compiled_passes

    results: dict[str, CheckResult] = {}
    main, scalar = [], []
    for raw in suite.get("expectations", []):
        check_id = ((raw.get("meta") or {}).get("dc_bridge") or {}).get("check_id")
        check = by_id.get(check_id)
        if check is None:
            continue  # not a check of this run's plan
        problem = unrunnable(df, check)  # a missing column: failed; a column of an unfit type: error
        problem = problem or unsendable(df, check)  # a nested type query that could not be analysed: failed
        if problem:
            _merge(results, CheckResult(check_id, "gx", problem.outcome, native_name=raw.get("type"), error=problem.reason))
            continue
        raw = copy.deepcopy(raw)
        if raw.get("type") in _BY_COLUMN_NAME and isinstance(raw.get("kwargs", {}).get("column"), str):
            raw["kwargs"]["column"] = gx_column_name(df, raw["kwargs"]["column"])
        try:
            expectation = ExpectationConfiguration(**raw).to_domain_obj()
        except Exception as exc:  # an invalid (custom) expectation: GX's suite would drop it silently
            _merge(results, CheckResult(check_id, "gx", "error", native_name=raw.get("type"),
                                        error=f"GX cannot build this expectation: {type(exc).__name__}: {exc}"))
            continue
        is_scalar = raw.get("type") == "unexpected_rows_expectation" and kind_of(check).measure == "value"
        (scalar if is_scalar else main).append(expectation)

    if not main and not scalar:
        return results, None, {}

    context = gx.get_context(mode="ephemeral")
    no_progress_bars(context)
    source = context.data_sources.add_spark("dc_bridge", persist=False)
    in_compiled_passes(source.get_execution_engine())  # the one GX then validates with (it keeps it)
    batch_definition = source.add_dataframe_asset(name="model").add_batch_definition_whole_dataframe("whole")
    parameters = clock_parameters(df, by_id.values(), now)

    validated = []
    batched = any(e.expectation_type == "unexpected_rows_expectation" for e in main + scalar)
    # the `{batch}` queries read the batch as a view of this validation's own (metrics.py `batch_view`), dropped after
    with batch_view() as view, temp_views(spark, extra_views, protect=[view] if batched else []), collecting_keys() as keys:
        for index, (part, result_format) in enumerate(((main, BASIC), (scalar, COMPLETE))):
            if not part:
                continue
            name = f"{suite.get('name', 'suite')}#{index}"
            gx_suite = context.suites.add(ExpectationSuite(name=name, expectations=part))
            definition = context.validation_definitions.add(
                gx.ValidationDefinition(name=name, data=batch_definition, suite=gx_suite))
            run = definition.run(batch_parameters={"dataframe": df}, expectation_parameters=parameters,
                                 result_format=result_format)
            validated += run.results

    for result in read_results(validated, by_id, now, count_rows=df.count).values():
        _merge(results, result)
    return results, model_rows(validated, by_id), repeated_keys(results, by_id, keys)


def repeated_keys(results: dict[str, CheckResult], by_id: dict[str, Check], keys: dict) -> dict[str, RepeatedKeys]:
    """The failed uniqueness checks of one column with how many distinct values repeat and the smallest
    and largest (none of a sensitive field), from GX's own count of them (metrics.py `collecting_keys`:
    column -> (distinct, smallest, largest))."""
    found = {}
    for check_id, result in results.items():
        check = by_id[check_id]
        # a key of one column: GX's `expect_column_values_to_be_unique` (translate.py `_unique`)
        if kind_of(check).samples == "duplicate_keys" and len(check.columns) == 1 and result.outcome == "failed" and check.column in keys:
            distinct, smallest, largest = keys[check.column]
            found[check_id] = RepeatedKeys(distinct, [] if check.sensitive else key_examples(smallest, largest))
    return found


def no_progress_bars(context) -> None:
    """GX's own setting for its tqdm bars ("Calculating Metrics" on every validation), off in `context`:
    dc-bridge says what a run is doing itself, and a bar per model and engine is noise in a CI log."""
    from great_expectations.data_context.types.base import ProgressBarsConfig

    context.variables.progress_bars = ProgressBarsConfig(globally=False, metric_calculations=False)


def clock_parameters(df, checks: Iterable[Check], now: datetime) -> dict[str, datetime | date]:
    """The run-time suite parameters of the checks among `checks` judged against the run's clock (the
    cut-offs `now - max_age` of freshness, `now - period` of retention): a compiled suite with such a
    check cannot run without them."""
    return {cutoff_parameter(check): _CUTOFFS[type(check.params)](check, now, df) for check in checks if takes_clock(check)}


def takes_clock(check: Check) -> bool:
    """A check judged against the run's clock (its kind's `clock`): its expectation takes its cut-off
    as a run-time suite parameter (translate.py `cutoff_parameter`)."""
    return kind_of(check).clock


def _aware(now: datetime) -> datetime:
    return now if now.tzinfo is not None else now.replace(tzinfo=timezone.utc)


# params class -> the cut-off its expectation compares with, from the run's clock `now` and the model's DataFrame
_CUTOFFS: dict[type, Callable[[Check, datetime, Any], datetime | date]] = {
    # freshness: max(column) >= cut-off, as GX reads the max back from PySpark
    c.Freshness: lambda check, now, df: _cutoff(now, check.params.max_age, _is_date(df, check.column)),
    # retention: every value >= cut-off, compared by Spark (an aware instant: a date or timestamp_ntz
    # column is cast to a timestamp in the session's zone, as the other engines cast it)
    c.Retention: lambda check, now, df: _aware(now) - check.params.period,
}


def read_results(validated: Iterable, by_id: dict[str, Check], now: datetime, count_rows=None) -> dict[str, CheckResult]:
    """GX results of one model's validation -> one CheckResult per check id (joined by
    `meta.dc_bridge.check_id`; results of expectations that are not checks of `by_id` are ignored).
    `now` is the reference time of freshness ages; `count_rows()` gives the row count when a percent
    check needs it and no result reported it (None: such a check is `error`). Shared by the runner
    and by reading a checkpoint run outside dc-bridge (external.py)."""
    ours = _ours(validated, by_id)
    results: dict[str, CheckResult] = {}
    row_count = model_rows(ours, by_id)
    for result in ours:
        check = by_id[result.expectation_config.meta["dc_bridge"]["check_id"]]
        if row_count is None and check.unit == "percent" and count_rows is not None:
            row_count = count_rows()  # no map expectation reported the row count; one extra job
        try:
            read = _check_result(check, result, now, row_count)
        except Exception as exc:  # a result this module cannot read errs that check only, not the run
            read = CheckResult(check.id, "gx", "error", native_name=result.expectation_config.type,
                               error=f"cannot read GX's result: {type(exc).__name__}: {exc}")
        _merge(results, read)
    return results


def _ours(validated: Iterable, by_id: dict[str, Check]) -> list:
    """The results of the expectations of the checks of `by_id`."""
    return [r for r in validated if ((r.expectation_config.meta or {}).get("dc_bridge") or {}).get("check_id") in by_id]


def model_rows(validated: Iterable, by_id: dict[str, Check]) -> int | None:
    """The model's row count, from any result of a check of `by_id` that reports it (a user's own
    expectation may count something else than the model's rows)."""
    return _row_count(r for r in _ours(validated, by_id) if not kind_of(by_id[r.expectation_config.meta["dc_bridge"]["check_id"]]).custom)


def _cutoff(now: datetime, max_age, is_date: bool) -> datetime | date:
    """The oldest allowed max(timestamp), as the naive local datetime PySpark collects timestamps as.
    For a date column, the date itself: a day counts as fresh until its end (as Soda reads dates),
    and end_of_day(max) >= cutoff exactly when max >= cutoff's date."""
    cutoff = (_aware(now) - max_age).astimezone().replace(tzinfo=None)
    return cutoff.date() if is_date else cutoff


def _is_date(df, column: str | None) -> bool:
    from pyspark.sql.types import DateType

    return any(f.name == column and isinstance(f.dataType, DateType) for f in df.schema.fields)


def _row_count(results: Iterable) -> int | None:
    """The model's row count from any result that reports it (column maps: element_count)."""
    for result in results:
        kind = result.expectation_config.type
        body = result.result or {}
        if "element_count" in body and body["element_count"] is not None:
            return int(body["element_count"])
        if kind in ("expect_table_row_count_to_equal", "expect_table_row_count_to_be_between") and isinstance(body.get("observed_value"), int):
            return int(body["observed_value"])
    return None


def _exception_message(result) -> str | None:
    """GX reports an exception either flat ({raised_exception, exception_message}) or per failed
    metric ({metric id: {raised_exception, exception_message, ...}})."""
    info = result.exception_info or {}
    if info.get("raised_exception"):
        return str(info.get("exception_message") or "GX raised an exception")
    messages = [str(v.get("exception_message")) for v in info.values()
                if isinstance(v, dict) and (v.get("raised_exception") or v.get("exception_message"))]
    return "; ".join(dict.fromkeys(messages)) or None


def _engine_outcome(check: Check, result, body: dict, now: datetime) -> CheckResult:
    """No threshold to judge: GX's success decides; a count or value is kept when GX gives one."""
    count = body.get("unexpected_count")
    observed = body.get("observed_value")
    return CheckResult(check.id, "gx", "passed" if result.success else "failed",
                       observed=float(count) if isinstance(count, (int, float)) else
                       float(observed) if isinstance(observed, (int, float)) and not isinstance(observed, bool) else None,
                       unexpected_count=int(count) if isinstance(count, (int, float)) else None, native_name=result.expectation_config.type)


def _age(check: Check, result, body: dict, now: datetime) -> CheckResult | tuple[float | None, None]:
    observed = age_seconds(body.get("observed_value"), now)
    if observed is None:
        # an empty table (or a null max): there is no newest row, so it is not fresh
        return CheckResult(check.id, "gx", "failed", native_name=result.expectation_config.type,
                           error=None if body.get("observed_value") is None else
                           f"max is not a timestamp: a {type(body.get('observed_value')).__name__}")
    return observed, None


def _measured_value(check: Check, result, body: dict, now: datetime) -> CheckResult | tuple[float | None, None]:
    native = result.expectation_config.type
    if native == "unexpected_rows_expectation":
        rows = (body.get("details") or {}).get("unexpected_rows")
        if not rows:
            # the query returns the value only on violation: none returned means the threshold holds
            return CheckResult(check.id, "gx", "passed" if result.success else "failed", native_name=native)
        value = next(iter(rows[0].values()), None) if isinstance(rows[0], dict) else None
        # the one judge of a metric's value (engines/queries.py): no number is error, NaN failed, decimals exact
        outcome, observed, reason = judge_metric(check.threshold, value)
        return CheckResult(check.id, "gx", outcome, observed=observed, native_name=native, error=reason)
    if native in ("expect_table_row_count_to_equal", "expect_table_row_count_to_be_between"):
        return float(body["observed_value"]), None
    value = body.get("observed_value")
    return (float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None), None


def _violating_rows(check: Check, result, body: dict, now: datetime) -> tuple[float | None, int | None]:
    if "unexpected_count" in body:  # a column map expectation
        raw = body["unexpected_count"]
        # an empty table: GX gives element_count 0 and no unexpected_count; no row can violate
        count = int(raw) if raw is not None else 0 if body.get("element_count") == 0 else None
        return (float(count) if count is not None else None), count
    if result.expectation_config.type == "unexpected_rows_expectation":  # GX counts all the rows the query returns
        count = int(body.get("observed_value") or 0)
        return float(count), count
    value = body.get("observed_value")
    return (float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None), None


# a kind's measure (plan/checks.py) -> how its number is read from GX's result: either the final
# CheckResult, or (observed, violating row count) for the threshold to judge
READERS = {"outcome": _engine_outcome, "seconds": _age, "value": _measured_value, "rows": _violating_rows}


def _check_result(check: Check, result, now: datetime, row_count: int | None) -> CheckResult:
    native = result.expectation_config.type
    message = _exception_message(result)
    if message is not None:
        return CheckResult(check.id, "gx", "error", native_name=native, error=message)
    body = result.result or {}
    measure = "outcome" if check.threshold is None else kind_of(check).measure
    read = READERS[measure](check, result, body, now)
    if isinstance(read, CheckResult):
        return read
    observed, count = read

    percent = None
    if count is not None and row_count is not None:
        percent = 100.0 * count / row_count if row_count else 0.0
    if check.unit == "percent" and count is not None:
        if percent is None:
            return CheckResult(check.id, "gx", "error", unexpected_count=count, native_name=native,
                               error="no row count to compute the percent from")
        observed = percent
    if observed is None or (isinstance(observed, float) and math.isnan(observed)):
        return CheckResult(check.id, "gx", "error", native_name=native, error=f"GX returned no number: {body!r}")
    outcome = "passed" if check.threshold.holds(observed) else "failed"
    return CheckResult(check.id, "gx", outcome, observed=observed, unexpected_count=count,
                       unexpected_percent=percent, native_name=native)


def _merge(results: dict[str, CheckResult], new: CheckResult) -> None:
    """A check with several expectations (an exact type: GX's type class, and the query of its
    parameters) keeps its worst result; of two alike, the one without a count (a type has none), in
    whatever order GX returned them: a run validates in two parts, a user's checkpoint in one."""
    old = results.get(new.check_id)
    if old is None or rank(new.outcome) > rank(old.outcome) or (
            rank(new.outcome) == rank(old.outcome) and new.observed is None and old.observed is not None):
        results[new.check_id] = new
