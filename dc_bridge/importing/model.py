"""What an import reads and what each source check became."""

from __future__ import annotations

from dataclasses import dataclass, field as dataclass_field
from typing import Any, Literal

# mapped: a contract form of its own (a field property, a library metric, a SQL rule);
# custom: an ODCS `type: custom` rule for the source's own engine, which still evaluates it;
# refused: not carried, with the reason (the import exits 1)
Outcome = Literal["mapped", "custom", "refused"]
SOURCES = ("gx", "soda", "dbt")


class ImportInputError(Exception):
    """A source that cannot be read (not a file, not JSON/YAML, not a suite): exit 2. The message names the
    file, the path inside it, what was expected and how to fix it."""


@dataclass(frozen=True)
class SourceCheck:
    """One check as its own tool writes it."""
    source: str            # one of SOURCES
    file: str              # the file it was read from
    location: str          # where in that file (`expectations[3]`, `checks for orders[2]`, `models[0].columns[1].tests[0]`)
    dataset: str           # the table it checks, as the source names it (a suite's asset, a SodaCL dataset, a dbt model)
    text: str              # the check in its own words, one line (`expect_column_values_to_not_be_null(column=id)`)


@dataclass(frozen=True)
class Carried:
    """What one source check became. `properties` are ODCS property keys set on `field` (required, unique,
    logicalType, ...); `rule` an ODCS quality rule (on `field`, or on the model when `field` is None)."""
    check: SourceCheck
    outcome: Outcome
    model: str
    field: str | None = None
    properties: dict[str, Any] = dataclass_field(default_factory=dict)  # (`field` is the name of a field here)
    rule: dict[str, Any] | None = None
    reason: str = ""       # why custom or refused; for mapped, a documented semantic difference if any
