"""What `--metrics-file` / `--metrics-push` cost a run (issue 39: within 1.05x of the same run without),
as a whole process on the bundled orders example:

    python -m bench.metrics --rounds 5 --engines spark

Each round runs `dc-bridge run contracts/orders.yaml` without metrics, with `--metrics-file`, and with
`--metrics-push URL` when `--push URL` names a Pushgateway (started apart from this process: as the subreaper
of its children's trees, it waits for every child, a server too), one after the other, alternating which goes first; wall and CPU seconds of each whole
process tree (bench/process.py's `timed`, as the subreaper of the JVM). The ratios are medians over the
rounds. It also times the metrics step alone in this process (report/prometheus.py on the run's verdict),
which is what the options add: the rest of the difference between processes is noise.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench.process import PR_SET_CHILD_SUBREAPER, timed

ROOT = Path(__file__).resolve().parent.parent
CONTRACT = ROOT / "contracts" / "orders.yaml"


def in_process_seconds(engines: str, folder: Path) -> float:
    """The metrics step alone: the orders example's verdict (one run here) to an exposition file, best of 20."""
    import dc_bridge
    from dc_bridge.report.prometheus import write_file

    verdict = dc_bridge.run(CONTRACT, engines=tuple(engines.split(",")))
    best = float("inf")
    for _ in range(20):
        began = time.perf_counter()
        write_file(folder / "step.prom", [verdict])
        best = min(best, time.perf_counter() - began)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--engines", default="spark")
    parser.add_argument("--out", type=Path, help="write the figures as JSON here")
    parser.add_argument("--push", metavar="URL", help="also time --metrics-push to this Pushgateway")
    args = parser.parse_args()
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER) failed")
    with tempfile.TemporaryDirectory() as temp:
        folder = Path(temp)
        variants = {"without": [str(Path(sys.executable).with_name("dc-bridge")), "run", str(CONTRACT), "--engines", args.engines, "-q"]}
        variants["metrics_file"] = [*variants["without"], "--metrics-file", str(folder / "orders.prom")]
        if args.push:
            variants["metrics_push"] = [*variants["without"], "--metrics-push", args.push]
        runs: dict[str, list[dict]] = {name: [] for name in variants}
        for number in range(args.rounds):
            for name in list(variants) if number % 2 == 0 else list(reversed(variants)):
                runs[name].append(timed(variants[name]))
                assert runs[name][-1]["exit_code"] == 0, runs[name][-1]
        step = in_process_seconds(args.engines, folder)
    median = {name: {key: statistics.median(r[key] for r in found) for key in ("wall_seconds", "cpu_seconds")}
              for name, found in runs.items()}
    result = {"rounds": args.rounds, "engines": args.engines, "median": median,
              "ratio_wall": {name: round(m["wall_seconds"] / median["without"]["wall_seconds"], 3) for name, m in median.items()},
              "ratio_cpu": {name: round(m["cpu_seconds"] / median["without"]["cpu_seconds"], 3) for name, m in median.items()},
              "metrics_step_seconds": round(step, 5), "runs": runs}
    text = json.dumps(result, indent=2)
    if args.out:
        args.out.write_text(text + "\n")
    print(json.dumps({k: result[k] for k in ("median", "ratio_wall", "ratio_cpu", "metrics_step_seconds")}, indent=2))


if __name__ == "__main__":
    main()
