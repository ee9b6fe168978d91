"""Runs datacontract-cli's `test` on one parquet table, inside datacontract-cli's own virtualenv.

Started by bench/datacontract_cli.py with that venv's python; imports only pyspark and datacontract
(never dc_bridge). It starts its own Spark session with the bench's settings, reads the parquet,
registers it as the temp view the contract's `dataframe` server reads (the schema's name), and times
only `DataContract(...).test()` under its own Spark job group, sampling the driver's JVM heap with
bench/heap.py, as bench/run.py does. Prints one JSON object as its last line of standard output.

    python bench/datacontract_cli_runner.py --contract C.yaml --data T.parquet --view orders \
        --master local[2] --driver-memory 6g --shuffle-partitions 8
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

from heap import HeapSampler  # bench/heap.py: this script's folder is first on sys.path


def check_record(check) -> dict:
    """One check of the run, with the count it measured where it reports one."""
    diagnostics = check.diagnostics or {}
    value = diagnostics.get("value")
    if value is None:
        for key in ("failed_rows_count", "invalid_count", "missing_count", "duplicate_count", "row_count"):
            if diagnostics.get(key) is not None:
                value = diagnostics[key]
                break
    return {"name": check.name, "type": check.type, "field": check.field,
            "result": check.result.value if check.result is not None else None,
            "value": value, "reason": None if check.reason is None else str(check.reason)[:300],
            "diagnostics": json.loads(json.dumps(diagnostics, default=str))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--contract", required=True)
    parser.add_argument("--data", required=True, help="parquet folder")
    parser.add_argument("--view", default="orders", help="temp view the contract's dataframe server reads")
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--driver-memory", default="6g")
    parser.add_argument("--shuffle-partitions", default="8")
    parser.add_argument("--log4j", default=None, help="log4j2 properties file for the driver")
    args = parser.parse_args()

    started = time.perf_counter()
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    if args.master.startswith("local"):
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    from pyspark.sql import SparkSession

    # the settings of dc_bridge.runner.data.get_session, as the bench's own session has them
    builder = (SparkSession.builder.appName("bench-datacontract-cli").master(args.master)
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.session.timeZone", "UTC")
               .config("spark.driver.memory", args.driver_memory)
               .config("spark.sql.shuffle.partitions", args.shuffle_partitions))
    if args.log4j:
        builder = builder.config("spark.driver.extraJavaOptions", f"-Dlog4j.configurationFile={args.log4j}")
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    from importlib import metadata

    from datacontract.data_contract import DataContract  # its import cost is start-up, not test time

    spark.read.parquet(args.data).createOrReplaceTempView(args.view)
    startup = time.perf_counter() - started

    group = f"bench-datacontract_cli-{time.monotonic_ns()}"
    spark.sparkContext.setJobGroup(group, "datacontract_cli")
    with HeapSampler(spark) as heap:
        started = time.perf_counter()
        run = DataContract(data_contract_file=args.contract, spark=spark).test()
        seconds = time.perf_counter() - started
    jobs = len(spark.sparkContext.statusTracker().getJobIdsForGroup(group))
    spark.sparkContext.setLocalProperty("spark.jobGroup.id", None)

    report = {"version": metadata.version("datacontract-cli"), "ibis": metadata.version("ibis-framework"),
              "pyspark": spark.version, "startup_seconds": round(startup, 2), "seconds": seconds,
              "spark_jobs": jobs, "driver_heap_peak_mib": heap.peak / 2**20,
              "result": run.result.value if run.result is not None else None,
              "checks": [check_record(c) for c in run.checks],
              "warnings": [f"{log.level}: {log.message[:500]}" for log in run.logs or [] if log.level in ("ERROR", "WARN")]}
    spark.stop()
    print(json.dumps(report))


if __name__ == "__main__":
    main()
