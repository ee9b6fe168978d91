"""The benchmarks' floor (bench/floor.py) is an honest yardstick: written apart from dc-bridge (it imports
nothing from it, so a change to dc-bridge's conditions cannot move it), and correct: each of its ways
to count repeated keys gives, on the bench's workloads, the counts the native engine gives and the
counts the workload planted."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from bench.floor import UNIQUE_METHODS, floor
from bench.workload import WORKLOADS

BENCH = Path(__file__).resolve().parent.parent / "bench"
# enough rows for every planted violation, the repeated order ids (one every 100,000 rows) included
ROWS = 100_005


def imported(file: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            names.add(node.module or "")
    return names


def test_the_floor_imports_nothing_from_dc_bridge():
    for file in (BENCH / "floor.py", BENCH / "workload.py"):  # the floor and the data it reads
        names = imported(file)
        assert "pyspark.sql" in names or file.name == "workload.py"
        assert not [n for n in names if n.split(".")[0] == "dc_bridge"], f"{file.name} imports dc-bridge"


@pytest.mark.parametrize("name", ["narrow", "checks100"])
def test_the_floor_counts_what_the_engine_counts(spark, tmp_path, name):
    import dc_bridge

    from pyspark.sql import functions as F

    workload = WORKLOADS[name]
    frame = spark.range(ROWS).select(*[F.expr(e).alias(c) for c, e in workload.columns.items()]).cache()
    contract = tmp_path / f"{name}.yaml"
    contract.write_text(workload.contract)
    frame.createOrReplaceTempView("floor_orders")
    try:
        found = {method: floor(spark, frame, "floor_orders", method) for method in UNIQUE_METHODS}
        verdict = dc_bridge.run(str(contract), dataframes={"orders": frame}, spark=spark, engines=("spark",), samples=False)
    finally:
        spark.catalog.dropTempView("floor_orders")
        frame.unpersist()
    engine = {c.check_id: c.observed for c in verdict.checks()}
    truth = workload.truth(ROWS)
    assert truth["orders.order_id.unique"] > 0 and truth["orders.customer_email.format"] > 0  # the test can fail
    for method, counts in found.items():
        assert set(truth) <= set(counts), f"{method}: the floor leaves out {sorted(set(truth) - set(counts))}"
        assert {k: float(v) for k, v in counts.items()} == {k: float(engine[k]) for k in counts}, method
        assert {k: float(counts[k]) for k in truth} == {k: float(v) for k, v in truth.items()}, method
