"""Benchmark: `dc-bridge site` over a fleet (docs/history.md "The site", docs/benchmarks.md).

    .venv/bin/python -m bench.site                          # 100 contracts x 1,000 runs
    .venv/bin/python -m bench.site --contracts 20 --runs 200 --out bench/results

No Spark. The store is generated through the store's own insert functions (store.py `_insert` and
`_insert_metrics`, the rows `HistoryStore.append` writes for a run and its verdict), all runs of a contract in
one transaction: appending 100,000 runs one transaction each would take most of an hour and time nothing the
site does. Each contract is an ODCS file of its own (owner, domain, tags, a described quality rule); each
run has 8 checks (two flat at 0 rows, a percent, a row count, a freshness in seconds, a check without a
number, a count that fails now and then, one more flat) and two monitors with their band (the model's rows,
the row count check); every tenth contract fails its last three runs, every seventh has an anomalous newest run.

Timed, in one process:
- `read`: what the site reads, alone (each contract's window of runs, its checks, outcomes and monitors), the
  baseline the builds are compared with;
- `full`: the whole site into an empty folder (the Vega bundle included: written once per folder);
- `unchanged`: the same build again, every contract's pages kept (their inputs unchanged);
- `incremental`: one new run of one contract appended (`HistoryStore.append`), then the build;
- the size of every page (the target: none over 500 kB; assets/vega.js is a script, not a page).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

from bench.report import write_report

START = datetime(2025, 1, 1, 6, tzinfo=timezone.utc)
OWNERS = ("checkout", "finance", "growth", "logistics", "platform")
DOMAINS = ("sales", "billing", "marketing", "supply")
TAGS = ("gold", "silver", "pii", "daily", "hourly")


def contract_text(number: int) -> str:
    """Contract `number`: an ODCS file with its owner, domain, tags and a described quality rule."""
    return "\n".join([
        "apiVersion: v3.1.0", "kind: DataContract", f"id: fleet-{number:03d}", f"name: Fleet table {number}", "version: 1.0.0",
        "status: active", f"domain: {DOMAINS[number % len(DOMAINS)]}", f"tags: [{TAGS[number % 5]}, {TAGS[(number + 2) % 5]}]",
        "team:", f"  name: {OWNERS[number % len(OWNERS)]}", "schema:", "  - name: events", "    properties:",
        "      - {name: id, logicalType: string, required: true}", "    quality:",
        "      - {id: volume, description: a day's load holds at least 5000 events, metric: rowCount, mustBeGreaterThanOrEqualTo: 5000}",
        ""])


def verdict(contract: int, file: str, number: int, runs: int):
    """Run `number` of contract `contract`."""
    from dc_bridge.monitors import MonitorVerdict
    from dc_bridge.verdict import CheckVerdict, ModelVerdict, Verdict

    failing = contract % 10 == 0 and number >= runs - 3
    anomalous = contract % 7 == 0 and number == runs - 1
    volume = 10_000.0 + 37 * ((number * 7 + contract) % 13) - (6_000 if failing else 0)
    invalid = float((number + contract) % 17 == 0)

    def check(check_id, kind, observed, expected, unit=None, outcome="passed", line=12):
        return CheckVerdict(check_id=check_id, model="events", kind=kind, columns=[], outcome=outcome, severity="error",
                            observed=observed, expected=expected, unit=unit, source={"file": file, "path": "schema[0]", "line": line})

    checks = [check("events.id.required", "not_null", 0.0, "= 0", "rows", line=14),
              check("events.email.nulls", "not_null", (number % 11) / 5, "<= 5%", "percent"),
              check("volume", "row_count", volume, ">= 5000", outcome="failed" if failing else "passed", line=16),
              check("events.loaded.freshness", "freshness", 3600.0 * (20 + number % 6), "<= 172800", "seconds"),
              check("events.id.unique", "unique", 0.0, "= 0", "rows"),
              check("events.id.exists", "column_exists", None, None),
              check("events.status.invalid", "in_set", invalid, "= 0", "rows", outcome="warning" if invalid else "passed"),
              check("events.amount.range", "value_between", 0.0, "= 0", "rows")]
    rows = 50_000.0 + 400 * (number % 9) - (25_000 if anomalous else 0)
    monitors = [MonitorVerdict(monitor_id="rows(events)", metric="rows", model="events", outcome="anomalous" if anomalous else "normal",
                               unit="rows", direction="both", observed=rows, centre=51_600.0, lower=49_000.0, upper=54_200.0, points=60,
                               sentence="rows within the expected 49,000-54,200" if not anomalous else
                               f"rows {rows:,.0f} are below the expected 49,000-54,200"),
                MonitorVerdict(monitor_id="check(volume)", metric="check", model="events", subject="volume",
                               outcome="anomalous" if failing else "normal", unit="value", direction="both", observed=volume,
                               centre=10_220.0, lower=9_700.0, upper=10_750.0, points=60, sentence="volume within its band")]
    outcome = "failed" if failing else ("warning" if invalid else "passed")
    return Verdict(contract_id=f"fleet-{contract:03d}", contract_version="1.0.0", contract_file=file, outcome=outcome, counts={},
                   models=[ModelVerdict(name="events", outcome=outcome, counts={}, checks=checks, rows=int(rows))], engines=["spark"],
                   data_sources={"events": f"/lake/fleet_{contract:03d}/events.parquet"}, monitors=monitors)


def generate(store, folder: Path, contracts: int, runs: int) -> float:
    """The fleet's store, a transaction per contract through the store's own inserts; seconds taken."""
    import uuid

    from dc_bridge.history.store import _insert, _insert_metrics
    from dc_bridge.runner.history import run_record

    began = time.perf_counter()
    for contract in range(contracts):
        file = folder / f"fleet-{contract:03d}.yaml"
        file.write_text(contract_text(contract))
        with store._transaction() as db:
            for number in range(runs):
                made = verdict(contract, str(file), number, runs)
                record = run_record(made, ["events"], START + timedelta(hours=6 * number))
                run_id = str(uuid.uuid4())
                _insert(db, run_id, record, made, None, origin="run")
                _insert_metrics(db, run_id, record, made, None)
    return time.perf_counter() - began


def read_only(store, window: int) -> float:
    """The baseline: what the site reads from the store, without building anything."""
    began = time.perf_counter()
    for contract_id in store.contracts():
        runs = store.runs(contract_id, limit=window)
        ids = [r.run_id for r in runs]
        store.checks(ids[0])
        store.outcomes(ids)
        store.monitor_outcomes(ids)
        store.contract_file(contract_id)
    return time.perf_counter() - began


def timed(store, out: Path):
    """A build's wall seconds, its CPU seconds (this process's: what the machine's other work does not
    change much), and what it wrote."""
    from dc_bridge.history.site import build_site

    began, cpu = time.perf_counter(), time.process_time()
    built = build_site(store, out)
    return time.perf_counter() - began, time.process_time() - cpu, built


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--contracts", type=int, default=100)
    parser.add_argument("--runs", type=int, default=1_000)
    parser.add_argument("--store", type=Path, help="keep the generated store here and reuse it when it is there (generating "
                                                  "takes minutes)")
    parser.add_argument("--out", type=Path, help="also write the results as JSON here")
    args = parser.parse_args(argv)
    from dc_bridge.history import HistoryStore
    from dc_bridge.history.site import DEFAULT_RUNS
    from dc_bridge.runner.history import run_record

    with tempfile.TemporaryDirectory(prefix="dc-bridge-bench-site-") as tmp:
        folder = Path(tmp)
        kept_store = args.store is not None and args.store.is_file()
        where = args.store.parent if args.store else folder
        store = HistoryStore(args.store or folder / "fleet.db")
        generated = 0.0 if kept_store else generate(store, where, args.contracts, args.runs)
        read = read_only(store, DEFAULT_RUNS)
        full, full_cpu, built = timed(store, folder / "site")
        unchanged, unchanged_cpu, kept = timed(store, folder / "site")
        newest = store.runs("fleet-001", limit=1)[0]
        made = verdict(1, str(where / "fleet-001.yaml"), args.runs, args.runs + 1)
        store.append(run_record(made, ["events"], datetime.fromisoformat(newest.run_at) + timedelta(hours=6)), made)
        incremental, incremental_cpu, again = timed(store, folder / "site")
        sizes = {p.relative_to(folder / "site").as_posix(): p.stat().st_size for p in (folder / "site").rglob("*.html")}
        results = {
            "machine": {"python": platform.python_version(), "cpus": os.cpu_count(), "system": platform.platform(),
                        "load_1min": round(os.getloadavg()[0], 2)},
            "at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "contracts": args.contracts, "runs_each": args.runs, "window": DEFAULT_RUNS,
            "store_mb": round(store.path.stat().st_size / 1e6, 1), "generate_seconds": round(generated, 1),
            "read_seconds": round(read, 3),
            "full_seconds": round(full, 2), "full_cpu_seconds": round(full_cpu, 2), "full_vs_read": round(full / read, 1),
            "full_pages_written": len(built.written),
            "unchanged_seconds": round(unchanged, 2), "unchanged_cpu_seconds": round(unchanged_cpu, 2), "unchanged_kept": kept.unchanged,
            "incremental_seconds": round(incremental, 2), "incremental_cpu_seconds": round(incremental_cpu, 2),
            "incremental_vs_read": round(incremental / read, 2),
            "incremental_written": [p.relative_to(folder / "site").as_posix() for p in again.written],
            "pages": len(sizes), "largest_page_kb": round(max(sizes.values()) / 1e3, 1),
            "index_kb": round(sizes["index.html"] / 1e3, 1),
            "vega_js_kb": round((folder / "site" / "assets" / "vega.js").stat().st_size / 1e3, 1)}
    print(json.dumps(results, indent=2))
    if args.out:
        write_report(results, args.out, "site", results["at"].replace("-", "").replace(":", "").replace("+0000", "Z"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
