"""The GX Data Docs site of `dc-bridge run --data-docs DIR`, and the pages of a run in it.

GX builds the site (engines/gx/data_docs.py, through what the GX engine's package exports): the
objects `dc-bridge gx init` writes, in an in-memory context whose only Data Docs site is DIR, each
model's checkpoint run on the run's DataFrames (docs/reports.md). The HTML report links to the
validation pages a run built (`data_docs_pages`); a history store records where they are
(`run_data_docs`), and the history site links to them.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from dc_bridge.compiler import Compiled, safe_name
from dc_bridge.engines import gx
from dc_bridge.verdict import Verdict

# the run name of `dc-bridge run --data-docs` validations: their Data Docs pages are found by it
RUN_NAME = "dc-bridge"


def build_data_docs(spark, frames: dict, compiled: Compiled, directory: str | Path, now: datetime) -> None:
    """Validate each model's DataFrame with its checkpoint and build the site in `directory`, offline and
    with names Windows can store (named as `dc-bridge compile` names its folders). A second GX pass over
    the data: `--data-docs` costs GX's time again."""
    gx.build_data_docs(spark, frames, compiled, directory, now, RUN_NAME, safe_name)


def data_docs_pages(directory: str | Path, contract_id: str, models: list[str], started_at: str | None) -> dict[str, Path]:
    """model -> the validation page `dc-bridge run --data-docs` built for the run that started at
    `started_at` (the verdict's)."""
    return gx.data_docs_pages(directory, contract_id, models, started_at, RUN_NAME, safe_name)


def run_data_docs(directory: str | Path, verdict: Verdict) -> dict:
    """Where the Data Docs of the run of `verdict` are, as a history store records them (absolute paths,
    so a page anywhere can link to them): `index` the site's index, `validations` model -> the validation
    page of its suite this run built."""
    pages = data_docs_pages(directory, verdict.contract_id, [m.name for m in verdict.models], verdict.started_at)
    return {"index": str((Path(directory) / "index.html").resolve()),
            "validations": {model: str(page.resolve()) for model, page in sorted(pages.items())}}
