"""No egress: a whole `dc-bridge run` makes no network connection beyond loopback and writes nothing
to the home directory (no ~/.soda/config.yml, no ~/.great_expectations, no caches).

The run happens in a subprocess whose Python (and the Python workers Spark starts) loads a
`sitecustomize.py` that wraps `socket.socket.connect`/`connect_ex`, `socket.create_connection`
and `socket.getaddrinfo`: every attempt to reach or resolve anything but loopback (or this host's
own name) is recorded and refused. HOME is an empty folder, and the JVM's `user.home` points there
too (Java takes it from the password database, not from $HOME).

What this does not see: connections the JVM itself opens. Spark runs embedded (`local[*]`, bound to
127.0.0.1, no `spark.jars.packages`), so it has nothing to fetch; docs/reliability.md says so.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

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


def test_run_makes_no_outbound_connection_and_leaves_home_empty(tmp_path):
    sandbox = tmp_path / "sandbox"
    home = tmp_path / "home"
    work = tmp_path / "work"
    for folder in (sandbox, home, work):
        folder.mkdir()
    (sandbox / "sitecustomize.py").write_text(GUARD)
    log = tmp_path / "egress.log"
    out = work / "verdict.json"
    env = {key: value for key, value in os.environ.items() if not key.startswith(("SODA_", "GX_", "GE_"))}
    env.update({
        "HOME": str(home),
        "PYTHONPATH": str(sandbox),
        "DCB_EGRESS_LOG": str(log),
        "JAVA_TOOL_OPTIONS": f"-Duser.home={home}",
        "PYSPARK_PYTHON": sys.executable,
        # no proxy settings may point anywhere either
        "http_proxy": "", "https_proxy": "", "HTTP_PROXY": "", "HTTPS_PROXY": "",
    })
    env.pop("XDG_CONFIG_HOME", None)
    env.pop("XDG_CACHE_HOME", None)
    dc_bridge = Path(sys.executable).parent / "dc-bridge"
    done = subprocess.run([str(dc_bridge), "run", str(ROOT / "contracts" / "orders.yaml"), "--output", "json",
                           "--output-file", str(out)], cwd=work, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(out.read_text())["outcome"] == "passed"
    assert Path(f"{log}.loaded").exists(), "the guard was not loaded in the run's process"
    attempts = log.read_text() if log.exists() else ""
    assert attempts == "", f"network attempts beyond loopback:\n{attempts}"
    left = sorted(str(p.relative_to(home)) for p in home.rglob("*"))
    assert left == [], f"the run wrote to the home directory: {left}"
