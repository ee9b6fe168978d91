"""What the monitors said travels with the verdict into every report (docs/reports.md, "Monitors";
dc_bridge/report/monitors.py): the console, JUnit, the HTML page, OORS, OpenLineage and Prometheus.

One verdict built here (no Spark: the reports read a verdict, however it was made) carries four monitors
with planted values: an anomaly at `warn`, an anomaly at `strict`, one still learning, one normal; a
column name holding rich markup and a character XML forbids rides along. Each format is read back by
its own parser and, where the format has one, validated against its official schema (tests/schemas).
A verdict without monitors writes what it wrote before.
"""

from __future__ import annotations

import json
import os
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pytest
from rich.console import Console

from dc_bridge.monitors import MonitorVerdict, SeriesKey
from dc_bridge.outcomes import ALL
from dc_bridge.report.verdict_formats import as_junit, print_console
from dc_bridge.verdict import CheckVerdict, ModelVerdict, Verdict

SCHEMAS = Path(__file__).parent / "schemas"
HOSTILE_COLUMN = "e[/x]mail\x01"


def _check(check_id: str, outcome: str) -> CheckVerdict:
    return CheckVerdict(check_id=check_id, model="orders", kind="not_null", columns=["amount"], outcome=outcome,
                        severity="error", observed=0 if outcome == "passed" else 3, unit="rows", source={"file": "c.yaml", "line": 9})


def _plain() -> Verdict:
    checks = [_check("orders.amount.required", "passed"), _check("orders.id.required", "passed")]
    counts = {o: sum(c.outcome == o for c in checks) for o in ALL}
    return Verdict(contract_id="urn:shop:orders", contract_version="1.2.0", contract_file="c.yaml", outcome="passed", counts=counts,
                   models=[ModelVerdict(name="orders", outcome="passed", counts=counts, checks=checks)],
                   engines=["spark"], engine_seconds={"spark": 0.5}, started_at="2026-03-02T06:00:00+00:00", seconds=2.0,
                   data_sources={"orders": "/data/orders.parquet"})


MONITORS = [
    MonitorVerdict(monitor_id=SeriesKey("check", "orders", "orders.amount.required").monitor_id, metric="check", model="orders",
                   subject="orders.amount.required", outcome="normal", severity="warn", unit="rows", direction="both", observed=14.0,
                   centre=12.0, lower=0.0, upper=40.0, points=20,
                   sentence="orders.amount.required counted 14 rows, within the expected 0 to 40 (20 earlier runs)"),
    MonitorVerdict(monitor_id="freshness_age(orders)", metric="freshness_age", model="orders", outcome="learning", severity="warn",
                   unit="seconds", direction="up", observed=5400.0, points=3, needed=4,
                   sentence="freshness age 1h 30min: learning, 4 more runs before it is judged (3 earlier runs)"),
    MonitorVerdict(monitor_id=SeriesKey("null_fraction", "orders", HOSTILE_COLUMN).monitor_id, metric="null_fraction", model="orders",
                   subject=HOSTILE_COLUMN, outcome="anomalous", severity="warn", unit="ratio", direction="up", observed=0.125,
                   centre=0.01, lower=0.0, upper=0.0475, points=14,
                   sentence="null fraction 0.125 is above the expected 0 to 0.0475 (14 earlier runs)"),
    MonitorVerdict(monitor_id="rows(orders)", metric="rows", model="orders", outcome="anomalous", severity="strict", unit="rows",
                   direction="both", observed=1041002.0, centre=1081800.0, lower=1079500.0, upper=1084100.0, season="Monday", points=12,
                   sentence="rows 1,041,002 are below the expected 1,079,500 to 1,084,100 for a Monday (12 earlier Mondays)"),
]
NORMAL, LEARNING, WARN, STRICT = MONITORS


def _monitored() -> Verdict:
    # a strict anomaly fails the contract's verdict (the run decides that; here it is planted with the monitors)
    return _plain().model_copy(update={"monitors": MONITORS, "outcome": "failed"})


# --- console -----------------------------------------------------------------------------------------------

def _console(verdict: Verdict, width: int = 100) -> str:
    console = Console(width=width, record=True, file=open(os.devnull, "w"), color_system=None)
    print_console(verdict, console)
    return console.export_text()


def test_console_lists_anomalies_then_learning_then_counts_the_normal_ones():
    text = _console(_monitored())
    lines = text.splitlines()
    start = lines.index("monitors (2 anomalous, 1 learning, 1 normal):")
    end = lines.index("contract verdict: failed (spark 0.5s)")  # after the checks, before the contract's verdict
    # one item per monitor, its outcome as a word (then the id, whole), its sentence wrapping under the id
    block = [line for line in lines[start + 1:end] if re.match(r"  \S", line)]
    assert [line.split()[0] for line in block] == ["anomalous", "anomalous", "learning", "normal"], text
    assert "(strict)" in block[0] and STRICT.monitor_id in block[0]
    assert "(warn)" in block[1] and "null_fraction(orders, e[/x]mail\\x01)" in block[1]  # markup shown, the control character visible
    assert LEARNING.monitor_id in block[2]
    squeezed = re.sub(r"\s+", " ", text)
    assert all(m.sentence in squeezed for m in (STRICT, WARN, LEARNING))
    assert "1 monitor(s)" in block[3] and NORMAL.monitor_id not in text  # the normal ones: a count, not a list
    assert _console(_plain()).count("monitors") == 0


def test_console_says_why_a_contract_whose_checks_passed_failed():
    """A strict anomaly fails a contract whose checks all passed: the console says so beside the verdict, in the
    verdict's own reason (the JSON's `reason`)."""
    from dc_bridge.verdict import with_monitors

    verdict = with_monitors(_plain(), MONITORS)
    assert verdict.outcome == "failed" and verdict.reason
    squeezed = re.sub(r"\s+", " ", _console(verdict))
    assert f"failed because {verdict.reason} contract verdict: failed" in squeezed, squeezed
    assert "because" not in _console(with_monitors(_plain(), [NORMAL, WARN]))  # a warn anomaly changes nothing


def test_console_fits_a_narrow_console_and_names_each_anomaly_whole():
    text = _console(_monitored(), width=60)
    assert max(len(line) for line in text.splitlines()) <= 60, text
    squeezed = re.sub(r"\s+", "", text)
    for monitor in (STRICT, WARN, LEARNING):
        assert re.sub(r"\s+", "", monitor.sentence) in squeezed


def test_console_lists_at_most_the_limit_and_says_how_many_more():
    console = Console(width=80, record=True, file=open(os.devnull, "w"), color_system=None)
    print_console(_monitored(), console, limit=1)
    text = console.export_text()
    assert STRICT.monitor_id in text and LEARNING.monitor_id not in text
    assert "and 2 more; use --output json for all of them" in text and "1 monitor(s) within the band" in text


# --- JUnit ---------------------------------------------------------------------------------------------------

def _junit_cases(text: str) -> dict[str, ET.Element]:
    import xmlschema

    xmlschema.XMLSchema(str(SCHEMAS / "junit-10.xsd")).validate(text)
    return {case.get("name"): case for case in ET.fromstring(text).iter("testcase")}


def test_junit_a_strict_anomaly_fails_a_warn_one_passes_with_its_output_learning_is_skipped():
    text = as_junit(_monitored())
    root = ET.fromstring(text)
    suite = root.find("testsuite[@name='monitors']")
    assert suite is not None
    assert {k: suite.get(k) for k in ("tests", "failures", "errors", "skipped")} == \
        {"tests": "4", "failures": "1", "errors": "0", "skipped": "1"}
    assert root.get("tests") == "6" and root.get("failures") == "1"  # two checks and four monitors
    cases = _junit_cases(text)
    strict = cases[STRICT.monitor_id]
    assert strict.get("classname") == "urn:shop:orders.monitors"
    assert strict.find("failure").get("message") == f"anomalous (strict): {STRICT.sentence}"
    warn = cases["null_fraction(orders, e[/x]mail\\x01)"]  # the character XML forbids, written visibly
    assert [child.tag for child in warn] == ["system-out"] and warn.find("system-out").text == f"anomalous (warn): {WARN.sentence}"
    assert [child.tag for child in cases[LEARNING.monitor_id]] == ["skipped"]
    assert LEARNING.sentence in cases[LEARNING.monitor_id].find("skipped").get("message")
    assert [child.tag for child in cases[NORMAL.monitor_id]] == ["system-out"]
    # the anomalies first, in the order the console lists them
    assert [c.get("name") for c in suite.iter("testcase")] == [m.monitor_id.replace("\x01", "\\x01") for m in (STRICT, WARN, LEARNING, NORMAL)]


def test_junit_of_several_contracts_holds_each_ones_monitors_in_its_suite():
    text = as_junit([_monitored(), _plain()])
    root = ET.fromstring(text)
    first, second = root.findall("testsuite")
    assert (first.get("tests"), first.get("failures"), first.get("skipped")) == ("6", "1", "1")
    assert second.get("tests") == "2" and root.get("tests") == "8"
    assert {c.get("classname") for c in first.iter("testcase")} == {"urn:shop:orders.orders", "urn:shop:orders.monitors"}
    _junit_cases(text)


def test_junit_without_monitors_has_no_monitors_suite():
    assert "monitors" not in as_junit(_plain())


# --- the HTML page -----------------------------------------------------------------------------------------------

class _Table(HTMLParser):
    """The rows of the table under the heading `title`: each cell's text, and each row's class."""

    def __init__(self, title: str):
        super().__init__()
        self.title, self.heading, self.inside, self.rows, self.classes, self.cell = title, None, False, [], [], None

    def handle_starttag(self, tag, attrs):
        if self.cell is not None:  # a cell's elements are words apart
            self.cell += " "
        if tag == "h2":
            self.heading = ""
        elif tag == "tr" and self.inside:
            self.rows.append([])
            self.classes.append(dict(attrs).get("class"))
        elif tag in ("td", "th") and self.inside:
            self.cell = ""

    def handle_endtag(self, tag):
        if tag == "h2":
            self.inside, self.heading = self.heading == self.title, None
        elif tag in ("td", "th") and self.cell is not None and self.rows:
            self.rows[-1].append(" ".join(self.cell.split()))
            self.cell = None
        elif tag == "table":
            self.inside = False

    def handle_data(self, data):
        if self.heading is not None:
            self.heading += data
        if self.cell is not None:
            self.cell += data


def _html_rows(page: str) -> tuple[list[list[str]], list[str | None]]:
    table = _Table("Monitors")
    table.feed(page)
    return table.rows, table.classes


def test_html_has_a_monitors_table_with_each_band():
    from dc_bridge.report.html import as_html, as_html_many

    page = as_html(_monitored())
    assert "0 skipped; monitors: 2 anomalous, 1 learning, 1 normal</p>" in page  # beside the checks' counts, at the top
    rows, classes = _html_rows(page)
    header, *body = rows
    assert header == ["outcome", "monitor", "observed", "expected band", "earlier runs", "what it says"]
    by_id = {row[1].split(" ")[0]: row for row in body}
    assert [row[0] for row in body] == ["anomalous", "anomalous", "learning", "normal"]  # the word, not a colour alone
    assert classes[1:] == ["failed", "warning", "skipped", "passed"]
    assert by_id["rows(orders)"][2:6] == ["1,041,002", "1,079,500 to 1,084,100 (Monday)", "12", STRICT.sentence]
    assert by_id["freshness_age(orders)"][2:5] == ["1h 30min", "", "3 (4 more needed)"]  # a duration, no band yet
    assert by_id["null_fraction(orders,"][2:4] == ["0.125", "0 to 0.0475"]
    assert "e[/x]mail\\x01" in body[1][1]  # the column's control character written visibly
    many = as_html_many([_monitored(), _plain()])
    assert len(_html_rows(many)[0]) == 1 + len(MONITORS)
    assert "Monitors" not in as_html(_plain())


# --- OORS --------------------------------------------------------------------------------------------------------

def test_oors_a_metric_result_per_monitor_with_its_band_and_severity():
    import jsonschema

    from dc_bridge.report.oors import as_oors

    message = json.loads(as_oors(_monitored()))
    schema = json.loads((SCHEMAS / "oors" / "oors-rfc0018-described.json").read_text())
    jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER).validate(message)
    results = {r["id"]: r for r in message["results"] if r["type"] == "metric"}
    assert {i: (r["status"], r["severity"]) for i, r in results.items()} == {
        STRICT.monitor_id: ("fail", "error"), WARN.monitor_id: ("warn", "warning"),
        LEARNING.monitor_id: ("skip", "warning"), NORMAL.monitor_id: ("pass", "warning")}
    assert results[STRICT.monitor_id]["measure"] == {"metric": "rows", "value": 1041002.0, "unit": "rows",
                                                     "threshold": {"mustBeBetween": [1079500.0, 1084100.0]}}
    assert results[STRICT.monitor_id]["message"] == STRICT.sentence
    assert results[STRICT.monitor_id]["target"] == {"resourceType": "dataset", "resourceIdentifier": "/data/orders.parquet"}
    assert "threshold" not in results[LEARNING.monitor_id]["measure"]
    assert len(message["results"]) == 2 + len(MONITORS)
    assert all(r["type"] == "check" for r in json.loads(as_oors(_plain()))["results"])


# --- OpenLineage --------------------------------------------------------------------------------------------------

def test_openlineage_an_assertion_per_judged_monitor_valid_against_the_facet_schema():
    pytest.importorskip("openlineage.client")
    from openlineage.client.serde import Serde

    from dc_bridge.report.openlineage import run_event
    from test_openlineage import _valid

    event = json.loads(Serde.to_json(run_event(_monitored())))
    _valid(event)
    (dataset,) = event["inputs"]
    assertions = {a["name"]: a for a in dataset["inputFacets"]["dataQualityAssertions"]["assertions"]}
    monitors = {name: a for name, a in assertions.items() if a["assertion"].startswith("monitor/")}
    assert set(monitors) == {STRICT.monitor_id, WARN.monitor_id, NORMAL.monitor_id}  # learning judged nothing
    assert {n: (a["success"], a["severity"]) for n, a in monitors.items()} == {
        STRICT.monitor_id: (False, "error"), WARN.monitor_id: (False, "warn"), NORMAL.monitor_id: (True, "warn")}
    strict = monitors[STRICT.monitor_id]
    assert (strict["assertion"], strict["actual"], strict["expected"]) == ("monitor/rows", "1041002", "1,079,500 to 1,084,100 (Monday)")  # every digit
    assert strict["description"] == STRICT.sentence and strict["params"]["outcome"] == "anomalous"
    plain = json.loads(Serde.to_json(run_event(_plain())))
    assert not [a for a in plain["inputs"][0]["inputFacets"]["dataQualityAssertions"]["assertions"] if a["assertion"].startswith("monitor/")]



def test_openlineage_a_count_in_the_millions_keeps_every_digit():
    pytest.importorskip("openlineage.client")
    from openlineage.client.serde import Serde

    from dc_bridge.report.openlineage import run_event

    verdict = _plain()
    checks = verdict.models[0].checks
    checks[0] = checks[0].model_copy(update={"observed": 2_500_001.0})
    (dataset,) = json.loads(Serde.to_json(run_event(verdict)))["inputs"]
    assert dataset["inputFacets"]["dataQualityAssertions"]["assertions"][0]["actual"] == "2500001"

# --- Prometheus ---------------------------------------------------------------------------------------------------

def test_prometheus_monitor_families_read_back_by_prometheus_client():
    from prometheus_client.parser import text_string_to_metric_families

    from dc_bridge.report.prometheus import exposition

    plain_text, text = exposition([_plain()]), exposition([_monitored()])
    assert "dc_bridge_monitor" not in plain_text
    read = [s for family in text_string_to_metric_families(text) for s in family.samples]
    mine = [s for s in read if s.name.startswith("dc_bridge_monitor_")]
    base = {"contract": "urn:shop:orders", "version": "1.2.0", "model": "orders"}
    for monitor in MONITORS:
        labels = {**base, "metric": monitor.metric, "subject": monitor.subject}
        states = {s.labels["outcome"]: s.value for s in mine if s.name == "dc_bridge_monitor_outcome"
                  and {k: v for k, v in s.labels.items() if k not in ("outcome", "level")} == labels}
        assert {s.labels["level"] for s in mine if s.name == "dc_bridge_monitor_outcome" and s.labels["subject"] == monitor.subject
                and s.labels["metric"] == monitor.metric} == {monitor.severity}
        assert states == {o: float(o == monitor.outcome) for o in ("normal", "anomalous", "learning")}, monitor.monitor_id
        numbers = {s.name: s.value for s in mine if s.labels == labels}
        expected = {"dc_bridge_monitor_observed": monitor.observed, "dc_bridge_monitor_lower": monitor.lower,
                    "dc_bridge_monitor_upper": monitor.upper}
        assert numbers == {name: value for name, value in expected.items() if value is not None}, monitor.monitor_id
    # 3 outcome series a monitor, and its numbers: 4 observed, 3 bands (the learning one has none)
    assert len(mine) == 3 * len(MONITORS) + 4 + 2 * 3
    before = [s for f in text_string_to_metric_families(plain_text) for s in f.samples]
    # the rest as without monitors, but for the last success's time: the strict anomaly failed this run
    assert len(read) == len(before) - 1 + len(mine)
    assert {s.labels["subject"] for s in mine} == {"", "orders.amount.required", HOSTILE_COLUMN}  # the column as written


def test_prometheus_monitors_count_towards_the_series_limit():
    from dc_bridge.report.prometheus import TooManySeries, exposition, registry

    monitored = _monitored()
    limit = len([line for line in exposition([monitored]).splitlines() if not line.startswith("#")])  # its series, monitors' included
    registry([monitored], limit=limit)
    with pytest.raises(TooManySeries, match="4 monitors"):
        registry([monitored], limit=limit - 1)


def test_promtool_reads_the_monitor_families(tmp_path):
    import shutil
    import subprocess

    from dc_bridge.report.prometheus import exposition

    if shutil.which("promtool") is None:
        pytest.skip("promtool is not installed (Debian's prometheus package)")
    done = subprocess.run(["promtool", "check", "metrics"], input=exposition([_monitored()]).encode(), capture_output=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == b"" and done.stderr.strip() == b"", done.stdout + done.stderr

