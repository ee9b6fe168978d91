"""Starting or reaching Spark, said plainly (docs/reliability.md, "Spark that cannot start").

What can be known before a JVM is launched or a server is called is checked first: a Java for Spark to
run on, a master URL Spark can parse, something listening at a standalone master's or a Spark Connect
server's address. A start that fails anyway is translated by `starting`. Either way the caller gets one
`SparkUnavailable`, a message that names the cause and the fix, never a traceback: every command that
starts Spark exits 2 on it (bad input, not failed data), and `dc_bridge.run` raises it. runner/data.py
`get_session`, the one door to a session, is its only user; it also takes `private_warehouse`, so that
a session it starts leaves no `spark-warehouse/` behind.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
from pathlib import Path
from typing import Callable, Iterator

# what to install, in each message that finds no Java: the version Spark 3.5 and 4 both run on
_INSTALL = "install Java 17 (apt install openjdk-17-jre-headless, brew install openjdk@17, or adoptium.net)"
# the master URLs Spark parses (SparkContext's SparkMasterRegex; spark-submit refuses any other start)
_LOCAL = re.compile(r"local(\[(?P<threads>[0-9]+|\*)(\s*,\s*[0-9]+)?\])?")
_LOCAL_CLUSTER = re.compile(r"local-cluster\[\s*[0-9]+\s*,\s*[0-9]+\s*,\s*[0-9]+\s*\]")
_HOST_PORT = re.compile(r"(?P<host>\[[0-9a-fA-F:]+\]|[^:/,\[\]]+):(?P<port>[0-9]{1,5})")
_MASTERS = "local[*], local[N], spark://HOST:PORT, yarn, k8s://https://HOST:PORT, or sc://HOST:PORT for Spark Connect"
_CONNECT_PORT = 15002  # Spark Connect's default port
_PROXIES = ("grpc_proxy", "https_proxy", "http_proxy", "GRPC_PROXY", "HTTPS_PROXY", "HTTP_PROXY")


class SparkUnavailable(ValueError):
    """Spark cannot be started or reached: no Java, a master URL Spark cannot parse, nothing listening at
    a cluster's or a Spark Connect server's address, a port it cannot bind. Bad input (exit 2), with the fix."""


def check_classic(master: str | None, submitted: bool) -> None:
    """Before a classic session's JVM is launched: a master Spark can parse and reach, and a Java to run on.
    `submitted`: spark-submit launched this process's JVM already (nothing is launched then)."""
    if master is not None:
        check_master(master)
    if not submitted:
        _check_java()


def check_connect(url: str) -> None:
    """Before a Spark Connect session is asked for: something listens at the URL's host and port. Through a
    proxy (grpc_proxy, https_proxy) the server is not reached directly, and gRPC is left to say."""
    host, port = _connect_address(url)
    if any(os.environ.get(name) for name in _PROXIES):
        return
    problem = _unreachable(host, port)
    if problem:
        raise SparkUnavailable(f"no Spark Connect server answers at sc://{_shown(host)}:{port} ({problem}): start one there "
                               f"($SPARK_HOME/sbin/start-connect-server.sh) or give the server's address (--master sc://HOST:PORT, "
                               f"spark.remote or SPARK_REMOTE)")


@contextlib.contextmanager
def starting(where: str, cause: Callable[[BaseException], str]) -> Iterator[None]:
    """A session's start: whatever it raises becomes one SparkUnavailable naming `where` (the master URL) and
    Spark's own cause (`cause`: runner/data.py `root_cause`, the innermost Java message), with the fix when known."""
    try:
        yield
    except SparkUnavailable:
        raise
    except Exception as exc:  # PySparkRuntimeError, Py4JJavaError, ImportError, a gRPC error, ...
        said = cause(exc)
        fix = next((fix for marker, fix in _FIXES if marker in f"{type(exc).__name__} {said}".lower()), "")
        raise SparkUnavailable(f"Spark did not start ({where}): {said}" + (f"; {fix}" if fix else "")) from None


def _check_java() -> None:
    """The java spark-class will run (bin/spark-class: JAVA_HOME's, else the one on PATH) exists. A
    spark-env.sh may set JAVA_HOME itself: then the launch decides."""
    if _spark_env():
        return
    home = os.environ.get("JAVA_HOME")
    if home:
        java = Path(home) / "bin" / "java"
        if not (java.is_file() and os.access(java, os.X_OK)):
            raise SparkUnavailable(f"Spark needs Java, and JAVA_HOME={home} holds no bin/java: point JAVA_HOME at a Java 17 "
                                   f"installation, or unset it to use the java on PATH; to get one, {_INSTALL}")
    elif shutil.which("java") is None:
        raise SparkUnavailable(f"Spark needs Java, and none was found (JAVA_HOME is not set and no java is on PATH): {_INSTALL}, "
                               f"then put it on PATH or set JAVA_HOME to it")


def _spark_env() -> bool:
    """Whether Spark's launch scripts read a spark-env.sh (which may set JAVA_HOME)."""
    folders = [os.environ.get("SPARK_CONF_DIR")] + [str(Path(home) / "conf") for home in [os.environ.get("SPARK_HOME")] if home]
    return any(folder and (Path(folder) / "spark-env.sh").is_file() for folder in folders)


def check_master(master: str, reach: bool = True) -> None:
    """A master URL as Spark parses it (spark-submit, then SparkContext), and (`reach`) a standalone master's address answering."""
    local = _LOCAL.fullmatch(master)
    if local:
        if local["threads"] == "0":
            raise SparkUnavailable(f"--master {master}: a local session needs at least one thread; give local[*] or local[N] with N >= 1")
        return
    if _LOCAL_CLUSTER.fullmatch(master) or master == "yarn" or master.startswith(("k8s://", "mesos://")):
        return
    if not master.startswith("spark://"):
        raise SparkUnavailable(f"--master {master!r} is not a master URL Spark can parse; give {_MASTERS}")
    addresses = [_HOST_PORT.fullmatch(part.strip()) for part in master[len("spark://"):].split(",")]
    if not all(addresses):
        raise SparkUnavailable(f"--master {master}: a standalone master is spark://HOST:PORT (several: spark://HOST1:PORT1,HOST2:PORT2), "
                               f"as the master's web UI shows it")
    if not reach:
        return
    problems = {f"{_shown(a['host'])}:{a['port']}": _unreachable(a["host"].strip("[]"), int(a["port"])) for a in addresses}
    if all(problems.values()):
        problems = "; ".join(f"{address}: {problem}" for address, problem in problems.items())
        raise SparkUnavailable(f"--master {master}: no Spark master answers ({problems}): start the master "
                               f"($SPARK_HOME/sbin/start-master.sh) or give the URL its web UI shows")


def _connect_address(url: str) -> tuple[str, int]:
    """(host, port) of `sc://host[:port][/;params]`; SparkUnavailable when the URL has no host or a port that is no number."""
    netloc = url[len("sc://"):].split("/", 1)[0].split(";", 1)[0]
    if netloc.startswith("["):  # an IPv6 address
        host, _, rest = netloc[1:].partition("]")
        port = rest.removeprefix(":")
    else:
        host, _, port = netloc.partition(":")
    if not host or (port and not port.isdigit()):
        raise SparkUnavailable(f"{url.split(';', 1)[0]} is not a Spark Connect URL: give sc://HOST or sc://HOST:PORT "
                               f"(the port defaults to {_CONNECT_PORT})")
    return host, int(port) if port else _CONNECT_PORT


def _unreachable(host: str, port: int, seconds: float = 5.0) -> str:
    """Why nothing can be reached at host:port (a TCP connection is opened and closed), or "" when something answers."""
    import socket  # not at start-up: every command imports this module

    try:
        with socket.create_connection((host, port), timeout=seconds):
            return ""
    except socket.gaierror:
        return f"the host name {host} does not resolve"
    except TimeoutError:
        return f"no answer within {seconds:g} s"
    except OSError as exc:
        return (exc.strerror or str(exc)).lower()


def _shown(host: str) -> str:
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


# Spark's words for a failed start (in the root cause) -> what to do about it
_FIXES = (
    ("address already in use", "a port Spark needs is taken: free it, or give another (--conf spark.driver.port=..., "
                               "spark.blockManager.port=...) or leave the port to Spark"),
    ("cannot assign requested address", "the address is not this machine's: set SPARK_LOCAL_IP or spark.driver.bindAddress to one that is"),
    ("could not parse master url", f"give {_MASTERS}"),
    ("unsupportedclassversionerror", "this Java is too old for this Spark: use Java 17"),
    ("must be installed", "Spark Connect needs pyspark's connect extras: pip install 'pyspark[connect]'"),  # grpcio, pandas, pyarrow
    ("java_gateway_exited", "Spark's JVM exited before it started; what Java or spark-submit said is above"),
)



# a Spark setting the user may have made outside `conf`: in spark-defaults.conf, or a Hive metastore's own warehouse
_WAREHOUSE = "spark.sql.warehouse.dir"


def private_warehouse(conf: dict[str, str]) -> dict[str, str]:
    """The warehouse of an embedded session dc-bridge starts: Spark's default is `spark-warehouse/` in the
    current folder, which the session's catalog creates and nothing removes; here a temporary folder,
    removed when the process exits. Nothing when the user chose one: `conf` (`--conf`), the catalog a
    session keeps (`spark.sql.catalogImplementation=hive`: its tables must outlive the process),
    spark-defaults.conf, hive-site.xml or PYSPARK_SUBMIT_ARGS."""
    import atexit
    import tempfile

    if _WAREHOUSE in conf or conf.get("spark.sql.catalogImplementation") == "hive" or _configured_outside():
        return {}
    folder = tempfile.mkdtemp(prefix="dc-bridge-warehouse-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return {_WAREHOUSE: folder}


def _configured_outside() -> bool:
    """Whether Spark's own configuration files or arguments set the warehouse (or a Hive metastore that has one)."""
    if _WAREHOUSE in os.environ.get("PYSPARK_SUBMIT_ARGS", ""):
        return True
    home = os.environ.get("SPARK_HOME")
    folders = [os.environ.get("SPARK_CONF_DIR"), home and os.path.join(home, "conf")]
    for folder in filter(None, folders):
        defaults = Path(folder, "spark-defaults.conf")
        if (defaults.is_file() and _WAREHOUSE in defaults.read_text(encoding="utf-8", errors="replace")) \
                or Path(folder, "hive-site.xml").is_file():
            return True
    return False
