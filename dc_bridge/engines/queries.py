"""SQL that more than one engine's translation writes the same way: the query of a foreign key, a
number as exact SQL text."""

from __future__ import annotations

from decimal import Decimal

from dc_bridge.contract.sql import quote_identifier, view_name
from dc_bridge.plan import checks as c
from dc_bridge.plan.checks import Check


def foreign_key_query(check: Check, p: c.ForeignKey, contract_id: str, table: str) -> str:
    """Rows of `table` whose non-null key has no match in the referenced model's view."""
    target = view_name(contract_id, p.to_model)
    on = " AND ".join(f"c.{quote_identifier(a)} = p.{quote_identifier(b)}" for a, b in zip(check.columns, p.to_columns))
    not_null = " AND ".join(f"c.{quote_identifier(a)} IS NOT NULL" for a in check.columns)
    return f"SELECT c.* FROM {table} AS c LEFT ANTI JOIN {target} AS p ON {on} WHERE {not_null}"


def number_text(value) -> str:
    """A number as exact SQL / SodaCL text without an exponent: `5`, `0.5`, `31536000.0`, `0.00001`
    (`:g` alone keeps 6 digits, and SodaCL takes no `1e-05`)."""
    if isinstance(value, float):
        text = f"{value:g}"
        return text if "e" not in text and float(text) == value else format(Decimal(repr(value)), "f")
    return str(value)
