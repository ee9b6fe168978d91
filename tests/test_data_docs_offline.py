"""The GX Data Docs site of `run --data-docs` opens offline and can be copied to Windows (docs/reports.md).

A contract whose id holds `:` (`urn:acme:crm:customers`) with planted violations is run with
`--data-docs`; then, with every network request refused, headless Chromium opens the index and a
validation page: the suite and validation lists are drawn (their scripts came from the site, not a
CDN), the status icons are drawn (their font too), and a failed row looks unlike a passed one. No page
names a remote address, no file or folder name holds a character Windows cannot store, and every
link between the pages, and from the HTML report to them, reaches a file. The screenshots are written
to the test's tmp folder, whose path the test prints. What is asserted is what the page means (each
icon's element, class, computed colour and font, each row's status), never a count of pixels, which
depends on the fonts of the machine.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

import pytest
from click.testing import CliRunner

from browser import Chromium
from dc_bridge.cli import main
from dc_bridge.engines.gx.data_docs import ASSETS, VENDOR

CONTRACT = """
apiVersion: v3.1.0
kind: DataContract
id: urn:acme:crm:customers
name: Customers
version: 1.0.0
status: active
schema:
  - name: customers
    properties:
      - name: customer_id
        logicalType: string
        required: true
        unique: true
        logicalTypeOptions: {pattern: '^C[0-9]{3}$'}
      - name: age
        logicalType: integer
        logicalTypeOptions: {minimum: 18, maximum: 99}
  - name: orders
    properties:
      - name: order_id
        logicalType: string
        required: true
"""
# what Windows cannot store as a file or folder name
NOT_ON_WINDOWS = re.compile(r'[<>:"|?*\\\x00-\x1f]|[. ]$')


@pytest.fixture(scope="module")
def site(spark, tmp_path_factory):
    folder = tmp_path_factory.mktemp("datadocs")
    (folder / "customers.yaml").write_text(CONTRACT)
    (folder / "customers.csv").write_text("customer_id,age\nC001,30\nC002,17\nC002,100\nX9,45\n")  # young, duplicate and old, bad id
    (folder / "orders.csv").write_text("order_id\nO1\nO2\n")
    docs, report = folder / "docs", folder / "report.html"
    result = CliRunner().invoke(main, ["run", str(folder / "customers.yaml"), "--engines", "spark",
                                       "--data", f"customers={folder / 'customers.csv'}", "--data", f"orders={folder / 'orders.csv'}",
                                       "--output", "html", "--output-file", str(report), "--data-docs", str(docs)],
                                catch_exceptions=False)
    assert result.exit_code == 1, result.output
    return docs, report


def _pages(docs: Path) -> list[Path]:
    return sorted(p for p in docs.rglob("*.html") if VENDOR not in p.relative_to(docs).parents)


def test_every_name_in_the_site_can_be_stored_on_windows(site):
    docs, _ = site
    unfit = [str(path.relative_to(docs)) for path in docs.rglob("*") if any(NOT_ON_WINDOWS.search(part) for part in path.relative_to(docs).parts)]
    assert unfit == []
    # named as `dc-bridge compile` names the contract's folder
    assert (docs / "expectations" / "urn_acme_crm_customers" / "customers.html").is_file()
    assert len(list((docs / "validations" / "urn_acme_crm_customers").rglob("*.html"))) == 2


def test_no_page_names_a_remote_address_and_the_libraries_are_in_the_site(site):
    docs, _ = site
    for file in [*_pages(docs), *(docs / "static" / "styles").glob("*.css")]:
        text = file.read_text(encoding="utf-8")
        assert not re.findall(r"https?://[^\s\"'<>)]*", text), file
        assert "integrity=" not in text and "crossorigin=" not in text, file
    for local in set(ASSETS.values()):
        assert (docs / VENDOR / local).is_file(), local
    assert (docs / VENDOR / "LICENSES.md").is_file()


def test_every_link_between_the_pages_and_from_the_report_reaches_a_file(site):
    docs, report = site
    for page in _pages(docs):
        text = page.read_text(encoding="utf-8")
        links = re.findall(r'\b(?:src|href)="([^"#]+)"', text)
        # the index's tables link to pages from their data
        links += re.findall(r"""'_table_row_link_path': '([^']+)'""", text)
        assert links, page
        for link in links:
            assert not re.match(r"[a-z][a-z0-9+.-]*:", link), (page, link)
            assert (page.parent / unquote(link)).resolve().is_file(), (page, link)
    html = report.read_text(encoding="utf-8")
    to_docs = {link for link in re.findall(r'href="([^"]+)"', html) if link.startswith("docs/")}
    assert "docs/index.html" in to_docs and len(to_docs) == 3, to_docs  # the site and a page per model, once or more
    assert all((report.parent / unquote(link)).is_file() for link in to_docs), to_docs


def test_the_site_opens_offline_in_chromium_with_its_lists_and_status_icons(site, tmp_path):
    docs, _ = site
    with Chromium(tmp_path / "chromium", size=(1366, 2400), flags=OFFLINE) as browser:
        index_shot = tmp_path / "data-docs-index.png"
        opened = browser.open(docs / "index.html", index_shot, settle=1.0)
        print(f"Data Docs screenshots (offline): {tmp_path}")
        assert opened.requests == [] and index_shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        # bootstrap-table drew both lists from the page's data: it and jQuery loaded from the site
        assert "Showing 1 to 2 of 2 rows" in opened.dom
        for suite in ("urn:acme:crm:customers.customers", "urn:acme:crm:customers.orders"):
            assert opened.dom.count(suite) >= 2, suite               # a validation row and a suite row
        rows = re.findall(r'<tr\b[^>]*\bdata-href="([^"]+)"[^>]*\bdata-index="\d+"', opened.dom)
        assert len(rows) == 4 and all((docs / unquote(link)).is_file() for link in rows), rows
        shown = browser.evaluate(STATUS_ICONS)
        _assert_icons_drawn(shown)
        # each validation row's status: the planted violations fail customers, orders passes
        by_suite = {suite: icon["status"] for icon in shown["icons"]
                    for suite in ("customers.customers", "customers.orders") if suite in icon["row"]}
        assert by_suite == {"customers.customers": "failed", "customers.orders": "passed"}, shown

        page = next((docs / "validations" / "urn_acme_crm_customers" / "customers").rglob("*.html"))
        opened = browser.open(page, tmp_path / "data-docs-customers-validation.png", settle=1.0)
        assert opened.requests == []
        shown = browser.evaluate(STATUS_ICONS)
        _assert_icons_drawn(shown)
        statuses = [icon["status"] for icon in shown["icons"]]
        assert "failed" in statuses and "passed" in statuses, shown
        # the failed rows are the planted violations (a duplicate id, ages out of range, an id off its pattern), no other
        failed_rows = sorted(icon["row"] for icon in shown["icons"] if icon["status"] == "failed")
        assert len(failed_rows) == 3, failed_rows
        assert ["greater than or equal to 18" in failed_rows[0], "must be unique" in failed_rows[1],
                "regular expression: ^C[0-9]{3}$" in failed_rows[2]] == [True] * 3, failed_rows


# every request to a proxy that is not there, every host unresolvable: a machine offline
OFFLINE = ("--disable-background-networking", "--proxy-server=127.0.0.1:9", "--host-resolver-rules=MAP * ~NOTFOUND")
# Bootstrap 4's colours of a passed (text-success) and a failed (text-danger) status icon, as CSS computes them
COLOURS = {"passed": "rgb(40, 167, 69)", "failed": "rgb(220, 53, 69)"}
# each status icon as the reader sees it: its status (by its class), computed colour, the glyph its ::before
# draws and the font that draws it, its row's text; and whether Font Awesome's fonts came from the site
STATUS_ICONS = """(() => ({
  fonts: [...document.fonts].filter(f => /Font Awesome/i.test(f.family)).map(f => ({family: f.family, weight: f.weight, status: f.status})),
  icons: [...document.querySelectorAll('i.fa-times, i.fa-check-circle')].filter(i => i.closest('tr')).map(i => ({
    status: i.classList.contains('fa-times') ? 'failed' : 'passed',
    classes: i.className, colour: getComputedStyle(i).color,
    glyph: getComputedStyle(i, '::before').content, font: getComputedStyle(i).fontFamily,
    fontReady: document.fonts.check('900 16px ' + getComputedStyle(i).fontFamily.split(',')[0]),
    row: i.closest('tr').innerText.replace(/\\s+/g, ' ')}))
}))()"""


def _assert_icons_drawn(shown: dict) -> None:
    """Every status icon is drawn with Font Awesome's font, loaded from the site (offline), in its status's
    colour, with a glyph of its own; a failed icon carries `text-danger`, a passed one `text-success`."""
    assert shown["icons"], shown
    assert any(font["status"] == "loaded" for font in shown["fonts"]), shown["fonts"]
    for icon in shown["icons"]:
        assert icon["colour"] == COLOURS[icon["status"]], icon
        assert ("text-danger" if icon["status"] == "failed" else "text-success") in icon["classes"], icon
        assert "Font Awesome" in icon["font"] and icon["fontReady"] and icon["glyph"] not in ("none", "normal", '""'), icon
