"""The check IR: what a contract asserts, engine-neutral.

A `Check` carries the parts every check has (id, model, columns, threshold, severity, source) and a
kind-specific `params` node. Each params class is one check kind; the translators are mapping
tables from params class to engine form. DESIGN.md section 3 is the meaning of each kind.

Count semantics, shared by every engine: `observed` is the number of rows that violate the check
(or, for `row_count`, `sql_metric` and `freshness`, the measured value); `unit: percent` divides a
row count by the model's row count. The threshold is judged on that number, in one place
(`Threshold.holds`), so no engine's own notion of success decides a verdict.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, Literal, Union

from dc_bridge.contract.model import Source, Threshold

Severity = Literal["error", "warning", "info"]
Unit = Literal["rows", "percent"]

# no violating rows allowed: the threshold of every constraint that a field states directly
NONE_ALLOWED = Threshold(operator="=", value=0)


@dataclass(frozen=True)
class NotNull:
    """Rows whose value is null, or one of `missing_values` (ODCS missingValues)."""
    missing_values: tuple[Any, ...] = ()


@dataclass(frozen=True)
class Unique:
    """Rows whose non-null value (or combination, when several columns) occurs more than once."""


@dataclass(frozen=True)
class Regex:
    """Non-null rows that do not match `pattern` (a search, anchored only by ^/$). `format` names a
    standard format when the pattern came from one."""
    pattern: str
    format: str | None = None


@dataclass(frozen=True)
class InSet:
    """Non-null rows whose value is not in `values`."""
    values: tuple[Any, ...]


@dataclass(frozen=True)
class LengthBetween:
    """Non-null rows whose string length is outside [min_length, max_length]."""
    min_length: int | None = None
    max_length: int | None = None


@dataclass(frozen=True)
class ValueBetween:
    """Non-null rows outside the range; `strict_*` excludes the bound itself."""
    min_value: float | int | str | None = None
    max_value: float | int | str | None = None
    strict_min: bool = False
    strict_max: bool = False


@dataclass(frozen=True)
class RowCount:
    """The number of rows (observed value, judged by the threshold)."""


@dataclass(frozen=True)
class ColumnExists:
    """The column is present."""


@dataclass(frozen=True)
class ColumnType:
    """The column's Spark type is `spark_type` (exact) or one of `compatible` (logical types)."""
    spark_type: str
    exact: bool
    compatible: tuple[str, ...] = ()


@dataclass(frozen=True)
class SqlMetric:
    """A query returning one value, judged by the threshold. `query` has placeholders filled with
    `{table}` / `{column}` markers that each engine replaces with its own table reference."""
    query: str


@dataclass(frozen=True)
class Freshness:
    """Age of the newest row, in seconds (now minus max(column)), at most `max_age`."""
    max_age: timedelta


@dataclass(frozen=True)
class Latency:
    """Rows whose processed timestamp (the check's column) is more than `max_latency` after `source_column`."""
    source_column: str
    max_latency: timedelta


@dataclass(frozen=True)
class Retention:
    """Rows older than `period` (the table keeps no data beyond its retention period)."""
    period: timedelta


@dataclass(frozen=True)
class ForeignKey:
    """Rows whose non-null key has no match in `to_model`.`to_columns` (composite when several)."""
    to_model: str
    to_columns: tuple[str, ...]


@dataclass(frozen=True)
class CustomGx:
    """A GX 1.x expectation run verbatim: `{"type": ..., "kwargs": {...}, "meta": {...}}`."""
    expectation: dict


@dataclass(frozen=True)
class CustomSoda:
    """SodaCL run verbatim: check lines for the model's `checks for` block."""
    sodacl: tuple[Any, ...]


@dataclass(frozen=True)
class NotExecutable:
    """An element that produces no engine check (a `text` rule, an unknown engine); kept so the
    verdict accounts for it."""
    reason: str


Params = Union[NotNull, Unique, Regex, InSet, LengthBetween, ValueBetween, RowCount, ColumnExists, ColumnType,
               SqlMetric, Freshness, Latency, Retention, ForeignKey, CustomGx, CustomSoda, NotExecutable]

# params class -> kind name, the closed set of DESIGN.md section 2
KINDS: dict[type, str] = {
    NotNull: "not_null", Unique: "unique", Regex: "regex", InSet: "in_set", LengthBetween: "length_between",
    ValueBetween: "value_between", RowCount: "row_count", ColumnExists: "column_exists", ColumnType: "column_type",
    SqlMetric: "sql_metric", Freshness: "freshness", Latency: "latency", Retention: "retention",
    ForeignKey: "foreign_key", CustomGx: "custom_gx", CustomSoda: "custom_soda", NotExecutable: "not_executable",
}


@dataclass(frozen=True)
class Check:
    id: str
    model: str
    columns: tuple[str, ...]
    params: Params
    source: Source
    threshold: Threshold | None = NONE_ALLOWED
    unit: Unit = "rows"
    severity: Severity = "error"
    dimension: str | None = None
    description: str | None = None
    # fields marked pii or with a sensitive classification: engines return no sample values
    sensitive: bool = False

    @property
    def kind(self) -> str:
        if isinstance(self.params, Unique) and len(self.columns) > 1:
            return "unique_combination"
        return KINDS[type(self.params)]

    @property
    def column(self) -> str | None:
        return self.columns[0] if len(self.columns) == 1 else None


@dataclass(frozen=True)
class CheckPlan:
    contract_id: str
    contract_version: str
    checks: tuple[Check, ...]
    models: tuple[str, ...] = field(default=())

    def for_model(self, model: str) -> list[Check]:
        return [c for c in self.checks if c.model == model]
