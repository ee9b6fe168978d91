"""A contract's own monitor settings (docs/monitoring.md, "Monitors: configuration"), a specification
extension as `x-dc-bridge-extends` is (contract/evolution/inheritance.py):

    # DCS: a top-level specification extension
    x-dc-bridge-monitors: {metrics: [rows, freshness_age, arrival], sensitivity: 5}

    # ODCS: a custom property (the ODCS schema refuses unknown top-level keys)
    customProperties:
      - property: x-dc-bridge-monitors
        value: {metrics: [rows, freshness_age, arrival], sensitivity: 5}

The keys are those of the project's `[tool.dc-bridge.monitors]` (config.MONITOR_KEYS), checked as strictly:
an unknown key is DCB104, a value of the wrong kind DCB101, and neither is applied."""

from __future__ import annotations

from typing import Any

from dc_bridge import config
from dc_bridge.contract.reading.reader import Reader, describe

MONITORS = "x-dc-bridge-monitors"


def read_monitors(reader: Reader, data: Any) -> dict[str, Any] | None:
    """The contract's monitor settings as written (its keys checked), None when it has none."""
    if not isinstance(data, dict):
        return None
    entries: list[tuple[tuple, Any]] = [((MONITORS,), data[MONITORS])] if MONITORS in data else []
    properties = data.get("customProperties")
    for index, item in enumerate(properties if isinstance(properties, list) else []):
        if isinstance(item, dict) and item.get("property") == MONITORS:
            entries.append((("customProperties", index, "value"), item.get("value")))
    if not entries:
        return None
    path, table = entries[-1]
    for earlier, _ in entries[:-1]:
        reader.report("DCB103", earlier, f"`{MONITORS}` is given more than once: only the last one is applied",
                      expected=f"one `{MONITORS}`", found=f"{len(entries)} of them")
    if not isinstance(table, dict):
        reader.report("DCB101", path, f"`{MONITORS}` must be a mapping of monitor settings", expected="a mapping such as "
                      "{metrics: [rows, freshness_age], sensitivity: 4}", found=describe(table))
        return None
    kept = {}
    for key, value in table.items():
        if key not in config.MONITOR_KEYS:
            reader.report("DCB104", path + (key,), f"unknown key `{key}` in `{MONITORS}`: it would not be applied",
                          expected=f"one of {', '.join(config.MONITOR_KEYS)}", found=repr(key))
            continue
        try:
            config.validate_table({key: value}, config.MONITOR_KEYS, reader.file, f"{MONITORS}.")
        except config.ConfigError as exc:
            reader.report("DCB101", path + (key,), str(exc).removeprefix(f"{reader.file}: "), found=describe(value))
            continue
        kept[key] = value
    _window(reader, path, kept)
    return kept


def _window(reader: Reader, path: tuple, kept: dict[str, Any]) -> None:
    """A lookback shorter than the warm-up, as a run will have the pair (this table's keys over the project's, over the
    defaults): no band could ever be learned, and the run refuses it; said here, at the key this table sets."""
    lookback, warm_up = config.monitor_window(config.current().monitors, kept)
    if lookback < warm_up:
        key = "lookback" if "lookback" in kept else "warm-up"
        reader.report("DCB101", path + (key,), f"`{MONITORS}`: a lookback of {lookback} runs is shorter than the "
                      f"warm-up of {warm_up}: no band could ever be learned, and a run refuses it",
                      expected="a lookback of at least the warm-up", found=f"lookback {lookback}, warm-up {warm_up}")
        kept.pop(key)
