"""Every writer of dc-bridge held to one rule (dc_bridge/paths.py, docs/enforcing.md "Outputs"), in one table.

Each command or API that writes, against each way an output can meet what the call reads or its other
outputs: equal to an input, inside an input folder, around an input (a folder holding it, where the
writer writes), equal to another output, nested in another output. Every cell is refused (exit 2 on
the command line, OutputError or ValueError from the APIs), names the rule's word for the clash, and
leaves every input byte for byte as it was and no output behind. A cell a writer cannot reach (a
command with one output has no other output to meet) is left out of the table, not passed.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from dc_bridge.cli import main

ROOT = Path(__file__).resolve().parent.parent
CONTRACTS = ROOT / "contracts"

EQUAL, INSIDE, AROUND, SAME_OUTPUT, NESTED_OUTPUT = "equal to an input", "inside an input folder", "around an input", \
    "equal to another output", "nested in another output"
FOREIGN = "another program's file where it writes"  # an index.html in the folder that is not the writer's own


def project(root: Path) -> dict[str, Path]:
    """The bundled orders contract and its data: orders as one file, line items as a folder of csv."""
    (root / "c").mkdir()
    shutil.copy(CONTRACTS / "orders.yaml", root / "c" / "orders.yaml")
    (root / "lake" / "items").mkdir(parents=True)
    shutil.copy(CONTRACTS / "data" / "orders" / "orders.csv", root / "lake" / "orders.csv")
    shutil.copy(CONTRACTS / "data" / "orders" / "line_items.csv", root / "lake" / "items" / "line_items.csv")
    (root / "h.jsonl").write_text("", encoding="utf-8")
    return {"contract": root / "c" / "orders.yaml", "data": root / "lake" / "orders.csv", "folder": root / "lake" / "items"}


def run(root: Path, *extra) -> list:
    return ["run", root / "c" / "orders.yaml", "--data", f"orders={root / 'lake' / 'orders.csv'}",
            "--data", f"line_items={root / 'lake' / 'items'}:csv", *extra]


def split(root: Path, quarantine, valid) -> list:
    return run(root, "--model", "orders", "--quarantine", quarantine, "--valid-output", valid, "--overwrite")


# click's own refusal of a folder named for a file option, and of a file for a folder option: before the command runs
CLICK_FOLDER, CLICK_FILE = "is a directory", "is a file"
# writer -> relation -> (the command line, given the project's root, the word the refusal uses)
CLI = {
    "run --quarantine": {
        EQUAL: (lambda r: split(r, r / "lake" / "orders.csv", r / "v"), "is the data of model `orders`"),
        INSIDE: (lambda r: split(r, r / "lake" / "items" / "q", r / "v"), "lies inside the data of model `line_items`"),
        AROUND: (lambda r: split(r, r / "lake", r / "v"), "holds the data of model `orders`"),
        SAME_OUTPUT: (lambda r: split(r, r / "out", r / "out"), "is --valid-output"),
        NESTED_OUTPUT: (lambda r: split(r, r / "out" / "q", r / "out"), "lies inside --valid-output"),
    },
    "run --valid-output": {
        EQUAL: (lambda r: split(r, r / "q", r / "lake" / "orders.csv"), "is the data of model `orders`"),
        INSIDE: (lambda r: split(r, r / "q", r / "lake" / "items" / "v"), "lies inside the data of model `line_items`"),
        AROUND: (lambda r: split(r, r / "q", r / "lake"), "holds the data of model `orders`"),
        NESTED_OUTPUT: (lambda r: split(r, r / "out", r / "out" / "v"), "holds --valid-output"),
    },
    "run --output-file": {
        EQUAL: (lambda r: run(r, "--output", "json", "--output-file", r / "lake" / "orders.csv"), "is the data of model `orders`"),
        INSIDE: (lambda r: run(r, "--output", "json", "--output-file", r / "lake" / "items" / "v.json"),
                 "lies inside the data of model `line_items`"),
        AROUND: (lambda r: run(r, "--output", "json", "--output-file", r / "lake"), CLICK_FOLDER),
        SAME_OUTPUT: (lambda r: run(r, "--output", "json", "--output-file", r / "h.json", "--history", r / "h.json"),
                      "is also the --history file"),
        NESTED_OUTPUT: (lambda r: run(r, "--output", "html", "--output-file", r / "site" / "index.html", "--data-docs", r / "site"),
                        "is --data-docs"),
    },
    "run --history": {
        EQUAL: (lambda r: run(r, "--history", r / "c" / "orders.yaml"), "is the contract"),
        INSIDE: (lambda r: run(r, "--history", r / "lake" / "items" / "h.jsonl"), "lies inside the data of model `line_items`"),
        AROUND: (lambda r: run(r, "--history", r / "lake"), CLICK_FOLDER),
        NESTED_OUTPUT: (lambda r: run(r, "--history", r / "site" / "static" / "h.jsonl", "--data-docs", r / "site"),
                        "holds --history"),
    },
    "run --data-docs": {
        EQUAL: (lambda r: run(r, "--data-docs", r / "c" / "orders.yaml"), CLICK_FILE),
        INSIDE: (lambda r: run(r, "--data-docs", r / "lake" / "items" / "site"), "lies inside the data of model `line_items`"),
        AROUND: (lambda r: run(r, "--data-docs", r / "lake" / "items", "--data", f"line_items={r / 'lake' / 'items' / 'index.html'}:csv"),
                 "is or lies in"),
        NESTED_OUTPUT: (lambda r: run(r, "--data-docs", r / "site", "--output-file", r / "site" / "expectations" / "v.json",
                                      "--output", "json"), "lies inside --data-docs"),
        FOREIGN: (lambda r: run(r, "--data-docs", r / "web"), "is not a Data Docs site's index"),
    },
    "compile --out": {
        EQUAL: (lambda r: ["compile", r / "c" / "orders.yaml", "--out", r / "c" / "orders.yaml"], CLICK_FILE),
    },
    "lint --output-file": {
        EQUAL: (lambda r: ["lint", r / "c" / "orders.yaml", "--output-file", r / "c" / "orders.yaml"], "is the contract"),
        AROUND: (lambda r: ["lint", r / "c" / "orders.yaml", "--output-file", r / "c"], CLICK_FOLDER),
    },
    "drift --output-file": {
        EQUAL: (lambda r: ["drift", r / "c" / "orders.yaml", "--data", f"orders={r / 'lake' / 'orders.csv'}",
                           "--output-file", r / "lake" / "orders.csv"], "is the data of model `orders`"),
        AROUND: (lambda r: ["drift", r / "c" / "orders.yaml", "--data", f"orders={r / 'lake' / 'orders.csv'}",
                            "--output-file", r / "lake"], CLICK_FOLDER),
    },
    "diff --output-file": {
        EQUAL: (lambda r: ["diff", r / "c" / "orders.yaml", r / "c" / "orders.yaml", "--output-file", r / "c" / "orders.yaml"],
                "is the contract"),
    },
    "history import --into": {
        EQUAL: (lambda r: ["history", "import", r / "h.jsonl", "--into", r / "h.jsonl"], "is the JSON Lines history"),
    },
    "site --out": {
        AROUND: (lambda r: ["site", "--history", r / "site" / "index.html", "--out", r / "site"], "is or lies in"),
        FOREIGN: (lambda r: ["site", "--history", r / "site" / "index.html", "--out", r / "web"], "is not a file of a dc-bridge site"),
    },
}
CELLS = [(writer, relation) for writer, relations in CLI.items() for relation in relations]


def fingerprint(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "folder"
            for p in sorted(root.rglob("*"))}


@pytest.mark.parametrize(("writer", "relation"), CELLS, ids=[f"{w}: {r}" for w, r in CELLS])
def test_every_writer_refuses_every_clash_and_leaves_the_inputs_as_they_were(spark, tmp_path, writer, relation):
    """`spark`: should a refusal not come, the run goes on in the tests' one session (and the cell fails)."""
    project(tmp_path)
    (tmp_path / "web").mkdir()
    (tmp_path / "web" / "index.html").write_text("<title>the team's own page</title>", encoding="utf-8")
    if writer == "site --out":  # the store the site reads, where the site writes its index
        (tmp_path / "site").mkdir()
        from dc_bridge.history import open_store

        open_store(str(tmp_path / "site" / "index.html"))
        shutil.copy(tmp_path / "site" / "index.html", tmp_path / "site" / "store-copy")
    command, word = CLI[writer][relation]
    before = fingerprint(tmp_path)
    result = CliRunner().invoke(main, [str(a) for a in command(tmp_path)], prog_name="dc-bridge")
    assert result.exit_code == 2, result.output
    said = "Invalid value" if word in (CLICK_FOLDER, CLICK_FILE) else "nothing was written"
    assert word in result.output and said in result.output, result.output
    assert "Traceback" not in result.output
    assert fingerprint(tmp_path) == before  # nothing replaced, nothing created


# --- the APIs: Split.write, write_all and the streaming guard, in the tests' one session

API_CONTRACT = """\
apiVersion: v3.0.2
kind: DataContract
id: urn:test:output-rules
version: 1.0.0
status: active
schema:
  - name: orders
    properties:
      - {name: order_id, logicalType: integer, physicalType: bigint, required: true}
"""


def test_the_apis_refuse_every_clash_and_leave_the_inputs_as_they_were(spark, tmp_path):
    import dc_bridge
    from dc_bridge.enforce.outputs import Output, OutputError, write_all

    contract = tmp_path / "c.yaml"
    contract.write_text(API_CONTRACT, encoding="utf-8")
    spark.createDataFrame([(1,), (None,)], "order_id bigint").write.parquet(str(tmp_path / "lake" / "orders"))
    rows = spark.read.parquet(str(tmp_path / "lake" / "orders"))
    data = next((tmp_path / "lake" / "orders").glob("part-*.parquet"))
    lake, out = tmp_path / "lake", tmp_path / "out"
    # (how it is called, the word of its refusal)
    cells = {
        ("Split.write", EQUAL): (lambda s: s.write(valid=str(data), quarantined=str(out / "q"), overwrite=True), "is a path the rows"),
        ("Split.write", INSIDE): (lambda s: s.write(valid=str(lake / "orders" / "v"), quarantined=str(out / "q"), overwrite=True),
                                  "lies inside a path the rows"),
        ("Split.write", AROUND): (lambda s: s.write(valid=f"file://{lake}", quarantined=str(out / "q"), overwrite=True),
                                  "holds a path the rows"),
        ("Split.write", SAME_OUTPUT): (lambda s: s.write(valid=str(out / "v"), quarantined=str(out / "v")), "is quarantined"),
        ("Split.write", NESTED_OUTPUT): (lambda s: s.write(valid=str(out), quarantined=str(out / "q")), "holds quarantined"),
        ("write_all", AROUND): (lambda s: write_all([Output("--valid-output", str(tmp_path / "lake" / ".." / "lake"), rows)],
                                                    "parquet", overwrite=True), "holds a path the rows"),
        ("guard", AROUND): (lambda s: dc_bridge.streaming.guard(contract, "orders", sink=str(lake), log=str(out / "log.jsonl"))(rows, 0),
                            "holds a path the stream reads"),
        ("guard", SAME_OUTPUT): (lambda s: dc_bridge.streaming.guard(contract, "orders", sink=str(out), log=str(out)), "is log="),
        ("guard", NESTED_OUTPUT): (lambda s: dc_bridge.streaming.guard(contract, "orders", sink=str(out), on_failure="quarantine",
                                                                       quarantine=str(out / "q"), log=str(tmp_path / "log")),
                                   "holds quarantine="),
    }
    before = fingerprint(tmp_path)
    refused = {}
    for (writer, relation), (call, word) in cells.items():
        result = dc_bridge.split(contract, "orders", rows)
        try:
            call(result)
        except (OutputError, ValueError) as exc:
            refused[writer, relation] = str(exc)
        finally:
            result.release()
        assert fingerprint(tmp_path) == before, (writer, relation)  # the data as it was, no output behind
    assert set(refused) == set(cells), refused
    for cell, (_, word) in cells.items():
        assert word in refused[cell] and "nothing was written" in refused[cell], (cell, refused[cell])
