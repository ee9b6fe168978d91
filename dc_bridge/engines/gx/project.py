"""A contract's compiled suites as the objects of a GX 1.x context, created or brought up to date.

`dc-bridge gx init` writes them into a team's file-context project (integrations/gx_project.py);
`dc-bridge run --data-docs DIR` creates them in memory to build a Data Docs site (data_docs.py).

Per contract: a Spark data source named like the contract, a DataFrame asset and a whole-DataFrame
batch definition per model, the compiled suite of each model, a validation definition per model and
one checkpoint per model that updates Data Docs. One checkpoint per model, not one per contract: GX
1.x hands the same `batch_parameters` to every validation definition of a checkpoint, and a
DataFrame asset takes its DataFrame only from them, so one checkpoint can validate one DataFrame.
A contract with one model has one checkpoint.

Folding into the contract verdict is a Python hook (`dc_bridge.fold_gx`), not a checkpoint action.
GX 1.24 can store a custom `ValidationAction` in a checkpoint's configuration, but loads it only
from a registry that fills when the class's module is imported: a process that has not imported
dc_bridge cannot load that checkpoint, and `context.checkpoints.all()` fails for the whole project
(ValidationActionRegistryRetrievalError). The project must keep working with plain GX.

Re-running updates what dc-bridge created and nothing else: objects are found by name; a suite is
dc-bridge's when its meta has `dc_bridge.contract_id` of this contract. Expectations a user added to
a dc-bridge suite, assets added to its data source, and actions or validation definitions added to
its checkpoints are kept. An object of the same name that dc-bridge did not create is a conflict,
reported before anything is written.

Result format: `summary` (GX's SUMMARY, no unexpected values kept) by default. It keeps failing
values out of the stored validation results and Data Docs and costs no extra Spark jobs, but GX
then reports a failed scalar SQL check (sql_metric, row_count thresholds that are no range) without
its value. `complete` keeps that value and also every unexpected value of every column check.
"""

from __future__ import annotations

import copy
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Callable, Iterable

from dc_bridge.contract.sql import number_text
from dc_bridge.plan import checks as c
from dc_bridge.plan.checks import Check
from dc_bridge.engines.gx.run import COMPLETE, SUMMARY, no_progress_bars, takes_clock
from dc_bridge.engines.gx.translate import cutoff_parameter

BATCH_DEFINITION = "whole dataframe"
DOCS_ACTION = "update_data_docs"
RESULT_FORMATS = {"summary": SUMMARY, "complete": COMPLETE}


class ProjectConflict(Exception):
    """Objects in the GX project that dc-bridge would overwrite but did not create."""


@dataclass(frozen=True)
class Change:
    kind: str      # data source, asset, suite, validation definition, checkpoint
    name: str
    what: str      # created, updated (...), unchanged


def sync(context, contract_id: str, suites: dict[str, dict], result_format: dict, *,
         spark_session: Callable[[], AbstractContextManager]) -> list[Change]:
    """Bring dc-bridge's objects for the contract's compiled `suites` (model -> suite) in `context` up
    to date; returns what changed. GX tests a new Spark data source in a Spark session: it runs
    inside `spark_session()`."""
    from great_expectations.core import ExpectationSuite

    desired = {model: ExpectationSuite(**suite) for model, suite in suites.items()}
    conflicts = _conflicts(context, contract_id, desired)
    if conflicts:
        raise ProjectConflict("; ".join(conflicts))
    changes: list[Change] = []
    source = _data_source(context, contract_id, changes, spark_session)
    for model, suite in desired.items():
        batch_definition = _batch_definition(source, model, changes)
        gx_suite = _suite(context, suite, changes)
        definition = _validation_definition(context, suite.name, batch_definition, gx_suite, changes)
        _checkpoint(context, suite.name, definition, result_format, changes)
    return changes


def file_context(project_dir):
    """The GX file-context project under `project_dir` (GX keeps it in `project_dir/gx`), created if
    missing. GX analytics are off: run.py, imported above, switched them off before GX is imported.
    A project that does not set GX's `progress_bars` gets them off in its configuration, so that the
    team's plain checkpoint runs print no progress bars either; a project that sets them keeps its choice."""
    import great_expectations as gx

    context = gx.get_context(mode="file", project_root_dir=str(project_dir))
    if context.variables.progress_bars is None:
        no_progress_bars(context)
        context.variables.save()
    return context


def expectation_parameters(checks: Iterable[Check], suites: dict[str, dict]) -> dict[str, str]:
    """The run-time suite parameters a checkpoint of `suites` (model -> suite) needs
    (`expectation_parameters=`), with what each holds."""
    return {cutoff_parameter(check): _CUTOFF_TEXTS[type(check.params)](check)
            for check in checks if takes_clock(check) and check.model in suites}


# params class -> what its cut-off parameter holds, as Python a user can paste (engines/gx/run.py `_CUTOFFS`)
_CUTOFF_TEXTS: dict[type, Callable[[Check], str]] = {
    # naive local time is how PySpark hands GX the column's max
    c.Freshness: lambda check: (f"datetime.now() - timedelta(seconds={number_text(check.params.max_age.total_seconds())}), "
                                f"the oldest allowed max({check.column}) (for a date column: its date())"),
    c.Retention: lambda check: (f"datetime.now(timezone.utc) - timedelta(seconds={number_text(check.params.period.total_seconds())}), "
                                f"the oldest {check.column} the table may keep"),
}


def unstorable(names) -> list[str]:
    """Why GX cannot keep each of these suite names in files (one message per bad name). GX's file
    stores turn a suite's name into a path, one folder per dot-separated part: an empty part (a name
    with a leading, trailing or doubled dot, such as a contract id `..`) makes the path absolute or
    folds it into another suite's (`/orders.json`), and GX refuses `/` and `\\` with a traceback."""
    found = []
    for name in names:
        parts = name.split(".")
        if any(not part for part in parts):
            found.append(f"suite name {name!r} has an empty part between dots, which GX would store outside "
                         f"its folder or on top of another suite")
        elif any(ch in name for ch in "/\\\0"):
            found.append(f"suite name {name!r} holds a path separator, which GX cannot store")
    return found


def _conflicts(context, contract_id: str, desired: dict) -> list[str]:
    """What would overwrite an object dc-bridge did not create (checked before anything is written)."""
    found = unstorable(suite.name for suite in desired.values())
    if found:
        return found
    source = context.data_sources.all().get(contract_id)
    if source is not None and source.type != "spark":
        found.append(f"data source {contract_id!r} exists and is a {source.type} data source, not spark")
    for model, suite in desired.items():
        if source is not None and source.type == "spark":
            asset = next((a for a in source.assets if a.name == model), None)
            if asset is not None and asset.type != "dataframe":
                found.append(f"asset {model!r} of data source {contract_id!r} is a {asset.type} asset, not a DataFrame asset")
        existing = _get(context.suites, suite.name)
        if existing is not None and ((existing.meta or {}).get("dc_bridge") or {}).get("contract_id") != contract_id:
            found.append(f"suite {suite.name!r} exists and was not compiled by dc-bridge from this contract")
        definition = _get(context.validation_definitions, suite.name)
        if definition is not None and not _is_ours(definition, suite.name, contract_id, model):
            found.append(f"validation definition {suite.name!r} exists and validates something else")
        try:
            checkpoint = _get(context.checkpoints, suite.name)
        except Exception as exc:  # e.g. an action type no imported module registered
            found.append(f"checkpoint {suite.name!r} cannot be loaded ({type(exc).__name__}: {exc})")
            continue
        if checkpoint is not None and suite.name not in {d.name for d in checkpoint.validation_definitions}:
            found.append(f"checkpoint {suite.name!r} exists and does not run validation definition {suite.name!r}")
    return found


def _get(factory, name: str):
    """The named object of a GX factory, or None (GX raises a different error per factory)."""
    from great_expectations.exceptions import DataContextError

    try:
        return factory.get(name)
    except (DataContextError, KeyError, LookupError):
        return None


def _is_ours(definition, name: str, contract_id: str, model: str) -> bool:
    data = definition.data
    return (definition.suite.name == name and data.name == BATCH_DEFINITION
            and data.data_asset.name == model and data.data_asset.datasource.name == contract_id)


def _data_source(context, name: str, changes: list[Change], spark_session: Callable[[], AbstractContextManager]):
    source = context.data_sources.all().get(name)
    if source is not None:
        changes.append(Change("data source", name, "unchanged"))
        return source
    changes.append(Change("data source", name, "created"))
    with spark_session():
        # persist=False: GX would otherwise cache the caller's DataFrame and never release it
        return context.data_sources.add_spark(name, persist=False)


def _batch_definition(source, model: str, changes: list[Change]):
    asset = next((a for a in source.assets if a.name == model), None)
    if asset is None:
        asset = source.add_dataframe_asset(name=model)
        changes.append(Change("asset", f"{source.name} / {model}", "created"))
    existing = next((b for b in asset.batch_definitions if b.name == BATCH_DEFINITION), None)
    return existing or asset.add_batch_definition_whole_dataframe(BATCH_DEFINITION)


def _suite(context, suite, changes: list[Change]):
    """The compiled suite, keeping expectations a user added to it (they have no dc-bridge check id)."""
    from great_expectations.core import ExpectationSuite

    existing = _get(context.suites, suite.name)
    if existing is None:
        changes.append(Change("suite", suite.name, f"created ({len(suite.expectations)} expectations)"))
        return context.suites.add(suite)
    added = [e for e in existing.expectations if not ((e.meta or {}).get("dc_bridge") or {}).get("check_id")]
    ours = [e for e in existing.expectations if e not in added]
    meta = {**(existing.meta or {}), **suite.meta}
    if _configs(ours) == _configs(suite.expectations) and existing.meta == meta and existing.notes == suite.notes:
        changes.append(Change("suite", suite.name, "unchanged"))
        return existing
    kept = f", kept {len(added)} added by hand" if added else ""
    changes.append(Change("suite", suite.name, f"updated ({len(suite.expectations)} expectations{kept})"))
    # GX refuses expectations that belong to another suite object: the kept ones go in as copies
    updated = ExpectationSuite(name=suite.name, expectations=[*suite.expectations, *(copy.copy(e) for e in added)],
                               meta=meta, notes=suite.notes)
    return context.suites.add_or_update(updated)


def _configs(expectations) -> list[dict]:
    # GX's Expectation equality also weighs fields a store fills in; what dc-bridge compiles is the configuration
    return [{k: v for k, v in e.configuration.to_json_dict().items() if k != "id"} for e in expectations]


def _validation_definition(context, name: str, batch_definition, gx_suite, changes: list[Change]):
    import great_expectations as gx

    existing = _get(context.validation_definitions, name)
    if existing is not None:
        changes.append(Change("validation definition", name, "unchanged"))
        return existing
    changes.append(Change("validation definition", name, "created"))
    return context.validation_definitions.add(gx.ValidationDefinition(name=name, data=batch_definition, suite=gx_suite))


def _checkpoint(context, name: str, definition, result_format: dict, changes: list[Change]) -> None:
    """The model's checkpoint: runs its validation definition and updates Data Docs. A checkpoint
    dc-bridge created earlier keeps whatever a user added (actions, validation definitions, result format)."""
    import great_expectations as gx
    from great_expectations.checkpoint import UpdateDataDocsAction

    existing = _get(context.checkpoints, name)
    if existing is None:
        changes.append(Change("checkpoint", name, "created"))
        context.checkpoints.add(gx.Checkpoint(name=name, validation_definitions=[definition],
                                              actions=[UpdateDataDocsAction(name=DOCS_ACTION)], result_format=result_format))
        return
    if any(isinstance(action, UpdateDataDocsAction) for action in existing.actions):
        changes.append(Change("checkpoint", name, "unchanged"))
        return
    existing.actions = [UpdateDataDocsAction(name=DOCS_ACTION), *existing.actions]
    changes.append(Change("checkpoint", name, "updated (Data Docs action added)"))
    existing.save()
