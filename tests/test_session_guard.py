"""A run leaves the caller's session as it found it (docs/running.md "The caller's session").

The caller's session is snapshotted before and after `dc_bridge.run` on all three engines: its temp
views (their data and schemas, including one registered under the name the run's model view takes),
its SQL configuration, the storage levels of its DataFrames, its current catalog and database, the
active session and the thread's job group and job tags.
"""

from __future__ import annotations

import pytest

import dc_bridge
from dc_bridge.contract.sql import view_name

# GX's own name for the batch of its `{batch}` queries outside a bridge run: a user's view of that name is theirs
GX_TMP_VIEW = "tmp_view"

CONTRACT = """\
dataContractSpecification: 1.1.0
id: urn:test:session-guard
info: {title: Guard, version: 1.0.0}
models:
  things:
    fields:
      id: {type: integer, required: true, unique: true}
      name: {type: string, pattern: '^[a-z]+$'}
    quality:
      - type: sql
        query: SELECT COUNT(*) FROM {model} WHERE id < 0
        mustBeLessThan: 1
"""
CALLER_VIEW_ROWS = [("caller", 42)]


def _views(spark) -> dict[str, tuple[str, list]]:
    """Every temp view of the session: its schema and its rows."""
    views = {}
    for table in spark.catalog.listTables():
        if table.isTemporary:
            frame = spark.table(table.name)
            # rows as text: a NaN is not equal to itself, so rows holding one would never compare equal
            views[table.name] = (frame.schema.simpleString(), sorted(repr(tuple(row)) for row in frame.collect()))
    return views


def _snapshot(spark, frames: dict) -> dict:
    context = spark.sparkContext
    return {
        "views": _views(spark),
        "sql conf": {row.key: row.value for row in spark.sql("SET").collect()},
        "storage levels": {name: str(frame.storageLevel) for name, frame in frames.items()},
        "current catalog": spark.catalog.currentCatalog(),
        "current database": spark.catalog.currentDatabase(),
        "active session": spark.getActiveSession() is spark,
        "job group": {key: context.getLocalProperty(key) for key in
                      ("spark.jobGroup.id", "spark.job.description", "spark.job.interruptOnCancel", "spark.scheduler.pool")},
        "job tags": sorted(context.getJobTags()),
    }


@pytest.fixture
def contract(tmp_path):
    path = tmp_path / "guard.yaml"
    path.write_text(CONTRACT)
    return path


@pytest.fixture
def callers_session(spark):
    """A caller's session with views under the run's names, a job group, a tag and a database of its own."""
    contract_id = "urn:test:session-guard"
    spark.createDataFrame(CALLER_VIEW_ROWS, "who string, n int").createOrReplaceTempView(view_name(contract_id, "things"))
    spark.createDataFrame([("gx",)], "batch string").createOrReplaceTempView(GX_TMP_VIEW)
    spark.sql("CREATE DATABASE IF NOT EXISTS guard_callers_db")
    spark.catalog.setCurrentDatabase("guard_callers_db")
    context = spark.sparkContext
    context.setJobGroup("callers-group", "the caller's notebook cell", interruptOnCancel=False)
    context.addJobTag("callers-tag")
    yield
    context.removeJobTag("callers-tag")
    context.setLocalProperty("spark.jobGroup.id", None)
    context.setLocalProperty("spark.job.description", None)
    context.setLocalProperty("spark.job.interruptOnCancel", None)
    spark.catalog.setCurrentDatabase("default")
    for name in (view_name(contract_id, "things"), GX_TMP_VIEW):
        spark.catalog.dropTempView(name)


@pytest.mark.parametrize("cache", [False, True], ids=["uncached", "cache"])
def test_a_run_leaves_the_callers_session_as_found(spark, contract, callers_session, cache):
    things = spark.createDataFrame([(1, "a"), (2, "b"), (None, "C")], "id int, name string")
    if cache:
        things.cache().count()  # the caller's cached DataFrame: a --cache run must neither re-persist nor release it
    before = _snapshot(spark, {"things": things})
    verdict = dc_bridge.run(str(contract), dataframes={"things": things}, spark=spark, engines=("gx", "soda", "spark"), cache=cache)
    after = _snapshot(spark, {"things": things})
    assert verdict.outcome == "failed"  # the run did judge the data (the null id, the upper-case name)
    changed = {key: (before[key], after[key]) for key in before if before[key] != after[key]}
    assert not changed, changed
    assert spark.table(view_name("urn:test:session-guard", "things")).collect() == [tuple(r) for r in CALLER_VIEW_ROWS]
    if cache:
        things.unpersist()


def test_cache_reads_a_callers_cached_dataframe_as_it_is(spark):
    """--cache persists no second copy of a DataFrame the caller cached: the run's own plan over it
    (runner/pipeline.py `_model_frames`) is not a cached plan to Spark, the caller's is."""
    from dc_bridge.runner.pipeline import _persist

    things = spark.createDataFrame([(1, "a")], "id int, name string")
    things.cache()
    try:
        assert _persist({"things": things.where("true")}, {"things": things}) == []
    finally:
        things.unpersist()
