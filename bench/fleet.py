"""Benchmark: a fleet of small contracts, `dc-bridge run --registered`, against a bare PySpark loop.

    .venv/bin/python -m bench.fleet                      # 100 contracts
    .venv/bin/python -m bench.fleet --contracts 20       # a quick run
    .venv/bin/python -m bench.fleet --contracts 20 --explain   # also each phase's seconds per contract
    .venv/bin/python -m bench.fleet --example orders --contracts 21 --runs native,default --explain

Each generated contract has two models of `--rows` rows (1,000), `orders` and `lines`, in parquet for even
contracts and CSV for odd ones, with a realistic mix of checks (required, a key, a value set, a pattern, SQL
ranges, a row count; every tenth contract has a duplicate key, so it fails and fetches samples). All are
registered in an embedded Iceberg catalog and run in this process and its one Spark session (as `dc-bridge
run` starts it, `spark.scheduler.mode=FAIR`) through click's runner:

- `loop`: the baseline, a bare PySpark loop over the same contracts: each model read as the contract's server
  says (CSV with its header), one aggregation (rows, distinct keys, nulls, minimum and maximum) and one
  grouping (rows per value of a text column), collected; measured before and after the fleets, averaged;
- before anything is timed, the loop and a fleet of each engine run untimed over the first `WARM_UP` contracts,
  so that the JVM's JIT has compiled both sides' code (a cold loop measured first took 0.86 s a contract, the
  same loop after the fleets 0.51 s);
- `native`, `native_parallel`: `run --registered --engines spark`, `--parallel 1` and `--parallel 2`;
- `default`, `default_parallel`: the same with the default engines (GX and Soda).

`--example orders` runs copies of a bundled contract (contracts/orders.yaml, its id made `fleet_NNN`, its local
server pointed at the bundled CSVs) instead of the generated ones, and the loop reads its models as that server
says: what a fleet of the example's checks costs (a percentile, a window over the orders' timestamps, an email
format, a pattern, a reference, lengths) where the generated contracts have fewer kinds. `--runs` picks which of
the four fleets run (all by default).

Per contract after the first: the run's wall time less the first contract's, over the others. Figures are
ratios to the loop's per-contract time in the same session (this machine is shared; its load average is
reported before and after), and the throughput of `--parallel 2` against `--parallel 1`. Not part of the
test suite.
"""

from __future__ import annotations

import argparse
import csv
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

NS = "bench.fleet"
# contracts run untimed first, by the loop and by a fleet of each engine (fleet_000 to fleet_019)
WARM_UP = 20
STATUSES = ("placed", "paid", "shipped", "returned")
CONTRACT = """\
apiVersion: v3.1.0
kind: DataContract
id: fleet_{index:03d}
name: Fleet contract {index}
version: 1.0.0
status: active
team:
  name: platform
servers:
  - server: local
    type: local
    format: {format}
    path: data/{index:03d}/{{model}}.{format}
schema:
  - name: orders
    physicalName: orders
    quality:
      - metric: rowCount
        mustBeGreaterThan: 0
    properties:
      - name: order_id
        logicalType: integer
        physicalType: bigint
        required: true
        quality:
          - metric: duplicateValues
            mustBe: 0
      - name: customer_id
        logicalType: integer
        physicalType: bigint
        required: true
      - name: amount
        logicalType: number
        physicalType: double
        quality:
          - type: sql
            query: SELECT COUNT(*) FROM ${{object}} WHERE amount < 0 OR amount > 10000
            mustBe: 0
      - name: status
        logicalType: string
        quality:
          - metric: invalidValues
            arguments:
              validValues: [placed, paid, shipped, returned]
            mustBe: 0
      - name: created_at
        logicalType: timestamp
        physicalType: timestamp
        required: true
  - name: lines
    physicalName: lines
    quality:
      - metric: rowCount
        mustBeGreaterThan: 0
    properties:
      - name: order_id
        logicalType: integer
        physicalType: bigint
        required: true
      - name: line_no
        logicalType: integer
        physicalType: int
        required: true
      - name: sku
        logicalType: string
        quality:
          - metric: invalidValues
            arguments:
              pattern: '^SKU-[0-9]{{4}}$'
            mustBe: 0
      - name: quantity
        logicalType: integer
        physicalType: int
        quality:
          - type: sql
            query: SELECT COUNT(*) FROM ${{object}} WHERE quantity <= 0
            mustBe: 0
"""


def write_data(folder: Path, index: int, rows: int) -> str:
    """Contract `index`'s two tables (parquet for an even index, CSV for an odd one); the format."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    start = datetime(2026, 1, 1, tzinfo=timezone.utc)
    duplicate = index % 10 == 9  # every tenth contract fails its key check
    orders = {"order_id": [i if not (duplicate and i == 1) else 0 for i in range(rows)],
              "customer_id": [(i * 7 + index) % 300 for i in range(rows)],
              "amount": [round(((i * 37 + index) % 5000) / 3, 2) for i in range(rows)],
              "status": [STATUSES[(i + index) % 4] for i in range(rows)],
              "created_at": [start + timedelta(minutes=i) for i in range(rows)]}
    lines = {"order_id": [i // 2 for i in range(rows)], "line_no": [i % 2 + 1 for i in range(rows)],
             "sku": [f"SKU-{(i * 13 + index) % 10000:04d}" for i in range(rows)], "quantity": [i % 5 + 1 for i in range(rows)]}
    target = folder / "data" / f"{index:03d}"
    target.mkdir(parents=True, exist_ok=True)
    fmt = "parquet" if index % 2 == 0 else "csv"
    for model, columns in (("orders", orders), ("lines", lines)):
        if fmt == "parquet":
            table = pa.table(columns)
            table = table.set_column(table.schema.get_field_index("line_no"), "line_no", table["line_no"].cast(pa.int32())) \
                if "line_no" in columns else table
            if "quantity" in columns:
                table = table.set_column(table.schema.get_field_index("quantity"), "quantity", table["quantity"].cast(pa.int32()))
            pq.write_table(table, target / f"{model}.parquet")
        else:
            with (target / f"{model}.csv").open("w", newline="", encoding="utf-8") as handle:
                out = csv.writer(handle)
                out.writerow(columns)
                for row in zip(*columns.values()):
                    out.writerow([value.strftime("%Y-%m-%d %H:%M:%S") if isinstance(value, datetime) else value for value in row])
    return fmt


# a bundled example: its models, each with the key the loop counts and the text column it groups by
EXAMPLES = {"orders": {"orders": ("order_id", "customer_id"), "line_items": ("line_item_id", "sku")}}
BUNDLED = Path(__file__).resolve().parent.parent / "contracts"


def write_example(folder: Path, example: str, index: int) -> Path:
    """Copy `index` of a bundled contract: its id `fleet_NNN`, its local server's path the bundled data's."""
    text = (BUNDLED / f"{example}.yaml").read_text(encoding="utf-8")
    head, rest = text.split("\nid: ", 1)
    text = f"{head}\nid: fleet_{index:03d}\n{rest.split(chr(10), 1)[1]}"
    text = text.replace("path: ./data/", f"path: {BUNDLED}/data/")
    file = folder / f"fleet_{index:03d}.yaml"
    file.write_text(text, encoding="utf-8")
    return file


def loop_once(spark, folder: Path, count: int, example: str | None = None) -> list[float]:
    """The bare loop: per contract, each model read as its server says, one aggregation and one grouping."""
    from pyspark.sql import functions as F

    keys = EXAMPLES[example] if example else {"orders": ("order_id", "status"), "lines": ("order_id", "sku")}
    seconds = []
    for index in range(count):
        began = time.perf_counter()
        for model, (key, text) in keys.items():
            base = folder / "data" / f"{index:03d}"
            frame = (spark.read.option("header", "true").csv(str(BUNDLED / "data" / example / f"{model}.csv")) if example
                     else spark.read.parquet(str(base / f"{model}.parquet")) if index % 2 == 0
                     else spark.read.option("header", "true").csv(str(base / f"{model}.csv")))
            frame.agg(F.count(F.lit(1)), F.countDistinct(key), F.sum(F.col(key).isNull().cast("int")),
                      F.min(key), F.max(key)).collect()
            frame.groupBy(text).count().collect()
        seconds.append(time.perf_counter() - began)
    return seconds


def fleet_once(cli, engines: str, parallel: int, out: Path, explain: bool, glob: str | None = None) -> dict:
    """One `run --registered` (of the contracts whose id matches `glob`): wall seconds, the first contract's, each verdict's outcome."""
    from click.testing import CliRunner

    argv = ["run", "--registered", "--engines", engines, "--parallel", str(parallel), "--output", "json", "--output-file", str(out)]
    argv += ["--contract", glob] if glob else []
    began = time.perf_counter()
    result = CliRunner().invoke(cli, argv + (["--explain"] if explain else []))
    wall = time.perf_counter() - began
    verdicts = json.loads(out.read_text(encoding="utf-8"))
    if result.exit_code not in (0, 1) or any(v["outcome"] == "error" for v in verdicts):
        raise SystemExit(f"the fleet did not run cleanly (exit {result.exit_code}): {result.output[-2000:]}")
    phases: dict[str, list[float]] = {}
    for verdict in verdicts[1:]:
        for phase in verdict.get("phases") or []:
            name = phase["phase"] + (f":{phase['engine']}" if phase.get("engine") else "")
            phases.setdefault(name, []).append(phase["seconds"])
    return {"wall": wall, "first": verdicts[0]["seconds"], "count": len(verdicts),
            "outcomes": {o: sum(v["outcome"] == o for v in verdicts) for o in ("passed", "warning", "failed")},
            "phases_per_contract": {name: round(sum(values) / len(values), 4) for name, values in sorted(phases.items())}}


# each fleet: its engines and --parallel
RUNS = {"native": ("spark", 1), "native_parallel": ("spark", 2), "default": ("gx,soda", 1), "default_parallel": ("gx,soda", 2)}


def per_contract(run: dict) -> float:
    """Seconds per contract after the first."""
    return (run["wall"] - run["first"]) / (run["count"] - 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--contracts", type=int, default=100)
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--explain", action="store_true", help="keep each phase's seconds per contract in the report")
    parser.add_argument("--out", type=Path, default=Path("bench/results"))
    parser.add_argument("--example", choices=sorted(EXAMPLES), help="copies of this bundled contract instead of generated ones")
    parser.add_argument("--runs", default=",".join(RUNS), help=f"which fleets run, of {','.join(RUNS)}")
    args = parser.parse_args()
    chosen = [name.strip() for name in args.runs.split(",") if name.strip()]
    if unknown := sorted(set(chosen) - set(RUNS)):
        parser.error(f"--runs: unknown {', '.join(unknown)}; choose from {', '.join(RUNS)}")

    from dc_bridge.catalog import open_store
    from dc_bridge.catalog.registry import register
    from dc_bridge.cli import main as cli
    from dc_bridge.contract.reading.load import load_contract
    from dc_bridge.runner.data import get_session

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="dc-bridge-bench-fleet-") as temp:
        folder = Path(temp)
        os.chdir(folder)
        (folder / "dc-bridge.toml").write_text(f'catalog = "iceberg"\nnamespace = "{NS}"\n', encoding="utf-8")
        store = open_store("iceberg", folder / ".dc-bridge" / "iceberg", create=True)
        for index in range(args.contracts):
            if args.example:
                file = write_example(folder, args.example, index)
            else:
                fmt = write_data(folder, index, args.rows)
                file = folder / f"fleet_{index:03d}.yaml"
                file.write_text(CONTRACT.format(index=index, format=fmt), encoding="utf-8")
            register(store, NS, load_contract(file).contract, file.read_bytes())
        # the session `dc-bridge run --parallel` starts for several contracts (Spark's whole JIT: C1 alone fills its code
        # cache in a long fleet and the JVM stops compiling), started here so that every run and the loop share it
        spark, _ = get_session(None, {"spark.scheduler.mode": "FAIR"})
        # untimed: the JIT warmed on both sides' code (the loop's reads and aggregations, a fleet of each engine's), so
        # that neither the loop measured first nor the fleet run first pays for a cold JVM the other does not
        loop_once(spark, folder, min(args.contracts, WARM_UP), args.example)
        for engines in sorted({RUNS[name][0] for name in chosen}):
            fleet_once(cli, engines, 1, folder / "warm-up.json", False, glob=None if args.contracts <= WARM_UP else "fleet_0[01]?")
        loop_before = loop_once(spark, folder, args.contracts, args.example)
        runs = {}
        for name in chosen:
            engines, parallel = RUNS[name]
            runs[name] = fleet_once(cli, engines, parallel, folder / f"{name}.json", args.explain)
            print(f"{name}: {runs[name]['wall']:.1f} s, {per_contract(runs[name]):.3f} s per contract after the first", flush=True)
        loop_after = loop_once(spark, folder, args.contracts, args.example)
        spark.stop()
    loop = statistics.mean(loop_before[1:] + loop_after[1:])
    load_after = os.getloadavg()
    seconds = {name: round(per_contract(run), 3) for name, run in runs.items()}
    ratios = {name: round(value / loop, 2) for name, value in seconds.items()}
    throughput = {engines: round(runs[engines]["wall"] / runs[f"{engines}_parallel"]["wall"], 2) for engines in ("native", "default")
                  if engines in runs and f"{engines}_parallel" in runs}
    targets = {"native_at_most_1.5x_loop": ("native", 1.5), "default_at_most_3x_loop": ("default", 3)}
    report = {
        "when": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"), "contracts": args.contracts,
        "example": args.example, "rows": None if args.example else args.rows,
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "load_before": load_before, "load_after": load_after},
        "loop_seconds_per_contract": round(loop, 3), "loop_before": round(statistics.mean(loop_before[1:]), 3),
        "loop_after": round(statistics.mean(loop_after[1:]), 3),
        "seconds_per_contract_after_the_first": seconds, "ratio_to_loop": ratios,
        "parallel_2_throughput_over_parallel_1": throughput,
        "wall_seconds": {name: round(run["wall"], 1) for name, run in runs.items()},
        "outcomes": {name: run["outcomes"] for name, run in runs.items()},
        "targets": {**{target: ratios[name] <= limit for target, (name, limit) in targets.items() if name in ratios},
                    **({"parallel_2_at_least_1.4x": min(throughput.values()) >= 1.4} if throughput else {})},
    }
    if args.explain:
        report["phases_per_contract"] = {name: run["phases_per_contract"] for name, run in runs.items()}
    target = write_report(report, args.out, "fleet", report["when"].replace(":", "").replace("-", ""))
    print(json.dumps(report, indent=2))
    print(f"written to {target}")


if __name__ == "__main__":
    main()
