"""One renderer for a `Threshold` in every syntax that writes one, and its negation.

A syntax is a small table (in the manner of sqlglot's dialect mappings): templates for a comparison,
a range and an excluded range, the operator spellings that differ from the model's, and how a number
is written. Each table lives with the code that writes that syntax (Spark SQL in engines/gx, SodaCL in
engines/soda, the verdict's `expected` text in verdict.py, the words of `dc-bridge diff` in
contract/evolution/diff.py), since its number format is that code's own; `render` knows no syntax.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from dc_bridge.contract.model import Threshold, ThresholdOperator, Unit


@dataclass(frozen=True)
class Syntax:
    """Templates over the fields `subject` (what is compared, where the syntax names it), `op`, `value`,
    `low`, `high`, `left`/`right` (`[`/`(`, `]`/`)` by inclusiveness), `low_op`/`high_op`
    (`>=`/`>`, `<=`/`<` by inclusiveness) and `unit` (`%` for a percent, else empty).
    `not_between` wraps the text of `between` as `{between}`."""

    compare: str
    between: str
    not_between: str
    number: Callable[[Any], str] = str
    operators: Mapping[str, str] = field(default_factory=dict)


def render(t: Threshold, syntax: Syntax, unit: Unit = "rows", subject: str = "") -> str:
    """The threshold in `syntax`: `unit` is the metric's, `subject` what a syntax that names it compares (SQL's `v`)."""
    fields = {"subject": subject, "unit": "%" if unit == "percent" else ""}
    if t.operator in ("between", "not_between"):
        inside = syntax.between.format(
            low=syntax.number(t.low), high=syntax.number(t.high),
            left="[" if t.low_inclusive else "(", right="]" if t.high_inclusive else ")",
            low_op=">=" if t.low_inclusive else ">", high_op="<=" if t.high_inclusive else "<", **fields)
        return inside if t.operator == "between" else syntax.not_between.format(between=inside)
    return syntax.compare.format(op=syntax.operators.get(t.operator, t.operator), value=syntax.number(t.value), **fields)


def upper_bound(t: Threshold | None) -> float | None:
    """The bound of a `<` or `<=` threshold (a freshness SLA's age), None for any other."""
    return float(t.value) if t is not None and t.operator in ("<", "<=") and t.value is not None else None


# each operator and the one that holds exactly where it does not
NEGATED: dict[ThresholdOperator, ThresholdOperator] = {
    "=": "!=", "!=": "=", ">": "<=", ">=": "<", "<": ">=", "<=": ">", "between": "not_between", "not_between": "between",
}


def negate(t: Threshold) -> Threshold:
    return t.model_copy(update={"operator": NEGATED[t.operator]})
