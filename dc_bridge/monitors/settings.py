"""The settings monitors judge with (docs/monitoring.md, "Monitors: configuration"): the project's
`[tool.dc-bridge.monitors]` table, then the contract's own `x-dc-bridge-monitors`, key by key; the level
from `[tool.dc-bridge.enforcement] monitors` (`warn` unless set). config.py checks each key's shape (and the
contract's lint the contract's table, a command its options: `option_settings`), the metric names among them
(config.MONITOR_METRICS, the metrics a run records); here the keys are applied, and the pair lookback and warm-up checked."""

from __future__ import annotations

import dataclasses
from typing import Any, Mapping

from dc_bridge.config import MONITOR_KEYS, ConfigError, Settings, validate_table
from dc_bridge.monitors.metrics import METRICS
from dc_bridge.monitors.model import MonitorSettings

# a monitors table's key -> the MonitorSettings field it sets
FIELDS = {"metrics": "metrics", "sensitivity": "sensitivity", "lookback": "lookback", "warm-up": "warm_up",
          "seasonality": "seasonality", "min-band-relative": "min_band_relative", "min-band-absolute": "min_band_absolute"}
# watched once a history store is given, without being asked
DEFAULT_METRICS = tuple(name for name, metric in METRICS.items() if metric.on_by_default)
CONTRACT_KEY = "x-dc-bridge-monitors"


def monitor_settings(project: Settings) -> MonitorSettings:
    """The project's settings; ConfigError for a lookback shorter than the warm-up."""
    prefix = "tool.dc-bridge.monitors." if (project.file or "").endswith("pyproject.toml") else "monitors."
    return _applied(MonitorSettings(level=project.level("monitors"), metrics=DEFAULT_METRICS), project.monitors,
                    project.file or "the project configuration", prefix)


def contract_monitor_settings(base: MonitorSettings, table: Mapping[str, Any] | None, contract_file: str) -> MonitorSettings:
    """`base` (the project's) with a contract's own `x-dc-bridge-monitors` on top, key by key."""
    return _applied(base, table or {}, contract_file, f"{CONTRACT_KEY}.")


def option_settings(base: MonitorSettings, options: Mapping[str, Any]) -> MonitorSettings:
    """`base` with a command's options on top (`--sensitivity`, `--warm-up`: the keys' own names), checked as the
    file's keys are: a NaN or infinite sensitivity is refused here as it is in the file (ConfigError)."""
    given = {key: value for key, value in options.items() if value is not None}
    validate_table(given, MONITOR_KEYS, "the command line", "--")
    return _applied(base, given, "the command line", "--")


def _applied(base: MonitorSettings, table: Mapping[str, Any], file: str, prefix: str) -> MonitorSettings:
    settings = dataclasses.replace(base, **{FIELDS[key]: _value(base, key, value) for key, value in table.items()})
    if settings.lookback < settings.warm_up:
        raise ConfigError(f"{file}: `{prefix}lookback` ({settings.lookback}) is shorter than `{prefix}warm-up` ({settings.warm_up}): "
                          f"no band could ever be learned; set a lookback of at least the warm-up")
    return settings


def _value(base: MonitorSettings, key: str, value: Any) -> Any:
    """A key's value as MonitorSettings holds it: the metrics a tuple, the floors over those set before, metric by metric."""
    if key == "metrics":
        return tuple(value)
    if key == "min-band-absolute":
        return {**base.min_band_absolute, **{name: float(number) for name, number in value.items()}}
    return value
