"""The small-data floor: a bare local Spark start that reads a contract's bundled CSV files and runs,
per file, one aggregation (the row count and one count per column) and one grouping of its first
column (the key). What any Spark check of the bundled examples has to pay at least: Python, PySpark's
import, the JVM's start, the reads and two jobs per file; no contract, no engine, no verdict.

    python -m bench.bare_spark contracts/data/orders/orders.csv contracts/data/orders/line_items.csv

Timed as a whole process against `dc-bridge run contracts/orders.yaml` (docs/benchmarks.md, "Small data").
The session is configured like an embedded dc-bridge session (runner/data.py `get_session`): no UI,
4 shuffle partitions, UTC.
"""

from __future__ import annotations

import sys


def main(paths: list[str]) -> None:
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F

    spark = (SparkSession.builder.master("local[*]").appName("bare")
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
             .config("spark.sql.shuffle.partitions", "4").config("spark.sql.session.timeZone", "UTC").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    for path in paths:
        frame = spark.read.option("header", "true").csv(path)
        counts = frame.agg(F.count(F.lit(1)), *[F.count(F.col(f"`{name}`")) for name in frame.columns]).first()
        key = F.col(f"`{frame.columns[0]}`")
        repeated = frame.where(key.isNotNull()).groupBy(key).count().where("count > 1").agg(F.count(F.lit(1))).first()
        print(path, counts[0], repeated[0])
    spark.stop()


if __name__ == "__main__":
    main(sys.argv[1:])
