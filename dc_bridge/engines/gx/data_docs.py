"""The GX Data Docs site of `dc-bridge run --data-docs DIR` (report/data_docs.py), and the pages of a run in it.

The site is the one a GX project with the contract's checkpoints would have (docs/reports.md): the
objects `dc-bridge gx init` writes (project.py) are created in an in-memory context whose only Data
Docs site is DIR, and each model's checkpoint runs on the run's DataFrames.
"""

from __future__ import annotations

from contextlib import nullcontext
from datetime import datetime
from pathlib import Path
from typing import Any

from dc_bridge.engines.gx.project import RESULT_FORMATS, sync
from dc_bridge.engines.gx.translate import suite_name

DOCS_SITE = "dc_bridge"


def build_site(spark, frames: dict, compiled, directory: str | Path, now: datetime, run_name: str) -> dict[str, str]:
    """Validate each model's DataFrame with its checkpoint (as a team's GX project would) and build
    a Data Docs site in `directory`, the validations named `run_name`; returns model -> page URL.
    Runs while the models' temp views are registered (foreign-key expectations read them). GX's own
    pass/fail is what the pages show; the verdict is the run's. This is a second GX pass over the
    data: `--data-docs` costs GX's time again."""
    # first: importing run.py turns GX analytics off before GX itself is imported
    from dc_bridge.engines.gx.run import GX_BATCH_VIEW, clock_parameters
    from dc_bridge.engines.views import temp_views
    from great_expectations.core.run_identifier import RunIdentifier

    suites = compiled.artifacts["gx"]
    context = _docs_context(Path(directory))
    # the run's own session is running, and stays the run's to stop
    sync(context, compiled.plan.contract_id, suites, RESULT_FORMATS["summary"], spark_session=nullcontext)
    run_id = RunIdentifier(run_name=run_name, run_time=now)
    pages = {}
    with temp_views(spark, {}, protect=[GX_BATCH_VIEW]):
        for model, frame in frames.items():
            if model not in suites:
                continue
            checkpoint = context.checkpoints.get(suites[model]["name"])
            parameters = clock_parameters(frame, compiled.plan.for_model(model), now)
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


def validation_pages(directory: str | Path, contract_id: str, models: list[str], started_at: str | None, run_name: str) -> dict[str, Path]:
    """model -> the validation page `build_site` built for the run named `run_name` that started at
    `started_at` (the verdict's), found where GX writes it: validations/<suite name split at dots>/<run name>/<run time>/."""
    from great_expectations.core.run_identifier import RunIdentifier

    if not started_at:
        return {}
    name, run_time = RunIdentifier(run_name=run_name, run_time=datetime.fromisoformat(started_at)).to_tuple()
    pages = {}
    for model in models:
        folder = Path(directory).joinpath("validations", *suite_name(contract_id, model).split("."), name, run_time)
        found = sorted(folder.glob("*.html")) if folder.is_dir() else []
        if found:
            pages[model] = found[0]
    return pages
