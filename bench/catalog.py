"""Benchmark: contracts beside their tables (docs/catalogs.md), on a 100-column table.

    .venv/bin/python -m bench.catalog                 # 10M rows
    .venv/bin/python -m bench.catalog --rows 1000000 --out bench/results

What is timed, each as wall seconds and as a ratio to one plain Spark read of the same parquet table
(every column read, nothing kept: the `noop` sink), measured in the same process and session:

- `register`: `dc-bridge register` of a 100-column contract into the embedded Iceberg catalog (no Spark);
- `drift_iceberg`: `dc-bridge drift --catalog iceberg` against a 100-column Iceberg table (metadata only);
  the seed's target is 5 s for 100 columns (SC-006);
- `register_spark`, `drift_spark`: the same through the Spark catalog (the session's; the parquet table
  registered in it as `bench.wide`): DBPROPERTIES and TBLPROPERTIES, and the table's schema from `spark.table`;
- `init`: `dc-bridge init --from` the parquet table (its schema only);
- `init_profile`: the same with `--profile` (the first 100,000 rows, the default);
- `init_profile_all`: with `--profile --sample-rows all` (every row);
- `lint_50_models`: `lint_file` of a 50-model contract; the seed's target is 2 s (SC-001).

Commands run in this process through click's runner, so Spark-reading ones use this session, as a
second contract of `dc-bridge run` would. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

from bench.report import write_report

COLUMNS = 100
# column i's type: a spread of the types a table holds
TYPES = ("bigint", "string", "double", "int", "date", "decimal(12,2)", "boolean", "timestamp", "string", "bigint")


def contract_text(models: int = 1, columns: int = COLUMNS) -> str:
    logical = {"bigint": "integer", "int": "integer", "string": "string", "double": "number", "date": "date",
               "decimal(12,2)": "number", "boolean": "boolean", "timestamp": "timestamp"}
    lines = ["apiVersion: v3.1.0", "kind: DataContract", "id: wide", "name: wide", "version: 1.0.0", "status: active",
             "team:", "  name: bench", "schema:"]
    for m in range(models):
        lines += [f"  - name: {'wide' if models == 1 else f'wide_{m}'}", "    properties:"]
        for i in range(columns):
            kind = TYPES[i % len(TYPES)]
            lines += [f"      - name: c{i:03d}", f"        logicalType: {logical[kind]}", f"        physicalType: {kind}"]
    return "\n".join(lines) + "\n"


def write_table(spark, path: Path, rows: int) -> None:
    from pyspark.sql import functions as F

    frame = spark.range(rows)
    columns = []
    for i in range(COLUMNS):
        kind = TYPES[i % len(TYPES)]
        base = (F.col("id") * (i + 7)) % 1000
        value = {"string": F.concat(F.lit("v"), base.cast("string")), "date": F.date_add(F.lit("2024-01-01"), base.cast("int")),
                 "timestamp": F.timestamp_seconds(base * 3600), "boolean": base % 2 == 0}.get(kind, base)
        columns.append(value.cast(kind).alias(f"c{i:03d}"))
    frame.select(*columns).write.mode("overwrite").parquet(str(path))


def iceberg_table(folder: Path) -> None:
    from pyiceberg.catalog.sql import SqlCatalog
    from pyiceberg.schema import Schema
    from pyiceberg.types import (
        BooleanType, DateType, DecimalType, DoubleType, IntegerType, LongType, NestedField, StringType, TimestamptzType,
    )

    iceberg = {"bigint": LongType(), "string": StringType(), "double": DoubleType(), "int": IntegerType(), "date": DateType(),
               "decimal(12,2)": DecimalType(12, 2), "boolean": BooleanType(), "timestamp": TimestamptzType()}
    base = folder / ".dc-bridge" / "iceberg"
    (base / "warehouse").mkdir(parents=True, exist_ok=True)
    catalog = SqlCatalog("dc-bridge", uri=f"sqlite:///{base / 'catalog.db'}", warehouse=(base / "warehouse").as_uri())
    catalog.create_namespace_if_not_exists("bench")
    catalog.create_table("bench.wide", schema=Schema(*[NestedField(i + 1, f"c{i:03d}", iceberg[TYPES[i % len(TYPES)]])
                                                        for i in range(COLUMNS)]))


def timed(action) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--out", type=Path, default=Path("bench/results"))
    args = parser.parse_args()

    from click.testing import CliRunner
    from pyspark.sql import SparkSession

    from dc_bridge.cli import main as cli
    from dc_bridge.contract.lint import lint_file

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = (SparkSession.builder.master("local[2]").appName("dc-bridge-bench-catalog").config("spark.ui.enabled", "false")
             .config("spark.sql.shuffle.partitions", "4").config("spark.driver.memory", "2g").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    runner = CliRunner()

    def command(*argv: str) -> None:
        result = runner.invoke(cli, list(argv))
        assert result.exit_code == 0, result.output

    results: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="dc-bridge-bench-catalog-") as temp:
        folder = Path(temp)
        os.chdir(folder)
        table = folder / "wide.parquet"
        write_table(spark, table, args.rows)
        (folder / "wide.yaml").write_text(contract_text(), encoding="utf-8")
        (folder / "fifty.yaml").write_text(contract_text(models=50, columns=10), encoding="utf-8")
        iceberg_table(folder)
        read = lambda: spark.read.parquet(str(table)).write.format("noop").mode("overwrite").save()
        timed(read)  # warm: the JVM's classes, the file listing
        results["plain_read"] = min(timed(read) for _ in range(2))
        results["register"] = timed(lambda: command("register", "wide.yaml", "--catalog", "iceberg", "--namespace", "bench"))
        results["drift_iceberg"] = timed(lambda: command("drift", "wide.yaml", "--catalog", "iceberg", "--namespace", "bench"))
        spark.sql("CREATE DATABASE IF NOT EXISTS bench")
        spark.sql(f"CREATE TABLE bench.wide USING parquet LOCATION '{table}'")
        results["register_spark"] = timed(lambda: command("register", "wide.yaml", "--catalog", "spark", "--namespace", "bench"))
        results["drift_spark"] = timed(lambda: command("drift", "wide.yaml", "--catalog", "spark", "--namespace", "bench"))
        results["init"] = timed(lambda: command("init", "--from", str(table), "--out", "init.yaml"))
        results["init_profile"] = timed(lambda: command("init", "--from", str(table), "--out", "profile.yaml", "--profile"))
        results["init_profile_all"] = timed(lambda: command("init", "--from", str(table), "--out", "all.yaml", "--profile",
                                                            "--sample-rows", "all"))
        lint_file(str(folder / "fifty.yaml"))  # imports and the schema compiled once
        results["lint_50_models"] = min(timed(lambda: lint_file(str(folder / "fifty.yaml"))) for _ in range(3))
    spark.stop()
    report = {
        "when": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"), "rows": args.rows, "columns": COLUMNS,
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
        "seconds": {k: round(v, 3) for k, v in results.items()},
        "ratio_to_plain_read": {k: round(v / results["plain_read"], 3) for k, v in results.items() if k != "plain_read"},
        "targets": {"drift_100_columns_within_5s (SC-006)": max(results["drift_iceberg"], results["drift_spark"]) < 5,
                    "lint_50_models_within_2s (SC-001)": results["lint_50_models"] < 2},
    }
    target = write_report(report, args.out, "catalog", report["when"].replace(":", "").replace("-", ""))
    print(json.dumps(report, indent=2))
    print(f"written to {target}")


if __name__ == "__main__":
    main()
