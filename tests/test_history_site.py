"""The site of `dc-bridge site` (dc_bridge/history/site, docs/history.md "The site"), built from real history
stores: every page parses and references nothing on the network but the site's own two scripts (a CSP that
allows scripts from the site's files only); the overview lists contracts failing first, then anomalous, with
their owner, domain and tags from the contract file and a strip of runs by day; a contract page leads with
its failing checks (since which run), then anomalies, then the rest; a chart's specification carries the
threshold and the monitor's band in the units a person reads, a flat passing series is a line of text; a
rebuild after one new run rewrites that contract's pages and the overview only; and the edges: an empty
store, a file that is not a store, a store of a newer schema. A real run of `run --data-docs DIR --history
STORE` is linked from its contract page to the Data Docs it built.

The same pages opened in headless Chromium with the network refused: tests/test_history_site_browser.py."""

from __future__ import annotations

import json
import re
import sqlite3
from datetime import datetime, timedelta, timezone
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote

import pytest
from click.testing import CliRunner

from dc_bridge.cli import main
from dc_bridge.history import HistoryStore
from dc_bridge.monitors import MonitorVerdict
from dc_bridge.runner.history import run_record
from dc_bridge.verdict import CheckVerdict, ModelVerdict, ObjectiveVerdict, Verdict

pytest.importorskip("vl_convert")

START = datetime(2026, 3, 1, 6, tzinfo=timezone.utc)
RUNS = 30
# the run from which `amount_max` fails (the last 4 of 30), and the run whose row count is anomalous
FAILS_FROM, ANOMALY = 26, 29


CONTRACT = """\
apiVersion: v3.1.0
kind: DataContract
id: {id}
name: {title}
version: 1.0.0
status: active
domain: {domain}
tags: {tags}
team:
  name: {owner}
schema:
  - name: orders
    properties:
      - name: id
        logicalType: string
        required: true
    quality:
      - id: amount_max
        description: at least 800 orders a day
        metric: rowCount
        mustBeGreaterThanOrEqualTo: 800
"""


def contract_file(folder: Path, contract_id: str, owner: str = "checkout", domain: str = "sales", tags=("gold",)) -> Path:
    """An ODCS contract file naming its owner (team), domain and tags, with a described quality rule."""
    path = folder / f"{re.sub(r'[^a-z0-9]+', '-', contract_id)}.yaml"
    path.write_text(CONTRACT.format(id=json.dumps(contract_id), title=json.dumps(f"{contract_id} title"), owner=owner, domain=domain, tags=json.dumps(list(tags))))
    return path


def demo_verdict(file: Path, contract_id: str, number: int, failing: bool = True, anomalous: bool = True) -> Verdict:
    """Run `number` of a contract with three checks: `amount_max` (a value that drops under its
    threshold `>= 800` from run FAILS_FROM when `failing`, its monitor's band around it), `orders.id.required`
    (0 rows every run: flat and passing), `orders.loaded.age` (a freshness in seconds, about a day), and a
    monitor of the orders' rows that says `anomalous` of run ANOMALY when `anomalous`."""
    fails = failing and number >= FAILS_FROM
    value = 1000.0 + 10 * (number % 5) - (600 if fails else 0)
    checks = [
        CheckVerdict(check_id="amount_max", model="orders", kind="row_count", columns=[], outcome="failed" if fails else "passed",
                     severity="error", observed=value, expected=">= 800", 
                     source={"file": str(file), "path": "schema[0].quality[0]", "line": 19}),
        CheckVerdict(check_id="orders.id.required", model="orders", kind="not_null", columns=["id"], outcome="passed", severity="error",
                     observed=0.0, expected="= 0", unit="rows", source={"file": str(file), "path": "schema[0].properties[0]", "line": 14}),
        CheckVerdict(check_id="orders.loaded.age", model="orders", kind="freshness", columns=["loaded"], outcome="passed", severity="error",
                     observed=3600.0 * (20 + number % 3), expected="<= 172800", unit="seconds",
                     source={"file": str(file), "path": "schema[0]", "line": 12})]
    monitors = [
        MonitorVerdict(monitor_id="check(amount_max)", metric="check", model="orders", subject="amount_max",
                       outcome="anomalous" if fails else "normal", unit="value", direction="both", observed=value, centre=1020.0,
                       lower=990.0, upper=1050.0, points=number, sentence=f"value {value:g} is outside the expected 990-1,050"),
        MonitorVerdict(monitor_id="rows(orders)", metric="rows", model="orders",
                       outcome="anomalous" if anomalous and number == ANOMALY else "normal", unit="rows", direction="both",
                       observed=5000.0 - (2500 if anomalous and number == ANOMALY else 0) + number, centre=5000.0, lower=4800.0,
                       upper=5200.0, points=number, sentence="rows 2,529 are below the expected 4,800-5,200" if number == ANOMALY
                       else "rows within the expected band")]
    outcome = "failed" if fails else "passed"
    return Verdict(contract_id=contract_id, contract_version="1.0.0", contract_file=str(file), outcome=outcome, counts={},
                   models=[ModelVerdict(name="orders", outcome=outcome, counts={}, checks=checks)], engines=["spark"],
                   objectives=[ObjectiveVerdict(objective_id="dq", outcome="passed" if number % 2 else "failed", value=99.0,
                                                target=99.5, expected=">= 99.5%", source={})],
                   monitors=monitors, data_sources={"orders": "/lake/orders.parquet"}, where="region = 'EU'")


def record(store: HistoryStore, verdict: Verdict, at: datetime) -> str:
    return store.append(run_record(verdict, ["orders"], at), verdict)


@pytest.fixture
def store(tmp_path) -> HistoryStore:
    """Three contracts of 30 daily runs: `demo` fails since run 26 and its rows are anomalous in the newest
    run; `calm` passes throughout (no anomaly); `odd` passes but its rows are anomalous."""
    store = HistoryStore(tmp_path / "history.db")
    files = {"demo": contract_file(tmp_path, "demo"), "calm": contract_file(tmp_path, "calm", owner="finance", domain="billing", tags=("silver", "pii")),
             "odd <contract>": contract_file(tmp_path, "odd <contract>", owner="checkout", tags=())}
    for number in range(RUNS):
        at = START + timedelta(days=number)
        record(store, demo_verdict(files["demo"], "demo", number), at)
        record(store, demo_verdict(files["calm"], "calm", number, failing=False, anomalous=False), at)
        record(store, demo_verdict(files["odd <contract>"], "odd <contract>", number, failing=False), at)
    return store


class Page(HTMLParser):
    """What a test asks of a page: URL-bearing attributes, scripts, ids, checks (card or line) in order,
    chart specifications, the overview's rows."""

    def __init__(self, text: str):
        super().__init__()
        self.urls, self.scripts, self.ids, self.rows, self.charts, self.flat = [], [], set(), [], {}, []
        self.contracts, self.failed, self.anchors, self.columns = [], [], [], []
        self._row = self._block = self._figure = None
        self._in_th = False
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for name in ("src", "href", "xlink:href", "action", "data"):
            if attrs.get(name):
                self.urls.append(attrs[name])
        if "id" in attrs:
            self.ids.add(attrs["id"])
        if tag == "script":
            self.scripts.append(attrs.get("src") or attrs.get("type"))
            self._block = attrs.get("id")
        if tag in ("li", "article") and "data-check" in attrs:
            self.rows.append((attrs["data-check"], attrs["data-state"]))
        if tag == "figure" and "data-check" in attrs:
            self._figure = attrs["data-check"]
            self.charts[attrs["data-spec"]] = {"check": attrs["data-check"]}
        if "flat" in attrs.get("class", "").split() and "data-check" in attrs:
            self.flat.append(attrs.get("data-check"))
        if tag == "tr" and "data-contract" in attrs:
            self.contracts.append(attrs)
        if tag == "tr" and "data-check" in attrs:
            self._row = attrs["data-check"]
        if tag == "td" and attrs.get("data-outcome") == "failed":
            self.failed.append(self._row)
        if tag == "a" and attrs.get("href", "").startswith("#L"):
            self.anchors.append(attrs["href"][1:])
        if tag == "th" and "run" in attrs.get("class", "").split():
            self.columns.append("")
            self._in_th = True

    def handle_endtag(self, tag):
        if tag == "script":
            self._block = None
        if tag == "th":
            self._in_th = False

    def handle_data(self, data):
        if self._block and self._block in self.charts:
            self.charts[self._block]["spec"] = json.loads(data)
        if self._in_th:
            self.columns[-1] += data


def build(store: HistoryStore, out: Path, *args: str):
    result = CliRunner().invoke(main, ["site", "--history", str(store.path), "--out", str(out), *args])
    assert result.exit_code == 0, result.output
    return result


def test_the_overview_lists_failing_then_anomalous_contracts_with_their_owner_domain_tags_and_days(store, tmp_path):
    out = tmp_path / "site"
    build(store, out)
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()) == [
        "assets/site.js", "assets/site.json", "assets/vega.js", "contracts/calm.html", "contracts/demo.html",
        "contracts/odd_contract.html", "index.html"]
    for page in out.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        parsed = Page(text)
        # nothing fetched when opened: no URL but in-page anchors, sibling pages and the site's own two scripts
        assert all(not url.startswith(("http:", "https:", "//")) and "://" not in url for url in parsed.urls), parsed.urls
        assert "http://" not in text and "https://" not in text and "@import" not in text
        assert "default-src 'none'; script-src 'self';" in text
        assert {s for s in parsed.scripts if s != "application/json"} <= {"assets/site.js", "../assets/vega.js", "../assets/site.js"}
        assert len(text.encode()) < 300_000, (page, len(text))
    index = Page((out / "index.html").read_text(encoding="utf-8"))
    assert [(c["data-contract"], c["data-state"]) for c in index.contracts] == [
        ("demo", "failing"), ("odd <contract>", "anomalous"), ("calm", "passing")]
    calm = index.contracts[2]
    assert (calm["data-owner"], calm["data-domain"], json.loads(calm["data-tags"])) == ("finance", "billing", ["silver", "pii"])
    text = (out / "index.html").read_text(encoding="utf-8")
    # failing since run 26 (2026-03-27); a strip of 14 days up to the newest, the last 4 failed
    demo_row = text[text.index('data-contract="demo"'):text.index('data-contract="odd')]
    assert 'datetime="2026-03-27T06:00:00+00:00"' in demo_row
    assert re.findall(r'title="(2026-03-\d\d): (\w+)"', demo_row)[-5:] == [
        ("2026-03-26", "passed"), ("2026-03-27", "failed"), ("2026-03-28", "failed"), ("2026-03-29", "failed"), ("2026-03-30", "failed")]
    assert len(re.findall(r'class="day ', demo_row)) == 14
    # the filters offer what the contracts say
    for option in ("checkout", "finance", "sales", "billing", "gold", "silver", "pii"):
        assert f"<option>{option}</option>" in text
    assert "odd &lt;contract&gt;" in text


def test_a_contract_page_leads_with_what_fails_charts_threshold_and_band_and_collapses_a_flat_series(store, tmp_path):
    out = tmp_path / "site"
    build(store, out, "--runs", "20")
    text = (out / "contracts" / "demo.html").read_text(encoding="utf-8")
    page = Page(text)
    # failing first, then the rest; the flat passing series is a line of text, not a chart
    assert page.rows[0] == ("amount_max", "failing")
    assert [state for _, state in page.rows].index("passing") > 0
    assert set(page.rows) == {("amount_max", "failing"), ("orders.loaded.age", "passing"), ("orders.id.required", "passing")}
    assert page.flat == ["orders.id.required"]
    assert "0 rows in each of the 20 runs" in text
    charted = {chart["check"]: chart["spec"] for chart in page.charts.values()}
    assert set(charted) == {"amount_max", "orders.loaded.age", "rows(orders)"}
    # since which run: the first of the last four failures, with its date
    assert re.search(r'Failing\s+since <time datetime="2026-03-27T06:00:00\+00:00"[^>]*>2026-03-27 06:00 UTC</time> \(4 runs\)', text)
    # the failing check's chart: its threshold line, labelled in the contract's words, and its monitor's band
    failing = charted["amount_max"]
    layers = {layer["name"]: layer for layer in failing["layer"]}
    assert {"band", "line", "runs", "threshold"} <= set(layers)
    assert [v["y"] for v in layers["threshold"]["data"]["values"]] == [800.0]
    assert layers["threshold"]["data"]["values"][0]["label"] == "limit >= 800"
    assert {l["name"]: l for l in charted["orders.loaded.age"]["layer"]}["threshold"]["data"]["values"][0]["label"] == "limit <= 2d (48 hours)"
    values = failing["data"]["values"]
    assert len(values) == 20 and values[-1]["o"] == "failed" and (values[-1]["lo"], values[-1]["hi"]) == (990.0, 1050.0)
    # hovering a run's point shows its date, value and outcome
    assert [field["field"] for field in layers["runs"]["encoding"]["tooltip"]] == ["t", "v", "o"]
    low, high = layers["line"]["encoding"]["y"]["scale"]["domain"]
    assert low <= 400 and 800 < 1050 <= high < 1200  # the data, threshold and band, not a range from zero
    # a freshness in hours, not seconds: 20-22 h, its threshold 48 h
    age = charted["orders.loaded.age"]
    assert {v["v"] for v in age["data"]["values"]} == {20.0, 21.0, 22.0}
    assert age["layer"][0]["encoding"]["y"]["axis"]["title"] == "hours"
    assert [v["y"] for v in {l["name"]: l for l in age["layer"]}["threshold"]["data"]["values"]] == [48.0]
    # the anomalous rows monitor leads too, with its sentence and band, the anomaly ringed
    rows = charted["rows(orders)"]
    assert "anomalies" in {l["name"] for l in rows["layer"]} and "rows 2,529 are below the expected 4,800-5,200" in text
    assert text.index('data-monitor="rows(orders)"') < text.index('id="passing"')
    # the kind, threshold text, description, link to the source line
    assert "at least 800 orders a day" in text and '<strong class="threshold">&gt;= 800</strong>' in text
    assert set(page.anchors) == {"L19", "L14", "L12"} and set(page.anchors) <= page.ids
    # every run column dated; 4 failed cells of the failing check
    assert len(page.columns) == 20 and all(re.fullmatch(r"03-\d\d 06:00 UTC", c) for c in page.columns), page.columns
    assert page.failed == ["amount_max"] * 4
    assert "<tr><td>dq</td><td>10</td><td>20</td><td>50.0%</td></tr>" in text
    # an all-passing contract says nothing is wrong
    assert 'id="all-clear"' in (out / "contracts" / "calm.html").read_text(encoding="utf-8")
    assert 'id="data-docs"' not in text
    # where the newest run's data came from, as a list of model and source (not the stored JSON), and its slice
    assert '<ul class="sources" id="sources"><li><span class="model">orders</span>: <code>/lake/orders.parquet</code></li></ul>' in text
    assert "&#34;orders&#34;" not in text and "region = &#39;EU&#39;" in text
    # a threshold in seconds as the contract writes a duration, on the card and the chart's line alike
    assert 'threshold <strong class="threshold">&lt;= 2d</strong>' in text and "172800" not in text


def test_a_rebuild_after_one_new_run_rewrites_that_contract_and_the_overview_only(store, tmp_path):
    out = tmp_path / "site"
    first = build(store, out)
    assert "wrote 4 pages" in first.output
    pages = {p.name: p.read_bytes() for p in (out / "contracts").glob("*.html")}
    vega = (out / "assets" / "vega.js").stat().st_mtime_ns
    again = build(store, out)
    assert "wrote 1 page to" in again.output and "3 contracts unchanged" in again.output
    contract = contract_file(tmp_path, "calm", owner="finance", domain="billing", tags=("silver", "pii"))
    record(store, demo_verdict(contract, "calm", RUNS, failing=False, anomalous=False), START + timedelta(days=RUNS))
    third = build(store, out)
    assert "wrote 2 pages" in third.output and "2 contracts unchanged" in third.output, third.output
    assert (out / "contracts" / "demo.html").read_bytes() == pages["demo.html"]
    assert (out / "contracts" / "calm.html").read_bytes() != pages["calm.html"]
    assert (out / "assets" / "vega.js").stat().st_mtime_ns == vega


def test_edges_an_empty_store_a_file_that_is_not_a_store_and_a_store_of_a_newer_schema(tmp_path):
    def site(history: Path):
        return CliRunner().invoke(main, ["site", "--history", str(history), "--out", str(tmp_path / "site")])

    empty = tmp_path / "empty.db"
    HistoryStore(empty)
    result = site(empty)
    assert result.exit_code == 0, result.output
    assert result.output == (f"the history store {empty} holds no runs: nothing to build. Record runs with "
                             f"`dc-bridge run CONTRACT --history {empty}`, then build the site again.\n")
    assert not (tmp_path / "site").exists()

    zero = tmp_path / "zero.db"
    zero.write_bytes(b"")
    result = site(zero)
    assert result.exit_code == 2 and f"--history {zero} is an empty file, not a history store" in result.output, result.output
    assert zero.read_bytes() == b"" and not (tmp_path / "site").exists()  # not turned into a store

    jsonl = tmp_path / "retail.jsonl"
    jsonl.write_text((Path(__file__).parent.parent / "docs" / "examples" / "history" / "retail.jsonl").read_text())
    result = site(jsonl)
    assert result.exit_code == 2, result.output
    assert f"--history {jsonl} is a JSON Lines history, not a history store: import it into a store first " \
           f"(dc-bridge history import {jsonl} --into history.db)" in result.output
    assert "module" not in result.output and "Traceback" not in result.output

    other = tmp_path / "other.db"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE things (x)")
    result = site(other)
    assert result.exit_code == 2 and "is a SQLite database of another program (its tables: things), not a dc-bridge history store" in result.output, result.output
    with sqlite3.connect(other) as db:
        assert [name for (name,) in db.execute("SELECT name FROM sqlite_master")] == ["things"]

    newer = tmp_path / "newer.db"
    HistoryStore(newer)
    with sqlite3.connect(newer) as db:
        db.execute("INSERT INTO schema_version VALUES (99, '2030-01-01')")
    result = site(newer)
    assert result.exit_code == 2, result.output
    assert re.search(r"has schema version 99, written by a dc-bridge newer than this one \(dc-bridge [\w.]+, which reads versions "
                     r"up to \d+\): upgrade dc-bridge", result.output), result.output


def test_a_file_of_another_program_in_the_sites_assets_is_never_replaced(store, tmp_path):
    out = tmp_path / "site"
    (out / "assets").mkdir(parents=True)
    (out / "assets" / "site.js").write_text("// someone else's script\n")
    result = CliRunner().invoke(main, ["site", "--history", str(store.path), "--out", str(out)])
    assert result.exit_code == 2 and "is not a file of a dc-bridge site" in result.output, result.output
    assert (out / "assets" / "site.js").read_text() == "// someone else's script\n"
    assert not (out / "index.html").exists()


DOCS_CONTRACT = """\
apiVersion: v3.1.0
kind: DataContract
id: site-docs
version: 1.0.0
status: active
schema:
  - name: orders
    properties:
      - {name: order_id, logicalType: string, required: true, unique: true}
"""


def test_a_run_that_built_data_docs_links_to_them_from_its_contract_page(spark, tmp_path):
    contract, data = tmp_path / "site-docs.yaml", tmp_path / "orders.csv"
    contract.write_text(DOCS_CONTRACT)
    data.write_text("order_id\nO1\nO2\n")
    target, docs, out = tmp_path / "runs" / "history.db", tmp_path / "docs", tmp_path / "site"
    target.parent.mkdir()
    run = ["run", str(contract), "--engines", "spark", "--data", f"orders={data}", "--history", str(target)]
    for extra in ([], ["--data-docs", str(docs)]):  # the first run without Data Docs, the second with
        result = CliRunner().invoke(main, run + extra, catch_exceptions=False)
        assert result.exit_code == 0, result.output

    newest, first = HistoryStore(target).runs("site-docs")
    assert first.data_docs is None
    validations = sorted((docs / "validations").rglob("*.html"))
    assert len(validations) == 1  # the one model's validation page of the one run with --data-docs
    assert newest.data_docs == {"index": str((docs / "index.html").resolve()), "validations": {"orders": str(validations[0].resolve())}}

    result = CliRunner().invoke(main, ["site", "--history", str(target), "--out", str(out)])
    assert result.exit_code == 0, result.output
    page = out / "contracts" / "site-docs.html"
    text = page.read_text(encoding="utf-8")
    # the second run of the window (the page's column 2) has its links, the first none
    assert re.findall(r'<tr data-run="(\d+)">', text) == ["2"]
    links = re.findall(r'<a class="data-docs" href="([^"]+)"', text)
    assert len(links) == 2
    for link in links:  # relative, to files that are there: the site and the Data Docs open offline together
        assert not re.match(r"[a-z][a-z0-9+.-]*:|/", link), link
    assert {(page.parent / unquote(link)).resolve() for link in links} == {(docs / "index.html").resolve(), validations[0].resolve()}
    assert all((page.parent / unquote(link)).is_file() for link in links)


def _strict(verdict: Verdict) -> Verdict:
    """The verdict as a run at monitors = "strict" makes it: its rows' anomaly failed the contract, its checks all passed."""
    monitors = [m.model_copy(update={"severity": "strict"}) for m in verdict.monitors]
    return verdict.model_copy(update={"monitors": monitors, "outcome": "failed",
                                      "reason": "monitors at strict found an anomaly: rows(orders): rows 2,529 are below ..."})


def test_a_contract_a_strict_monitor_failed_says_so_and_days_without_runs_show(tmp_path):
    """A run whose checks passed and whose strict monitor failed it: the overview and the page name the monitor
    (before, the page said `failing` with nothing failing on it). A contract that ran on some days only: each other
    day of its strip is marked as a day without a run, not a blank."""
    store = HistoryStore(tmp_path / "history.db")
    file = contract_file(tmp_path, "gappy")
    for number in (0, 3, 4, 9, ANOMALY):  # five runs over thirty days
        made = demo_verdict(file, "gappy", number, failing=False)
        record(store, _strict(made) if number == ANOMALY else made, START + timedelta(days=number))
    out = tmp_path / "site"
    build(store, out)
    overview = (out / "index.html").read_text(encoding="utf-8")
    assert '<span class="note strict">failed by a strict monitor: rows(orders)</span>' in overview
    page = (out / "contracts" / "gappy.html").read_text(encoding="utf-8")
    assert ('<p class="strict" id="strict">The newest run failed because monitors at strict found an anomaly: rows(orders) '
            '(its checks did not fail).</p>') in page
    strip = re.search(r'<td class="strip">(.*?)</td>', overview).group(1)
    days = re.findall(r'<span class="day o-([a-z_]+)" title="([0-9-]+): ([a-z_ ]+)">(.*?)</span>', strip)
    assert len(days) == 14 and [d[0] for d in days].count("none") == 13 and days[-1][0] == "failed"
    assert all(letter == "○" and said == "no run" for kind, _, said, letter in days if kind == "none")


def test_a_prune_that_cuts_into_the_window_rebuilds_and_a_pruned_contract_leaves_no_page(store, tmp_path):
    """The pages are kept while their inputs are unchanged; a prune changes the window's oldest run, so the pages are
    rebuilt without the pruned runs (before, they kept showing them until the contract's next run), and a contract
    pruned whole loses its pages (before, they stayed in contracts/, reachable and stale)."""
    out = tmp_path / "site"
    build(store, out, "--runs", "40")
    assert len(Page((out / "contracts" / "demo.html").read_text(encoding="utf-8")).columns) == RUNS
    old = contract_file(tmp_path, "old")
    record(store, demo_verdict(old, "old", 0, failing=False), START - timedelta(days=400))
    build(store, out, "--runs", "40")
    assert (out / "contracts" / "old.html").is_file()
    # the prune of `history prune --older-than 20d`, on the day after the newest run: the first ten days go, and `old`
    assert store.prune(timedelta(days=20), now=START + timedelta(days=30)) == 3 * 10 + 1
    again = build(store, out, "--runs", "40")
    assert "unchanged" not in again.output, again.output
    assert len(Page((out / "contracts" / "demo.html").read_text(encoding="utf-8")).columns) == RUNS - 10
    assert not (out / "contracts" / "old.html").exists() and "old" not in json.loads((out / "assets" / "site.json").read_text())["contracts"]


def test_the_site_finds_a_contract_file_recorded_from_another_folder(tmp_path, monkeypatch):
    """A run from the project's folder records `contracts/shop.yaml`; the site built from anywhere else still finds it
    (the store keeps the path whole), so the page shows the contract's title, owner and text."""
    project = tmp_path / "project"
    (project / "contracts").mkdir(parents=True)
    contract_file(project / "contracts", "shop")
    store = HistoryStore(project / "history.db")
    monkeypatch.chdir(project)
    record(store, demo_verdict(Path("contracts/shop.yaml"), "shop", 0, failing=False), START)
    monkeypatch.chdir(tmp_path)
    build(store, tmp_path / "site")
    page = (tmp_path / "site" / "contracts" / "shop.html").read_text(encoding="utf-8")
    assert "<h1>shop title</h1>" in page and "<dt>owner</dt><dd>checkout</dd>" in page and "is not where the runs read it" not in page


FLEET_CONTRACT = """\
apiVersion: v3.1.0
kind: DataContract
id: fleet-shop
name: fleet-shop title
version: 1.0.0
status: active
domain: sales
tags: [bronze]
team:
  name: growth
schema:
  - name: orders
    properties:
      - {name: id, logicalType: integer, required: true}
"""


def test_a_fleet_contracts_page_takes_its_words_from_the_registered_text_it_ran(tmp_path, monkeypatch):
    """`run --registered` records `NS/ID@VERSION`, not a file: the site fetches that registered text from the project's
    embedded catalog (verified against its record) and takes the title, owner, tags and text from it."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "dc-bridge.toml").write_text('catalog = "iceberg"\nnamespace = "sales"\n', encoding="utf-8")
    file = tmp_path / "fleet-shop.yaml"
    file.write_text(FLEET_CONTRACT, encoding="utf-8")
    registered = CliRunner().invoke(main, ["register", str(file)])
    assert registered.exit_code == 0, registered.output
    file.unlink()  # only the catalog has it now, as in a fleet
    store = HistoryStore(tmp_path / "history.db")
    made = demo_verdict(file, "fleet-shop", 0, failing=False)
    record(store, made.model_copy(update={"contract_file": "sales/fleet-shop@1.0.0"}), START)
    build(store, tmp_path / "site")
    page = (tmp_path / "site" / "contracts" / "fleet-shop.html").read_text(encoding="utf-8")
    assert "<h1>fleet-shop title</h1>" in page and "<dt>owner</dt><dd>growth</dd>" in page and "<dd>bronze</dd>" in page
    assert "sales/fleet-shop@1.0.0, the registered text the runs read" in page and "is not where the runs read it" not in page
    overview = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert "fleet-shop title" in overview and "<td>growth</td>" in overview
