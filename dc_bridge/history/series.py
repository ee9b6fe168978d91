"""The numbers a run adds to its contract's series (docs/monitoring.md, "Monitors: configuration"): what
the run counted already, read from its verdict, never a scan of its own.

- `rows`: each model's rows, where the run counted them (the engines on their way, the dataQuality SLOs'
  counts, a row-count check); `slice_rows` instead for a model a `--where` slice filtered, whose
  whole-table rows the run did not read;
- `freshness_age`: the age in seconds of a model's newest timestamp, where the contract declares a
  freshness (a kind whose number is the data's age, plan/checks.py `Kind.data_age`; of several, the oldest);
- `arrival`: the run's clock, seconds since midnight UTC: when the data arrived to be checked;
- `check`: each check's observed number, the subject its id (checks judged over the history itself aside).
"""

from __future__ import annotations

import math
from datetime import datetime, timezone

from dc_bridge.contract.thresholds import upper_bound
from dc_bridge.monitors import SeriesKey
from dc_bridge.plan.checks import KINDS
from dc_bridge.verdict import Verdict

ROWS, SLICE_ROWS, FRESHNESS_AGE, ARRIVAL, CHECK = "rows", "slice_rows", "freshness_age", "arrival", "check"


def arrival_seconds(at: datetime) -> float:
    """Seconds since midnight UTC of `at` (naive: UTC)."""
    at = at.astimezone(timezone.utc) if at.tzinfo is not None else at
    return at.hour * 3600 + at.minute * 60 + at.second + at.microsecond / 1e6


def series_limits(checks) -> dict[SeriesKey, float]:
    """The contract's own limit on a series, from its checks (a verdict's or a plan's, each with `kind`, `model` and
    `threshold`): a model's freshness SLA for its `freshness_age` (of several, the tightest), which the band's width
    respects (monitors/band.py `floor`)."""
    found: dict[SeriesKey, float] = {}
    for check in checks:
        kind, limit = KINDS.get(check.kind), upper_bound(check.threshold)
        if kind is not None and kind.data_age and limit is not None and check.model:
            key = SeriesKey(FRESHNESS_AGE, check.model)
            found[key] = min(found.get(key, limit), limit)
    return found


def run_metrics(verdict: Verdict | None, at: datetime) -> dict[SeriesKey, float | None]:
    """The value of each series a run that started `at` measured (none for a run without a verdict: it read no data)."""
    if verdict is None:
        return {}
    values: dict[SeriesKey, float | None] = {SeriesKey(ARRIVAL): arrival_seconds(at)}
    for model in verdict.models:
        if model.rows is not None:
            sliced = verdict.where is not None and model.name not in verdict.where_not_applied
            values[SeriesKey(SLICE_ROWS if sliced else ROWS, model.name)] = float(model.rows)
    for check in verdict.checks():
        kind = KINDS.get(check.kind)
        if kind is None or kind.from_history or check.observed is None or not math.isfinite(check.observed):
            continue
        values[SeriesKey(CHECK, check.model, check.check_id)] = check.observed
        if kind.data_age:
            age = SeriesKey(FRESHNESS_AGE, check.model)
            values[age] = max(values.get(age) or 0.0, check.observed)
    return values
