"""The native engine's form of each check: how it is evaluated. A row-level kind is a count of its
violating rows in the fused aggregation, by the condition engines/spark_conditions.py holds for it."""

from __future__ import annotations

from typing import Callable

from dc_bridge.engines.engine import Unsupported, from_history, not_executable, unsupported
from dc_bridge.engines.spark_conditions import VIOLATIONS
from dc_bridge.plan.checks import Check


# kind -> how the native engine evaluates it, or why it does not; every kind has an entry (tests/test_kinds.py)
TRANSLATIONS: dict[str, str | Callable[..., Unsupported]] = {
    **{kind: "count in the fused aggregation" for kind in VIOLATIONS},
    "freshness": "max in the fused aggregation",
    "row_count": "rows of the fused aggregation",
    "unique": "grouping",
    "unique_combination": "grouping",
    "foreign_key": "anti join",
    "sql_metric": "query",
    "frequency": "query",
    "column_exists": "schema",
    "column_type": "schema",
    "custom_gx": unsupported("a custom GX check runs in GX only"),
    "custom_soda": unsupported("a custom Soda check runs in Soda only"),
    "availability": from_history,
    "error_rate": from_history,
    "not_executable": not_executable,
}


def translate_check(check: Check, contract_id: str) -> Check | Unsupported:
    """The check itself when the native engine evaluates it (its run reads the params), else why not."""
    how = TRANSLATIONS[check.kind]
    return check if isinstance(how, str) else how(check)
