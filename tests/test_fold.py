"""Table tests of the verdict fold (dc_bridge/verdict.py), from hand-made engine reports.

The fold is a pure function of the plan, the coverage, the engine reports and the evidence: no
Spark, no engines. Each table row is one rule of docs/running.md ("The verdict"):

- a check's outcome is the worst of the selected engines that run it; a failure of a warning/info
  check is a warning;
- engines that both measured a check and whose numbers differ make it `error` (float noise aside);
- fail closed: a result an engine should have returned but did not is `error`;
- a check-local lint error (`invalid`) is `error` whatever the engines say;
- `not_executable` and `skipped` never make a verdict better or worse; nothing evaluated is not `passed`
  (verdict `not_executable`, exit 2);
- a check that reads a column the data lacks (`absent`) is `failed` with that reason;
- model = worst of its checks, contract = worst of its models, with counts per outcome;
- evidence: vacuous passes on empty models, failing values on failed/warning checks only;
- exit codes.
"""

from __future__ import annotations

import pytest

from dc_bridge.contract.model import Source, Threshold
from dc_bridge.engines.results import CheckResult, EngineReport
from dc_bridge.plan.checks import (KINDS, Check, CheckPlan, ColumnExists, CustomGx, CustomSoda, NotExecutable, NotNull,
                                   RowCount, SqlMetric, Unique)
from dc_bridge.verdict import Evidence, fold, vacuous_reason

BOTH = ("gx", "soda")
SRC = Source(file="contract.yaml", path="models.orders", line=1)

# --- factories -------------------------------------------------------------------------------------

_PARAMS = {
    "not_null": lambda: NotNull(),
    "unique": lambda: Unique(),
    "row_count": lambda: RowCount(),
    "column_exists": lambda: ColumnExists(),
    "sql_metric": lambda: SqlMetric("SELECT count(*) FROM {table}"),
    "custom_gx": lambda: CustomGx({"type": "expect_column_values_to_not_be_null", "kwargs": {"column": "id"}}),
    "custom_soda": lambda: CustomSoda(("missing_count(id) = 0",)),
    "not_executable": lambda: NotExecutable("a text rule describes quality in words"),
}
_THRESHOLDS = {"row_count": Threshold(operator=">=", value=0), "sql_metric": Threshold(operator="<", value=10)}
_NO_THRESHOLD = {"column_exists", "custom_gx", "custom_soda", "not_executable"}


def check(kind: str = "not_null", model: str = "orders", severity: str = "error", id: str | None = None) -> Check:
    """One check of `kind` on `model`; its id defaults to `<model>.<kind>`."""
    threshold = None if kind in _NO_THRESHOLD else _THRESHOLDS.get(kind, Threshold(operator="=", value=0))
    made = Check(id or f"{model}.{kind}", model, ("id",), _PARAMS[kind](), SRC, threshold=threshold, severity=severity)
    assert made.kind == kind  # the factory builds the kind it was asked for
    return made


# engine result specs, one per engine in a row:
#   ("passed", 0)       a result with that outcome and observed number (None: no number)
#   ("error", None, "why")  a result with an engine error text
#   MISSING             the engine's report has no result for the check
#   CRASH               the engine's whole report failed (error set, no results)
MISSING = "missing"
CRASH = "crash"
CRASH_TEXT = "Py4JJavaError: executor lost"


def reports_for(checks: list[Check], spec: dict[str, object]) -> dict[str, dict[str, EngineReport]]:
    """reports[model][engine] where every check gets its engine's spec."""
    out: dict[str, dict[str, EngineReport]] = {}
    for engine, what in spec.items():
        for model in {c.model for c in checks}:
            if what == CRASH:
                report = EngineReport(engine, model, {}, 1.0, error=CRASH_TEXT)
            else:
                results = {} if what == MISSING else {c.id: result(c.id, engine, *what) for c in checks if c.model == model}
                report = EngineReport(engine, model, results, 1.0)
            out.setdefault(model, {})[engine] = report
    return out


def result(check_id: str, engine: str, outcome: str, observed: float | None = None, error: str | None = None) -> CheckResult:
    return CheckResult(check_id, engine, outcome, observed=observed, error=error)


def coverage_for(checks: list[Check], runs_in: tuple[str, ...] = BOTH) -> dict[str, dict[str, str | None]]:
    """coverage[check][engine]: None where the engine runs it, else why not (gx and soda always listed)."""
    return {c.id: {e: (None if e in runs_in else f"{e} cannot run {c.kind}") for e in BOTH} for c in checks}


def plan_of(*checks: Check, models: tuple[str, ...] | None = None) -> CheckPlan:
    if models is None:
        models = tuple(dict.fromkeys(c.model for c in checks))
    return CheckPlan("urn:test", "1.0.0", tuple(checks), models)


def run(checks: list[Check], spec: dict[str, object], selected=BOTH, coverage=None, invalid=None, evidence=Evidence(),
        models=None, reports=None):
    coverage = coverage if coverage is not None else coverage_for(checks)
    reports = reports if reports is not None else reports_for(checks, spec)
    return fold(plan_of(*checks, models=models), reports, coverage, selected, invalid, evidence, contract_file="contract.yaml")


def one(verdict):
    (only,) = verdict.checks()
    return only


def assert_reason(reason: str | None, fragment: str | None) -> None:
    if fragment is None:
        assert reason is None
    else:
        assert reason is not None and fragment in reason, reason


# --- one check, both engines selected and running it ---------------------------------------------

FOLD_ROWS = [
    # id, kind, severity, {engine: result spec}, expected outcome, reason fragment (None: no reason)
    ("both-passed", "not_null", "error", {"gx": ("passed", 0), "soda": ("passed", 0)}, "passed", None),
    ("both-failed", "not_null", "error", {"gx": ("failed", 3), "soda": ("failed", 3)}, "failed", None),
    ("worst-wins-error", "not_null", "error", {"gx": ("passed", 0), "soda": ("error", None, "column id not found")}, "error", "soda: column id not found"),
    ("worst-wins-failed-outcome-only", "column_exists", "error", {"gx": ("passed",), "soda": ("failed",)}, "failed", None),
    ("worst-wins-order-indep", "column_exists", "error", {"gx": ("failed",), "soda": ("passed",)}, "failed", None),
    ("error-beats-failed", "column_exists", "error", {"gx": ("failed",), "soda": ("error", None, "boom")}, "error", "soda: boom"),
    # severity: failed -> warning for warning/info checks; never softens an error, never worsens a pass
    ("sev-warning-failed", "not_null", "warning", {"gx": ("failed", 3), "soda": ("failed", 3)}, "warning", None),
    ("sev-info-failed", "not_null", "info", {"gx": ("failed", 3), "soda": ("failed", 3)}, "warning", None),
    ("sev-warning-passed", "not_null", "warning", {"gx": ("passed", 0), "soda": ("passed", 0)}, "passed", None),
    ("sev-warning-one-failed", "column_exists", "warning", {"gx": ("failed",), "soda": ("passed",)}, "warning", None),
    ("sev-warning-error-stays", "column_exists", "warning", {"gx": ("failed",), "soda": ("error", None, "boom")}, "error", "soda: boom"),
    ("sev-info-crash-stays", "not_null", "info", {"gx": ("failed", 3), "soda": CRASH}, "error", CRASH_TEXT),
    # disagreement: both measured, numbers differ -> error with both numbers
    ("disagree-both-failed", "not_null", "error", {"gx": ("failed", 3), "soda": ("failed", 4)}, "error", "engines disagree: gx=3, soda=4"),
    ("disagree-pass-vs-fail", "not_null", "error", {"gx": ("passed", 0), "soda": ("failed", 2)}, "error", "engines disagree: gx=0, soda=2"),
    ("disagree-both-passed", "row_count", "error", {"gx": ("passed", 100), "soda": ("passed", 101)}, "error", "engines disagree: gx=100, soda=101"),
    ("disagree-sev-warning", "not_null", "warning", {"gx": ("failed", 3), "soda": ("failed", 4)}, "error", "engines disagree"),
    ("disagree-percent", "not_null", "error", {"gx": ("failed", 12.5), "soda": ("failed", 12.75)}, "error", "gx=12.5, soda=12.75"),
    ("disagree-just-outside-noise", "row_count", "error", {"gx": ("passed", 1000), "soda": ("passed", 1000.01)}, "error", "engines disagree"),
    # agreement within float noise
    ("agree-float-noise", "not_null", "error", {"gx": ("failed", 0.1 + 0.2), "soda": ("failed", 0.3)}, "failed", None),
    ("agree-rel-noise", "row_count", "error", {"gx": ("passed", 1e9), "soda": ("passed", 1e9 + 1e-3)}, "passed", None),
    ("agree-abs-noise-near-zero", "not_null", "error", {"gx": ("passed", 0.0), "soda": ("passed", 1e-9)}, "passed", None),
    # only one engine gave a number: nothing to disagree with
    ("one-number-only", "sql_metric", "error", {"gx": ("passed", None), "soda": ("passed", 5)}, "passed", None),
    # fail closed
    ("missing-soda", "not_null", "error", {"gx": ("passed", 0), "soda": MISSING}, "error", "soda: soda returned no result for this check"),
    ("missing-gx", "not_null", "error", {"gx": MISSING, "soda": ("failed", 2)}, "error", "gx: gx returned no result for this check"),
    ("missing-sev-warning", "not_null", "warning", {"gx": ("failed", 2), "soda": MISSING}, "error", "soda returned no result"),
    ("crash-soda", "not_null", "error", {"gx": ("passed", 0), "soda": CRASH}, "error", f"soda: {CRASH_TEXT}"),
    ("crash-gx", "column_exists", "error", {"gx": CRASH, "soda": ("passed",)}, "error", f"gx: {CRASH_TEXT}"),
    ("crash-both", "not_null", "error", {"gx": CRASH, "soda": CRASH}, "error", f"gx: {CRASH_TEXT}; soda: {CRASH_TEXT}"),
]


@pytest.mark.parametrize("kind, severity, spec, expected, reason", [row[1:] for row in FOLD_ROWS], ids=[row[0] for row in FOLD_ROWS])
def test_fold_one_check(kind, severity, spec, expected, reason):
    checks = [check(kind, severity=severity)]
    verdict = run(checks, spec)
    got = one(verdict)
    assert got.outcome == expected
    assert_reason(got.reason, reason)
    # a single-check model and contract take the check's outcome
    assert verdict.models[0].outcome == expected
    assert verdict.outcome == expected
    assert verdict.counts[expected] == 1 and sum(verdict.counts.values()) == 1


def test_fold_keeps_each_engines_result_and_the_first_number():
    got = one(run([check()], {"gx": ("failed", 3), "soda": ("failed", 3)}))
    assert set(got.engines) == {"gx", "soda"}
    assert got.observed == 3 and got.expected == "= 0"


@pytest.mark.parametrize("kind, observed, unit", [
    ("not_null", 3, "rows"),        # the rows that violate it, as the contract counts them
    ("row_count", 3, "rows"),       # the model's rows
    ("sql_metric", 3, None),        # the user's query computes a number of its own: no unit is ours to claim
    ("column_exists", None, None),  # judged by its outcome: no number
])
def test_the_verdict_unit_says_what_the_observed_number_counts(kind, observed, unit):
    outcome = "passed" if kind in _NO_THRESHOLD else "failed"
    assert one(run([check(kind)], {"gx": (outcome, observed), "soda": (outcome, observed)})).unit == unit


def test_model_absent_from_reports_fails_closed():
    """No report at all for the model (it could not be read): each selected engine's absence is named."""
    got = one(run([check()], {}, reports={}))
    assert got.outcome == "error"
    assert got.reason == "gx: gx returned no result for this check; soda: soda returned no result for this check"


def test_crashed_report_with_leftover_results_is_not_trusted():
    """EngineReport.error means no result of that report can be trusted (engines/results.py). The engines
    always send `{}` results with an error, so this does not happen today; the fold should still not pass."""
    c = check()
    reports = {"orders": {"gx": EngineReport("gx", "orders", {c.id: result(c.id, "gx", "passed", 0)}, 1.0),
                          "soda": EngineReport("soda", "orders", {c.id: result(c.id, "soda", "passed", 0)}, 1.0, error=CRASH_TEXT)}}
    got = one(run([c], {}, reports=reports))
    assert got.outcome == "error"
    assert CRASH_TEXT in got.reason


def test_disagreement_reason_tells_large_numbers_apart():
    got = one(run([check("row_count")], {"gx": ("passed", 1234567), "soda": ("passed", 1234568)}))
    assert got.outcome == "error"
    assert "gx=1234567" in got.reason and "soda=1234568" in got.reason


# --- selection and coverage: which engines are expected to return a check -------------------------

COVERAGE_ROWS = [
    # id, kind, coverage (engines that run it), selected, {engine: spec}, expected, reason fragment, engines in verdict
    ("custom-gx-both-selected", "custom_gx", ("gx",), BOTH, {"gx": ("passed",), "soda": MISSING}, "passed", None, {"gx"}),
    ("custom-gx-failed", "custom_gx", ("gx",), BOTH, {"gx": ("failed",), "soda": MISSING}, "failed", None, {"gx"}),
    ("custom-gx-soda-crashed", "custom_gx", ("gx",), BOTH, {"gx": ("passed",), "soda": CRASH}, "passed", None, {"gx"}),
    ("custom-gx-missing", "custom_gx", ("gx",), BOTH, {"gx": MISSING, "soda": MISSING}, "error", "gx: gx returned no result", set()),
    ("custom-soda-both-selected", "custom_soda", ("soda",), BOTH, {"gx": MISSING, "soda": ("failed",)}, "failed", None, {"soda"}),
    ("custom-soda-gx-only", "custom_soda", ("soda",), ("gx",), {"gx": MISSING}, "skipped", "runs in soda only, which was not selected", set()),
    ("custom-gx-soda-only", "custom_gx", ("gx",), ("soda",), {"soda": MISSING}, "skipped", "runs in gx only, which was not selected", set()),
    ("both-run-neither-selected", "not_null", BOTH, ("spark",), {}, "skipped", "runs in gx and soda only", set()),
    ("no-engine-runs-it", "not_null", (), BOTH, {"gx": MISSING, "soda": MISSING}, "skipped", "no selected engine runs this check", set()),
    # an engine that is not selected does not count, whatever it reported
    ("unselected-gx-ignored", "not_null", BOTH, ("soda",), {"gx": ("failed", 3), "soda": ("passed", 0)}, "passed", None, {"soda"}),
    ("unselected-crash-ignored", "not_null", BOTH, ("gx",), {"gx": ("failed", 3), "soda": CRASH}, "failed", None, {"gx"}),
    ("unselected-no-disagreement", "not_null", BOTH, ("gx",), {"gx": ("failed", 3), "soda": ("failed", 4)}, "failed", None, {"gx"}),
]


@pytest.mark.parametrize("kind, runs_in, selected, spec, expected, reason, engines",
                         [row[1:] for row in COVERAGE_ROWS], ids=[row[0] for row in COVERAGE_ROWS])
def test_fold_coverage(kind, runs_in, selected, spec, expected, reason, engines):
    checks = [check(kind)]
    got = one(run(checks, spec, selected=selected, coverage=coverage_for(checks, runs_in)))
    assert got.outcome == expected
    assert_reason(got.reason, reason)
    assert set(got.engines) == engines


def test_check_missing_from_coverage_is_skipped():
    got = one(run([check()], {"gx": ("failed", 3), "soda": ("failed", 3)}, coverage={}))
    assert (got.outcome, got.reason) == ("skipped", "no selected engine runs this check")


# --- invalid: a check-local lint error is `error`, whatever the engines say -------------------------

INVALID_ROWS = [
    # id, kind, severity, runs_in, selected, {engine: spec}
    ("engines-passed", "not_null", "error", BOTH, BOTH, {"gx": ("passed", 0), "soda": ("passed", 0)}),
    ("engines-failed", "not_null", "error", BOTH, BOTH, {"gx": ("failed", 3), "soda": ("failed", 3)}),
    ("sev-info-passed", "not_null", "info", BOTH, BOTH, {"gx": ("passed", 0), "soda": ("passed", 0)}),
    ("sev-warning-failed", "not_null", "warning", BOTH, BOTH, {"gx": ("failed", 3), "soda": ("failed", 3)}),
    ("engine-not-selected", "custom_soda", "error", ("soda",), ("gx",), {"gx": MISSING}),
    ("no-engine", "sql_metric", "error", (), BOTH, {"gx": MISSING, "soda": MISSING}),
    ("not-executable-kind", "not_executable", "error", (), BOTH, {}),
]


@pytest.mark.parametrize("kind, severity, runs_in, selected, spec", [row[1:] for row in INVALID_ROWS], ids=[row[0] for row in INVALID_ROWS])
def test_invalid_check_is_error(kind, severity, runs_in, selected, spec):
    c = check(kind, severity=severity)
    why = "DCB140: the pattern is not a Java regex"
    verdict = run([c], spec, selected=selected, coverage=coverage_for([c], runs_in), invalid={c.id: why})
    got = one(verdict)
    assert (got.outcome, got.reason) == ("error", why)
    assert verdict.outcome == "error" and verdict.counts["error"] == 1


def test_invalid_only_touches_its_own_check():
    bad, good = check(id="orders.bad"), check(id="orders.good")
    verdict = run([bad, good], {"gx": ("passed", 0), "soda": ("passed", 0)}, invalid={bad.id: "DCB160: no such column"})
    outcomes = {c.check_id: c.outcome for c in verdict.checks()}
    assert outcomes == {"orders.bad": "error", "orders.good": "passed"}


# --- roll-up: model = worst of its checks, contract = worst of its models ---------------------------

PASS, FAIL, ERR = {"gx": ("passed", 0), "soda": ("passed", 0)}, {"gx": ("failed", 3), "soda": ("failed", 3)}, {"gx": CRASH, "soda": CRASH}
SKIP, NX = "skip", "nx"  # a check no selected engine runs; a not_executable check


def _rollup_case(rows: dict[str, list[tuple[str, object]]]):
    """rows: model -> [(severity, PASS/FAIL/ERR/SKIP/NX)]; one check per entry; returns (checks, reports, coverage)."""
    checks, reports, coverage = [], {}, {}
    for model, entries in rows.items():
        for n, (severity, what) in enumerate(entries):
            kind = "not_executable" if what == NX else "not_null"
            c = check(kind, model=model, severity=severity, id=f"{model}.{n}")
            checks.append(c)
            coverage.update(coverage_for([c], () if what in (SKIP, NX) else BOTH))
            for engine, spec in ({} if what in (SKIP, NX) else what).items():
                report = reports.setdefault(model, {}).setdefault(engine, EngineReport(engine, model, {}, 1.0))
                if spec == CRASH:
                    reports[model][engine] = EngineReport(engine, model, {}, 1.0, error=CRASH_TEXT)
                elif report.error is None:
                    report.results[c.id] = result(c.id, engine, *spec)
    return checks, reports, coverage


ROLLUP_ROWS = [
    # id, {model: [(severity, what)]}, {model: expected model outcome}, contract outcome, contract counts (non-zero only)
    ("all-passed", {"orders": [("error", PASS), ("error", PASS)]}, {"orders": "passed"}, "passed", {"passed": 2}),
    ("one-failed", {"orders": [("error", PASS), ("error", FAIL)]}, {"orders": "failed"}, "failed", {"passed": 1, "failed": 1}),
    ("warning-below-failed", {"orders": [("warning", FAIL), ("error", FAIL)]}, {"orders": "failed"}, "failed", {"warning": 1, "failed": 1}),
    ("warning-above-passed", {"orders": [("warning", FAIL), ("error", PASS)]}, {"orders": "warning"}, "warning", {"warning": 1, "passed": 1}),
    ("nx-alone", {"orders": [("error", NX)]}, {"orders": "not_executable"}, "not_executable", {"not_executable": 1}),
    ("nx-and-passed", {"orders": [("error", NX), ("error", PASS)]}, {"orders": "passed"}, "passed", {"not_executable": 1, "passed": 1}),
    ("nx-and-failed", {"orders": [("error", NX), ("error", FAIL)]}, {"orders": "failed"}, "failed", {"not_executable": 1, "failed": 1}),
    ("skipped-alone", {"orders": [("error", SKIP)]}, {"orders": "not_executable"}, "not_executable", {"skipped": 1}),
    ("skipped-and-warning", {"orders": [("error", SKIP), ("info", FAIL)]}, {"orders": "warning"}, "warning", {"skipped": 1, "warning": 1}),
    ("nx-skipped-only", {"orders": [("error", NX), ("error", SKIP)]}, {"orders": "not_executable"}, "not_executable",
     {"not_executable": 1, "skipped": 1}),
    # worst across models
    ("models-passed-failed", {"orders": [("error", PASS)], "items": [("error", FAIL)]}, {"orders": "passed", "items": "failed"}, "failed",
     {"passed": 1, "failed": 1}),
    ("models-warning-error", {"orders": [("warning", FAIL)], "items": [("error", ERR)]}, {"orders": "warning", "items": "error"}, "error",
     {"warning": 1, "error": 1}),
    ("models-nx-passed", {"orders": [("error", NX)], "items": [("error", PASS)]}, {"orders": "not_executable", "items": "passed"}, "passed",
     {"not_executable": 1, "passed": 1}),
    ("models-nx-warning", {"orders": [("error", NX)], "items": [("info", FAIL)]}, {"orders": "not_executable", "items": "warning"}, "warning",
     {"not_executable": 1, "warning": 1}),
    ("models-skip-failed-passed", {"a": [("error", SKIP)], "b": [("error", FAIL)], "c": [("error", PASS), ("error", PASS)]},
     {"a": "not_executable", "b": "failed", "c": "passed"}, "failed", {"skipped": 1, "failed": 1, "passed": 2}),
]


@pytest.mark.parametrize("rows, model_outcomes, outcome, counts", [row[1:] for row in ROLLUP_ROWS], ids=[row[0] for row in ROLLUP_ROWS])
def test_rollup(rows, model_outcomes, outcome, counts):
    checks, reports, coverage = _rollup_case(rows)
    verdict = run(checks, {}, reports=reports, coverage=coverage)
    assert {m.name: m.outcome for m in verdict.models} == model_outcomes
    assert verdict.outcome == outcome
    assert {k: v for k, v in verdict.counts.items() if v} == counts
    assert set(verdict.counts) == {"passed", "warning", "failed", "error", "not_executable", "skipped"}
    # a model's counts are its own checks' outcomes
    for model in verdict.models:
        assert sum(model.counts.values()) == len(rows[model.name])


ABSENT = "column `nobody` of `people` is not in the data, which the foreign key references"
ABSENT_ROWS = [
    # id, severity, {engine: spec}, expected outcome: a check that reads a column the data lacks is
    # `failed` (a judgement about the data), whatever an engine said, and never `passed`
    ("absent-engines-error", "error", {"gx": ("error", None, "UNRESOLVED_COLUMN"), "soda": CRASH}, "failed"),
    ("absent-engines-passed", "error", PASS, "failed"),
    ("absent-no-result", "error", {"gx": MISSING, "soda": MISSING}, "failed"),
    ("absent-warning-severity", "warning", PASS, "warning"),
]


@pytest.mark.parametrize("severity, spec, expected", [row[1:] for row in ABSENT_ROWS], ids=[row[0] for row in ABSENT_ROWS])
def test_absent_column_is_failed_with_its_reason(severity, spec, expected):
    c = check(severity=severity)
    verdict = fold(plan_of(c), reports_for([c], spec), coverage_for([c]), BOTH, {}, Evidence(), absent={c.id: ABSENT},
                   contract_file="contract.yaml")
    got = one(verdict)
    assert (got.outcome, got.reason) == (expected, ABSENT)
    assert verdict.outcome == expected and verdict.exit_code() == (1 if expected == "failed" else 0)


def test_not_executable_keeps_its_reason():
    got = one(run([check("not_executable")], {}, coverage={}))
    assert (got.outcome, got.reason) == ("not_executable", "a text rule describes quality in words")


def test_model_without_checks_and_unplaced_checks():
    """A planned model with no checks is not_executable; a check of a model the plan does not list
    (the `(contract)` service levels) still gets its own model entry, last."""
    c = check(model="(contract)")
    verdict = run([c], {"gx": ("failed", 1), "soda": ("failed", 1)}, models=("orders",))
    assert [(m.name, m.outcome) for m in verdict.models] == [("orders", "not_executable"), ("(contract)", "failed")]
    assert verdict.outcome == "failed"


# --- evidence: vacuous passes, failing values ------------------------------------------------------

SAMPLES = {"samples": ["a", "b"], "duplicated_values": 1}
NOTE = {"samples_note": "withheld"}

EVIDENCE_ROWS = [
    # id, kind, model, severity, {engine: spec}, evidence, outcome, reason, samples fields expected on the verdict
    ("vacuous-not-null", "not_null", "orders", "error", PASS, Evidence(empty_models=frozenset({"orders"})), "passed", vacuous_reason("orders"), {}),
    ("vacuous-unique", "unique", "orders", "error", PASS, Evidence(empty_models=frozenset({"orders"})), "passed", "`orders` has no rows", {}),
    ("row-count-not-vacuous", "row_count", "orders", "error", {"gx": ("passed", 0), "soda": ("passed", 0)},
     Evidence(empty_models=frozenset({"orders"})), "passed", None, {}),
    ("sql-metric-not-vacuous", "sql_metric", "orders", "error", PASS, Evidence(empty_models=frozenset({"orders"})), "passed", None, {}),
    ("column-exists-not-vacuous", "column_exists", "orders", "error", {"gx": ("passed",), "soda": ("passed",)},
     Evidence(empty_models=frozenset({"orders"})), "passed", None, {}),
    ("other-model-empty", "not_null", "orders", "error", PASS, Evidence(empty_models=frozenset({"items"})), "passed", None, {}),
    ("failed-on-empty-not-vacuous", "not_null", "orders", "error", FAIL, Evidence(empty_models=frozenset({"orders"})), "failed", None, {}),
    ("failed-gets-samples", "unique", "orders", "error", FAIL, Evidence(samples={"orders.unique": SAMPLES}), "failed", None, SAMPLES),
    ("warning-gets-samples", "unique", "orders", "warning", FAIL, Evidence(samples={"orders.unique": SAMPLES}), "warning", None, SAMPLES),
    ("failed-gets-note", "not_null", "orders", "error", FAIL, Evidence(samples={"orders.not_null": NOTE}), "failed", None, NOTE),
    ("passed-never-samples", "unique", "orders", "error", PASS, Evidence(samples={"orders.unique": SAMPLES}), "passed", None, {}),
    ("error-no-samples", "unique", "orders", "error", ERR, Evidence(samples={"orders.unique": SAMPLES}), "error", CRASH_TEXT, {}),
    ("samples-of-other-check", "unique", "orders", "error", FAIL, Evidence(samples={"orders.not_null": SAMPLES}), "failed", None, {}),
]


@pytest.mark.parametrize("kind, model, severity, spec, evidence, outcome, reason, fields",
                         [row[1:] for row in EVIDENCE_ROWS], ids=[row[0] for row in EVIDENCE_ROWS])
def test_evidence(kind, model, severity, spec, evidence, outcome, reason, fields):
    c = check(kind, model=model, severity=severity)
    got = one(run([c], spec, evidence=evidence))
    assert got.outcome == outcome
    assert_reason(got.reason, reason)
    assert got.samples == fields.get("samples", [])
    assert got.duplicated_values == fields.get("duplicated_values")
    assert got.samples_note == fields.get("samples_note")


def test_vacuous_on_empty_is_the_kind_registry():
    """The evidence rows above rely on these kinds' registry entries."""
    assert KINDS["not_null"].vacuous_on_empty and KINDS["unique"].vacuous_on_empty
    assert not any(KINDS[k].vacuous_on_empty for k in ("row_count", "sql_metric", "column_exists", "custom_gx"))


# --- exit codes ------------------------------------------------------------------------------------

EXIT_ROWS = [
    # id, (severity, what) of the only check, fail_on, expected contract outcome, exit code
    ("passed", ("error", PASS), "failed", "passed", 0),
    ("passed-fail-on-warning", ("error", PASS), "warning", "passed", 0),
    ("warning", ("warning", FAIL), "failed", "warning", 0),
    ("warning-fail-on-warning", ("warning", FAIL), "warning", "warning", 1),
    ("failed", ("error", FAIL), "failed", "failed", 1),
    ("failed-fail-on-warning", ("error", FAIL), "warning", "failed", 1),
    ("error", ("error", ERR), "failed", "error", 2),
    ("error-fail-on-warning", ("error", ERR), "warning", "error", 2),
    # nothing evaluated: not `passed`, and no finding about the data either: exit 2, like an error
    # (docs/running.md, "Outputs and exit codes"; outcomes.verdict_exit_code)
    ("not-executable", ("error", NX), "failed", "not_executable", 2),
    ("not-executable-fail-on-warning", ("error", NX), "warning", "not_executable", 2),
    ("skipped-only", ("error", SKIP), "failed", "not_executable", 2),
]


@pytest.mark.parametrize("entry, fail_on, outcome, code", [row[1:] for row in EXIT_ROWS], ids=[row[0] for row in EXIT_ROWS])
def test_exit_code(entry, fail_on, outcome, code):
    checks, reports, coverage = _rollup_case({"orders": [entry]})
    verdict = run(checks, {}, reports=reports, coverage=coverage)
    assert verdict.outcome == outcome
    assert verdict.exit_code(fail_on) == code


@pytest.mark.parametrize("fail_on", ["warnings", "error", "Failed", ""])
def test_an_unknown_fail_on_is_refused_not_read_as_failed(fail_on):
    """`run --fail-on` is a click choice, but the API (`Verdict.exit_code`, the Airflow operator's `fail_on`) took any text
    and read a misspelt "warnings" as "failed": a warning verdict then passed a task that asked to fail on warnings."""
    checks, reports, coverage = _rollup_case({"orders": [("warning", FAIL)]})
    verdict = run(checks, {}, reports=reports, coverage=coverage)
    with pytest.raises(ValueError, match=f"fail_on={fail_on!r}: choose one of failed, warning"):
        verdict.exit_code(fail_on)


def test_exit_code_default_fail_on_is_failed():
    checks, reports, coverage = _rollup_case({"orders": [("warning", FAIL)]})
    assert run(checks, {}, reports=reports, coverage=coverage).exit_code() == 0


def test_a_model_an_engine_found_a_violating_row_in_is_not_asked_whether_it_is_empty():
    """runner/vacuous.py: a violating row counted by an engine proves the model has rows, with no Spark job."""
    from types import SimpleNamespace

    from dc_bridge.runner.vacuous import empty_models

    class Frame:
        def __init__(self, empty):
            self.empty, self.asked = empty, 0

        def isEmpty(self):
            self.asked += 1
            return self.empty

    def model(count, kind="in_set"):
        checks = [SimpleNamespace(outcome="passed", kind="not_null", reason=None, engines={}),
                  SimpleNamespace(outcome="failed", kind=kind, reason=None,
                                  engines={"soda": CheckResult("orders.x", "soda", "failed", observed=float(count or 0), unexpected_count=count)})]
        return SimpleNamespace(name="orders", checks=checks)

    violated = Frame(empty=True)
    assert empty_models(SimpleNamespace(models=[model(3)]), {"orders": violated}) == frozenset() and violated.asked == 0
    for counted in (model(0), model(None), model(3, kind="sql_metric")):  # no violating row counted: Spark is asked
        empty = Frame(empty=True)
        assert empty_models(SimpleNamespace(models=[counted]), {"orders": empty}) == frozenset({"orders"}) and empty.asked == 1
