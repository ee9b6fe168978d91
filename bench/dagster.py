"""Benchmark: what Dagster adds over `dc_bridge.run` when a contract's checks are Dagster asset checks (dc_bridge.dagster).

    .venv/bin/python -m bench.dagster                         # 5 rounds
    .venv/bin/python -m bench.dagster --rounds 9 --out bench/results

What is timed, in one process on one Spark session (local[2]), after an untimed warm-up of each: the same contract
checked by `dc_bridge.run(contract, spark=...)` and by `dagster.materialize` of the contract's
`dc_bridge.dagster.asset_checks` (Dagster's in-process executor, an ephemeral instance made once, outside the
timing, as a deployment's instance exists before its runs), alternately for `--rounds` rounds. Each under its own
Spark job group (bench/run.py `measure`): its wall seconds and the Spark jobs it started, so the table also shows
that the asset checks start no Spark job of their own. Two contracts:

- `orders`: the bundled example (contracts/orders.yaml, 44 checks on two models), GX and Soda;
- `many`: one model of 200 checks (198 row counts, and the column's exists and type) on 1,000 rows, the native engine:
  Dagster's cost per check against a run whose own cost hardly grows with them.

The figure: the median seconds of each, their difference (what Dagster adds), and the ratio of the medians.
Not part of the test suite.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import tempfile
import textwrap
from pathlib import Path

from bench.report import write_report
from bench.run import measure

ROOT = Path(__file__).resolve().parent.parent


def many_checks(folder: Path, spark, checks: int = 198, rows: int = 1000) -> tuple[Path, dict]:
    """A contract of one model with `checks` row-count rules (200 checks with the column's own two), and its rows."""
    rules = "\n".join(f"      - {{id: rows_{index}, metric: rowCount, mustBeGreaterThan: {index}}}" for index in range(checks))
    contract = folder / "many.yaml"
    contract.write_text(textwrap.dedent("""\
        apiVersion: v3.0.2
        kind: DataContract
        id: urn:bench:dagster-many
        version: 1.0.0
        status: active
        schema:
          - name: events
            properties:
              - {name: id, logicalType: integer, physicalType: bigint}
            quality:
        """) + rules + "\n", encoding="utf-8")
    spark.range(rows).write.mode("overwrite").parquet(str(folder / "events"))
    from dc_bridge.runner.data import DataLocation

    return contract, {"events": DataLocation(str(folder / "events"), "parquet")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--out", default="bench/results")
    args = parser.parse_args()

    import dagster as dg
    from pyspark.sql import SparkSession

    import dc_bridge
    from dc_bridge.dagster import asset_checks

    spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
             .config("spark.sql.shuffle.partitions", "2").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    folder = Path(tempfile.mkdtemp(prefix="bench-dagster-"))
    many, many_data = many_checks(folder, spark)
    cases = {
        "orders": (str(ROOT / "contracts" / "orders.yaml"), {"engines": ["gx", "soda"]}),
        "many": (str(many), {"engines": ["spark"], "data": many_data}),
    }
    instance = dg.DagsterInstance.ephemeral()
    quiet = {"loggers": {"console": {"config": {"log_level": "ERROR"}}}}
    figures = {}
    for case, (contract, options) in cases.items():
        checks = asset_checks(contract, **options)

        def plain() -> dict:
            verdict = dc_bridge.run(contract, spark=spark, **options)
            return {"checks": sum(len(model.checks) for model in verdict.models), "outcome": verdict.outcome}

        def in_dagster() -> dict:
            result = dg.materialize([checks], instance=instance, resources={"spark": spark}, run_config=quiet,
                                    selection=dg.AssetSelection.checks(checks), raise_on_error=False)
            return {"checks": len(result.get_asset_check_evaluations()), "success": result.success}

        systems = {"dc_bridge_run": plain, "dagster_asset_checks": in_dagster}
        for name, action in systems.items():  # warm-up: imports, Dagster's first run, the JVM's first compiles
            measure(spark, f"warm-{case}-{name}", action)
        seconds: dict[str, list[float]] = {name: [] for name in systems}
        jobs: dict[str, list[int]] = {name: [] for name in systems}
        counts: dict[str, dict] = {}
        for _ in range(args.rounds):
            for name, action in systems.items():
                spent, started_jobs, _, counted, _ = measure(spark, f"{case}-{name}", action)
                seconds[name].append(spent)
                jobs[name].append(started_jobs)
                counts[name] = counted
        run_median, dagster_median = (statistics.median(seconds[name]) for name in systems)
        figures[case] = {
            "contract": os.path.relpath(contract, ROOT) if contract.startswith(str(ROOT)) else "many.yaml (generated)",
            "options": {key: value for key, value in options.items() if key != "data"},
            "seconds": {name: [round(value, 3) for value in values] for name, values in seconds.items()},
            "spark_jobs": jobs, "counts": counts,
            "run_median_seconds": round(run_median, 3), "dagster_median_seconds": round(dagster_median, 3),
            "dagster_adds_seconds": round(dagster_median - run_median, 3),
            "ratio": round(dagster_median / run_median, 2),
        }
        print(f"{case:<7} dc_bridge.run {run_median:.2f}s  asset checks in Dagster {dagster_median:.2f}s  "
              f"+{dagster_median - run_median:.2f}s  x{dagster_median / run_median:.2f}  "
              f"Spark jobs {statistics.median(jobs['dc_bridge_run']):.0f} / {statistics.median(jobs['dagster_asset_checks']):.0f}  "
              f"checks {counts['dc_bridge_run']['checks']} / {counts['dagster_asset_checks']['checks']}")
    report = {"rounds": args.rounds, "figures": figures, "dagster": dg.__version__,
              "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "load_average": os.getloadavg()}}
    print(f"wrote {write_report(report, args.out, 'dagster')}")


if __name__ == "__main__":
    main()
