"""Hostile names through the surfaces that write or name things (issue 37, class 3): column names and
contract ids with dots, spaces, `$ # % ' " ( ) , -`, backticks, brackets, unicode, names that differ
only in punctuation or case, and very long ones.

One table of names (`COLUMNS`), fed through, with one engine pass each:
- `dc_bridge.split`: every row judged by every name's check, the valid and quarantined rows exact;
- `run --quarantine` on the command line (the split written out), the outputs' columns exact;
- the streaming guard's function on a batch, its sink, quarantine and log;
- the history store and its site: a store holding runs of contracts whose ids differ only in
  punctuation or case gets one page each (no page written over another), every id and check id shown
  as text (HTML escaping; chart specifications that cannot end the data block holding them);
- OpenLineage: the run event names each column as it is.
Spark resolves column names case-insensitively by default, so two columns differing only in case
cannot share one DataFrame (Spark's rule, not dc-bridge's): the case-only pair is among the ids.
"""

from __future__ import annotations

import html
import json
import re
from datetime import datetime, timezone
from html.parser import HTMLParser

import pytest
import yaml
from click.testing import CliRunner

import dc_bridge
from dc_bridge.enforce.split import VIOLATIONS_COLUMN

NOW = datetime(2024, 6, 1, tzinfo=timezone.utc)
COLUMNS = ["e.mail", "first name", "pri$ce$", "#tag", "100%", "it's", 'say "hi"', "f(x)", "a,b", "dash-ed", "back`tick",
           "ünïcødé 名前", "a_b", "a b", "a-b", " lead", "[br]", "a:b", "semi;colon", "{curly}", "eq=ual", "<td>", "x" * 200]
# a unique key's column: the split's lookup joins on it (enforce/scope.py); each row's own value, so no violation
KEY = "ke.y `(1)`"
# ids of contracts that differ only in punctuation or case: each a page of its own in the site
IDS = ["urn:x:a.b", "urn:x:a_b", "urn:x:a b", "urn:x:A.b", "<script>alert(1)</script>", "x" * 300]


def contract_text(contract_id: str) -> str:
    properties = [{"name": name, "logicalType": "string", "required": True} for name in COLUMNS]
    properties[1]["logicalTypeOptions"] = {"maxLength": 3}
    properties.append({"name": KEY, "logicalType": "string", "unique": True})
    return yaml.safe_dump({"apiVersion": "v3.0.2", "kind": "DataContract", "id": contract_id, "version": "1.0.0",
                           "status": "active", "schema": [{"name": "orders", "properties": properties}]}, allow_unicode=True)


def rows():
    """Row 0 clean; row i (1..) has a null in column i-1; the last row breaks `first name`'s maxLength."""
    clean = ["v"] * len(COLUMNS)
    found = [("0", *clean, "0")]
    for index in range(len(COLUMNS)):
        row = list(clean)
        row[index] = None
        found.append((str(index + 1), *row, str(index + 1)))
    row = list(clean)
    row[1] = "long"
    found.append(("last", *row, "last"))
    return found


@pytest.fixture(scope="module")
def frame(spark):
    from pyspark.sql.types import StringType, StructField, StructType

    schema = StructType([StructField(name, StringType()) for name in ["row", *COLUMNS, KEY]])
    return spark.createDataFrame(rows(), schema)


def _contract(tmp_path, contract_id="urn:test:hostile"):
    path = tmp_path / "c.yaml"
    path.write_text(contract_text(contract_id), encoding="utf-8")
    return path


def _ids(df) -> set[str]:
    return {r["row"] for r in df.select("row").collect()}


# the rows a violation quarantines: one per column, and the long value
QUARANTINED = {str(i) for i in range(1, len(COLUMNS) + 1)} | {"last"}


def test_the_split_and_the_guard_judge_every_name(spark, frame, tmp_path):
    contract = _contract(tmp_path)
    result = dc_bridge.split(contract, "orders", frame, now=NOW)
    try:
        valid, quarantined, verdict = result
        assert _ids(valid) == {"0"} and _ids(quarantined) == QUARANTINED
        assert valid.columns == frame.columns + [VIOLATIONS_COLUMN]
        failed = sorted((c.columns[0], c.observed) for c in verdict.checks() if c.outcome == "failed")
        assert failed == sorted([(name, 1) for name in COLUMNS] + [("first name", 1)])  # a null each, and the long value
        assert [(c.outcome, c.observed) for c in verdict.checks() if c.columns == [KEY] and c.kind == "unique"] == [("passed", 0)]
    finally:
        result.release()
    # the guard's function as foreachBatch calls it, on the same rows
    sink, quarantine, log = tmp_path / "sink", tmp_path / "q", tmp_path / "log.jsonl"
    judge = dc_bridge.streaming.guard(contract, "orders", sink=str(sink), log=str(log), on_failure="quarantine",
                                      quarantine=str(quarantine))
    judge(frame, 0)
    assert _ids(spark.read.parquet(str(sink))) == {"0"} and spark.read.parquet(str(sink)).columns == frame.columns
    assert _ids(spark.read.parquet(str(quarantine))) == QUARANTINED
    assert json.loads(log.read_text(encoding="utf-8"))["failing"]


def test_run_quarantine_writes_every_name(spark, frame, tmp_path):
    from dc_bridge.cli import main

    data = tmp_path / "orders.parquet"
    frame.write.parquet(str(data))
    contract = _contract(tmp_path)
    result = CliRunner().invoke(main, ["run", str(contract), "--data", f"orders={data}:parquet", "--quarantine", str(tmp_path / "q"),
                                       "--valid-output", str(tmp_path / "v")])
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    valid, quarantined = spark.read.parquet(str(tmp_path / "v")), spark.read.parquet(str(tmp_path / "q"))
    assert _ids(valid) == {"0"} and valid.columns == frame.columns
    assert _ids(quarantined) == QUARANTINED and quarantined.columns == frame.columns + [VIOLATIONS_COLUMN]


class _Text(HTMLParser):
    """The text and the attributes of a page, as a browser reads them; and every element's tag."""

    def __init__(self):
        super().__init__()
        self.text, self.tags, self.scripts = [], [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.text += [value or "" for _, value in attrs]
        if tag == "script":
            self.scripts.append(dict(attrs))

    def handle_data(self, data):
        self.text.append(data)


def test_history_site_and_openlineage_name_everything_as_it_is(tmp_path):
    """Verdicts built by the fold (no Spark): one per contract id, each with a check per hostile column."""
    pytest.importorskip("openlineage.client")
    from dc_bridge.compiler import compile_contract, load_for_run, plan_for_run
    from dc_bridge.engines.results import CheckResult, EngineReport
    from dc_bridge.history import open_store
    from dc_bridge.history.site import build_site
    from dc_bridge.report.openlineage import run_event
    from dc_bridge.runner.history import run_record
    from dc_bridge.verdict import Evidence, fold

    store = open_store(str(tmp_path / "runs #1 ?%20.db"))  # read through a file: URI, which these characters would cut
    events = []
    for number, contract_id in enumerate(IDS):
        path = tmp_path / f"c{number}.yaml"
        path.write_text(contract_text(contract_id), encoding="utf-8")
        loaded, local = load_for_run(str(path))
        plan, invalid = plan_for_run(loaded, local)
        compiled = compile_contract(loaded, invalid=invalid, plan=plan)
        results = {c.id: CheckResult(check_id=c.id, engine="spark", outcome="failed", observed=float(index))
                   for index, c in enumerate(plan.checks)}
        report = EngineReport("spark", "orders", results, 0.1)
        for run in range(2):  # two runs: a chart of each check's observed values
            verdict = fold(plan, {"orders": {"spark": report}}, compiled.coverage, ("spark",), invalid,
                           Evidence(row_counts={"orders": 5}), contract_file=str(path), started_at=f"2024-06-0{run + 1}T00:00:00+00:00",
                           data_sources={"orders": str(tmp_path / "lake" / "orders.parquet")})
            store.append(run_record(verdict, ["orders"], datetime(2024, 6, run + 1, tzinfo=timezone.utc)), verdict)
        events.append(run_event(verdict))
    pages = [page for page in build_site(store, tmp_path / "site").written if page.suffix == ".html"]
    # one first page per contract id: none written over another's
    firsts = [p for p in pages if p.parent.name == "contracts" and ".page" not in p.name]
    assert len({p.name.casefold() for p in firsts}) == len(IDS), sorted(p.name for p in firsts)
    for page in pages:
        assert page.resolve().is_relative_to((tmp_path / "site").resolve())
        parsed = _Text()
        parsed.feed(page.read_text(encoding="utf-8"))
        # the id `<script>...` is text, not an element: the only scripts are the site's own files and its charts' data blocks
        assert all(s.get("src") in ("../assets/vega.js", "../assets/site.js", "assets/site.js") or s.get("type") == "application/json"
                   for s in parsed.scripts), (page, parsed.scripts)
    shown = {}
    for page in firsts:
        parsed = _Text()
        parsed.feed(page.read_text(encoding="utf-8"))
        text = "".join(parsed.text)
        shown[page.name] = text
    for contract_id in IDS:
        assert any(contract_id in text for text in shown.values()), contract_id
    for column in COLUMNS:
        # each check id holds the column as written
        assert all(column in text for text in shown.values()), column
    # each chart's specification, read back from its data block, describes its check id as written
    charts = 0
    for page in pages:
        text = page.read_text(encoding="utf-8")
        for check_id, block in re.findall(r'<figure class="chart" data-check="([^"]*)" data-spec="([^"]+)">', text):
            charts += 1
            spec = json.loads(re.search(rf'<script type="application/json" id="{block}">(.*?)</script>', text, re.S).group(1))
            assert spec["description"].startswith(html.unescape(check_id) + ": "), check_id
    assert charts >= len(COLUMNS) * len(IDS)
    # OpenLineage: each assertion names its column as it is, the dataset its path
    for event in events:
        (dataset,) = event.inputs
        assert dataset.name == str(tmp_path / "lake" / "orders.parquet")
        columns = {a.column for a in dataset.inputFacets["dataQualityAssertions"].assertions}
        assert set(COLUMNS) <= columns


@pytest.mark.parametrize(("source", "expected"), [
    ("s3a://bucket/in/a#b?c.csv", ("s3://bucket", "in/a#b?c.csv")),  # urlsplit cut the key at `#`: `in/a`
    ("file:///tmp/a%20b/%23x.csv", ("file", "/tmp/a b/#x.csv")),  # the file's path, as the plain path names it
    ("/tmp/a b/#x.csv", ("file", "/tmp/a b/#x.csv")),
    ("hdfs://nn:8020/lake/ünï cødé/x.parquet", ("hdfs://nn:8020", "lake/ünï cødé/x.parquet")),
])
def test_openlineage_names_a_dataset_by_its_whole_path(source, expected):
    from dc_bridge.report.openlineage import dataset_name

    assert dataset_name(source, "orders") == expected
