"""Say so when a check passed only because its model has no rows.

On an empty model every value check (no nulls, no duplicates, every value matches ...) holds
vacuously: there is no value to violate it. That is the right outcome, and the wrong impression
when nobody notices the data is missing, so such a pass carries a reason. Row-count, SQL metric and
freshness checks are judged on their own number and need no note (an empty table fails
`rowCount > 0` and is not fresh).
"""

from __future__ import annotations

from dc_bridge.verdict import Verdict

# kinds that judge values row by row: on no rows there is nothing to judge
VALUE_KINDS = frozenset({"not_null", "unique", "unique_combination", "regex", "in_set", "length_between",
                         "value_between", "latency", "retention", "foreign_key"})


def reason(model: str) -> str:
    return f"passed vacuously: `{model}` has no rows, so no value could violate the check"


def note_vacuous(verdict: Verdict, frames: dict) -> Verdict:
    """The verdict with a reason on each passed value check of a model whose DataFrame is empty.
    One small Spark job per model that has such a check (`isEmpty` reads at most one row)."""
    models = []
    for model in verdict.models:
        candidates = {c.check_id for c in model.checks if c.outcome == "passed" and c.kind in VALUE_KINDS and not c.reason}
        if candidates and model.name in frames and _is_empty(frames[model.name]):
            checks = [c.model_copy(update={"reason": reason(model.name)}) if c.check_id in candidates else c for c in model.checks]
            model = model.model_copy(update={"checks": checks})
        models.append(model)
    return verdict.model_copy(update={"models": models})


def _is_empty(frame) -> bool:
    try:
        return frame.isEmpty()
    except Exception:  # the session died or the data cannot be read: the engines' errors say so
        return False
