"""Failing values for failed checks, fetched once by the bridge after the engines ran, as evidence
for the fold (verdict.Evidence).

GX and Soda run with samples off: they cost a query per failed check each, and Soda would fetch
them again. What the bridge fetches instead, per model, bounded:

- row-level checks (`Kind.samples == "failing_rows"`: pattern, set, length, range, latency, retention): ONE query for all the failed
  ones that stops after the first `SCAN_ROWS` failing rows (Spark's limit reads one partition,
  then more only while too few rows have been found); each check shows up to `SAMPLE_LIMIT` of
  its failing values from them. A check none of whose failing rows is among those (a rare failure
  beside a frequent one) gets its smallest and largest failing value from one aggregation;
- a uniqueness key: one query (a window over the key when the engines measured at most half the rows
  repeating, else a grouping: engines/spark_conditions.py `duplicates`), with how many distinct values repeat
  (docs/mapping.md counts rows, and reports the distinct duplicated values beside them) and the
  smallest and largest;
- a foreign key: one anti join, up to 5 orphan keys.

The native engine (`--engines spark`) finds the key samples in the window and the anti join it
counts with, Soda in its grouping of a uniqueness key (the bridge's runs widen that query:
engines/soda/run.py), and GX in its count of a uniqueness key of one column (engines/gx/metrics.py,
reported beside its results: EngineReport.repeated_keys); those are used as they are, with no query
of the bridge's own.

No values of a field marked `pii: true` or with a sensitive classification, whatever check the field
is part of: the plan marks every check that reads such a column (plan/sensitive.py: its
own checks, and a primary key, composite key, model-level `duplicateValues`, foreign key on either
side, latency, or a check on a struct, array or map that holds such a field or on a field inside
one), so neither the engines nor this module fetch its values; such checks get only the note
WITHHELD. The fold withholds them again (verdict.py), whatever an engine returned.
"""

from __future__ import annotations

import functools
import operator
from datetime import datetime
from typing import Any


from dc_bridge.engines.results import RepeatedKeys, plain_value
from dc_bridge.engines.spark_conditions import VIOLATIONS, aggregate, column, duplicates
from dc_bridge.plan.checks import Check, CheckPlan, kind_of
from dc_bridge.verdict import WITHHELD, Judged

SAMPLE_LIMIT = 5
# failing rows read for the row-level samples of a model: enough for every check of a run with
# several frequent failures, few enough that the query ends after the first partition that has them
SCAN_ROWS = 1000
# groupings and joins are a Spark job each: a run with many failures must not turn into many jobs
MAX_KEYED_CHECKS = 10
# sample sources that need a job of their own per check (a grouping, an anti join)
_KEYED = ("duplicate_keys", "orphan_keys")


def _row_level_samples(frame, checks: list[Check], now: datetime) -> dict[str, list]:
    """Up to SAMPLE_LIMIT failing values of each row-level check, from the first failing rows."""
    from pyspark.sql import functions as F

    if not checks:
        return {}
    violated = [F.coalesce(VIOLATIONS[k.kind](k, k.params, now), F.lit(False)) for k in checks]
    failing = (frame.where(functools.reduce(operator.or_, violated))
               .select(*[F.when(flag, column(k.columns[0])).alias(f"s{i}") for i, (k, flag) in enumerate(zip(checks, violated))])
               .limit(SCAN_ROWS).collect())
    found: dict[str, list] = {}
    for index, check in enumerate(checks):
        values = dict.fromkeys(row[f"s{index}"] for row in failing if row[f"s{index}"] is not None)
        found[check.id] = list(values)[:SAMPLE_LIMIT]
    rare = [k for k in checks if not found[k.id]]
    return {**found, **_extremes(frame, rare, now)} if rare else found


def _extremes(frame, checks: list[Check], now: datetime) -> dict[str, list]:
    """Smallest and largest failing value of each check, in one aggregation (a full pass)."""
    from pyspark.sql import functions as F

    aggregates = []
    for index, check in enumerate(checks):
        failing = F.when(VIOLATIONS[check.kind](check, check.params, now), column(check.columns[0]))
        aggregates += [F.min(failing).alias(f"lo{index}"), F.max(failing).alias(f"hi{index}")]
    row = aggregate(frame, aggregates)
    return {check.id: list(dict.fromkeys(v for v in (row[f"lo{i}"], row[f"hi{i}"]) if v is not None))
            for i, check in enumerate(checks)}


def _orphans(frame, check: Check, frames: dict) -> list:
    target = frames.get(check.params.to_model)
    if target is None:
        return []
    keys = [f"k{i}" for i in range(len(check.columns))]
    parent = target.select(*[column(name).alias(key) for key, name in zip(keys, check.params.to_columns)])
    child = frame.select(*[column(name).alias(key) for key, name in zip(keys, check.columns)]).dropna()
    rows = child.join(parent, keys, "left_anti").distinct().limit(SAMPLE_LIMIT).collect()
    return [row[0] if len(keys) == 1 else list(row) for row in rows]


def gather_samples(verdict: Judged, plan: CheckPlan, frames: dict, now: datetime,
                   repeated: dict[str, RepeatedKeys] | None = None) -> dict[str, dict[str, Any]]:
    """Failing values (and distinct duplicate counts) of the failed and warning checks of `verdict`:
    check id -> the fields of its CheckVerdict to set. `repeated`: the repeated keys of uniqueness checks
    an engine found beside its results (GX's count, EngineReport.repeated_keys), taken as they are."""
    repeated = repeated or {}
    by_id = {check.id: check for check in plan.checks}
    notes: dict[str, dict[str, Any]] = {}
    failed = []
    judged = {found.check_id: found for found in verdict.checks()}
    for found in verdict.checks():
        if found.outcome not in ("failed", "warning") or found.check_id not in by_id or by_id[found.check_id].model not in frames:
            continue
        counted = _keys_found(found, repeated) if kind_of(by_id[found.check_id]).samples in _KEYED else None
        if counted is not None:
            # an engine found them in the query it counted with: no query of our own
            notes[found.check_id] = {"samples_note": WITHHELD} if by_id[found.check_id].sensitive else \
                {"samples": counted.examples, "duplicated_values": counted.distinct}
        else:
            failed.append(by_id[found.check_id])
    keyed = 0
    for model in {check.model for check in failed}:
        frame = frames[model]
        wanted = [k for k in failed if k.model == model and not k.sensitive]
        row_level = [k for k in wanted if kind_of(k).samples == "failing_rows"]
        try:
            for check_id, values in _row_level_samples(frame, row_level, now).items():
                notes[check_id] = {"samples": [plain_value(v) for v in values]}
            for check in wanted:
                if kind_of(check).samples not in _KEYED:
                    continue
                keyed += 1
                if keyed > MAX_KEYED_CHECKS:
                    notes[check.id] = {"samples_note": f"not fetched: more than {MAX_KEYED_CHECKS} key checks failed"}
                elif kind_of(check).samples == "duplicate_keys":
                    _, distinct, values = duplicates(frame, check, mostly_distinct=_mostly_distinct(judged[check.id]))
                    notes[check.id] = {"samples": [plain_value(v) for v in values], "duplicated_values": distinct}
                else:
                    notes[check.id] = {"samples": [plain_value(v) for v in _orphans(frame, check, frames)]}
        except Exception as exc:  # samples are a courtesy: a failure here must not change any outcome
            for check in wanted:
                notes.setdefault(check.id, {"samples_note": f"not fetched: {type(exc).__name__}"})
        for check in failed:
            if check.model == model and check.sensitive and kind_of(check).samples is not None:
                notes[check.id] = {"samples_note": WITHHELD}
    return notes


def _keys_found(found, repeated: dict[str, RepeatedKeys]) -> RepeatedKeys | None:
    """The check's failing keys as an engine found them in the query it counted with: in a failed result,
    from the native engine's grouping or anti join, Soda's grouping of a uniqueness key (engines/soda/run.py);
    beside the results, from GX's count of a uniqueness key (`repeated`)."""
    result = next((result for result in found.engines.values() if result.outcome == "failed"
                   and (result.engine == "spark" or result.duplicated_values is not None)), None)
    return RepeatedKeys(result.duplicated_values, result.samples) if result is not None else repeated.get(found.check_id)


def _mostly_distinct(found) -> bool:
    """Whether the engines measured at most half of the rows repeating the check's key (see `duplicates`)."""
    percents = [result.unexpected_percent for result in found.engines.values() if result.unexpected_percent is not None]
    return bool(percents) and max(percents) <= 50


