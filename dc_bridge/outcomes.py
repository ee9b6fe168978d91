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
# what a run's exit code fails on (`run --fail-on`, DcBridgeOperator's `fail_on`): failures only, or warnings too
FAIL_ON: tuple[str, ...] = ("failed", "warning")


def verdict_exit_code(outcome: str, fail_on: str = "failed") -> int:
    """The exit code of a run whose contract verdict is `outcome` (docs/running.md, "Outputs and exit codes").

    - `passed`, and `warning` unless `fail_on` is "warning": 0;
    - `failed` (and `warning` with `fail_on="warning"`): 1, the data does not meet the contract;
    - `error`: 2, something could not be judged;
    - `not_executable` (also when every check was `skipped`): 2. Nothing was evaluated, so nothing
      was judged about the data: not a pass (0), and no finding about the data either (1), but a
      contract, or a choice of engines, that gives the run nothing to check: an input to fix.
    """
    if fail_on not in FAIL_ON:  # a misspelt choice would silently be "failed"
        raise ValueError(f"fail_on={fail_on!r}: choose one of {', '.join(FAIL_ON)}")
    if outcome in ("error", "not_executable", "skipped"):
        return EXIT_UNREADABLE
    if outcome == "failed" or (outcome == "warning" and fail_on == "warning"):
        return EXIT_FINDINGS
    return EXIT_OK


def rank(outcome: str) -> int:
    return _RANK[outcome]


def worst(outcomes: Iterable[str]) -> str:
    """Worst of the evaluated outcomes; `not_executable` when nothing was evaluated at all."""
    ranked = [o for o in outcomes if o in _RANK]
    return max(ranked, key=rank) if ranked else "not_executable"
