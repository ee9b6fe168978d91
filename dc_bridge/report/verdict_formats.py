"""The verdict as JSON (schema in docs/verdict.schema.json), JUnit XML (one test case per check) and a console report.

Every text that comes from a contract or the data reaches XML through `xml_text` and rich as `Text`
built from `console_text` (report/escaping.py): a column named `[/x]` or holding `\\x01` is shown as
written, never parsed as markup and never makes the XML malformed.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

from rich.console import Console
from rich.table import Table
from rich.text import Text

from dc_bridge.outcomes import ALL, NOT_EVALUATED, WORST_FIRST
from dc_bridge.report.escaping import console_text, json_text, xml_text
from dc_bridge.verdict import CheckVerdict, Verdict

_STYLE = {"passed": "green", "warning": "yellow", "failed": "red", "error": "bold red", "not_executable": "dim", "skipped": "dim"}


def as_json(verdict: Verdict) -> str:
    return json_text(json.dumps(verdict.model_dump(mode="json"), indent=2, ensure_ascii=False))


def as_junit(verdict: Verdict) -> str:
    suites = _element(None, "testsuites", name=f"dc-bridge {verdict.contract_id} {verdict.contract_version}",
                      tests=sum(verdict.counts.values()), failures=verdict.counts["failed"], errors=verdict.counts["error"],
                      skipped=verdict.counts["not_executable"] + verdict.counts["skipped"])
    for model in verdict.models:
        suite = _element(suites, "testsuite", name=model.name, tests=len(model.checks), failures=model.counts["failed"],
                         errors=model.counts["error"], skipped=model.counts["not_executable"] + model.counts["skipped"])
        for check in model.checks:
            case = _element(suite, "testcase", classname=f"{verdict.contract_id}.{model.name}", name=check.check_id,
                            file=check.source.get("file") or "", line=check.source.get("line") or "")
            text = _explain(check)
            if check.outcome == "failed":
                _element(case, "failure", text, message=text, type=check.kind)
            elif check.outcome == "error":
                _element(case, "error", text, message=text, type=check.kind)
            elif check.outcome in NOT_EVALUATED:
                _element(case, "skipped", message=check.reason or check.outcome)
            elif check.outcome == "warning":
                _element(case, "system-out", f"warning: {text}")
    ET.indent(suites)
    return ET.tostring(suites, encoding="unicode", xml_declaration=True)


def _element(parent: ET.Element | None, tag: str, text: str | None = None, **attributes) -> ET.Element:
    """An element whose text and attributes hold only characters XML 1.0 allows (ElementTree escapes
    `<`, `&` and quotes, but writes a control character as it is, which no XML parser reads)."""
    values = {key: xml_text(value) for key, value in attributes.items()}
    element = ET.Element(tag, values) if parent is None else ET.SubElement(parent, tag, values)
    if text is not None:
        element.text = xml_text(text)
    return element


def _explain(check: CheckVerdict) -> str:
    parts = [f"{check.outcome}: {check.description or check.kind}"]
    if check.observed is not None or check.expected:
        unit = "%" if check.unit == "percent" else ""
        observed = f"{check.observed:g}{unit}" if check.observed is not None else "not measured"
        parts.append(f"observed {observed}, expected {check.expected or '-'}")
    if check.reason:
        parts.append(check.reason)
    if check.duplicated_values is not None:
        parts.append(f"{check.duplicated_values} distinct value(s) repeat")
    if check.samples:
        parts.append("e.g. " + ", ".join(repr(v) for v in check.samples))
    elif check.samples_note:
        parts.append(f"samples {check.samples_note}")
    return "; ".join(parts)


def print_console(verdict: Verdict, console: Console, limit: int = 15) -> None:
    """The summary table, the worst findings and the verdict. Texts of the contract and the data are
    `Text` (never markup rich would parse: a `[/x]` in a value is shown, not a crash)."""
    table = Table(title=Text(console_text(f"{verdict.contract_id} {verdict.contract_version}")), title_justify="left")
    table.add_column("model")
    for outcome in ALL:
        table.add_column({"not_executable": "not run"}.get(outcome, outcome), justify="right", style=_STYLE[outcome])
    table.add_column("verdict")
    for model in verdict.models:
        table.add_row(Text(console_text(model.name)), *(str(model.counts[o]) for o in ALL), Text(model.outcome, style=_STYLE[model.outcome]))
    console.print(table)
    findings = sorted((c for c in verdict.checks() if c.outcome in ("error", "failed", "warning")),
                      key=lambda c: WORST_FIRST.index(c.outcome))
    for check in findings[:limit]:
        where = f"{check.source.get('file')}:{check.source.get('line') or ''}"
        console.print(Text.assemble((f"{check.outcome:<7}", _STYLE[check.outcome]), " ", console_text(check.check_id), "  ",
                                    console_text(_explain(check).split("; ", 1)[-1]), "  ", (console_text(where), "dim")))
    if len(findings) > limit:
        console.print(f"... and {len(findings) - limit} more; use --output json for all of them")
    drift_errors = [d for d in verdict.drift if d["severity"] == "error"]
    if drift_errors:
        console.print(Text.assemble(("schema drift", "yellow"), f": {len(drift_errors)} difference(s) between the contract and the data, e.g. ",
                                    console_text(drift_errors[0]["message"]), " (dc-bridge drift shows all)"))
    timing = ", ".join(f"{engine} {seconds:.1f}s" for engine, seconds in verdict.engine_seconds.items())
    console.print(Text.assemble("contract verdict: ", (verdict.outcome, _STYLE[verdict.outcome]), f" ({console_text(timing)})"))
