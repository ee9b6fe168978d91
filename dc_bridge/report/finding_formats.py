"""Findings as text, JSON and SARIF 2.1.0 (for code-scanning tools). Text goes to a terminal: the
contract's own text in a message has its control characters written visibly (report/escaping.py)."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import quote

from dc_bridge import __version__
from dc_bridge.contract.findings import CODES, Finding
from dc_bridge.report.escaping import console_text, json_text

SARIF_LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def as_text(findings: list[Finding], files: list[str]) -> str:
    lines = []
    for f in findings:
        where = f"{f.file}:{f.line}" if f.line else f.file
        lines.append(f"{where}: {f.level} {f.code} at {f.path or '(document)'}: {f.message}")
        if f.expected or f.found:
            lines.append(f"    expected {f.expected or '-'}; found {f.found or '-'}")
        lines.append(f"    fix: {f.fix}")
    counts = {level: sum(1 for f in findings if f.level == level) for level in ("error", "warning", "info")}
    lines.append(f"{len(files)} file(s) checked: {counts['error']} error(s), {counts['warning']} warning(s), {counts['info']} info")
    # a message quotes the contract's text: a control character in it is shown, never sent to the terminal
    return console_text("\n".join(lines))


def as_json(findings: list[Finding], files: list[str]) -> str:
    return json.dumps({"files": files, "findings": [f.to_dict() for f in findings]}, indent=2, ensure_ascii=False)


def as_sarif(findings: list[Finding], files: list[str]) -> str:
    used = sorted({f.code for f in findings})
    rules = [sarif_rule(code, CODES[code].title.replace(" ", ""), CODES[code].title, CODES[code].hint, SARIF_LEVEL[CODES[code].severity],
                        "lint-codes.md#" + code.lower())
             for code in used]
    results = [sarif_result(f.code, SARIF_LEVEL[f.level],
                            f.message + (f" (expected {f.expected}; found {f.found})" if f.expected or f.found else "") + f". Fix: {f.fix}",
                            f.file, f.line, f.path)
               for f in findings]
    return sarif_log(rules, results, files)


# the pages a rule's `helpUri` links into
DOCS = "https://github.com/dc-bridge/dc-bridge/blob/main/docs/"


def sarif_rule(rule_id: str, name: str, title: str, help_text: str, level: str, doc: str) -> dict:
    """A rule of the tool's driver: `doc` the page (and anchor) under docs/ that explains it."""
    return {"id": rule_id, "name": name, "shortDescription": {"text": title},
            "help": {"text": help_text}, "defaultConfiguration": {"level": level}, "helpUri": DOCS + doc}


def sarif_result(rule_id: str, level: str, text: str, file: str, line: int | None = None, logical: str | None = None) -> dict:
    return {"ruleId": rule_id, "level": level, "message": {"text": text}, "locations": [sarif_location(file, line, logical)]}


def sarif_location(file: str, line: int | None = None, logical: str | None = None) -> dict:
    """A file, and its line when known; `logical` names the element there (a dotted path, a monitor's id)."""
    region = {"region": {"startLine": line}} if line else {}
    return {"physicalLocation": {"artifactLocation": {"uri": _uri(file)}, **region},
            "logicalLocations": [{"fullyQualifiedName": logical}] if logical else []}


def sarif_log(rules: list[dict], results: list[dict], files: list[str], invocation: dict | None = None) -> str:
    """One SARIF log with ONE run of dc-bridge (code scanning takes one run per tool and category): its
    rules, the files it read, its results (each given its rule's index) and, if any, its invocation."""
    index = {rule["id"]: i for i, rule in enumerate(rules)}
    run = {"tool": {"driver": {"name": "dc-bridge", "version": __version__, "informationUri": "https://github.com/dc-bridge/dc-bridge",
                               "rules": rules}},
           **({"invocations": [invocation]} if invocation else {}),
           "artifacts": [{"location": {"uri": _uri(f)}} for f in files],
           "results": [{"ruleId": r["ruleId"], "ruleIndex": index[r["ruleId"]], **r} for r in results]}
    sarif = {"$schema": "https://json.schemastore.org/sarif-2.1.0.json", "version": "2.1.0", "runs": [run]}
    return json_text(json.dumps(sarif, indent=2, ensure_ascii=False))


def _uri(path: str) -> str:
    """A file path as SARIF's `uri` (an RFC 3986 URI reference): percent-encoded, so a space, `#` (which
    would start a fragment), `%` or a non-ASCII letter in a file name names that file."""
    return quote(Path(path).as_posix(), safe="/")


FORMATTERS = {"text": as_text, "json": as_json, "sarif": as_sarif}
