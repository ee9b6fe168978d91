"""First-contact items of issue 48 (class 7), each as a new user meets it on the command line. No Spark: every run
here stops before its data.

- the missing-data hint of a run of several contracts does not suggest `--data`, which such a run refuses;
- `run --enforce monitors=LEVEL` is taken (as `lint --enforce` is) and applied; a validator a run does not read is
  refused with the command that reads it;
- `run --help` names the OORS version the report writes."""

from __future__ import annotations

from click.testing import CliRunner

from dc_bridge.cli import main
from dc_bridge.report.oors import OORS_VERSION

CONTRACT = """\
apiVersion: v3.1.0
kind: DataContract
id: {id}
version: 1.0.0
status: active
servers:
  - {{server: local, type: local, format: csv, path: gone-{id}.csv}}
schema:
  - name: things
    properties:
      - {{name: id, logicalType: integer}}
"""


def contracts(folder, *ids: str) -> list[str]:
    for contract_id in ids:
        (folder / f"{contract_id}.yaml").write_text(CONTRACT.format(id=contract_id), encoding="utf-8")
    return [f"{contract_id}.yaml" for contract_id in ids]


def test_the_missing_data_hint_offers_what_the_run_takes(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    alone = CliRunner().invoke(main, ["run", *contracts(tmp_path, "a")])
    assert alone.exit_code == 2 and "pass --data things=PATH to read it from elsewhere" in alone.output, alone.output
    several = CliRunner().invoke(main, ["run", *contracts(tmp_path, "a", "b")])
    assert several.exit_code == 2, several.output
    assert "gone-a.csv does not exist" in several.output and "gone-b.csv does not exist" in several.output
    assert "pass --data" not in several.output
    assert several.output.count("run this contract on its own with --data things=PATH") == 2
    # and what it offers is what the command takes: --data with one contract
    refused = CliRunner().invoke(main, ["run", "a.yaml", "b.yaml", "--data", "things=x.csv"])
    assert refused.exit_code == 2 and "--data belongs to one contract" in refused.output


def test_run_takes_the_monitors_level_as_lint_takes_its_validators(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    [file] = contracts(tmp_path, "a")
    note = "monitors need a history store"
    # a JSON Lines history has no series: at the default level a run says so once; off, it says nothing
    default = CliRunner().invoke(main, ["run", file, "--history", "h.jsonl"])
    assert default.exit_code == 2 and note in default.output, default.output
    off = CliRunner().invoke(main, ["run", file, "--history", "h.jsonl", "--enforce", "monitors=off"])
    assert off.exit_code == 2 and note not in off.output and "gone-a.csv does not exist" in off.output, off.output
    for given, said in {"schema=off": "`schema` sets what lint, check-version, drift and register report, never what a run accepts",
                        "monitors=loud": "unknown level 'loud'", "monitor=warn": "did you mean `monitors`?"}.items():
        result = CliRunner().invoke(main, ["run", file, "--enforce", given])
        assert result.exit_code == 2 and said in result.output, (given, result.output)


def test_run_help_names_the_oors_version_it_writes():
    text = " ".join(CliRunner().invoke(main, ["run", "--help"]).output.split())
    assert f"apiVersion {OORS_VERSION}" in text and "v0.8" not in text
