"""Adding a check kind cannot be done halfway: every kind of the registry (plan/checks.KINDS) has an
entry in every engine's translation table and result reading, a row in docs/mapping.md, and a place
in the engine-count tests, and no table has an entry for a kind the registry does not know."""

from __future__ import annotations

import ast
import importlib.util
import re
import sys
from pathlib import Path

import pytest

from dc_bridge.engines.gx import run as gx_run
from dc_bridge.engines.gx import translate as gx_translate
from dc_bridge.engines.native import run as native_run
from dc_bridge.engines.native import translate as native_translate
from dc_bridge.engines.registry import ENGINES
from dc_bridge.engines.soda import run as soda_run
from dc_bridge.engines.soda import translate as soda_translate
from dc_bridge.plan.checks import KINDS

ROOT = Path(__file__).resolve().parents[1]
TRANSLATIONS = {"gx": gx_translate.TRANSLATIONS, "soda": soda_translate.TRANSLATIONS, "spark": native_translate.TRANSLATIONS}
# engine -> measure -> how its results are read (a measure no reader knows would be read as something else)
READERS = {"gx": gx_run.READERS, "soda": soda_run.READERS}


def test_every_engine_is_in_the_tables():
    assert set(TRANSLATIONS) == set(ENGINES)
    assert set(READERS) | {"spark"} == set(ENGINES)


@pytest.mark.parametrize("engine", sorted(TRANSLATIONS))
def test_every_kind_has_a_translation_entry(engine):
    table = TRANSLATIONS[engine]
    assert sorted(set(KINDS) - set(table)) == [], f"{engine}: kinds without a translation entry (a function or unsupported(reason))"
    assert sorted(set(table) - set(KINDS)) == [], f"{engine}: entries for kinds the registry does not know"


@pytest.mark.parametrize("engine", sorted(READERS))
def test_every_measure_an_engine_runs_has_a_reader(engine):
    measures = {kind.measure for kind in KINDS.values() if kind.measure != "none"}
    assert sorted(measures - set(READERS[engine])) == [], f"{engine}: measures its results are not read for"


def test_the_native_engine_evaluates_every_kind_it_translates():
    # its translation names how a kind is evaluated; presence and type are judged from the schema
    hows = {how for how in native_translate.TRANSLATIONS.values() if isinstance(how, str)}
    assert sorted(hows - set(native_run.EVALUATIONS) - {"schema"}) == []


def test_every_kind_has_its_params_class_and_a_consistent_definition():
    for name, kind in KINDS.items():
        assert kind.name == name
        assert kind.params.__dataclass_params__.frozen, f"{name}: params must be a frozen dataclass"
        if kind.samples is not None:
            assert kind.measure == "rows", f"{name}: failing values exist only for checks that count violating rows"
        if kind.samples == "failing_rows":
            assert name in native_translate.VIOLATIONS, f"{name}: row-level samples need the native engine's violation condition"


def test_the_partial_kind_tables_name_exactly_their_kinds():
    from dc_bridge import verdict
    from dc_bridge.engines import spark_conditions

    assert set(verdict._HISTORY_SHARES) == {name for name, kind in KINDS.items() if kind.from_history}
    assert sorted(name for name in spark_conditions.VIOLATIONS if name not in KINDS or KINDS[name].measure != "rows") == [], \
        "a violating-row condition for a kind that counts no violating rows"


def _mapping_kinds() -> set[str]:
    """The kinds named in the `check kind` column of docs/mapping.md's table."""
    text = (ROOT / "docs" / "mapping.md").read_text(encoding="utf-8")
    table = text[text.index("## The table"):text.index("## Semantics")]
    found = set()
    for line in table.splitlines():
        cells = line.split("|")
        if len(cells) > 3:
            found |= set(re.findall(r"`([a-z_]+)`", cells[2]))
    return found


def test_every_kind_has_a_row_in_the_mapping_docs():
    documented = _mapping_kinds()
    assert sorted(set(KINDS) - documented) == [], "kinds without a row in docs/mapping.md"
    assert sorted(documented - set(KINDS)) == [], "docs/mapping.md names kinds the registry does not know"


def test_every_kind_an_engine_runs_is_in_the_engine_count_tests():
    counts = importlib.util.spec_from_file_location("engine_counts", ROOT / "tests" / "test_engine_counts.py")
    test_engine_counts = sys.modules.setdefault("engine_counts", importlib.util.module_from_spec(counts))
    counts.loader.exec_module(test_engine_counts)
    evaluated = {name for name, kind in KINDS.items() if kind.measure != "none"}
    assert sorted(evaluated - test_engine_counts.KINDS) == [], "kinds no engine-count test exercises"


# ---------------------------------------------------------------------------------------------
# every question about a kind is asked of the registry: no code outside plan/checks.py names kinds

PACKAGE = ROOT / "dc_bridge"
REGISTRY = PACKAGE / "plan" / "checks.py"
# the tables keyed by kind name, each checked in this file for its kinds (the registry's mapping
# tables): module path -> table names
KIND_TABLES = {
    "engines/gx/translate.py": {"TRANSLATIONS"},
    "engines/soda/translate.py": {"TRANSLATIONS"},
    "engines/native/translate.py": {"TRANSLATIONS"},
    "engines/spark_conditions.py": {"VIOLATIONS"},
    "verdict.py": {"_HISTORY_SHARES"},
    # keyed by ODCS service-level names (contract vocabulary, `ServiceLevel.kind`), some of which a check kind shares
    "plan/build.py": {"_SERVICE_LEVEL_PARAMS"},
    # keyed by SodaCL metric names (Soda's vocabulary: `row_count`, `freshness`), some of which a check kind shares
    "importing/soda.py": {"METRICS"},
    # keyed by dbt's test and constraint names (dbt's vocabulary: `unique`, `not_null`), some of which a check kind shares
    "importing/dbt.py": {"TESTS", "CONSTRAINT_PROPERTIES"},
}
# contract/ is below plan/ and knows no check kind: its `freshness`, `availability` are the standards'
# service-level names (`ServiceLevel.kind`), which plan/build.py maps to check kinds
CONTRACT = "contract/"


def _names_a_kind(node: ast.AST) -> bool:
    """A kind as code holds it: `check.kind`, `verdict.kind`, `kind_of(check).name`, `KINDS[x].name`, a variable `kind`."""
    if isinstance(node, ast.Attribute):
        return node.attr == "kind" or (node.attr == "name" and (_names_a_kind(node.value) or _is_kind(node.value)))
    return isinstance(node, ast.Name) and "kind" in node.id.lower()


def _is_kind(node: ast.AST) -> bool:
    """A `Kind`: `kind_of(check)`, `KINDS[name]`."""
    if isinstance(node, ast.Call):
        return isinstance(node.func, ast.Name) and node.func.id == "kind_of"
    return isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "KINDS"


def _kind_literals(node: ast.AST) -> list[str]:
    """The kind names written as string literals in `node` (a literal, or a tuple, list or set of them)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value] if node.value in KINDS else []
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [name for element in node.elts for name in _kind_literals(element)]
    return []


def kind_literals(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, what) for each place that answers a kind question with kind names written out."""
    found: list[tuple[int, str]] = []
    tables = set()
    for statement in getattr(tree, "body", []):  # module-level tables keyed by kind name: judged by the caller
        if isinstance(statement, (ast.Assign, ast.AnnAssign)) and isinstance(statement.value, ast.Dict):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            tables |= {(target.id, id(statement.value)) for target in targets if isinstance(target, ast.Name)}
    table_nodes = {node_id: name for name, node_id in tables}
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(_names_a_kind(side) for side in sides) and any(_kind_literals(side) for side in sides):
                found.append((node.lineno, f"compares a kind with {sorted(n for side in sides for n in _kind_literals(side))}"))
        elif isinstance(node, (ast.Tuple, ast.List, ast.Set)) and len(set(_kind_literals(node))) >= 2:
            found.append((node.lineno, f"lists kinds {sorted(set(_kind_literals(node)))}"))
        elif isinstance(node, ast.Dict):
            keyed = sorted({name for key in node.keys if key is not None for name in _kind_literals(key)})
            if len(keyed) >= 2 and id(node) not in table_nodes:
                found.append((node.lineno, f"a table keyed by kinds {keyed}"))
            elif len(keyed) >= 2:
                found.append((node.lineno, f"table {table_nodes[id(node)]}"))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("startswith", "endswith") \
                and _names_a_kind(node.func.value) and any(isinstance(a, ast.Constant) and isinstance(a.value, str) and any(
                    getattr(name, node.func.attr)(a.value) for name in KINDS) for a in node.args):
            found.append((node.lineno, f"asks a kind's name `.{node.func.attr}(...)`"))
        elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Dict) and _names_a_kind(node.slice):
            found.append((node.lineno, "looks a kind up in a literal table"))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" \
                and isinstance(node.func.value, ast.Dict) and node.args and _names_a_kind(node.args[0]):
            found.append((node.lineno, "looks a kind up in a literal table"))
        elif isinstance(node, ast.Match) and _names_a_kind(node.subject):
            found.append((node.lineno, "matches a kind against patterns"))
    return found


def test_no_code_outside_the_registry_names_kinds():
    """A kind question (is it time-based, is it a query, which kinds have key samples) asked with
    `check.kind == "freshness"` or `kind in ("a", "b")` goes stale when a kind is added (`frequency`
    did); it is asked of the kind's `Kind` (plan/checks.py) instead. Tables keyed by every kind
    (each engine's TRANSLATIONS) are the registry's own mapping tables, checked for completeness above."""
    found = []
    for file in sorted(PACKAGE.rglob("*.py")):
        relative = file.relative_to(PACKAGE).as_posix()
        if file == REGISTRY or relative.startswith(CONTRACT):
            continue
        for line, what in kind_literals(ast.parse(file.read_text(encoding="utf-8"), filename=str(file))):
            table = what.removeprefix("table ")
            if what.startswith("table ") and table in KIND_TABLES.get(relative, set()):
                continue
            found.append(f"dc_bridge/{relative}:{line}: {what}")
    assert found == [], "kind questions answered by kind names instead of the registry:\n" + "\n".join(found)


def test_the_kind_literal_check_sees_each_form():
    source = """
if check.kind == "freshness": pass
if check.kind in ("sql_metric", "frequency"): pass
_KEY = ("unique", "unique_combination")
if kind_of(check).name != "regex": pass
x = {"latency": 1, "retention": 2}[check.kind]
y = {"latency": 1}.get(check.kind)
if check.kind.startswith("custom"): pass
if level.kind == "timeOfAvailability": pass
if kind.startswith("expect_column"): pass
if outcome == "not_executable": pass
if kind_of(check).measure == "rows": pass
"""
    assert sorted({line for line, _ in kind_literals(ast.parse(source))}) == [2, 3, 4, 5, 6, 7, 8]


def test_row_level_kinds_are_exactly_those_a_row_can_be_judged_by():
    # a row is judged by its own violating condition, or by its key against other rows (dc_bridge/enforce)
    from dc_bridge.engines import spark_conditions
    from dc_bridge.enforce.scope import KEYED

    judged = {name for name, kind in KINDS.items() if name in spark_conditions.VIOLATIONS or kind.samples in KEYED}
    assert sorted(name for name, kind in KINDS.items() if kind.row_level) == sorted(judged)
