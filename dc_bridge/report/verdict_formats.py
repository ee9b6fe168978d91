"""The verdict as JSON (schema in docs/verdict.schema.json), JUnit XML (one test case per check) and a console report."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

from rich.console import Console
from rich.table import Table

from dc_bridge.outcomes import ALL, NOT_EVALUATED, WORST_FIRST

from dc_bridge.verdict import CheckVerdict, Verdict

_STYLE = {"passed": "green", "warning": "yellow", "failed": "red", "error": "bold red", "not_executable": "dim", "skipped": "dim"}


def as_json(verdict: Verdict) -> str:
    return json.dumps(verdict.model_dump(mode="json"), indent=2, ensure_ascii=False)


def as_junit(verdict: Verdict) -> str:
    suites = ET.Element("testsuites", name=f"dc-bridge {verdict.contract_id} {verdict.contract_version}",
                        tests=str(sum(verdict.counts.values())), failures=str(verdict.counts["failed"]),
                        errors=str(verdict.counts["error"]), skipped=str(verdict.counts["not_executable"] + verdict.counts["skipped"]))
    for model in verdict.models:
        suite = ET.SubElement(suites, "testsuite", name=model.name, tests=str(len(model.checks)),
                              failures=str(model.counts["failed"]), errors=str(model.counts["error"]),
                              skipped=str(model.counts["not_executable"] + model.counts["skipped"]))
        for check in model.checks:
            case = ET.SubElement(suite, "testcase", classname=f"{verdict.contract_id}.{model.name}", name=check.check_id,
                                 file=check.source.get("file") or "", line=str(check.source.get("line") or ""))
            text = _explain(check)
            if check.outcome == "failed":
                ET.SubElement(case, "failure", message=text, type=check.kind).text = text
            elif check.outcome == "error":
                ET.SubElement(case, "error", message=text, type=check.kind).text = text
            elif check.outcome in NOT_EVALUATED:
                ET.SubElement(case, "skipped", message=check.reason or check.outcome)
            elif check.outcome == "warning":
                ET.SubElement(case, "system-out").text = f"warning: {text}"
    ET.indent(suites)
    return ET.tostring(suites, encoding="unicode", xml_declaration=True)


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
    table = Table(title=f"{verdict.contract_id} {verdict.contract_version}", title_justify="left")
    table.add_column("model")
    for outcome in ALL:
        table.add_column({"not_executable": "not run"}.get(outcome, outcome), justify="right", style=_STYLE[outcome])
    table.add_column("verdict")
    for model in verdict.models:
        table.add_row(model.name, *(str(model.counts[o]) for o in ALL),
                      f"[{_STYLE[model.outcome]}]{model.outcome}[/]")
    console.print(table)
    findings = sorted((c for c in verdict.checks() if c.outcome in ("error", "failed", "warning")),
                      key=lambda c: WORST_FIRST.index(c.outcome))
    for check in findings[:limit]:
        where = f"{check.source.get('file')}:{check.source.get('line') or ''}"
        console.print(f"[{_STYLE[check.outcome]}]{check.outcome:<7}[/] {check.check_id}  {_explain(check).split('; ', 1)[-1]}  [dim]{where}[/]")
    if len(findings) > limit:
        console.print(f"... and {len(findings) - limit} more; use --output json for all of them")
    drift_errors = [d for d in verdict.drift if d["severity"] == "error"]
    if drift_errors:
        console.print(f"[yellow]schema drift[/]: {len(drift_errors)} difference(s) between the contract and the data, "
                      f"e.g. {drift_errors[0]['message']} (dc-bridge drift shows all)")
    timing = ", ".join(f"{engine} {seconds:.1f}s" for engine, seconds in verdict.engine_seconds.items())
    console.print(f"contract verdict: [{_STYLE[verdict.outcome]}]{verdict.outcome}[/] ({timing})")
