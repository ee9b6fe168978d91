"""The row counts a dataQuality SLO divides by: each row of a model is one evaluation of a row-level rule on it."""

from __future__ import annotations

from typing import Iterable

from dc_bridge.plan.checks import CheckPlan, kind_of


def objective_row_counts(plan: CheckPlan, frames: dict, counted: dict[str, int] | None = None,
                         also: Iterable[str] = ()) -> dict[str, int]:
    """model -> rows, for the models of the row-level checks the plan's SLOs name and those of `also` (whose
    rows a monitor watches): taken from `counted` (what the engines counted), else one count per such model."""
    checks = {check.id: check for check in plan.checks}
    models = {checks[check_id].model for objective in plan.objectives for check_id in objective.check_ids
              if check_id in checks and kind_of(checks[check_id]).measure == "rows"} | set(also)
    counted = counted or {}
    counts = {model: counted[model] for model in models & set(frames) & set(counted)}
    for model in sorted(models & set(frames) - set(counted)):
        try:
            counts[model] = frames[model].count()
        except Exception:  # the data cannot be read: the engines' errors say so, and the SLO is not judged
            pass
    return counts
