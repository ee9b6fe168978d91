"""Which checks may never show a value: the ones that read a pii or sensitive field.

A field's own checks, and every model-level check that reads its column (primary and composite keys,
`duplicateValues` over properties, foreign keys on either side, service levels, a query or a custom
expectation naming it), are marked `sensitive` in the plan: the samples are never fetched for them, an
engine's own samples are dropped in the fold, and a reason never quotes their values. Marked where the
plan is built, so `compile`, `run` and `fold_gx` / `fold_soda` share it.
"""

from __future__ import annotations

from dataclasses import replace

from dc_bridge.contract.model import Contract, Field
from dc_bridge.contract.sql import query_columns
from dc_bridge.plan.checks import Check, CheckPlan, ForeignKey

# classifications whose values must not appear in reports
SENSITIVE_CLASSIFICATIONS = {"sensitive", "restricted", "confidential", "secret", "pii", "4", "5"}


def is_sensitive(field: Field) -> bool:
    """A field whose values no report may show: `pii: true` (ODCS: a `pii` classification, tag or
    custom property, contract/reading/odcs.py) or a sensitive classification."""
    return field.pii or (field.classification or "").lower() in SENSITIVE_CLASSIFICATIONS


def sensitive_paths(contract: Contract) -> dict[str, set[str]]:
    """model name -> the column paths (lower case) of its pii and sensitive fields: a top-level
    column, or `parent.child` inside structs. A field inside an array or map is the array's or
    map's column, whose values hold it."""
    found: dict[str, set[str]] = {}
    for model in contract.models:
        paths = found.setdefault(model.name, set())
        for field in model.fields:
            for name in {field.physical_name or field.name, field.name}:
                _collect(field, name.lower(), paths)
    return found


def _collect(field: Field, path: str, paths: set[str]) -> None:
    if is_sensitive(field):
        paths.add(path)
    for child in field.fields:
        for name in {child.physical_name or child.name, child.name}:
            _collect(child, f"{path}.{name.lower()}", paths)
    for child in (field.items, field.keys, field.values):
        if child is not None:
            _collect(child, path, paths)


def _touches(columns, paths: set[str]) -> bool:
    """Whether a value of one of `columns` can show a sensitive field's value: the column is one,
    lies inside one, or holds one (a struct around a pii field)."""
    for column_path in (str(c).lower() for c in columns):
        for path in paths:
            if column_path == path or column_path.startswith(path + ".") or path.startswith(column_path + "."):
                return True
    return False


def mark_sensitive(plan: CheckPlan, contract: Contract) -> CheckPlan:
    """`plan` with every check that reads a pii or sensitive column marked `sensitive`: the field's
    own checks, and the model-level ones (primary and composite
    keys, `duplicateValues` over properties, foreign keys, whose orphan keys are values of the
    referenced field as much as of the referencing one, service levels)."""
    paths = sensitive_paths(contract)
    if not any(paths.values()):
        return plan
    anywhere = set().union(*paths.values())
    marked = []
    for check in plan.checks:
        touches = _touches(check.columns, paths.get(check.model, set()))
        if isinstance(check.params, ForeignKey):  # its orphan keys are values of the referenced field too
            touches = touches or _touches(check.params.to_columns, paths.get(check.params.to_model, set()))
        # a query (of this model or joining another) or a custom expectation that names such a column:
        # no samples come from those, but an engine's reason must not quote the value (check.sensitive)
        touches = touches or _touches(_named_columns(check), anywhere)
        marked.append(replace(check, sensitive=True) if touches and not check.sensitive else check)
    return replace(plan, checks=tuple(marked))


def _named_columns(check: Check) -> set[str]:
    """The column names a SQL check's query or a custom GX check's kwargs name."""
    query = getattr(check.params, "query", None)
    if isinstance(query, str):
        return query_columns(query)
    expectation = getattr(check.params, "expectation", None)
    if isinstance(expectation, dict):
        kwargs = expectation.get("kwargs") or {}
        named = [kwargs.get(key) for key in ("column", "column_A", "column_B")]
        named += [name for key in ("column_list", "column_set") for name in (kwargs.get(key) or [])]
        return {str(name) for name in named if name}
    return set()
