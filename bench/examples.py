"""The bundled examples in one run against each run alone: whole processes, CPU of each process tree.

    .venv/bin/python -m bench.examples                  # 3 rounds, the default engines
    .venv/bin/python -m bench.examples --rounds 5 --engines spark

Every bundled contract with sample data (contracts/*.yaml, the quality-rule library left out: it has no data of its
own) runs once alone, then all of them in one `dc-bridge run`, each round in that order. The target (issue 52): the
one run at most 1.0x the two slowest alone, i.e. what one process saves (Spark's start, the engines' imports) pays for
at least the three other contracts. Figures per round: each contract alone, the one run, and the ratio of the one
run to the sum of the two slowest alone of the same round, in CPU seconds (this machine is shared: CPU hardly moves
with its load, wall time does) and in wall seconds. Each command is a child of this process, its subreaper
(bench/process.py `timed`), so the Spark JVM's CPU is counted. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
from pathlib import Path

from bench.process import PR_SET_CHILD_SUBREAPER, timed
from bench.report import stamp, write_report

ROOT = Path(__file__).resolve().parent.parent
LIBRARIES = ("common-quality-rules",)  # no data of its own: its rules run where a contract imports them


def examples() -> list[Path]:
    return [path for path in sorted((ROOT / "contracts").glob("*.yaml")) if path.stem not in LIBRARIES]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--engines", default="gx,soda")
    parser.add_argument("--out", type=Path, default=Path("bench/results"))
    args = parser.parse_args()

    import ctypes

    if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise SystemExit("cannot become the subreaper of the commands (Linux only): the JVMs' CPU would not be counted")
    bridge = str(Path(sys.executable).with_name("dc-bridge"))
    files = examples()
    load_before = os.getloadavg()
    rounds = []
    for number in range(args.rounds):
        alone = {path.stem: timed([bridge, "run", str(path), "--engines", args.engines, "-q"]) for path in files}
        together = timed([bridge, "run", *map(str, files), "--engines", args.engines, "-q"])
        failed = [name for name, figures in {**alone, "together": together}.items() if figures["exit_code"] not in (0, 1)]
        if failed:
            raise SystemExit(f"not run cleanly: {failed}: {[alone.get(n, together)['stderr_tail'] for n in failed]}")
        ratios = {}
        for measure in ("cpu_seconds", "wall_seconds"):
            slowest = sorted((figures[measure] for figures in alone.values()), reverse=True)[:2]
            ratios[measure] = round(together[measure] / sum(slowest), 3)
        rounds.append({"alone": alone, "together": together, "ratio_to_slowest_two": ratios})
        each = ", ".join(f"{name} {figures['cpu_seconds']}" for name, figures in alone.items())
        print(f"round {number + 1}: together {together['cpu_seconds']} s CPU, {together['wall_seconds']} s wall; "
              f"alone {each} s CPU; ratio CPU {ratios['cpu_seconds']}, wall {ratios['wall_seconds']}", flush=True)
    report = {
        "when": stamp(), "engines": args.engines, "contracts": [path.stem for path in files], "rounds": rounds,
        "median_ratio_to_slowest_two": {measure: statistics.median(r["ratio_to_slowest_two"][measure] for r in rounds)
                                        for measure in ("cpu_seconds", "wall_seconds")},
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "load_before": load_before,
                    "load_after": os.getloadavg()},
    }
    report["target_at_most_1.0x"] = report["median_ratio_to_slowest_two"]["cpu_seconds"] <= 1.0
    print(f"written to {write_report(report, args.out, 'examples')}")


if __name__ == "__main__":
    main()
