"""The Spark expressions and jobs that more than one engine, or the runner, evaluates a check with:
engine-neutral, so that none of them reaches into another engine's folder.

- `VIOLATIONS`: the condition of a violating row of each row-level kind. The native engine counts
  them in its fused aggregation; runner/samples.py fetches the failing values of a failed check by
  the same condition, whichever engine found it failed.
- `aggregate`: one aggregation as one row, in passes small enough that Spark compiles each (the
  native engine's fused pass, the runner's smallest and largest failing values).
- `duplicates` and `key_examples`: the repeated keys of a uniqueness check, and the JSON-friendly
  form of the failing keys every engine reports (the native engine's grouping and anti join,
  Soda's widened grouping, the runner's samples).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Callable

from dc_bridge.contract.sql import quote_identifier
from dc_bridge.engines.queries import missing, not_in_set, outside_range, retention_cutoff
from dc_bridge.engines.results import plain_value
from dc_bridge.plan import checks as c
from dc_bridge.plan.checks import Check


def column(name: str):
    from pyspark.sql import functions as F

    return F.col(quote_identifier(name))


def _epoch(expression):
    return expression.cast("timestamp").cast("double")


def _outside_range(check: Check, p: c.ValueBetween):
    """Exact, as in every engine (engines/queries.py `outside_range`): a float bound is the decimal its
    text names, so `0.100000000000000001` in a decimal(38,18) column is above `maximum: 0.1`."""
    from pyspark.sql import functions as F

    return F.expr(outside_range(quote_identifier(check.column), p))


def _bad_length(check: Check, p: c.LengthBetween):
    from pyspark.sql import functions as F

    length = F.length(column(check.column))
    bad = None
    if p.min_length is not None:
        bad = length < p.min_length
    if p.max_length is not None:
        bad = (length > p.max_length) if bad is None else bad | (length > p.max_length)
    return length.isNotNull() & bad


def _missing(check: Check, p: c.NotNull):
    from pyspark.sql import functions as F

    # the values as exact, inert SQL literals (engines/queries.py): `isin` of Python values crashes
    # py4j beyond a long and compares a float with a decimal column as a double
    return F.expr(missing(quote_identifier(check.column), p.missing_values))


def _not_in_set(check: Check, p: c.InSet):
    from pyspark.sql import functions as F

    return F.expr(not_in_set(quote_identifier(check.column), p.values))


def _late(check: Check, p: c.Latency, now: datetime):
    processed, source = (column(name) for name in check.columns)
    return (_epoch(processed) - _epoch(source)) > p.max_latency.total_seconds()


def _expired(check: Check, p: c.Retention, now: datetime):
    from pyspark.sql import functions as F

    # exact to the microsecond, against the run's one clock (engines/queries.py `retention_cutoff`)
    return F.expr(f"unix_micros(CAST({quote_identifier(check.column)} AS TIMESTAMP)) < {retention_cutoff(now, p)}")


# kind -> the rows that violate a check of that kind, as a Column (one count each in the native engine's
# fused aggregation); every kind whose failing values are `failing_rows` has one (tests/test_kinds.py)
VIOLATIONS: dict[str, Callable[..., Any]] = {
    "not_null": lambda check, p, now: _missing(check, p),
    "regex": lambda check, p, now: column(check.column).isNotNull() & ~column(check.column).rlike(p.pattern),
    "in_set": lambda check, p, now: _not_in_set(check, p),
    "length_between": lambda check, p, now: _bad_length(check, p),
    "value_between": lambda check, p, now: _outside_range(check, p),
    "latency": _late,
    "retention": _expired,
}


# aggregate columns per Spark job: Spark compiles a plan of more than 100 fields
# (spark.sql.codegen.maxFields) without whole-stage code generation, and such a pass over a wide
# table took 40 s where two compiled passes over the same columns took 24 s (docs/benchmarks.md)
AGGREGATES_PER_PASS = 90


def aggregate(df, columns: list) -> dict[str, Any]:
    """`df.agg(*columns)` as one row (alias -> value), in as few passes as keep every pass compiled."""
    values: dict[str, Any] = {}
    for start in range(0, len(columns), AGGREGATES_PER_PASS):
        values.update(df.agg(*columns[start:start + AGGREGATES_PER_PASS]).first().asDict())
    return values


def generated(df, aggregate_column) -> bool:
    """Whether Spark computes `aggregate_column` of `df` in generated code (a HashAggregate, as it does a count,
    sum, min or max of numbers). An imperative aggregate (percentile_approx: an ObjectHashAggregate) or a buffer
    an UnsafeRow cannot update in place (the min of text: a SortAggregate) makes the whole aggregation it is part
    of run without whole-stage code generation, every other column of it included. Planned, not run."""
    return df.agg(aggregate_column)._jdf.queryExecution().sparkPlan().nodeName() == "HashAggregate"


def key_examples(*values) -> list:
    """The distinct non-null values, JSON-friendly (`plain_value`); arrays, structs and composite keys
    become lists, which cannot be hashed: compared, not put in a set."""
    shown: list = []
    for value in (plain_value(v) for v in values if v is not None):
        if value not in shown:
            shown.append(value)
    return shown


def _key(check: Check):
    from pyspark.sql import functions as F

    keys = [column(name) for name in check.columns]
    return keys[0] if len(keys) == 1 else F.struct(*keys)


def duplicates(df, check: Check, *, mostly_distinct: bool) -> tuple[int, int, list]:
    """(rows whose key repeats, distinct repeated keys, smallest and largest repeated key): one query.

    `mostly_distinct` (at least half the rows hold a key of their own, as the caller knows from an
    engine's count) counts the rows of each key with a window: a grouping's partial aggregation then reduces nothing
    and hashes every key twice, where the window sorts each once (10M rows, one string key: 11 s of
    Spark CPU against 19 s). With many repeats the grouping's partial aggregation shrinks the data
    before the shuffle (6 values in 10M rows: 3 s against 29 s for the window), so it counts those."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    present = df
    for name in check.columns:
        present = present.where(column(name).isNotNull())
    if mostly_distinct:
        counted = present.select(_key(check).alias("key"),
                                 F.count(F.lit(1)).over(Window.partitionBy(*[column(n) for n in check.columns])).alias("n"))
        repeated = counted.where(F.col("n") > 1)
        # each repeated key's n rows add up n times 1/n: its distinct keys without a distinct aggregation, which
        # is a shuffle and a job of its own (exact once rounded: the error of the sum is far below 1/2)
        keys = F.coalesce(F.round(F.sum(F.lit(1.0) / F.col("n"))), F.lit(0.0))
        row = repeated.agg(F.count(F.lit(1)).alias("rows"), keys.alias("keys"),
                           F.min("key").alias("lo"), F.max("key").alias("hi")).first()
    else:
        groups = present.groupBy(_key(check).alias("key")).count().where(F.col("count") > 1)
        row = groups.agg(F.coalesce(F.sum("count"), F.lit(0)).alias("rows"), F.count(F.lit(1)).alias("keys"),
                         F.min("key").alias("lo"), F.max("key").alias("hi")).first()
    examples = [] if check.sensitive else key_examples(row["lo"], row["hi"])
    return int(row["rows"]), int(row["keys"]), examples
