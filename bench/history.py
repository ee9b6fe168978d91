"""Benchmark: the verdict history store and the site built from it (docs/history.md, docs/benchmarks.md
"Results over time").

    .venv/bin/python -m bench.history                       # 10,000 runs in the store, 1,000 for the site
    .venv/bin/python -m bench.history --store-runs 2000 --site-runs 200 --out bench/results

No Spark: the verdicts are made in memory, as a run of a 100-check contract folds them, so what is
timed is the store and the site alone.

- `append`: appending one run (the store's `append`, one transaction, and the SLAs' `earlier_runs`
  read a run makes first) to a store already holding `--store-runs` runs of the contract, against
  appending it to an empty store; the median of `--repeat` appends each. Target: within 1.2x (the
  cost of a run does not grow with the history).
- `monitors`: judging every monitor of the contract in a run over the store of `--store-runs` runs (each series'
  newest `lookback` earlier points read from the store, then judged): the default monitors (rows, freshness),
  and every series a run records (rows, arrival, and each of the 100 checks' number). Target: at most 0.2 s.
- `site`: `dc-bridge site` over `--site-runs` runs of the 100-check contract, against writing the same
  runs' verdicts as plain JSON files (one `as_json` file per run, the simplest "history" there is);
  with the size of every page written.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

from bench.report import write_report

CHECKS = 100
START = datetime(2026, 1, 1, tzinfo=timezone.utc)


def contract_text(checks: int = CHECKS) -> str:
    """An ODCS contract whose model has `checks` null checks, one per property (the site shows its text)."""
    lines = ["apiVersion: v3.1.0", "kind: DataContract", "id: bench-history", "version: 1.0.0", "status: active",
             "schema:", "  - name: events", "    properties:"]
    for i in range(checks):
        lines += [f"      - name: c{i:03d}", "        logicalType: number", "        quality:",
                  f"          - {{id: c{i:03d}_nulls, metric: nullValues, mustBeLessThan: 5}}"]
    return "\n".join(lines) + "\n"


def verdict(contract_file: str, number: int, checks: int = CHECKS):
    """Run `number` of the contract: each check's null count drifts with the run, a few fail."""
    from dc_bridge.verdict import CheckResult, CheckVerdict, ModelVerdict, Verdict

    made = []
    for i in range(checks):
        observed = float((number * (i + 3)) % 7)
        outcome = "failed" if observed >= 5 else "passed"
        made.append(CheckVerdict(
            check_id=f"c{i:03d}_nulls", model="events", kind="not_null", columns=[f"c{i:03d}"], outcome=outcome, severity="error",
            expected="< 5", observed=observed, source={"file": contract_file, "path": f"schema[0].properties[{i}].quality[0]", "line": 10 + 4 * i},
            engines={"spark": CheckResult(check_id=f"c{i:03d}_nulls", engine="spark", outcome=outcome, observed=observed)}))
    outcome = "failed" if any(c.outcome == "failed" for c in made) else "passed"
    counts = {o: sum(c.outcome == o for c in made) for o in ("passed", "failed")}
    return Verdict(contract_id="bench-history", contract_version="1.0.0", contract_file=contract_file, outcome=outcome,
                   counts=counts, models=[ModelVerdict(name="events", outcome=outcome, counts=counts, checks=made,
                                                       rows=80_000 + (number * 37) % 1_000)], engines=["spark"],
                   data_sources={"events": "/data/events.parquet"}, started_at=(START + timedelta(hours=number)).isoformat(), seconds=1.0)


def fill(store, contract_file: str, runs: int) -> None:
    """`runs` runs of the contract, an hour apart, appended as runs append them."""
    from dc_bridge.runner.history import run_record

    for number in range(runs):
        made = verdict(contract_file, number)
        store.append(run_record(made, ["events"], START + timedelta(hours=number)), made)


def time_append(store, contract_file: str, number: int, repeat: int) -> float:
    """The median seconds of one run's history work: the SLAs' earlier runs, then its append."""
    from dc_bridge.runner.history import run_record

    took = []
    for extra in range(repeat):
        made = verdict(contract_file, number + extra)
        at = START + timedelta(hours=number + extra)
        began = time.perf_counter()
        store.earlier_runs("bench-history", at)
        store.append(run_record(made, ["events"], at), made)
        took.append(time.perf_counter() - began)
    return statistics.median(took)


def bench_monitors(folder: Path, contract_file: str, store_runs: int, repeat: int) -> dict:
    """Judging the contract's monitors over the full store of `bench_append` (run before it)."""
    from dc_bridge.history import HistoryStore
    from dc_bridge.monitors import MonitorSettings
    from dc_bridge.monitors.settings import DEFAULT_METRICS
    from dc_bridge.runner.monitoring import judge_monitors

    store = HistoryStore(folder / "full.db")
    made = verdict(contract_file, store_runs + 1_000)
    at = START + timedelta(hours=store_runs + 1_000)
    found = {}
    for name, metrics in (("default", DEFAULT_METRICS), ("every_series", ("rows", "arrival", "check"))):
        took, judged = [], []
        for _ in range(repeat):
            began = time.perf_counter()
            judged = judge_monitors(store, made, at, MonitorSettings(metrics=metrics))
            took.append(time.perf_counter() - began)
        found[name] = {"monitors": len(judged), "ms": round(1000 * statistics.median(took), 1),
                       "outcomes": {o: sum(m.outcome == o for m in judged) for o in ("normal", "anomalous", "learning")}}
    return {"store_runs": store_runs, **found}


def bench_append(folder: Path, contract_file: str, store_runs: int, repeat: int) -> dict:
    from dc_bridge.history import HistoryStore

    empty, full = HistoryStore(folder / "empty.db"), HistoryStore(folder / "full.db")
    began = time.perf_counter()
    fill(full, contract_file, store_runs)
    filled = time.perf_counter() - began
    # alternate, so the machine's load falls on both alike
    small, large = [], []
    for round_ in range(3):
        small.append(time_append(empty, contract_file, 100_000 + round_ * repeat, repeat))
        large.append(time_append(full, contract_file, store_runs + round_ * repeat, repeat))
    return {"store_runs": store_runs, "fill_seconds": round(filled, 1), "empty_ms": round(1000 * statistics.median(small), 2),
            "full_ms": round(1000 * statistics.median(large), 2), "ratio": round(statistics.median(large) / statistics.median(small), 2),
            "store_mb": round((folder / "full.db").stat().st_size / 1e6, 1)}


def bench_site(folder: Path, contract_file: str, site_runs: int) -> dict:
    from dc_bridge.history import HistoryStore
    from dc_bridge.history.site import build_site
    from dc_bridge.report.verdict_formats import as_json

    store = HistoryStore(folder / "site.db")
    fill(store, contract_file, site_runs)
    began = time.perf_counter()
    pages = build_site(store, folder / "site").written
    site = time.perf_counter() - began
    plain = folder / "plain"
    plain.mkdir()
    verdicts = [verdict(contract_file, number) for number in range(site_runs)]  # made before the clock starts, as a run has it
    began = time.perf_counter()
    for number, made in enumerate(verdicts):
        (plain / f"{number:05d}.json").write_text(as_json(made) + "\n", encoding="utf-8")
    json_seconds = time.perf_counter() - began
    sizes = {str(p.relative_to(folder / "site")): p.stat().st_size for p in pages}
    return {"site_runs": site_runs, "checks": CHECKS, "site_seconds": round(site, 2), "json_seconds": round(json_seconds, 2),
            "ratio": round(site / json_seconds, 2), "pages": len(pages), "largest_page_kb": round(max(sizes.values()) / 1e3, 1),
            "page_kb": {name: round(size / 1e3, 1) for name, size in sorted(sizes.items())}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--store-runs", type=int, default=10_000)
    parser.add_argument("--site-runs", type=int, default=1_000)
    parser.add_argument("--repeat", type=int, default=20, help="appends timed per round (3 rounds)")
    parser.add_argument("--out", type=Path, help="also write the results as JSON here")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="dc-bridge-bench-history-") as tmp:
        folder = Path(tmp)
        contract = folder / "bench-history.yaml"
        contract.write_text(contract_text())
        results = {"machine": {"python": platform.python_version(), "cpus": os.cpu_count(), "system": platform.platform()},
                   "at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                   "append": bench_append(folder, str(contract), args.store_runs, args.repeat),
                   "monitors": bench_monitors(folder, str(contract), args.store_runs, args.repeat),
                   "site": bench_site(folder, str(contract), args.site_runs)}
    text = json.dumps(results, indent=2)
    print(text)
    if args.out:
        write_report(results, args.out, "history", results["at"].replace("-", "").replace(":", "").replace("+0000", "Z"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
