"""Fold engine reports into one verdict: per check, per model, per contract (docs/running.md, "The verdict").

A pure function of the plan, the coverage (which engine runs which check), the engine reports and
the evidence the runner read from the data besides them (which models are empty, failing values).
The rules:
- a check's outcome is the worst of the engines that ran it; a failure of a `warning`/`info`
  check is a `warning`;
- two engines that both measured a check and disagree on the number make it `error`;
- fail closed: a check an engine should have returned but did not is `error`;
- `not_executable` and `skipped` never make a verdict better or worse;
- a check that passed only because its model has no rows says so in its reason;
- failed and warning checks carry the failing values the runner found; a check on a pii or
  sensitive field never shows one, whatever the engine or the evidence holds (WITHHELD);
- a contract where nothing was evaluated (every check `not_executable` or `skipped`) is
  `not_executable`, never `passed`, and exits 2 (outcomes.verdict_exit_code);
- an ODCS `dataQuality` SLO is judged on the share of its named rules' evaluations that passed
  (`fold_objective`): a rule evaluated on every row of its model counts each row, any other rule
  counts once; a named rule in `error` makes the SLO `error`, one not evaluated makes it
  `not_executable`; a missed SLO is `failed` and makes the contract verdict no better than that;
- an ODCS `availability` or `errorRate` SLA is judged over the runs of the contract that the user's
  history file records within `HISTORY_WINDOW`, this run included (`judge_history`); without a
  history, or with fewer than `MIN_RUNS` runs, it is `not_executable` with the reason, never `passed`.
"""

from __future__ import annotations

import math
import operator
from decimal import Decimal
from dataclasses import dataclass, field, replace
from datetime import timedelta
from typing import Any, Literal

from pydantic import BaseModel, Field

from dc_bridge.contract.model import Threshold
from dc_bridge.contract.thresholds import Syntax, render
from dc_bridge.engines.results import CheckResult, EngineReport
from dc_bridge.monitors import MonitorVerdict
from dc_bridge.outcomes import ALL, NOT_EVALUATED, Outcome, verdict_exit_code, worst
from dc_bridge.plan.checks import KINDS, Check, CheckPlan, Objective, kind_of


# the runs an availability or errorRate SLA is judged over: those of the last 30 days (a month, the
# period uptime promises are usually made for; ODCS gives an SLA no window of its own), this one included
HISTORY_WINDOW = timedelta(days=30)
# fewer runs are no evidence: one run alone would make availability 100% or 0%
MIN_RUNS = 3


@dataclass(frozen=True)
class PastRun:
    """An earlier run of the contract, as the history file records it (runner/history.py): whether it
    read the data, and how many checks it evaluated and how many of those failed or were in error."""
    data_read: bool
    evaluated: int
    in_error: int


@dataclass(frozen=True)
class RunHistory:
    """The user's history file and its earlier runs of this contract within HISTORY_WINDOW."""
    file: str
    runs: tuple[PastRun, ...] = ()


@dataclass(frozen=True)
class Evidence:
    """What the runner read from the data besides the engines' reports (runner/vacuous.py, runner/samples.py)."""
    # models whose DataFrame has no rows
    empty_models: frozenset[str] = frozenset()
    # check id -> {"samples": [...], "duplicated_values": n} or {"samples_note": why there are none}
    samples: dict[str, dict[str, Any]] = field(default_factory=dict)
    # model -> its rows, where the run counted them: the engines on their way, and the models whose
    # row-level checks a dataQuality SLO names (runner/rows.py); the verdict's `ModelVerdict.rows`
    row_counts: dict[str, int] = field(default_factory=dict)
    # the run history availability and errorRate SLAs are judged over (runner/history.py); None: none is kept
    history: RunHistory | None = None


# the samples note of a check on a pii or sensitive field: its values are never shown
WITHHELD = "withheld: the field is marked pii or has a sensitive classification"


def vacuous_reason(model: str) -> str:
    return f"passed vacuously: `{model}` has no rows, so no value could violate the check"


class CheckVerdict(BaseModel):
    check_id: str
    model: str
    kind: str
    columns: list[str]
    outcome: Outcome
    severity: str
    expected: str | None = None
    # the threshold `expected` is written from, for a reader that writes it its own way (the HTML report's durations)
    threshold: Threshold | None = None
    observed: float | None = None
    # what `observed` counts: rows, percent (of all rows, or of passing runs), seconds; None where it
    # is not dc-bridge's to say (a SQL metric's value, a check judged by its outcome alone)
    unit: str | None = "rows"
    # the dataset metric `observed` is, where it is one (`rowCount` of the model, `nullCount` of the column:
    # plan/checks.py `Kind.metric_of`); None where it counts something else (a null check with missingValues)
    dataset_metric: str | None = None
    reason: str | None = None
    description: str | None = None
    source: dict[str, Any]
    # a few failing values (never for pii/sensitive fields) and, for uniqueness, how many distinct values repeat
    samples: list[Any] = Field(default_factory=list)
    samples_note: str | None = None
    duplicated_values: int | None = None
    engines: dict[str, CheckResult] = Field(default_factory=dict)
    # what the check judged when the contract is enforced on a slice (dc_bridge/enforce, docs/enforcing.md):
    # `slice` the rows of the slice, `table` the whole model; None in a run, which judges what it reads
    scope: Literal["slice", "table"] | None = None


class ObjectiveRule(BaseModel):
    """A named rule's part in a dataQuality SLO: its check's outcome and its evaluations, how many passed."""
    check_id: str
    outcome: Outcome
    evaluations: int | None = None
    passing: int | None = None


class ObjectiveVerdict(BaseModel):
    """An ODCS `dataQuality` SLO: `value` is the percent of its named rules' evaluations that passed
    (folded from the checks' verdicts); `engines` the same percent from each engine's own results,
    for the engines that returned every named rule."""
    objective_id: str
    outcome: Outcome
    value: float | None = None
    target: float | None
    expected: str | None
    reason: str | None = None
    description: str | None = None
    source: dict[str, Any]
    rules: list[ObjectiveRule] = Field(default_factory=list)
    engines: dict[str, float] = Field(default_factory=dict)


class ModelVerdict(BaseModel):
    name: str
    outcome: Outcome
    counts: dict[str, int]
    checks: list[CheckVerdict]
    # the rows the run read (the slice's under --where), where it counted them on its way; None where it did not
    rows: int | None = None


class Phase(BaseModel):
    """One step of a contract's run and how long it took (runner/phases.py); `model` and `engine` where
    the step is one model's or one engine's."""
    phase: str
    contract: str
    model: str | None = None
    engine: str | None = None
    seconds: float


# a contract version's states in the registry, in the order of its life (catalog/lifecycle.py moves it along them)
LifecycleState = Literal["proposed", "draft", "active", "deprecated", "sunset", "retired"]


class LifecycleVerdict(BaseModel):
    """Where the registry says the contract's version is in its life (dc_bridge/catalog/lifecycle.py), as a run saw it:
    `weighs_as` is what it does to the verdict (passed: a note; warning or failed: the enforcement level past a sunset)."""
    state: LifecycleState
    weighs_as: Literal["passed", "warning", "failed"]
    level: str
    message: str
    sunset: str | None = None  # ISO 8601 UTC
    sunset_timestamp: float | None = None  # seconds since the epoch, for an alert N days before
    days_to_sunset: int | None = None
    successor: str | None = None
    contradiction: str | None = None  # the contract's own status names a state its version has not been in
    where: str  # the catalog and namespace the state was read from


class Verdict(BaseModel):
    contract_id: str
    contract_version: str
    contract_file: str
    outcome: Outcome
    counts: dict[str, int]
    models: list[ModelVerdict]
    # dataQuality SLOs, judged on the checks above (not counted in `counts`, which counts checks)
    objectives: list[ObjectiveVerdict] = Field(default_factory=list)
    engines: list[str]
    engine_seconds: dict[str, float] = Field(default_factory=dict)
    engine_errors: dict[str, str] = Field(default_factory=dict)
    where: str | None = None
    # model -> why the --where filter was not applied to it (the model lacks a column it names): checked unfiltered
    where_not_applied: dict[str, str] = Field(default_factory=dict)
    # model -> where its data was read from: a path or URI, `table:NAME` (a table or view of the session's
    # catalog) or `dataframe` (handed to the run); the history, OpenLineage and OORS name the data by it
    data_sources: dict[str, str] = Field(default_factory=dict)
    # schema drift between the contract and the data (dc-bridge drift's findings; informational here:
    # a missing column or a wrong type already fails the model's exists and type checks)
    drift: list[dict[str, Any]] = Field(default_factory=list)
    started_at: str | None = None
    seconds: float | None = None
    versions: dict[str, str] = Field(default_factory=dict)
    # why the contract could not be checked at all (in a run of several contracts, which goes on past it)
    error: str | None = None
    # the steps of the run, in the order they ran, with their durations (read, lint, plan, ..., fold)
    phases: list[Phase] = Field(default_factory=list)
    # what the monitors learned from the history said of this run (dc_bridge/monitors); empty without a history
    monitors: list[MonitorVerdict] = Field(default_factory=list)
    # why the contract's outcome is worse than its checks and SLOs make it: a monitor at `strict` found an anomaly
    reason: str | None = None
    # the registry's lifecycle state of this version (None: no catalog and namespace configured, or not registered)
    lifecycle: LifecycleVerdict | None = None

    @classmethod
    def unchecked(cls, contract_file: str, engines: list[str], reason: str, contract_id: str | None = None,
                  contract_version: str = "", started_at: str | None = None) -> "Verdict":
        """The verdict of a contract a run could not check (refused, its file has errors, its data cannot be read):
        counted as one `error`, so every report's totals agree with its outcome (JUnit's `errors`). Named by the
        contract's id and version where they were read (every channel then replaces what its last good run said),
        by its file where even the id could not be read; `started_at` the run's clock, as a checked run's."""
        return cls(contract_id=contract_id or contract_file, contract_version=contract_version, contract_file=contract_file,
                   outcome="error", counts={outcome: int(outcome == "error") for outcome in ALL}, models=[], engines=list(engines),
                   error=reason, started_at=started_at)

    def exit_code(self, fail_on: str = "failed") -> int:
        """0 passed (and warnings unless fail_on is warning), 1 failed, 2 error or nothing evaluated
        (outcomes.verdict_exit_code)."""
        return verdict_exit_code(self.outcome, fail_on)

    def checks(self) -> list[CheckVerdict]:
        return [check for model in self.models for check in model.checks]


def whole_dataset(verdict: "Verdict", check: CheckVerdict) -> bool:
    """Whether `check` counted its model's whole data: not a `--where` slice's rows, nor an enforced slice's
    (`scope` slice): a number named for the dataset (a row count, a column's nulls) only then is the dataset's."""
    sliced = verdict.where is not None and check.model not in verdict.where_not_applied
    return not sliced and check.scope != "slice"


# a check's `expected` text: `<= 3%`, `between [1, 5)` (1 included, 5 not); numbers as `str` writes them
EXPECTED = Syntax(compare="{op} {value}{unit}", between="between {left}{low}, {high}{right}{unit}", not_between="not {between}")


def fold_check(check: Check, expected_engines: list[str], reports: dict[str, EngineReport], skip_reason: str | None) -> CheckVerdict:
    expected = render(check.threshold, EXPECTED, check.unit) if check.threshold is not None else None
    base = dict(check_id=check.id, model=check.model, kind=check.kind, columns=list(check.columns), severity=check.severity,
                expected=expected, threshold=check.threshold, unit=kind_of(check).observed_unit(check),
                dataset_metric=kind_of(check).metric_of(check), description=check.description,
                source={"file": check.source.file, "path": check.source.path, "line": check.source.line})
    if not kind_of(check).executable:  # the plan could not build a check; its params say why
        return CheckVerdict(outcome="not_executable", reason=check.params.reason, **base)
    if not expected_engines:
        return CheckVerdict(outcome="skipped", reason=skip_reason, **base)
    results: dict[str, CheckResult] = {}
    outcomes, reasons = [], []
    for engine in expected_engines:
        report = reports.get(engine)
        # a report with an error failed as a whole: none of its results can be trusted (engines/results.py)
        result = report.results.get(check.id) if report and report.error is None else None
        if result is None:
            why = (report.error if report and report.error else None) or f"{engine} returned no result for this check"
            outcomes.append("error")
            reasons.append(f"{engine}: {why}")
            continue
        if check.sensitive and result.samples:  # an engine's own samples of a pii field never reach a report
            result = replace(result, samples=[])
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
        numbers = ", ".join(f"{engine}={r.observed:.15g}" for engine, r in results.items() if r.observed is not None)
        reasons.append(f"engines disagree: {numbers}")
    return CheckVerdict(outcome=worst(outcomes), observed=observed[0] if observed else None,
                        reason="; ".join(reasons) or None, engines=results, **base)


def engines_agree(values: list[float]) -> bool:
    """Whether engines' numbers for one check are the same (float noise aside)."""
    first = values[0]
    return all(math.isclose(v, first, rel_tol=1e-9, abs_tol=1e-6) for v in values[1:])


@dataclass(frozen=True)
class Judged:
    """Each check's verdict from the engines' reports alone, per model, before the evidence: what the
    runner reads the evidence for (which checks failed, which passed on a model that may have no rows),
    and what `conclude` completes into the Verdict. Availability and errorRate SLAs are not judged yet."""
    models: list[ModelVerdict]
    # per model, parallel to its checks: the planned check where the engines judged it (the evidence may
    # add to its verdict), None where the fold decided it without them (absent, invalid, from history)
    by_engines: list[list[Check | None]]

    def checks(self) -> list[CheckVerdict]:
        return [check for model in self.models for check in model.checks]


def judge(plan: CheckPlan, reports: dict[str, dict[str, EngineReport]], coverage: dict[str, dict[str, str | None]],
          selected: tuple[str, ...], invalid: dict[str, str] | None = None, absent: dict[str, str] | None = None) -> Judged:
    """The first half of `fold`: each check's verdict from the reports (see `fold` for the arguments)."""
    invalid = invalid or {}
    absent = absent or {}
    models, by_engines = [], []
    unplaced = sorted({check.model for check in plan.checks} - set(plan.models))
    for model in list(plan.models) + unplaced:
        verdicts, engines_judged = [], []
        for check in plan.for_model(model):
            engines_judged.append(None)
            if check.id in absent and kind_of(check).executable:
                outcome = "warning" if check.severity in ("warning", "info") else "failed"
                verdicts.append(fold_check(check, [], {}, None).model_copy(update={"outcome": outcome, "reason": absent[check.id]}))
                continue
            if check.id in invalid:
                verdicts.append(fold_check(check, [], {}, None).model_copy(update={"outcome": "error", "reason": invalid[check.id]}))
                continue
            if kind_of(check).from_history:  # judged by `conclude`, once every check of this run has its outcome
                verdicts.append(fold_check(check, [], {}, None))
                continue
            runs_in = [engine for engine, reason in coverage.get(check.id, {}).items() if reason is None]
            expected = [engine for engine in selected if engine in runs_in]
            skip_reason = f"runs in {' and '.join(runs_in)} only, which was not selected" if runs_in else \
                "no selected engine runs this check"
            verdicts.append(fold_check(check, expected, reports.get(model, {}), skip_reason))
            engines_judged[-1] = check
        models.append(ModelVerdict(name=model, outcome=worst([v.outcome for v in verdicts]), counts=_counts(verdicts), checks=verdicts))
        by_engines.append(engines_judged)
    return Judged(models, by_engines)


def fold(plan: CheckPlan, reports: dict[str, dict[str, EngineReport]], coverage: dict[str, dict[str, str | None]],
         selected: tuple[str, ...], invalid: dict[str, str] | None = None, evidence: Evidence = Evidence(),
         absent: dict[str, str] | None = None, **run_facts: Any) -> Verdict:
    """`reports[model][engine]`; `coverage[check_id][engine]` is None where the engine runs the check
    (else why not); `invalid[check_id]` is why a check could not be sent to any engine (it is `error`);
    `absent[check_id]` is the column, declared by the contract, that it reads and the data lacks
    (engines/columns.py `absent_references`): it is `failed` with that reason, whatever an engine said.
    `judge` and then `conclude`: a run gathers its evidence from what `judge` found between the two."""
    return conclude(plan, judge(plan, reports, coverage, selected, invalid, absent), selected, evidence, **run_facts)


def conclude(plan: CheckPlan, judged: Judged, selected: tuple[str, ...], evidence: Evidence = Evidence(), **run_facts: Any) -> Verdict:
    """The second half of `fold`: the judged checks with their evidence, the SLAs over the history, the
    dataQuality SLOs, the contract's outcome. The evidence adds reasons and samples, never an outcome."""
    models = []
    for model, checks in zip(judged.models, judged.by_engines):
        verdicts = [v if check is None else _with_evidence(v, check, evidence) for v, check in zip(model.checks, checks)]
        models.append(model.model_copy(update={"checks": verdicts, "rows": evidence.row_counts.get(model.name)}))
    # this run read its data (or there would be no verdict), and its checks count towards errorRate
    this_run = PastRun(True, *checks_in_error(v for m in models for v in m.checks))
    planned = {check.id: check for check in plan.checks}
    models = [_judged_from_history(m, planned, evidence.history, this_run) for m in models]
    all_checks = [v for m in models for v in m.checks]
    by_id = {v.check_id: v for v in all_checks}
    objectives = [fold_objective(objective, by_id, evidence.row_counts) for objective in plan.objectives]
    return Verdict(contract_id=plan.contract_id, contract_version=plan.contract_version,
                   outcome=worst([m.outcome for m in models] + [o.outcome for o in objectives]),
                   counts=_counts(all_checks), models=models, objectives=objectives, engines=list(selected), **run_facts)


def with_monitors(verdict: Verdict, monitors: list[MonitorVerdict]) -> Verdict:
    """The verdict with what its monitors said: an anomaly at `strict` makes the contract `failed` (unless
    it is `error` already) with a reason naming the monitors; at `warn` it is reported and changes nothing."""
    failing = [m for m in monitors if m.outcome == "anomalous" and m.severity == "strict"]
    if not failing:
        return verdict.model_copy(update={"monitors": monitors})
    reason = "monitors at strict found an anomaly: " + "; ".join(f"{m.monitor_id}: {m.sentence}" for m in failing)
    return verdict.model_copy(update={"monitors": monitors, "outcome": worst([verdict.outcome, "failed"]), "reason": reason})


def with_lifecycle(verdict: Verdict, lifecycle: LifecycleVerdict | None) -> Verdict:
    """The verdict with its lifecycle finding: past a sunset, `warn` makes it at worst a warning and `strict` failed, with
    the finding as its reason; a deprecated version's finding is a note that changes nothing."""
    if lifecycle is None:
        return verdict
    if lifecycle.weighs_as == "passed" or worst([verdict.outcome, lifecycle.weighs_as]) == verdict.outcome:
        return verdict.model_copy(update={"lifecycle": lifecycle})
    return verdict.model_copy(update={"lifecycle": lifecycle, "outcome": lifecycle.weighs_as,
                                      "reason": verdict.reason or f"lifecycle: {lifecycle.message}"})


def fold_objective(objective: Objective, checks: dict[str, CheckVerdict], row_counts: dict[str, int]) -> ObjectiveVerdict:
    """The SLO's value: sum of passing evaluations / sum of evaluations over its named rules, in
    percent; met when at least the target. Never `passed` unless every named rule was evaluated."""
    base = dict(objective_id=objective.id, target=objective.target, expected=None if objective.target is None else f">= {objective.target:g}%",
                description=objective.description,
                source={"file": objective.source.file, "path": objective.source.path, "line": objective.source.line})
    if objective.problem:
        return ObjectiveVerdict(outcome="not_executable", reason=objective.problem, **base)
    named = [checks[check_id] for check_id in objective.check_ids]
    judged = [v.outcome != "error" and v.outcome not in NOT_EVALUATED for v in named]
    tallies = [_tally(v, v.observed, v.outcome in ("failed", "warning"), row_counts) if ok else None for v, ok in zip(named, judged)]
    rules = [ObjectiveRule(check_id=v.check_id, outcome=v.outcome, evaluations=t[0] if t else None, passing=t[1] if t else None)
             for v, t in zip(named, tallies)]
    errored = [v.check_id for v in named if v.outcome == "error"]
    unjudged = [f"{v.check_id} ({v.outcome})" for v in named if v.outcome in NOT_EVALUATED]
    uncounted = sorted({v.model for v, t, ok in zip(named, tallies, judged) if ok and t is None})
    problem = (("error", f"named rule(s) in error: {', '.join(errored)}") if errored else
               ("not_executable", f"named rule(s) not evaluated: {', '.join(unjudged)}") if unjudged else
               ("not_executable", f"needs the row count of {', '.join(uncounted)}, which only a run reads") if uncounted else None)
    if problem is None and not sum(t[0] for t in tallies):
        problem = ("not_executable", "nothing to evaluate: the models of the named rules have no rows")
    if problem is not None:
        return ObjectiveVerdict(outcome=problem[0], reason=problem[1], rules=rules, **base)
    evaluations, passing = sum(t[0] for t in tallies), sum(t[1] for t in tallies)
    met = Decimal(passing) * 100 >= Decimal(str(objective.target)) * evaluations  # exact: 999 of 1000 meets 99.9
    engines = {}
    for engine in set.intersection(*(set(v.engines) for v in named)):
        counted = [_tally(v, v.engines[engine].observed, v.engines[engine].outcome == "failed", row_counts) for v in named]
        engines[engine] = 100 * sum(t[1] for t in counted) / sum(t[0] for t in counted)
    return ObjectiveVerdict(outcome="passed" if met else "failed", value=100 * passing / evaluations, rules=rules,
                            reason=None if met else f"{passing} of {evaluations} evaluations passed", engines=engines, **base)


def _tally(check: CheckVerdict, observed: float | None, failed: bool, row_counts: dict[str, int]) -> tuple[int, int] | None:
    """(evaluations, passing) of one rule: every row of its model for a row-level rule (its violating
    rows fail; a percent is turned back into rows), one for any other; None when the row count is unknown."""
    if KINDS[check.kind].measure != "rows":
        return 1, 0 if failed else 1
    rows = row_counts.get(check.model)
    if rows is None:
        return None
    if observed is None:
        violating = rows if failed else 0
    else:
        violating = round(observed * rows / 100) if check.unit == "percent" else int(observed)
    return rows, rows - min(violating, rows)


def checks_in_error(verdicts) -> tuple[int, int]:
    """(evaluated, failed or in error) among a run's check verdicts, what errorRate counts: a `warning`
    is evaluated and not an error (the contract's severity tolerates it); the SLAs judged over the
    history are not counted, so that a missed errorRate never feeds itself."""
    outcomes = [v.outcome for v in verdicts if not KINDS[v.kind].from_history and v.outcome not in NOT_EVALUATED]
    return len(outcomes), sum(outcome in ("failed", "error") for outcome in outcomes)


# history SLA kind -> ((part, whole) over the runs, its percent being 100 * part / whole; the reason that gives them);
# every kind `from_history` has one (tests/test_kinds.py)
_HISTORY_SHARES = {
    "availability": (lambda runs: (sum(r.data_read for r in runs), len(runs)),
                     "{part} of the {runs} runs of the last {days} days read the data (this one included)"),
    "error_rate": (lambda runs: (sum(r.in_error for r in runs), sum(r.evaluated for r in runs)),
                   "{part} of {whole} check evaluations failed or were in error in the {runs} runs of the last {days} days "
                   "(this one included)"),
}
# exact, as for dataQuality SLOs: 999 of 1000 meets 99.9
_EXACTLY = {">=": operator.ge, "<=": operator.le}


def judge_history(check: Check, verdict: CheckVerdict, history: RunHistory | None, this_run: PastRun) -> CheckVerdict:
    """An availability or errorRate SLA over this run and the history's earlier runs of the contract
    within HISTORY_WINDOW: `not_executable` without a history or with fewer than MIN_RUNS runs (never
    `passed` on no evidence), else `passed` or `failed` on the share measured."""
    days = HISTORY_WINDOW.days
    if history is None:
        return verdict.model_copy(update={"outcome": "not_executable", "reason": (
            f"judged over a history of runs, and this run keeps none: pass --history PATH (Python: history=PATH) to record "
            f"each run in that file and judge this service level over the runs of the last {days} days")})
    runs = history.runs + (this_run,)
    if len(runs) < MIN_RUNS:
        return verdict.model_copy(update={"outcome": "not_executable", "reason": (
            f"needs at least {MIN_RUNS} runs of the contract in the last {days} days, this one included; "
            f"{history.file} records {len(history.runs)} before it")})
    share, reason = _HISTORY_SHARES[check.kind]
    part, whole = share(runs)
    if not whole:
        return verdict.model_copy(update={"outcome": "not_executable", "reason": f"the {len(runs)} runs of the last {days} days evaluated no check"})
    met = _EXACTLY[check.threshold.operator](Decimal(part) * 100, Decimal(str(check.threshold.value)) * whole)
    return verdict.model_copy(update={"outcome": "passed" if met else "failed", "observed": 100 * part / whole,
                                      "reason": reason.format(part=part, whole=whole, runs=len(runs), days=days)})


def _judged_from_history(model: ModelVerdict, planned: dict[str, Check], history: RunHistory | None, this_run: PastRun) -> ModelVerdict:
    if not any(KINDS[v.kind].from_history for v in model.checks):
        return model
    verdicts = [judge_history(planned[v.check_id], v, history, this_run) if KINDS[v.kind].from_history else v for v in model.checks]
    return model.model_copy(update={"outcome": worst([v.outcome for v in verdicts]), "counts": _counts(verdicts), "checks": verdicts})


def _with_evidence(verdict: CheckVerdict, check: Check, evidence: Evidence) -> CheckVerdict:
    if verdict.outcome == "passed" and not verdict.reason and kind_of(check).vacuous_on_empty and check.model in evidence.empty_models:
        return verdict.model_copy(update={"reason": vacuous_reason(check.model)})
    if verdict.outcome in ("failed", "warning") and check.id in evidence.samples:
        found = evidence.samples[check.id]
        if check.sensitive and found.get("samples"):
            found = {"samples_note": WITHHELD, "duplicated_values": found.get("duplicated_values")}
        return verdict.model_copy(update=found)
    return verdict


def _counts(verdicts: list[CheckVerdict]) -> dict[str, int]:
    counts = {o: 0 for o in ALL}
    for v in verdicts:
        counts[v.outcome] += 1
    return counts
