"""Hostile input, part three: numbers no engine can run, SQL nested too deeply, and text that is rich
markup, control characters or HTML. Every failure is a clear message with the exit code its command
documents (docs/cli.md), never a traceback; every report writes the user's text as text.

- Numbers (`CASES`): a duration, threshold, bound, length or decimal precision that reads but cannot
  run (`.inf`, `.nan`, 99999999999 years, 40 digits) is DCB151 at the value's path, with what is
  allowed (contract/limits.py); `lint` exits 1, `compile` and `run` refuse the contract with 2 before
  any engine (or Spark) starts, and `compile` writes nothing. SQL nested thousands of levels deep is
  DCB171, a check-local error (the run goes on without that check: see the one Spark run below).
- Reports (`HOSTILE`, no Spark): a verdict built by hand whose names, ids, reasons and samples hold
  markup, terminal escapes, characters XML 1.0 forbids and HTML, rendered as console, JSON, JUnit
  (parsed back with xml.etree) and HTML (parsed back with html.parser).
- One real run through the command line: failing values that are markup, a column named like a
  closing tag, and SQL nested too deeply, reported as JUnit with the console summary beside it.
"""

from __future__ import annotations

import io
import json
import math
import traceback
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from datetime import timedelta
from html.parser import HTMLParser

import pytest
from click.testing import CliRunner
from rich.console import Console

from dc_bridge.cli import main
from dc_bridge.compiler import compile_contract, rendered
from dc_bridge.contract.durations import DurationOutOfRange, parse_duration
from dc_bridge.contract.lint import lint_file
from dc_bridge.contract.limits import MAX_DURATION
from dc_bridge.plan.checks import CHECK_LOCAL_CODES
from dc_bridge.report import html, verdict_formats
from dc_bridge.report.finding_formats import as_text
from dc_bridge.verdict import CheckVerdict, ModelVerdict, Verdict

DCS_HEAD = "dataContractSpecification: 1.1.0\nid: c\ninfo: {title: t, version: 1.0.0}\n"
ODCS_HEAD = "apiVersion: v3.1.0\nkind: DataContract\nid: c\nversion: 1.0.0\nstatus: active\n"
DEEP_SQL = "SELECT " + "(" * 3000 + "1" + ")" * 3000 + " FROM {model}"


def dcs(fields: str = "", extra: str = "") -> str:
    return DCS_HEAD + "models:\n  orders:\n    fields:\n      ts: {type: timestamp}\n" + fields + extra


def dcs_sla(threshold: str) -> str:
    return dcs(extra=f"servicelevels:\n  freshness: {{threshold: '{threshold}', timestampField: orders.ts}}\n")


def dcs_rule(rule: str) -> str:
    return dcs(extra=f"    quality:\n      - {rule}\n")


def odcs(properties: str = "", extra: str = "") -> str:
    return (ODCS_HEAD + "schema:\n  - name: orders\n    properties:\n      - {name: ts, logicalType: timestamp}\n"
            + properties + extra)


def odcs_sla(value: str, unit: str = "d", prop: str = "freshness") -> str:
    return odcs(extra=f"slaProperties:\n  - {{property: {prop}, value: {value}, unit: {unit}, element: orders.ts}}\n")


def odcs_rule(rule: str) -> str:
    return odcs(extra=f"    quality:\n      - {rule}\n")


# what each finding says is allowed (its `expected`)
DURATION = "expected a duration from 0 to 1,000 years (365,000 days)"
NUMBER = "expected a finite number from -(10^38 - 1) to 10^38 - 1 (Spark's widest exact number, decimal(38,0))"
LENGTH = "expected a whole number from 0 to 2,147,483,647"
DECIMAL = "expected precision from 1 to 38, scale from 0 to the precision"
DIGITS = "expected a number of at most 38 digits"
SELECT = "expected one read-only SELECT"


@dataclass(frozen=True)
class Case:
    name: str
    contract: str
    path: str  # where the finding points ("" for the document)
    fragment: str  # the message names the value and what is wrong with it
    allowed: str  # what the finding says is allowed
    code: str = "DCB151"
    commands: tuple[str, ...] = ("lint", "compile", "run")


CASES = [
    # durations: each used to be an OverflowError (timedelta, or `now - max_age` in GX's cut-off)
    Case("dcs_iso_99999999999_years", dcs_sla("P99999999999Y"), "servicelevels.freshness.threshold",
         "`P99999999999Y` is 99,999,999,999 years", allowed=DURATION),
    Case("dcs_simple_99999999999_years", dcs_sla("99999999999 years"), "servicelevels.freshness.threshold",
         "`99999999999 years` is 99,999,999,999 years", allowed=DURATION),
    Case("dcs_iso_400_digits", dcs_sla("P" + "9" * 400 + "D"), "servicelevels.freshness.threshold", "is too long to count", allowed=DURATION),
    Case("dcs_2000_years_fits_timedelta_not_gx", dcs_sla("P2000Y"), "servicelevels.freshness.threshold", "`P2000Y` is 2,000 years", allowed=DURATION),
    Case("odcs_value_inf", odcs_sla(".inf"), "slaProperties[0].value", "SLA `freshness`: `inf d` is infinite", allowed=DURATION),
    Case("odcs_value_minus_inf", odcs_sla("-.inf"), "slaProperties[0].value", "`-inf d` is negative", allowed=DURATION),
    Case("odcs_value_nan", odcs_sla(".nan", prop="retention"), "slaProperties[0].value",
         "SLA `retention`: `nan d` is not a number (NaN)", allowed=DURATION),
    Case("odcs_value_99999999999_years", odcs_sla("99999999999", "y"), "slaProperties[0].value",
         "`99999999999 y` is 99,999,999,999 years", allowed=DURATION),
    Case("odcs_value_inf_as_text", odcs_sla("'inf'", prop="latency"), "slaProperties[0].value", "`inf d` is infinite", allowed=DURATION),
    Case("odcs_value_negative", odcs_sla("-1", prop="frequency"), "slaProperties[0].value", "`-1 d` is negative", allowed=DURATION),
    Case("odcs_value_400_digit_integer", odcs_sla("1" + "0" * 400), "slaProperties[0].value", "is too long to count", allowed=DURATION),
    # quality thresholds: `.inf` was SQL `v < inf`, a row count `> .nan` a ValueError in GX's integer bounds
    Case("dcs_must_be_less_than_inf", dcs_rule("{type: sql, query: 'SELECT COUNT(*) FROM {model}', mustBeLessThan: .inf}"),
         "models.orders.quality[0].mustBeLessThan", "`mustBeLessThan: inf` is infinite", allowed=NUMBER),
    Case("odcs_row_count_greater_than_nan", odcs_rule("{metric: rowCount, mustBeGreaterThan: .nan}"),
         "schema[0].quality[0].mustBeGreaterThan", "`mustBeGreaterThan: nan` is not a number (NaN)", allowed=NUMBER),
    Case("odcs_row_count_at_least_inf", odcs_rule("{metric: rowCount, mustBeGreaterOrEqualTo: .inf}"),
         "schema[0].quality[0].mustBeGreaterOrEqualTo", "is infinite", allowed=NUMBER),
    Case("dcs_between_infinities", dcs_rule("{type: sql, query: 'SELECT 1', mustBeBetween: [-.inf, .inf]}"),
         "models.orders.quality[0].mustBeBetween", "`mustBeBetween: -inf` is infinite", allowed=NUMBER),
    Case("dcs_must_be_1e999", dcs_rule("{type: sql, query: 'SELECT 1', mustBe: 1e999}"),
         "models.orders.quality[0].mustBe", "`mustBe: inf` is infinite", allowed=NUMBER),
    Case("dcs_must_be_40_digits", dcs_rule("{type: sql, query: 'SELECT 1', mustBe: " + "9" * 40 + "}"),
         "models.orders.quality[0].mustBe", "has more digits than Spark's widest exact number (38)", allowed=NUMBER),
    # a field's bounds, lengths and decimal precision
    Case("dcs_maximum_inf", dcs("      n: {type: double, maximum: .inf}\n"), "models.orders.fields.n.maximum",
         "`maximum: inf` is infinite", allowed=NUMBER),
    Case("odcs_minimum_nan", odcs("      - {name: n, logicalType: number, logicalTypeOptions: {minimum: .nan}}\n"),
         "schema[0].properties[1].logicalTypeOptions.minimum", "`minimum: nan` is not a number (NaN)", allowed=NUMBER),
    Case("odcs_exclusive_maximum_inf_as_text", odcs("      - {name: n, logicalType: number, logicalTypeOptions: {exclusiveMaximum: 'inf'}}\n"),
         "schema[0].properties[1].logicalTypeOptions.exclusiveMaximum", "`exclusiveMaximum: inf` is infinite", allowed=NUMBER),
    Case("dcs_max_length_beyond_spark", dcs("      s: {type: string, maxLength: 99999999999999999999}\n"), "models.orders.fields.s.maxLength",
         "is longer than any Spark string (2,147,483,647 characters)", allowed=LENGTH),
    Case("dcs_min_length_negative", dcs("      s: {type: string, minLength: -1}\n"), "models.orders.fields.s.minLength",
         "`minLength: -1` is negative", allowed=LENGTH),
    Case("dcs_precision_40", dcs("      d: {type: decimal, precision: 40, scale: 2}\n"), "models.orders.fields.d.precision",
         "`precision 40, scale 2` is no Spark decimal type", allowed=DECIMAL),
    Case("odcs_physical_decimal_99", odcs("      - {name: d, logicalType: number, physicalType: 'decimal(99,2)'}\n"),
         "schema[0].properties[1].physicalType", "`decimal(99,2)` is no Spark decimal type", allowed=DECIMAL),
    Case("integer_of_5000_digits", dcs("      n: {type: integer, maximum: " + "9" * 5000 + "}\n"), "",
         "holds an integer of 5,000 digits, too long to read as a number", allowed=DIGITS),
    # SQL nested 3,000 levels: a RecursionError in the SQL parser. A check-local error: `run` goes on
    # without the check (see test_one_run_with_hostile_text), so only lint and compile are asked here
    Case("sql_nested_3000_deep", dcs_rule(f"{{type: sql, query: '{DEEP_SQL}', mustBe: 0}}"), "models.orders.quality[0].query",
         "too deeply", code="DCB171", commands=("lint", "compile"), allowed=SELECT),
    Case("custom_soda_query_nested_3000_deep",
         dcs_rule("{type: custom, engine: soda, specification: {'failed rows': {'fail query': '" + DEEP_SQL + "'}}}"),
         "models.orders.quality[0].implementation", "too deeply", code="DCB171", commands=("lint", "compile"), allowed=SELECT),
]
# docs/cli.md: lint exits 1 for errors; compile and run refuse a contract with errors with 2, but for errors
# confined to one check, which compile leaves out (with the finding) and run makes that check's `error`
EXIT = {"lint": 1, "compile": 2, "run": 2}


def _exit(command: str, code: str) -> int:
    return 0 if command == "compile" and code in CHECK_LOCAL_CODES else EXIT[command]


def _invoke(args: list[str]):
    result = CliRunner().invoke(main, args)
    crashed = result.exception is not None and not isinstance(result.exception, SystemExit)
    assert not crashed, "".join(traceback.format_exception(result.exception))
    assert "Traceback" not in result.output, result.output
    return result


@pytest.mark.parametrize(("case", "command"), [(c, cmd) for c in CASES for cmd in c.commands],
                         ids=[f"{c.name}-{cmd}" for c in CASES for cmd in c.commands])
def test_hostile_number_or_sql_is_a_clear_message(case: Case, command: str, tmp_path):
    contract = tmp_path / "contract.yaml"
    contract.write_text(case.contract, encoding="utf-8")
    out = tmp_path / "out"
    args = {"lint": ["lint", str(contract)], "compile": ["compile", "--out", str(out), str(contract)], "run": ["run", str(contract)]}
    result = _invoke(args[command])
    assert result.exit_code == _exit(command, case.code), result.output
    where = f"at {case.path}:" if case.path else "at (document):"
    lines = [line for line in result.output.splitlines() if f"error {case.code} {where}" in line]
    assert lines, result.output
    assert case.fragment in lines[0], lines[0]
    # the lines under it: what is allowed, then how to fix it
    after = result.output.splitlines()[result.output.splitlines().index(lines[0]) + 1:]
    assert after[0].strip().startswith(case.allowed) and after[1].strip().startswith("fix: "), after[:2]
    if command == "compile" and result.exit_code:
        assert not out.exists(), "a refused contract compiles to nothing"


@pytest.mark.parametrize("case", [c for c in CASES if c.path], ids=[c.name for c in CASES if c.path])
def test_one_finding_per_hostile_value(case: Case, tmp_path):
    contract = tmp_path / "contract.yaml"
    contract.write_text(case.contract, encoding="utf-8")
    errors = [f for f in lint_file(str(contract)).findings if f.level == "error"]
    assert [(f.code, f.path) for f in errors] == [(case.code, case.path)], errors


def test_numbers_at_the_limits_compile_in_every_engine(tmp_path):
    """The largest values that are allowed compile (GX, Soda, native) without a finding or an exception."""
    top = "9" * 38
    contract = tmp_path / "contract.yaml"
    contract.write_text(odcs(
        f"      - {{name: n, logicalType: number, physicalType: 'decimal(38,0)', logicalTypeOptions: {{minimum: -{top}, maximum: {top}}}}}\n"
        "      - {name: s, logicalType: string, logicalTypeOptions: {minLength: 0, maxLength: 2147483647}}\n"
        f"    quality:\n      - {{metric: rowCount, mustBeLessThan: {top}}}\n"
        "      - {type: sql, query: 'SELECT " + "(" * 20 + "1" + ")" * 20 + " FROM {model}', mustBeBetween: [-1e37, 1e37]}\n",
        "slaProperties:\n  - {property: freshness, value: 1000, unit: y, element: orders.ts}\n"
        "  - {property: retention, value: 365000, unit: d, element: orders.ts}\n"), encoding="utf-8")
    result = lint_file(str(contract))
    assert [f for f in result.findings if f.level == "error"] == [], as_text(result.findings, [str(contract)])
    compiled = compile_contract(result.contract)
    kinds = {c.kind for c in compiled.plan.checks}
    assert kinds >= {"value_between", "length_between", "row_count", "sql_metric", "freshness", "retention"} and "not_executable" not in kinds
    assert all(text for text in rendered(compiled, tmp_path).values())  # the suite and SodaCL files serialise


@pytest.mark.parametrize("written", [
    ("P99999999999Y",), ("P" + "9" * 5000 + "Y",), ("PT" + "9" * 400 + "S",), ("99999999999 years",), ("1e400 d",),
    (math.inf, "d"), (-math.inf, "d"), (math.nan, "d"), (10**400, "y"), (-(10**400), "y"), ("inf", "d"), ("-inf", "h"),
    ("nan", "s"), ("1e999", "d"), (-5, "d"), (1, "lightyears"), (True, "d"), ("", None), (None, "d"), ([1], "d"),
])
def test_parse_duration_raises_only_value_error(written):
    try:
        parsed = parse_duration(*written)
    except ValueError as exc:
        assert str(exc)
        return
    assert timedelta(0) <= parsed <= MAX_DURATION, parsed


def test_a_duration_out_of_range_says_so():
    with pytest.raises(DurationOutOfRange, match=r"`P1001Y` is 1,001 years; a service level needs a duration from 0 to 1,000 years"):
        parse_duration("P1001Y")
    assert parse_duration("P1000Y") == MAX_DURATION


# ---------------------------------------------------------------------------------------------
# reports: text from contracts and data is written as text, in every format

MARKUP = "[/x] [bold]x[/bold] [link=https://e.invalid]y[/link] :smile:"
CONTROL = "a\x00b\x01c\x08d\x0be\x1b[2Jf\x7fg\x9bh\ud800i\ufffej"
HTML = "<script>alert(1)</script><img src=x onerror=alert(2)>&amp;\"'"
HOSTILE = f"{MARKUP} {CONTROL} {HTML}"


def _verdict() -> Verdict:
    counts = {"passed": 0, "warning": 1, "failed": 1, "error": 1, "not_executable": 1, "skipped": 0}

    def check(suffix: str, outcome: str, **more) -> CheckVerdict:
        return CheckVerdict(check_id=f"orders.{HOSTILE}.{suffix}", model=f"m {HOSTILE}", kind="regex", columns=[HOSTILE],
                            outcome=outcome, severity="warning" if outcome == "warning" else "error", expected="= 0",
                            observed=2.0, reason=f"reason {HOSTILE}", description=f"description {HOSTILE}",
                            source={"file": f"file {HOSTILE}.yaml", "path": HOSTILE, "line": 7}, **more)

    checks = [check("failed", "failed", samples=[HOSTILE, MARKUP, 1.5, None]), check("error", "error"),
              check("warning", "warning", samples=[CONTROL]), check("not_run", "not_executable")]
    return Verdict(contract_id=f"id {HOSTILE}", contract_version=f"1.0.0 {MARKUP}", contract_file=f"c {HOSTILE}.yaml",
                   outcome="error", counts=counts, engines=["gx", "soda"], engine_seconds={"gx": 1.0, "soda": 2.0},
                   engine_errors={"soda": f"soda failed: {HOSTILE}"}, where=f"x = '{HOSTILE}'",
                   models=[ModelVerdict(name=f"m {HOSTILE}", outcome="error", counts=counts, checks=checks)],
                   drift=[{"severity": "error", "message": f"drift {HOSTILE}"}], versions={"dc-bridge": MARKUP, "gx": HTML})


def _no_raw_controls(text: str) -> None:
    raw = sorted({hex(ord(ch)) for ch in text
                  if ch not in "\t\n\r" and (ord(ch) < 0x20 or 0x7f <= ord(ch) <= 0x9f or 0xd800 <= ord(ch) <= 0xdfff)})
    assert raw == [], raw


def test_console_shows_markup_and_control_characters_as_text():
    console = Console(record=True, width=10_000, file=io.StringIO(), color_system="truecolor")
    verdict_formats.print_console(_verdict(), console)
    shown = console.export_text()
    for text in (MARKUP, "a\\x00b\\x01c\\x08d\\x0be\\x1b[2Jf\\x7fg\\x9bh\\ud800i", "m [/x] [bold]x[/bold]", "drift [/x]"):
        assert text in shown, shown
    assert "contract verdict: error" in shown and "😄" not in shown
    _no_raw_controls(shown)
    # the styles are ours alone: nothing the texts hold became bold or a link
    styled = console.export_text(styles=True)
    assert "\x1b]8;" not in styled


def test_json_keeps_every_text_exactly():
    verdict = _verdict()
    text = verdict_formats.as_json(verdict)
    text.encode("utf-8")  # a lone surrogate is written as its escape: a file can hold the report
    data = json.loads(text)
    check = data["models"][0]["checks"][0]
    assert (check["check_id"], check["columns"], check["samples"][:2]) == (f"orders.{HOSTILE}.failed", [HOSTILE], [HOSTILE, MARKUP])


def test_junit_is_well_formed_xml_whatever_the_texts():
    text = verdict_formats.as_junit(_verdict())
    root = ET.fromstring(text.encode("utf-8"))
    cases = root.findall("./testsuite/testcase")
    assert len(cases) == 4
    # what XML 1.0 forbids (C0 controls but tab and newlines, surrogates, U+FFFE) is written visibly; DEL and C1 are allowed
    name = cases[0].get("name")
    assert name == f"orders.{MARKUP} a\\x00b\\x01c\\x08d\\x0be\\x1b[2Jf\x7fg\x9bh\\ud800i\\ufffej {HTML}.failed", name
    failure = cases[0].find("failure")
    assert failure is not None and HTML in failure.get("message") and MARKUP in failure.text
    assert cases[1].find("error") is not None and cases[3].find("skipped").get("message").startswith("reason [/x]")
    assert root.find("./testsuite").get("name").startswith("m [/x]")


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.text = set(), []

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        for name, _ in attrs:
            assert not name.startswith("on"), f"an event handler attribute: {name}"

    def handle_data(self, data):
        self.text.append(data)


def test_html_escapes_every_text():
    page = html.as_html(_verdict(), {f"m {HOSTILE}": f"docs/{HTML}.html"}, f"docs/{HTML}/index.html")
    parser = _Tags()
    parser.feed(page)
    assert parser.tags <= {"html", "head", "meta", "title", "style", "body", "header", "h1", "h2", "span", "p", "code", "a",
                           "section", "table", "thead", "tbody", "tr", "th", "td", "div", "br", "footer"}, parser.tags
    assert "<script>" not in page and "<img" not in page and "&lt;script&gt;" in page
    text = "".join(parser.text)
    assert f"orders.{MARKUP}" in text and "<script>alert(1)</script>" in text  # shown, as text
    _no_raw_controls(page)
    assert "\ufffe" not in page


def test_finding_text_shows_control_characters():
    from dc_bridge.contract.findings import Finding

    shown = as_text([Finding("DCB103", "c.yaml", "models.a", f"duplicate `{CONTROL}`")], ["c.yaml"])
    _no_raw_controls(shown)
    assert "\\x1b[2J" in shown


# ---------------------------------------------------------------------------------------------
# one real run: the console summary beside a JUnit file, with markup in failing values and a column
# name, and SQL nested too deeply (a check-local error: the run goes on)

RUN_CONTRACT = DCS_HEAD + f"""models:
  orders:
    fields:
      id: {{type: integer, required: true}}
      "code[/x]": {{type: string, pattern: '^[a-z]+$'}}
    quality:
      - {{type: sql, query: '{DEEP_SQL}', mustBe: 0}}
"""


def test_one_run_with_hostile_text(spark, tmp_path):
    contract = tmp_path / "contract.yaml"
    contract.write_text(RUN_CONTRACT, encoding="utf-8")
    (tmp_path / "orders.csv").write_text("id,code[/x]\n1,ok\n2,[bold]\n3,[/x]\n", encoding="utf-8")
    report = tmp_path / "report.xml"
    result = _invoke(["run", str(contract), "--data", f"orders={tmp_path / 'orders.csv'}", "--engines", "gx,soda",
                      "--output", "junit", "--output-file", str(report)])
    assert result.exit_code == 2, result.output  # the nested SQL is an error check: the verdict is error
    assert "contract verdict: error" in result.output, result.output
    assert "orders.code[/x].pattern" in result.output and "'[bold]'" in result.output, result.output
    root = ET.fromstring(report.read_bytes())
    cases = {case.get("name"): case for case in root.iter("testcase")}
    assert cases["orders.code[/x].pattern"].find("failure") is not None
    deep = cases["orders.quality[0]"].find("error")
    assert deep is not None and "too deeply" in deep.get("message"), ET.tostring(cases["orders.quality[0]"])
