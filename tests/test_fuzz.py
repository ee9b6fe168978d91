"""Fuzz the command line with mutated bundled contracts (Hypothesis, bounded).

Each case takes one bundled contract and applies a few mutations a hostile or careless author could
make: a key deleted, renamed (a typo, another case) or retyped; an extreme number; a deeply nested
value; markup and control characters in names and values. `dc-bridge lint` and `dc-bridge compile`
then must end with a message and an exit code in {0, 1, 2}, never a traceback, and write nothing
outside the output folder. No Spark: both commands run before any engine.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dc_bridge.cli import main

ROOT = Path(__file__).resolve().parents[1]
CONTRACTS = sorted(p.name for p in (ROOT / "contracts").glob("*.yaml") if p.name != "common-quality-rules.yaml")
EXTREME_NUMBERS = [float("inf"), float("-inf"), float("nan"), 1e308, -1e308, 10 ** 30, -(10 ** 30), 0, -0.0, 2 ** 63]
HOSTILE_TEXT = ["[/x]", "[bold]x[/bold]", "a\x00b", "\x1b[31mred", "\u202eevil", "../../escape", "..", "", " ", "x" * 5000,
                "{table}", "${column}", "'; DROP TABLE x; --", "<script>alert(1)</script>", "]]>&<"]
RETYPED = [None, [], {}, "text", 7, True, ["a", "b"], {"k": "v"}]
# keys whose values change what runs: most mutations land on one of these
WEIGHTY = {"value", "threshold", "unit", "element", "mustBe", "mustBeLessThan", "mustBeGreaterThan", "mustBeBetween",
           "mustBeGreaterOrEqualTo", "mustBeLessOrEqualTo", "mustBeGreaterThanOrEqualTo", "mustBeLessThanOrEqualTo",
           "minimum", "maximum", "minLength", "maxLength", "pattern", "format", "enum", "query", "name", "id", "type",
           "logicalType", "physicalType", "required", "unique", "primaryKey", "references", "metric", "rule",
           "arguments", "engine", "implementation", "timestampField", "property", "quality", "fields", "properties"}


def _paths(node, prefix=()):
    """Every (path, value) of a YAML document, containers included."""
    yield prefix, node
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, prefix + (key,))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _paths(value, prefix + (index,))


def _set(document, path, value):
    if not path:
        return value
    parent = document
    for step in path[:-1]:
        parent = parent[step]
    parent[path[-1]] = value
    return document


@st.composite
def mutated_contract(draw):
    name = draw(st.sampled_from(CONTRACTS))
    document = yaml.safe_load((ROOT / "contracts" / name).read_text(encoding="utf-8"))
    for _ in range(draw(st.integers(1, 3))):
        places = list(_paths(document))
        weighty = [place for place in places if place[0] and place[0][-1] in WEIGHTY]
        pool = weighty if weighty and draw(st.integers(0, 9)) < 8 else places
        path, value = pool[draw(st.integers(0, len(pool) - 1))]
        mutation = draw(st.sampled_from(["delete", "rename", "retype", "number", "nest", "text", "key_text"]))
        parent = document
        for step in path[:-1]:
            parent = parent[step]
        if mutation == "delete" and path:
            del parent[path[-1]]
        elif mutation == "rename" and path and isinstance(path[-1], str):
            key = path[-1]
            new = draw(st.sampled_from([key.upper(), key.capitalize(), key[:-1], key[1:] + key[0], key + "s"]))
            if new and new not in parent:
                parent[new] = parent.pop(key)
        elif mutation == "retype":
            document = _set(document, path, draw(st.sampled_from(RETYPED)))
        elif mutation == "number":
            document = _set(document, path, draw(st.sampled_from(EXTREME_NUMBERS)))
        elif mutation == "nest":
            depth = draw(st.integers(50, 300))
            nested = value
            for level in range(depth):
                nested = [nested] if level % 2 else {"x": nested}
            document = _set(document, path, nested)
        elif mutation == "text":
            document = _set(document, path, draw(st.sampled_from(HOSTILE_TEXT)))
        elif mutation == "key_text" and isinstance(value, dict):
            value[draw(st.sampled_from(HOSTILE_TEXT))] = draw(st.sampled_from(HOSTILE_TEXT + RETYPED))
        if not isinstance(document, (dict, list)):
            break
    return name, document


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    """A copy of contracts/ (the contracts import and reference each other's files)."""
    folder = tmp_path_factory.mktemp("fuzz") / "contracts"
    shutil.copytree(ROOT / "contracts", folder)
    return folder


def _snapshot(folder: Path, skip: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in folder.parent.rglob("*") if p.is_file() and skip not in p.parents}


CASES = 80


@settings(max_examples=CASES, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(case=mutated_contract())
def test_mutated_contracts_end_with_a_message(workspace, case):
    name, document = case
    contract = workspace / f"fuzzed-{name}"
    out = workspace.parent / "out"
    try:
        text = yaml.safe_dump(document, allow_unicode=True, sort_keys=False, width=10_000)
    except (yaml.YAMLError, RecursionError):
        return  # not writable as YAML: not an input a user can give
    contract.write_text(text, encoding="utf-8")
    before = _snapshot(workspace, out)
    runner = CliRunner()
    for args in (["lint", str(contract)], ["compile", str(contract), "--out", str(out)]):
        result = runner.invoke(main, args)
        shown = f"{args[0]} of {name}, mutated:\n{text[:3000]}\n---\n{result.output[-3000:]}"
        assert not (result.exception and not isinstance(result.exception, SystemExit)), \
            f"{shown}\n{type(result.exception).__name__}: {str(result.exception)[:500]}"
        assert result.exit_code in (0, 1, 2), shown
        assert "Traceback" not in result.output, shown
    after = _snapshot(workspace, out)
    changed = sorted(p for p in after if after[p] != before.get(p) and p != str(contract))
    assert changed == [], f"files outside the output folder changed: {changed}"
