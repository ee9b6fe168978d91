"""Fold engine reports into one verdict: per check, per model, per contract (DESIGN.md section 4).

A pure function of the plan and the engine reports. The rules:
- a check's outcome is the worst of the engines that ran it; a failure of a `warning`/`info`
  check is a `warning`;
- two engines that both measured a check and disagree on the number make it `error`;
- fail closed: a check an engine should have returned but did not is `error`;
- `not_executable` and `skipped` never make a verdict better or worse.
"""

from __future__ import annotations

import math
from typing import Any, Literal

from pydantic import BaseModel, Field

from dc_bridge.plan import checks as c
from dc_bridge.plan.checks import Check, CheckPlan
from dc_bridge.engines.results import CheckResult, EngineReport

Outcome = Literal["passed", "warning", "failed", "error", "not_executable", "skipped"]
_RANK = {"passed": 0, "warning": 1, "failed": 2, "error": 3}


def worst(outcomes: list[str]) -> str:
    """Worst of the evaluated outcomes; `not_executable` when nothing was evaluated at all."""
    ranked = [o for o in outcomes if o in _RANK]
    return max(ranked, key=_RANK.__getitem__) if ranked else "not_executable"


class CheckVerdict(BaseModel):
    check_id: str
    model: str
    kind: str
    columns: list[str]
    outcome: Outcome
    severity: str
    expected: str | None = None
    observed: float | None = None
    unit: str = "rows"
    reason: str | None = None
    description: str | None = None
    source: dict[str, Any]
    # a few failing values (never for pii/sensitive fields) and, for uniqueness, how many distinct values repeat
    samples: list[Any] = Field(default_factory=list)
    samples_note: str | None = None
    duplicated_values: int | None = None
    engines: dict[str, CheckResult] = Field(default_factory=dict)


class ModelVerdict(BaseModel):
    name: str
    outcome: Outcome
    counts: dict[str, int]
    checks: list[CheckVerdict]


class Verdict(BaseModel):
    contract_id: str
    contract_version: str
    contract_file: str
    outcome: Outcome
    counts: dict[str, int]
    models: list[ModelVerdict]
    engines: list[str]
    engine_seconds: dict[str, float] = Field(default_factory=dict)
    engine_errors: dict[str, str] = Field(default_factory=dict)
    where: str | None = None
    # schema drift between the contract and the data (dc-bridge drift's findings; informational here:
    # a missing column or a wrong type already fails the model's exists and type checks)
    drift: list[dict[str, Any]] = Field(default_factory=list)
    started_at: str | None = None
    seconds: float | None = None
    versions: dict[str, str] = Field(default_factory=dict)

    def exit_code(self, fail_on: str = "failed") -> int:
        """0 passed (and warnings unless fail_on is warning), 1 failed, 2 error."""
        if self.outcome == "error":
            return 2
        if self.outcome == "failed" or (self.outcome == "warning" and fail_on == "warning"):
            return 1
        return 0

    def checks(self) -> list[CheckVerdict]:
        return [check for model in self.models for check in model.checks]


def engines_for(check: Check, selected: tuple[str, ...], runs_in: dict[str, bool]) -> list[str]:
    """The selected engines that run this check (custom checks run in their own engine only)."""
    return [engine for engine in selected if runs_in.get(engine)]


def describe_threshold(check: Check) -> str | None:
    t = check.threshold
    if t is None:
        return None
    unit = "%" if check.unit == "percent" else ""
    if t.operator in ("between", "not_between"):
        left, right = ("[" if t.low_inclusive else "("), ("]" if t.high_inclusive else ")")
        return f"{'not ' if t.operator == 'not_between' else ''}between {left}{t.low}, {t.high}{right}{unit}"
    return f"{t.operator} {t.value}{unit}"


def fold_check(check: Check, expected_engines: list[str], reports: dict[str, EngineReport], skip_reason: str | None) -> CheckVerdict:
    base = dict(check_id=check.id, model=check.model, kind=check.kind, columns=list(check.columns), severity=check.severity,
                expected=describe_threshold(check), unit=check.unit, description=check.description,
                source={"file": check.source.file, "path": check.source.path, "line": check.source.line})
    if isinstance(check.params, c.NotExecutable):
        return CheckVerdict(outcome="not_executable", reason=check.params.reason, **base)
    if not expected_engines:
        return CheckVerdict(outcome="skipped", reason=skip_reason, **base)
    results: dict[str, CheckResult] = {}
    outcomes, reasons = [], []
    for engine in expected_engines:
        report = reports.get(engine)
        result = report.results.get(check.id) if report else None
        if result is None:
            why = (report.error if report and report.error else None) or f"{engine} returned no result for this check"
            outcomes.append("error")
            reasons.append(f"{engine}: {why}")
            continue
        results[engine] = result
        outcome = result.outcome
        if outcome == "failed" and check.severity in ("warning", "info"):
            outcome = "warning"
        outcomes.append(outcome)
        if result.error:
            reasons.append(f"{engine}: {result.error}")
    observed = [r.observed for r in results.values() if r.observed is not None]
    if len(observed) > 1 and not engines_agree(observed):
        outcomes.append("error")
        numbers = ", ".join(f"{engine}={r.observed:g}" for engine, r in results.items() if r.observed is not None)
        reasons.append(f"engines disagree: {numbers}")
    return CheckVerdict(outcome=worst(outcomes), observed=observed[0] if observed else None,
                        reason="; ".join(reasons) or None, engines=results, **base)


def engines_agree(values: list[float]) -> bool:
    """Whether engines' numbers for one check are the same (float noise aside)."""
    first = values[0]
    return all(math.isclose(v, first, rel_tol=1e-9, abs_tol=1e-6) for v in values[1:])


def fold(plan: CheckPlan, reports: dict[str, dict[str, EngineReport]], runs_in: dict[str, dict[str, bool]],
         selected: tuple[str, ...], invalid: dict[str, str] | None = None, **run_facts: Any) -> Verdict:
    """`reports[model][engine]`; `runs_in[check_id][engine]` says which engines translate a check;
    `invalid[check_id]` is why a check could not be sent to any engine (it is `error`)."""
    invalid = invalid or {}
    models = []
    unplaced = sorted({check.model for check in plan.checks} - set(plan.models))
    for model in list(plan.models) + unplaced:
        verdicts = []
        for check in plan.for_model(model):
            if check.id in invalid:
                verdicts.append(fold_check(check, [], {}, None).model_copy(update={"outcome": "error", "reason": invalid[check.id]}))
                continue
            expected = engines_for(check, selected, runs_in.get(check.id, {}))
            translatable = [e for e, ok in runs_in.get(check.id, {}).items() if ok]
            skip_reason = f"runs in {' and '.join(translatable)} only, which was not selected" if translatable else \
                "no selected engine runs this check"
            verdicts.append(fold_check(check, expected, reports.get(model, {}), skip_reason))
        models.append(ModelVerdict(name=model, outcome=worst([v.outcome for v in verdicts]), counts=_counts(verdicts), checks=verdicts))
    all_checks = [v for m in models for v in m.checks]
    return Verdict(contract_id=plan.contract_id, contract_version=plan.contract_version, outcome=worst([m.outcome for m in models]),
                   counts=_counts(all_checks), models=models, engines=list(selected), **run_facts)


def _counts(verdicts: list[CheckVerdict]) -> dict[str, int]:
    counts = {o: 0 for o in ("passed", "warning", "failed", "error", "not_executable", "skipped")}
    for v in verdicts:
        counts[v.outcome] += 1
    return counts
