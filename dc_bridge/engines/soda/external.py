"""Soda scans run outside dc-bridge (on the compiled SodaCL of `soda_checks/`) read as a run's
results: `dc_bridge.fold_soda` folds them (integrations/fold.py).

The Scan object is needed, not only `scan.get_scan_results()`: that dict rounds percents to two
decimals and freshness to milliseconds, and the verdict holds the exact numbers, as a run does.
"""

from __future__ import annotations

from functools import partial
from typing import Iterable

from dc_bridge.contract.sql import view_name
from dc_bridge.engines.engine import ExternalResults
from dc_bridge.engines.results import CheckResult
from dc_bridge.engines.soda.translate import sodacl_text


def reader(scan_results):
    """The reader of the executed scans over a compiled contract; anything but scans is refused here,
    before the contract is compiled."""
    return partial(read_scans, _scans(scan_results))


def read_scans(scans: list, compiled) -> ExternalResults:
    from dc_bridge.engines.soda.run import named_lines, read_scan, scan_checks

    found: dict[str, dict[str, CheckResult]] = {}
    for model, document in compiled.artifacts["soda"].items():
        own = {check.id: check for check in compiled.plan.for_model(model)}
        expected = {name: lines for name, lines in named_lines(sodacl_text(document, compiled.meta)).items() if name in own}
        # the scan that ran this model's checks: Soda keeps a check object for every check it parsed
        scan = next((s for s in scans if expected.keys() & {getattr(o, "name", None) for o in scan_checks(s)}), None)
        if scan is not None and expected:
            found[model] = read_scan(scan, expected, own, table=view_name(compiled.plan.contract_id, model))
    started = [s.get_scan_results().get("scanStartTimestamp") for s in scans]
    return ExternalResults(found, "no Soda scan given to fold_soda ran this model's checks",
                           started_at=min((s for s in started if s), default=None))


def _scans(scan_results) -> list:
    if hasattr(scan_results, "get_scan_results"):
        return [scan_results]
    if isinstance(scan_results, dict):
        raise TypeError("fold_soda takes the executed soda.scan.Scan, not scan.get_scan_results(): the results dict "
                        "rounds percents and freshness, the Scan's check objects hold the exact numbers")
    if isinstance(scan_results, Iterable) and not isinstance(scan_results, (str, bytes)):
        return [scan for item in scan_results for scan in _scans(item)]
    raise TypeError(f"fold_soda takes an executed soda.scan.Scan (or a list of them), not {type(scan_results).__name__}")
