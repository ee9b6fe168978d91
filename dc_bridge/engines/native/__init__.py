"""The native Spark engine (`--engines spark`): the physical floor and the reference. It has no
compiled file; its translation says how each kind is evaluated (translate.py), its run evaluates a
model in one fused aggregation plus one job per key, join or query (run.py). Its one wiring point."""

from __future__ import annotations

from dc_bridge.contract.sql import view_name
from dc_bridge.engines.engine import Engine
from dc_bridge.engines.native.translate import translate_check


def _run(spark, frames, compiled, model, now):
    return counted_pass(spark, frames, compiled, model, now, counted=False).report()


def counted_pass(spark, frames, compiled, model, now, counted: bool = True):
    """A run of `model` planned up to its one aggregation (run.py `FusedPass`), for a caller that counts the rows
    (`counted`) and computes the aggregation's `columns` in a pass of its own (the split, while it judges the rows,
    dc_bridge/enforce): `report(totals=..., rows=...)` gives the same results, without a pass of the run's own."""
    from dc_bridge.engines.native.run import fused_pass

    # a check lint found invalid (a pattern Java rejects) would fail the fused aggregation of every check
    checks = [check for check in compiled.plan.for_model(model) if check.id not in compiled.invalid]
    return fused_pass(spark, frames[model], checks, now, view=view_name(compiled.plan.contract_id, model), frames=frames,
                      counted=counted)


def judge_rows(check, count: int, rows: int):
    """A row-level check judged on its count of violating rows among `rows`, exactly as this engine
    judges the counts of its fused aggregation: the split counts them while it partitions the rows
    (dc_bridge/enforce), so its verdict cannot differ from this engine's."""
    from dc_bridge.engines.native.run import _judge

    return _judge(check, count=count, rows=rows, native="count_if")


ENGINE = Engine(name="spark", translate=translate_check, assemble=None, files=None, run=_run)
