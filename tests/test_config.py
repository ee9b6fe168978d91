"""Project configuration (dc_bridge/config.py): `[tool.dc-bridge]` in pyproject.toml or a dc-bridge.toml,
found from the working directory upwards, and the enforcement level of each validator.

The table test runs each validator's command on a contract it finds an error in, once per level:
`off` skips the validator (exit 0, nothing reported), `warn` reports the error as a warning (exit 0),
`strict` fails (exit 1), as docs/catalogs.md documents.
"""

from __future__ import annotations

import json
from pathlib import Path
from textwrap import dedent

import pytest
from click.testing import CliRunner

from dc_bridge import config
from dc_bridge.cli import main

ODCS = """\
apiVersion: v3.1.0
kind: DataContract
id: {id}
name: {id}
version: {version}
status: active
{extends}schema:
  - name: orders
    physicalName: orders
    properties:
      - name: order_id
        logicalType: {type}
        required: true
{more}"""


def odcs(id="orders", version="1.0.0", type="string", extends="", more="") -> str:
    parents = f"customProperties:\n  - property: x-dc-bridge-extends\n    value: [{extends}]\n" if extends else ""
    return ODCS.format(id=id, version=version, type=type, extends=parents, more=more)


AMOUNT = "      - name: amount\n        logicalType: integer\n"
FRESHNESS = "slaProperties:\n  - {{property: freshness, value: {value}, element: orders.updated_at}}\n"
UPDATED = "      - name: updated_at\n        logicalType: timestamp\n"


def _schema(tmp_path: Path) -> list[str]:
    (tmp_path / "contract.yaml").write_text(odcs(type="strng"), encoding="utf-8")  # DCB110
    return ["lint", "contract.yaml"]


def _inheritance(tmp_path: Path) -> list[str]:
    (tmp_path / "parent.yaml").write_text(odcs(id="parent", more=UPDATED + FRESHNESS.format(value="PT6H")), encoding="utf-8")
    (tmp_path / "contract.yaml").write_text(odcs(extends="parent.yaml", more=UPDATED + FRESHNESS.format(value="PT12H")),
                                            encoding="utf-8")  # DCB240
    return ["lint", "contract.yaml"]


def _version_bump(tmp_path: Path) -> list[str]:
    (tmp_path / "old.yaml").write_text(odcs(more=AMOUNT), encoding="utf-8")
    (tmp_path / "new.yaml").write_text(odcs(version="1.0.1"), encoding="utf-8")  # a field removed in a PATCH: DCB230
    return ["check-version", "old.yaml", "new.yaml"]


def _drift(tmp_path: Path) -> list[str]:
    # a JSON file Spark reads with a schema of its own: order_id is a number where the contract says string (DCB301)
    (tmp_path / "orders.json").write_text('{"order_id": 1}\n', encoding="utf-8")
    (tmp_path / "contract.yaml").write_text(odcs(), encoding="utf-8")
    return ["drift", "contract.yaml", "--data", f"orders={tmp_path / 'orders.json'}:json"]  # absolute: the JVM keeps the folder it started in


# validator -> (how to make its command find one error, the code it reports)
VALIDATOR_CASES = {
    "schema": (_schema, "DCB110"),
    "inheritance": (_inheritance, "DCB240"),
    "version-bump": (_version_bump, "DCB230"),
    "drift": (_drift, "DCB301"),
}
# level -> (exit code, how the error is reported: as an error, a warning, or not at all)
LEVEL_OUTCOMES = {"strict": (1, "error"), "warn": (0, "warning"), "off": (0, None)}


def invoke(args: list[str]):
    return CliRunner().invoke(main, args)


@pytest.mark.parametrize("level", sorted(LEVEL_OUTCOMES))
@pytest.mark.parametrize("validator", sorted(VALIDATOR_CASES))
def test_each_level_changes_the_exit_code_as_documented(tmp_path, monkeypatch, validator, level):
    monkeypatch.chdir(tmp_path)
    setup, code = VALIDATOR_CASES[validator]
    args = setup(tmp_path)
    (tmp_path / "dc-bridge.toml").write_text(f'[enforcement]\n{validator} = "{level}"\n', encoding="utf-8")
    result = invoke(args)
    exit_code, reported = LEVEL_OUTCOMES[level]
    assert result.exit_code == exit_code, result.output
    if reported:
        assert f"{reported} {code}" in result.output
    else:
        assert code not in result.output
        assert "skipped" in result.output or validator in ("schema", "inheritance")


# registration's level decides what an unreachable catalog does to `register` (it has no finding code): exit code, what is said
REGISTRATION_OUTCOMES = {"strict": (1, "error: the catalog cannot be reached"), "warn": (0, "warning: the catalog cannot be reached"),
                         "off": (0, "dc-bridge register: skipped (enforcement.registration = 'off'")}


@pytest.mark.parametrize("level", sorted(REGISTRATION_OUTCOMES))
def test_each_registration_level_changes_the_exit_code_as_documented(tmp_path, monkeypatch, level):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PYICEBERG_CATALOG__DOWN__URI", "http://127.0.0.1:9")  # a REST catalog nobody serves
    (tmp_path / "contract.yaml").write_text(odcs(), encoding="utf-8")
    (tmp_path / "dc-bridge.toml").write_text(f'[enforcement]\nregistration = "{level}"\n', encoding="utf-8")
    result = invoke(["register", "contract.yaml", "--catalog", "iceberg:down", "--namespace", "sales"])
    exit_code, said = REGISTRATION_OUTCOMES[level]
    assert result.exit_code == exit_code, result.output
    assert said in result.output


@pytest.mark.parametrize("validator", sorted(VALIDATOR_CASES))
def test_the_command_line_wins_over_the_file(tmp_path, monkeypatch, validator):
    monkeypatch.chdir(tmp_path)
    setup, code = VALIDATOR_CASES[validator]
    args = setup(tmp_path)
    (tmp_path / "dc-bridge.toml").write_text(f'[enforcement]\n{validator} = "off"\n', encoding="utf-8")
    result = invoke(args + ["--enforce", f"{validator}=strict"])
    assert result.exit_code == 1, result.output
    assert f"error {code}" in result.output


def test_no_file_keeps_every_validator_strict(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert invoke(_schema(tmp_path)).exit_code == 1
    assert config.load(tmp_path) == config.Settings()


def test_pyproject_table_is_found_from_a_subfolder(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text(dedent("""\
        [project]
        name = "sales"
        [tool.dc-bridge]
        engines = ["spark"]
        catalog = "iceberg:lake"
        namespace = "sales.customer_360"
        [tool.dc-bridge.enforcement]
        drift = "warn"
        [tool.dc-bridge.drift]
        extra-columns = "error"
        [tool.dc-bridge.inheritance]
        mode = "parents"
        """), encoding="utf-8")
    (tmp_path / "contracts").mkdir()
    settings = config.load(tmp_path / "contracts")
    assert settings == config.Settings(levels={**config.DEFAULT_LEVELS, "drift": "warn"}, extra_columns="error",
                                       inheritance_mode="parents", catalog="iceberg:lake", namespace="sales.customer_360",
                                       engines=("spark",), file=str(tmp_path / "pyproject.toml"))


def test_a_pyproject_without_the_table_is_passed_over(tmp_path):
    (tmp_path / "dc-bridge.toml").write_text('[enforcement]\nschema = "warn"\n', encoding="utf-8")
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "pyproject.toml").write_text('[project]\nname = "app"\n', encoding="utf-8")
    assert config.load(tmp_path / "app").level("schema") == "warn"


# the file's text -> what the error must say: the file, the key and the closest valid word
UNKNOWN = [
    ('[enforcment]\nschema = "warn"\n', ["unknown key `enforcment`", "did you mean `enforcement`?"]),
    ('[enforcement]\nversion_bump = "warn"\n', ["unknown key `enforcement.version_bump`", "did you mean `version-bump`?"]),
    ('[enforcement]\ndrift = "strikt"\n', ["`enforcement.drift` cannot be 'strikt'", "did you mean `strict`?"]),
    ('[drift]\nextra-columns = "errors"\n', ["`drift.extra-columns` cannot be 'errors'", "did you mean `error`?"]),
    ('engines = ["gx", "sodaa"]\n', ["`engines` cannot be 'sodaa'", "did you mean `soda`?"]),
    ('[inheritance]\nmode = "parent"\n', ["`inheritance.mode` cannot be 'parent'", "did you mean `parents`?"]),
    # a monitor setting is refused as any other: infinite (NaN cannot be written in TOML), a metric no run records,
    # one floor for every unit, a floor of a metric no run records
    ('[monitors]\nsensitivity = inf\n', ["`monitors.sensitivity` must be a number above 0, not inf"]),
    ('[monitors]\nmin-band-relative = inf\n', ["`monitors.min-band-relative` must be a number of at least 0, not inf"]),
    ('[monitors]\nmetrics = ["rows", "null_fraction"]\n', ["`monitors.metrics` cannot be 'null_fraction'", "rows, slice_rows, freshness_age"]),
    ('[monitors]\nmin-band-absolute = 1.0\n', ["`monitors.min-band-absolute` must be a table of metric names", "freshness_age = 900"]),
    ('[monitors]\nmin-band-absolute = {rowz = 1}\n', ["`monitors.min-band-absolute` cannot hold 'rowz'", "did you mean `rows`?"]),
    ('[monitors]\nmin-band-absolute = {rows = -1}\n', ["`monitors.min-band-absolute.rows` must be a number of at least 0, not -1"]),
    # refused when the file is read (by lint too), not first by the run that needs the band
    ('[monitors]\nwarm-up = 90\n', ["`monitors.lookback` (60) is shorter than `monitors.warm-up` (90)"]),
]


@pytest.mark.parametrize(("text", "said"), UNKNOWN, ids=[s[0] for s, _ in UNKNOWN])
def test_unknown_keys_and_values_are_refused_with_the_closest_valid_one(tmp_path, monkeypatch, text, said):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "dc-bridge.toml").write_text(text, encoding="utf-8")
    args = _schema(tmp_path)
    result = invoke(args)
    assert result.exit_code == 2, result.output
    assert f"{tmp_path / 'dc-bridge.toml'}: " in result.output
    for part in said:
        assert part in result.output


def test_pyproject_keys_are_named_with_their_table(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.dc-bridge]\ncatalogue = "spark"\n', encoding="utf-8")
    with pytest.raises(config.ConfigError, match=r"unknown key `tool.dc-bridge.catalogue`; did you mean `catalog`\?"):
        config.load(tmp_path)


def test_unknown_enforce_option_is_a_usage_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = invoke(_schema(tmp_path) + ["--enforce", "drfit=warn"])
    assert result.exit_code == 2
    assert "unknown validator 'drfit'; did you mean `drift`?" in result.output


def test_the_monitors_level_is_no_enforce_option_but_runs(tmp_path, monkeypatch):
    """Only `run` runs monitors: `lint --enforce monitors=strict` would be accepted and do nothing, so it points to run."""
    monkeypatch.chdir(tmp_path)
    result = invoke(_schema(tmp_path) + ["--enforce", "monitors=strict"])
    assert result.exit_code == 2
    assert "this command runs no monitors" in result.output and "dc-bridge run --enforce monitors=LEVEL" in result.output


def test_extra_columns_error_from_the_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "orders.json").write_text('{"order_id": "A1", "note": "x"}\n', encoding="utf-8")
    (tmp_path / "contract.yaml").write_text(odcs(), encoding="utf-8")
    args = ["drift", "contract.yaml", "--data", f"orders={tmp_path / 'orders.json'}:json", "--format", "json"]
    assert [f["severity"] for f in json.loads(invoke(args).output)["findings"]] == ["info"]
    (tmp_path / "dc-bridge.toml").write_text('[drift]\nextra-columns = "error"\n', encoding="utf-8")
    result = invoke(args)
    assert result.exit_code == 1
    assert [(f["code"], f["severity"]) for f in json.loads(result.output)["findings"]] == [("DCB302", "error")]


def test_inheritance_mode_parents_compares_with_the_named_parents_only(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "enterprise.yaml").write_text(odcs(id="enterprise", more=UPDATED + FRESHNESS.format(value="PT6H")), encoding="utf-8")
    (tmp_path / "domain.yaml").write_text(odcs(id="domain", extends="enterprise.yaml", more=UPDATED), encoding="utf-8")
    (tmp_path / "contract.yaml").write_text(odcs(extends="domain.yaml", more=UPDATED + FRESHNESS.format(value="PT12H")),
                                            encoding="utf-8")
    assert "DCB240" in invoke(["lint", "contract.yaml"]).output  # ancestors: the enterprise's PT6H reaches the product
    (tmp_path / "dc-bridge.toml").write_text('[inheritance]\nmode = "parents"\n', encoding="utf-8")
    result = invoke(["lint", "contract.yaml"])
    assert result.exit_code == 0 and "DCB240" not in result.output, result.output


def test_run_takes_its_engines_from_the_project(tmp_path, monkeypatch):
    from dc_bridge.cli.options import default_engines

    monkeypatch.chdir(tmp_path)
    assert default_engines() == "gx,soda"
    (tmp_path / "dc-bridge.toml").write_text('engines = ["spark"]\n', encoding="utf-8")
    with config.using(config.load()):  # the settings `run` puts in effect (cli/options.py in_project)
        assert default_engines() == "spark"
    (tmp_path / "orders.json").write_text('{"order_id": "A1"}\n', encoding="utf-8")
    (tmp_path / "contract.yaml").write_text(odcs(), encoding="utf-8")
    result = invoke(["run", "contract.yaml", "--data", f"orders={tmp_path / 'orders.json'}:json", "--output", "json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output[result.output.index("{"):])["engines"] == ["spark"]
