"""The site of `dc-bridge site` (docs/history.md, "The site") opened in one headless Chromium with the
network blocked, driven over its DevTools protocol (tests/browser.py `Chromium`): each page's own requests
are counted (Network.requestWillBeSent of the page, any URL not on this machine: sent, refused or blocked
by the page's CSP alike), and no page of the site attempts a single one. A control page with a remote
image counts one, and the proxy on loopback that every request of the browser is sent to (it refuses
them all) sees that same request: the count sees what would leave the machine. (Chromium's own
background calls at start-up, its component updater and Google sign-in, go to that proxy too and are
refused; they are no page's.)

What the rendered DOM must say, after the site's scripts ran (the Vega libraries from assets/vega.js draw
each chart): the overview of 20 contracts lists the failing ones first and its status filter works; a
contract page with a failing, an anomalous and an all-passing check lists the failing check first, dates
every run column, draws the threshold and the monitor's band on the failing check's chart, rings the
anomaly, draws no chart for the all-zero passing series, and draws every chart it announces. Screenshots
of both pages go to the test output folder (DC_BRIDGE_TEST_OUTPUT, else tests/output; the path is
printed). Every page stays small however many runs and checks the store holds."""

from __future__ import annotations

import os
import re
import socketserver
import threading
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from browser import Chromium
from click.testing import CliRunner
from test_history_site import START, contract_file, demo_verdict, record

from dc_bridge.cli import main
from dc_bridge.history import HistoryStore
from dc_bridge.runner.history import run_record
from dc_bridge.verdict import CheckVerdict, ModelVerdict, Verdict

pytest.importorskip("vl_convert")

OUTPUT = Path(os.environ.get("DC_BRIDGE_TEST_OUTPUT") or Path(__file__).parent / "output") / "site"
# what the site must stay under, page by page
PAGE_LIMIT = 500_000
FLEET, RUNS = 20, 30


def _host(request_line: str) -> str:
    """The host a proxied request goes to: `CONNECT host:443 HTTP/1.1` or `GET http://host/path HTTP/1.1`."""
    target = request_line.split(" ")[1] if " " in request_line else request_line
    return re.sub(r"^[a-z]+://", "", target).split("/")[0].split(":")[0]


class _Proxy(socketserver.ThreadingTCPServer):
    """Where the browser is told to send every request: counts connections and keeps the first line of each."""
    daemon_threads = True

    def __init__(self):
        self.requests: list[str] = []
        proxy = self

        class Handler(socketserver.StreamRequestHandler):
            def handle(self):
                proxy.requests.append(self.rfile.readline(500).decode("latin-1").strip())
                self.wfile.write(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")

        super().__init__(("127.0.0.1", 0), Handler)


@pytest.fixture
def proxy():
    server = _Proxy()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server
    server.shutdown()
    server.server_close()


def _browser(proxy: _Proxy, profile: Path) -> Chromium:
    """One Chromium for the whole test: every request sent to `proxy` (loopback too: `<-loopback>`), every
    host name unresolvable, Chromium's own background traffic switched off as far as its flags go."""
    return Chromium(profile, size=(1366, 1400), flags=(
        "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-extensions",
        "--disable-default-apps", "--no-pings", "--disable-domain-reliability", "--metrics-recording-only",
        "--disable-features=NetworkTimeServiceQuerying,OptimizationHints,MediaRouter,Translate",
        f"--proxy-server=http://127.0.0.1:{proxy.server_address[1]}", "--proxy-bypass-list=<-loopback>",
        "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"))


def _fleet(folder: Path) -> HistoryStore:
    """20 contracts of 30 daily runs: every fifth failing since run 26 (its rows anomalous in the newest run),
    every fifth from the second anomalous only, the rest passing."""
    store = HistoryStore(folder / "history.db")
    owners = ("checkout", "finance", "growth")
    files = {n: contract_file(folder, f"fleet-{n:02d}", owner=owners[n % 3], domain=("sales", "billing")[n % 2], tags=("gold",) if n % 2 else ("silver",))
             for n in range(FLEET)}
    for number in range(RUNS):
        for n, file in files.items():
            made = demo_verdict(file, f"fleet-{n:02d}", number, failing=n % 5 == 0, anomalous=n % 5 in (0, 1))
            record(store, made, START + timedelta(days=number, minutes=n))
    return store


# the DOM questions asked of a contract page once its scripts ran
CONTRACT_DOM = """(() => {
  const cards = Array.from(document.querySelectorAll("article[data-check], li[data-check]")).map(e => [e.dataset.check, e.dataset.state]);
  const columns = Array.from(document.querySelectorAll("#checks th.run")).map(th => th.textContent.trim());
  const marks = (check, name) => Array.from(document.querySelectorAll(`figure[data-check="${check}"] g.${name} path, figure[data-check="${check}"] g.${name} line`)).length;
  const figures = Array.from(document.querySelectorAll("figure.chart"));
  const fonts = Array.from(document.querySelectorAll("body *")).filter(e => !e.closest("svg") && e.childNodes.length && Array.from(e.childNodes).some(n => n.nodeType === 3 && n.textContent.trim()))
    .map(e => parseFloat(getComputedStyle(e).fontSize));
  return {cards, columns, figures: figures.map(f => [f.dataset.check, f.dataset.drawn, f.querySelectorAll("svg").length]),
          threshold: marks("amount_max", "threshold_layer_0_marks"), band: marks("amount_max", "band_marks"),
          anomaly: marks("rows(orders)", "anomalies_marks"), flat: !!document.querySelector('.flat[data-check="orders.id.required"]'),
          smallest_font: Math.min(...fonts), unreachable: Array.from(document.querySelectorAll("a")).filter(a => !a.href || a.tabIndex < 0).length};
})()"""


def test_the_site_in_headless_chromium_fetches_nothing_and_leads_with_what_fails(tmp_path, proxy):
    store = _fleet(tmp_path)
    site = tmp_path / "site"
    result = CliRunner().invoke(main, ["site", "--history", str(store.path), "--out", str(site), "--runs", "20"])
    assert result.exit_code == 0, result.output
    OUTPUT.mkdir(parents=True, exist_ok=True)

    control = tmp_path / "control.html"
    control.write_text('<!DOCTYPE html><html><body><img src="http://images.example.invalid/x.png"></body></html>')
    csp = re.search(r'<meta http-equiv="Content-Security-Policy"[^>]*>', (site / "index.html").read_text(encoding="utf-8")).group(0)
    blocked = tmp_path / "blocked.html"
    blocked.write_text(f'<!DOCTYPE html><html><head>{csp}</head><body><img src="http://images.example.invalid/y.png"></body></html>')
    with _browser(proxy, tmp_path / "profile") as browser:
        # the harness counts: a page that fetches something is seen, by the count and by the proxy
        assert browser.open(control).requests == ["http://images.example.invalid/x.png"]
        assert "images.example.invalid" in {_host(line) for line in proxy.requests}, "the proxy did not see the page's request"
        # and a request the page's Content-Security-Policy blocks (the site's own policy) is counted all the same
        assert browser.open(blocked).requests == ["http://images.example.invalid/y.png"]

        opened = browser.open(site / "index.html", OUTPUT / "overview.png")
        assert opened.requests == []
        states = browser.evaluate('Array.from(document.querySelectorAll("#contracts tbody tr")).map(r => r.dataset.state)')
        assert states == ["failing"] * 4 + ["anomalous"] * 4 + ["passing"] * 12
        assert browser.evaluate('document.getElementById("filters").hidden') is False
        # the status filter leaves the failing four; a strip of 14 days per contract, each day with a letter or blank
        shown = browser.evaluate('(() => { const s = document.getElementById("filter-status"); s.value = "failing"; '
                                 's.dispatchEvent(new Event("change", {bubbles: true})); '
                                 'return Array.from(document.querySelectorAll("#contracts tbody tr")).filter(r => !r.hidden).map(r => r.dataset.contract); })()')
        assert shown == ["fleet-00", "fleet-05", "fleet-10", "fleet-15"]
        assert browser.evaluate('document.querySelectorAll("#contracts td.strip span.day").length') == FLEET * 14

        for page in sorted((site / "contracts").glob("*.html")):
            opened = browser.open(page, OUTPUT / "contract.png" if page.name == "fleet-00.html" else None, settle=1.0)
            assert opened.requests == [], (page.name, opened.requests)  # not one request attempted
            assert not re.search(r"""(?:src|href|action|data)\s*=\s*["'](?:[a-z][a-z0-9+.-]*:|//)""", opened.dom, re.IGNORECASE), page
            if page.name != "fleet-00.html":
                continue
            dom = browser.evaluate(CONTRACT_DOM)
            # the failing check first, then the rest; the all-zero passing series has no chart, a line instead
            assert dom["cards"][0] == ["amount_max", "failing"]
            assert {state for _, state in dom["cards"][1:]} == {"passing"}
            assert dom["flat"] and "orders.id.required" not in [f[0] for f in dom["figures"]]
            # every chart drawn, as one svg; the failing check's threshold line and band, the anomaly ringed
            assert sorted(f[0] for f in dom["figures"]) == ["amount_max", "orders.loaded.age", "rows(orders)"]
            assert all(drawn == "yes" and svgs == 1 for _, drawn, svgs in dom["figures"]), dom["figures"]
            assert dom["threshold"] >= 1 and dom["band"] >= 1 and dom["anomaly"] >= 1, dom
            # a date on every run column, in the reader's time zone (the page's script rewrote the UTC text)
            assert len(dom["columns"]) == 20 and all(re.search(r"\d", c) and "UTC" not in c for c in dom["columns"]), dom["columns"]
            # readable at 80% zoom (no text under 12 px at 100%), every link reachable from the keyboard
            assert dom["smallest_font"] >= 12 and dom["unreachable"] == 0, dom
    for shot in ("overview.png", "contract.png"):
        assert (OUTPUT / shot).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    print(f"screenshots: {OUTPUT / 'overview.png'} {OUTPUT / 'contract.png'}")


def _verdict(contract_file: Path, number: int, checks: int) -> Verdict:
    """Run `number` of a contract with `checks` counted checks (every seventh fails now and then), a
    schema check and an SLA with no number."""
    made = []
    for i in range(checks):
        observed = float((number + i) % 9)
        made.append(CheckVerdict(check_id=f"events.c{i:03d}.nulls", model="events", kind="not_null", columns=[f"c{i:03d}"],
                                 outcome="failed" if i % 7 == 0 and observed > 6 else "passed", severity="error", expected="<= 6",
                                 observed=observed, source={"file": str(contract_file), "path": f"schema[0].properties[{i}]", "line": i + 3}))
    made.append(CheckVerdict(check_id="events.schema", model="events", kind="column_exists", columns=["c000"], outcome="passed",
                             severity="error", source={"file": str(contract_file), "path": "schema[0]", "line": 2}))
    made.append(CheckVerdict(check_id="availability", model="events", kind="availability", columns=[], severity="error",
                             outcome="failed" if number % 10 == 0 else "passed", source={"file": str(contract_file), "path": "sla", "line": 1}))
    outcome = "failed" if any(c.outcome == "failed" for c in made) else "passed"
    return Verdict(contract_id="browser-demo", contract_version="3.0.0", contract_file=str(contract_file), outcome=outcome, counts={},
                   models=[ModelVerdict(name="events", outcome=outcome, counts={}, checks=made)], engines=["spark"])


def _store(folder: Path, runs: int, checks: int) -> HistoryStore:
    contract = folder / "browser-demo.yaml"
    contract.write_text("".join(f"# line {i}\n" for i in range(1, checks + 4)))
    store = HistoryStore(folder / "history.db")
    for number in range(runs):
        verdict = _verdict(contract, number, checks)
        store.append(run_record(verdict, ["events"], START + timedelta(hours=number)), verdict)
    return store


def test_every_page_stays_small_for_a_long_history_of_a_large_contract(tmp_path):
    store = _store(tmp_path, runs=150, checks=100)
    for window in ("50", "150"):
        site = tmp_path / f"site-{window}"
        result = CliRunner().invoke(main, ["site", "--history", str(store.path), "--out", str(site), "--runs", window])
        assert result.exit_code == 0, result.output
        sizes = {p.name: p.stat().st_size for p in site.rglob("*.html")}
        assert max(sizes.values()) < PAGE_LIMIT, sizes
        text = "".join(p.read_text() for p in site.rglob("browser-demo*.html"))
        # every check on some page, each once; the window's runs per row
        assert sorted(re.findall(r'<tr data-check="([^"]+)"', text)) == sorted(
            [f"events.c{i:03d}.nulls" for i in range(100)] + ["events.schema", "availability"])
        assert text.count('data-outcome="') == 102 * int(window)


def test_chart_axes_read_in_24_hour_time_and_days_without_runs_show(tmp_path, proxy, monkeypatch):
    """Runs every ten minutes from 18:06 to 19:56 UTC, read in UTC: the x axis's ticks fall on the half hours, which
    Vega's default labels wrote `06:30` (12-hour time without AM/PM: 18:30 read as morning); now each reads as
    `18:30`. The overview's strip marks the thirteen days without a run, each visible (a dashed box and a mark)."""
    monkeypatch.setenv("TZ", "UTC")
    store = HistoryStore(tmp_path / "history.db")
    file = contract_file(tmp_path, "evening")
    evening = datetime(2026, 3, 20, 18, 6, tzinfo=timezone.utc)
    for number in range(12):
        record(store, demo_verdict(file, "evening", number, failing=False, anomalous=False), evening + timedelta(minutes=10 * number))
    site = tmp_path / "site"
    assert CliRunner().invoke(main, ["site", "--history", str(store.path), "--out", str(site)]).exit_code == 0
    with _browser(proxy, tmp_path / "profile") as browser:
        browser.open(site / "contracts" / "evening.html", settle=1.0)
        labels = browser.evaluate('Array.from(document.querySelectorAll(\'figure[data-check="orders.loaded.age"] '
                                  'g.role-axis-label text\')).map(t => t.textContent)')
        times = [label for label in labels if re.fullmatch(r"\d\d:\d\d", label)]
        assert times and all(label.startswith(("18:", "19:", "20:")) for label in times), labels
        browser.open(site / "index.html")
        days = browser.evaluate('Array.from(document.querySelectorAll("#contracts td.strip span.day")).map(d => '
                                '[d.className, d.textContent, getComputedStyle(d).borderTopStyle, d.getBoundingClientRect().width])')
        empty = [day for day in days if "o-none" in day[0]]
        assert len(days) == 14 and len(empty) == 13, days
        assert all(text == "○" and border == "dashed" and width > 5 for _, text, border, width in empty), empty
