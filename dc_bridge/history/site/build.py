"""`dc-bridge site --history STORE --out DIR`: an index of contracts and a page per contract, from the
history store, as static HTML that opens offline.

Every page is bounded whatever the history holds: a contract page shows the newest `runs` runs (the
window; older runs stay in the store and in SQL), the index the newest `TREND` outcomes per contract;
a contract with many checks has its checks on several pages of at most about `PAGE_BYTES` each
(`<contract>.html`, then `<contract>.page2.html`, ...), the first with the SLOs and the contract's text.
The store is read with one query per question over the window, never whole. A run of the window that
built GX Data Docs (`run --data-docs DIR --history STORE`) is linked to them: relative links from the
contract page to the files, so the two open offline together (a file: URL when no relative path joins
them, as between Windows drives; never a network address).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from jinja2 import Environment, PackageLoader, StrictUndefined

from dc_bridge.compiler import safe_name
from dc_bridge.history.site.charts import observed_svg
from dc_bridge.history.store import HistoryStore, StoredRun
from dc_bridge.outcomes import ALL
from dc_bridge.plan.checks import KINDS
from dc_bridge.report.html import file_href

# the runs a contract page shows by default, and the outcomes of the index's trend
DEFAULT_RUNS = 50
TREND = 20
# what one contract page's checks may take, so a page stays small (tested: every page under 300 kB); a
# check's share is its chart and its row of cells, so many checks or a long window spread over more pages
PAGE_BYTES = 200_000
CELL_BYTES = 80
# outcome -> the letter a cell shows beside its colour, so an outcome reads without colour too
LETTERS = {"passed": "✓", "warning": "!", "failed": "✗", "error": "E", "not_executable": "–", "skipped": "·"}


@dataclass(frozen=True)
class CheckRow:
    """One check of a contract page: what the newest run knew of it, its outcome per run of the window, its chart."""
    check_id: str
    model: str | None
    kind: str | None
    source_line: int | None
    cells: list[tuple[str, float | None] | None]
    chart: str | None


@dataclass(frozen=True)
class Compliance:
    """An SLO or service level over the window: in how many of the runs that judged it, it passed."""
    name: str
    met: int
    judged: int


@dataclass(frozen=True)
class DocsLink:
    """A Data Docs page of a run: what it is (`index`, or the model whose validation page it is), the
    link from the contract page, None when the file is no longer where the run wrote it."""
    name: str
    href: str | None
    path: str


@dataclass(frozen=True)
class RunDocs:
    """The Data Docs a run of the window built: the run's column number on the page, its time, its pages."""
    number: int
    run_at: str
    links: list[DocsLink]


@cache
def _templates() -> Environment:
    environment = Environment(loader=PackageLoader("dc_bridge.history.site", "templates"), autoescape=True,
                              undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    environment.globals.update(LETTERS=LETTERS, ALL=ALL)
    return environment


# what the site writes in its folder: anything else there is left alone
OWNED = ("index.html", "contracts")
# how a page the site wrote begins its title (index.html.j2, contract.html.j2): a page without it is another program's
SITE_MARK = "<title>dc-bridge: "


def site_pages(out: str | Path) -> list[Path]:
    """The files in `out` at the names the site writes (index.html, contracts/*.html) that are there already."""
    out = Path(out)
    return [page for page in [out / "index.html", *sorted((out / "contracts").glob("*.html"))] if page.is_file()]


def build_site(store: HistoryStore, out: str | Path, runs: int = DEFAULT_RUNS) -> list[Path]:
    """Write index.html and contracts/<contract>.html under `out`; the pages written."""
    out = Path(out)
    (out / "contracts").mkdir(parents=True, exist_ok=True)
    index, written = [], []
    contracts = store.contracts()
    names = page_names(contracts)
    for contract_id in contracts:
        window = store.runs(contract_id, limit=runs)
        page = Path("contracts") / f"{names[contract_id]}.html"
        index.append({"contract_id": contract_id, "latest": window[0], "trend": [r.outcome for r in reversed(window[:TREND])],
                      "href": page.as_posix()})
        for name, text in _contract_pages(store, contract_id, list(reversed(window)), page.name, out / "contracts"):
            (out / "contracts" / name).write_text(text, encoding="utf-8")
            written.append(out / "contracts" / name)
    (out / "index.html").write_text(_templates().get_template("index.html.j2").render(contracts=index), encoding="utf-8")
    return [out / "index.html", *written]


def page_names(contract_ids: list[str]) -> dict[str, str]:
    """contract id -> the file name (without `.html`) of its page: `safe_name`'s, unless another id's is the
    same but for case (`a b` and `a_b`, `A.b` and `a.b`; one would replace the other's page, on a file system
    that ignores case too): then each of them ends in a hash of its id."""
    names = {contract_id: safe_name(contract_id, "contract") for contract_id in contract_ids}
    shared = Counter(name.casefold() for name in names.values())
    return {contract_id: f"{name}-{hashlib.sha256(contract_id.encode('utf-8', 'surrogatepass')).hexdigest()[:8]}"
            if shared[name.casefold()] > 1 else name for contract_id, name in names.items()}


def _contract_pages(store: HistoryStore, contract_id: str, window: list[StoredRun], first: str,
                    out_dir: Path) -> list[tuple[str, str]]:
    """(file name, page) of the contract's pages, `first` the first: the window's runs oldest first, each
    check's outcome per run and a chart per check with numbers, the checks spread over pages of about
    PAGE_BYTES; compliance, the runs' Data Docs and the contract text on the first page (in `out_dir`)."""
    newest = {c["check_id"]: c for c in store.checks(window[-1].run_id)}
    table = store.outcomes([r.run_id for r in window])
    rows = []
    for check_id in sorted(table, key=lambda c: (newest.get(c, {}).get("model") or "", c)):
        cells = [table[check_id].get(run.run_id) for run in window]
        points = [(run.run_at, cell[1], cell[0]) for run, cell in zip(window, cells) if cell and cell[1] is not None]
        known = newest.get(check_id, {})
        rows.append(CheckRow(check_id, known.get("model"), known.get("kind"), known.get("source_line"), cells,
                             observed_svg(check_id, points) if points else None))
    compliance = [Compliance(r.check_id, sum(c is not None and c[0] == "passed" for c in r.cells),
                             sum(c is not None and c[0] in ("passed", "failed") for c in r.cells))
                  for r in rows if r.kind in KINDS and KINDS[r.kind].from_history]
    compliance += [Compliance(name, met, judged) for name, met, judged in store.objective_compliance([r.run_id for r in window])]
    docs = _run_docs(window, out_dir)
    file = store.contract_file(contract_id)
    text = _contract_text(file)
    groups = _pages(rows)
    names = [first] + [first.replace(".html", f".page{number}.html") for number in range(2, len(groups) + 1)]
    template = _templates().get_template("contract.html.j2")
    return [(name, template.render(contract_id=contract_id, runs=window, rows=group, compliance=compliance if number == 1 else None,
                                   docs=docs if number == 1 else None, lines=text if number == 1 else None, file=file, first=first, page=number, pages=names,
                                   has_text=text is not None, checks=len(rows)))
            for number, (name, group) in enumerate(zip(names, groups), 1)]


def _pages(rows: list[CheckRow]) -> list[list[CheckRow]]:
    """The rows in order, cut into pages whose charts and cells take at most PAGE_BYTES (a row is never split)."""
    pages: list[list[CheckRow]] = [[]]
    taken = 0
    for row in rows:
        size = len(row.chart or "") + CELL_BYTES * len(row.cells)
        if pages[-1] and taken + size > PAGE_BYTES:
            pages.append([])
            taken = 0
        pages[-1].append(row)
        taken += size
    return pages


def _run_docs(window: list[StoredRun], page_dir: Path) -> list[RunDocs]:
    """The runs of the window (oldest first, numbered as the page's columns) that recorded Data Docs, each
    page linked from `page_dir`."""
    return [RunDocs(number, run.run_at, [_docs_link("index", run.data_docs["index"], page_dir),
                                         *(_docs_link(f"{model} validation", path, page_dir)
                                                                   for model, path in run.data_docs["validations"].items())])
            for number, run in enumerate(window, 1) if run.data_docs]


def _docs_link(name: str, path: str, page_dir: Path) -> DocsLink:
    """A link from `page_dir` to a Data Docs file: relative, so the site and the Data Docs open offline from
    wherever they are together; a file: URL where no relative path joins them (another drive)."""
    if not Path(path).is_file():
        return DocsLink(name, None, path)
    try:
        return DocsLink(name, file_href(path, page_dir), path)
    except ValueError:  # os.path.relpath: paths on different drives
        return DocsLink(name, file_href(path, None), path)


def _contract_text(file: str | None) -> list[str] | None:
    """The contract's lines, to link each check to its source line; None when the file is gone."""
    if file is None or not Path(file).is_file():
        return None
    return Path(file).read_text(encoding="utf-8", errors="replace").splitlines()
