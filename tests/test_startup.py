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

# the console script's own lines (`from dc_bridge.cli import main; main()`), then the modules it left imported
PROGRAM = """
import json, sys
sys.argv = ["dc-bridge", *sys.argv[1:]]
from dc_bridge.cli import main
try:
    main()
except SystemExit as exc:
    code = exc.code
print("\\n" + json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""


def imported(*arguments: str) -> tuple[int, set[str]]:
    """The exit code of `dc-bridge ARGUMENTS` and every module it imported, in a fresh interpreter."""
    shown = subprocess.run([sys.executable, "-c", PROGRAM, *arguments], capture_output=True, text=True, check=True).stdout
    found = json.loads(shown.rstrip().rsplit("\n", 1)[-1])
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
