"""Spark that cannot start, and everything a run can refuse before Spark starts (docs/reliability.md,
"Spark that cannot start"; runner/spark_start.py).

On the real command line (a subprocess): no Java, a master Spark cannot parse, a standalone master or a
Spark Connect server that nothing answers at, each exit 2 in one line that names the fix, never a
traceback, on every command that starts Spark. A wrong `--data` model, `--server`, format or path and a
contract with a lint error are refused before any JVM starts: the proof is a `java` of our own, first on
PATH and in JAVA_HOME, that leaves a marker file when anything launches it. In process, with the suite's
session: a quality query naming a column the data does not have is one line with Spark's "did you mean".
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import dc_bridge
from dc_bridge.cli import main

ROOT = Path(__file__).resolve().parent.parent
ORDERS = ROOT / "contracts" / "orders.yaml"
ORDERS_CSV = ROOT / "contracts" / "data" / "orders" / "orders.csv"
CLI = Path(sys.executable).parent / "dc-bridge"

# a contract that cannot run (DCB110) and has a pattern: before, its run waited for Spark to compile the pattern
LINT_ERROR = """\
dataContractSpecification: 1.1.0
id: urn:datacontract:broken:pattern-and-type
info: {title: Pattern and type, version: 1.0.0}
models:
  orders:
    type: table
    fields:
      order_id: {type: strng}
      code: {type: string, pattern: '^[A-Z]{3}$'}
"""


@pytest.fixture
def fake_java(tmp_path):
    """(environment, marker): JAVA_HOME and the front of PATH hold a `java` that leaves `marker` when launched
    (by Spark's launch scripts or lint's regex check alike) and fails."""
    home = tmp_path / "jdk"
    (home / "bin").mkdir(parents=True)
    marker = tmp_path / "java-was-launched"
    java = home / "bin" / "java"
    java.write_text(f"#!/bin/sh\ntouch '{marker}'\nexit 1\n")
    java.chmod(0o755)
    env = {**os.environ, "JAVA_HOME": str(home), "PATH": f"{home / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.pop("SPARK_REMOTE", None)
    return env, marker


def cli(args, env, cwd=ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([str(CLI), *map(str, args)], capture_output=True, text=True, env=env, cwd=cwd, timeout=300)


def refused(done: subprocess.CompletedProcess, *words: str) -> None:
    """Exit 2, one or two lines on stderr holding `words`, no traceback."""
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    assert "Traceback" not in done.stderr + done.stdout, done.stderr
    lines = done.stderr.strip().splitlines()
    assert 1 <= len(lines) <= 2, done.stderr
    for word in words:
        assert word in done.stderr, (word, done.stderr)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def no_java_env(tmp_path) -> dict:
    """A PATH and JAVA_HOME without java (an empty folder each)."""
    empty = tmp_path / "empty"
    empty.mkdir(exist_ok=True)
    env = {**os.environ, "PATH": str(empty), "JAVA_HOME": ""}
    env.pop("SPARK_REMOTE", None)
    return env


# ---------------------------------------------------------------------------------------------
# Spark that cannot start or be reached: every command that starts it


def test_no_java_on_path_is_bad_input_that_names_the_fix(tmp_path):
    done = cli(["run", ORDERS, "--data", f"orders={ORDERS_CSV}"], no_java_env(tmp_path))
    refused(done, "dc-bridge run: Spark needs Java", "JAVA_HOME is not set and no java is on PATH", "install Java 17")


def test_a_java_home_without_java_is_named(tmp_path):
    env = {**os.environ, "JAVA_HOME": str(tmp_path / "nowhere")}
    done = cli(["run", ORDERS], env)
    refused(done, f"JAVA_HOME={tmp_path / 'nowhere'} holds no bin/java", "Java 17")


@pytest.mark.parametrize("command", [
    ["drift", ORDERS, "--data", f"orders={ORDERS_CSV}"],
    ["init", "--from", f"{ORDERS_CSV}", "--out", "generated.yaml"],
    ["register", ORDERS, "--catalog", "spark", "--namespace", "sales"],
    ["registrations", "--catalog", "spark", "--namespace", "sales"],
    ["check-version", ORDERS, "--against-registered", "--catalog", "spark", "--namespace", "sales"],
    ["drift", ORDERS, "--catalog", "spark", "--namespace", "sales"],
    ["gx", "init", ORDERS, "--project-dir", "gx-project"],
    ["run", ORDERS, "contracts/letters_to_santa.yaml"],
], ids=lambda command: " ".join(str(part) for part in command[:2] if not str(part).startswith("/")))
def test_every_command_that_starts_spark_says_so_without_java(tmp_path, command):
    env = no_java_env(tmp_path)
    done = cli([ROOT / a if a == "contracts/letters_to_santa.yaml" else a for a in command], env, cwd=tmp_path)
    name = " ".join(str(part) for part in command[:2] if part in ("gx", "init") and command[0] == "gx") or command[0]
    refused(done, f"dc-bridge {name}", "Spark needs Java")


@pytest.mark.parametrize("master, words", [
    ("foo", ["--master 'foo' is not a master URL Spark can parse", "local[*]"]),
    ("local[abc]", ["--master 'local[abc]' is not a master URL Spark can parse"]),
    ("local[0]", ["at least one thread"]),
    ("spark://somewhere", ["spark://HOST:PORT"]),
    ("sc://", ["sc:// is not a Spark Connect URL"]),
])
def test_a_master_spark_cannot_parse_is_refused_before_java_starts(fake_java, master, words):
    env, marker = fake_java
    refused(cli(["run", ORDERS, "--master", master], env), *words)
    assert not marker.exists()


def test_a_standalone_master_nothing_answers_at(fake_java):
    env, marker = fake_java
    port = free_port()
    done = cli(["run", ORDERS, "--master", f"spark://127.0.0.1:{port}"], env)
    refused(done, f"no Spark master answers (127.0.0.1:{port}: connection refused)", "start-master.sh")
    assert not marker.exists()


def test_a_spark_connect_server_that_is_down(fake_java):
    env, marker = fake_java
    for name in ("grpc_proxy", "https_proxy", "http_proxy", "GRPC_PROXY", "HTTPS_PROXY", "HTTP_PROXY"):
        env.pop(name, None)
    port = free_port()
    refused(cli(["run", ORDERS, "--master", f"sc://127.0.0.1:{port}"], env),
            f"no Spark Connect server answers at sc://127.0.0.1:{port} (connection refused)", "start-connect-server.sh")
    assert not marker.exists()
    # (drift lints with a java of its own first, as `dc-bridge lint` does, for the patterns)
    refused(cli(["drift", ORDERS, "--data", f"orders={ORDERS_CSV}", "--conf", f"spark.remote=sc://127.0.0.1:{port}"], env),
            "dc-bridge drift: no Spark Connect server answers")


def test_a_jvm_that_exits_at_start_is_one_line_too(fake_java):
    """Our java is launched (Spark's launch script finds it) and fails: what the launch script printed, then ours."""
    env, marker = fake_java
    done = cli(["run", ORDERS, "--data", f"orders={ORDERS_CSV}", "--data", f"line_items={ORDERS_CSV.parent / 'line_items.csv'}"], env)
    assert marker.exists()
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith(
        "dc-bridge run: Spark did not start (local[*]): [JAVA_GATEWAY_EXITED]"), done.stderr


def test_a_port_spark_cannot_bind(tmp_path):
    """A real JVM: the driver's port is taken and no other may be tried."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = cli(["drift", ORDERS, "--data", f"orders={ORDERS_CSV}", "--conf", f"spark.driver.port={port}",
                    "--conf", "spark.port.maxRetries=0"], {**os.environ})
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("dc-bridge drift: Spark did not start (local[*]): ") and "a port Spark needs is taken" in last, done.stderr


# ---------------------------------------------------------------------------------------------
# what a run can refuse before Spark starts: no JVM is launched for it


@pytest.mark.parametrize("args, words", [
    (["--data", f"ordrs={ORDERS_CSV}"], ["has no model named ordrs (models: orders, line_items)"]),
    (["--server", "nope"], ["no server named `nope` (servers: production, local)"]),
    (["--data", f"orders={ORDERS_CSV.with_suffix('.xls')}"], ["cannot tell the format"]),
    (["--data", f"orders={ORDERS_CSV}:xml"], ["cannot tell the format"]),
    (["--data", "orders=/no/such/orders.csv"], ["model `orders`: /no/such/orders.csv does not exist (--data)"]),
    (["--output", "json", "--output-file", str(ORDERS)], ["--output-file", "is the contract"]),
], ids=["model", "server", "format", "format-suffix", "path", "output"])
def test_bad_input_is_refused_before_any_jvm_starts(fake_java, args, words):
    env, marker = fake_java
    refused(cli(["run", ORDERS, *args], env), *words)
    assert not marker.exists(), "a JVM was launched"


def test_a_missing_output_folder_that_cannot_be_made(fake_java, tmp_path):
    env, marker = fake_java
    blocker = tmp_path / "file"
    blocker.write_text("")
    refused(cli(["run", ORDERS, "--output", "junit", "--output-file", blocker / "sub" / "report.xml"], env), "--output-file")
    assert not marker.exists()


@pytest.mark.parametrize("split", [False, True], ids=["run", "run-quarantine"])
def test_a_contract_with_a_lint_error_is_refused_before_spark_starts(fake_java, tmp_path, split):
    """Its pattern would be compiled in Spark's JVM: lint's other rules come first, so the run returns within lint's
    time; `run --quarantine` lints in the same two halves."""
    env, marker = fake_java
    contract = tmp_path / "broken.yaml"
    contract.write_text(LINT_ERROR)
    outputs = ["--quarantine", tmp_path / "q", "--valid-output", tmp_path / "v"] if split else []
    done = cli(["run", contract, *outputs], env)
    assert done.returncode == 2, done.stderr
    assert "error DCB110" in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert not marker.exists(), "a JVM was launched for a contract that cannot run"


def test_several_contracts_that_lint_refuses_start_no_spark(fake_java, tmp_path):
    """`run A B`: the session the contracts share starts when the first of them needs it; two contracts
    with lint errors are each reported, with their verdicts, and no JVM was launched."""
    env, marker = fake_java
    contracts = [tmp_path / "broken.yaml", tmp_path / "broken_too.yaml"]
    for number, contract in enumerate(contracts):  # an id each: two of one id are refused before lint (issue 48)
        contract.write_text(LINT_ERROR.replace("pattern-and-type", f"pattern-and-type-{number}"))
    done = cli(["run", *contracts], env)
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("error DCB110") == 2 and "Traceback" not in done.stderr, done.stderr
    assert "2 contracts, checks: 2 error; exit code 2" in done.stdout, done.stdout
    assert not marker.exists(), "a JVM was launched for contracts that cannot run"


def test_the_python_api_refuses_before_spark_too(tmp_path, monkeypatch):
    """dc_bridge.run raises the same messages, before any session exists (no Java here: none would start)."""
    from dc_bridge.compiler import ContractError
    from dc_bridge.runner.data import DataError, DataLocation

    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "nowhere"))
    with pytest.raises(DataError, match="has no model named ordrs"):
        dc_bridge.run(ORDERS, data={"ordrs": DataLocation(str(ORDERS_CSV), "csv")})
    with pytest.raises(DataError, match="format `xml` is not one Spark reads"):
        dc_bridge.run(ORDERS, data={"orders": DataLocation(str(ORDERS_CSV), "xml")}, server="local")
    contract = tmp_path / "broken.yaml"
    contract.write_text(LINT_ERROR)
    with pytest.raises(ContractError):
        dc_bridge.run(contract)
    # with no session in the process (the suite's own is running in this one): a process of its own
    started = subprocess.run([sys.executable, "-c", "import dc_bridge; dc_bridge.run(" + repr(str(ORDERS)) + ", server='local')"],
                             capture_output=True, text=True, env={**os.environ, "JAVA_HOME": str(tmp_path / "nowhere")}, timeout=120)
    assert started.returncode != 0
    assert "SparkUnavailable" in started.stderr and "holds no bin/java" in started.stderr, started.stderr[-2000:]


# ---------------------------------------------------------------------------------------------
# a quality query naming a column the data does not have: one line, at lint time and at run time

UNKNOWN_COLUMN = """\
dataContractSpecification: 1.1.0
id: unknown-column
info: {title: Unknown column, version: 1.0.0}
models:
  orders:
    type: table
    fields:
      order_id: {type: string}
      order_total: {type: long}
    quality:
      - type: sql
        description: no order without a total
        query: SELECT COUNT(*) FROM orders WHERE amount IS NULL
        mustBe: 0
"""


def test_lint_names_a_column_the_model_does_not_declare(tmp_path):
    from dc_bridge.contract.lint import lint_file

    contract = tmp_path / "c.yaml"
    contract.write_text(UNKNOWN_COLUMN)
    found = [f for f in lint_file(contract).findings if f.code == "DCB175"]
    assert [f.message for f in found] == ["the query names the column `amount`, which `orders` does not declare"]
    contract.write_text(UNKNOWN_COLUMN.replace("amount", "order_totl"))
    found = [f for f in lint_file(contract).findings if f.code == "DCB175"]
    assert [f.message for f in found] == ["the query names the column `order_totl`, which `orders` does not declare; "
                                          "did you mean `order_total`?"]
    contract.write_text(UNKNOWN_COLUMN.replace("FROM orders WHERE amount", "FROM ordrs WHERE order_total"))
    found = [f for f in lint_file(contract).findings if f.code == "DCB170"]
    assert len(found) == 1 and found[0].message.startswith("the SQL reads `ordrs`, which is not a table it may read")
    assert found[0].message.endswith("; did you mean `orders`?"), found[0].message


def test_spark_analysis_error_is_one_line_with_spark_suggestion(spark, tmp_path):
    contract = tmp_path / "c.yaml"
    contract.write_text(UNKNOWN_COLUMN)
    orders = spark.createDataFrame([("a", 1), ("b", 2)], "order_id string, order_total long")
    for engines in (["gx", "soda"], ["spark"]):
        verdict = dc_bridge.run(contract, dataframes={"orders": orders}, spark=spark, engines=engines)
        check = next(c for c in verdict.checks() if c.check_id == "orders.quality[0]")
        assert check.outcome == "error"
        assert check.reason == ("the query names the column `amount`, which the data it reads does not have "
                                "(Spark: did you mean one of `order_id`, `order_total`?); it was not run"), check.reason
        assert "\n" not in check.reason and not check.engines, check
        assert verdict.exit_code() == 2


def test_the_console_shows_the_analysis_error_in_one_line(spark, tmp_path):
    contract = tmp_path / "c.yaml"
    contract.write_text(UNKNOWN_COLUMN)
    data = tmp_path / "orders.csv"
    data.write_text("order_id,order_total\na,1\nb,2\n")
    result = CliRunner().invoke(main, ["run", str(contract), "--data", f"orders={data}", "--engines", "gx,soda"])
    assert result.exit_code == 2, result.output
    assert "Aggregate" not in result.output and "SubqueryAlias" not in result.output, result.output
    words = " ".join(result.output.split())  # the summary wraps the reason to the console's width
    assert "the query names the column `amount`, which the data it reads does not have (Spark: did you mean one of `order_id`, `order_total`?)" in words, result.output
