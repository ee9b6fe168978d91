"""dc_bridge/contract/lint/gx_catalog.py names the expectation types of the installed GX 1.x.

Lint checks a custom GX check's `type` against `gx_catalog.EXPECTATION_TYPES` without importing GX
(that takes seconds). This test imports GX and reads its own expectation registry, so an upgrade
that adds, renames or drops an expectation fails here with the names that differ. No Spark session
is started: GX registers its expectations when their classes are imported.
"""

from __future__ import annotations

import os

import pytest

from dc_bridge.contract.lint.gx_catalog import EXPECTATION_TYPES, to_snake_case


@pytest.fixture(scope="module")
def gx_expectations() -> dict[str, type]:
    """Expectation type -> class, for every expectation GX itself ships (its registry fills as the
    classes are imported; expectations registered by anyone else in this process are left out)."""
    os.environ["GX_ANALYTICS_ENABLED"] = "false"  # as engines/gx/run.py does before GX is imported
    from great_expectations.expectations import registry

    registry.register_core_expectations()
    found = {name: registry.get_expectation_impl(name) for name in registry.list_registered_expectation_implementations()}
    return {name: cls for name, cls in found.items() if cls.__module__.startswith("great_expectations.")}


def test_the_catalog_lists_exactly_the_expectations_of_the_installed_gx(gx_expectations):
    import great_expectations

    assert gx_expectations, "GX's expectation registry is empty: the way to read it has changed"
    missing = sorted(set(gx_expectations) - EXPECTATION_TYPES)
    unknown = sorted(EXPECTATION_TYPES - set(gx_expectations))
    assert (missing, unknown) == ([], []), (
        f"dc_bridge/contract/lint/gx_catalog.py is out of date with great_expectations {great_expectations.__version__}: "
        f"missing from EXPECTATION_TYPES: {missing}; not in GX: {unknown}")


def test_a_class_name_is_read_as_the_type_gx_registers_it_under(gx_expectations):
    # lint accepts `ExpectColumnValuesToNotBeNull` as well as `expect_column_values_to_not_be_null`
    wrong = sorted(f"{cls.__name__} -> {to_snake_case(cls.__name__)}, GX: {name}"
                   for name, cls in gx_expectations.items() if to_snake_case(cls.__name__) != name)
    assert wrong == []
