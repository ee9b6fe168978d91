"""Start-up: what every `dc-bridge` command pays before it does anything, against a bare interpreter.

    .venv/bin/python -m bench.startup --rounds 20

Each command runs as a child process, one after the other, the same order each round; its CPU is the
children's rusage (user + system) across its run, so the machine's other load hardly moves it. The
figure of each command is the median of its rounds and its ratio to `python -c pass` measured in the
same rounds, after one uncounted round that writes Python's bytecode cache (as an installed package has
it). `python -X importtime` of `dc-bridge --version` then names the modules that cost the most
(cumulative microseconds), the list to read when the figure grows. No Spark.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import statistics
import subprocess
import sys
from pathlib import Path

from bench.report import write_report

BRIDGE = str(Path(sys.executable).with_name("dc-bridge"))
COMMANDS = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "dc-bridge --version": [BRIDGE, "--version"],
    "dc-bridge --help": [BRIDGE, "--help"],
    "dc-bridge run --help": [BRIDGE, "run", "--help"],
}


# as an installed package runs: Python's bytecode cache written and read (a first, uncounted round writes it)
ENVIRONMENT = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


def cpu_seconds(command: list[str]) -> float:
    """User plus system CPU seconds of `command`, run to its end."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=ENVIRONMENT)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def costliest_imports(command: list[str], top: int = 12) -> list[dict]:
    """The imports of `command` and of what it imports directly, by cumulative import time (`-X importtime`, microseconds)."""
    shown = subprocess.run([sys.executable, "-X", "importtime", *command], capture_output=True, text=True, env=ENVIRONMENT).stderr
    rows = []
    for line in shown.splitlines():
        if line.startswith("import time:") and "|" in line and "cumulative" not in line:
            _, cumulative, name = line[len("import time:"):].split("|")
            if len(name) - len(name.lstrip()) <= 3:  # imported by the script, or by what it imports directly
                rows.append({"module": name.strip(), "cumulative_us": int(cumulative)})
    return sorted(rows, key=lambda row: -row["cumulative_us"])[:top]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--out", default="bench/results")
    args = parser.parse_args()
    seconds: dict[str, list[float]] = {name: [] for name in COMMANDS}
    for index in range(args.rounds + 1):
        for name, command in COMMANDS.items():
            spent = cpu_seconds(command)
            if index:  # the first round writes the bytecode cache
                seconds[name].append(spent)
    bare = statistics.median(seconds["python -c pass"])
    figures = {name: {"cpu_seconds_median": round(statistics.median(values), 3), "cpu_seconds_max": round(max(values), 3),
                      "ratio_to_bare_python": round(statistics.median(values) / bare, 1) if bare else None}
               for name, values in seconds.items()}
    for name, figure in figures.items():
        print(f"{name:<22} CPU median {figure['cpu_seconds_median']:.3f}s  max {figure['cpu_seconds_max']:.3f}s  "
              f"x{figure['ratio_to_bare_python']} bare python")
    # the script's own `from dc_bridge.cli import main`, as the console script runs it
    imports = costliest_imports(["-c", "import sys; sys.argv = ['dc-bridge', '--version']; from dc_bridge.cli import main; main()"])
    print("costliest imports of `dc-bridge --version` (cumulative ms): "
          + ", ".join(f"{row['module']} {row['cumulative_us'] / 1000:.0f}" for row in imports))
    report = {"rounds": args.rounds, "figures": figures, "imports_of_version": imports,
              "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "load_average": os.getloadavg()}}
    print(f"wrote {write_report(report, args.out, 'startup')}")


if __name__ == "__main__":
    main()
