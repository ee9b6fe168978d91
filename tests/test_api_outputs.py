"""The API keeps the command line's promises on where it writes (dc_bridge/paths.py, runner/outputs.py).

Every output keyword of the Python API (`dc_bridge.run`'s `history=`, `data_docs=`, `metrics_file=`;
`dc_bridge.metrics`' `file=`; `Split.write`'s `valid=` and `quarantined=`; the streaming guard's `sink=`,
`quarantine=`, `log=` and `metrics_file=`) against the hostile table: an output that is the contract, is the
data file, lies inside the data folder, holds an input (the contract's folder), is a symlink to the contract,
is the contract as a `file:` URI, or is a file another program owns. Every cell is refused with a ValueError
saying nothing was written, and leaves every file byte for byte as it was; `dc_bridge.run`'s cells are sent
through `dc-bridge run` too, which refuses the same cells (exit 2).
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

import dc_bridge
from dc_bridge.cli import main
from dc_bridge.runner.data import DataLocation
from dc_bridge.verdict import Verdict

ROOT = Path(__file__).resolve().parent.parent
CONTRACTS = ROOT / "contracts"

CONTRACT, DATA, INSIDE, AROUND, SYMLINK, FILE_URI, FOREIGN = (
    "the contract", "the data file", "inside the data folder", "around an input", "a symlink to the contract",
    "the contract as a file: URI", "a file another program owns")
# hostile case -> (the output path given the project's root, for a file output; for a folder output)
HOSTILE = {
    CONTRACT: (lambda r: r / "c" / "orders.yaml",) * 2,
    DATA: (lambda r: r / "lake" / "orders.csv",) * 2,
    INSIDE: (lambda r: r / "lake" / "items" / "out.txt", lambda r: r / "lake" / "items" / "out"),
    AROUND: (lambda r: r / "c",) * 2,
    SYMLINK: (lambda r: r / "links" / "orders.yaml",) * 2,
    FILE_URI: (lambda r: f"file://{r / 'c' / 'orders.yaml'}",) * 2,
    FOREIGN: (lambda r: r / "theirs" / "notes.txt", lambda r: r / "web"),
}


def project(root: Path) -> dict:
    """The bundled orders contract and its data (orders a file, line items a folder of csv), a symlink to the contract,
    another program's file and another program's web folder (its own index.html)."""
    (root / "c").mkdir()
    shutil.copy(CONTRACTS / "orders.yaml", root / "c" / "orders.yaml")
    (root / "lake" / "items").mkdir(parents=True)
    shutil.copy(CONTRACTS / "data" / "orders" / "orders.csv", root / "lake" / "orders.csv")
    shutil.copy(CONTRACTS / "data" / "orders" / "line_items.csv", root / "lake" / "items" / "line_items.csv")
    (root / "links").mkdir()
    (root / "links" / "orders.yaml").symlink_to(root / "c" / "orders.yaml")
    (root / "theirs").mkdir()
    (root / "theirs" / "notes.txt").write_text("the team's own notes: not dc-bridge's\n", encoding="utf-8")
    (root / "web").mkdir()
    (root / "web" / "index.html").write_text("<title>the team's own page</title>", encoding="utf-8")
    return {"orders": DataLocation(str(root / "lake" / "orders.csv"), "csv", (("header", "true"),)),
            "line_items": DataLocation(str(root / "lake" / "items"), "csv", (("header", "true"),))}


def fingerprint(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "folder"
            for p in sorted(root.rglob("*"))}


# dc_bridge.run's keyword -> (the command line's option, whether it names a folder)
RUN_KEYWORDS = {"history": ("--history", False), "data_docs": ("--data-docs", True), "metrics_file": ("--metrics-file", False)}
# a Data Docs folder is shared: the run writes only its own entries there (index.html, static, expectations, validations),
# so a folder around an input is refused only when one of those is the input (tests/test_output_rules.py), on both sides
SHARED = {("data_docs", AROUND)}


def _refused(call) -> str | None:
    """The refusal's message (a ValueError's), or None when the call went on (another exception: what it said, marked)."""
    try:
        call()
    except ValueError as exc:
        return str(exc)
    except Exception as exc:  # the call went on past where a refusal comes (a guard that judged its batch)
        return f"NOT REFUSED: {type(exc).__name__}: {exc}"
    return None


@pytest.mark.parametrize("keyword", RUN_KEYWORDS)
def test_run_refuses_every_hostile_output_as_the_command_line_does(spark, tmp_path, keyword):
    """`spark`: should a refusal not come, the run goes on in the tests' one session (and the cell fails)."""
    option, folder = RUN_KEYWORDS[keyword]
    root = tmp_path
    data = project(root)
    contract = root / "c" / "orders.yaml"
    command = ["run", str(contract), "--data", f"orders={data['orders'].path}", "--data", f"line_items={data['line_items'].path}:csv",
               "--engines", "spark"]
    before = fingerprint(root)
    api, cli = {}, {}
    for case, paths in HOSTILE.items():
        if (keyword, case) in SHARED:
            continue
        target = str(paths[folder](root))
        api[case] = _refused(lambda: dc_bridge.run(contract, data=data, engines=("spark",), **{keyword: target}))
        assert fingerprint(root) == before, (keyword, case)  # nothing replaced, nothing created
        result = CliRunner().invoke(main, [*command, option, target], prog_name="dc-bridge")
        cli[case] = (result.exit_code, result.output)
        assert fingerprint(root) == before, (option, case)
    assert {case for case, said in api.items() if said is None or said.startswith("NOT REFUSED")} == set(), api
    assert {case for case, (code, _) in cli.items() if code != 2} == set(), cli
    for case, said in api.items():
        # a file that is not a history is refused as such (HistoryError), the rest by the rule in the API's words
        assert "nothing was written" in said or "is a folder" in said or (keyword == "history" and "history" in said), (case, said)
        assert option not in said, (case, said)  # the API's words, not the command line's
    for case, (_, output) in cli.items():
        assert "Traceback" not in output, (case, output)


def test_metrics_refuses_every_hostile_file(tmp_path):
    data = project(tmp_path)
    contract = tmp_path / "c" / "orders.yaml"
    verdict = Verdict.unchecked(str(contract), ["spark"], "not run").model_copy(
        update={"data_sources": {model: location.path for model, location in data.items()}})
    before = fingerprint(tmp_path)
    refused = {}
    for case, paths in HOSTILE.items():
        refused[case] = _refused(lambda: dc_bridge.metrics(verdict, file=str(paths[0](tmp_path))))
        assert fingerprint(tmp_path) == before, case
    assert {case for case, said in refused.items() if said is None or said.startswith("NOT REFUSED")} == set(), refused
    assert all("nothing was written" in said or "is a folder" in said for said in refused.values()), refused


def test_split_and_the_streaming_guard_refuse_every_hostile_output(spark, tmp_path):
    """`Split.write` with `overwrite=True` (the caller asked to replace what is there: never an input), and each output of the
    streaming guard, refused when made or at the first batch (when the stream's files are known)."""
    data = project(tmp_path)
    contract = tmp_path / "c" / "orders.yaml"
    rows = spark.read.option("header", "true").csv(data["orders"].path)
    out = tmp_path / "out"
    before = fingerprint(tmp_path)

    frames = {"line_items": spark.read.option("header", "true").csv(data["line_items"].path)}

    def split_write(valid: str | None = None, quarantined: str | None = None):
        result = dc_bridge.split(contract, "orders", rows, frames=frames)
        try:
            result.write(valid=valid or str(out / "v"), quarantined=quarantined or str(out / "q"),
                         overwrite=not (valid or quarantined or "").endswith("web"))
        finally:
            result.release()

    def guard(**given):
        outputs = {"sink": str(out / "sink"), "log": str(out / "log.jsonl"), **given}
        dc_bridge.streaming.guard(contract, "orders", frames=frames, **outputs)(rows, 0)

    writers = {
        "Split.write valid=": lambda path: split_write(valid=path),
        "Split.write quarantined=": lambda path: split_write(quarantined=path),
        "guard sink=": lambda path: guard(sink=path),
        "guard quarantine=": lambda path: guard(on_failure="quarantine", quarantine=path),
        "guard log=": lambda path: guard(log=path),
        "guard metrics_file=": lambda path: guard(metrics_file=path),
    }
    files = {"guard log=", "guard metrics_file="}
    # a guard's sink and quarantine take each batch's files beside what is there (a restarted query's earlier batches):
    # another program's folder loses nothing, so it is no hostile cell for them
    appended = {"guard sink=", "guard quarantine="}
    refused = {}
    for writer, write in writers.items():
        for case, paths in HOSTILE.items():
            if case == FOREIGN and writer in appended:
                continue
            refused[writer, case] = _refused(lambda: write(str(paths[0 if writer in files else 1](tmp_path))))
            assert fingerprint(tmp_path) == {**before, **{k: v for k, v in fingerprint(tmp_path).items() if k.startswith("out")}}, \
                (writer, case)
    assert {cell for cell, said in refused.items() if said is None or said.startswith("NOT REFUSED")} == set(), refused
    for cell, said in refused.items():
        # the rule's refusal, or the writer's own of a folder named for a file, or of an existing output without overwrite
        assert any(word in said for word in ("nothing was written", "is not a file", "is a folder", "exists")), (cell, said)


def test_run_openlineage_file_transport_refuses_every_hostile_file(spark, tmp_path, monkeypatch):
    """`run --openlineage` through OpenLineage's file transport, appending to `log_file_path` (every hostile cell), or
    writing a new file per event named `{log_file_path}-{time}.json` (hostile where that lands: inside a data folder):
    the file is held to the rule before the run, as every other output of `run`."""
    import os

    data = project(tmp_path)
    contract = tmp_path / "c" / "orders.yaml"
    for name in list(os.environ):
        if name.startswith("OPENLINEAGE"):
            monkeypatch.delenv(name)
    (tmp_path / "home").mkdir()
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENLINEAGE__TRANSPORT__TYPE", "file")
    command = ["run", str(contract), "--data", f"orders={data['orders'].path}", "--data", f"line_items={data['line_items'].path}:csv",
               "--engines", "spark", "--openlineage"]
    before = fingerprint(tmp_path)
    exits = {}
    for append in ("true", "false"):
        monkeypatch.setenv("OPENLINEAGE__TRANSPORT__APPEND", append)
        for case, paths in HOSTILE.items():
            if append == "false" and case != INSIDE:
                continue  # a new file beside the contract, the data file or another program's file touches none of them
            monkeypatch.setenv("OPENLINEAGE__TRANSPORT__LOG_FILE_PATH", str(paths[0](tmp_path)))
            result = CliRunner().invoke(main, command, prog_name="dc-bridge")
            exits[append, case] = (result.exit_code, result.output[-300:])
            assert fingerprint(tmp_path) == before, (append, case)
    assert {cell for cell, (code, output) in exits.items() if code != 2 or "nothing was written" not in output} == set(), exits
