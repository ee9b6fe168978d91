"""Adding a check kind cannot be done halfway: every kind of the registry (plan/checks.KINDS) has an
entry in every engine's translation table and result reading, a row in docs/mapping.md, and a place
in the engine-count tests, and no table has an entry for a kind the registry does not know."""

from __future__ import annotations

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
