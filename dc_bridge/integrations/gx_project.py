"""`dc-bridge gx init`: a contract as the objects of a GX 1.x file-context project, which a team then
runs with plain GX; and the Data Docs site of `dc-bridge run --data-docs DIR`, built the same way.

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
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from dc_bridge.compiler import Compiled, compile_for_run
from dc_bridge.contract.model import Contract
from dc_bridge.contract.sql import view_name
from dc_bridge.engines.gx.translate import freshness_parameter

BATCH_DEFINITION = "whole dataframe"
DOCS_ACTION = "update_data_docs"
DOCS_SITE = "dc_bridge"
# the run name of `dc-bridge run --data-docs` validations: their Data Docs pages are found by it
RUN_NAME = "dc-bridge"
RESULT_FORMATS = {
    "summary": {"result_format": "SUMMARY", "partial_unexpected_count": 0},
    "complete": {"result_format": "COMPLETE", "partial_unexpected_count": 0},
}


class ProjectConflict(Exception):
    """Objects in the GX project that dc-bridge would overwrite but did not create."""


@dataclass(frozen=True)
class Change:
    kind: str      # data source, asset, suite, validation definition, checkpoint
    name: str
    what: str      # created, updated (...), unchanged


@dataclass
class InitReport:
    project: Path
    changes: list[Change] = field(default_factory=list)
    checkpoints: dict[str, str] = field(default_factory=dict)     # model -> checkpoint name
    views: dict[str, str] = field(default_factory=dict)           # model -> temp view a foreign key reads
    parameters: dict[str, str] = field(default_factory=dict)      # suite parameter -> what it holds
    left_out: dict[str, str] = field(default_factory=dict)        # check id -> why it has no expectation


def suite_name(contract_id: str, model: str) -> str:
    """The name translate/gx.py gives a model's suite; its validation definition and checkpoint carry it too."""
    return f"{contract_id}.{model}"


def init_project(contract: str | Path | Contract, project_dir: str | Path = ".", result_format: str = "summary") -> InitReport:
    """Create or update the GX project under `project_dir` (GX puts it in `project_dir/gx`)."""
    import dc_bridge.engines.gx.run  # noqa: F401  (GX analytics off before GX is imported)
    import great_expectations as gx

    compiled = compile_for_run(contract)
    context = gx.get_context(mode="file", project_root_dir=str(project_dir))
    report = InitReport(project=Path(context.root_directory), left_out=dict(compiled.invalid))
    report.changes = sync(context, compiled, RESULT_FORMATS[result_format])
    report.checkpoints = {model: suite["name"] for model, suite in compiled.suites.items()}
    report.views = {model: view_name(compiled.plan.contract_id, model) for model in compiled.suites}
    report.parameters = expectation_parameters(compiled)
    return report


def expectation_parameters(compiled: Compiled) -> dict[str, str]:
    """The run-time suite parameters a checkpoint needs (`expectation_parameters=`), with what each holds."""
    # as Python a user can paste: naive local time is how PySpark hands GX the column's max
    return {freshness_parameter(check): f"datetime.now() - timedelta(seconds={check.params.max_age.total_seconds():g}), "
            f"the oldest allowed max({check.column}) (for a date column: its date())"
            for check in compiled.plan.checks if check.kind == "freshness" and check.model in compiled.suites}


def sync(context, compiled: Compiled, result_format: dict) -> list[Change]:
    """Bring dc-bridge's objects for the contract in `context` up to date; returns what changed."""
    from great_expectations.core import ExpectationSuite

    contract_id = compiled.plan.contract_id
    desired = {model: ExpectationSuite(**suite) for model, suite in compiled.suites.items()}
    conflicts = _conflicts(context, contract_id, desired)
    if conflicts:
        raise ProjectConflict("; ".join(conflicts))
    changes: list[Change] = []
    source = _data_source(context, contract_id, changes)
    for model, suite in desired.items():
        batch_definition = _batch_definition(source, model, changes)
        gx_suite = _suite(context, suite, changes)
        definition = _validation_definition(context, suite.name, batch_definition, gx_suite, changes)
        _checkpoint(context, suite.name, definition, result_format, changes)
    return changes


def _conflicts(context, contract_id: str, desired: dict) -> list[str]:
    """What would overwrite an object dc-bridge did not create (checked before anything is written)."""
    found = []
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


def _data_source(context, name: str, changes: list[Change]):
    source = context.data_sources.all().get(name)
    if source is not None:
        changes.append(Change("data source", name, "unchanged"))
        return source
    from dc_bridge.runner.data import get_session

    changes.append(Change("data source", name, "created"))
    # GX starts a Spark session to test a new Spark data source: let it find a quiet one (UI off,
    # logs at ERROR) instead of building its own, and stop it again if this call started it
    spark, created = get_session()
    try:
        # persist=False: GX would otherwise cache the caller's DataFrame and never release it
        return context.data_sources.add_spark(name, persist=False)
    finally:
        if created:
            spark.stop()


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


# ---------------------------------------------------------------------------------------------
# `dc-bridge run --data-docs DIR`: the checkpoints above, in memory, with one Data Docs site at DIR

def build_data_docs(spark, frames: dict, compiled: Compiled, directory: str | Path, now: datetime) -> dict[str, str]:
    """Validate each model's DataFrame with its checkpoint (as a team's GX project would) and build
    a Data Docs site in `directory`; returns model -> page URL. Runs while the models' temp views are
    registered (foreign-key expectations read them). GX's own pass/fail is what the pages show; the
    verdict is the run's. This is a second GX pass over the data: `--data-docs` costs GX's time again."""
    import dc_bridge.engines.gx.run  # noqa: F401  (GX analytics off before GX is imported)
    from great_expectations.core.run_identifier import RunIdentifier

    from dc_bridge.engines.gx.run import GX_BATCH_VIEW, freshness_parameters
    from dc_bridge.engines.views import temp_views

    context = _docs_context(Path(directory))
    sync(context, compiled, RESULT_FORMATS["summary"])
    run_id = RunIdentifier(run_name=RUN_NAME, run_time=now)
    pages = {}
    with temp_views(spark, {}, protect=[GX_BATCH_VIEW]):
        for model, frame in frames.items():
            if model not in compiled.suites:
                continue
            checkpoint = context.checkpoints.get(compiled.suites[model]["name"])
            parameters = freshness_parameters(frame, compiled.plan.for_model(model), now)
            result = checkpoint.run(batch_parameters={"dataframe": frame}, expectation_parameters=parameters, run_id=run_id)
            for key in result.run_results:
                urls = context.get_docs_sites_urls(resource_identifier=key, site_name=DOCS_SITE)
                pages.update({model: urls[0]["site_url"]} if urls and urls[0].get("site_url") else {})
    return pages


def _docs_context(directory: Path):
    """An in-memory GX context whose only Data Docs site is `directory`."""
    import great_expectations as gx
    from great_expectations.data_context.types.base import DataContextConfig, InMemoryStoreBackendDefaults, ProgressBarsConfig

    site: dict[str, Any] = {
        "class_name": "SiteBuilder",
        "show_how_to_buttons": False,
        "store_backend": {"class_name": "TupleFilesystemStoreBackend", "base_directory": str(directory.resolve())},
        "site_index_builder": {"class_name": "DefaultSiteIndexBuilder"},
    }
    config = DataContextConfig(store_backend_defaults=InMemoryStoreBackendDefaults(init_temp_docs_sites=False),
                               data_docs_sites={DOCS_SITE: site})
    context = gx.get_context(mode="ephemeral", project_config=config)
    context.variables.progress_bars = ProgressBarsConfig(globally=False, metric_calculations=False)
    return context


def data_docs_pages(directory: str | Path, contract_id: str, models: list[str], started_at: str | None) -> dict[str, Path]:
    """model -> the validation page `dc-bridge run --data-docs` built for the run that started at
    `started_at` (the verdict's), found where GX writes it: validations/<suite name split at dots>/<run name>/<run time>/."""
    from great_expectations.core.run_identifier import RunIdentifier

    if not started_at:
        return {}
    run_name, run_time = RunIdentifier(run_name=RUN_NAME, run_time=datetime.fromisoformat(started_at)).to_tuple()
    pages = {}
    for model in models:
        folder = Path(directory).joinpath("validations", *suite_name(contract_id, model).split("."), run_name, run_time)
        found = sorted(folder.glob("*.html")) if folder.is_dir() else []
        if found:
            pages[model] = found[0]
    return pages
