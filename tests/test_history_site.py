"""The site of `dc-bridge site` (dc_bridge/history/site, docs/history.md "The site"), built from a real
history store: every page parses, references nothing on the network (no http(s) URL, no
protocol-relative one, a CSP that forbids fetching), shows every check id, draws a chart per check
with numbers, marks failed runs distinguishably (class, data-outcome and a letter, not colour alone),
links each check to its contract line, and stays small however many runs the store holds. A real run of
`run --data-docs DIR --history STORE` is linked from its contract page to the Data Docs it built (a
relative link to a file that is there); a run without `--data-docs` has no link.

The same pages opened in headless Chromium with the network refused: tests/test_history_site_browser.py."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote

import pytest
from click.testing import CliRunner

from dc_bridge.cli import main
from dc_bridge.history import HistoryStore
from dc_bridge.runner.history import run_record
from dc_bridge.verdict import CheckVerdict, ModelVerdict, ObjectiveVerdict, Verdict

pytest.importorskip("matplotlib")

CHECKS = 12
CONTRACT_TEXT = "id: site-demo\n" + "".join(f"# check {i}\n" for i in range(CHECKS + 4))


class Page(HTMLParser):
    """What a test asks of a page: every URL-bearing attribute, the ids, the rows and cells, the charts."""

    def __init__(self, text: str):
        super().__init__()
        self.urls, self.ids, self.checks, self.charts, self.failed, self.anchors = [], set(), [], [], [], []
        self._row = None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for name in ("src", "href", "xlink:href", "action", "data"):
            if attrs.get(name):
                self.urls.append(attrs[name])
        if "id" in attrs:
            self.ids.add(attrs["id"])
        if tag == "tr" and "data-check" in attrs:
            self._row = attrs["data-check"]
            self.checks.append(self._row)
        if tag == "td" and attrs.get("data-outcome") == "failed":
            self.failed.append(self._row)
        if tag == "figure" and "data-check" in attrs:
            self.charts.append(attrs["data-check"])
        if tag == "a" and attrs.get("href", "").startswith("#L"):
            self.anchors.append(attrs["href"][1:])


def _verdict(contract_file: Path, number: int) -> Verdict:
    checks = []
    for i in range(CHECKS):
        failed = i == 0 and number % 5 == 0
        checks.append(CheckVerdict(
            check_id=f"orders_amount_{i}", model="orders", kind="not_null", columns=["amount"],
            outcome="failed" if failed else "passed", severity="error", observed=float(number % 7 + (50 if failed else 0)),
            source={"file": str(contract_file), "path": f"checks[{i}]", "line": i + 2}))
    checks.append(CheckVerdict(check_id="orders_schema", model="orders", kind="column_exists", columns=["amount"], outcome="passed",
                               severity="error", source={"file": str(contract_file), "path": "schema", "line": CHECKS + 2}))
    checks.append(CheckVerdict(check_id="availability", model="orders", kind="availability", columns=[],
                               outcome="passed" if number % 4 else "failed", severity="error", observed=None,
                               source={"file": str(contract_file), "path": "sla", "line": CHECKS + 3}))
    outcome = "failed" if any(c.outcome == "failed" for c in checks) else "passed"
    return Verdict(contract_id="site-demo", contract_version="1.0.0", contract_file=str(contract_file), outcome=outcome,
                   counts={}, models=[ModelVerdict(name="orders", outcome=outcome, counts={}, checks=checks)],
                   objectives=[ObjectiveVerdict(objective_id="dq", outcome="passed" if number % 2 else "failed", value=99.0,
                                                target=99.5, expected=">= 99.5%", source={})],
                   engines=["spark"])


@pytest.fixture
def store(tmp_path) -> HistoryStore:
    contract = tmp_path / "site-demo.yaml"
    contract.write_text(CONTRACT_TEXT)
    store = HistoryStore(tmp_path / "history.db")
    start = datetime(2026, 1, 1, tzinfo=timezone.utc)
    for number in range(80):
        verdict = _verdict(contract, number)
        store.append(run_record(verdict, ["orders"], start + timedelta(hours=number)), verdict)
    other = _verdict(contract, 1).model_copy(update={"contract_id": "other <contract>"})
    store.append(run_record(other, ["orders"], start), other)
    return store


def test_the_site_opens_offline_with_every_check_a_chart_per_number_and_failures_marked(store, tmp_path):
    out = tmp_path / "site"
    result = CliRunner().invoke(main, ["site", "--history", str(store.path), "--out", str(out), "--runs", "30"])
    assert result.exit_code == 0, result.output
    pages = sorted(out.rglob("*.html"))
    assert [p.relative_to(out).as_posix() for p in pages] == ["contracts/other_contract.html", "contracts/site-demo.html", "index.html"]
    for page in pages:
        text = page.read_text(encoding="utf-8")
        parsed = Page(text)
        # nothing fetched when opened: no URL but in-page anchors and sibling pages, no http at all, a CSP that forbids it
        assert all(not url.startswith(("http:", "https:", "//")) and "://" not in url for url in parsed.urls), parsed.urls
        assert "http://" not in text and "https://" not in text and "@import" not in text
        assert text.count("url(") == text.count("url(#")  # the charts' clip paths, in the page itself
        assert "<script" not in text and "default-src 'none'" in text
        assert len(text.encode()) < 300_000, (page, len(text))

    index = Page((out / "index.html").read_text())
    assert index.urls == ["contracts/other_contract.html", "contracts/site-demo.html"]

    page_text = (out / "contracts" / "site-demo.html").read_text()
    page = Page(page_text)
    expected = {f"orders_amount_{i}" for i in range(CHECKS)} | {"orders_schema", "availability"}
    assert set(page.checks) == expected
    # a chart per check with numbers (the schema check and the SLA, none in the window, have none)
    assert set(page.charts) == {f"orders_amount_{i}" for i in range(CHECKS)}
    assert page_text.count("<svg") == CHECKS
    # the window: the newest 30 of 80 runs; runs 50, 55, ..., 75 failed orders_amount_0
    assert page.failed.count("orders_amount_0") == 6 and set(page.failed) == {"orders_amount_0", "availability"}
    assert 'data-outcome="failed" title="failed: 50.0">✗</td>' in page_text
    # each check links to its line of the contract text, which the page holds
    assert set(page.anchors) == {f"L{i + 2}" for i in range(CHECKS + 2)} and set(page.anchors) <= page.ids
    # SLO compliance over the window: availability failed in runs 52, 56, ..., 76 (7 of 30); dq met in the 15 odd runs
    assert "<tr><td>availability</td><td>23</td><td>30</td><td>76.7%</td></tr>" in page_text
    assert "<tr><td>dq</td><td>15</td><td>30</td><td>50.0%</td></tr>" in page_text
    # escaped, not markup
    assert "other &lt;contract&gt;" in (out / "index.html").read_text()
    # no run of these built Data Docs: no such section, no such link
    assert 'id="data-docs"' not in page_text and "data-docs" not in "".join(page.urls)


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
