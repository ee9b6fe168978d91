"""Which models are empty, so the fold can say when a check passed only because there was no row.

On an empty model every value check (no nulls, no duplicates, every value matches ...) holds
vacuously: there is no value to violate it. That is the right outcome, and the wrong impression
when nobody notices the data is missing, so such a pass carries a reason (verdict.vacuous_reason).
Checks judged on their own number (`Kind.vacuous_on_empty` is false: row counts, SQL metrics,
freshness) need no note: an empty table fails `rowCount > 0` and is not fresh.
"""

from __future__ import annotations

from dc_bridge.plan.checks import KINDS
from dc_bridge.verdict import Judged


def empty_models(verdict: Judged, frames: dict, row_counts: dict[str, int] | None = None) -> frozenset[str]:
    """The models with a passed value check whose DataFrame has no rows. A model the run already counted
    (`row_counts`, for dataQuality SLOs), or one an engine found a violating row in, costs nothing; any
    other one small Spark job (`isEmpty` reads at most one row)."""
    counted = row_counts or {}
    return frozenset(model.name for model in verdict.models
                     if model.name in frames and _has_vacuous_candidate(model) and not _has_violating_row(model)
                     and (counted[model.name] == 0 if model.name in counted else _is_empty(frames[model.name])))


def _has_vacuous_candidate(model) -> bool:
    return any(c.outcome == "passed" and KINDS[c.kind].vacuous_on_empty and not c.reason for c in model.checks)


def _has_violating_row(model) -> bool:
    """An engine counted a row of the model that violates a row-level check: the model has rows."""
    return any(KINDS[c.kind].measure == "rows" and (result.unexpected_count or 0) > 0
               for c in model.checks for result in c.engines.values())


def _is_empty(frame) -> bool:
    try:
        return frame.isEmpty()
    except Exception:  # the session died or the data cannot be read: the engines' errors say so
        return False
