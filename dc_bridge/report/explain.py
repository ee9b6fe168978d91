"""`compile --explain`: which checks each contract element produced, in which engine, and why not.

It prints the coverage the compiler recorded (`Compiled.coverage`); nothing is translated here.
"""

from __future__ import annotations

from dc_bridge.compiler import Compiled
from dc_bridge.engines.registry import ENGINES

# the engines whose compiled files `compile` writes, as the explanation lists them (in verdict order: gx, soda)
_SHOWN = tuple(name for name, engine in ENGINES.items() if engine.files is not None)


def coverage(compiled: Compiled) -> list[dict]:
    """One row per check: the element it came from, and per engine whether it runs there and why not."""
    rows = []
    for check in compiled.plan.checks:
        engines = compiled.coverage[check.id]
        reason = next((engines[e] for e in _SHOWN if engines[e] is not None), None)
        rows.append({"element": f"{check.source.file}:{check.source.line or ''} {check.source.path}", "check_id": check.id,
                     "kind": check.kind, **{e: engines[e] is None for e in _SHOWN}, "reason": reason})
    return rows


def as_text(compiled: Compiled) -> str:
    rows = coverage(compiled)
    lines = [f"{compiled.contract.file}: {len(rows)} checks from contract {compiled.contract.id} {compiled.contract.version}"]
    current = None
    for row in rows:
        if row["element"] != current:
            current = row["element"]
            lines.append(current)
        engines = "+".join(e for e in _SHOWN if row[e]) or "none"
        note = f"  ({row['reason']})" if row["reason"] else ""
        lines.append(f"    {row['check_id']:<60} {row['kind']:<18} {engines}{note}")
    none = [r for r in rows if not any(r[e] for e in _SHOWN)]
    lines.append(f"{len(rows) - len(none)} checks run in at least one engine; {len(none)} produce no engine check (listed with the reason).")
    return "\n".join(lines)
