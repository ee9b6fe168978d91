"""The Python API from an orchestrator's threads leaves the caller's session as it found it (docs/cluster.md).

Airflow's and Dagster's task runners, a notebook's thread pool and a web server call dc-bridge from worker
threads, where Spark knows no active session of the thread's own while the caller's session runs. Each
entry point that takes no `spark=` (`dc_bridge.run`) or reads the session of the DataFrame it is given
(`dc_bridge.split`, `contract_from_dataframe`) is called from a thread, and several at once from a pool,
with the tests' one session as the caller's: the session must still run afterwards, with the caller's temp
view, its cached DataFrame and its SQL configuration as they were, and each run's verdict its own data's.
A session started in another thread than the one calling dc-bridge needs a process of its own (no session
may run before it): one subprocess covers that case.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import dc_bridge
from dc_bridge.generate import contract_from_dataframe

CONTRACT = """\
dataContractSpecification: 1.1.0
id: urn:test:threads
info: {title: Threads, version: 1.0.0}
models:
  things:
    fields:
      id: {type: integer, required: true, unique: true}
      name: {type: string, pattern: '^[a-z]+$'}
"""
CLEAN = [(1, "a"), (2, "b")]
DIRTY = [(1, "a"), (1, "B"), (None, "c")]
# what the caller set in its session: a value of a key every session has, and one of its own
CALLER_CONF = {"spark.sql.shuffle.partitions": "3", "dc.bridge.test.caller": "kept"}


def _state(spark, cached) -> dict:
    """What a caller would miss: the session running, its SQL configuration, its view and its cached DataFrame."""
    alive = spark.sparkContext._jsc is not None
    return {
        "running": alive,
        "sql conf": {row.key: row.value for row in spark.sql("SET").collect()} if alive else None,
        "caller's view": sorted(tuple(r) for r in spark.table("callers_view").collect()) if alive else None,
        "cached": str(cached.storageLevel) if alive else None,
    }


@pytest.fixture
def caller(spark):
    """The tests' one session as a caller's: a temp view, a cached DataFrame and SQL settings of its own,
    put back afterwards (the session itself is the suite's: nothing here may stop it)."""
    before = {key: spark.conf.get(key, None) for key in CALLER_CONF}
    for key, value in CALLER_CONF.items():
        spark.conf.set(key, value)
    spark.createDataFrame([("caller", 42)], "who string, n int").createOrReplaceTempView("callers_view")
    cached = spark.createDataFrame([(7,)], "n int").cache()
    cached.count()
    yield cached
    cached.unpersist()
    spark.catalog.dropTempView("callers_view")
    for key, value in before.items():
        spark.conf.unset(key) if value is None else spark.conf.set(key, value)


@pytest.fixture
def contract(tmp_path) -> Path:
    path = tmp_path / "threads.yaml"
    path.write_text(CONTRACT, encoding="utf-8")
    return path


def _in_thread(work):
    """`work()` in a plain thread, as a task runner calls it: its result, or the exception it raised."""
    outcome = {}

    def target() -> None:
        try:
            outcome["result"] = work()
        except BaseException as exc:  # handed back to the test
            outcome["error"] = exc

    thread = threading.Thread(target=target, name="orchestrator-task")
    thread.start()
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["result"]


def test_a_run_from_a_worker_thread_neither_stops_nor_changes_the_callers_session(spark, caller, contract, tmp_path):
    before = _state(spark, caller)
    data = tmp_path / "things.csv"
    data.write_text("id,name\n1,a\n2,b\n", encoding="utf-8")
    verdict = _in_thread(lambda: dc_bridge.run(contract, data={"things": dc_bridge_location(data)}, engines=("spark",)))
    assert verdict.outcome == "passed", verdict.model_dump()
    after = _state(spark, caller)
    assert after == before, {key: (before[key], after[key]) for key in before if before[key] != after[key]}


def dc_bridge_location(path: Path):
    from dc_bridge.runner.data import DataLocation

    return DataLocation(str(path), "csv", (("header", "true"),))


def test_every_api_entry_point_at_once_from_a_pool_keeps_the_callers_session(spark, caller, contract):
    """Runs of one contract on clean and dirty rows side by side (each its own data's verdict), with the default engines and
    the native one, a split and a generated contract, four at a time from one pool."""
    clean = spark.createDataFrame(CLEAN, "id int, name string")
    dirty = spark.createDataFrame(DIRTY, "id int, name string")
    before = _state(spark, caller)
    works = {
        "run clean, gx and soda": lambda: dc_bridge.run(contract, dataframes={"things": clean}).outcome,
        "run dirty, gx and soda": lambda: dc_bridge.run(contract, dataframes={"things": dirty}).outcome,
        "run clean, native": lambda: dc_bridge.run(contract, dataframes={"things": clean}, engines=("spark",)).outcome,
        "run dirty, native": lambda: dc_bridge.run(contract, dataframes={"things": dirty}, engines=("spark",)).outcome,
        "split dirty": lambda: _split_counts(contract, dirty),
        "contract from a DataFrame": lambda: [p["name"] for p in contract_from_dataframe(
            dirty, model="things", id="urn:test:generated", profile=True)["schema"][0]["properties"]],
    }
    with ThreadPoolExecutor(max_workers=4, thread_name_prefix="orchestrator") as pool:
        futures = {name: pool.submit(work) for name, work in works.items()}
        results = {name: future.result() for name, future in futures.items()}
    assert results == {
        "run clean, gx and soda": "passed", "run dirty, gx and soda": "failed",
        "run clean, native": "passed", "run dirty, native": "failed",
        "split dirty": (0, 3),  # both rows of id 1 repeat the key, None breaks required
        "contract from a DataFrame": ["id", "name"],
    }
    after = _state(spark, caller)
    assert after == before, {key: (before[key], after[key]) for key in before if before[key] != after[key]}


def _split_counts(contract: Path, rows) -> tuple[int, int]:
    result = dc_bridge.split(contract, "things", rows)
    try:
        return result.valid.count(), result.quarantined.count()
    finally:
        result.release()


# a session started in a thread of its own, then dc-bridge from the main thread and from another thread
SESSION_IN_ANOTHER_THREAD = textwrap.dedent("""\
    import json, os, sys, threading
    from pyspark.sql import SparkSession
    import dc_bridge

    contract, data = sys.argv[1], sys.argv[2]
    os.environ["PYSPARK_PYTHON"] = sys.executable
    made = {}

    def start():
        made["spark"] = (SparkSession.builder.master("local[1]").appName("callers-app").config("spark.ui.enabled", "false")
                         .config("spark.sql.shuffle.partitions", "5").config("dc.bridge.test.caller", "kept").getOrCreate())
        made["spark"].sparkContext.setLogLevel("ERROR")
        made["spark"].createDataFrame([(7,)], "n int").createOrReplaceTempView("callers_view")

    starter = threading.Thread(target=start)
    starter.start()
    starter.join()
    spark = made["spark"]
    cached = spark.createDataFrame([(1,)], "n int").cache()
    cached.count()

    def state():
        alive = spark.sparkContext._jsc is not None
        return {"running": alive,
                "conf": [spark.conf.get(k) for k in ("spark.sql.shuffle.partitions", "dc.bridge.test.caller",
                                                     "spark.sql.variable.substitute")] if alive else None,
                "view": [tuple(r) for r in spark.table("callers_view").collect()] if alive else None,
                "cached": str(cached.storageLevel) if alive else None,
                "app": spark.sparkContext.appName if alive else None}

    from dc_bridge.runner.data import DataLocation
    location = {"things": DataLocation(data, "csv", (("header", "true"),))}
    before = state()
    outcomes = {"main": dc_bridge.run(contract, data=location, engines=("spark",)).outcome}
    after_main = state()
    worker = threading.Thread(target=lambda: outcomes.update(worker=dc_bridge.run(contract, data=location, engines=("spark",)).outcome))
    worker.start()
    worker.join()
    print(json.dumps({"before": before, "after main": after_main, "after worker": state(), "outcomes": outcomes}))
""")


def test_a_session_started_in_another_thread_is_the_callers_and_survives(contract, tmp_path):
    data = tmp_path / "things.csv"
    data.write_text("id,name\n1,a\n2,b\n", encoding="utf-8")
    script = tmp_path / "session_in_another_thread.py"
    script.write_text(SESSION_IN_ANOTHER_THREAD, encoding="utf-8")
    done = subprocess.run([sys.executable, str(script), str(contract), str(data)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["outcomes"] == {"main": "passed", "worker": "passed"}, found
    assert found["before"]["running"] and found["before"]["app"] == "callers-app", found
    assert found["after main"] == found["before"], found
    assert found["after worker"] == found["before"], found
