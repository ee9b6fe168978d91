"""`dc-bridge import` of a 5,000-expectation GX suite, against reading the same file with the json module.

    .venv/bin/python -m bench.import_speed                  # about ten seconds
    .venv/bin/python -m bench.import_speed --expectations 20000

The suite is generated, deterministically, by `suite()`: 500 columns, each with ten expectations of the kinds a
GX project holds most (not null with and without mostly, unique, regex, value set, range, lengths, type, a
column pair and a plugin's type, both custom), with meta and notes, as GX 1.x writes them (`type`, `kwargs`,
`meta`, `notes`, `severity`, `id`).

What is timed, in CPU seconds (wall time on a shared machine measures the neighbours), each the best of
`--repeat` runs in one process, the first apart as `cold` (it pays for the imports):

- `json.load`: the floor, the file read and parsed by the json module, nothing else;
- `import`: what `dc-bridge import gx:FILE --out OUT` does in process: read and map every expectation, assemble
  the contract, write its YAML whole with the document lint reads of it (importing/written.py), and build the
  report (the console table is not printed: a terminal's speed is not import's);
- `import + lint`: the same and the lint of the written contract, as the command runs it (the document it wrote,
  not the file parsed again; the patterns judged by a launched Java);
- `lint (file)`: `dc-bridge lint`'s reading of the same file, parsed from its text, for comparison;
- `process[import]`: the whole command in a fresh process, interpreter start-up and imports included.

The target: under 2 s of CPU for the whole command; the report gives the in-process ratio to `json.load`.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.report import write_report

ROOT = Path(__file__).resolve().parent.parent


def suite(expectations: int = 5000) -> dict:
    """A GX 1.x suite of `expectations` expectations, ten per column."""
    def one(index: int) -> dict:
        column, kind = f"col_{index // 10:04d}", index % 10
        made = [
            ("expect_column_values_to_not_be_null", {"column": column}),
            ("expect_column_values_to_not_be_null", {"column": column, "mostly": 0.95}),
            ("expect_column_values_to_be_unique", {"column": column}),
            ("expect_column_values_to_match_regex", {"column": column, "regex": "^[A-Z]{2}[0-9]+$"}),
            ("expect_column_values_to_be_in_set", {"column": column, "value_set": ["a", "b", "c", f"v{index}"]}),
            ("expect_column_values_to_be_between", {"column": column, "min_value": 0, "max_value": index}),
            ("expect_column_value_lengths_to_be_between", {"column": column, "min_value": 1, "max_value": 64}),
            ("expect_column_values_to_be_of_type", {"column": column, "type_": "StringType"}),
            ("expect_column_pair_values_a_to_be_greater_than_b", {"column_A": column, "column_B": "col_0000"}),
            ("expect_column_values_to_be_valid_iban", {"column": column}),
        ][kind]
        return {"type": made[0], "kwargs": made[1], "meta": {"owner": "data-team", "ticket": f"DQ-{index}"},
                "notes": f"Expectation {index}.", "severity": "critical" if index % 3 else "warning",
                "id": f"00000000-0000-4000-8000-{index:012d}"}
    return {"name": "bench_orders", "expectations": [one(i) for i in range(expectations)], "meta": {"great_expectations_version": "1.5.0"}}


def cpu() -> float:
    return time.process_time()


def best(function, repeat: int) -> tuple[float, float]:
    """(cold, best of the rest) CPU seconds of `function()`."""
    times = []
    for _ in range(repeat + 1):
        began = cpu()
        function()
        times.append(cpu() - began)
    return times[0], min(times[1:])


def import_in_process(source: Path, out: Path, lint: bool = False) -> None:
    from dc_bridge.cli.importing import write_whole
    from dc_bridge.contract.lint import lint_file
    from dc_bridge.importing import read_source
    from dc_bridge.importing.assemble import assemble
    from dc_bridge.importing.report import report_json
    from dc_bridge.importing.written import written

    carried = read_source(f"gx:{source}")
    assembled = assemble(carried, id="bench_orders", sources=[f"gx:{source}"])
    report_json(carried, assembled, sources=[f"gx:{source}"], out=str(out))
    text, document = written(assembled.document, str(out))
    write_whole(str(out), text, replace=True)
    if lint:
        lint_file(str(out), document=document)


def lint_of_file(out: Path) -> None:
    from dc_bridge.contract.lint import lint_file

    lint_file(str(out))


def process_cpu(command: list[str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--expectations", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", default="bench/results")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="dc-bridge-bench-import-") as folder:
        source, out = Path(folder) / "suite.json", Path(folder) / "contract.yaml"
        source.write_text(json.dumps(suite(args.expectations), indent=2))

        def load() -> None:
            with source.open(encoding="utf-8") as stream:
                json.load(stream)

        _, floor = best(load, args.repeat)
        cold, warm = best(lambda: import_in_process(source, out), args.repeat)
        _, linted = best(lambda: import_in_process(source, out, lint=True), args.repeat)
        _, file_lint = best(lambda: lint_of_file(out), args.repeat)
        whole = min(process_cpu([str(Path(sys.executable).with_name("dc-bridge")), "import", f"gx:{source}", "--out", str(out),
                                 "--overwrite"]) for _ in range(args.repeat))
        size, lines = source.stat().st_size, len(out.read_text(encoding="utf-8").splitlines())
    figures = {"json_load": floor, "import_cold": cold, "import": warm, "import_and_lint": linted, "lint_of_file": file_lint,
               "process_import": whole}
    print(f"suite: {args.expectations} expectations, {size / 1e6:.1f} MB; contract {lines} lines")
    print(f"json.load          {floor:8.3f} s CPU")
    print(f"import (cold)      {cold:8.3f} s CPU")
    print(f"import             {warm:8.3f} s CPU  ({warm / floor:.1f} x json.load)")
    print(f"import + lint      {linted:8.3f} s CPU  ({linted / floor:.1f} x json.load)")
    print(f"lint (file)        {file_lint:8.3f} s CPU  ({file_lint / floor:.1f} x json.load)")
    print(f"process[import]    {whole:8.3f} s CPU  (target < 2 s: {'met' if whole < 2 else 'NOT met'})")
    report = {"expectations": args.expectations, "suite_bytes": size, "contract_lines": lines, "repeat": args.repeat,
              "cpu_seconds": {name: round(value, 3) for name, value in figures.items()},
              "ratio_to_json_load": {name: round(value / floor, 1) for name, value in figures.items() if floor},
              "target_met": whole < 2,
              "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "load_average": os.getloadavg()}}
    print(f"wrote {write_report(report, args.out, 'import-speed')}")


if __name__ == "__main__":
    main()
