"""A contract's own words for the site, from the contract file its runs recorded: its metadata for the
overview (title, owner, domain, tags: only the few top-level keys the overview filters by, in either format,
not the whole contract; a site of a hundred contracts reads a hundred files), and, for a contract page, each
check's description as the contract gives it (the contract read and planned as a run reads it).

Where each comes from (ODCS, then the Data Contract Specification):

| field | ODCS | DCS |
| --- | --- | --- |
| title | `name` | `info.title` |
| owner | `team.name` (or `team` when it is text) | `info.owner` |
| domain | `domain` | `info.domain` |
| tags | `tags` | `tags` |
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from dc_bridge.contract.reading.load import load_contract
from dc_bridge.plan.build import build_plan

# field -> the paths it is read from, in order: the first that holds text wins
PATHS: dict[str, tuple[tuple[str, ...], ...]] = {
    "title": (("name",), ("info", "title")),
    "owner": (("team", "name"), ("team",), ("info", "owner")),
    "domain": (("domain",), ("info", "domain")),
}
# yaml's C loader where it is built (a tenth of the pure-Python one's time)
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(frozen=True)
class ContractMeta:
    """What the overview shows and filters by; None (no tags) where the contract does not say, or its file is gone."""
    title: str | None = None
    owner: str | None = None
    domain: str | None = None
    tags: tuple[str, ...] = ()


def contract_meta(file: str | None) -> ContractMeta:
    """The metadata of the contract file `file`; empty when it is gone or not a YAML mapping (the site still
    builds: the runs are in the store, the file is only read for these)."""
    try:
        data = yaml.load(Path(file).read_text(encoding="utf-8"), Loader=_LOADER) if file else None
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return ContractMeta()
    if not isinstance(data, dict):
        return ContractMeta()
    tags = data.get("tags")
    return ContractMeta(**{name: _first(data, paths) for name, paths in PATHS.items()},
                        tags=tuple(str(t) for t in tags if isinstance(t, (str, int, float))) if isinstance(tags, list) else ())


def _first(data: dict, paths: tuple[tuple[str, ...], ...]) -> str | None:
    for path in paths:
        found: Any = data
        for key in path:
            found = found.get(key) if isinstance(found, dict) else None
        if isinstance(found, str) and found.strip():
            return found.strip()
    return None


def check_descriptions(file: str | None) -> dict[str, str]:
    """check id -> the description the contract gives it (`description` of its rule or its field), as a run
    plans the contract now; nothing when the file is gone or cannot be read (the page says the file is gone)."""
    if not file or not Path(file).is_file():
        return {}
    try:
        loaded = load_contract(file)
        plan = build_plan(loaded.contract) if loaded.contract is not None else None
    except (OSError, ValueError):
        return {}
    return {check.id: check.description for check in plan.checks if check.description} if plan else {}
