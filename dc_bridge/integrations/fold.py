"""Fold GX checkpoint results and Soda scans run outside dc-bridge into the contract verdict.

A team that runs the checkpoints of `dc-bridge gx init` or the compiled SodaCL itself gets the
verdict `dc-bridge run` would give: the same plan (the same checks left out for check-local lint
errors), the same reading of each result (each engine's `Engine.read_external`, which shares its
run's result reading) and the same fold (`verdict.fold`). Fail closed as in a run: a check whose
result is missing (a model that was not validated, a stale GX project) is `error`.

What a result produced elsewhere cannot carry: failing-value samples (they need the data), and the
value of a failed scalar SQL check from a checkpoint run with GX's SUMMARY result format, which
keeps only "failed" (see docs/gx-project.md).
"""

from __future__ import annotations

from pathlib import Path

from dc_bridge import __version__
from dc_bridge.compiler import compile_for_run
from dc_bridge.contract.model import Contract
from dc_bridge.engines import gx, soda
from dc_bridge.engines.engine import Engine
from dc_bridge.engines.registry import ENGINES
from dc_bridge.engines.results import EngineReport
from dc_bridge.verdict import Verdict, fold


def fold_gx(checkpoint_result, contract: str | Path | Contract) -> Verdict:
    """The contract verdict from GX results: a `CheckpointResult`, an `ExpectationSuiteValidationResult`
    or its JSON (`to_json_dict()`, the files GX stores under uncommitted/validations/), or a list of
    them (one checkpoint per model, as `dc-bridge gx init` creates them).

    Results are joined by each expectation's `meta.dc_bridge.check_id`; expectations without one
    (added to a suite by hand) are ignored. Freshness ages are measured from each validation's run time.
    A model validated more than once counts with its newest validation.
    """
    return fold_external(gx.ENGINE, checkpoint_result, contract)


def fold_soda(scan_results, contract: str | Path | Contract) -> Verdict:
    """The contract verdict from Soda Core v3 scans run outside dc-bridge: the executed
    `soda.scan.Scan` (or several, say one per model) whose SodaCL is the compiled `soda_checks/` files.

    The Scan object is needed, not only `scan.get_scan_results()`: that dict rounds percents to two
    decimals and freshness to milliseconds, and the verdict holds the exact numbers, as a run does.
    """
    return fold_external(soda.ENGINE, scan_results, contract)


def fold_external(engine: Engine, results, contract: str | Path | Contract) -> Verdict:
    """`verdict.fold` of `results` the engine produced outside dc-bridge, with that engine alone
    selected, as `dc-bridge run --engines <engine>` folds. The coverage is that of the engines that
    have such results: a check only another one runs is skipped, as in that run."""
    read = engine.read_external(results)  # results of a type the engine cannot read stop here, before compiling
    compiled = compile_for_run(contract)
    external = read(compiled)
    outside = {name for name, known in ENGINES.items() if known.read_external is not None}
    coverage = {check_id: {e: reason for e, reason in engines.items() if e in outside}
                for check_id, engines in compiled.coverage.items()}
    reports = {model: {engine.name: EngineReport(engine.name, model, external.found[model], 0.0) if model in external.found else
                       EngineReport(engine.name, model, {}, 0.0, error=external.missing)}
               for model in compiled.plan.models}
    versions = {"dc-bridge": __version__, **_version(engine.library)}
    return fold(compiled.plan, reports, coverage, (engine.name,), compiled.invalid, contract_file=compiled.contract.file,
                started_at=external.started_at, versions=versions)


def _version(package: str | None) -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return {package: version(package)} if package else {}
    except PackageNotFoundError:
        return {}
