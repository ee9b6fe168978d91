"""A real Spark Connect server on loopback, for the tests of this folder (tests/connect/run.sh).

These tests need pyspark 4.x (a 3.5 client cannot serve GX against a 4.x server: docs/cluster.md) and
a process of their own: once a process holds a Spark Connect session, pyspark builds no classic one,
which the rest of the suite needs. So they are collected only when run.sh sets DC_BRIDGE_CONNECT_TESTS;
the README's `pytest -q` leaves them out.

The server is the pyspark installation's own (`spark-submit --class ...SparkConnectServer`, its jars
ship with pyspark 4), on 127.0.0.1 and a free port, with this interpreter for Python UDFs. Teardown
stops its process group, also when a test fails.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the planted data and the comparison of tests/test_cluster.py

from test_cluster import _free_port, _stop, _tail  # noqa: E402

collect_ignore_glob = [] if os.environ.get("DC_BRIDGE_CONNECT_TESTS") else ["test_*.py"]

START_TIMEOUT = 180  # seconds until the server answers (20-40 s on a busy 2-core machine)
_started: dict[str, float] = {}


def _answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2):
            return True
    except OSError:
        return False


@pytest.fixture(scope="session")
def connect_server(tmp_path_factory):
    """Yields the server's details: url (sc://127.0.0.1:PORT), env (for its clients), log."""
    import pyspark

    spark_home = Path(pyspark.__file__).resolve().parent
    jars = sorted(path.name for path in (spark_home / "jars").glob("spark-connect_*.jar"))
    assert jars, f"{spark_home}/jars has no spark-connect jar: install a pyspark 4.x (pyspark {pyspark.__version__} is here)"
    folder = tmp_path_factory.mktemp("connect")
    env = {**os.environ, "SPARK_HOME": str(spark_home), "SPARK_LOCAL_IP": "127.0.0.1", "PYSPARK_PYTHON": sys.executable}
    env.pop("SPARK_REMOTE", None)
    log = folder / "server.log"
    processes: list[subprocess.Popen] = []
    try:
        for _attempt in range(3):  # a port taken since it was chosen stops the server; choose again
            port = _free_port()
            began = time.monotonic()
            with log.open("wb") as handle:
                processes.append(subprocess.Popen(
                    ["bash", str(spark_home / "bin" / "spark-submit"), "--class", "org.apache.spark.sql.connect.service.SparkConnectServer",
                     "--master", "local[2]", "--name", "dc-bridge Spark Connect tests",
                     "--conf", f"spark.connect.grpc.binding.port={port}", "--conf", "spark.connect.grpc.binding.address=127.0.0.1",
                     "--conf", "spark.ui.enabled=false", "--conf", "spark.sql.shuffle.partitions=2"],
                    env=env, cwd=folder, stdout=handle, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True))
            while processes[-1].poll() is None and time.monotonic() - began < START_TIMEOUT and not _answers(port):
                time.sleep(0.5)
            if processes[-1].poll() is None:
                break
        if not _answers(port):
            pytest.fail(f"the Spark Connect server did not answer within {START_TIMEOUT} s\n{_tail(log, 40)}")
        _started["seconds"] = time.monotonic() - began
        yield {"url": f"sc://127.0.0.1:{port}", "env": env, "log": log, "pyspark": pyspark.__version__}
    finally:
        _stop(processes)


@pytest.fixture(scope="session")
def remote(connect_server):
    """The test process's Spark Connect session (the process holds no classic one)."""
    from pyspark.sql import SparkSession

    session = SparkSession.builder.remote(connect_server["url"]).getOrCreate()
    yield session
    session.stop()


def pytest_terminal_summary(terminalreporter):
    if "seconds" in _started:
        terminalreporter.write_line(f"Spark Connect server answered {_started['seconds']:.1f} s after its start")
