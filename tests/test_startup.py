"""What every `dc-bridge` command pays before it does anything: `--version` and `--help` import the command
line and nothing of the pipeline behind it (the contract model, the engines, Spark, the reports' libraries).
The modules are asserted, never the time (bench/startup.py measures it).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

# what no command needs before it runs: each costs tens to hundreds of milliseconds to import
HEAVY = ("pyspark", "py4j", "great_expectations", "soda", "pydantic", "pydantic_core", "rich", "sqlglot", "jinja2", "yaml",
         "jsonschema", "jsonschema_rs", "pandas", "numpy", "dc_bridge.contract.model", "dc_bridge.contract.lint",
         "dc_bridge.compiler", "dc_bridge.runner.pipeline", "dc_bridge.verdict", "dagster")

# the console script's own lines (`from dc_bridge.cli import command; command()`), then the modules it left imported and
# the collector's state
PROGRAM = """
import gc, json, sys
sys.argv = ["dc-bridge", *sys.argv[1:]]
from dc_bridge.cli import command
try:
    command()
except SystemExit as exc:
    code = exc.code
print("\\n" + json.dumps({"code": code, "modules": sorted(sys.modules), "frozen": gc.get_freeze_count(), "collecting": gc.isenabled()}))
"""


def ran(*arguments: str) -> dict:
    """`dc-bridge ARGUMENTS` in a fresh interpreter: its exit code, every module it imported, the collector's state."""
    shown = subprocess.run([sys.executable, "-c", PROGRAM, *arguments], capture_output=True, text=True, check=True).stdout
    return json.loads(shown.rstrip().rsplit("\n", 1)[-1])


def imported(*arguments: str) -> tuple[int, set[str]]:
    """The exit code of `dc-bridge ARGUMENTS` and every module it imported, in a fresh interpreter."""
    found = ran(*arguments)
    return found["code"], set(found["modules"])


@pytest.mark.parametrize("arguments", [("--version",), ("--help",), ("run", "--help")])
def test_start_up_imports_nothing_heavy(arguments):
    code, modules = imported(*arguments)
    assert code in (0, None)
    heavy = sorted({m if m in HEAVY else m.split(".")[0] for m in modules if m in HEAVY or m.split(".")[0] in HEAVY})
    assert heavy == [], f"`dc-bridge {' '.join(arguments)}` imported {heavy}: import them inside the commands that use them"
    assert "click" in modules and "dc_bridge.cli" in modules  # it did run the command line


def test_a_command_still_imports_what_it_needs():
    # the other side of the same test: `lint` reaches the contract model (the check above can fail)
    code, modules = imported("lint", "contracts/orders.yaml")
    assert code == 0
    assert "dc_bridge.contract.lint" in modules and "pydantic" in modules


def test_lint_freezes_what_it_read_in_its_own_process_only():
    """In the command's own process, what lint built is frozen for the collector when it is back on (cli/options.py
    `collector_paused`: walking it at once and again at exit cost a tenth of the command's CPU); in a caller's process
    (the API, a test's runner) nothing is frozen, and the collector is back on either way."""
    import gc

    from click.testing import CliRunner

    from dc_bridge.cli import main

    own = ran("lint", "contracts/orders.yaml")
    assert own["code"] == 0 and own["collecting"] and own["frozen"] > 10_000, own["frozen"]
    before = gc.get_freeze_count()
    result = CliRunner().invoke(main, ["lint", "contracts/orders.yaml"])
    assert result.exit_code == 0, result.output
    assert gc.get_freeze_count() == before and gc.isenabled()
