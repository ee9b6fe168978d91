"""No egress: a whole `dc-bridge run` makes no network connection beyond loopback and writes nothing
to the home directory (no ~/.soda/config.yml, no ~/.great_expectations, no caches); `--openlineage` with
nothing configured sends nothing either; and the session it starts leaves no `spark-warehouse/` behind.

The run happens in a subprocess whose Python (and the Python workers Spark starts) loads a
`sitecustomize.py` that wraps `socket.socket.connect`/`connect_ex`, `socket.create_connection`
and `socket.getaddrinfo`: every attempt to reach or resolve anything but loopback (or this host's
own name) is recorded and refused. HOME is an empty folder, and the JVM's `user.home` points there
too (Java takes it from the password database, not from $HOME).

What this does not see: connections the JVM itself opens. Spark runs embedded (`local[*]`, bound to
127.0.0.1, no `spark.jars.packages`), so it has nothing to fetch; docs/reliability.md says so.

One such process serves the tests of a whole run's process (a JVM start and a run each took 10-20 s): the three
engines, `--openlineage` with no OpenLineage configuration anywhere (no OPENLINEAGE_* variable, no
openlineage.yml in the working folder or under $HOME), a working folder of its own and TMPDIR a folder of the
test's, with the verdict written outside both.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

GUARD = textwrap.dedent('''
    """Test harness: refuse and record every non-loopback network attempt of this process."""
    import ipaddress
    import os
    import socket

    _LOG = os.environ["DCB_EGRESS_LOG"]
    _LOCAL_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost", socket.gethostname(), socket.getfqdn()}


    def _is_local(host) -> bool:
        if isinstance(host, bytes):
            host = host.decode("ascii", "replace")
        if host is None or host in _LOCAL_NAMES or host == "":
            return True
        try:
            return ipaddress.ip_address(str(host).split("%")[0]).is_loopback
        except ValueError:
            return False


    def _refuse(kind, target):
        with open(_LOG, "a", encoding="utf-8") as log:
            log.write(f"{os.getpid()} {kind} {target!r}\\n")
        raise OSError(101, f"egress blocked by test: {kind} {target!r}")


    def _host_of(address):
        return address[0] if isinstance(address, tuple) else None  # AF_UNIX paths are local


    _connect, _connect_ex = socket.socket.connect, socket.socket.connect_ex


    def connect(self, address):
        if not _is_local(_host_of(address)):
            _refuse("connect", address)
        return _connect(self, address)


    def connect_ex(self, address):
        if not _is_local(_host_of(address)):
            _refuse("connect_ex", address)
        return _connect_ex(self, address)


    _create_connection, _getaddrinfo = socket.create_connection, socket.getaddrinfo


    def create_connection(address, *args, **kwargs):
        if not _is_local(_host_of(address)):
            _refuse("create_connection", address)
        return _create_connection(address, *args, **kwargs)


    def getaddrinfo(host, *args, **kwargs):
        if not _is_local(host):
            _refuse("getaddrinfo", host)
        return _getaddrinfo(host, *args, **kwargs)


    socket.socket.connect, socket.socket.connect_ex = connect, connect_ex
    socket.create_connection, socket.getaddrinfo = create_connection, getaddrinfo
    with open(_LOG + ".loaded", "a", encoding="utf-8") as marker:  # proof that the guard was active
        marker.write(f"{os.getpid()}\\n")
''')


def test_guard_refuses_and_records_outbound_connections(tmp_path):
    """The harness itself works: a connection to a public address is refused and recorded."""
    (tmp_path / "sitecustomize.py").write_text(GUARD)
    log = tmp_path / "egress.log"
    code = "import socket\ntry:\n    socket.create_connection(('203.0.113.7', 443), timeout=1)\nexcept OSError as e:\n    print(e)\n"
    env = {**os.environ, "PYTHONPATH": str(tmp_path), "DCB_EGRESS_LOG": str(log)}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert "egress blocked by test" in done.stdout, done.stdout + done.stderr
    assert "203.0.113.7" in log.read_text()


@pytest.fixture(scope="module")
def whole_run(tmp_path_factory) -> dict:
    """The run's process, its folders, egress log and verdict."""
    tmp_path = tmp_path_factory.mktemp("whole-run")
    folders = {name: tmp_path / name for name in ("sandbox", "home", "work", "tmp")}
    for folder in folders.values():
        folder.mkdir()
    (folders["sandbox"] / "sitecustomize.py").write_text(GUARD)
    log = tmp_path / "egress.log"
    out = tmp_path / "verdict.json"
    env = {key: value for key, value in os.environ.items() if not key.startswith(("SODA_", "GX_", "GE_", "OPENLINEAGE"))}
    env.update({
        "HOME": str(folders["home"]),
        "PYTHONPATH": str(folders["sandbox"]),
        "DCB_EGRESS_LOG": str(log),
        "JAVA_TOOL_OPTIONS": f"-Duser.home={folders['home']}",
        "PYSPARK_PYTHON": sys.executable,
        "TMPDIR": str(folders["tmp"]),
        # no proxy settings may point anywhere either
        "http_proxy": "", "https_proxy": "", "HTTP_PROXY": "", "HTTPS_PROXY": "",
    })
    env.pop("XDG_CONFIG_HOME", None)
    env.pop("XDG_CACHE_HOME", None)
    dc_bridge = Path(sys.executable).parent / "dc-bridge"
    done = subprocess.run([str(dc_bridge), "run", str(ROOT / "contracts" / "orders.yaml"), "--engines", "gx,soda,spark", "--openlineage",
                           "--output", "json", "--output-file", str(out)], cwd=folders["work"], env=env, capture_output=True, text=True,
                          timeout=300)
    return {**folders, "done": done, "log": log, "out": out}


def test_run_makes_no_outbound_connection_and_leaves_home_empty(whole_run):
    done, log, home = whole_run["done"], whole_run["log"], whole_run["home"]
    assert done.returncode == 0, done.stderr[-3000:]
    verdict = json.loads(whole_run["out"].read_text())
    assert verdict["outcome"] == "passed" and verdict["engines"] == ["gx", "soda", "spark"], verdict["engine_errors"]
    assert Path(f"{log}.loaded").exists(), "the guard was not loaded in the run's process"
    attempts = log.read_text() if log.exists() else ""
    assert attempts == "", f"network attempts beyond loopback:\n{attempts}"
    left = sorted(str(p.relative_to(home)) for p in home.rglob("*"))
    assert left == [], f"the run wrote to the home directory: {left}"


def test_openlineage_with_no_configuration_makes_no_egress_at_all(whole_run):
    """The whole `run --openlineage` with nothing configured: a warning, no event and no connection (the guard's log
    is empty: the test above)."""
    done = whole_run["done"]
    assert done.returncode == 0, done.stderr[-3000:]
    assert "openlineage: no OpenLineage transport is configured" in done.stderr, done.stderr[-3000:]
    assert Path(f"{whole_run['log']}.loaded").exists(), "the guard was not loaded in the run's process"
    assert not (whole_run["log"].read_text() if whole_run["log"].exists() else ""), "--openlineage with nothing configured connected"


def test_a_run_leaves_no_warehouse_in_its_folder_nor_in_the_temporary_one(whole_run):
    """A session dc-bridge starts leaves no `spark-warehouse/` in the folder it runs from (issue 37, class 7): Spark's
    default warehouse is `spark-warehouse/` in the current folder, created by the session's catalog; an embedded
    session dc-bridge starts keeps it in a temporary folder removed at exit (runner/spark_start.py `private_warehouse`).
    The choice of configuration is tested through that function in tests/test_session_warehouse.py."""
    assert whole_run["done"].returncode == 0, whole_run["done"].stderr[-3000:]
    assert sorted(p.name for p in whole_run["work"].iterdir()) == []  # no spark-warehouse/, nothing else
    assert not [p for p in whole_run["tmp"].iterdir() if p.name.startswith("dc-bridge-warehouse-")]  # removed at exit
