"""GX results produced outside dc-bridge (a team's checkpoints of `dc-bridge gx init`) read as a
run's results: `dc_bridge.fold_gx` folds them (integrations/fold.py).

Results are joined by each expectation's `meta.dc_bridge.check_id`; expectations without one (added
to a suite by hand) are ignored. Freshness ages are measured from each validation's run time. A model
validated more than once counts with its newest validation.
"""

from __future__ import annotations

from datetime import datetime, timezone
from functools import partial
from typing import Iterable

from dc_bridge.engines.engine import ExternalResults
from dc_bridge.engines.results import CheckResult


def reader(checkpoint_result):
    """The reader of `checkpoint_result` over a compiled contract (its type is judged when read, as before)."""
    return partial(read_validations, checkpoint_result)


def read_validations(checkpoint_result, compiled) -> ExternalResults:
    """A `CheckpointResult`, an `ExpectationSuiteValidationResult` or its JSON (`to_json_dict()`, the
    files GX stores under uncommitted/validations/), or a list of them -> the results per model."""
    from dc_bridge.engines.gx.run import read_results

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
    return ExternalResults(found, "no GX validation result of this model was given to fold_gx",
                           started_at=min(run_times).isoformat() if run_times else None)


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
