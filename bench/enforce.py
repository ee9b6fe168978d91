"""Benchmark: the contract enforced inside the pipeline (docs/enforcing.md), on the narrow workload.

    .venv/bin/python -m bench.enforce                        # 10M rows, 5 micro-batches of 100k
    .venv/bin/python -m bench.enforce --rows 1000000 --out bench/results

What is timed, in one process on one Spark session (local[2]), on the same parquet table, after an
untimed warm-up call of each system: the systems in turn, for `--repeat` rounds; each as wall
seconds and as the JVM's and Python's CPU seconds (bench/run.py `measure`), and as ratios to the native engine's verdict:

- `native_verdict`: `dc_bridge.run(..., engines=("spark",), samples=False)`: the verdict alone;
- `split`: `dc_bridge.split` and both outputs written by `Split.write` in one pass (the judged rows
  written once, partitioned by the quarantine flag; both outputs with the source columns and the
  violations, an empty list on a clean row), to Spark's `noop` sink so that storage is not timed
  (`noop` ignores the partitioning, so the sort a file write adds per task is not timed either);
- `split_counted`: the same split as `valid, quarantined, verdict = dc_bridge.split(...)` unpacks it:
  the counting pass (the quarantined rows cached), then the valid rows (their own columns)
  recomputed from the source and the quarantined rows read from the cache, each to `noop`;
- `cli_two_passes`, `cli_one_pass`: what `run --quarantine --valid-output` writes (the valid rows with
  their own columns, the quarantined with their violations), as parquet in a temp folder: the way
  before (the counting pass, then the valid rows recomputed from the source), and `Split.write_to(...,
  annotated_valid=False)` (one write of the source columns, its quarantined part judged again);
- `hand_split`: the split a user writes by hand in PySpark: one filter over the error-severity
  conditions (engines/spark_conditions.py) and a grouping joined back per uniqueness key, for each
  output; no violation list, no counts, no verdict; to `noop` as well.

The streaming row: a file source of `--batches` parquet files of `--batch-rows` rows each, read one
file per micro-batch (`trigger(availableNow=True)`), through `foreachBatch` either of
- `stream_write_only`: a function that appends the batch to a parquet folder, or
- `stream_guard`: `dc_bridge.streaming.guard(..., on_failure="quarantine")`, which judges each batch,
  writes its valid rows to the sink and its quarantined rows aside, and logs its verdict;
its figure is the mean seconds Spark reports per batch (`addBatch`), and the guard's overhead the
difference. Every count is checked against the planted truth (bench/workload.py). Not part of the
test suite.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import tempfile
import time
from datetime import datetime, timezone
from functools import reduce
from pathlib import Path

from bench.report import write_report
from bench.run import check_truth, measure
from bench.workload import WORKLOADS, generate

WORKLOAD = WORKLOADS["narrow"]


def native_verdict(spark, frame, contract: str) -> dict:
    import dc_bridge

    verdict = dc_bridge.run(contract, dataframes={"orders": frame}, spark=spark, engines=("spark",), samples=False)
    return {c.check_id: c.observed for c in verdict.checks()}


def split(spark, frame, contract: str) -> dict:
    import dc_bridge

    result = dc_bridge.split(contract, "orders", frame)
    folder = Path(tempfile.mkdtemp(prefix="dc-bridge-bench-split-"))
    try:
        result.write(valid=str(folder / "valid"), quarantined=str(folder / "quarantined"), format="noop")
    finally:
        result.release()
        shutil.rmtree(folder, ignore_errors=True)
    return {**{c.check_id: c.observed for c in result.verdict.checks()}, "quarantined_rows": result.quarantined_rows}


def split_counted(spark, frame, contract: str) -> dict:
    import dc_bridge
    from dc_bridge.enforce.split import VIOLATIONS_COLUMN

    result = dc_bridge.split(contract, "orders", frame)
    valid, quarantined, verdict = result
    try:
        valid.drop(VIOLATIONS_COLUMN).write.format("noop").mode("overwrite").save()
        quarantined.write.format("noop").mode("overwrite").save()
    finally:
        result.release()
    return {**{c.check_id: c.observed for c in verdict.checks()}, "quarantined_rows": result.quarantined_rows}


def cli_split(spark, frame, contract: str, one_pass: bool) -> dict:
    """What `run --quarantine --valid-output` writes, as parquet in a temp folder: the valid rows with their own
    columns, the quarantined rows with their violations. `one_pass`: `Split.write_to(annotated_valid=False)`,
    else the way before it (the counting pass, then the valid rows from the source and the quarantined from the cache)."""
    import dc_bridge
    from dc_bridge.enforce.outputs import Output, write_all
    from dc_bridge.enforce.split import VIOLATIONS_COLUMN

    result = dc_bridge.split(contract, "orders", frame)
    folder = Path(tempfile.mkdtemp(prefix="dc-bridge-bench-cli-"))
    outputs = {False: Output("--valid-output", str(folder / "valid"), None), True: Output("--quarantine", str(folder / "quarantined"), None)}
    try:
        if one_pass:
            result.write_to(outputs, "parquet", annotated_valid=False)
        else:
            write_all([Output("--valid-output", str(folder / "valid"), result.valid.drop(VIOLATIONS_COLUMN)),
                       Output("--quarantine", str(folder / "quarantined"), result.quarantined)], "parquet")
    finally:
        result.release()
        shutil.rmtree(folder, ignore_errors=True)
    return {**{c.check_id: c.observed for c in result.verdict.checks()}, "quarantined_rows": result.quarantined_rows}


def hand_split(spark, frame, plan) -> dict:
    """Valid and quarantined rows by hand: the error-severity row conditions in one filter, a
    grouping per uniqueness key joined back; each output reads the source again."""
    from pyspark.sql import Observation
    from pyspark.sql import functions as F

    from dc_bridge.engines.spark_conditions import VIOLATIONS, column

    now = datetime.now(timezone.utc)
    source = frame.columns
    conditions = [F.coalesce(VIOLATIONS[k.kind](k, k.params, now), F.lit(False))
                  for k in plan.checks if k.kind in VIOLATIONS and k.severity == "error"]
    for index, check in enumerate(k for k in plan.checks if k.kind == "unique" and k.severity == "error"):
        key, mark = f"__key_{index}", f"__repeated_{index}"
        repeated = (frame.where(column(check.column).isNotNull()).groupBy(column(check.column).alias(key)).count()
                    .where("count > 1").select(key, F.lit(True).alias(mark)))
        frame = frame.join(repeated, column(check.column) == F.col(key), "left").drop(key)
        conditions.append(F.col(mark).isNotNull())
    bad = reduce(lambda a, b: a | b, conditions)
    counted = Observation()
    frame.where(~bad).select(*source).write.format("noop").mode("overwrite").save()
    frame.where(bad).select(*source).observe(counted, F.count(F.lit(1)).alias("n")).write.format("noop").mode("overwrite").save()
    return {"quarantined_rows": counted.get["n"]}


def stream(spark, source: Path, schema, out: Path, contract: str | None) -> list[float]:
    """The stream over `source`, one file per batch, through a write-only function or the guard;
    Spark's seconds per batch (`addBatch`)."""
    import dc_bridge

    shutil.rmtree(out, ignore_errors=True)
    if contract is None:
        def write(batch, batch_id):
            batch.write.mode("append").parquet(str(out / "sink"))
    else:
        write = dc_bridge.streaming.guard(contract, "orders", on_failure="quarantine", sink=str(out / "sink"),
                                          quarantine=str(out / "quarantine"), log=str(out / "verdicts.jsonl"))
    query = (spark.readStream.schema(schema).option("maxFilesPerTrigger", 1).parquet(str(source)).writeStream
             .foreachBatch(write).option("checkpointLocation", str(out / "checkpoint")).trigger(availableNow=True).start())
    query.awaitTermination()
    return [p["durationMs"]["addBatch"] / 1000 for p in query.recentProgress if p["numInputRows"]]


def figures(seconds: float, profile: dict) -> dict:
    return {"seconds": round(seconds, 2), "jvm_cpu_seconds": profile.get("jvm_cpu_seconds"),
            "python_cpu_seconds": profile.get("python_cpu_seconds"), "task_cpu_seconds": profile.get("task_cpu_seconds"),
            "spark_busy_seconds": profile.get("spark_busy_seconds"), "task_cpu_by_call_site": profile.get("task_cpu_by_call_site", [])[:6]}


def ratio(a: float | None, b: float | None) -> float | None:
    return round(a / b, 3) if a is not None and b else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--batches", type=int, default=5)
    parser.add_argument("--batch-rows", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=1, help="times each batch system runs; the fastest (wall) is kept")
    parser.add_argument("--driver-memory", default="4g")
    parser.add_argument("--data", default=None, help="folder for the generated parquet (default: a temp folder, removed)")
    parser.add_argument("--out", type=Path, default=Path("bench/results"))
    parser.add_argument("--systems", default="native_verdict,split,split_counted,hand_split,cli_two_passes,cli_one_pass",
                        help="the batch systems to time (comma-separated)")
    parser.add_argument("--no-stream", action="store_true", help="leave out the streaming row")
    args = parser.parse_args()

    from dc_bridge import compiler
    from dc_bridge.contract.reading.load import load_contract
    from dc_bridge.runner.data import get_session

    spark, _ = get_session("local[2]", {"spark.driver.memory": args.driver_memory, "spark.sql.shuffle.partitions": "8"})
    folder = Path(args.data or tempfile.mkdtemp(prefix="dc-bridge-bench-enforce-"))
    folder.mkdir(parents=True, exist_ok=True)
    contract = folder / "narrow.yaml"
    contract.write_text(WORKLOAD.contract)
    plan = compiler.compile_contract(load_contract(contract).contract).plan
    truth = WORKLOAD.truth(args.rows)
    data = folder / f"narrow_{args.rows}.parquet"
    if not (data / "_SUCCESS").exists():
        started = time.perf_counter()
        generate(spark, WORKLOAD, args.rows, str(data))
        print(f"generated {args.rows:,} rows in {time.perf_counter() - started:.0f}s", flush=True)
    systems = {"native_verdict": lambda f: native_verdict(spark, f, str(contract)),
               "split": lambda f: split(spark, f, str(contract)),
               "split_counted": lambda f: split_counted(spark, f, str(contract)),
               "hand_split": lambda f: hand_split(spark, f, plan),
               "cli_two_passes": lambda f: cli_split(spark, f, str(contract), one_pass=False),
               "cli_one_pass": lambda f: cli_split(spark, f, str(contract), one_pass=True)}
    systems = {name: action for name, action in systems.items() if name in args.systems.split(",")}
    # warm-up, untimed: each system once (the JIT on its own generated code, the file cache), so that no
    # system's first call is the one timed; then the systems in turn, --repeat rounds, so that a change
    # of the machine's load falls on all of them
    for action in systems.values():
        action(spark.read.parquet(str(data)))
    results, problems, counts = {}, [], {}
    for _ in range(args.repeat):
        for name, action in systems.items():
            frame = spark.read.parquet(str(data))
            seconds, jobs, _, found, profile = measure(spark, name, lambda action=action, frame=frame: action(frame))
            if name not in results or seconds < results[name]["seconds"]:
                results[name] = {**figures(seconds, profile), "spark_jobs": jobs}
                counts[name] = found
            print(f"  {name:<16} {seconds:7.1f}s  JVM CPU {profile.get('jvm_cpu_seconds')}s  jobs {jobs}", flush=True)
    for name in systems:
        problems += check_truth(name, {k: v for k, v in counts[name].items() if k != "quarantined_rows"}, truth)
    for name in [s for s in ("split", "split_counted", "cli_two_passes", "cli_one_pass") if s in counts and "hand_split" in counts]:
        if counts[name]["quarantined_rows"] != counts["hand_split"]["quarantined_rows"]:
            problems.append(f"{name} quarantined {counts[name]['quarantined_rows']} rows, the hand-written split "
                            f"{counts['hand_split']['quarantined_rows']}")
    if "cli_one_pass" in results and "cli_two_passes" in results:
        results["cli_one_pass"]["ratio_to_cli_two_passes"] = {
            "wall": ratio(results["cli_one_pass"]["seconds"], results["cli_two_passes"]["seconds"]),
            "jvm_cpu": ratio(results["cli_one_pass"]["jvm_cpu_seconds"], results["cli_two_passes"]["jvm_cpu_seconds"])}
    for name in [s for s in ("split", "split_counted", "hand_split") if s in results and "native_verdict" in results]:
        results[name]["ratio_to_native_verdict"] = {"wall": ratio(results[name]["seconds"], results["native_verdict"]["seconds"]),
                                                    "jvm_cpu": ratio(results[name]["jvm_cpu_seconds"],
                                                                     results["native_verdict"]["jvm_cpu_seconds"])}
    for name in [s for s in ("split", "split_counted") if s in results and "hand_split" in results]:
        results[name]["ratio_to_hand_split"] = {"wall": ratio(results[name]["seconds"], results["hand_split"]["seconds"]),
                                                "jvm_cpu": ratio(results[name]["jvm_cpu_seconds"], results["hand_split"]["jvm_cpu_seconds"])}

    streaming = {} if args.no_stream else stream_row(spark, args, folder, problems, contract)
    version = spark.version
    spark.stop()
    if args.data is None:
        shutil.rmtree(folder, ignore_errors=True)

    report = {"when": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"), "rows": args.rows, "checks": len(plan.checks),
              "batch_rows": args.batch_rows, "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                                                         "spark": version, "platform": platform.platform(),
                                                         "load_average": os.getloadavg()},
              "split": results, "streaming": streaming, "truth_mismatches": problems}
    target = write_report(report, args.out, "enforce", report["when"].replace(":", "").replace("-", ""))
    print(json.dumps(report, indent=2))
    print(f"written to {target}")
    if problems:
        raise SystemExit("COUNTS THAT DO NOT MATCH:\n  " + "\n  ".join(problems))


def stream_row(spark, args, folder: Path, problems: list, contract: Path) -> dict:
    """The streaming figures: the write-only function and the guard over the same batches of exactly
    --batch-rows rows, one parquet file each."""
    from pyspark.sql import functions as F

    source = folder / "stream_source"
    shutil.rmtree(source, ignore_errors=True)
    (spark.range(0, args.batches * args.batch_rows, 1, args.batches)
     .select(*[F.expr(expression).alias(name) for name, expression in WORKLOAD.columns.items()]).write.parquet(str(source)))
    schema = spark.read.parquet(str(source)).schema
    streaming = {}
    store = spark.sparkContext._jsc.sc().statusStore()  # the stream's jobs run in its own thread, outside measure's job group
    for name, guarded in (("stream_write_only", None), ("stream_guard", str(contract))):
        jobs_before = store.jobsList(None).size()
        seconds, _, _, per_batch, profile = measure(spark, name, lambda name=name, guarded=guarded: stream(spark, source, schema, folder / name, guarded))
        jobs = store.jobsList(None).size() - jobs_before
        streaming[name] = {**figures(seconds, profile), "batches": len(per_batch), "spark_jobs_per_batch": round(jobs / max(len(per_batch), 1), 1),
                           "mean_batch_seconds": round(statistics.mean(per_batch), 3),
                           "median_batch_seconds": round(statistics.median(per_batch), 3)}
        print(f"  {name:<16} {seconds:7.1f}s  per batch {streaming[name]['mean_batch_seconds']:.2f}s  "
              f"{streaming[name]['spark_jobs_per_batch']} Spark jobs per batch  "
              f"JVM CPU {profile.get('jvm_cpu_seconds')}s", flush=True)
    written = spark.read.parquet(str(folder / "stream_guard" / "sink")).count() + \
        spark.read.parquet(str(folder / "stream_guard" / "quarantine")).count()
    if written != args.batches * args.batch_rows:
        problems.append(f"the guard wrote {written} rows of {args.batches * args.batch_rows}")
    plain, guarded = streaming["stream_write_only"], streaming["stream_guard"]
    streaming["guard_overhead_per_batch_seconds"] = round(guarded["mean_batch_seconds"] - plain["mean_batch_seconds"], 3)
    streaming["guard_ratio_per_batch"] = ratio(guarded["mean_batch_seconds"], plain["mean_batch_seconds"])
    streaming["guard_ratio_jvm_cpu"] = ratio(guarded["jvm_cpu_seconds"], plain["jvm_cpu_seconds"])
    return streaming


if __name__ == "__main__":
    main()
