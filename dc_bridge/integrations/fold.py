"""Fold GX checkpoint results and Soda scans run outside dc-bridge into the contract verdict.

A team that runs the checkpoints of `dc-bridge gx init` or the compiled SodaCL itself gets the
verdict `dc-bridge run` would give: the same plan (the same checks left out for check-local lint
errors), the same result-reading functions (`engines.gx.read_results`, `engines.soda.read_scan`)
and the same fold (`verdict.fold`). Fail closed as in a run: a check whose result is missing (a model
that was not validated, a stale GX project) is `error`.

What a result produced elsewhere cannot carry: failing-value samples (they need the data), and the
value of a failed scalar SQL check from a checkpoint run with GX's SUMMARY result format, which
keeps only "failed" (see docs/gx-project.md).
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable

from dc_bridge import __version__
from dc_bridge.compiler import Compiled, compile_for_run
from dc_bridge.contract.model import Contract
from dc_bridge.contract.sql import view_name
from dc_bridge.engines.results import CheckResult, EngineReport
from dc_bridge.verdict import Verdict, fold


def fold_gx(checkpoint_result, contract: str | Path | Contract) -> Verdict:
    """The contract verdict from GX results: a `CheckpointResult`, an `ExpectationSuiteValidationResult`
    or its JSON (`to_json_dict()`, the files GX stores under uncommitted/validations/), or a list of
    them (one checkpoint per model, as `dc-bridge gx init` creates them).

    Results are joined by each expectation's `meta.dc_bridge.check_id`; expectations without one
    (added to a suite by hand) are ignored. Freshness ages are measured from each validation's run time.
    A model validated more than once counts with its newest validation.
    """
    from dc_bridge.engines.gx.run import read_results

    compiled = compile_for_run(contract)
    checks = {check.id: check for check in compiled.plan.checks}
    found: dict[str, dict[str, CheckResult]] = {}
    run_times = []
    # oldest first: when a model was validated more than once, its newest results are the ones kept
    for run_time, validation in sorted(((_run_time(v), v) for v in _validations(checkpoint_result)), key=lambda pair: pair[0]):
        run_times.append(run_time)
        # one validation holds one suite, so one model; grouping by the check's model keeps row counts per model
        by_model: dict[str, list] = {}
        for result in validation.results:
            check = checks.get(((result.expectation_config.meta or {}).get("dc_bridge") or {}).get("check_id"))
            if check is not None:
                by_model.setdefault(check.model, []).append(result)
        for model, results in by_model.items():
            own = {check.id: check for check in compiled.plan.for_model(model)}
            found.setdefault(model, {}).update(read_results(results, own, run_time))
    versions = {"dc-bridge": __version__, **_version("great-expectations")}
    return _fold(compiled, "gx", found, "no GX validation result of this model was given to fold_gx",
                 started_at=min(run_times).isoformat() if run_times else None, versions=versions)


def fold_soda(scan_results, contract: str | Path | Contract) -> Verdict:
    """The contract verdict from Soda Core v3 scans run outside dc-bridge: the executed
    `soda.scan.Scan` (or several, say one per model) whose SodaCL is the compiled `soda_checks/` files.

    The Scan object is needed, not only `scan.get_scan_results()`: that dict rounds percents to two
    decimals and freshness to milliseconds, and the verdict holds the exact numbers, as a run does.
    """
    from dc_bridge.engines.soda.run import named_lines, read_scan
    from dc_bridge.engines.soda.translate import sodacl_text

    scans = _scans(scan_results)
    compiled = compile_for_run(contract)
    found: dict[str, dict[str, CheckResult]] = {}
    for model, document in compiled.sodacl.items():
        own = {check.id: check for check in compiled.plan.for_model(model)}
        expected = {name: lines for name, lines in named_lines(sodacl_text(document, compiled.meta)).items() if name in own}
        # the scan that ran this model's checks: Soda keeps a check object for every check it parsed
        scan = next((s for s in scans if expected.keys() & {getattr(o, "name", None) for o in getattr(s, "_checks", [])}), None)
        if scan is not None and expected:
            found[model] = read_scan(scan, expected, own, table=view_name(compiled.plan.contract_id, model))
    started = [s.get_scan_results().get("scanStartTimestamp") for s in scans]
    versions = {"dc-bridge": __version__, **_version("soda-core")}
    return _fold(compiled, "soda", found, "no Soda scan given to fold_soda ran this model's checks",
                 started_at=min((s for s in started if s), default=None), versions=versions)


def _fold(compiled: Compiled, engine: str, found: dict[str, dict[str, CheckResult]], missing: str, **run_facts: Any) -> Verdict:
    """`verdict.fold` with one engine selected, as `dc-bridge run --engines <engine>` folds. The
    coverage is GX's and Soda's only: results from outside dc-bridge come from those two."""
    coverage = {check_id: {e: reason for e, reason in engines.items() if e in ("gx", "soda")}
                for check_id, engines in compiled.coverage.items()}
    reports = {model: {engine: EngineReport(engine, model, found[model], 0.0) if model in found else
                       EngineReport(engine, model, {}, 0.0, error=missing)}
               for model in compiled.plan.models}
    return fold(compiled.plan, reports, coverage, (engine,), compiled.invalid, contract_file=compiled.contract.file, **run_facts)


def _validations(result) -> list:
    """The suite validation results in a checkpoint result, a validation result, or an iterable of either."""
    if hasattr(result, "run_results"):
        return list(result.run_results.values())
    if hasattr(result, "results") and hasattr(result, "suite_name"):
        return [result]
    if isinstance(result, dict) and "results" in result and "suite_name" in result:
        from great_expectations.core.expectation_validation_result import ExpectationSuiteValidationResultSchema

        return [ExpectationSuiteValidationResultSchema().load(result)]
    if isinstance(result, Iterable) and not isinstance(result, (str, bytes, dict)):
        return [validation for item in result for validation in _validations(item)]
    raise TypeError(f"fold_gx takes a GX CheckpointResult or ExpectationSuiteValidationResult (or a list of them), not {type(result).__name__}")


def _scans(scan_results) -> list:
    if hasattr(scan_results, "get_scan_results"):
        return [scan_results]
    if isinstance(scan_results, dict):
        raise TypeError("fold_soda takes the executed soda.scan.Scan, not scan.get_scan_results(): the results dict "
                        "rounds percents and freshness, the Scan's check objects hold the exact numbers")
    if isinstance(scan_results, Iterable) and not isinstance(scan_results, (str, bytes)):
        return [scan for item in scan_results for scan in _scans(item)]
    raise TypeError(f"fold_soda takes an executed soda.scan.Scan (or a list of them), not {type(scan_results).__name__}")


def _run_time(validation) -> datetime:
    """When GX validated: the reference time freshness ages are measured from."""
    run_id = (validation.meta or {}).get("run_id")
    # a RunIdentifier, or its JSON form once the result was stored and loaded again
    run_time = (run_id.get("run_time") if isinstance(run_id, dict) else getattr(run_id, "run_time", None)) \
        or (validation.meta or {}).get("validation_time")
    if isinstance(run_time, str):
        run_time = datetime.fromisoformat(run_time)
    if not isinstance(run_time, datetime):
        return datetime.now(timezone.utc)
    return run_time if run_time.tzinfo is not None else run_time.replace(tzinfo=timezone.utc)


def _version(package: str) -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return {package: version(package)}
    except PackageNotFoundError:
        return {}
