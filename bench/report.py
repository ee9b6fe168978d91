"""Where every benchmark writes its figures: `<out>/<kind>-<UTC time>.json`, beside the earlier ones in bench/results."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def stamp() -> str:
    """The UTC time a report is named by: 20261127T124134Z."""
    return datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")


def write_report(report: dict, out: str | Path, kind: str, when: str | None = None) -> Path:
    """`report` as indented JSON in `out` (relative to the repository root unless absolute), named by
    `kind` and `when` (now unless given); the path written."""
    folder = Path(out) if Path(out).is_absolute() else ROOT / out
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{kind}-{when or stamp()}.json"
    target.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return target
