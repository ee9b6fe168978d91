"""`compile --explain`: which checks each contract element produced, in which engine, and why not."""

from __future__ import annotations

from dc_bridge.plan import checks as c
from dc_bridge.compiler import Compiled
from dc_bridge.engines.gx import translate as gx_translate
from dc_bridge.engines.soda import translate as soda_translate

_NO_SODA = {c.CustomGx: "a custom GX check runs in GX only", c.ColumnType: "Soda's schema check takes one exact type"}
_NO_GX = {c.CustomSoda: "a custom Soda check runs in Soda only"}


def coverage(compiled: Compiled) -> list[dict]:
    """One row per check: the element it came from, and per engine whether it runs there and why not."""
    rows = []
    for check in compiled.plan.checks:
        in_gx = gx_translate.translate_check(check, compiled.plan.contract_id) is not None
        in_soda = soda_translate.translate_check(check, compiled.plan.contract_id) is not None
        reason = check.params.reason if isinstance(check.params, c.NotExecutable) else None
        if reason is None and not in_gx:
            reason = _NO_GX.get(type(check.params))
        if reason is None and not in_soda:
            reason = _NO_SODA.get(type(check.params))
        rows.append({"element": f"{check.source.file}:{check.source.line or ''} {check.source.path}", "check_id": check.id,
                     "kind": check.kind, "gx": in_gx, "soda": in_soda, "reason": reason})
    return rows


def as_text(compiled: Compiled) -> str:
    rows = coverage(compiled)
    lines = [f"{compiled.contract.file}: {len(rows)} checks from contract {compiled.contract.id} {compiled.contract.version}"]
    current = None
    for row in rows:
        if row["element"] != current:
            current = row["element"]
            lines.append(current)
        engines = "+".join(e for e in ("gx", "soda") if row[e]) or "none"
        note = f"  ({row['reason']})" if row["reason"] else ""
        lines.append(f"    {row['check_id']:<60} {row['kind']:<18} {engines}{note}")
    none = [r for r in rows if not r["gx"] and not r["soda"]]
    lines.append(f"{len(rows) - len(none)} checks run in at least one engine; {len(none)} produce no engine check (listed with the reason).")
    return "\n".join(lines)
