"""Outcomes, best to worst, and the exit codes every command ends with (docs/running.md).

The one order of outcomes: engines merge several results of one check with it, the fold takes the
worst of a check's engines, of a model's checks and of a contract's models with it, and reports
sort by it.
"""

from __future__ import annotations

from typing import Iterable, Literal

Outcome = Literal["passed", "warning", "failed", "error", "not_executable", "skipped"]
# evaluated outcomes, best to worst; `not_executable` and `skipped` never make a verdict better or worse
ORDER: tuple[str, ...] = ("passed", "warning", "failed", "error")
NOT_EVALUATED: tuple[str, ...] = ("not_executable", "skipped")
# every outcome, in the order reports list their counts
ALL: tuple[str, ...] = ORDER + NOT_EVALUATED
# problems first: the order reports list checks in
WORST_FIRST: tuple[str, ...] = tuple(reversed(ORDER)) + NOT_EVALUATED
_RANK = {outcome: rank for rank, outcome in enumerate(ORDER)}

# exit codes of every command: 0 done (a verdict that passed), 1 findings (a verdict that failed,
# lint errors, stale files), 2 error or input that could not be read
EXIT_OK, EXIT_FINDINGS, EXIT_UNREADABLE = 0, 1, 2


def rank(outcome: str) -> int:
    return _RANK[outcome]


def worst(outcomes: Iterable[str]) -> str:
    """Worst of the evaluated outcomes; `not_executable` when nothing was evaluated at all."""
    ranked = [o for o in outcomes if o in _RANK]
    return max(ranked, key=rank) if ranked else "not_executable"
