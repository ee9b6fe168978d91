"""`dc-bridge monitor backtest`: replay a history store's runs in time order and print what each monitor would
have said at each run, with a summary per monitor (docs/monitoring.md, "Backtesting"): how a team tunes the
sensitivity before it sets monitors to `strict`. A thin wrapper: monitors/backtest.py does the replay."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from dc_bridge.outcomes import EXIT_OK, EXIT_UNREADABLE


def register(group: click.Group) -> None:
    """Add the `monitor` group to the `dc-bridge` group (called at the end of cli/__init__.py)."""
    group.add_command(monitor_group)


@click.group(name="monitor")
def monitor_group() -> None:
    """Monitors learned from a history store (docs/monitoring.md)."""


@monitor_group.command(name="backtest")
@click.option("--history", "target", required=True, metavar="STORE", help="The SQLite history store of `run --history` to replay.")
@click.option("--contract", "contract_id", metavar="ID", help="Only this contract's monitors (default: every contract in the store).")
@click.option("--metric", "metrics", multiple=True, metavar="M",
              help="Only this metric's monitors (repeatable; default: those the settings in effect watch).")
@click.option("--sensitivity", type=float, metavar="X",
              help="Robust spreads from the centre a value may lie, above 0 (default: the contract's, the project's, else 4).")
@click.option("--warm-up", "warm_up", type=int, metavar="N",
              help="Earlier runs needed before a run is judged, at least 1 (default: the contract's, the project's, else 7).")
@click.option("--output", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="text: each run's line and a summary per monitor; json: the same as one object, for scripts.")
def backtest_command(target: str, contract_id: str | None, metrics: tuple[str, ...], sensitivity: float | None, warm_up: int | None,
                     output_format: str) -> None:
    """Replay the stored runs in time order: what each monitor would have said at each run, and a summary per monitor.

    Each contract is replayed with the settings its live runs judge with: the project's, then the contract's own
    `x-dc-bridge-monitors` (from the file its newest run recorded), then these options."""
    import json

    from dc_bridge import config
    from dc_bridge.history.store import HistoryStore, StoreError
    from dc_bridge.monitors import RECORDED, option_settings, monitor_settings

    try:
        for metric in metrics:
            if metric not in RECORDED:
                raise ValueError(f"--metric {metric!r}: no such metric; the metrics are {', '.join(RECORDED)}")
        project = monitor_settings(config.load())
        # `--metric` checked above (named as the option is); the rest as the file's keys, before the store is read
        options = {"sensitivity": sensitivity, "warm-up": warm_up, "metrics": list(metrics) or None}
        option_settings(project, options)
        store = HistoryStore(_existing_store(target), mode="read")
        contracts = [contract_id] if contract_id else store.contracts()
        replays = []
        for contract in contracts:
            settings, limits = _contract_settings(store, contract, project)
            replays += _replayed(store, contract, option_settings(settings, options), limits)
    except (StoreError, ValueError) as exc:  # a ConfigError too
        click.echo(f"dc-bridge monitor backtest: {exc}", err=True)
        sys.exit(EXIT_UNREADABLE)
    if output_format == "json":
        click.echo(json.dumps(_as_json(replays), indent=2, ensure_ascii=False))
    else:
        click.echo(_as_text(replays, target))
    sys.exit(EXIT_OK)


def _contract_settings(store, contract: str, project):
    """The project's settings with the contract's own `x-dc-bridge-monitors` on top, as its live runs have them, and
    the contract's limits on its series (its freshness SLAs); the contract's file is the one its newest run recorded.
    A file that is gone (or a registered contract's text, which the store does not keep) leaves the project's settings
    and no limits, and stderr says so: the replay may differ from the live runs."""
    from dc_bridge.contract.reading.load import load_contract
    from dc_bridge.history.series import series_limits
    from dc_bridge.monitors import contract_monitor_settings
    from dc_bridge.plan.build import build_plan

    file = store.contract_file(contract)
    if file is None:
        return project, {}
    if not Path(file).is_file():
        click.echo(f"dc-bridge monitor backtest: note: contract {contract!r}: its file {file} (as its newest run recorded it) "
                   f"is not here, so its own x-dc-bridge-monitors and its freshness SLAs are not applied", err=True)
        return project, {}
    loaded = load_contract(file)
    if loaded.contract is None:
        raise ValueError(f"contract {contract!r}: its file {file} cannot be read as a contract; run `dc-bridge lint {file}`")
    return contract_monitor_settings(project, loaded.contract.monitors, file), series_limits(build_plan(loaded.contract).checks)


def _replayed(store, contract: str, settings, limits) -> list:
    """Each watched series of the contract replayed: the whole-table runs' series and the sliced runs' apart, as a live
    run reads only the runs sliced as it is (`--where`: a check over a slice counts the slice)."""
    from dc_bridge.monitors import backtest, summarize

    replays = []
    for sliced in (False, True):
        found = store.series(contract, sliced=sliced)
        for key, points in sorted(found.items(), key=lambda item: item[0].monitor_id):
            if key.metric in settings.metrics and points:
                verdicts = backtest(key, points, settings, limit=limits.get(key))
                replays.append((contract, sliced, key, points, verdicts, summarize(key, points, verdicts)))
    return replays


def _existing_store(target: str) -> Path:
    """The store file, only read: a path that is missing, a folder, or a file that is not a dc-bridge store is bad
    input (and is never made into one, as opening a store for a run would)."""
    import sqlite3
    from contextlib import closing

    path = Path(target)
    if target.startswith("table:"):
        raise ValueError(f"--history {target}: backtest reads a SQLite store; replay a table's runs from a Spark session "
                         f"(SparkTableStore.series and dc_bridge.monitors.backtest)")
    if not path.is_file():
        raise ValueError(f"--history {target}: no such file; name the SQLite store `run --history` writes (e.g. runs/history.db)")
    try:
        with closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)) as db:
            db.execute("SELECT version FROM schema_version").fetchall()
            db.execute("SELECT run_id FROM runs LIMIT 1").fetchall()
    except sqlite3.Error:
        raise ValueError(f"--history {target}: not a dc-bridge history store (no runs or schema_version table in a SQLite file)") from None
    return path


def _as_json(replays) -> dict:
    runs, summary = [], []
    for contract, sliced, key, points, verdicts, counted in replays:
        for point, said in zip(sorted(points, key=lambda p: p.at), verdicts):
            runs.append({"contract_id": contract, "sliced": sliced, "monitor_id": key.monitor_id, "at": point.at.isoformat(), "outcome": said.outcome,
                         "observed": said.observed, "lower": said.lower, "upper": said.upper, "season": said.season,
                         "sentence": said.sentence})
        summary.append({"contract_id": contract, "sliced": sliced, "monitor_id": key.monitor_id, "runs": counted.runs, "learning": counted.learning,
                        "normal": counted.normal, "anomalous": counted.anomalous,
                        "first_anomaly": counted.first_anomaly.isoformat() if counted.first_anomaly else None,
                        "last_anomaly": counted.last_anomaly.isoformat() if counted.last_anomaly else None})
    return {"runs": runs, "summary": summary}


def _as_text(replays, target: str) -> str:
    if not replays:
        return f"no series to replay in {target}"
    lines = []
    for contract, sliced, key, points, verdicts, _ in replays:
        lines.append(f"{_label(contract, sliced)} {key.monitor_id}")
        for point, said in zip(sorted(points, key=lambda p: p.at), verdicts):
            lines.append(f"  {point.at:%Y-%m-%d %H:%M} {said.outcome:<9} {said.sentence}")
    lines.append("")
    lines.append(f"{'contract':<24} {'monitor':<32} {'runs':>5} {'learning':>8} {'normal':>6} {'anomalous':>9}")
    for contract, sliced, key, _, _, counted in replays:
        lines.append(f"{_label(contract, sliced):<24} {key.monitor_id:<32} {counted.runs:>5} {counted.learning:>8} {counted.normal:>6} {counted.anomalous:>9}")
    return "\n".join(lines)


def _label(contract: str, sliced: bool) -> str:
    """A contract's runs of a `--where` slice are replayed apart from its whole-table runs, and named so."""
    return f"{contract} (--where runs)" if sliced else contract
