"""Monitors (docs/monitoring.md): bands learned from a contract's own history of runs, judged beside the checks.

The door: what the verdict, the runner, the reports and the site import from here.
"""

from dc_bridge.monitors.backtest import Summary, backtest, summarize
from dc_bridge.monitors.band import judge
from dc_bridge.monitors.metrics import METRICS, RECORDED, render, render_band
from dc_bridge.monitors.model import Direction, Level, Metric, MonitorOutcome, MonitorSettings, MonitorVerdict, Point, Seasonality, SeriesKey
from dc_bridge.monitors.settings import DEFAULT_METRICS, contract_monitor_settings, monitor_settings, option_settings

__all__ = ["DEFAULT_METRICS", "METRICS", "RECORDED", "Direction", "Level", "Metric", "MonitorOutcome", "MonitorSettings", "MonitorVerdict", "Point", "Seasonality",
           "SeriesKey", "Summary", "backtest", "judge", "render", "render_band", "summarize", "contract_monitor_settings", "monitor_settings", "option_settings"]
