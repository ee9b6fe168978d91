"""Synthetic data with planted violations at known rates, and the contracts that check it.

Every violation is a pure function of the row id (`id % period == offset`), so the number of
violating rows is known exactly for any size: each reported count is checked against it.
"""

from __future__ import annotations

from dataclasses import dataclass

# narrow table: (column, Spark SQL expression over `id`, planted violation period) — 8 columns
NARROW_COLUMNS = {
    "order_id": "CASE WHEN id % 100000 = 1 THEN concat('o', id - 1) ELSE concat('o', id) END",  # duplicates
    "customer_email": "CASE WHEN id % 1000 = 3 THEN concat('user', id) ELSE concat('user', id, '@example.com') END",
    "status": "CASE WHEN id % 500 = 7 THEN 'bogus' ELSE element_at(array('new','paid','shipped','done','returned'), CAST(id % 5 AS INT) + 1) END",
    "country": "CASE WHEN id % 2000 = 11 THEN 'XX' ELSE element_at(array('DE','FR','US','GB'), CAST(id % 4 AS INT) + 1) END",
    "sku": "CASE WHEN id % 800 = 5 THEN 'bad' ELSE concat('ABC-', lpad(CAST(id % 10000 AS STRING), 4, '0')) END",
    "amount": "CASE WHEN id % 1500 = 2 THEN -1.0 ELSE CAST(id % 9973 AS DOUBLE) END",
    "note": "CASE WHEN id % 2500 = 9 THEN repeat('x', 80) ELSE concat('n', CAST(id % 97 AS STRING)) END",
    "created_at": "CASE WHEN id % 3000 = 4 THEN NULL ELSE timestamp_seconds(1700000000 + id % 86400) END",
}

NARROW_CONTRACT = """
dataContractSpecification: 1.1.0
id: bench-narrow
info: {title: Benchmark narrow, version: 1.0.0}
models:
  orders:
    fields:
      order_id: {type: string, required: true, unique: true}
      customer_email: {type: string, required: true, format: email}
      status: {type: string, enum: [new, paid, shipped, done, returned]}
      country: {type: string, enum: [DE, FR, US, GB]}
      sku: {type: string, pattern: '^[A-Z]{3}-[0-9]{4}$'}
      amount: {type: double, required: true, minimum: 0, maximum: 10000}
      note: {type: string, maxLength: 50}
      created_at: {type: timestamp, required: true}
    quality:
      - type: sql
        description: the 95th percentile of amounts stays in range
        query: SELECT percentile_approx(amount, 0.95) FROM {model}
        mustBeBetween: [0, 10000]
      - type: sql
        description: row count
        query: SELECT COUNT(*) FROM {model}
        mustBeGreaterThan: 0
"""


def period_count(rows: int, period: int, offset: int) -> int:
    """How many ids in [0, rows) satisfy id % period == offset."""
    return 0 if offset >= rows else (rows - 1 - offset) // period + 1


def narrow_truth(rows: int) -> dict[str, float]:
    """Check id -> the exact observed value each engine must report (rows)."""
    dupes = period_count(rows, 100000, 1)
    return {
        "orders.order_id.required": 0,
        "orders.order_id.unique": 2 * dupes,  # each planted duplicate makes two rows share a value
        "orders.customer_email.required": 0,
        "orders.customer_email.format": period_count(rows, 1000, 3),
        "orders.status.enum": period_count(rows, 500, 7),
        "orders.country.enum": period_count(rows, 2000, 11),
        "orders.sku.pattern": period_count(rows, 800, 5),
        "orders.amount.required": 0,
        "orders.amount.range": period_count(rows, 1500, 2),
        "orders.note.length": period_count(rows, 2500, 9),
        "orders.created_at.required": period_count(rows, 3000, 4),
        "orders.quality[1]": rows,
    }


# wide table: 48 generated columns of four shapes, two checks each, plus the narrow table's 8
WIDE_SHAPES = {
    "code": ("CASE WHEN id % {p} = 1 THEN 'bad' ELSE concat('C', lpad(CAST(id % 1000 AS STRING), 3, '0')) END",
             "{{type: string, required: true, pattern: '^C[0-9]{{3}}$'}}"),
    "level": ("CASE WHEN id % {p} = 1 THEN 'zz' ELSE element_at(array('a','b','c'), CAST(id % 3 AS INT) + 1) END",
              "{{type: string, required: true, enum: [a, b, c]}}"),
    "score": ("CASE WHEN id % {p} = 1 THEN 1000.0 ELSE CAST(id % 100 AS DOUBLE) END",
              "{{type: double, required: true, minimum: 0, maximum: 100}}"),
    "label": ("CASE WHEN id % {p} = 1 THEN repeat('y', 40) ELSE concat('l', CAST(id % 50 AS STRING)) END",
              "{{type: string, required: true, maxLength: 20}}"),
}


def wide_columns(groups: int = 12) -> dict[str, str]:
    """The narrow table's 8 columns and `groups` columns of each of the four shapes."""
    columns = dict(NARROW_COLUMNS)
    for index in range(groups):
        for shape, (expression, _) in WIDE_SHAPES.items():
            columns[f"{shape}_{index}"] = expression.format(p=1000 + index)
    return columns


def wide_contract(groups: int = 12, name: str = "wide") -> str:
    """The narrow contract and four checks per added column (exists, type, required, its shape's rule)."""
    fields = "\n".join(f"      {shape}_{index}: {spec.format()}" for index in range(groups) for shape, (_, spec) in WIDE_SHAPES.items())
    return NARROW_CONTRACT.replace("id: bench-narrow", f"id: bench-{name}").replace(
        "      created_at: {type: timestamp, required: true}\n",
        "      created_at: {type: timestamp, required: true}\n" + fields + "\n")


def wide_truth(rows: int, groups: int = 12) -> dict[str, float]:
    truth = {k: v for k, v in narrow_truth(rows).items()}
    suffix = {"code": "pattern", "level": "enum", "score": "range", "label": "length"}
    for index in range(groups):
        for shape in WIDE_SHAPES:
            truth[f"orders.{shape}_{index}.{suffix[shape]}"] = period_count(rows, 1000 + index, 1)
            truth[f"orders.{shape}_{index}.required"] = 0
    return truth


@dataclass(frozen=True)
class Workload:
    name: str
    contract: str
    columns: dict[str, str]
    truth: callable


def _wide(name: str, groups: int) -> Workload:
    """8 + 4 x `groups` columns, 29 + 16 x `groups` checks."""
    return Workload(name, wide_contract(groups, name), wide_columns(groups), lambda rows: wide_truth(rows, groups))


WORKLOADS = {
    "narrow": Workload("narrow", NARROW_CONTRACT, NARROW_COLUMNS, narrow_truth),
    "wide": _wide("wide", 12),  # 56 columns, 221 checks
    # how the cost grows with the number of checks (and columns): 109, 509 and 1,005 checks
    "checks100": _wide("checks100", 5),
    "checks500": _wide("checks500", 30),
    "checks1000": _wide("checks1000", 61),  # 252 columns
    "wide200": _wide("wide200", 48),  # 200 columns, 797 checks
}


def generate(spark, workload: Workload, rows: int, path: str) -> None:
    """Write the table as parquet (a user's data is read from storage, so every run reads it too)."""
    from pyspark.sql import functions as F

    frame = spark.range(rows).select(*[F.expr(expression).alias(name) for name, expression in workload.columns.items()])
    frame.write.mode("overwrite").parquet(path)
