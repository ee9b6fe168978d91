"""One pass through a run (runner/pipeline.py): each contract is read, linted, planned and translated once,
its data read once, each engine run once per model, and the fold run once over evidence gathered before
it; the verdict's `phases` record it, and `run --explain` shows them."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

import dc_bridge
import dc_bridge.compiler
import dc_bridge.contract.reading.load
import dc_bridge.runner.history
import dc_bridge.runner.pipeline
import dc_bridge.verdict
from dc_bridge.cli import main
from dc_bridge.contract.reading.load import load_contract
from dc_bridge.runner.phases import Phases
from dc_bridge.runner.pipeline import MODELS_AT_ONCE

ROOT = Path(__file__).resolve().parents[1]
ORDERS = ROOT / "contracts" / "orders.yaml"
SANTA = ROOT / "contracts" / "letters_to_santa.yaml"

# what every run of a contract goes through once, whatever it checks
ONCE = {"read", "lint", "plan", "data", "references", "translate", "judge", "evidence", "fold", "cleanup"}


def assert_one_pass(verdict: dict, engines: set[str]) -> None:
    phases = verdict["phases"]
    assert {p["contract"] for p in phases} == {verdict["contract_file"]}
    steps = Counter((p["phase"], p["model"], p["engine"]) for p in phases)
    assert all(count == 1 for count in steps.values()), steps
    assert ONCE <= {p["phase"] for p in phases}, phases
    models = {model.name for model in load_contract(verdict["contract_file"]).contract.models}
    ran = {(p["engine"], p["model"]) for p in phases if p["phase"] == "engine"}
    assert ran == {(engine, model) for engine in engines for model in models}
    assert all(p["seconds"] >= 0 for p in phases)
    # no time counted twice: the engines on one model run side by side, and on small data MODELS_AT_ONCE models'
    # engines at once, so each group of models (in the order they ran) counts by its longest engine
    order = list(dict.fromkeys(p["model"] for p in phases if p["phase"] == "engine"))
    group = {model: index // MODELS_AT_ONCE for index, model in enumerate(order)}
    longest = {}
    for p in phases:
        if p["phase"] == "engine":
            longest[group[p["model"]]] = max(longest.get(group[p["model"]], 0), p["seconds"])
    steps = sum(p["seconds"] for p in phases if p["phase"] != "engine")
    assert steps + sum(longest.values()) <= verdict["seconds"] + 0.002 * len(phases)


@pytest.fixture
def calls(monkeypatch):
    """How often a run reads, lints, translates, judges, folds and reads the history: spies on dc-bridge's own
    functions (nothing of Spark, GX or Soda is replaced)."""
    counted: Counter = Counter()

    def spy(module, name, key=None):
        real = getattr(module, name)

        def counting(*args, **kwargs):
            counted[key or name] += 1
            return real(*args, **kwargs)
        monkeypatch.setattr(module, name, counting)

    spy(dc_bridge.runner.pipeline, "load_contract")
    spy(dc_bridge.contract.reading.load, "load_contract", "load_contract elsewhere")
    spy(dc_bridge.runner.pipeline, "lint_for_run")
    spy(dc_bridge.runner.pipeline, "plan_for_run")
    spy(dc_bridge.runner.pipeline, "compile_contract")
    spy(dc_bridge.compiler, "compile_contract", "compile_contract elsewhere")
    spy(dc_bridge.runner.pipeline, "judge")
    spy(dc_bridge.runner.pipeline, "conclude")
    spy(dc_bridge.verdict, "fold")
    spy(dc_bridge.runner.history, "read_history")
    return counted


def test_run_of_the_bundled_example_goes_through_each_phase_once(spark, tmp_path, calls):
    report, history = tmp_path / "verdict.json", tmp_path / "history.jsonl"
    result = CliRunner().invoke(main, ["run", str(ORDERS), "--output", "json", "--output-file", str(report), "--history", str(history),
                                       "--explain"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    verdict = json.loads(report.read_text())
    assert_one_pass(verdict, {"gx", "soda"})
    assert Counter(p["phase"] for p in verdict["phases"])["history"] == 1
    # the contract is read once, for the output checks and the run alike; the history file once
    assert calls == Counter({"load_contract": 1, "lint_for_run": 1, "plan_for_run": 1, "compile_contract": 1, "judge": 1,
                             "conclude": 1, "read_history": 1}), calls
    # --explain: the phases beside the console report (stderr, as the JSON went to a file)
    for phase in ("read", "lint", "translate", "engine", "fold", "report"):
        assert phase in result.stderr, result.stderr


def test_two_contracts_in_one_run_go_through_each_phase_once_each(spark, tmp_path, calls):
    history = tmp_path / "history.jsonl"
    result = CliRunner().invoke(main, ["run", str(ORDERS), str(SANTA), "--engines", "spark", "--output", "json",
                                       "--history", str(history)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    verdicts = json.loads(result.stdout)
    assert [v["contract_file"] for v in verdicts] == [str(ORDERS), str(SANTA)]
    for verdict in verdicts:
        assert_one_pass(verdict, {"spark"})
    # the command's one session, got by the first contract that needs it (runner/pipeline.py SessionOnFirstNeed)
    assert [Counter(p["phase"] for p in v["phases"])["spark"] for v in verdicts] == [1, 0]
    assert calls == Counter({"load_contract": 2, "lint_for_run": 2, "plan_for_run": 2, "compile_contract": 2, "judge": 2,
                             "conclude": 2, "read_history": 1}), calls
    assert len(history.read_text().splitlines()) == 2


def test_the_python_api_records_its_phases_too(spark, calls):
    verdict = dc_bridge.run(ORDERS, spark=spark, engines=["spark"])
    assert_one_pass(json.loads(verdict.model_dump_json()), {"spark"})
    assert calls["load_contract"] == 1 and calls["compile_contract"] == 1 and calls["conclude"] == 1 and not calls["fold"]


def test_a_phase_inside_another_is_left_out_of_its_seconds():
    import time

    phases = Phases("c.yaml")
    with phases.timed("lint"):
        with phases.timed("spark"):
            time.sleep(0.05)
    spark, lint = phases.records
    assert (spark.phase, lint.phase) == ("spark", "lint")
    assert spark.seconds >= 0.05 and lint.seconds < 0.05
    phases.add("engine", 1.5, model="orders", engine="gx")
    assert phases.records[-1].model_dump() == {"phase": "engine", "contract": "c.yaml", "model": "orders", "engine": "gx", "seconds": 1.5}
