"""`--catalog spark` on a Hive metastore: tests/hive runs in a process of its own, whose session has Hive
support on an embedded Derby metastore in a temporary folder; this suite's shared session keeps its
in-memory catalog (a process holds one SparkContext, and its catalog is fixed when it starts). The catalog
commands' own `--master` and `--conf` are tested here, each command with no session running."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_spark_catalog_on_an_embedded_hive_metastore(started):
    completed = started.finished("hive")
    assert completed.returncode == 0, completed.stdout[-6000:] + completed.stderr[-3000:]
    # every test of tests/hive ran (none skipped): as many passed as the folder defines
    defined = sum(path.read_text(encoding="utf-8").count("\ndef test_") for path in (ROOT / "tests" / "hive").glob("test_*.py"))
    assert f"{defined} passed" in completed.stdout, completed.stdout[-2000:]


CONTRACT = """\
apiVersion: v3.1.0
kind: DataContract
id: customers
version: {version}
status: active
team:
  name: sales-team
schema:
  - name: customers
    properties:
      - name: customer_id
        logicalType: string
        required: true
{more}"""
# One process with no session running when it starts, as a user's shell runs the commands one after the other: it
# creates the Hive table with the session dc-bridge starts (runner/data.get_session, as `run` starts it) and stops
# it; then each command, through the real entry point (`main`), starts its own session from its `--master` and
# `--conf` and stops it on leaving, so no command finds one running. One JVM for the five (a JVM each took 10-15 s).
COMMANDS = """\
import contextlib, io, json, sys, traceback
from dc_bridge.cli import main
from dc_bridge.runner.data import get_session
from pyspark.sql import SparkSession

conf, commands = json.loads(sys.argv[1]), json.loads(sys.argv[2])
spark, _ = get_session("local[1]", conf)
spark.sql("CREATE DATABASE sales")
spark.sql("CREATE TABLE sales.customers (customer_id STRING, email STRING) USING parquet")
spark.sql("INSERT INTO sales.customers VALUES ('c1', 'a@example.com'), ('c2', NULL)")
spark.stop()
done = []
for args in commands:
    assert SparkSession.getActiveSession() is None, f"a session was still running before {args[0]}"
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(args, prog_name="dc-bridge")
            code = 0
        except SystemExit as exit:
            code = exit.code if isinstance(exit.code, int) else (0 if exit.code is None else 1)
        except BaseException:  # what the interpreter would print, had the command been a process of its own
            traceback.print_exc()
            code = 1
    done.append({"code": code, "stdout": out.getvalue(), "stderr": err.getvalue()})
print(json.dumps(done))
"""


# what each command of the commands' process is for: its arguments (OPTIONS: the catalog's --master and --conf)
COMMAND_ARGS = {
    "registered": ["register", "customers.yaml", "--catalog", "spark", "--namespace", "sales", "OPTIONS"],
    "checked": ["check-version", "new.yaml", "--against-registered", "--catalog", "spark", "--namespace", "sales", "OPTIONS"],
    "generated": ["init", "--from", "table:sales.customers", "--out", "generated.yaml", "--profile", "OPTIONS"],
    # Spark that cannot start is bad input on every command (exit 2, one line), not a catalog's outage
    "unreachable": ["register", "new.yaml", "--catalog", "spark", "--namespace", "sales", "--master", "local[bogus]"],
}


class Started:
    """This module's two processes, started at once (a JVM each, each mostly on one core: side by side they take
    little more than the longer alone): tests/hive's pytest run, and the catalog commands' process. Their output
    goes to files, so that neither waits for its pipe to be read."""

    def __init__(self, folder: Path):
        self.folder = folder
        hive, commands = folder / "hive", folder / "commands"
        hive.mkdir()
        commands.mkdir()
        conf = {"spark.sql.catalogImplementation": "hive", "spark.sql.warehouse.dir": str(commands / "warehouse"),
                "spark.hadoop.javax.jdo.option.ConnectionURL": f"jdbc:derby:;databaseName={commands / 'metastore_db'};create=true"}
        options = ["--master", "local[1]", *(arg for key, value in conf.items() for arg in ("--conf", f"{key}={value}"))]
        (commands / "customers.yaml").write_text(CONTRACT.format(version="1.0.0", more=""), encoding="utf-8")
        (commands / "new.yaml").write_text(CONTRACT.format(version="1.1.0", more="      - name: email\n        logicalType: string\n"),
                                           encoding="utf-8")
        arguments = [[part for arg in args for part in (options if arg == "OPTIONS" else [arg])] for args in COMMAND_ARGS.values()]
        self.processes = {
            "hive": self._start([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--basetemp", str(hive / "run"),
                                 str(ROOT / "tests" / "hive")], hive, DC_BRIDGE_HIVE_TESTS="1"),
            "commands": self._start([sys.executable, "-c", COMMANDS, json.dumps(conf), json.dumps(arguments)], commands),
        }

    def _start(self, command: list[str], cwd: Path, **env: str) -> subprocess.Popen:
        with (cwd / "stdout").open("wb") as stdout, (cwd / "stderr").open("wb") as stderr:  # the child keeps its descriptors
            return subprocess.Popen(command, cwd=cwd, env={**os.environ, "PYTHONPATH": str(ROOT), **env}, stdout=stdout,
                                    stderr=stderr, stdin=subprocess.DEVNULL)

    def finished(self, name: str) -> subprocess.CompletedProcess:
        process = self.processes[name]
        process.wait(timeout=900)
        folder = self.folder / name
        return subprocess.CompletedProcess(process.args, process.returncode, (folder / "stdout").read_text(errors="replace"),
                                           (folder / "stderr").read_text(errors="replace"))


@pytest.fixture(scope="module")
def started(tmp_path_factory):
    both = Started(tmp_path_factory.mktemp("catalog-spark"))
    yield both
    for process in both.processes.values():
        process.kill()
        process.wait()


def test_catalog_commands_start_their_session_from_master_and_conf(started):
    """`register`, `check-version --against-registered` and `init`, each with no session running: only their `--conf`
    options (a Hive metastore on Derby in the process's folder) make their session reach the table and the registration
    the commands before them wrote. `--master` reaches the session too: one Spark cannot parse is a catalog that cannot
    be reached, a warning for `register`."""
    process = started.finished("commands")
    assert process.returncode == 0, process.stdout[-3000:] + process.stderr[-3000:]
    done = dict(zip(COMMAND_ARGS, json.loads(process.stdout.strip().splitlines()[-1])))

    registered = done["registered"]
    assert registered["code"] == 0, registered["stdout"] + registered["stderr"][-3000:]
    assert registered["stdout"].splitlines()[:3] == ["customers.yaml: registered customers 1.0.0 (first registration)",
                                                     "  catalog    spark", "  namespace  sales"]
    assert "  tables     properties set on sales.customers" in registered["stdout"]  # the table of the metastore --conf names
    checked = done["checked"]
    assert checked["code"] == 0, checked["stdout"] + checked["stderr"][-3000:]
    assert "version 1.0.0 -> 1.1.0: MINOR bump: ok" in checked["stdout"]  # the registered baseline, read back from the metastore
    generated = done["generated"]
    assert generated["code"] == 0, generated["stdout"] + generated["stderr"][-3000:]
    assert ("generated.yaml: 1 model(s), 2 top-level field(s), 3 proposed rule(s) from the first 100000 rows; lint: clean"
            in generated["stdout"]), generated["stdout"]
    unreachable = done["unreachable"]
    assert unreachable["code"] == 2, unreachable["stdout"] + unreachable["stderr"][-3000:]
    assert "register: --master 'local[bogus]' is not a master URL Spark can parse" in unreachable["stderr"], unreachable["stderr"]
    assert "Traceback" not in unreachable["stderr"], unreachable["stderr"]
