"""A run's lifecycle state in the history store and the site, and the sunset alert in the real Prometheus.

One real `dc-bridge run` (the suite's Spark session, the embedded Iceberg catalog of a project) of three registered
contracts: `soon` deprecated with its sunset 5 days ahead and a successor, `later` deprecated 30 days ahead, `ended`
sunset early by a transition (its date 60 days ahead) under `[enforcement] lifecycle = "strict"`, `steady` active. Its `--history` store is read with sqlite3 and through `HistoryStore`; the site built from it is parsed (the
overview's lifecycle column, the banner of a deprecated contract's page and none on an active one's) and opened in
headless Chromium; the run's `--metrics-file` is scraped by the real Prometheus the suite starts
(tests/test_metrics.py `alerting_stack`), whose documented DataContractSunsetSoon rule fires for `soon` and not
for `later`. A store and a Spark table of schema version 3 are migrated, their rows kept; a store opened to read
is read through a migrated copy and left as it was."""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
from datetime import datetime, timedelta, timezone
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner

from dc_bridge.cli import main
from dc_bridge.history import HistoryStore
from dc_bridge.history.store import SCHEMA, SCHEMA_VERSION
from dc_bridge.runner.history import run_record
from dc_bridge.verdict import LifecycleVerdict, ModelVerdict, Verdict

# the same contract as the lifecycle run tests register (a version of `customers`, served from ./customers.csv)
from test_lifecycle_run import CONTRACT  # noqa: E402
# contract id -> how many days ahead its version 1.0.0's sunset is (None: active); `ended` is moved on to sunset
SUNSETS = {"soon": 5, "later": 30, "ended": 60, "steady": None}
LIFECYCLE_COLUMNS = ("lifecycle_state", "lifecycle_sunset", "lifecycle_successor", "lifecycle_days_to_sunset")


def invoke(*args: str):
    return CliRunner().invoke(main, list(args))


def write(folder: Path, contract_id: str, version: str) -> str:
    name = f"{contract_id}-{version}.yaml"
    (folder / name).write_text(CONTRACT.format(id=contract_id, version=version), encoding="utf-8")
    return name


def sunset_day(days: int) -> str:
    return (datetime.now(timezone.utc) + timedelta(days=days)).date().isoformat()


@pytest.fixture(scope="module")
def project(tmp_path_factory, spark):
    """The project, its registry and one run of the three contracts recording to history.db and metrics/run.prom."""
    folder = tmp_path_factory.mktemp("lifecycle-history")
    (folder / "dc-bridge.toml").write_text('catalog = "iceberg"\nnamespace = "sales"\n[enforcement]\nlifecycle = "strict"\n',
                                           encoding="utf-8")
    (folder / "customers.csv").write_text("customer_id\nc1\nc2\n", encoding="utf-8")
    (folder / "metrics").mkdir()
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        for contract_id in SUNSETS:
            assert invoke("register", write(folder, contract_id, "1.0.0")).exit_code == 0
        assert invoke("register", write(folder, "soon", "2.0.0")).exit_code == 0
        for contract_id, days in SUNSETS.items():
            if days is not None:
                moved = invoke("lifecycle", f"{contract_id}@1.0.0", "--to", "deprecated", "--sunset", sunset_day(days),
                               *(("--successor", "soon@2.0.0") if contract_id == "soon" else ()))
                assert moved.exit_code == 0, moved.output
        assert invoke("lifecycle", "ended@1.0.0", "--to", "sunset", "--reason", "ended early").exit_code == 0
        ran = invoke("run", *(f"{c}-1.0.0.yaml" for c in SUNSETS), "--engines", "spark", "--history", "history.db",
                     "--metrics-file", "metrics/run.prom", "--output", "json", "--output-file", "verdicts.json")
    assert ran.exit_code == 1, ran.output  # `ended`, sunset under strict enforcement, failed
    return folder


def test_the_store_records_each_runs_lifecycle_as_its_verdict_says_it(project):
    verdicts = {v["contract_id"]: v for v in json.loads((project / "verdicts.json").read_text(encoding="utf-8"))}
    with sqlite3.connect(project / "history.db") as db:
        rows = {row[0]: row[1:] for row in db.execute(f"SELECT contract_id, {', '.join(LIFECYCLE_COLUMNS)} FROM runs")}
        outcomes = dict(db.execute("SELECT contract_id, outcome FROM runs"))
        assert db.execute("SELECT max(version) FROM schema_version").fetchone()[0] == SCHEMA_VERSION == 4
    for contract_id, days in SUNSETS.items():
        state, sunset, successor, left = rows[contract_id]
        if days is None:  # an active version: the run read no finding, and the store says nothing
            assert rows[contract_id] == (None,) * 4 and verdicts[contract_id]["lifecycle"] is None
            continue
        said = verdicts[contract_id]["lifecycle"]
        assert (state, sunset, successor, left) == (said["state"], said["sunset"], said["successor"], said["days_to_sunset"])
        # the date the transition was given, and the days from the run to it (the run at most a day after the transition)
        assert state == ("sunset" if contract_id == "ended" else "deprecated")
        assert sunset[:10] == sunset_day(days) and left in (days - 1, days)
        assert successor == ("soon@2.0.0" if contract_id == "soon" else None)
    # the outcome recorded is the run's, the lifecycle's weight in it: a sunset version under strict enforcement failed
    assert outcomes == {c: v["outcome"] for c, v in verdicts.items()} and outcomes["ended"] == "failed"
    assert {c: o for c, o in outcomes.items() if c != "ended"} == {"soon": "passed", "later": "passed", "steady": "passed"}
    # and as the site reads it
    newest = {run.contract_id: run for run in HistoryStore(project / "history.db", mode="read").runs()}
    assert (newest["soon"].lifecycle_state, newest["soon"].lifecycle_successor, newest["steady"].lifecycle_state) == (
        "deprecated", "soon@2.0.0", None)


class Page(HTMLParser):
    """The overview's lifecycle cells (contract -> state attribute, text) and a page's lifecycle banner text."""

    def __init__(self, text: str):
        super().__init__()
        self.cells: dict[str, tuple[str, str]] = {}
        self.banner: str | None = None
        self._row = self._cell = None
        self._banner = False
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "tr" and "data-contract" in attrs:
            self._row = attrs["data-contract"]
        if tag == "td" and "data-lifecycle" in attrs:
            self._cell = self._row
            self.cells[self._row] = (attrs["data-lifecycle"], "")
        if attrs.get("id") == "lifecycle":
            self._banner, self.banner = True, ""

    def handle_endtag(self, tag):
        if tag == "td":
            self._cell = None
        if tag == "p":
            self._banner = False

    def handle_data(self, data):
        if self._cell is not None:
            state, text = self.cells[self._cell]
            self.cells[self._cell] = (state, text + data)
        if self._banner:
            self.banner += data


def _site(project: Path) -> Path:
    site = project / "site"
    built = invoke("site", "--history", str(project / "history.db"), "--out", str(site))
    assert built.exit_code == 0, built.output
    return site


def test_the_site_shows_the_state_on_the_overview_and_a_banner_on_a_deprecated_contracts_page(project):
    site = _site(project)
    overview = Page((site / "index.html").read_text(encoding="utf-8"))
    header = (site / "index.html").read_text(encoding="utf-8").split("<thead>")[1].split("</thead>")[0]
    assert '<th scope="col">lifecycle</th>' in header
    soon, later = sunset_day(5), sunset_day(30)
    assert overview.cells["steady"] == ("", "")
    state, text = overview.cells["soon"]
    assert state == "deprecated" and text.startswith("deprecated") and f"sunset {soon} (" in text and "successor soon@2.0.0" in text
    state, text = overview.cells["later"]
    assert state == "deprecated" and f"sunset {later} (" in text and "successor" not in text

    page = Page((site / "contracts" / "soon.html").read_text(encoding="utf-8"))
    assert page.banner is not None and page.banner.startswith("Deprecated.")
    assert f"version 1.0.0 is deprecated: sunset {soon} (" in page.banner and "successor soon@2.0.0" in page.banner
    assert Page((site / "contracts" / "steady.html").read_text(encoding="utf-8")).banner is None
    ended = Page((site / "contracts" / "ended.html").read_text(encoding="utf-8"))
    assert ended.banner.startswith("Past its sunset.") and "version 1.0.0 is sunset: sunset " in ended.banner
    assert overview.cells["ended"][0] == "sunset"


def test_the_banner_and_the_column_read_in_headless_chromium(project):
    if shutil.which("chromium") is None and shutil.which("chromium-browser") is None:
        pytest.skip("Chromium is not installed")
    from browser import Chromium

    site = _site(project)
    with Chromium(project / "profile", size=(1366, 900)) as browser:
        assert browser.open(site / "contracts" / "soon.html").requests == []
        banner = browser.evaluate('(() => { const b = document.getElementById("lifecycle"); const r = b.getBoundingClientRect();'
                                  ' return [b.innerText, r.width > 0 && r.height > 0, getComputedStyle(b).backgroundColor]; })()')
        assert banner[0].startswith("Deprecated.") and sunset_day(5) in banner[0] and banner[1]
        assert banner[2] not in ("rgba(0, 0, 0, 0)", "transparent")  # set apart from the page, not plain text
        browser.open(site / "index.html")
        cells = browser.evaluate('Object.fromEntries(Array.from(document.querySelectorAll("#contracts tbody tr"))'
                                 '.map(r => [r.dataset.contract, r.querySelector("td.lifecycle").innerText.trim()]))')
        assert cells["steady"] == "" and cells["soon"].startswith("deprecated") and "soon@2.0.0" in cells["soon"]


def test_the_sunset_alert_fires_in_prometheus_a_week_ahead_and_not_a_month_ahead(project, tmp_path):
    from test_metrics import alerting_stack, wait_for

    with alerting_stack(tmp_path) as stack:
        # the run's own metrics file, where node_exporter's textfile collector reads it
        shutil.copy(project / "metrics" / "run.prom", stack.textfile / "run.prom")
        query = 'dc_bridge_contract_sunset_timestamp_seconds{job="textfile"}'
        stamps = wait_for("the three sunsets scraped", lambda: {r["metric"]["contract"]: float(r["value"][1]) for r in stack.query(query)}
                          if len(stack.query(query)) == 3 else None, 60)
        assert {c: datetime.fromtimestamp(s, timezone.utc).date().isoformat() for c, s in stamps.items()} == {
            c: sunset_day(days) for c, days in SUNSETS.items() if days is not None}
        assert {r["metric"]["contract"] for r in stack.query('dc_bridge_contract_lifecycle{state="deprecated"} == 1')} == {"soon", "later"}
        firing = wait_for("DataContractSunsetSoon for soon", lambda: stack.notified("DataContractSunsetSoon", "soon"), 90)
        assert firing[0]["labels"]["version"] == "1.0.0" and firing[0]["labels"]["priority"] == "ticket"
        assert firing[0]["annotations"]["summary"].startswith("Data contract soon 1.0.0 is sunset in ")
        # the rule has been evaluated over every series since (the firing one was): the sunsets a month and more away are quiet
        alerts = stack.query('ALERTS{alertname="DataContractSunsetSoon"}')
        assert {r["metric"]["contract"] for r in alerts} == {"soon"}
        assert stack.notified("DataContractSunsetSoon", "later") == stack.notified("DataContractSunsetSoon", "ended") == []


# --- schema version 4: the columns added to an older store and an older table, nothing lost -----------------------------

def _verdict(contract_id: str, lifecycle: LifecycleVerdict | None) -> Verdict:
    return Verdict(contract_id=contract_id, contract_version="1.0.0", contract_file="c.yaml", outcome="passed",
                   counts={"passed": 0}, models=[ModelVerdict(name="customers", outcome="passed", counts={}, checks=[])],
                   engines=["spark"], lifecycle=lifecycle)


DEPRECATED = LifecycleVerdict(state="deprecated", weighs_as="passed", level="warn", message="deprecated, sunset 2027-03-31",
                              sunset="2027-03-31T00:00:00Z", sunset_timestamp=1806364800.0, days_to_sunset=12,
                              successor="soon@2.0.0", where="iceberg sales")


def _version_3(path: Path) -> None:
    """A store as schema version 3 wrote it (the runs table without the lifecycle columns) holding one run."""
    v3 = SCHEMA
    for column, kind in zip(LIFECYCLE_COLUMNS, ("TEXT", "TEXT", "TEXT", "INTEGER")):
        v3 = v3.replace(f",\n    {column} {kind}", "")
    assert v3 != SCHEMA and "lifecycle" not in v3
    with sqlite3.connect(path) as db:
        db.executescript(v3)
        db.executemany("INSERT INTO schema_version VALUES (?, ?)", [(v, "2026-01-01T00:00:00+00:00") for v in (1, 2, 3)])
        db.execute("INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   ("old-run", "soon", "1.0.0", "2026-01-01T06:00:00+00:00", 1767247200000000, "passed", 1, 3, 0,
                    "c.yaml", None, None, None, 1.5, None, "run", None))


def test_a_version_3_store_is_read_unchanged_and_migrated_by_a_run_keeping_its_rows(tmp_path):
    path = tmp_path / "v3.db"
    _version_3(path)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    with sqlite3.connect(path) as db:
        before = db.execute("SELECT * FROM runs").fetchall()
    # a command that only reads: the runs through a migrated copy, the lifecycle unknown; the file as it was
    read = HistoryStore(path, mode="read")
    assert [(r.run_id, r.lifecycle_state, r.lifecycle_days_to_sunset) for r in read.runs()] == [("old-run", None, None)]
    assert hashlib.sha256(path.read_bytes()).hexdigest() == digest and sorted(p.name for p in tmp_path.iterdir()) == ["v3.db"]

    store = HistoryStore(path)  # a command that writes migrates it, in the transaction that opens it
    at = datetime(2026, 1, 2, 6, tzinfo=timezone.utc)
    store.append(run_record(_verdict("soon", DEPRECATED), ["customers"], at), _verdict("soon", DEPRECATED))
    store.append(run_record(_verdict("steady", None), ["customers"], at), _verdict("steady", None))
    with sqlite3.connect(path) as db:
        assert [v for (v,) in db.execute("SELECT version FROM schema_version ORDER BY rowid")] == [1, 2, 3, 4]
        assert [row[1] for row in db.execute("PRAGMA table_info(runs)")][-4:] == list(LIFECYCLE_COLUMNS)
        after = db.execute(f"SELECT contract_id, {', '.join(LIFECYCLE_COLUMNS)} FROM runs ORDER BY rowid").fetchall()
        old = db.execute("SELECT * FROM runs WHERE run_id = 'old-run'").fetchall()
    assert old == [before[0] + (None,) * 4]  # the old run as written, the new columns NULL in it
    assert after == [("soon", None, None, None, None), ("soon", "deprecated", "2027-03-31T00:00:00Z", "soon@2.0.0", 12),
                     ("steady", None, None, None, None)]


def test_a_version_3_spark_table_gets_the_lifecycle_columns_and_its_rows_carry_the_runs_state(spark):
    from dc_bridge.history.spark_store import COLUMNS, SparkTableStore

    names = [column for column, _ in COLUMNS]
    v3 = COLUMNS[:names.index("lifecycle_state")]
    spark.sql("DROP TABLE IF EXISTS lifecycle_v3")
    spark.sql(f"CREATE TABLE lifecycle_v3 ({', '.join(f'{c} {k}' for c, k in v3)}) USING parquet")
    old = (3, "old-run", "soon", "1.0.0", "2026-01-01T06:00:00+00:00", 1, "passed", True, 1, 0) + (None,) * (len(v3) - 10)
    spark.createDataFrame([old], ", ".join(f"{c} {k.lower()}" for c, k in v3)).write.insertInto("lifecycle_v3")
    store = SparkTableStore(spark, "table:lifecycle_v3")
    at = datetime(2026, 1, 2, 6, tzinfo=timezone.utc)
    run_id = store.append(run_record(_verdict("soon", DEPRECATED), ["customers"], at), _verdict("soon", DEPRECATED))
    table = spark.table("lifecycle_v3")
    assert table.columns == names
    rows = table.collect()
    kept = [r.asDict() for r in rows if r.run_id == "old-run"]
    assert kept == [{**dict(zip(names, old + (None,) * 4))}]
    mine = {tuple(r[c] for c in ("schema_version",) + LIFECYCLE_COLUMNS) for r in rows if r.run_id == run_id}
    # every row of the run (its own and its metric rows) carries its state, as it carries the run's other facts
    assert mine == {(4, "deprecated", "2027-03-31T00:00:00Z", "soon@2.0.0", 12)}
    spark.sql("DROP TABLE lifecycle_v3")


def test_a_successor_and_state_holding_markup_are_shown_as_text(tmp_path):
    """What a run recorded is written into the pages as text: a successor id with quotes, markup and `${...}`."""
    pytest.importorskip("vl_convert")
    hostile = 'soon"<b onload=x>${HOME}\'@2.0.0'
    store = HistoryStore(tmp_path / "history.db")
    verdict = _verdict("soon", DEPRECATED.model_copy(update={"state": "sunset", "successor": hostile, "days_to_sunset": -3}))
    store.append(run_record(verdict, ["customers"], datetime(2026, 1, 2, 6, tzinfo=timezone.utc)), verdict)
    site = tmp_path / "site"
    assert invoke("site", "--history", str(store.path), "--out", str(site)).exit_code == 0
    index, page = (site / "index.html").read_text(encoding="utf-8"), (site / "contracts" / "soon.html").read_text(encoding="utf-8")
    assert "<b onload" not in index + page
    assert Page(index).cells["soon"][1].endswith(f"sunset 2027-03-31 (3 days before the run), successor {hostile}")
    assert Page(page).banner.startswith("Past its sunset.") and f"successor {hostile}, as the registry said" in Page(page).banner
