"""The import report: one row per source check (nothing dropped: the rows are the sources' checks), what it
became, and the conflicts and duplicates assembling found; as a rich table on the console and as JSON
(`--report FILE`)."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from dc_bridge.importing.assemble import Assembled
from dc_bridge.importing.model import Carried

REPORT_VERSION = 1
OUTCOME_STYLES = {"mapped": "green", "custom": "yellow", "refused": "red"}


def row(item: Carried) -> dict[str, Any]:
    """One source check's row."""
    check = item.check
    target = item.model if item.field is None else f"{item.model}.{item.field}"
    return {"source": check.source, "file": check.file, "location": check.location, "dataset": check.dataset,
            "check": check.text, "outcome": item.outcome, "target": target, "reason": item.reason}


def summary(carried: list[Carried]) -> dict[str, int]:
    counts = Counter(item.outcome for item in carried)
    return {"checks": len(carried), **{outcome: counts.get(outcome, 0) for outcome in OUTCOME_STYLES}}


def report_json(carried: list[Carried], assembled: Assembled | None, *, sources: list[str], out: str | None) -> dict[str, Any]:
    """The report as data (`--report FILE`): every row, the counts, conflicts and duplicates."""
    return {
        "report_version": REPORT_VERSION,
        "sources": sources,
        "contract": out,
        "summary": summary(carried),
        "checks": [row(item) for item in carried],
        "conflicts": [c.as_json() for c in assembled.conflicts] if assembled else [],
        "duplicates": [{"kept": f"{a.check.file} {a.check.location}", "same": f"{b.check.file} {b.check.location}"}
                       for a, b in assembled.duplicates] if assembled else [],
    }


def report_text(report: dict[str, Any]) -> str:
    return json.dumps(report, indent=2, ensure_ascii=False) + "\n"


def print_report(report: dict[str, Any], console) -> None:
    """The rich table of every row, then the counts, conflicts and duplicates. Source text is never markup."""
    from rich.table import Table
    from rich.text import Text

    if not console.is_terminal:
        console.width = max(console.width, 200)  # a log or a file: one line per check, never a column cut into letters
    table = Table(title="dc-bridge import", show_lines=False)
    for column in ("source", "file", "location", "dataset", "check", "outcome", "model.field", "reason"):
        table.add_column(column, overflow="fold")
    for entry in report["checks"]:
        table.add_row(*(Text(str(entry[key])) for key in ("source", "file", "location", "dataset", "check")),
                      Text(entry["outcome"], style=OUTCOME_STYLES[entry["outcome"]]), Text(entry["target"]), Text(entry["reason"]))
    console.print(table)
    counts = report["summary"]
    console.print(Text(f"{counts['checks']} source check(s): {counts['mapped']} mapped, {counts['custom']} custom engine rule(s), "
                       f"{counts['refused']} refused"))
    for conflict in report["conflicts"]:
        where = conflict["model"] + (f".{conflict['field']}" if conflict["field"] else "")
        console.print(Text(f"conflict: {where} {conflict['key']}: {json.dumps(conflict['kept'], ensure_ascii=False)} "
                           f"({conflict['first']}) kept; {json.dumps(conflict['other'], ensure_ascii=False)} ({conflict['second']})"
                           + (" also written" if conflict["key"] == "rule" else " not written")))
    if report["duplicates"]:
        console.print(Text(f"{len(report['duplicates'])} rule(s) given by two sources, written once"))
