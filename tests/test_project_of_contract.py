"""Which project a contract belongs to (config.py `contracts_project`, cli/options.py `in_project`; docs/catalogs.md,
"Which project a contract belongs to"): a command run from outside the project, naming the contract by its path,
uses the project's configuration and embedded catalog, found upwards from the contract as linters find theirs, and
says so in one line on stderr; contracts of two projects in one command are refused.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from dc_bridge.cli import main

CONTRACT = """\
apiVersion: v3.1.0
kind: DataContract
id: customers
version: {version}
status: active
schema:
  - name: customers
    physicalName: customers
    properties:
      - name: customer_id
        logicalType: string
        required: true
{more}"""
EMAIL = "      - name: email\n        logicalType: string\n"


def invoke(*args: str):
    return CliRunner().invoke(main, list(args))


@pytest.fixture
def parent(tmp_path, monkeypatch) -> Path:
    """A folder holding the project `proj` (its dc-bridge.toml names the embedded catalog, the namespace and a
    version-bump level of its own) with 1.0.0 registered from inside it; the working directory is the parent."""
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "dc-bridge.toml").write_text('catalog = "iceberg"\nnamespace = "sales"\n[enforcement]\nversion-bump = "strict"\n',
                                         encoding="utf-8")
    (proj / "customers-1.0.0.yaml").write_text(CONTRACT.format(version="1.0.0", more=EMAIL), encoding="utf-8")
    # 1.1.0 drops a column: a breaking change that a minor bump does not cover
    (proj / "customers-1.1.0.yaml").write_text(CONTRACT.format(version="1.1.0", more=""), encoding="utf-8")
    monkeypatch.chdir(proj)
    assert invoke("register", "customers-1.0.0.yaml").exit_code == 0
    monkeypatch.chdir(tmp_path)
    return tmp_path


NOTICE = "note: proj/customers-1.1.0.yaml belongs to the project in {proj} (dc-bridge.toml), not to the working directory's (none)"


def test_commands_from_the_parent_folder_use_the_contracts_project_and_say_so(parent):
    proj = parent / "proj"
    result = invoke("check-version", "--against-registered", "proj/customers-1.1.0.yaml")
    assert result.exit_code == 1, result.output  # judged against the registered 1.0.0, not "nothing registered"
    assert "does not exist" not in result.output
    assert NOTICE.format(proj=proj) in result.stderr, result.stderr
    assert result.stderr.count("note: proj/customers-1.1.0.yaml belongs") == 1
    assert not (parent / ".dc-bridge").exists()  # no catalog made in the working directory
    # the project's level applies from anywhere: `version-bump = "warn"` there makes it a warning
    (proj / "dc-bridge.toml").write_text('catalog = "iceberg"\nnamespace = "sales"\n[enforcement]\nversion-bump = "warn"\n',
                                         encoding="utf-8")
    result = invoke("check-version", "--against-registered", "proj/customers-1.1.0.yaml")
    assert result.exit_code == 0 and "only a warning: enforcement.version-bump = 'warn' in" in result.output, result.output

def test_from_inside_the_project_nothing_is_said(parent, monkeypatch):
    monkeypatch.chdir(parent / "proj")
    result = invoke("check-version", "--against-registered", "customers-1.1.0.yaml")
    assert result.exit_code == 1, result.output
    assert "note:" not in result.stderr


def test_a_project_marked_only_by_its_embedded_catalog_is_found_from_the_contract(parent):
    proj = parent / "proj"
    (proj / "dc-bridge.toml").unlink()
    result = invoke("check-version", "--against-registered", "proj/customers-1.1.0.yaml", "--catalog", "iceberg", "--namespace", "sales")
    assert result.exit_code == 1, result.output
    assert f"belongs to the project in {proj} (its embedded catalog, .dc-bridge/iceberg/catalog.db)" in result.stderr, result.stderr


def test_a_bad_key_in_the_contracts_project_stops_every_command_that_takes_the_contract(parent):
    (parent / "proj" / "dc-bridge.toml").write_text('engines = ["spark"]\nmonitorz = 1\n', encoding="utf-8")
    contract = "proj/customers-1.1.0.yaml"
    for command in (["lint", contract], ["compile", contract, "--check"], ["check-version", "proj/customers-1.0.0.yaml", contract],
                    ["diff", "proj/customers-1.0.0.yaml", contract], ["drift", contract], ["register", contract],
                    ["soda", "config", contract], ["run", contract, "--data", "nowhere.parquet"],
                    ["init", "--from", "nowhere.csv", "--out", "proj/new.yaml"]):
        result = invoke(*command)
        assert result.exit_code == 2, (command, result.output)
        assert f"{parent / 'proj' / 'dc-bridge.toml'}: unknown key `monitorz`" in result.stderr, (command, result.stderr)


def test_contracts_of_two_projects_in_one_command_are_refused_naming_both(parent):
    other = parent / "other"
    other.mkdir()
    (other / "pyproject.toml").write_text('[tool.dc-bridge]\nengines = ["spark"]\n', encoding="utf-8")
    (other / "orders.yaml").write_text(CONTRACT.format(version="1.0.0", more=""), encoding="utf-8")
    for command in (["lint", "proj/customers-1.0.0.yaml", "other/orders.yaml"], ["run", "proj/*.yaml", "other/orders.yaml"]):
        result = invoke(*command)
        assert result.exit_code == 2, (command, result.output)
        assert (f"the contracts belong to different projects (proj/*.yaml in {parent / 'proj'} (dc-bridge.toml); other/orders.yaml "
                f"in {other} (pyproject.toml))" if command[0] == "run" else "the contracts belong to different projects") in result.stderr, \
            (command, result.stderr)
    # one project's contracts together are fine, and from inside the project nothing is said
    result = invoke("lint", "proj/customers-1.0.0.yaml", "proj/customers-1.1.0.yaml")
    assert result.exit_code == 0 and "belong to the project in" in result.stderr, result.output
    result = CliRunner().invoke(main, ["lint", str(parent / "proj" / "customers-1.0.0.yaml")])
    assert result.exit_code == 0 and "belongs to the project" in result.stderr


def test_a_contract_in_no_project_takes_the_working_directorys(tmp_path, monkeypatch):
    (tmp_path / "dc-bridge.toml").write_text("monitorz = 1\n", encoding="utf-8")
    loose = tmp_path.parent / f"{tmp_path.name}-loose"
    loose.mkdir()
    (loose / "c.yaml").write_text(CONTRACT.format(version="1.0.0", more=""), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = invoke("lint", str(loose / "c.yaml"))
    assert result.exit_code == 2 and "unknown key `monitorz`" in result.stderr, result.output
    assert "belongs to the project" not in result.stderr
