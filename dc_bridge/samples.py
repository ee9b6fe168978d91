"""A few failing values for each failed check, fetched once by the bridge after the engines ran.

Both engines run with samples off (they cost a query per failed check each, and Soda would fetch
them again); here one small bounded query per failed check serves both. Checks on fields marked
`pii: true` or with a sensitive classification get no samples, only a note that they were withheld.
For uniqueness the distinct duplicated values are counted too (DESIGN.md section 3: rows are the
count, the number of distinct duplicated values is reported beside it).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from dc_bridge import checks as c
from dc_bridge.checks import Check, CheckPlan
from dc_bridge.engines.spark import VIOLATIONS, column as _col
from dc_bridge.verdict import CheckVerdict, Verdict

SAMPLE_LIMIT = 5
# a run with hundreds of failures must not turn into hundreds of Spark jobs
MAX_SAMPLED_CHECKS = 25
WITHHELD = "withheld: the field is marked pii or has a sensitive classification"


def failing_values(check: Check, frame, frames: dict, now: datetime) -> tuple[list, int | None]:
    """(sample values, number of distinct duplicated values or None) for one failed check."""
    from pyspark.sql import functions as F

    if isinstance(check.params, c.Unique):
        columns = [_col(name) for name in check.columns]
        present = frame
        for column in columns:
            present = present.where(column.isNotNull())
        dupes = present.groupBy(*columns).count().where(F.col("count") > 1)
        rows = dupes.limit(SAMPLE_LIMIT).collect()
        values = [row[0] if len(check.columns) == 1 else list(row)[:-1] for row in rows]
        distinct = dupes.count() if len(rows) == SAMPLE_LIMIT else len(rows)
        return values, distinct
    if isinstance(check.params, c.ForeignKey):
        target = frames.get(check.params.to_model)
        if target is None:
            return [], None
        keys = [f"k{i}" for i in range(len(check.columns))]
        parent = target.select(*[_col(name).alias(key) for key, name in zip(keys, check.params.to_columns)])
        child = frame.select(*[_col(name).alias(key) for key, name in zip(keys, check.columns)]).dropna()
        orphans = child.join(parent, keys, "left_anti").distinct().limit(SAMPLE_LIMIT).collect()
        return [row[0] if len(keys) == 1 else list(row) for row in orphans], None
    build = VIOLATIONS.get(type(check.params))
    if build is None or not check.columns or isinstance(check.params, c.NotNull):
        return [], None  # a missing value has nothing to show
    shown = [_col(name) for name in check.columns]
    rows = frame.where(build(check, check.params, now)).select(*shown).distinct().limit(SAMPLE_LIMIT).collect()
    return [row[0] if len(shown) == 1 else list(row) for row in rows], None


def attach_samples(verdict: Verdict, plan: CheckPlan, frames: dict, now: datetime) -> Verdict:
    """The verdict with samples (and distinct duplicate counts) on its failed and warning checks."""
    by_id = {check.id: check for check in plan.checks}
    sampled = 0
    models = []
    for model in verdict.models:
        updated = []
        for found in model.checks:
            check = by_id.get(found.check_id)
            if found.outcome in ("failed", "warning") and check is not None and check.model in frames:
                found = _with_samples(found, check, frames, now, sampled < MAX_SAMPLED_CHECKS)
                sampled += 1
            updated.append(found)
        models.append(model.model_copy(update={"checks": updated}))
    return verdict.model_copy(update={"models": models})


def _with_samples(found: CheckVerdict, check: Check, frames: dict, now: datetime, allowed: bool) -> CheckVerdict:
    if check.sensitive:
        return found.model_copy(update={"samples_note": WITHHELD})
    if not allowed:
        return found.model_copy(update={"samples_note": f"not fetched: more than {MAX_SAMPLED_CHECKS} checks failed"})
    try:
        values, distinct = failing_values(check, frames[check.model], frames, now)
    except Exception as exc:  # samples are a courtesy: a failure here must not change any outcome
        return found.model_copy(update={"samples_note": f"not fetched: {type(exc).__name__}"})
    return found.model_copy(update={"samples": [_plain(v) for v in values], "duplicated_values": distinct})


def _plain(value: Any) -> Any:
    """JSON-friendly sample values (timestamps, decimals, dates as text)."""
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return str(value)
