"""The floor every benchmark ratio divides by: the cheapest correct hand-written PySpark that reaches the same
counts as dc-bridge on the bench's workloads (bench/workload.py), written the way a user who knows Spark
writes it for these contracts. It shares no code with dc-bridge (it imports nothing from `dc_bridge`), so
that a change to dc-bridge's own conditions or queries cannot move the yardstick; tests/test_bench_floor.py
checks that, and that its counts equal the native engine's on the workloads.

- one aggregation over the table: the row count and one `count(when(condition))` per row-level check, in
  passes of at most 90 columns (past 100 fields Spark stops generating code for an aggregation);
- uniqueness: the rows whose non-null key repeats, by a window (`count(*) over (partition by key)`) or by a
  grouping (`group by key having count(*) > 1`), reading the key column alone: `UNIQUE_METHODS`, both
  measured by bench/run.py, the faster one is the floor;
- the SQL metrics: the row count is the aggregation's own (the same number, no second scan), the
  percentile its own query (an imperative aggregate in the fused pass would stop Spark from generating
  code for the whole aggregation).

The conditions are written out below from the contracts' text, as a user would: the email rule is the
one dc-bridge documents for `format: email` (docs/lint-codes.md), copied here as a literal.
"""

from __future__ import annotations

import re

# dc-bridge's documented rule for `format: email` (the expression GX and Soda are given too)
EMAIL = (r"^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
         r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$")
# aggregate columns per pass: Spark compiles an aggregation of at most 100 fields (spark.sql.codegen.maxFields)
PER_PASS = 90


def _narrow():
    """check id -> the Column of its violating rows, for the narrow contract (bench/workload.py NARROW_CONTRACT)."""
    from pyspark.sql import functions as F

    col = F.col
    return {
        "orders.order_id.required": col("order_id").isNull(),
        "orders.customer_email.required": col("customer_email").isNull(),
        "orders.customer_email.format": ~col("customer_email").rlike(EMAIL),
        "orders.status.enum": ~col("status").isin("new", "paid", "shipped", "done", "returned"),
        "orders.country.enum": ~col("country").isin("DE", "FR", "US", "GB"),
        "orders.sku.pattern": ~col("sku").rlike("^[A-Z]{3}-[0-9]{4}$"),
        "orders.amount.required": col("amount").isNull(),
        "orders.amount.range": (col("amount") < 0) | (col("amount") > 10000),
        "orders.note.length": F.length("note") > 50,
        "orders.created_at.required": col("created_at").isNull(),
    }


def _shapes(name: str):
    """The wide contracts' added columns (bench/workload.py WIDE_SHAPES), by the column's shape: check id -> Column."""
    from pyspark.sql import functions as F

    col = F.col(name)
    rule = {"code": ("pattern", ~col.rlike("^C[0-9]{3}$")), "level": ("enum", ~col.isin("a", "b", "c")),
            "score": ("range", (col < 0) | (col > 100)), "label": ("length", F.length(col) > 20)}[name.split("_")[0]]
    return {f"orders.{name}.required": col.isNull(), f"orders.{name}.{rule[0]}": rule[1]}


def row_conditions(columns: list[str]) -> dict:
    """Every row-level check of the workload whose table has `columns`: check id -> its violating rows."""
    conditions = _narrow()
    for name in columns:
        if re.fullmatch(r"(code|level|score|label)_[0-9]+", name):
            conditions.update(_shapes(name))
    return conditions


def _repeating_rows_window(frame, key: str) -> int:
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    keys = frame.select(key).where(F.col(key).isNotNull())
    return keys.select(F.count(F.lit(1)).over(Window.partitionBy(key)).alias("n")).where("n > 1").count()


def _repeating_rows_grouping(frame, key: str) -> int:
    from pyspark.sql import functions as F

    groups = frame.where(F.col(key).isNotNull()).groupBy(key).count().where("count > 1")
    return groups.agg(F.coalesce(F.sum("count"), F.lit(0))).first()[0]


# how the rows of a repeated key are counted: bench/run.py times the floor with each
UNIQUE_METHODS = {"window": _repeating_rows_window, "grouping": _repeating_rows_grouping}


def floor(spark, frame, view: str, unique: str = "window") -> dict:
    """Check id -> its count on `frame` (registered as the temp view `view`, which the SQL metric reads)."""
    from pyspark.sql import functions as F

    conditions = row_conditions(frame.columns)
    columns = [F.count(F.lit(1)).alias("rows"), *[F.count(F.when(condition, 1)).alias(f"v{i}")
                                                  for i, condition in enumerate(conditions.values())]]
    totals: dict = {}
    for start in range(0, len(columns), PER_PASS):
        totals.update(frame.agg(*columns[start:start + PER_PASS]).first().asDict())
    counts = {check: totals[f"v{i}"] for i, check in enumerate(conditions)}
    counts["orders.order_id.unique"] = UNIQUE_METHODS[unique](frame, "order_id")
    counts["orders.quality[0]"] = spark.sql(f"SELECT percentile_approx(amount, 0.95) FROM `{view}`").first()[0]
    counts["orders.quality[1]"] = totals["rows"]
    return counts
