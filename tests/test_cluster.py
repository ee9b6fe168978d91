"""`dc-bridge run --master spark://...` on a real Spark standalone cluster gives the local verdict.

The module's fixture starts a standalone master and two one-core workers on 127.0.0.1 from the
pyspark installation (`spark-class ...deploy.master.Master` / `...deploy.worker.Worker`), so the
checks run in executor JVMs that are not the driver's. The test runs the bundled orders contract on
data with planted violations through the CLI against that master, in a subprocess (the test
process already holds the local session of tests/conftest.py, and a Python process can hold one
SparkContext only), while the same contract runs in-process on the local session; both verdicts
must agree check by check: outcome, observed number, every engine's own number. Teardown stops
the master and the workers (their process groups) even when the test fails.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

import dc_bridge
from dc_bridge.runner.data import parse_data_option

ROOT = Path(__file__).resolve().parent.parent
CONTRACT = ROOT / "contracts" / "orders.yaml"
WORKERS = 2
START_TIMEOUT = 90     # seconds until both workers are ALIVE at the master
RUN_TIMEOUT = 300      # seconds for the cluster run (60-100 s on a busy 2-core machine)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _tail(path: Path, lines: int = 25) -> str:
    text = path.read_text(errors="replace") if path.exists() else "(no log)"
    return f"--- {path.name} ---\n" + "\n".join(text.splitlines()[-lines:])


def _master_state(webui: str) -> dict:
    with urllib.request.urlopen(f"{webui}/json/", timeout=5) as response:
        return json.load(response)


def _stop(processes: list[subprocess.Popen]) -> None:
    """TERM every process group (a worker's executors are in its group), wait, then KILL what is left."""
    for process in processes:
        try:
            os.killpg(process.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + 20
    for process in processes:
        try:
            process.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            pass
    for process in processes:
        # the group outlives its leader while an executor or a Python worker in it still runs
        while time.monotonic() < deadline:
            try:
                os.killpg(process.pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.2)
        else:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            process.wait(timeout=10)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """A standalone master and two workers (1 core, 1 GiB each) on loopback: yields its details."""
    import pyspark

    spark_home = Path(pyspark.__file__).resolve().parent
    spark_class = spark_home / "bin" / "spark-class"
    assert spark_class.is_file(), f"{spark_class} is missing: the pyspark installation has no launcher scripts"
    folder = tmp_path_factory.mktemp("cluster")
    env = {**os.environ, "SPARK_HOME": str(spark_home), "SPARK_LOCAL_IP": "127.0.0.1", "PYSPARK_PYTHON": sys.executable,
           # a port taken since it was chosen stops the master, instead of moving it to the next port
           "SPARK_MASTER_OPTS": "-Dspark.port.maxRetries=0"}
    # bash, not the file's mode bits: a wheel unpacked without them still starts
    launch = ["bash", str(spark_class)]
    logs: list[Path] = []
    work_dirs = [folder / f"work{n}" for n in range(1, WORKERS + 1)]
    processes: list[subprocess.Popen] = []
    deadline = time.monotonic() + START_TIMEOUT

    def start(command: list[str], log: Path) -> subprocess.Popen:
        logs.append(log)
        with log.open("wb") as handle:  # the child keeps its own descriptor
            process = subprocess.Popen(command, env=env, cwd=folder, stdout=handle, stderr=subprocess.STDOUT,
                                       stdin=subprocess.DEVNULL, start_new_session=True)
        processes.append(process)
        return process

    def fail(reason: str):
        exited = [f"{p.args[2].rsplit('.', 1)[-1]} (exit {p.returncode})" for p in processes if p.poll() is not None]
        reason += f"; exited: {', '.join(exited)}" if exited else ""
        pytest.fail(f"the standalone cluster did not start: {reason}\n" + "\n".join(_tail(log) for log in logs))

    def wait_for(ready) -> dict:
        """The master's state once ready(state) holds; fails when a daemon exits or time runs out."""
        while time.monotonic() < deadline:
            if any(p.poll() is not None for p in processes):
                return {}
            try:
                state = _master_state(webui)
            except OSError:  # not listening yet
                state = {}
            if state and ready(state):
                return state
            time.sleep(0.5)
        fail(f"not ready after {START_TIMEOUT} s")

    try:
        for attempt in range(1, 4):  # the master first: a worker that finds no master retries only after 5-15 s
            port, webui_port = _free_port(), _free_port()
            url, webui = f"spark://127.0.0.1:{port}", f"http://127.0.0.1:{webui_port}"
            master = start([*launch, "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port", str(port),
                            "--webui-port", str(webui_port)], folder / f"master{attempt}.log")
            if wait_for(lambda state: state.get("status") == "ALIVE" and state.get("url") == url):
                break
            processes.remove(master)
            if attempt == 3:
                fail("the master exited three times")
        for work_dir in work_dirs:
            work_dir.mkdir()
            start([*launch, "org.apache.spark.deploy.worker.Worker", url, "--host", "127.0.0.1", "--cores", "1",
                   "--memory", "1g", "--webui-port", "0", "--work-dir", str(work_dir)], folder / f"{work_dir.name}.log")
        if not wait_for(lambda state: sum(w["state"] == "ALIVE" for w in state.get("workers", [])) == WORKERS):
            fail("a daemon exited")
        yield {"url": url, "webui": webui, "env": env, "work_dirs": work_dirs, "logs": logs}
    finally:
        _stop(processes)


def _planted(folder: Path) -> tuple[Path, Path]:
    """The bundled orders data with violations planted in both models."""
    def edit(text: str, old: str, new: str) -> str:
        assert text.count(old) == 1, f"the bundled data changed: {old!r} no longer occurs exactly once"
        return text.replace(old, new)

    orders = (ROOT / "contracts" / "data" / "orders" / "orders.csv").read_text()
    for old, new in [
        ("1818e811-892f-402b-923f-0824128b2f33,", "6513270e-269e-4d37-b2a7-4de452e6b438,"),  # duplicate id: its 3 line items orphaned
        ("michael.smith5@example.com", "not-an-email"),
        ("1000000004,", "123,"),                                                            # customer id too short
        ("2030-09-09T10:45:00Z", "2030-09-11T10:45:00Z"),                                   # processed 49 h late
        ("linda.brown67@example.com", ""),                                                  # required email missing
        ("f29d0da9-953f-48f1-a09f-76b5a170b338,", "not-a-uuid,"),                           # 3 more orphaned line items
        ("2217bead-dbc4-46cb-8e81-973e0becd7b0,2030-09-09T12:00:00Z,3100", "2217bead-dbc4-46cb-8e81-973e0becd7b0,2030-09-09T12:00:00Z,99999"),
        ("1e27a1c0-8a6a-43ec-a4ed-e6a46b4cb242,2030-09-09T12:30:00Z,3100", "1e27a1c0-8a6a-43ec-a4ed-e6a46b4cb242,2030-09-09T12:30:00Z,99999"),
    ]:
        orders = edit(orders, old, new)
    items = (ROOT / "contracts" / "data" / "orders" / "line_items.csv").read_text()
    items = edit(items, "LI-1,6513270e-269e-4d37-b2a7-4de452e6b438,6001234567891", "LI-1,6513270e-269e-4d37-b2a7-4de452e6b438,12-34")
    items = edit(items, "LI-5,81e74ef5-e8e2-4d94-8ed9-04759531985d,4001234567890\n",
                 "LI-5,81e74ef5-e8e2-4d94-8ed9-04759531985d,4001234567890\nLI-5,81e74ef5-e8e2-4d94-8ed9-04759531985d,4001234567890\n")
    (folder / "orders.csv").write_text(orders)
    (folder / "line_items.csv").write_text(items)
    return folder / "orders.csv", folder / "line_items.csv"


# what the planted violations must produce (each count is rows)
PLANTED = {
    "orders.order_id.unique": 2.0, "orders.order_id.format": 1.0, "orders.customer_email_address.format": 1.0,
    "orders.customer_email_address.required": 1.0, "orders.customer_id.length": 1.0, "orders.latency": 1.0,
    "orders.order_total.quality[0]": 99999.0,  # the 95th percentile of order_total, outside [1000, 49900]
    "line_items.sku.pattern": 1.0, "line_items.primary_key": 2.0, "line_items.order_id.foreign_key": 6.0,
}
TIME_DEPENDENT = {"freshness"}  # the observed age grows between the two runs


def _comparable(verdict: dict) -> dict:
    """What must not depend on where Spark ran: no timings, versions, start times or sample values."""
    checks = {}
    for model in verdict["models"]:
        for check in model["checks"]:
            timed = check["kind"] in TIME_DEPENDENT
            checks[check["check_id"]] = {
                "outcome": check["outcome"], "reason": check["reason"], "duplicated_values": check["duplicated_values"],
                "observed": None if timed else check["observed"],
                "engines": {name: {"outcome": result["outcome"], "error": result["error"],
                                   "observed": None if timed else result["observed"],
                                   "unexpected_count": result["unexpected_count"]}
                            for name, result in sorted(check["engines"].items())},
            }
    return {"outcome": verdict["outcome"], "counts": verdict["counts"], "engines": verdict["engines"],
            "engine_errors": verdict["engine_errors"], "drift": verdict["drift"],
            "models": {model["name"]: (model["outcome"], model["counts"]) for model in verdict["models"]},
            "checks": checks}


def test_cluster_run_gives_the_local_verdict(cluster, spark, tmp_path):
    orders_csv, items_csv = _planted(tmp_path)
    engines = "gx,soda,spark"
    out = tmp_path / "cluster.json"
    # a PYSPARK_PYTHON that logs each start: an executor that started a Python worker would need
    # dc-bridge's Python there too, which docs/cluster.md says it does not
    python_log = tmp_path / "python-workers.log"
    wrapper = tmp_path / "python-worker.sh"
    wrapper.write_text(f'#!/bin/sh\necho "$$ $*" >> "{python_log}"\nexec "{sys.executable}" "$@"\n')
    wrapper.chmod(0o755)
    env = {**cluster["env"], "PYSPARK_PYTHON": str(wrapper)}
    dc_bridge_cli = Path(sys.executable).parent / "dc-bridge"
    began = time.monotonic()
    # the cluster run in its own process (group), cwd outside the repository (spark-warehouse/)
    remote = subprocess.Popen([str(dc_bridge_cli), "run", str(CONTRACT), "--master", cluster["url"], "--engines", engines,
                               "--data", f"orders={orders_csv}", "--data", f"line_items={items_csv}",
                               "--output", "json", "--output-file", str(out)],
                              cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              start_new_session=True)
    try:
        # meanwhile the same run on the test session's local[2]
        data = dict(parse_data_option(option, CONTRACT.parent) for option in (f"orders={orders_csv}", f"line_items={items_csv}"))
        local = dc_bridge.run(str(CONTRACT), spark=spark, engines=engines.split(","), data=data).model_dump(mode="json")
        output, _ = remote.communicate(timeout=RUN_TIMEOUT)
    finally:
        if remote.poll() is None:
            os.killpg(remote.pid, signal.SIGKILL)
            remote.wait()
    elapsed = time.monotonic() - began
    executor_logs = sorted(path for work_dir in cluster["work_dirs"] for path in work_dir.glob("*/*/stderr"))
    logs = "\n".join(_tail(log, 10) for log in [*cluster["logs"], *executor_logs])
    assert remote.returncode == 1, f"exit {remote.returncode} (expected 1: failed)\n{output[-3000:]}\n{logs}"
    assert "Traceback" not in output, output[-3000:]
    remote_verdict = json.loads(out.read_text())

    # the run really used the cluster: one finished application, with an executor on each worker
    state = _master_state(cluster["webui"])
    apps = [app for app in state["completedapps"] + state["activeapps"] if app["name"] == "dc-bridge"]
    assert [app["state"] for app in apps] == ["FINISHED"], f"{state['completedapps']} {state['activeapps']}"
    for work_dir in cluster["work_dirs"]:
        executors = list(work_dir.glob(f"{apps[0]['id']}/*/stderr"))
        assert executors, f"no executor of {apps[0]['id']} ran on the worker with {work_dir}\n{logs}"

    # the planted violations fail, in every engine, with the planted counts
    checks = {c["check_id"]: c for m in remote_verdict["models"] for c in m["checks"]}
    failed = {check_id: check["observed"] for check_id, check in checks.items() if check["outcome"] == "failed"}
    assert failed == PLANTED
    assert remote_verdict["outcome"] == "failed" and remote_verdict["counts"]["error"] == 0, remote_verdict["engine_errors"]
    assert remote_verdict["engines"] == ["gx", "soda", "spark"]

    # and the verdict is the local one, check by check
    expected, found = _comparable(local), _comparable(remote_verdict)
    assert found["checks"].keys() == expected["checks"].keys()
    differing = {check_id: {"local": expected["checks"][check_id], "cluster": found["checks"][check_id]}
                 for check_id in expected["checks"] if expected["checks"][check_id] != found["checks"][check_id]}
    assert differing == {}
    assert found == expected
    for check_id, check in checks.items():  # the age differs by the seconds between the two runs only
        if check["kind"] in TIME_DEPENDENT:
            local_check = next(c for m in local["models"] for c in m["checks"] if c["check_id"] == check_id)
            assert abs(check["observed"] - local_check["observed"]) <= elapsed + 60, (check, local_check)

    # the engines ran JVM code only: no executor started a Python worker
    assert not python_log.exists(), (
        "an executor started Python workers (so dc-bridge's Python must be installed on every executor; "
        f"update docs/cluster.md):\n{python_log.read_text()}")


def test_a_session_is_never_taken_for_another_master(spark):
    """A process holds one SparkContext: asking for another master while one runs is a clear error,
    never the running session silently used (and stopped at the end, as if dc-bridge had made it)."""
    from dc_bridge.runner.data import get_session

    assert get_session() == (spark, False)
    assert get_session(spark.sparkContext.master) == (spark, False)
    with pytest.raises(ValueError, match=r"already running .* stop it before asking for spark://127.0.0.1:7"):
        get_session("spark://127.0.0.1:7")
    from click.testing import CliRunner

    from dc_bridge.cli import main

    result = CliRunner().invoke(main, ["run", str(CONTRACT), "--master", "spark://127.0.0.1:7"])
    assert result.exit_code == 2 and "already running" in result.output
    assert spark.range(3).count() == 3  # the test session was not stopped


def test_spark_connect_is_asked_for_by_master_conf_or_environment(monkeypatch):
    """`--master sc://...`, `--conf spark.remote=...` and SPARK_REMOTE ask for Spark Connect, in that
    order; a classic master beside either is refused, and no message shows the connection's token."""
    from dc_bridge.runner.data import _normal, _remote

    monkeypatch.delenv("SPARK_REMOTE", raising=False)
    assert _remote(None, {}) is None and _remote("local[2]", {}) is None
    assert _remote("sc://a:1", {"spark.remote": "sc://b:2"}) == "sc://a:1"
    assert _remote(None, {"spark.remote": "sc://b:2"}) == "sc://b:2"
    monkeypatch.setenv("SPARK_REMOTE", "sc://c:3/;token=secret")
    assert _remote(None, {}) == "sc://c:3/;token=secret"
    assert _remote(None, {"spark.remote": "sc://b:2"}) == "sc://b:2"
    with pytest.raises(ValueError, match=r"--master local\[2\] asks for a classic session and SPARK_REMOTE=sc://c:3 for") as refused:
        _remote("local[2]", {})
    assert "secret" not in str(refused.value)
    assert _normal("sc://host") == "sc://host:15002" and _normal("sc://host:443/;token=x;use_ssl=true") == "sc://host:443"
    assert _normal("local[*]") == "local[*]"
