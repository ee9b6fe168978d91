"""The GX Data Docs site of `run --data-docs` opens offline and can be copied to Windows (docs/reports.md).

A contract whose id holds `:` (`urn:acme:crm:customers`) with planted violations is run with
`--data-docs`; then, with every network request refused, headless Chromium opens the index and a
validation page: the suite and validation lists are drawn (their scripts came from the site, not a
CDN), the status icons are drawn (their font too), and a failed row looks unlike a passed one. No page
names a remote address, no file or folder name holds a character Windows cannot store, and every
link between the pages, and from the HTML report to them, reaches a file. The screenshots are written
to the test's tmp folder, whose path the test prints.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

import pytest
from click.testing import CliRunner

from browser import need_chromium, open_offline
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
# Bootstrap 4's colours of a passed (text-success) and a failed (text-danger) status icon
SUCCESS, DANGER = (40, 167, 69), (220, 53, 69)
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


def _colour_pixels(png: Path, colour: tuple[int, int, int]) -> int:
    """How many pixels of the screenshot have about this colour. Without Font Awesome's font no icon is
    drawn: a few stray pixels are left (7 of each on the index, 35 green on a validation page, where red
    text stays too)."""
    import numpy as np
    from PIL import Image

    pixels = np.asarray(Image.open(png).convert("RGB")).astype(int)
    return int((np.abs(pixels - np.array(colour)) <= 12).all(axis=2).sum())


def test_the_site_opens_offline_in_chromium_with_its_lists_and_status_icons(site, tmp_path):
    need_chromium()
    docs, _ = site
    index_shot = tmp_path / "data-docs-index.png"
    opened = open_offline(docs / "index.html", index_shot, tmp_path / "chromium")
    dom = opened.stdout
    print(f"Data Docs screenshots (offline): {tmp_path}")
    assert index_shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # bootstrap-table drew both lists from the page's data: it and jQuery loaded from the site
    assert "Showing 1 to 2 of 2 rows" in dom, opened.stderr[-2000:]
    for suite in ("urn:acme:crm:customers.customers", "urn:acme:crm:customers.orders"):
        assert dom.count(suite) >= 2, suite               # a validation row and a suite row
    rows = re.findall(r'<tr\b[^>]*\bdata-href="([^"]+)"[^>]*\bdata-index="\d+"', dom)
    assert len(rows) == 4 and all((docs / unquote(link)).is_file() for link in rows), rows
    assert _colour_pixels(index_shot, DANGER) > 20 and _colour_pixels(index_shot, SUCCESS) > 60   # one failed run, one passed

    page = next((docs / "validations" / "urn_acme_crm_customers" / "customers").rglob("*.html"))
    page_shot = tmp_path / "data-docs-customers-validation.png"
    opened = open_offline(page, page_shot, tmp_path / "chromium", size=(1366, 2400))
    dom = opened.stdout
    failed_rows = re.findall(r'<tr\b(?:(?!</tr>).)*?fa-times(?:(?!</tr>).)*?</tr>', dom, re.S)
    passed_rows = re.findall(r'<tr\b(?:(?!</tr>).)*?fa-check-circle(?:(?!</tr>).)*?</tr>', dom, re.S)
    assert failed_rows and passed_rows, dom[:2000]
    assert all("text-danger" in row for row in failed_rows) and all("text-success" in row for row in passed_rows)
    # the icons are drawn (Font Awesome's font came from the site): green for passed rows, red for failed ones
    assert _colour_pixels(page_shot, SUCCESS) > 300 and _colour_pixels(page_shot, DANGER) > 50
