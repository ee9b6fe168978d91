"""The check IR: what a contract asserts, engine-neutral.

A `Check` carries the parts every check has (id, model, columns, threshold, severity, source) and a
kind-specific `params` node. Each params class is one check kind, and `KINDS` below declares, once,
what the rest of dc-bridge asks of a kind: what its number is (`measure`), whether it compares one
value per row, whether it is about a column's presence, where failing values come from, which lint
errors stay local to one check, whether the fold judges it from the run history, whether one SQL query
measures it, whether it is a user's check in one engine's own syntax, and whether the plan could build
it at all. No code outside this module names a kind to answer such a question (tests/test_kinds.py). Each engine translates a kind through its own table keyed by the kind's
name (engines/<engine>/translate.py); tests/test_kinds.py fails when a table lacks a kind.
docs/mapping.md is the meaning of each kind.

Count semantics, shared by every engine: `observed` is the number of rows that violate the check
(measure `rows`, or their percent of all rows with `unit: percent`), or the measured value (`value`:
row_count, sql_metric, frequency; `seconds`: freshness). The threshold is judged on that number, in
one place (`Threshold.holds`), so no engine's own notion of success decides a verdict.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, Callable, Literal, Union

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
    # set where the column is a decimal of 38 integer digits, as the contract declares it (plan/build.py)
    # or as a run's data holds it (engines/columns.py `exact_ranges`): a bound an engine writes with a
    # fraction digit (Soda's `0.0`) would need 39 digits there, so every engine counts with dc-bridge's
    # exact condition
    exact_only: bool = False


@dataclass(frozen=True)
class RowCount:
    """The number of rows (observed value, judged by the threshold)."""


@dataclass(frozen=True)
class ColumnExists:
    """The column is present."""


@dataclass(frozen=True)
class ColumnType:
    """The column's Spark type is `spark_type` (exact) or one of `compatible` (logical types); and
    each nested element the contract types (array items, struct fields, map keys and values) has one
    of its allowed types. `nested`: (path, allowed) pairs; a path is a tuple of steps, each `("items",)`,
    `("keys",)`, `("values",)` or `("field", name)`; an allowed entry is a base type name (`int`,
    `decimal`) or an exact lower-case type without spaces (`decimal(10,2)`, `array<bigint>`). A path of no
    steps is the column itself: the types its logical type allows, when its physical type contradicts
    them (both are checked, so such a column never passes; lint DCB113)."""
    spark_type: str
    exact: bool
    compatible: tuple[str, ...] = ()
    nested: tuple[tuple[tuple[tuple[str, ...], ...], tuple[str, ...]], ...] = ()


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
class Frequency:
    """The longest time between two consecutive updates (distinct non-null values of the check's
    timestamp column), in seconds, at most `max_gap`. `query` is that metric as SQL over the model
    (TABLE_MARKER), written by the plan once so every engine measures the same gap."""
    max_gap: timedelta
    query: str


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
    """A GX expectation run verbatim, as the contract's `implementation` holds it: GX's translation
    reads its syntax (engines/gx/translate.py `gx_expectation`), the plan does not. `tables`: as CustomSoda's,
    the tables its `unexpected_rows_query` may name besides `{batch}` (`bind_gx_query`)."""
    implementation: Any
    tables: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class CustomSoda:
    """SodaCL run verbatim, as the contract's `implementation` holds it (SodaCL text or mapping, or
    Soda's data-contract form): Soda's translation reads its syntax (engines/soda/translate.py
    `soda_check_lines`), the plan does not. `tables`: the dataset names the check may name (lower case) and
    what each is in a run (`sql.model_tables`: TABLE_MARKER for its own model, another model's run view),
    which the translation binds its queries and other datasets to (`bind_soda_lines`)."""
    implementation: Any
    tables: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Availability:
    """ODCS `availability`: the percent of the contract's recorded runs whose data could be read, at
    least the threshold. Judged by the fold from the run history (runner/history.py), never by an engine."""


@dataclass(frozen=True)
class ErrorRate:
    """ODCS `errorRate`: the percent of the checks the contract's recorded runs evaluated that failed or
    were in error, at most the threshold. Judged by the fold from the run history, never by an engine."""


@dataclass(frozen=True)
class NotExecutable:
    """An element that produces no engine check (a `text` rule, an unknown engine); kept so the
    verdict accounts for it."""
    reason: str


Params = Union[NotNull, Unique, Regex, InSet, LengthBetween, ValueBetween, RowCount, ColumnExists, ColumnType,
               SqlMetric, Freshness, Frequency, Latency, Retention, ForeignKey, CustomGx, CustomSoda, Availability, ErrorRate,
               NotExecutable]

# What the number an engine returns for a check is, and so how the check is judged:
# - rows: the rows that violate the check (or their percent of all rows), judged by the threshold;
# - value: one measured value (a row count, a SQL metric), judged by the threshold;
# - seconds: the age of the newest row, judged by the threshold;
# - outcome: no number to judge; the engine's own success decides (presence, type, custom checks);
# - none: no engine evaluates the check (not_executable; availability and error_rate, which the fold
#   judges from the run history).
Measure = Literal["rows", "value", "seconds", "outcome", "none"]
# Where the failing values of a failed check come from (runner/samples.py):
# - failing_rows: the check's column in the first rows that violate it;
# - duplicate_keys: the repeated values (or key combinations), with how many repeat;
# - orphan_keys: the keys without a match in the referenced model.
Samples = Literal["failing_rows", "duplicate_keys", "orphan_keys"]

# lint codes of errors confined to one check (docs/lint-codes.md): the run goes on, the check is `error`
_SQL_CODES = frozenset({"DCB160", "DCB161", "DCB170", "DCB171", "DCB172"})
# a time-based service level on a column that holds no time: an error of that one SLA
_SLA_CODES = frozenset({"DCB190"})
# a reference naming nothing (a relationship's property, an SLA's element): an error of that one check
_REFERENCE_CODES = frozenset({"DCB125"})


@dataclass(frozen=True)
class Kind:
    name: str
    params: type
    measure: Measure
    # compares one value per row: a struct, array or map column cannot take it
    single_value: bool = False
    # about the column's presence itself: evaluated (and failing) when the column is missing
    presence: bool = False
    samples: Samples | None = None
    # lint errors that make one check of this kind `error` instead of stopping the run
    local_lint_codes: frozenset[str] = frozenset()
    # judged by the fold over the runs a history file records (verdict.py `judge_history`), not on this run's data
    from_history: bool = False
    # its number and threshold are a duration in seconds (an age, a gap between updates): reports show days and hours
    in_seconds: bool = False
    # measured by one SQL query the params carry (`query`), whose one value is the metric: a query
    # that gives no value is the check's error (engines/queries.py `scalar_query`)
    sql_query: bool = False
    # the user's own check in one engine's syntax, run verbatim there: its numbers are the engine's,
    # not dc-bridge's (GX's row count of the model is read from dc-bridge's own expectations only)
    custom: bool = False
    # judged against the run's one clock (`now`, the verdict's `started_at`): every engine of a run is
    # given the same cut-off, and a compiled artifact takes it as a run-time parameter (GX) or variable (Soda)
    clock: bool = False
    # False: the plan could not build a check from the element (the params say why); its verdict is
    # `not_executable` with that reason, whatever else a run knows about it
    executable: bool = True
    # each row is judged on its own or against a key (its value, its key's repeats, its key's match):
    # a violating row can be sent aside (dc_bridge/enforce: the split, a slice, a stream's batches);
    # the other kinds judge the table as a whole and stay in the verdict only (docs/enforcing.md)
    row_level: bool = False
    # the dataset metric its observed number is, where it counts one for a whole model (`rowCount`) or
    # one column (`nullCount`): OpenLineage's data-quality metrics facet (report/openlineage.py), Prometheus'
    # model rows; asked per check (`metric_of`), as the verdict's CheckVerdict.dataset_metric
    dataset_metric: str | None = None
    # whether a check's params keep its number that metric: a null check that also counts `missingValues`
    # ("N/A", "") counts more than nulls, so its number is no `nullCount`
    counts_metric: Callable[[Any], bool] = lambda params: True
    # the unit of the number a `value` or `seconds` kind measures, as the verdict reports it (a `rows`
    # kind's unit is the contract's: rows, or percent of all rows); None where dc-bridge cannot know it:
    # a SQL metric's value is the user's own number, whatever the query computes
    value_unit: str | None = None
    # its number is the age of the model's newest row (a freshness): what a metrics exporter publishes as the data's age
    data_age: bool = False

    def metric_of(self, check: "Check") -> str | None:
        """The dataset metric `check`'s number is, or None where its params make it count something else."""
        return self.dataset_metric if self.dataset_metric is not None and self.counts_metric(check.params) else None

    @property
    def judged_by_threshold(self) -> bool:
        return self.measure in ("rows", "value", "seconds")

    def observed_unit(self, check: "Check") -> str | None:
        """The unit of the check's observed number in the verdict: the contract's for counted rows and
        for the percent of passing runs a history service level is judged by, else the kind's own."""
        return check.unit if self.measure == "rows" or self.from_history else self.value_unit

    @property
    def vacuous_on_empty(self) -> bool:
        """Holds on a model with no rows because no value can violate it (runner/vacuous.py says so)."""
        return self.measure == "rows"


_ALL = (
    Kind("not_null", NotNull, "rows", local_lint_codes=frozenset({"DCB160"}), row_level=True, dataset_metric="nullCount",
         counts_metric=lambda params: not params.missing_values),
    Kind("unique", Unique, "rows", samples="duplicate_keys", local_lint_codes=frozenset({"DCB160"}), row_level=True),
    Kind("unique_combination", Unique, "rows", samples="duplicate_keys", local_lint_codes=frozenset({"DCB160"}), row_level=True),
    Kind("regex", Regex, "rows", single_value=True, samples="failing_rows", local_lint_codes=frozenset({"DCB140", "DCB160"}), row_level=True),
    Kind("in_set", InSet, "rows", single_value=True, samples="failing_rows", local_lint_codes=frozenset({"DCB160"}), row_level=True),
    Kind("length_between", LengthBetween, "rows", single_value=True, samples="failing_rows", row_level=True),
    Kind("value_between", ValueBetween, "rows", single_value=True, samples="failing_rows", row_level=True),
    Kind("row_count", RowCount, "value", local_lint_codes=frozenset({"DCB160", "DCB161"}), dataset_metric="rowCount",
         value_unit="rows"),
    Kind("column_exists", ColumnExists, "outcome", presence=True),
    Kind("column_type", ColumnType, "outcome"),
    # also an ODCS timeOfAvailability SLA, measured by a query the plan writes (plan/build.py)
    Kind("sql_metric", SqlMetric, "value", local_lint_codes=_SQL_CODES | _SLA_CODES, sql_query=True),
    Kind("freshness", Freshness, "seconds", local_lint_codes=_SLA_CODES, in_seconds=True, clock=True, value_unit="seconds",
         data_age=True),
    Kind("frequency", Frequency, "value", local_lint_codes=_SLA_CODES, sql_query=True, in_seconds=True, value_unit="seconds"),
    Kind("latency", Latency, "rows", samples="failing_rows", local_lint_codes=_SLA_CODES, row_level=True),
    Kind("retention", Retention, "rows", samples="failing_rows", local_lint_codes=_SLA_CODES, clock=True, row_level=True),
    Kind("foreign_key", ForeignKey, "rows", samples="orphan_keys", local_lint_codes=_REFERENCE_CODES, row_level=True),
    Kind("custom_gx", CustomGx, "outcome", local_lint_codes=frozenset({"DCB170", "DCB171", "DCB181"}), custom=True),
    Kind("custom_soda", CustomSoda, "outcome", local_lint_codes=frozenset({"DCB170", "DCB171", "DCB184"}), custom=True),
    # service levels over a history of runs: no engine runs them, the fold judges them
    Kind("availability", Availability, "none", from_history=True),
    Kind("error_rate", ErrorRate, "none", from_history=True),
    # also what cannot be built: an SLA whose element names nothing, a library rule of an unknown metric (DCB163)
    Kind("not_executable", NotExecutable, "none", local_lint_codes=frozenset({"DCB170", "DCB171", "DCB172", "DCB163"}) | _REFERENCE_CODES,
         executable=False),
)

# kind name -> Kind: the closed set of check kinds
KINDS: dict[str, Kind] = {kind.name: kind for kind in _ALL}
# params class -> its kind's name (`Unique` on several columns is `unique_combination`, see Check.kind)
_KIND_NAMES: dict[type, str] = {kind.params: kind.name for kind in reversed(_ALL)}
# every lint code that can stay local to one check
CHECK_LOCAL_CODES: frozenset[str] = frozenset(code for kind in _ALL for code in kind.local_lint_codes)


def kind_of(check: "Check") -> Kind:
    return KINDS[check.kind]


# the model a check of the contract as a whole (a service level naming no model) belongs to; reports show it as a row
CONTRACT_MODEL = "(contract)"


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
        return _KIND_NAMES[type(self.params)]

    @property
    def column(self) -> str | None:
        return self.columns[0] if len(self.columns) == 1 else None


@dataclass(frozen=True)
class Objective:
    """An ODCS `dataQuality` SLO over the checks of the quality rules it names: the share of their
    evaluations that pass, in percent, at least `target` (docs/mapping.md, "Data quality SLOs").
    `problem`: why it cannot be judged (then `not_executable`)."""
    id: str
    target: float | None
    check_ids: tuple[str, ...]
    source: Source
    description: str | None = None
    problem: str | None = None


@dataclass(frozen=True)
class CheckPlan:
    contract_id: str
    contract_version: str
    checks: tuple[Check, ...]
    models: tuple[str, ...] = field(default=())
    objectives: tuple[Objective, ...] = field(default=())

    def for_model(self, model: str) -> list[Check]:
        return [c for c in self.checks if c.model == model]
