"""The native Spark engine (`--engines spark`): the physical floor and the reference. It has no
compiled file; its translation says how each kind is evaluated (translate.py), its run evaluates a
model in one fused aggregation plus one job per key, join or query (run.py). Its one wiring point."""

from __future__ import annotations

from dc_bridge.contract.sql import view_name
from dc_bridge.engines.engine import Engine
from dc_bridge.engines.native.translate import translate_check


def _run(spark, frames, compiled, model, now, rows: int | None = None):
    from dc_bridge.engines.native.run import run_spark

    # a check lint found invalid (a pattern Java rejects) would fail the fused aggregation of every check
    checks = [check for check in compiled.plan.for_model(model) if check.id not in compiled.invalid]
    return run_spark(spark, frames[model], checks, now,
                     view=view_name(compiled.plan.contract_id, model), frames=frames, rows=rows)


def run_counted(spark, frames, compiled, model, now, rows: int):
    """A run of `model` whose rows the caller counted already (the split counts them while it judges
    them, dc_bridge/enforce): the same results, without a pass that would only count the rows again."""
    return _run(spark, frames, compiled, model, now, rows)


def judge_rows(check, count: int, rows: int):
    """A row-level check judged on its count of violating rows among `rows`, exactly as this engine
    judges the counts of its fused aggregation: the split counts them while it partitions the rows
    (dc_bridge/enforce), so its verdict cannot differ from this engine's."""
    from dc_bridge.engines.native.run import _judge

    return _judge(check, count=count, rows=rows, native="count_if")


ENGINE = Engine(name="spark", translate=translate_check, assemble=None, files=None, run=_run)
