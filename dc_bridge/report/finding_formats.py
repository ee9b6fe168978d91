"""Findings as text, JSON and SARIF 2.1.0 (for code-scanning tools). Text goes to a terminal: the
contract's own text in a message has its control characters written visibly (report/escaping.py)."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import quote

from dc_bridge import __version__
from dc_bridge.contract.findings import CODES, Finding
from dc_bridge.report.escaping import console_text

_SARIF_LEVEL = {"error": "error", "warning": "warning", "info": "note"}


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
    rules = [
        {"id": code, "name": CODES[code].title.replace(" ", ""), "shortDescription": {"text": CODES[code].title},
         "help": {"text": CODES[code].hint}, "defaultConfiguration": {"level": _SARIF_LEVEL[CODES[code].severity]},
         "helpUri": "https://github.com/dc-bridge/dc-bridge/blob/main/docs/lint-codes.md#" + code.lower()}
        for code in used
    ]
    results = []
    for f in findings:
        region = {"startLine": f.line} if f.line else {}
        location = {"physicalLocation": {"artifactLocation": {"uri": _uri(f.file)}, **({"region": region} if region else {})},
                    "logicalLocations": [{"fullyQualifiedName": f.path}] if f.path else []}
        text = f.message + (f" (expected {f.expected}; found {f.found})" if f.expected or f.found else "") + f". Fix: {f.fix}"
        results.append({"ruleId": f.code, "ruleIndex": used.index(f.code), "level": _SARIF_LEVEL[f.level],
                        "message": {"text": text}, "locations": [location]})
    sarif = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{"tool": {"driver": {"name": "dc-bridge", "version": __version__, "informationUri": "https://github.com/dc-bridge/dc-bridge",
                                      "rules": rules}},
                  "artifacts": [{"location": {"uri": _uri(f)}} for f in files],
                  "results": results}],
    }
    return json.dumps(sarif, indent=2, ensure_ascii=False)


def _uri(path: str) -> str:
    """A file path as SARIF's `uri` (an RFC 3986 URI reference): percent-encoded, so a space, `#` (which
    would start a fragment), `%` or a non-ASCII letter in a file name names that file."""
    return quote(Path(path).as_posix(), safe="/")


FORMATTERS = {"text": as_text, "json": as_json, "sarif": as_sarif}
