"""The import report: one row per source check (nothing dropped: the rows are the sources' checks), what it
became, and the conflicts and duplicates assembling found; on the console as one aligned line per row (styled by
rich, never cut), and as JSON (`--report FILE`)."""

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


COLUMNS = (("source", "source"), ("file", "file"), ("location", "location"), ("dataset", "dataset"), ("outcome", "outcome"),
           ("target", "model.field"), ("check", "check"), ("reason", "reason"))


def table_lines(report: dict[str, Any]) -> list[str]:
    """One line per source check, each column as wide as its widest value: nothing cut or wrapped, so a row is
    one line to grep, and a suite of thousands prints in milliseconds (a rich table measures every cell)."""
    rows = [[str(entry[key]).replace("\n", " ") for key, _ in COLUMNS] for entry in report["checks"]]
    widths = [max([len(title)] + [len(row[i]) for row in rows]) for i, (_, title) in enumerate(COLUMNS)]
    return [" ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip()
            for row in [[title for _, title in COLUMNS], *rows]]


def print_report(report: dict[str, Any], console) -> None:
    """The rows, then the counts, conflicts and duplicates. Source text is never markup."""
    from rich.text import Text

    lines = table_lines(report)
    table = Text(lines[0] + "\n", style="bold")
    for line, entry in zip(lines[1:], report["checks"]):  # one Text printed once: thousands of rows in milliseconds
        table.append(line + "\n", style=OUTCOME_STYLES[entry["outcome"]] if entry["outcome"] != "mapped" else "")
    console.print(table, soft_wrap=True, end="")
    counts = report["summary"]
    console.print(Text(f"{counts['checks']} source check(s): {counts['mapped']} mapped, {counts['custom']} custom engine rule(s), "
                       f"{counts['refused']} refused"), soft_wrap=True)
    conflicts = Text()
    for conflict in report["conflicts"]:  # one Text, as the table: a suite can hold hundreds
        where = conflict["model"] + (f".{conflict['field']}" if conflict["field"] else "")
        conflicts.append(f"conflict: {where} {conflict['key']}: {json.dumps(conflict['kept'], ensure_ascii=False)} "
                         f"({conflict['first']}) kept; {json.dumps(conflict['other'], ensure_ascii=False)} ({conflict['second']})"
                         + (" also written" if conflict["key"] == "rule" else " not written") + "\n")
    if report["conflicts"]:
        console.print(conflicts, soft_wrap=True, end="")
    if report["duplicates"]:
        console.print(Text(f"{len(report['duplicates'])} rule(s) given by two sources, written once"), soft_wrap=True)
