"""The GX Data Docs site of `dc-bridge run --data-docs DIR` (report/data_docs.py), and the pages of a run in it.

The site is the one a GX project with the contract's checkpoints would have (docs/reports.md): the
objects `dc-bridge gx init` writes (project.py) are created in an in-memory context whose only Data
Docs site is DIR, and each model's checkpoint runs on the run's DataFrames.

GX writes pages that load their scripts, styles and icon font from CDNs and files named after suite
names, which hold the contract id (`validations/urn:acme:crm:customers/...`). After GX has written the
site, two passes make it a folder that opens anywhere: `_offline` copies the same libraries, shipped in
`site_assets/` (LICENSES.md there), into the site's `static/vendor/` and points every page at them; and
`_portable` renames each file or folder name Windows cannot store (a `:`) by the caller's `safe_name`
(compiler.py's, so a folder is named as `dc-bridge compile` names it) and rewrites the links to it.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable
from contextlib import nullcontext
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

from dc_bridge.engines.gx.project import RESULT_FORMATS, sync
from dc_bridge.paths import write_whole
from dc_bridge.engines.gx.translate import suite_name

DOCS_SITE = "dc_bridge"

# what GX's pages load from the internet (great_expectations/render/view/templates) -> the same release's
# file in site_assets/, copied to the site's static/vendor/
ASSETS: dict[str, str] = {
    "https://code.jquery.com/jquery-3.7.1.min.js": "jquery/jquery.min.js",
    "https://cdnjs.cloudflare.com/ajax/libs/popper.js/1.12.9/umd/popper.min.js": "popper/popper.min.js",
    "https://maxcdn.bootstrapcdn.com/bootstrap/4.3.1/css/bootstrap.min.css": "bootstrap/bootstrap.min.css",
    "https://stackpath.bootstrapcdn.com/bootstrap/4.3.1/js/bootstrap.min.js": "bootstrap/bootstrap.min.js",
    "https://unpkg.com/bootstrap-table@1.19.1/dist/bootstrap-table.min.css": "bootstrap-table/bootstrap-table.min.css",
    "https://unpkg.com/bootstrap-table@1.19.1/dist/bootstrap-table.min.js": "bootstrap-table/bootstrap-table.min.js",
    "https://unpkg.com/bootstrap-table@1.19.1/dist/extensions/filter-control/bootstrap-table-filter-control.min.js":
        "bootstrap-table/bootstrap-table-filter-control.min.js",
    # GX names 1.19.0's filter-control CSS, twice spelled: its rules are 1.19.1's
    "https://unpkg.com/bootstrap-table@1.19.0/dist/extensions/filter-control/bootstrap-table-filter-control.css":
        "bootstrap-table/bootstrap-table-filter-control.min.css",
    "https://unpkg.com/bootstrap-table@1.19.0/dist/extensions/filter-control/bootstrap-table-filter-control.min.css":
        "bootstrap-table/bootstrap-table-filter-control.min.css",
    "https://cdnjs.cloudflare.com/ajax/libs/bootstrap-datepicker/1.9.0/css/bootstrap-datepicker.min.css":
        "bootstrap-datepicker/bootstrap-datepicker.min.css",
    "https://cdnjs.cloudflare.com/ajax/libs/bootstrap-datepicker/1.9.0/js/bootstrap-datepicker.min.js":
        "bootstrap-datepicker/bootstrap-datepicker.min.js",
    "https://cdn.jsdelivr.net/npm/@forevolve/bootstrap-dark@1.1.0/dist/css/bootstrap-prefers-dark.css":
        "bootstrap-dark/bootstrap-prefers-dark.min.css",
    "https://cdnjs.cloudflare.com/ajax/libs/font-awesome/6.6.0/css/all.min.css": "fontawesome/css/all.min.css",
    "https://cdn.jsdelivr.net/npm/vega@5": "vega/vega.min.js",
    "https://cdn.jsdelivr.net/npm/vega-lite@5": "vega/vega-lite.min.js",
    "https://cdn.jsdelivr.net/npm/vega-embed@6": "vega/vega-embed.min.js",
}
_SITE_ASSETS = Path(__file__).with_name("site_assets")
VENDOR = Path("static", "vendor")
# GX's logo, from GX's web server; GX copies its own into every site's static/images (no dark one: the
# dark colour scheme shows the light logo)
_GX_WEB_ASSETS = "https://great-expectations-web-assets.s3.us-east-2.amazonaws.com/"
_GX_IMAGES = {"logo-long.png": "logo-long.png", "full_logo_dark.png": "logo-long.png"}

_URL = re.compile(r"""https?://[^\s"'()<>]+""")
# a link to a page outside the site (GX's home page, its newsletter): the text stays, the address goes
_REMOTE_LINK = re.compile(r"""(<a\b[^>]*?)\s+href=(["'])https?://[^"']*\2""")
# subresource integrity and CORS mode of a CDN tag: a local file needs neither, and Chromium refuses a
# file:// script asked for in CORS mode
_CDN_ATTRIBUTES = re.compile(r"""\s+(?:integrity|crossorigin)=(["'])[^"']*\1""")
# a path of a site page, as GX writes it into a page (an attribute or the index's table data), percent-encoded or not
_PAGE_PATH = re.compile(r"""(?:\.\./)*(?:expectations|validations)/[^\s"'<>?#]+?\.html(?=["'?#\s])""")
# a relative reference to the site's static/ folder: GX counts one `../` too few from a validation page to its favicon
_STATIC = re.compile(r"""(?<=["'])(?:\./|(?:\.\./)+)?static/(?P<rest>[^"'?#]+)(?=["'?#])""")
# what Windows cannot store as a file or folder name: a character it reserves, a trailing dot or space, a device name
_NOT_ON_WINDOWS = re.compile(r'[<>:"|?*\\\x00-\x1f]|[. ]$|^(?:con|prn|aux|nul|com\d|lpt\d)(?:\.|$)', re.IGNORECASE)


def build_site(spark, frames: dict, compiled, directory: str | Path, now: datetime, run_name: str,
               safe_name: Callable[[str, str], str]) -> None:
    """Validate each model's DataFrame with its checkpoint (as a team's GX project would) and build
    a Data Docs site in `directory`, the validations named `run_name`, that opens offline and whose
    names Windows can store (`safe_name`: a name -> one safe file name). Runs while the models' temp
    views are registered (foreign-key expectations read them). GX's own pass/fail is what the pages
    show; the verdict is the run's. This is a second GX pass over the data: `--data-docs` costs GX's
    time again."""
    # first: importing run.py turns GX analytics off before GX itself is imported
    from dc_bridge.engines.gx.run import clock_parameters
    from dc_bridge.engines.gx.metrics import batch_view
    from dc_bridge.engines.views import temp_views
    from great_expectations.core.run_identifier import RunIdentifier

    suites = compiled.artifacts["gx"]
    context = _docs_context(Path(directory))
    # the run's own session is running, and stays the run's to stop
    sync(context, compiled.plan.contract_id, suites, RESULT_FORMATS["summary"], spark_session=nullcontext)
    run_id = RunIdentifier(run_name=run_name, run_time=now)
    with batch_view() as view, temp_views(spark, {}, protect=[view]):
        for model, frame in frames.items():
            if model not in suites:
                continue
            checkpoint = context.checkpoints.get(suites[model]["name"])
            parameters = clock_parameters(frame, compiled.plan.for_model(model), now)
            checkpoint.run(batch_parameters={"dataframe": frame}, expectation_parameters=parameters, run_id=run_id)
    _portable(Path(directory), safe_name)
    _offline(Path(directory))


def _stored(name: str, safe_name: Callable[[str, str], str]) -> str:
    """A file or folder name of the site as it is stored: as GX wrote it, unless Windows cannot store it."""
    return safe_name(name, "page") if _NOT_ON_WINDOWS.search(name) else name


def _portable(site: Path, safe_name: Callable[[str, str], str]) -> None:
    """Every page under expectations/ and validations/ moved to a path Windows can store, and every
    link between pages rewritten to match (the links GX writes are relative: each name changes alone)."""
    for section in ("expectations", "validations"):
        for page in sorted((site / section).rglob("*.html")):
            parts = page.relative_to(site).parts
            stored = site.joinpath(*(_stored(part, safe_name) for part in parts))
            if stored != page:
                stored.parent.mkdir(parents=True, exist_ok=True)
                os.replace(page, stored)
        for folder in sorted((p for p in (site / section).rglob("*") if p.is_dir()), reverse=True):
            if not any(folder.iterdir()):  # a folder emptied by the moves above
                folder.rmdir()

    def link(match: re.Match) -> str:
        path = match.group(0)
        encoded = "%" in path
        parts = [_stored(unquote(part), safe_name) if part != ".." else part for part in path.split("/")]
        return "/".join(quote(part) if encoded else part for part in parts)

    for page in _pages(site):
        text = page.read_text(encoding="utf-8")
        rewritten = _PAGE_PATH.sub(link, text)
        if rewritten != text:
            write_whole(page, rewritten)


def _offline(site: Path) -> None:
    """The libraries GX's pages load from CDNs copied into the site (`ASSETS`), and every page and
    style sheet pointed at them; GX's logo taken from the site's own static/images, and every page's
    reference to static/ counted from where the page is."""
    shutil.copytree(_SITE_ASSETS, site / VENDOR, dirs_exist_ok=True)
    for file in [*_pages(site), *(site / "static" / "styles").glob("*.css")]:
        folder = file.parent

        def local(match: re.Match) -> str:
            url = match.group(0)
            address = url.split("?", 1)[0]
            if address in ASSETS:
                return Path(os.path.relpath(site / VENDOR / ASSETS[address], folder)).as_posix()
            image = _GX_IMAGES.get(address.removeprefix(_GX_WEB_ASSETS)) if address.startswith(_GX_WEB_ASSETS) else None
            if image is not None:
                return Path(os.path.relpath(site / "static" / "images" / image, folder)).as_posix()
            return url  # not a file the site ships: tests/test_data_docs_offline.py finds any such address

        def static(match: re.Match) -> str:
            return Path(os.path.relpath(site / "static" / match.group("rest"), folder)).as_posix()

        text = file.read_text(encoding="utf-8")
        rewritten = _URL.sub(local, _CDN_ATTRIBUTES.sub("", _REMOTE_LINK.sub(r"\1", text)))
        if file.suffix == ".html":
            rewritten = _STATIC.sub(static, rewritten)
        if rewritten != text:
            write_whole(file, rewritten)


def _pages(site: Path) -> list[Path]:
    """The site's HTML pages: the index, the suites' and the validations'."""
    return [site / "index.html", *sorted((site / "expectations").rglob("*.html")), *sorted((site / "validations").rglob("*.html"))]


def _docs_context(directory: Path):
    """An in-memory GX context whose only Data Docs site is `directory`."""
    import great_expectations as gx
    from great_expectations.data_context.types.base import DataContextConfig, InMemoryStoreBackendDefaults

    from dc_bridge.engines.gx.run import no_progress_bars

    site: dict[str, Any] = {
        "class_name": "SiteBuilder",
        "show_how_to_buttons": False,
        "store_backend": {"class_name": "TupleFilesystemStoreBackend", "base_directory": str(directory.resolve())},
        "site_index_builder": {"class_name": "DefaultSiteIndexBuilder"},
    }
    config = DataContextConfig(store_backend_defaults=InMemoryStoreBackendDefaults(init_temp_docs_sites=False),
                               data_docs_sites={DOCS_SITE: site})
    context = gx.get_context(mode="ephemeral", project_config=config)
    no_progress_bars(context)
    return context


def validation_pages(directory: str | Path, contract_id: str, models: list[str], started_at: str | None, run_name: str,
                     safe_name: Callable[[str, str], str]) -> dict[str, Path]:
    """model -> the validation page `build_site` built for the run named `run_name` that started at
    `started_at` (the verdict's), found where GX writes it, each name as `build_site` stored it:
    validations/<suite name split at dots>/<run name>/<run time>/."""
    from great_expectations.core.run_identifier import RunIdentifier

    if not started_at:
        return {}
    name, run_time = RunIdentifier(run_name=run_name, run_time=datetime.fromisoformat(started_at)).to_tuple()
    pages = {}
    for model in models:
        parts = ("validations", *suite_name(contract_id, model).split("."), name, run_time)
        folder = Path(directory).joinpath(*(_stored(part, safe_name) for part in parts))
        found = sorted(folder.glob("*.html")) if folder.is_dir() else []
        if found:
            pages[model] = found[0]
    return pages
