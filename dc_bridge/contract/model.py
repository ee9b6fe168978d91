"""The one internal contract model.

DCS and ODCS documents are normalised into these classes; every later step (plan, translate, run)
reads only them and never asks which standard a contract was written in. Every element keeps a
`Source` so that a message about it can point at the file, path and line a user must edit.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field as PydanticField


class Source(BaseModel):
    """Where an element was written: file, dotted path inside it, and line (1-based) if known."""

    model_config = ConfigDict(frozen=True)

    file: str
    path: str
    line: int | None = None

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where} ({self.path})" if self.path else where


class _Element(BaseModel):
    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)


ThresholdOperator = Literal["=", "!=", ">", ">=", "<", "<=", "between", "not_between"]


class Threshold(_Element):
    """A comparison a metric must satisfy.

    `between` and `not_between` carry two bounds; whether each bound counts as inside is each
    standard's own rule (DCS: inclusive, ODCS: exclusive), recorded here so no later step guesses.
    A lower and an upper bound given together (`mustBeGreaterThan` + `mustBeLessThan`) are a
    `between` with the inclusiveness of each.
    """

    operator: ThresholdOperator
    value: float | int | None = None
    low: float | int | None = None
    high: float | int | None = None
    low_inclusive: bool = True
    high_inclusive: bool = True

    def holds(self, observed: float) -> bool:
        """Whether an observed value satisfies this threshold (the one definition of the operators)."""
        if self.operator in ("between", "not_between"):
            above = observed >= self.low if self.low_inclusive else observed > self.low
            below = observed <= self.high if self.high_inclusive else observed < self.high
            return (above and below) == (self.operator == "between")
        return {
            "=": observed == self.value,
            "!=": observed != self.value,
            ">": observed > self.value,
            ">=": observed >= self.value,
            "<": observed < self.value,
            "<=": observed <= self.value,
        }[self.operator]


QualityType = Literal["text", "sql", "library", "custom"]
Unit = Literal["rows", "percent"]


class QualityRule(_Element):
    """A quality rule of a model or field, as the contract states it (not yet a check)."""

    type: QualityType
    source: Source
    id: str | None = None
    name: str | None = None
    description: str | None = None
    dimension: str | None = None
    severity: Literal["error", "warning", "info"] = "error"
    unit: Unit = "rows"
    threshold: Threshold | None = None
    # library rules: the ODCS metric name (older `rule:` names are mapped onto these)
    metric: str | None = None
    arguments: dict[str, Any] = PydanticField(default_factory=dict)
    # sql rules
    query: str | None = None
    # custom rules: engine is normalised to "gx" or "soda" when known, else kept as written
    engine: str | None = None
    implementation: Any = None
    # set when the rule came from another file through `imports`
    imported_from: str | None = None


class ForeignKey(_Element):
    """Values of `columns` in this model must exist in `to_columns` of `to_model` (composite when > 1)."""

    columns: tuple[str, ...]
    to_model: str
    to_columns: tuple[str, ...]
    source: Source
    description: str | None = None
    # ODCS 3.2: the relationship's own stable id (the check's id when given)
    id: str | None = None


class RelatesTo(_Element):
    """An informational relationship (ODCS RFC `relatesTo`): kept for docs and lineage, never run."""

    from_ref: str
    to: tuple[str, ...]
    source: Source
    description: str | None = None
    id: str | None = None


class Field(_Element):
    """A column (or nested field) and the constraints the contract puts on it."""

    name: str
    source: Source
    id: str | None = None
    description: str | None = None
    logical_type: str | None = None
    physical_type: str | None = None
    physical_name: str | None = None
    required: bool = False
    unique: bool = False
    primary_key: bool = False
    primary_key_position: int | None = None
    pattern: str | None = None
    format: str | None = None
    enum: tuple[Any, ...] | None = None
    min_length: int | None = None
    max_length: int | None = None
    minimum: float | int | str | None = None
    maximum: float | int | str | None = None
    exclusive_minimum: float | int | str | None = None
    exclusive_maximum: float | int | str | None = None
    precision: int | None = None
    scale: int | None = None
    pii: bool = False
    classification: str | None = None
    # ODCS 3.2 `semanticType`: None or `column` is a column of the data; `measure` and `dimension` are computed
    semantic_type: str | None = None
    tags: tuple[str, ...] = ()
    quality: tuple[QualityRule, ...] = ()
    fields: tuple[Field, ...] = ()
    items: Field | None = None
    keys: Field | None = None
    values: Field | None = None
    # `$ref` target (DCS) the field inherited from, for messages
    ref: str | None = None

    @property
    def computed(self) -> bool:
        """An ODCS 3.2 measure or dimension (RFC 0034): computed by its transformLogic, no column of the data."""
        return self.semantic_type in ("measure", "dimension")


class Model(_Element):
    """A table (DCS model, ODCS schema object)."""

    name: str
    source: Source
    id: str | None = None
    physical_name: str | None = None
    type: str | None = None
    description: str | None = None
    fields: tuple[Field, ...] = ()
    primary_key: tuple[str, ...] = ()
    quality: tuple[QualityRule, ...] = ()
    foreign_keys: tuple[ForeignKey, ...] = ()
    relates_to: tuple[RelatesTo, ...] = ()

    def field(self, name: str) -> Field | None:
        return next((f for f in self.fields if f.name == name), None)

    def quality_rules(self) -> list[tuple[Model, Field | None, QualityRule]]:
        """Every quality rule of the model with the field (None: model level) it is on."""
        rules: list[tuple[Model, Field | None, QualityRule]] = [(self, None, rule) for rule in self.quality]
        for field in walk_fields(self.fields):
            rules.extend((self, field, rule) for rule in field.quality)
        return rules


ServiceLevelKind = Literal["freshness", "latency", "retention", "availability", "frequency", "timeOfAvailability", "errorRate", "other"]


class ServiceLevel(_Element):
    """A service level. Durations are parsed; `model`/`field` name the column it is measured on."""

    kind: ServiceLevelKind
    source: Source
    name: str
    id: str | None = None
    description: str | None = None
    threshold: timedelta | None = None
    raw_value: Any = None
    unit: str | None = None
    model: str | None = None
    field: str | None = None
    # latency: the column holding the source timestamp (field holds the processed timestamp)
    source_field: str | None = None
    # timeOfAvailability: `threshold` is the time of day (since midnight) in this offset from UTC
    utc_offset: timedelta | None = None


class QualityObjective(_Element):
    """An ODCS `dataQuality` SLO: a share of the named quality rules that must pass."""

    id: str | None
    source: Source
    value: float | None  # None: the SLO states no target (not_executable)
    unit: str | None = None
    rule_ids: tuple[str, ...] = ()
    description: str | None = None


class Server(_Element):
    name: str
    type: str
    source: Source
    format: str | None = None
    location: str | None = None
    settings: dict[str, Any] = PydanticField(default_factory=dict)


ContractFormat = Literal["dcs", "odcs"]


class Contract(_Element):
    """One data contract, format-neutral."""

    id: str
    version: str
    format: ContractFormat
    spec_version: str
    file: str
    source: Source
    title: str | None = None
    owner: str | None = None
    description: str | None = None
    models: tuple[Model, ...] = ()
    servers: tuple[Server, ...] = ()
    service_levels: tuple[ServiceLevel, ...] = ()
    quality_objectives: tuple[QualityObjective, ...] = ()
    # the contract's own monitor settings (`x-dc-bridge-monitors`, contract/reading/monitors.py), over the project's
    monitors: dict[str, Any] | None = None

    def model(self, name: str) -> Model | None:
        return next((m for m in self.models if m.name == name), None)

    def quality_rules(self) -> list[tuple[Model, Field | None, QualityRule]]:
        """Every quality rule of the contract with the model and field (None: model level) it is on."""
        return [found for model in self.models for found in model.quality_rules()]


def walk_fields(fields: tuple[Field, ...]):
    """Fields and their nested fields, depth first (array items and map keys/values included)."""
    for field in fields:
        yield field
        yield from walk_fields(field.fields)
        for child in (field.items, field.keys, field.values):
            if child is not None:
                yield from walk_fields((child,))
