"""`init --merge`: an explicit contract over the generated one, key by key.

Mappings merge recursively, the explicit value winning at every key; lists of named items (the
schema's objects, their properties) merge item by item by `name`, generated order first and explicit
items the table does not have after; any other list or value is the explicit one. Every key of the
explicit contract is in the result (`lost_keys` checks it), so a team writes its rules and SLAs only.
"""

from __future__ import annotations

from typing import Any


def merge(generated: Any, explicit: Any) -> Any:
    if isinstance(generated, dict) and isinstance(explicit, dict):
        return {**generated, **{key: merge(generated[key], value) if key in generated else value for key, value in explicit.items()}}
    if _named(generated) and _named(explicit):
        by_name = {item["name"]: item for item in explicit}
        merged = [merge(item, by_name[item["name"]]) if item["name"] in by_name else item for item in generated]
        known = {item["name"] for item in generated}
        return merged + [item for item in explicit if item["name"] not in known]
    return explicit


def _named(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(i, dict) and isinstance(i.get("name"), str) for i in value)


def lost_keys(explicit: Any, merged: Any, path: str = "") -> list[str]:
    """Paths of the explicit contract whose value the merge did not keep (none, by construction)."""
    if isinstance(explicit, dict):
        if not isinstance(merged, dict):
            return [path or "(document)"]
        return [lost for key, value in explicit.items()
                for lost in (lost_keys(value, merged[key], f"{path}.{key}".lstrip(".")) if key in merged else [f"{path}.{key}".lstrip(".")])]
    if _named(explicit) and _named(merged):
        by_name = {item["name"]: item for item in merged}
        return [lost for item in explicit for lost in
                (lost_keys(item, by_name[item["name"]], f"{path}[{item['name']}]") if item["name"] in by_name else [f"{path}[{item['name']}]"])]
    return [] if explicit == merged else [path]
