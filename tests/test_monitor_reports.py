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
                   direction="both", observed=41002.0, centre=81800.0, lower=79500.0, upper=84100.0, season="Monday", points=12,
                   sentence="rows 41,002 are below the expected 79,500 to 84,100 for a Monday (12 earlier Mondays)"),
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


def test_console_fits_a_narrow_console_and_names_each_anomaly_whole():
    text = _console(_monitored(), width=60)
    assert max(len(line) for line in text.splitlines()) <= 60, text
    squeezed = re.sub(r"\s+", "", text)
    for monitor in (STRICT, WARN, LEARNING):
        assert re.sub(r"\s+", "", monitor.sentence) in squeezed


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
