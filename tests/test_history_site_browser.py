"""The site of `dc-bridge site` (docs/history.md, "The site") opened in one headless Chromium with the
network blocked, driven over its DevTools protocol (tests/browser.py `Chromium`): each page's own requests
are counted (Network.requestWillBeSent of the page, any URL not on this machine: sent, refused or blocked
by the page's CSP alike), and no page of the site attempts a single one. A control page with a remote
image counts one, and the proxy on loopback that every request of the browser is sent to (it refuses
them all) sees that same request: the count sees what would leave the machine. (Chromium's own
background calls at start-up, its component updater and Google sign-in, go to that proxy too and are
refused; they are no page's.) The rendered DOM holds no URL with a scheme either. Screenshots of the
index and of a contract page are written to the test output folder (DC_BRIDGE_TEST_OUTPUT, else
tests/output); across a contract's pages every check id is there, a chart per check with numbers, failed
runs marked (class, outcome and a letter), and every page stays small however many runs and checks the
store holds."""

from __future__ import annotations

import os
import re
import socketserver
import threading
from datetime import datetime, timedelta, timezone
from html.parser import HTMLParser
from pathlib import Path

import pytest
from browser import Chromium
from click.testing import CliRunner

from dc_bridge.cli import main
from dc_bridge.history import HistoryStore
from dc_bridge.runner.history import run_record
from dc_bridge.verdict import CheckVerdict, ModelVerdict, Verdict

pytest.importorskip("matplotlib")

OUTPUT = Path(os.environ.get("DC_BRIDGE_TEST_OUTPUT") or Path(__file__).parent / "output") / "site"
START = datetime(2026, 3, 1, tzinfo=timezone.utc)
# what the site must stay under, page by page
PAGE_LIMIT = 300_000


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


class _Dom(HTMLParser):
    """What the test reads from a page's DOM: check rows, charts (with their svg), failed cells, links."""

    def __init__(self, text: str):
        super().__init__()
        self.checks, self.charts, self.failed, self.links, self.svgs = [], [], [], [], 0
        self._row = None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "tr" and "data-check" in attrs:
            self._row = attrs["data-check"]
            self.checks.append(self._row)
        if tag == "td" and attrs.get("data-outcome") == "failed":
            self.failed.append((self._row, attrs.get("class")))
        if tag == "figure" and "data-check" in attrs:
            self.charts.append(attrs["data-check"])
        if tag == "svg":
            self.svgs += 1
        if tag == "a":
            self.links.append(attrs.get("href", ""))


def test_the_site_in_headless_chromium_fetches_nothing(tmp_path, proxy):
    checks = 40  # with 50 runs a page, more than one page of checks
    store = _store(tmp_path, runs=60, checks=checks)
    site = tmp_path / "site"
    result = CliRunner().invoke(main, ["site", "--history", str(store.path), "--out", str(site)])
    assert result.exit_code == 0, result.output
    OUTPUT.mkdir(parents=True, exist_ok=True)

    control = tmp_path / "control.html"
    control.write_text('<!DOCTYPE html><html><body><img src="http://images.example.invalid/x.png"></body></html>')
    csp = re.search(r'<meta http-equiv="Content-Security-Policy"[^>]*>', (site / "index.html").read_text(encoding="utf-8")).group(0)
    blocked = tmp_path / "blocked.html"
    blocked.write_text(f'<!DOCTYPE html><html><head>{csp}</head><body><img src="http://images.example.invalid/y.png"></body></html>')
    pages = sorted((site / "contracts").glob("browser-demo*.html"))
    pages.sort(key=lambda p: int(p.stem.partition(".page")[2] or 1))
    assert len(pages) > 1 and [p.name for p in pages] == ["browser-demo.html"] + [f"browser-demo.page{n}.html" for n in range(2, len(pages) + 1)]
    seen, charts, failed = [], [], []
    with _browser(proxy, tmp_path / "profile") as browser:
        # the harness counts: a page that fetches something is seen, by the count and by the proxy
        assert browser.open(control).requests == ["http://images.example.invalid/x.png"]
        assert "images.example.invalid" in {_host(line) for line in proxy.requests}, "the proxy did not see the page's request"
        # and a request the page's Content-Security-Policy blocks (the site's own policy) is counted all the same
        assert browser.open(blocked).requests == ["http://images.example.invalid/y.png"]

        opened = browser.open(site / "index.html", OUTPUT / "index.png")
        assert opened.requests == []
        assert _Dom(opened.dom).links == ["contracts/browser-demo.html"]
        for number, page in enumerate(pages):
            opened = browser.open(page, OUTPUT / "contract.png" if number == 0 else None)
            assert opened.requests == [], (page.name, opened.requests)  # not one request attempted
            assert not re.search(r"""(?:src|href|action|data)\s*=\s*["'](?:[a-z][a-z0-9+.-]*:|//)""", opened.dom, re.IGNORECASE), page
            dom = _Dom(opened.dom)
            seen += dom.checks
            charts += dom.charts
            failed += dom.failed
            assert dom.svgs == len(dom.charts)  # each chart an inline svg, drawn in the page
            assert {link for link in dom.links if not link.startswith("#")} <= {"../index.html", *(p.name for p in pages),
                                                                                 *(f"browser-demo.html#L{i}" for i in range(1, checks + 4))}

    numeric = [f"events.c{i:03d}.nulls" for i in range(checks)]
    assert sorted(seen) == sorted(numeric + ["events.schema", "availability"])  # every check id, once
    assert sorted(charts) == numeric  # a chart per check with numbers, none for the others
    # failed runs are marked in the cell's class, not by colour alone: the outcome and the letter too
    assert {row for row, _ in failed} == {"availability", *(f"events.c{i:03d}.nulls" for i in range(0, checks, 7))}
    assert all("o-failed" in cls.split() for _, cls in failed)
    for shot in ("index.png", "contract.png"):
        assert (OUTPUT / shot).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


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
