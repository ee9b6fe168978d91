"""What is tighter and what is looser: two versions of one element of a contract compared as a direction.

A direction is `stronger` when the new version promises or demands more (fewer allowed values, a
narrower range or threshold, a shorter freshness, a higher classification, a required field),
`weaker` when less, `same`, or `different` when it is neither (a changed pattern, a rule that now
measures something else): what cannot be shown to be stronger or weaker is treated as either.
Everything here is a pure comparison of constraints, thresholds, service levels, classifications
and types; what a direction means is decided by its readers. The diff (contract/evolution/diff.py)
turns a direction into a change and its DCB2xx code: a stronger constraint breaks data that passed
before, a stronger SLA only gives consumers more. Inheritance (contract/evolution/inheritance.py)
lets a child be stronger than its parent, never weaker.

Elements of the two versions are paired first (`pair`): by name (models, fields, servers), by id,
name or content (quality rules, `RULE_KEYS`) and by kind (service levels, `service_level_keys`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import timedelta
from operator import attrgetter
from typing import Any, Callable, Literal, Sequence, TypeVar

from dc_bridge.contract.durations import parse_duration
from dc_bridge.contract.model import Field, QualityObjective, QualityRule, ServiceLevel, Threshold
from dc_bridge.contract.sql import PLACEHOLDERS
from dc_bridge.contract.thresholds import Syntax, render
from dc_bridge.contract.types import DECIMAL_TYPE, SPARK_TYPES, spark_physical_type

Direction = Literal["same", "stronger", "weaker", "different"]
T = TypeVar("T")


def pair(old: Sequence[T], new: Sequence[T], keys: Sequence[Callable[[T], Any]]) -> tuple[list[tuple[T, T]], list[T], list[T]]:
    """Pair items by each key in turn (a key of None never pairs): (pairs, removed, added), in order."""
    left, right = list(range(len(old))), list(range(len(new)))
    pairs: list[tuple[int, int]] = []
    for key in keys:
        for i in list(left):
            wanted = key(old[i])
            j = next((j for j in right if wanted is not None and key(new[j]) == wanted), None)
            if j is not None:
                pairs.append((i, j))
                left.remove(i)
                right.remove(j)
    pairs.sort()
    return [(old[i], new[j]) for i, j in pairs], [old[i] for i in left], [new[j] for j in right]


# ---------------------------------------------------------------------------------------------
# allowed values and accepted ranges


def set_direction(old: Sequence[Any] | None, new: Sequence[Any] | None) -> Direction:
    """Allowed values: fewer is stronger. None allows anything."""
    if old is None:
        return "same" if new is None else "stronger"
    if new is None:
        return "weaker"
    removed, added = [v for v in old if v not in new], [v for v in new if v not in old]
    return "same" if not removed and not added else "stronger" if not added else "weaker" if not removed else "different"


@dataclass(frozen=True)
class Interval:
    """Values between two bounds (None: unbounded), each bound inclusive or not."""

    low: Any = None
    low_inclusive: bool = True
    high: Any = None
    high_inclusive: bool = True

    def within(self, other: Interval) -> bool | None:
        """Whether every value of self is in other; None when the bounds cannot be compared (a date and a number)."""
        try:
            if other.low is not None and (self.low is None or self.low < other.low
                                          or self.low == other.low and self.low_inclusive and not other.low_inclusive):
                return False
            if other.high is not None and (self.high is None or self.high > other.high
                                           or self.high == other.high and self.high_inclusive and not other.high_inclusive):
                return False
        except TypeError:
            return None
        return True

    def __str__(self) -> str:
        low = "" if self.low is None else f"{'>=' if self.low_inclusive else '>'} {shown(self.low)}"
        high = "" if self.high is None else f"{'<=' if self.high_inclusive else '<'} {shown(self.high)}"
        return " and ".join(p for p in (low, high) if p) or "any"


def _within_all(inner: Sequence[Interval], outer: Sequence[Interval]) -> bool | None:
    results = []
    for part in inner:
        checks = [part.within(o) for o in outer]
        results.append(None if None in checks and True not in checks else any(checks))
    return None if None in results else all(results)


def interval_direction(old: Sequence[Interval], new: Sequence[Interval]) -> Direction:
    """Accepted values as unions of intervals: accepting fewer values is stronger."""
    if tuple(old) == tuple(new):
        return "same"
    narrower, wider = _within_all(new, old), _within_all(old, new)
    if narrower and wider:
        return "same"
    return "stronger" if narrower else "weaker" if wider else "different"


# ---------------------------------------------------------------------------------------------
# classification

# Sensitivity levels, lowest first. Names from both standards' examples and seed 003 (FR-008);
# numeric levels (`1`..`5`) compare by number. Names on one scale and numbers on the other do not compare.
CLASSIFICATION_RANKS: dict[str, int] = {
    "public": 0, "internal": 1, "confidential": 2, "sensitive": 3, "pii": 3, "phi": 3, "restricted": 4, "secret": 5,
}


def _rank(classification: str) -> tuple[str, float] | None:
    text = classification.strip().lower()
    if text.replace(".", "", 1).isdigit():
        return "level", float(text)
    return ("name", CLASSIFICATION_RANKS[text]) if text in CLASSIFICATION_RANKS else None


def classification_direction(old: str | None, new: str | None) -> Direction:
    if (old or "").lower() == (new or "").lower():
        return "same"
    if old is None:
        return "stronger"
    if new is None:
        return "weaker"
    before, after = _rank(old), _rank(new)
    if before is None or after is None or before[0] != after[0]:
        return "different"
    return "same" if before[1] == after[1] else "stronger" if after[1] > before[1] else "weaker"


# ---------------------------------------------------------------------------------------------
# types and safe widenings

# canonical logical type -> the type vocabulary compared here: the first Spark type it allows (`decimal`
# without precision: any decimal); any other type (`null`) is itself
LOGICAL_TYPES: dict[str, str] = {logical: spark[0] for logical, spark in SPARK_TYPES.items()} | {
    # kept as themselves: `number` is wider than any one Spark type (SAFE_WIDENINGS), and a time of day is no string
    "number": "number", "time": "time",
}
# old type -> new types every old value fits in without loss: Delta Lake's type widening
# (https://docs.delta.io/latest/delta-type-widening.html) plus the generic `number` and `decimal`
SAFE_WIDENINGS: dict[str, frozenset[str]] = {
    "tinyint": frozenset({"smallint", "int", "bigint", "double", "decimal", "number"}),
    "smallint": frozenset({"int", "bigint", "double", "decimal", "number"}),
    "int": frozenset({"bigint", "double", "decimal", "number"}),
    "bigint": frozenset({"decimal", "number"}),
    "float": frozenset({"double", "number"}),
    "double": frozenset({"number"}),
    "decimal": frozenset({"number"}),
    "date": frozenset({"timestamp_ntz"}),
}
# integer type -> digits a decimal needs before its point to hold every value
INTEGER_DIGITS: dict[str, int] = {"tinyint": 3, "smallint": 5, "int": 10, "bigint": 20}


def field_type(field: Field) -> str | None:
    """The field's type: its physical type where Spark knows it (exact), else its logical type."""
    if field.physical_type:
        spark = spark_physical_type(field.physical_type)
        if spark is not None:
            return spark
        text = field.physical_type.strip().lower().replace(" ", "")
        if text.startswith(("array<", "map<", "struct<")):
            return text
    if field.logical_type is None:
        return None
    if field.logical_type == "decimal" and field.precision:
        return f"decimal({field.precision},{field.scale or 0})"
    return LOGICAL_TYPES.get(field.logical_type, field.logical_type)


def is_safe_widening(old: str, new: str) -> bool:
    old_decimal, new_decimal = DECIMAL_TYPE.match(old), DECIMAL_TYPE.match(new)
    old_base = "decimal" if old_decimal else old
    if new_decimal:
        precision, scale = int(new_decimal[1]), int(new_decimal[2])
        if old_base in INTEGER_DIGITS:
            return precision - scale >= INTEGER_DIGITS[old_base]
        if old_decimal:
            old_precision, old_scale = int(old_decimal[1]), int(old_decimal[2])
            return scale >= old_scale and precision - scale >= old_precision - old_scale
        return False  # any decimal, or another type, into a fixed precision may not fit
    return new in SAFE_WIDENINGS.get(old_base, frozenset())


# ---------------------------------------------------------------------------------------------
# quality rules

SEVERITY_RANKS = {"info": 0, "warning": 1, "error": 2}
# library metric -> the share it guards, for messages in the words of seed 002 (completeness 99%)
QUALITY_MEASURES = {"nullValues": "completeness", "missingValues": "completeness", "duplicateValues": "uniqueness",
                    "invalidValues": "validity"}
# how a rule without id or name is recognised in the other version: by what it measures
RULE_CONTENT: dict[str, Callable[[QualityRule], Any]] = {
    "library": lambda r: ("library", r.metric),
    "sql": lambda r: ("sql", _query_text(r.query)),
    "custom": lambda r: ("custom", r.engine, _canonical(r.implementation)),
    "text": lambda r: ("text", r.description),
}
RULE_KEYS: list[Callable[[QualityRule], Any]] = [attrgetter("id"), attrgetter("name"), lambda r: RULE_CONTENT[r.type](r)]
# arguments that list values: (direction when the list grows); other arguments must stay equal
LIST_ARGUMENTS: dict[str, Direction] = {"validValues": "weaker", "missingValues": "stronger"}


_PLACEHOLDER = re.compile(r"\$?\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}")


def _query_text(query: str | None) -> str:
    """The query with every placeholder spelling as one (`${table}` = `{model}`) and whitespace collapsed,
    so a DCS rule rewritten in ODCS is the same rule."""
    unified = _PLACEHOLDER.sub(lambda m: "{" + PLACEHOLDERS.get(m.group(1).lower(), m.group(1)) + "}", query or "")
    return " ".join(unified.split())


def _canonical(value: Any) -> str:
    return json.dumps(plain(value), sort_keys=True, default=str)


def accepted(threshold: Threshold | None) -> tuple[Interval, ...]:
    """The observed values a threshold accepts, as disjoint intervals."""
    if threshold is None:
        return (Interval(),)
    v, low, high = threshold.value, threshold.low, threshold.high
    return {
        "=": lambda: (Interval(v, True, v, True),),
        "!=": lambda: (Interval(None, True, v, False), Interval(v, False, None, True)),
        ">": lambda: (Interval(v, False, None, True),),
        ">=": lambda: (Interval(v, True, None, True),),
        "<": lambda: (Interval(None, True, v, False),),
        "<=": lambda: (Interval(None, True, v, True),),
        "between": lambda: (Interval(low, threshold.low_inclusive, high, threshold.high_inclusive),),
        "not_between": lambda: (Interval(None, True, low, not threshold.low_inclusive),
                                Interval(high, not threshold.high_inclusive, None, True)),
    }[threshold.operator]()


def threshold_direction(old: Threshold | None, new: Threshold | None) -> Direction:
    return interval_direction(accepted(old), accepted(new))


def describe_threshold(threshold: Threshold | None, unit: str = "rows") -> str:
    return "without threshold" if threshold is None else render(threshold, WORDS, unit)


def describe_rule(rule: QualityRule) -> str:
    """`nullValues <= 1% (completeness >= 99%)`, `sql = 0`, `custom gx rule`, `text rule`."""
    what = rule.metric or rule.type
    if rule.type == "custom":
        return f"custom {rule.engine} rule"
    if rule.type == "text":
        return "text rule"
    text = f"{what} {describe_threshold(rule.threshold, rule.unit)}"
    measure = QUALITY_MEASURES.get(rule.metric or "")
    t = rule.threshold
    if measure and rule.unit == "percent" and t is not None and t.operator in ("<", "<=", "=") and isinstance(t.value, (int, float)):
        share = round(100 - t.value, 6)
        text += f" ({measure} {'>' if t.operator == '<' else '>='} {shown(share)}%)"
    return text


def rule_label(rule: QualityRule) -> str:
    return rule.id or rule.name or rule.metric or (f"custom {rule.engine}" if rule.type == "custom" else rule.type)


def _measure(rule: QualityRule) -> tuple:
    """What a rule measures, apart from its threshold and list arguments: equal measures compare by threshold."""
    arguments = {k: v for k, v in rule.arguments.items() if k not in LIST_ARGUMENTS}
    return RULE_CONTENT[rule.type](rule), rule.unit, _canonical(arguments)


def rule_direction(old: QualityRule, new: QualityRule) -> tuple[Direction, str]:
    """How strict `new` is compared with `old` (paired rules), and what differs."""
    executable = (old.type != "text", new.type != "text")
    if executable != (True, True):
        direction: Direction = "same" if executable == (False, False) else "stronger" if executable[1] else "weaker"
        return direction, f"{describe_rule(old)} -> {describe_rule(new)}"
    if _measure(old) != _measure(new):
        return "different", f"now measures something else: {describe_rule(old)} -> {describe_rule(new)}"
    directions = [threshold_direction(old.threshold, new.threshold)]
    for name, grows in LIST_ARGUMENTS.items():
        directions.append(_list_direction(old.arguments.get(name), new.arguments.get(name), grows))
    directions.append(_severity_direction(old.severity, new.severity))
    moved = {d for d in directions if d != "same"}
    direction = "same" if not moved else moved.pop() if len(moved) == 1 else "different"
    parts = [f"{describe_rule(old)} -> {describe_rule(new)}"] if old.threshold != new.threshold or old.unit != new.unit else []
    parts += [f"{name} {shown(old.arguments.get(name))} -> {shown(new.arguments.get(name))}"
              for name in LIST_ARGUMENTS if plain(old.arguments.get(name)) != plain(new.arguments.get(name))]
    parts += [f"severity {old.severity} -> {new.severity}"] if old.severity != new.severity else []
    return direction, "; ".join(parts)


def _list_direction(old: Any, new: Any, grows: Direction) -> Direction:
    as_list = lambda v: list(v) if isinstance(v, (list, tuple)) else None  # noqa: E731
    direction = set_direction(as_list(old), as_list(new))
    # set_direction calls fewer values stronger (valid values); for missing values more is stronger
    flip = {"stronger": "weaker", "weaker": "stronger"}
    return flip.get(direction, direction) if grows == "stronger" else direction


def _severity_direction(old: str, new: str) -> Direction:
    before, after = SEVERITY_RANKS[old], SEVERITY_RANKS[new]
    return "same" if before == after else "stronger" if after > before else "weaker"


# ---------------------------------------------------------------------------------------------
# service levels and quality objectives


def _seconds(level: ServiceLevel) -> float | None:
    if level.threshold is not None:
        return level.threshold.total_seconds()
    try:
        return parse_duration(level.raw_value, level.unit).total_seconds()
    except (ValueError, TypeError):
        return None


def _percent(level: ServiceLevel) -> float | None:
    raw = level.raw_value
    if isinstance(raw, bool):
        return None
    if isinstance(raw, (int, float)):
        return float(raw)
    try:
        return float(str(raw).strip().rstrip("%").strip())
    except ValueError:
        return None


# kind -> (a comparable number read from a service level, True when a larger number is stronger)
SERVICE_LEVEL_MEASURES: dict[str, tuple[Callable[[ServiceLevel], float | None], bool]] = {
    "freshness": (_seconds, False),  # a shorter maximum age is a stronger promise
    "latency": (_seconds, False),
    "frequency": (_seconds, False),
    "retention": (_seconds, True),  # keeping data longer is a stronger promise
    "availability": (_percent, True),
    "errorRate": (_percent, False),  # fewer checks in error is a stronger promise
}


def service_level_direction(old: ServiceLevel, new: ServiceLevel) -> Direction:
    measure, larger_is_stronger = SERVICE_LEVEL_MEASURES.get(new.kind, (None, True))
    before, after = (measure(old), measure(new)) if measure else (None, None)
    if before is None or after is None:
        return "same" if (plain(old.raw_value), old.unit) == (plain(new.raw_value), new.unit) else "different"
    if before == after:
        return "same"
    return "stronger" if (after > before) == larger_is_stronger else "weaker"


def describe_service_level(level: ServiceLevel) -> str:
    """As written: `PT6H`, `6 h`, `99.9%`."""
    if level.kind in ("availability", "errorRate") and _percent(level) is not None:
        return f"{shown(_percent(level))}%"
    raw = shown(level.raw_value) if not isinstance(level.raw_value, str) else level.raw_value
    return f"{raw} {level.unit}" if level.unit and level.unit != "percent" else raw


def level_name(level: ServiceLevel) -> str:
    return level.kind if level.kind != "other" else level.name


def service_level_keys() -> list[Callable[[ServiceLevel], Any]]:
    """Pair by kind and measured column first, then by kind alone (a DCS contract may name no column)."""
    return [lambda s: (level_name(s), s.model, s.field), level_name]


def objective_direction(old: QualityObjective, new: QualityObjective) -> Direction:
    """A higher share of the same rules that must pass is stronger; other rules are a different objective."""
    if set(old.rule_ids) != set(new.rule_ids) or old.unit != new.unit:
        return "different"
    if old.value == new.value:
        return "same"
    if None in (old.value, new.value):  # a target stated or dropped is no share to compare
        return "different"
    return "stronger" if new.value > old.value else "weaker"


# ---------------------------------------------------------------------------------------------
# values for messages and JSON


def plain(value: Any) -> Any:
    """JSON-ready: containers become lists and dicts, durations and other objects their text."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((plain(v) for v in value), key=str)
    if isinstance(value, timedelta):
        return str(value)
    return str(value)


def shown(value: Any) -> str:
    """A value as a message shows it: `none`, `true`, `12`, `'^A'`, `['a', 'b']`."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(shown(v) if not isinstance(v, str) else repr(v) for v in value) + "]"
    if isinstance(value, str):
        # descriptions can be paragraphs; the message only has to say which one changed
        return repr(value if len(value) <= 60 else value[:57] + "...")
    return str(value)


# a threshold in the words of change and inheritance messages, numbers as `shown`: `between 1% and 5%`
# (whether a bound is included is not told)
WORDS = Syntax(compare="{op} {value}{unit}", between="between {low}{unit} and {high}{unit}", not_between="not {between}",
               number=shown)
