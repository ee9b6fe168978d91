"""Whole processes, as a CI job runs them: `dc-bridge run` from start to exit against the floor's queries
in a bare PySpark process of their own, on the same parquet, CPU of the whole process tree.

    python -m bench.process --rows 1000000 --workload narrow --data /tmp/benchdata --rounds 2

Each command runs as a child of this process, which is the subreaper of its tree (Linux
`PR_SET_CHILD_SUBREAPER`): the Spark JVM that outlives its Python parent is reaped here too, so the
children's rusage (user + system CPU) counts every process the command started. The commands run one
after the other, the same order each round; each figure is a ratio to the floor process of its round.
The floor process (`python -m bench.process floor PARQUET`) starts a plain session (Spark's JVM
defaults, no UI, 4 shuffle partitions, UTC: bench/bare_spark.py's), reads the parquet and runs
bench/floor.py's queries, importing nothing from dc-bridge: what any tool has to pay at least for these
checks in a process of its own.
The parquet is bench/run.py's (written here when missing, under --data, in a process of its own).
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

from bench.report import stamp as utc_stamp, write_report
from bench.workload import WORKLOADS

PR_SET_CHILD_SUBREAPER = 36  # linux/prctl.h

# system -> the dc-bridge engines it runs (None: the floor process)
SYSTEMS = {"floor": None, "bridge_spark": "spark", "bridge_gx": "gx", "bridge_soda": "soda", "bridge_both": "gx,soda", "floor_c1": None}
# floor_c1: the floor with the JVM options dc-bridge gives a run of at most 64 MiB of local files (C1 only,
# runner/data.py SMALL_DATA_JVM_OPTIONS), for reference: the yardstick stays the floor with Spark's defaults


def floor_process(data: str, java_options: str = "", unique: str = "window") -> None:
    """The floor as a process of its own: a plain session, the parquet read, bench/floor.py's queries. It
    imports nothing from dc-bridge (whose imports would be the floor's cost, not the floor's work)."""
    from pyspark.sql import SparkSession

    from bench.floor import floor

    spark = (SparkSession.builder.master("local[*]").appName("floor")
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
             .config("spark.sql.shuffle.partitions", "4").config("spark.sql.session.timeZone", "UTC")
             .config("spark.driver.extraJavaOptions", java_options).getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    frame = spark.read.parquet(data)
    frame.createOrReplaceTempView("orders")
    print(json.dumps(floor(spark, frame, "orders", unique)))
    spark.stop()


def timed(command: list[str]) -> dict:
    """Wall seconds, exit code and CPU seconds (user + system) of `command` and every process it started."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, errors = process.communicate()
    while True:  # the orphans this subreaper inherited (the JVM)
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            break
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {"wall_seconds": round(wall, 2), "exit_code": process.returncode,
            "cpu_seconds": round(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, 2),
            "stderr_tail": errors.decode(errors="replace")[-400:] if process.returncode not in (0, 1) else ""}


def commands(contract: Path, data: str) -> dict[str, list[str]]:
    from dc_bridge.runner.data import SMALL_DATA_JVM_OPTIONS  # here: the floor process imports this module too

    python, bridge = sys.executable, str(Path(sys.executable).with_name("dc-bridge"))
    made = {}
    for system, engines in SYSTEMS.items():
        made[system] = ([python, "-m", "bench.process", "floor", data] + ([SMALL_DATA_JVM_OPTIONS] if system == "floor_c1" else [])
                        if engines is None else
                        [bridge, "run", str(contract), "--data", f"orders={data}:parquet", "--engines", engines, "-q"])
    return made


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "floor":
        floor_process(*sys.argv[2:])
        return
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--workload", default="narrow", choices=sorted(WORKLOADS))
    parser.add_argument("--data", required=True, help="bench/run.py's --data folder (the parquet is reused)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--systems", default=",".join(SYSTEMS))
    parser.add_argument("--out", default="bench/results")
    args = parser.parse_args()

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise SystemExit("cannot become the subreaper of the commands' processes (Linux only)")
    workload, folder = WORKLOADS[args.workload], Path(args.data)
    contract = folder / f"{workload.name}.yaml"
    data = str(folder / f"{workload.name}_{args.rows}.parquet")
    if not (Path(data) / "_SUCCESS").exists():
        subprocess.run([sys.executable, "-m", "bench.run", "--rows", str(args.rows), "--workloads", workload.name,
                        "--systems", "floor_window", "--data", str(folder), "--reuse-data", "--out", str(folder)], check=True)
    contract.write_text(workload.contract)  # as bench/run.py writes it
    systems = [s for s in args.systems.split(",") if s]
    made = commands(contract, data)
    rounds = []
    for index in range(args.rounds):
        figures = {}
        for system in systems:
            figures[system] = timed(made[system])
            print(f"round {index + 1}  {system:<14} CPU {figures[system]['cpu_seconds']:6.1f}s  wall {figures[system]['wall_seconds']:6.1f}s"
                  f"  exit {figures[system]['exit_code']}", flush=True)
        floor = figures.get("floor", {}).get("cpu_seconds")
        for figure in figures.values():
            figure["cpu_ratio_to_floor"] = round(figure["cpu_seconds"] / floor, 2) if floor else None
        print("  CPU × floor: " + ", ".join(f"{s} {f['cpu_ratio_to_floor']}" for s, f in figures.items()), flush=True)
        rounds.append(figures)
    stamp = utc_stamp()
    report = {"started": stamp, "workload": workload.name, "rows": args.rows, "commands": {s: made[s] for s in systems},
              "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "load_average": os.getloadavg()},
              "rounds": rounds}
    print(f"wrote {write_report(report, args.out, 'process', stamp)}")


if __name__ == "__main__":
    main()
