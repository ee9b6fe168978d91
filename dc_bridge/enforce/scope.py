"""What a row-level check judges a row against: the row alone, or a key compared with the table.

A check whose violating rows have a condition of their own (engines/spark_conditions.py `VIOLATIONS`,
the condition the native engine counts) is judged on the row. Uniqueness and foreign keys need the
other rows: each adds one join to the rows being judged (the slice), built from the whole table or
the whole referenced model, so that a slice cannot hide a key that repeats in history
(docs/enforcing.md, "Scope"). No key reaches the driver: every comparison is a Spark join.

`flagged(slice, table, checks, frames, now)` returns the slice with one boolean column per check
(`FLAG.format(index)`): True where the row violates the check, never NULL; and the looked-up keys,
cached. Each set of keys (a grouping of the key columns alone, as the verdict's own count) is cached
and counted before the rows are joined with it, so that Spark plans the join knowing its real size:
the repeated keys of a key that is mostly distinct are few, and are broadcast to the rows instead of
every row of the table being shuffled to them (10M rows: docs/benchmarks.md "Enforcing"). Many keys
still get a shuffle join. They stay cached while the split's outputs may be written (each output
recomputes its rows from the source): `Split.release()` frees them.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from dc_bridge.engines.spark_conditions import VIOLATIONS, column
from dc_bridge.plan.checks import Check, kind_of

# the split's own columns while it judges; dropped before any output
FLAG = "__dc_bridge_flag_{}"
_KEY = "__dc_bridge_key_{}_{}"
_MATCH = "__dc_bridge_match_{}"


def _keys_present(names: tuple[str, ...]):
    """All key columns non-null: a key with a null part is never a duplicate nor an orphan (docs/mapping.md)."""
    condition = column(names[0]).isNotNull()
    for name in names[1:]:
        condition = condition & column(name).isNotNull()
    return condition


def _repeated_keys(index: int, check: Check, table, frames: dict):
    """The keys that occur more than once in the whole table. A row of the slice whose key is among
    them is a duplicate, whether its twin is in the slice or in history. Counted with a window over
    the key, as the native engine counts duplicates (spark_conditions.py `duplicates`): on a key
    that is mostly distinct a grouping's partial aggregation reduces nothing and hashes every key twice."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    keys = [column(name).alias(_KEY.format(index, j)) for j, name in enumerate(check.columns)]
    names = [F.col(_KEY.format(index, j)) for j in range(len(keys))]
    counted = table.where(_keys_present(check.columns)).select(*keys).select(
        *names, F.count(F.lit(1)).over(Window.partitionBy(*names)).alias("count"))
    return counted.where(F.col("count") > 1).select(*names).distinct().withColumn(_MATCH.format(index), F.lit(True))


def _referenced_keys(index: int, check: Check, table, frames: dict):
    """The distinct non-null keys of the whole referenced model. A row of the slice whose non-null key
    is not among them is an orphan."""
    from pyspark.sql import functions as F

    target = frames[check.params.to_model]
    keys = [column(name).alias(_KEY.format(index, j)) for j, name in enumerate(check.params.to_columns)]
    return (target.where(_keys_present(check.params.to_columns)).select(*keys).distinct()
            .withColumn(_MATCH.format(index), F.lit(True)))


# where a keyed row-level kind's failing rows come from (the registry's `samples`) -> the rows its
# row is looked up in, and whether a match (a repeat) or no match (an orphan) violates
KEYED: dict[str, tuple[Callable[..., Any], bool]] = {
    "duplicate_keys": (_repeated_keys, True),
    "orphan_keys": (_referenced_keys, False),
}


def _flag_of_the_rows(check: Check, now: datetime, keys_in_pass: bool):
    """The check's flag when the rows being judged decide it alone, with no join: the row's own condition, or (with
    `keys_in_pass`) a key's repeats counted by a window over them; None when it needs a key set looked up."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    if check.kind in VIOLATIONS:
        return F.coalesce(VIOLATIONS[check.kind](check, check.params, now), F.lit(False))
    if keys_in_pass and KEYED[kind_of(check).samples][1]:
        repeats = F.count(F.lit(1)).over(Window.partitionBy(*[column(name) for name in check.columns]))
        return _keys_present(check.columns) & (repeats > 1)
    return None


def flagged(slice_df, table, checks: list[Check], frames: dict, now: datetime, key_sets: dict | None = None,
            keys_in_pass: bool = False, built: dict | None = None) -> tuple[Any, dict]:
    """`slice_df` with one violation flag per check of `checks` (all row-level), and the cached key sets it joins
    (check index -> key set). `key_sets`: those an earlier call with the same checks cached, joined again instead
    of computed anew (rows of the same table judged once more: the quarantined rows of a one-pass write, split.py).
    `keys_in_pass` (`slice_df` is the whole table: a micro-batch): a uniqueness key's repeats are counted by a window
    over the rows inside their own plan, with no job and no cache of their own; each pass that reads the rows counts
    them again, which on a batch's rows costs less than the jobs that cache them (docs/benchmarks.md). `built` (check
    index -> its flag): the flags that depend on no row and no clock (a row's own condition, a key's repeats counted
    in the pass) an earlier call with the same checks built, reused; those this call builds are kept there."""
    from pyspark.sql import functions as F

    flags = {}
    frame = slice_df
    cached = {}
    built = {} if built is None else built
    for index, check in enumerate(checks):
        flag = built.get(index)
        if flag is None:
            flag = _flag_of_the_rows(check, now, keys_in_pass)
            if flag is not None and not kind_of(check).clock:  # a condition on the clock is built for each call's `now`
                built[index] = flag
        if flag is not None:
            flags[index] = flag
            continue
        lookup, violated_on_match = KEYED[kind_of(check).samples]
        looked_up = (key_sets or {}).get(index)
        if looked_up is None:
            looked_up = lookup(index, check, table, frames).persist()
            looked_up.count()  # materialized: the join below is planned with its real size
        cached[index] = looked_up
        on = [column(name) == F.col(_KEY.format(index, j)) for j, name in enumerate(check.columns)]
        condition = on[0]
        for part in on[1:]:
            condition = condition & part
        frame = frame.join(looked_up, condition, "left").drop(*[_KEY.format(index, j) for j in range(len(check.columns))])
        matched = F.col(_MATCH.format(index)).isNotNull()
        flags[index] = (_keys_present(check.columns) & (matched if violated_on_match else ~matched))
    frame = frame.select("*", *[flag.alias(FLAG.format(index)) for index, flag in flags.items()])
    return frame.drop(*[_MATCH.format(index) for index in flags]), cached
