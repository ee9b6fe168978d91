"""What an engine run returns: one `CheckResult` per check id, in one `EngineReport` per engine and model.

Both runners fill these the same way, so the fold (verdict.py) never asks which engine it reads:

- `observed` is the check's metric as DESIGN.md section 3 defines it: the number of violating rows,
  or their percent of all rows when the check's unit is percent, or the measured value for
  `row_count` and `sql_metric`, or the age in seconds for `freshness`. None when the engine gave no
  number (column_exists, column_type, custom checks without a count, a scalar SQL check that GX
  only confirms as holding: its query returns the value only on violation, see engines/gx.py).
- `outcome` is judged by the check's own `Threshold.holds(observed)`, never by the engine's own
  notion of success, except for checks without a threshold (column_exists, column_type, custom_*),
  where the engine's success decides.
- `error` holds the reason when the engine could not evaluate the check (outcome "error").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Engine = Literal["gx", "soda"]
Outcome = Literal["passed", "failed", "error"]


@dataclass(frozen=True)
class CheckResult:
    check_id: str
    engine: Engine
    outcome: Outcome
    observed: float | None = None
    unexpected_count: int | None = None
    unexpected_percent: float | None = None
    # the engine's expectation type (GX) or SodaCL check line (Soda) that produced this result
    native_name: str | None = None
    # failed-row samples; always empty for now (bounded, and off for sensitive fields, later)
    samples: list[Any] = field(default_factory=list)
    error: str | None = None


@dataclass(frozen=True)
class EngineReport:
    engine: Engine
    model: str
    results: dict[str, CheckResult]
    seconds: float
    # set when the whole run failed (no results can be trusted); per-check problems are in results
    error: str | None = None
