"""`dc-bridge site --history STORE --out DIR`: an overview of every contract and a page per contract, from
the history store, as static HTML that opens offline.

- **The overview** (`index.html`) lists every contract with its latest verdict, how long it has failed,
  its anomalies and a strip of its runs by day (the worst outcome of each of the last `STRIP_DAYS` days),
  failing and anomalous first, filterable by owner, domain, tag and status (the contract's own metadata,
  read from the contract file its runs recorded: `meta.py`).
- **A contract page** leads with what needs attention: the checks failing now and since which run, the
  anomalous monitors, then the rest; each check with its description, kind, threshold in the contract's
  words, source line and a chart (`charts.py`), or one line of text for a flat, passing series.
- **Bounded.** A page shows the newest `runs` runs (older ones stay in the store); a contract with many
  checks has them on several pages of about `PAGE_BYTES` (`<contract>.html`, `<contract>.page2.html`, ...).
- **Incremental.** Each contract's pages are keyed by a digest of what they are built from (the window's
  newest and oldest run, the contract file's size and time, this code); a contract whose digest is
  unchanged keeps its pages, so a new run rewrites its contract's pages and the overview only.
- **Offline.** Charts are Vega-Lite specifications drawn in the browser by the Vega libraries the site
  writes once as `assets/vega.js` (from vl-convert-python's bundle), with `assets/site.js`; no page loads
  anything else, and each page's Content-Security-Policy allows scripts from the site's own files only.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import asdict, dataclass, field
from datetime import date, datetime, timedelta, timezone
from functools import cache, lru_cache
from importlib.resources import files
from pathlib import Path
from typing import Mapping

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup, escape

from dc_bridge.compiler import safe_name
from dc_bridge.history.site.charts import MARKS, Run, is_flat, scale_for, shown, spec, spec_text, threshold_words
from dc_bridge.history.site.meta import ContractMeta, check_descriptions, contract_meta
from dc_bridge.history.store import HistoryStore, StoredRun
from dc_bridge.monitors import MonitorVerdict, SeriesKey
from dc_bridge.outcomes import ALL, worst
from dc_bridge.paths import write_whole
from dc_bridge.plan.checks import KINDS
from dc_bridge.report.html import file_href

# the runs a contract page shows by default
DEFAULT_RUNS = 50
# the overview's strip: the worst outcome per day over this many days, from the newest day any contract ran
STRIP_DAYS = 14
# the runs of a contract the overview reads for its strip (a contract run hourly fills 14 days with 336)
STRIP_RUNS = 400
# what one contract page's checks may take, so a page stays small; a check's share is its chart
# specification and its row of cells
PAGE_BYTES = 200_000
CELL_BYTES = 80
CARD_BYTES = 700
# outcome -> the letter a cell shows beside its colour, so an outcome reads without colour too
LETTERS = {"passed": "✓", "warning": "!", "failed": "✗", "error": "E", "not_executable": "–", "skipped": "·"}
# a day of the strip without a run: a mark of its own in a dashed box, so a gap reads as one and not as blank page
NO_RUN = "○"
# a contract's or a check's state, most urgent first: the order the overview and a page list them in
STATES = ("failing", "anomalous", "warning", "passing", "not judged")
# the latest outcome -> the state it makes (an anomaly outranks a pass or a warning, not a failure)
STATE_OF = {"failed": "failing", "error": "failing", "warning": "warning", "passed": "passing"}
# a lifecycle state the newest run recorded -> the lead of the banner on the contract's page (the other states: the
# overview's lifecycle column only)
BANNERS = {"deprecated": "Deprecated", "sunset": "Past its sunset", "retired": "Retired"}
# what the site writes in its folder: anything else there is left alone
OWNED = ("index.html", "contracts", "assets")
# how a page the site wrote begins its title (index.html.j2, contract.html.j2), and what the site's other files
# say in their first line: a file at one of these names without it is another program's
SITE_MARK = "<title>dc-bridge: "
ASSET_MARK = "dc-bridge site"
MANIFEST = "assets/site.json"
# the last line of assets/vega.js: a bundle without it was cut short
VEGA_END = f"\n/* end of the {ASSET_MARK}'s vega bundle */\n"


@dataclass(frozen=True)
class Chart:
    """A chart of a page: the id of its specification's data block, and the specification as JSON text."""
    id: str
    spec: str


@dataclass(frozen=True)
class CheckRow:
    """One check of a contract page: what the newest run knew of it, its state and since when, its outcome
    per run of the window, its chart (None: `flat` says it in words, or it has no number)."""
    check_id: str
    model: str | None
    kind: str | None
    description: str | None
    expected: str | None
    source_line: int | None
    state: str
    since: StoredRun | None
    streak: int
    cells: list[tuple[str, float | None] | None]
    grid: Markup
    chart: Chart | None
    flat: str | None
    monitor: MonitorVerdict | None


@dataclass(frozen=True)
class MonitorRow:
    """A monitor of a contract's own metric (rows, freshness, arrival; a check's number is on its check's
    row): what it said of the newest run that it judged, and its series with the band."""
    key: SeriesKey
    newest: MonitorVerdict
    chart: Chart | None


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


@dataclass(frozen=True)
class Overview:
    """A contract's row of the overview (and what its own page repeats)."""
    contract_id: str
    meta: ContractMeta
    state: str
    latest: StoredRun
    since: str | None
    anomalies: int
    strip: list[tuple[str, str | None]]
    href: str
    # the monitors at `strict` whose anomaly failed the newest run (its checks may all have passed)
    strict: tuple[str, ...] = ()
    # where the contract's text was read from: its file, or the registered text of a fleet run (None: not found)
    source: str | None = None


@dataclass
class Built:
    """What a build wrote: the pages written, the contract pages kept as they were (inputs unchanged)."""
    written: list[Path] = field(default_factory=list)
    unchanged: int = 0


@lru_cache(maxsize=4096)
def when(at: str, form: str = "%Y-%m-%d %H:%M") -> str:
    """A run's time in UTC as the page writes it before its script puts it in the reader's time zone."""
    return datetime.fromisoformat(at).astimezone(timezone.utc).strftime(form) + " UTC"


@cache
def _templates() -> Environment:
    environment = Environment(loader=PackageLoader("dc_bridge.history.site", "templates"), autoescape=True,
                              undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    environment.globals.update(LETTERS=LETTERS, ALL=ALL, STATES=STATES, MARKS=MARKS, NO_RUN=NO_RUN)
    environment.filters["when"] = when
    environment.globals.update(BANNERS=BANNERS, lifecycle_words=lifecycle_words)
    return environment


@cache
def _code_digest() -> str:
    """What the pages' look depends on besides their inputs: the templates, the charts and this module."""
    digest = hashlib.sha256()
    package = files("dc_bridge.history.site")
    for name in ("build.py", "charts.py", "meta.py"):
        digest.update(package.joinpath(name).read_bytes())
    for item in sorted(package.joinpath("templates").iterdir(), key=lambda t: t.name):
        digest.update(item.read_bytes())
    return digest.hexdigest()


def site_files(out: str | Path) -> list[tuple[Path, str]]:
    """The files in `out` at the names the site writes that are there already, each with the mark a file of
    the site holds in its first lines."""
    out = Path(out)
    pages = [out / "index.html", *sorted((out / "contracts").glob("*.html"))]
    assets = [out / "assets" / name for name in ("vega.js", "site.js", "site.json")]
    return [(page, SITE_MARK) for page in pages if page.is_file()] + [(asset, ASSET_MARK) for asset in assets if asset.is_file()]


def build_site(store: HistoryStore, out: str | Path, runs: int = DEFAULT_RUNS, registered: Mapping[str, Path] | None = None) -> Built:
    """Write index.html, contracts/<contract>.html and assets/ under `out`; contract pages whose inputs have
    not changed since the last build are kept, with their overview row (read again only when they change).
    `registered`: `NS/ID@VERSION` -> a file holding that registered text, for the runs of `run --registered`,
    which recorded the label rather than a file (the command fetches them from the project's catalog)."""
    out = Path(out)
    for folder in ("contracts", "assets"):
        (out / folder).mkdir(parents=True, exist_ok=True)
    built = Built()
    _write_assets(out / "assets", built)
    before = _manifest(out)
    manifest: dict[str, dict] = {}
    contracts = store.contracts()
    names = page_names(contracts)
    # the window's runs, newest first: its newest and its oldest key the pages (a prune that cuts into it rebuilds them)
    windows = {contract_id: store.runs(contract_id, limit=runs) for contract_id in contracts}
    newest = {contract_id: window[0] for contract_id, window in windows.items()}
    newest_day = max(_day(run.run_at) for run in newest.values())
    for gone in set(before) - set(contracts):  # a contract pruned from the store whole: its pages go with it
        for page in before[gone].get("pages", ()):
            _remove_page(out / "contracts" / page)
    rows = []
    for contract_id in contracts:
        recorded = store.contract_file(contract_id)
        file = contract_source(recorded, store.path.parent, registered or {})
        first = f"{names[contract_id]}.html"
        fetched = recorded in (registered or {})
        digest = _digest(contract_id, newest[contract_id].run_id, windows[contract_id][-1].run_id, recorded if fetched else file,
                         fetched, runs)
        kept = before.get(contract_id, {})
        if kept.get("digest") == digest and all((out / "contracts" / name).is_file() for name in kept.get("pages", ())):
            rows.append(_overview(contract_id, newest[contract_id], kept["overview"], newest_day, first))
            manifest[contract_id] = kept
            built.unchanged += 1
            continue
        recent = store.runs(contract_id, limit=max(runs, STRIP_RUNS))
        window = list(reversed(recent[:runs]))
        monitors = store.monitor_outcomes([run.run_id for run in window])
        latest_monitors = [said for (run_id, _), said in monitors.items() if run_id == window[-1].run_id]
        cached = {"meta": asdict(contract_meta(file)), "state": _state(window[-1].outcome, latest_monitors),
                  "since": _failing_since(window), "anomalies": sum(m.outcome == "anomalous" for m in latest_monitors),
                  "days": _days(recent), "source": file,
                  "strict": sorted(m.monitor_id for m in latest_monitors if m.outcome == "anomalous" and m.severity == "strict")}
        overview = _overview(contract_id, window[-1], cached, newest_day, first)
        rows.append(overview)
        pages = _contract_pages(store, overview, window, monitors, file, recorded, fetched, first, out / "contracts")
        for name, text in pages:
            write_whole(out / "contracts" / name, text)
            built.written.append(out / "contracts" / name)
        for stale in set(kept.get("pages", ())) - {name for name, _ in pages}:
            _remove_page(out / "contracts" / stale)
        manifest[contract_id] = {"digest": digest, "pages": [name for name, _ in pages], "overview": cached}
    rows.sort(key=lambda row: (STATES.index(row.state), row.contract_id))
    index = _templates().get_template("index.html.j2").render(
        contracts=rows, counts=Counter(row.state for row in rows), owners=_choices(r.meta.owner for r in rows),
        domains=_choices(r.meta.domain for r in rows), tags=_choices(t for r in rows for t in r.meta.tags),
        days=[day for day, _ in rows[0].strip] if rows else [], newest_day=newest_day.isoformat())
    write_whole(out / "index.html", index)
    built.written.insert(0, out / "index.html")
    write_whole(out / MANIFEST, json.dumps({"generator": ASSET_MARK, "contracts": manifest}, indent=0, sort_keys=True))
    return built


def _overview(contract_id: str, latest: StoredRun, cached: dict, newest_day: date, first: str) -> Overview:
    """A contract's overview row from what its last build recorded (`cached`, as the manifest keeps it)."""
    meta = ContractMeta(**{**cached["meta"], "tags": tuple(cached["meta"]["tags"])})
    days = [(newest_day - timedelta(days=back)).isoformat() for back in range(STRIP_DAYS - 1, -1, -1)]
    return Overview(contract_id, meta, cached["state"], latest, cached["since"], cached["anomalies"],
                    [(day, cached["days"].get(day)) for day in days], f"contracts/{first}", tuple(cached.get("strict", ())),
                    cached.get("source"))


def contract_source(recorded: str | None, store_folder: Path, registered: Mapping[str, Path]) -> str | None:
    """Where the contract's text is read from: the file its newest run recorded (a relative path, as older stores
    kept it, from the working folder or else the store's folder), or the registered text of a fleet run's label."""
    if recorded is None:
        return None
    if recorded in registered:
        return str(registered[recorded])
    path = Path(recorded)
    if path.is_absolute() or path.is_file():
        return recorded
    beside = store_folder / path
    return str(beside) if beside.is_file() else recorded


def lifecycle_words(run: StoredRun) -> str:
    """What `run` recorded of its version's life besides the state (store.py `lifecycle_columns`), in words: the sunset
    date and how far it was from the run, the successor ("" where it recorded neither)."""
    parts = []
    if run.lifecycle_sunset:
        days = run.lifecycle_days_to_sunset
        parts.append(f"sunset {run.lifecycle_sunset[:10]}" + ("" if days is None else " (the day of the run)" if days == 0 else
                     f" ({abs(days)} day{'s' * (abs(days) != 1)} {'after' if days > 0 else 'before'} the run)"))
    if run.lifecycle_successor:
        parts.append(f"successor {run.lifecycle_successor}")
    return ", ".join(parts)


def _day(at: str) -> date:
    return datetime.fromisoformat(at).astimezone(timezone.utc).date()


def page_names(contract_ids: list[str]) -> dict[str, str]:
    """contract id -> the file name (without `.html`) of its page: `safe_name`'s, unless another id's is the
    same but for case (`a b` and `a_b`, `A.b` and `a.b`; one would replace the other's page, on a file system
    that ignores case too): then each of them ends in a hash of its id."""
    names = {contract_id: safe_name(contract_id, "contract") for contract_id in contract_ids}
    shared = Counter(name.casefold() for name in names.values())
    return {contract_id: f"{name}-{hashlib.sha256(contract_id.encode('utf-8', 'surrogatepass')).hexdigest()[:8]}"
            if shared[name.casefold()] > 1 else name for contract_id, name in names.items()}


def _state(outcome: str, monitors) -> str:
    """A contract's or a check's state from its latest outcome and what its monitors said of that run."""
    state = STATE_OF.get(outcome, "not judged")
    if state != "failing" and any(m.outcome == "anomalous" for m in monitors):
        return "anomalous"
    return state


def _failing_since(window: list[StoredRun]) -> str | None:
    """When the contract's current run of failures began (the first failing run of the window's last streak)."""
    streak = _streak([run.outcome for run in window], ("failed", "error"))
    return window[-streak].run_at if streak else None


def _streak(outcomes: list[str | None], kinds: tuple[str, ...]) -> int:
    """How many of the last outcomes are of `kinds`, back from the newest."""
    count = 0
    for outcome in reversed(outcomes):
        if outcome not in kinds:
            break
        count += 1
    return count


def _days(runs: list[StoredRun]) -> dict[str, str]:
    """day (UTC) -> the worst outcome of the contract's runs that day, for the STRIP_DAYS days up to its newest run."""
    by_day: dict[str, list[str]] = {}
    for run in runs:
        by_day.setdefault(_day(run.run_at).isoformat(), []).append(run.outcome)
    first = (_day(runs[0].run_at) - timedelta(days=STRIP_DAYS - 1)).isoformat()
    return {day: worst(outcomes) for day, outcomes in by_day.items() if day >= first}


def _choices(values) -> list[str]:
    return sorted({v for v in values if v}, key=str.casefold)


def _digest(contract_id: str, newest: str, oldest: str, file: str | None, fetched: bool, runs: int) -> str:
    """What a contract's pages are built from: the window's newest and oldest run (a prune that cuts into the window
    changes the oldest), its contract text (its file's size and time; a registered text, `fetched`, is fixed by its
    label), the window and this code; pages whose digest is unchanged are kept."""
    stat = Path(file).stat() if file and not fetched and Path(file).is_file() else None
    inputs = [_code_digest(), contract_id, runs, newest, oldest, file, fetched, (stat.st_size, stat.st_mtime_ns) if stat else None]
    return hashlib.sha256(json.dumps(inputs).encode("utf-8", "surrogatepass")).hexdigest()


def _manifest(out: Path) -> dict[str, dict]:
    """The digests and pages of the last build, from assets/site.json (nothing when there is none or it is not ours)."""
    try:
        found = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return found.get("contracts", {}) if isinstance(found, dict) and found.get("generator") == ASSET_MARK else {}


def _remove_page(page: Path) -> None:
    """A page the last build wrote that this one does not (a contract with fewer checks): removed if it is the site's."""
    if page.is_file() and SITE_MARK in page.read_text(encoding="utf-8", errors="replace")[:4096]:
        page.unlink()


def _write_assets(assets: Path, built: Built) -> None:
    """assets/site.js (the page's own script) and assets/vega.js (Vega, Vega-Lite and vega-embed, bundled by
    vl-convert-python), each written only when it differs from the file there."""
    import vl_convert

    script = files("dc_bridge.history.site").joinpath("templates", "site.js").read_text(encoding="utf-8")
    _write_if_changed(assets / "site.js", script, built)
    header = (f"/* {ASSET_MARK}: vega {vl_convert.get_vega_version()}, vega-lite {vl_convert.get_vegalite_versions()[-1]}, "
              f"vega-embed {vl_convert.get_vega_embed_version()} (vl-convert-python {vl_convert.__version__}) */\n")
    vega = assets / "vega.js"
    if vega.is_file() and _bundle_of(vega, header):
        return
    write_whole(vega, header + vl_convert.javascript_bundle() + VEGA_END)
    built.written.append(vega)


def _bundle_of(vega: Path, header: str) -> bool:
    """Whether assets/vega.js is the whole bundle of these versions: its first line `header`, its last VEGA_END (a file
    an earlier dc-bridge left cut short, without that line, is written again)."""
    with vega.open("rb") as existing:
        if existing.readline() != header.encode("utf-8"):
            return False
        end = VEGA_END.encode("utf-8")
        existing.seek(max(0, vega.stat().st_size - len(end)))
        return existing.read() == end


def _write_if_changed(path: Path, text: str, built: Built) -> None:
    if not path.is_file() or path.read_text(encoding="utf-8", errors="replace") != text:
        write_whole(path, text)
        built.written.append(path)


def _contract_pages(store: HistoryStore, overview: Overview, window: list[StoredRun],
                    monitors: dict[tuple[str, SeriesKey], MonitorVerdict], file: str | None, recorded: str | None, fetched: bool,
                    first: str, out_dir: Path) -> list[tuple[str, str]]:
    """(file name, page) of the contract's pages, `first` the first: its checks, most urgent first, each with
    its outcome per run of the window and its chart; its monitors; compliance, the runs' Data Docs and the
    contract text on the first page (in `out_dir`)."""
    run_ids = [r.run_id for r in window]
    newest = {c["check_id"]: c for c in store.checks(window[-1].run_id)}
    table = store.outcomes(run_ids)
    described = check_descriptions(file)
    rows = [_check_row(check_id, newest.get(check_id, {}), described.get(check_id), window, table[check_id], monitors)
            for check_id in table]
    rows.sort(key=lambda r: (STATES.index(r.state), r.model or "", r.check_id))
    compliance = [Compliance(r.check_id, sum(c is not None and c[0] == "passed" for c in r.cells),
                             sum(c is not None and c[0] in ("passed", "failed") for c in r.cells))
                  for r in rows if r.kind in KINDS and KINDS[r.kind].from_history]
    compliance += [Compliance(name, met, judged) for name, met, judged in store.objective_compliance(run_ids)]
    own = _monitor_rows(window, monitors)
    docs = _run_docs(window, out_dir)
    text = _contract_text(file)
    groups = _pages(rows)
    names = [first] + [first.replace(".html", f".page{number}.html") for number in range(2, len(groups) + 1)]
    newest_checks = list(newest.values())
    template = _templates().get_template("contract.html.j2")
    return [(name, template.render(c=overview, runs=window, rows=group, compliance=compliance if number == 1 else None,
                                   monitors=own if number == 1 else None, docs=docs if number == 1 else None,
                                   lines=text if number == 1 else None, file=recorded, registered=fetched,
                                   first=first, page=number, pages=names, sources=_sources(overview.latest.data_source),
                                   has_text=text is not None, checks=len(rows), attention=[r for r in rows if r.state != "passing"
                                                                                          and r.state != "not judged"],
                                   newest_checks=len(newest_checks)))
            for number, (name, group) in enumerate(zip(names, groups), 1)]


def _check_row(check_id: str, known: dict, description: str | None, window: list[StoredRun], by_run: dict, monitors: dict) -> CheckRow:
    """A check's row: its cells per run, its state and streak, its chart or the sentence that replaces it."""
    cells = [by_run.get(run.run_id) for run in window]
    model = known.get("model")
    key = SeriesKey("check", model or "", check_id)
    said = [monitors.get((run.run_id, key)) for run in window]
    judged = [m for m in said if m is not None]
    outcomes = [cell[0] if cell else None for cell in cells]
    latest = next((o for o in reversed(outcomes) if o is not None), "not_executable")
    state = _state(latest, [judged[-1]] if judged and said[-1] is not None else [])
    kinds = ("failed", "error") if state == "failing" else (latest,)
    streak = _streak(outcomes, kinds)
    since = window[-streak] if streak else None
    points = [Run(run.run_at, cell[1], cell[0], m.lower if m else None, m.upper if m else None, bool(m and m.outcome == "anomalous"))
              for run, cell, m in zip(window, cells, said) if cell and cell[1] is not None]
    chart, flat = None, None
    if points and is_flat(points):
        scale = scale_for(known.get("unit"), [p.value for p in points])
        flat = f"{shown(points[0].value, scale)} in each of the {len(points)} runs with a number, passed every time"
    elif points:
        chart = Chart(f"chart-{hashlib.sha256(check_id.encode('utf-8', 'surrogatepass')).hexdigest()[:12]}",
                      spec_text(spec(check_id, points, known.get("unit"), known.get("expected"))))
    return CheckRow(check_id, model, known.get("kind"), description, threshold_words(known.get("expected"), known.get("unit")),
                    known.get("source_line"),
                    state, since, streak, cells, _grid(cells), chart, flat, judged[-1] if judged else None)


def _grid(cells: list[tuple[str, float | None] | None]) -> Markup:
    """A check's cells of the per-run table, one per run: the outcome as class, attribute and letter, the number
    in the title. Made here rather than in the template: a page holds thousands of them."""
    return Markup("".join('<td class="cell"></td>' if cell is None else _cell(*cell) for cell in cells))


@lru_cache(maxsize=4096)
def _cell(outcome: str, observed: float | None) -> str:
    title = outcome if observed is None else f"{outcome}: {observed}"
    return f'<td class="cell o-{escape(outcome)}" data-outcome="{escape(outcome)}" title="{escape(title)}">{escape(LETTERS.get(outcome, "?"))}</td>'



def _monitor_rows(window: list[StoredRun], monitors: dict[tuple[str, SeriesKey], MonitorVerdict]) -> list[MonitorRow]:
    """The contract's own metrics' monitors (a check's number is charted on its check), anomalous first."""
    keys = sorted({key for (_, key) in monitors if key.metric != "check"}, key=lambda k: (k.metric, k.model, k.subject))
    found = []
    for key in keys:
        said = [(run, monitors.get((run.run_id, key))) for run in window]
        judged = [(run, m) for run, m in said if m is not None]
        points = [Run(run.run_at, m.observed, None, m.lower, m.upper, m.outcome == "anomalous") for run, m in judged if m.observed is not None]
        chart = (Chart(f"monitor-{hashlib.sha256(key.monitor_id.encode('utf-8', 'surrogatepass')).hexdigest()[:12]}",
                       spec_text(spec(key.monitor_id, points, judged[-1][1].unit))) if points else None)
        found.append(MonitorRow(key, judged[-1][1], chart))
    return sorted(found, key=lambda row: (row.newest.outcome != "anomalous", row.key.metric, row.key.model))


def _pages(rows: list[CheckRow]) -> list[list[CheckRow]]:
    """The rows in order, cut into pages whose charts and cells take at most PAGE_BYTES (a row is never split)."""
    pages: list[list[CheckRow]] = [[]]
    taken = 0
    for row in rows:
        size = len(row.chart.spec if row.chart else "") + CELL_BYTES * len(row.cells) + CARD_BYTES
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


def _sources(data_source: str | None) -> list[tuple[str, str]] | None:
    """The run's data sources as (model, source) pairs, as the page lists them; the text as one pair where it is no
    JSON object (a store written before sources were kept per model); None where none was recorded."""
    if not data_source:
        return None
    try:
        found = json.loads(data_source)
    except ValueError:
        return [("", data_source)]
    return [(str(model), str(source)) for model, source in found.items()] if isinstance(found, dict) else [("", data_source)]
