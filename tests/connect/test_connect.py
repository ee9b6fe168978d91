"""dc-bridge on Spark Connect (pyspark 4.x) gives the verdict of a classic local run, check by check.

The bundled orders contract with planted violations (tests/test_cluster.py) runs with all three
engines through `dc-bridge run --master sc://...` and through the Python API on a Connect session, and
is compared with classic local runs of the same data: on this pyspark 4.x, and on the README's
pyspark 3.5 (.venv) where that exists. Each CLI run over Connect is a process whose JAVA_HOME leads
nowhere, so it cannot have started a JVM of its own: whatever it computed, the server did.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from datetime import datetime
from pathlib import Path

import pytest

import dc_bridge
from dc_bridge.runner.data import DataLocation, get_session, parse_data_option, read_location

from test_cluster import CONTRACT, PLANTED, ROOT, TIME_DEPENDENT, _comparable, _planted

ENGINES = "gx,soda,spark"
RUN_TIMEOUT = 600  # seconds for one CLI run (60-150 s over Connect on a busy 2-core machine)
CLI = Path(sys.executable).parent / "dc-bridge"
CLASSIC_35 = ROOT / ".venv" / "bin" / "dc-bridge"  # the README's environment (pyspark 3.5), where it exists


def _cli(args: list[str], cwd: Path, env: dict, executable: Path = CLI) -> subprocess.CompletedProcess:
    return subprocess.run([str(executable), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT)


def _no_jvm(env: dict) -> dict:
    """A client environment where pyspark cannot launch a JVM (spark-submit runs $JAVA_HOME/bin/java)."""
    return {**env, "JAVA_HOME": "/nonexistent-java-home"}


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    folder = tmp_path_factory.mktemp("planted")
    orders, items = _planted(folder)
    return {"folder": folder, "orders": orders, "line_items": items,
            "args": ["--data", f"orders={orders}", "--data", f"line_items={items}"]}


@pytest.fixture(scope="module")
def classic(planted, connect_server):
    """The classic local verdicts (JSON): 'pyspark 4' in this environment, 'pyspark 3.5' in .venv if present."""
    env = {key: value for key, value in connect_server["env"].items() if key not in ("SPARK_HOME", "PYSPARK_PYTHON")}
    runs = {"pyspark 4": CLI, **({"pyspark 3.5": CLASSIC_35} if CLASSIC_35.exists() else {})}
    started = {}
    for name, executable in runs.items():  # side by side: each is a JVM of its own
        out = planted["folder"] / f"classic-{name.replace(' ', '')}.json"
        started[name] = (out, subprocess.Popen(
            [str(executable), "run", str(CONTRACT), "--engines", ENGINES, *planted["args"], "--output", "json", "--output-file", str(out)],
            cwd=planted["folder"], env={**env, "PYSPARK_PYTHON": str(executable.parent / "python")},
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
    verdicts = {}
    for name, (out, process) in started.items():
        output, _ = process.communicate(timeout=RUN_TIMEOUT)
        assert process.returncode == 1, f"classic {name}: exit {process.returncode}\n{output[-3000:]}"
        verdicts[name] = json.loads(out.read_text())
    return verdicts


def _same_verdict(found: dict, classic: dict) -> None:
    checks = {c["check_id"]: c for m in found["models"] for c in m["checks"]}
    assert {i: c["observed"] for i, c in checks.items() if c["outcome"] == "failed"} == PLANTED
    assert found["engines"] == ["gx", "soda", "spark"] and found["counts"]["error"] == 0, found["engine_errors"]
    for name, verdict in classic.items():
        expected, got = _comparable(verdict), _comparable(found)
        differing = {i: {"classic": expected["checks"][i], "connect": got["checks"].get(i)}
                     for i in expected["checks"] if expected["checks"][i] != got["checks"].get(i)}
        assert differing == {}, name
        assert got == expected, name
    between = abs(datetime.fromisoformat(found["started_at"]) - datetime.fromisoformat(classic["pyspark 4"]["started_at"])).total_seconds()
    for check_id, check in checks.items():  # an age differs by the seconds between the runs' starts only
        if check["kind"] in TIME_DEPENDENT:
            local = next(c for m in classic["pyspark 4"]["models"] for c in m["checks"] if c["check_id"] == check_id)
            assert abs(check["observed"] - local["observed"]) <= between + 60, (check, local)


def test_cli_over_connect_gives_the_classic_verdict_and_data_docs(connect_server, planted, classic, tmp_path):
    out, docs = tmp_path / "connect.json", tmp_path / "docs"
    done = _cli(["run", str(CONTRACT), "--master", connect_server["url"], "--engines", ENGINES, *planted["args"],
                 "--output", "json", "--output-file", str(out), "--data-docs", str(docs)], tmp_path, _no_jvm(connect_server["env"]))
    assert done.returncode == 1, f"exit {done.returncode}\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
    assert "Traceback" not in done.stderr, done.stderr[-4000:]
    verdict = json.loads(out.read_text())
    assert verdict["versions"]["spark"] == connect_server["pyspark"]
    _same_verdict(verdict, classic)
    pages = list((docs / "validations").rglob("*.html"))
    assert (docs / "index.html").is_file() and len(pages) == 2, pages  # one validation page per model


def test_spark_remote_and_conf_reach_the_server_and_gx_init_runs(connect_server, planted, tmp_path):
    env = _no_jvm(connect_server["env"])
    for how, args, extra in [("SPARK_REMOTE", [], {"SPARK_REMOTE": connect_server["url"]}),
                             ("--conf spark.remote", ["--conf", f"spark.remote={connect_server['url']}"], {})]:
        out = tmp_path / f"{how.split()[-1]}.json"
        done = _cli(["run", str(CONTRACT), "--engines", "spark", *planted["args"], *args, "--output", "json", "--output-file", str(out)],
                    tmp_path, {**env, **extra})
        assert done.returncode == 1, f"{how}: exit {done.returncode}\n{done.stderr[-4000:]}"
        checks = {c["check_id"]: c for m in json.loads(out.read_text())["models"] for c in m["checks"]}
        assert {i: c["observed"] for i, c in checks.items() if c["outcome"] == "failed"} == PLANTED, how
    project = tmp_path / "gx"
    done = _cli(["gx", "init", str(CONTRACT), "--project-dir", str(project)], tmp_path, {**env, "SPARK_REMOTE": connect_server["url"]})
    assert done.returncode == 0, f"exit {done.returncode}\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
    assert list((project / "gx").rglob("*.json")), "gx init wrote no GX project files"


def test_api_over_connect_gives_the_classic_verdict_and_keeps_the_callers_cache(remote, connect_server, planted, classic):
    """The Python API on a Connect session: the caller's cached `orders` DataFrame beside `line_items`
    read from its file, with --cache. The verdict is the classic one, and the caller's DataFrame is
    still cached afterwards, though the run dropped its views over it (Spark 4 folded the run's old
    select("*") plan into the caller's cached one)."""
    from dc_bridge.contract.reading.load import load_contract

    model = next(m for m in load_contract(CONTRACT).contract.models if m.name == "orders")
    orders = read_location(remote, model, DataLocation(str(planted["orders"]), "csv")).cache()
    orders.count()
    data = dict([parse_data_option(f"line_items={planted['line_items']}", CONTRACT.parent)])
    verdict = dc_bridge.run(str(CONTRACT), dataframes={"orders": orders}, spark=remote, engines=ENGINES.split(","), data=data, cache=True)
    assert orders.storageLevel.useMemory, "the run uncached the caller's DataFrame"
    orders.unpersist()
    _same_verdict(verdict.model_dump(mode="json"), classic)
    # without spark=: the active Connect session is used, and never stopped
    assert get_session() == (remote, False) and get_session(connect_server["url"]) == (remote, False)
    with pytest.raises(ValueError, match="already running"):
        get_session("sc://127.0.0.1:1")
    data = dict(parse_data_option(f"{name}={planted[name]}", CONTRACT.parent) for name in ("orders", "line_items"))
    again = dc_bridge.run(str(CONTRACT), engines=["spark"], data=data)
    assert {c.check_id: c.observed for c in again.checks() if c.outcome == "failed"} == PLANTED
    assert remote.range(3).count() == 3


def test_a_timeout_stops_the_work_on_the_server(remote, tmp_path):
    """A Python UDF that logs each call and sleeps: at the limit the run returns, and the server's
    tasks stop (the call log stops growing), which an abandoned Spark Connect operation would not."""
    from pyspark.sql import functions as F

    calls = tmp_path / "calls.log"

    @F.udf("int")
    def slow(value):
        import time as clock

        with open(calls, "a") as log:
            log.write(f"{value} {clock.time():.1f}\n")
        clock.sleep(0.5)
        return value

    frame = remote.range(0, 400, 1, numPartitions=1).select(F.col("id").cast("int").alias("id"), slow("id").alias("lazy"))
    contract = tmp_path / "slow.yaml"
    contract.write_text(textwrap.dedent("""
        dataContractSpecification: 1.1.0
        id: connect-timeout
        info: {title: Slow, version: 1.0.0}
        servers:
          memory: {type: dataframe}
        models:
          slow:
            fields:
              id: {type: integer, required: true}
              lazy: {type: integer, required: true}
    """))
    # the native engine: its first Spark job reads the UDF's column (GX's setup alone took 17 s under load);
    # the UDF's calls alone would take 200 s
    began = time.monotonic()
    verdict = dc_bridge.run(str(contract), dataframes={"slow": frame}, spark=remote, engines=["spark"], timeout=15, samples=False)
    elapsed = time.monotonic() - began
    check = next(c for c in verdict.checks() if c.check_id == "slow.lazy.required")
    assert check.outcome == "error" and "spark: timed out after 15 s" in check.reason, check.reason
    assert "its Spark Connect operations were interrupted" in check.reason, check.reason
    assert elapsed < 90, f"the run took {elapsed:.0f} s"
    # a task being interrupted may finish the call it is in, and the server's Python worker notices the kill a few
    # seconds later on a loaded machine (one more call 3 s after the run returned, in a clean-clone CI run): the calls
    # must stop within 8 s of the run's return and then stay stopped for 5 s (a running UDF logs a call every 0.5 s)
    returned = time.monotonic()

    def count() -> int:
        return len(calls.read_text().splitlines()) if calls.exists() else 0

    counted, since = count(), returned
    while time.monotonic() - since < 5 and since - returned <= 8:
        time.sleep(0.5)
        if (now := count()) != counted:
            counted, since = now, time.monotonic()
    assert calls.exists(), f"the UDF never ran within the limit, so this test shows nothing: {check.reason}"
    assert 0 < counted < 400, counted
    assert since - returned <= 8 and count() == counted, (
        f"the UDF is still being called: the server's work was not stopped (calls: {calls.read_text().split()})")
