"""How every report shows what the monitors said of a run (`Verdict.monitors`; docs/reports.md, "Monitors").

A monitor's outcome is not a check's. Where a format knows only a check's words (JUnit's failure and
skipped, OORS's status, the HTML page's colours) a monitor is written as the outcome it weighs as
(`WEIGHS_AS`): an anomaly at `strict` fails the contract's verdict, so `failed`; at `warn` it only
reports, so `warning`; `learning` judged nothing yet, so `skipped`; `normal` is `passed`.
"""

from __future__ import annotations

import math
from typing import Callable

from dc_bridge.monitors import MonitorVerdict
from dc_bridge.outcomes import Outcome

# (outcome, severity) -> the check outcome it weighs as; `off` never reaches a verdict, and would only report
WEIGHS_AS: dict[tuple[str, str], Outcome] = {
    ("anomalous", "strict"): "failed", ("anomalous", "warn"): "warning", ("anomalous", "off"): "warning",
    **{("learning", level): "skipped" for level in ("off", "warn", "strict")},
    **{("normal", level): "passed" for level in ("off", "warn", "strict")},
}
# the order reports list monitors in: what needs a look first
_RANK = {"failed": 0, "warning": 1, "skipped": 2, "passed": 3}


def weighs_as(monitor: MonitorVerdict) -> Outcome:
    return WEIGHS_AS[(monitor.outcome, monitor.severity)]


def in_order(monitors: list[MonitorVerdict]) -> list[MonitorVerdict]:
    """Anomalies first (strict before warn), then those still learning, then the normal ones; else as the run listed them."""
    return sorted(monitors, key=lambda monitor: _RANK[weighs_as(monitor)])


def counts_text(monitors: list[MonitorVerdict]) -> str:
    """`2 anomalous, 1 learning, 1 normal`: the outcomes there are, anomalies first."""
    counts = {outcome: sum(m.outcome == outcome for m in monitors) for outcome in ("anomalous", "learning", "normal")}
    return ", ".join(f"{n} {outcome}" for outcome, n in counts.items() if n)


def number_text(value: float | None) -> str:
    """`41,002`, `0.0123`, `nan`: a count with its thousands, else at most six significant digits."""
    if value is None:
        return ""
    if not math.isfinite(value):
        return str(value)
    return f"{int(value):,}" if float(value).is_integer() else f"{value:,.6g}"


def band_text(monitor: MonitorVerdict, number: Callable[[float], str] = number_text) -> str:
    """The band the monitor expected, `79,500 to 84,100 (Monday)`, each bound written by `number`; empty while it is learning."""
    if monitor.lower is None and monitor.upper is None:
        return ""
    band = " to ".join("-" if bound is None else number(bound) for bound in (monitor.lower, monitor.upper))
    return f"{band} ({monitor.season})" if monitor.season else band
