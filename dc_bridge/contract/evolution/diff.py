"""Contract evolution: every difference between two versions of a contract, classified.

`diff(old, new)` reads only the format-neutral model, so any mix of DCS and ODCS is compared by what
the contracts say, not how they are written: a DCS contract rewritten in ODCS with the same meaning
has no changes. Each difference is a `Change` that is `breaking` (a consumer, or data that passed
before, may break: MAJOR), `non-breaking` (MINOR) or `patch` (documentation: PATCH), with the lint
code that names its rule (the code table is in contract/findings.py).

Elements are paired by name (models, fields, servers), by id, name or content (quality rules) and by
kind (service levels). A renamed element is a removal plus an addition: the data changed for every
consumer that reads it by its old name.

Each aspect is compared as a direction: `stronger` means the new version promises or demands more.
Whether that breaks anyone depends on the aspect (ASPECT_CODES): a stricter constraint or quality
threshold may fail data that passed before (breaking), a stricter SLA only gives consumers more
(non-breaking). `different` (neither stronger nor weaker, such as a changed pattern) is breaking:
what cannot be shown safe is treated as unsafe. The same direction functions decide inheritance
(contract/evolution/inheritance.py), where a child may be stronger than its parent but never weaker.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import timedelta
from operator import attrgetter
from typing import Any, Callable, Literal, Mapping, Sequence, TypeVar

from dc_bridge.contract.reading.document import format_path
from dc_bridge.contract.durations import parse_duration
from dc_bridge.contract.model import Contract, Field, Model, QualityObjective, QualityRule, Server, ServiceLevel, Source, Threshold
from dc_bridge.contract.findings import Finding
from dc_bridge.contract.thresholds import Syntax, render
from dc_bridge.contract.sql import PLACEHOLDERS
from dc_bridge.contract.types import SPARK_TYPES, spark_physical_type

Kind = Literal["breaking", "non-breaking", "patch"]
Direction = Literal["same", "stronger", "weaker", "different"]
T = TypeVar("T")

# rule code -> kind of change; title, default severity and fix of each code are in contract/findings.py
KINDS: dict[str, Kind] = {
    "DCB200": "breaking",  # model removed
    "DCB201": "breaking",  # field removed
    "DCB202": "breaking",  # type changed, not a safe widening
    "DCB203": "breaking",  # field made required, or a required field added
    "DCB204": "breaking",  # constraint added or tightened
    "DCB205": "breaking",  # quality rule added or tightened
    "DCB206": "breaking",  # service level relaxed, removed or changed
    "DCB207": "breaking",  # classification or PII marking removed or lowered
    "DCB208": "breaking",  # where consumers find the data changed: physical names, ids, servers
    "DCB210": "non-breaking",  # model, optional field or server added
    "DCB211": "non-breaking",  # type widened safely
    "DCB212": "non-breaking",  # field made optional
    "DCB213": "non-breaking",  # constraint relaxed or removed
    "DCB214": "non-breaking",  # quality rule relaxed or removed
    "DCB215": "non-breaking",  # service level strengthened or added
    "DCB216": "non-breaking",  # classification or PII marking added or raised
    "DCB220": "patch",  # documentation: descriptions, tags, links, examples, titles
}
BUMPS: dict[Kind, str] = {"breaking": "major", "non-breaking": "minor", "patch": "patch"}
BUMP_ORDER = ("none", "patch", "minor", "major")

# aspect -> (code when the new version is stronger, code when it is weaker); `different` takes the
# breaking one of the two, since it may be either
ASPECT_CODES: dict[str, tuple[str, str]] = {
    "required": ("DCB203", "DCB212"),
    "constraint": ("DCB204", "DCB213"),
    "quality": ("DCB205", "DCB214"),
    "service_level": ("DCB215", "DCB206"),
    "classification": ("DCB216", "DCB207"),
}


def code_for(aspect: str, direction: Direction) -> str:
    stronger, weaker = ASPECT_CODES[aspect]
    if direction == "different":
        return stronger if KINDS[stronger] == "breaking" else weaker
    return stronger if direction == "stronger" else weaker


@dataclass(frozen=True)
class Change:
    """One difference between two versions. `path` is format-neutral (`orders.order_id.enum`);
    `source` is where to look in the new version (for a removal: the element that held it)."""

    kind: Kind
    path: str
    old: Any
    new: Any
    code: str
    message: str
    source: Source

    @property
    def bump(self) -> str:
        return BUMPS[self.kind]

    def finding(self, severity: str | None = None) -> Finding:
        return Finding(self.code, self.source.file, self.source.path, f"{self.kind}: {self.message}",
                       line=self.source.line, severity=severity)

    def to_dict(self) -> dict:
        return {"kind": self.kind, "code": self.code, "path": self.path, "old": self.old, "new": self.new,
                "message": self.message, "file": self.source.file, "line": self.source.line}


def required_bump(changes: Sequence[Change]) -> str:
    """`major`, `minor`, `patch`, or `none` when nothing changed."""
    return max((c.bump for c in changes), key=BUMP_ORDER.index, default="none")


# documents as read, by (file, path of a mapping): the documentation the model does not keep
Notes = Mapping[tuple[str, str], Mapping[str, Any]]
# element -> documentation keys compared through Notes; all are patch-level
NOTE_KEYS: dict[str, tuple[str, ...]] = {
    "contract": ("links", "tags", "authoritativeDefinitions", "contact", "support"),
    "model": ("title", "businessName", "tags", "links", "examples", "authoritativeDefinitions"),
    "field": ("title", "businessName", "links", "examples", "example", "lineage", "authoritativeDefinitions"),
}


def notes(documents: Sequence[Any]) -> dict[tuple[str, str], Mapping[str, Any]]:
    """Every mapping of the documents by (file, path), so the diff can find an element's examples and links."""
    found: dict[tuple[str, str], Mapping[str, Any]] = {}

    def walk(node: Any, path: tuple, file: str) -> None:
        if isinstance(node, dict):
            found[(file, format_path(path))] = node
            for key, value in node.items():
                walk(value, path + (key,), file)
        elif isinstance(node, list):
            for index, value in enumerate(node):
                walk(value, path + (index,), file)

    for document in documents:
        walk(document.data, (), document.file)
    return found


# ---------------------------------------------------------------------------------------------
# the walk: contract, models, fields, rules, service levels, servers


def diff(old: Contract, new: Contract, documentation: Notes | None = None) -> list[Change]:
    """Every difference from `old` to `new`. `documentation` (from `notes`) adds examples, links and
    other documentation the model does not keep; without it those are not compared."""
    notes_ = documentation or {}
    changes = _contract_changes(old, new, notes_)
    pairs, removed, added = pair(old.models, new.models, [attrgetter("name")])
    changes += [_change("DCB200", m.name, m.name, None, f"model `{m.name}` removed", new.source) for m in removed]
    changes += [_change("DCB210", m.name, None, m.name, f"model `{m.name}` added", m.source) for m in added]
    for before, after in pairs:
        changes += _model_changes(before, after, notes_)
    changes += _service_level_changes(old.service_levels, new.service_levels, new.source)
    changes += _objective_changes(old.quality_objectives, new.quality_objectives, new.source)
    changes += _server_changes(old.servers, new.servers, new.source)
    return changes


def _change(code: str, path: str, old: Any, new: Any, message: str, source: Source) -> Change:
    return Change(KINDS[code], path, plain(old), plain(new), code, message, source)


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


def _texts(path: str, old: Any, new: Any, attributes: Sequence[str], source: Source) -> list[Change]:
    """Documentation attributes of the model (descriptions, titles, tags): patch when they differ."""
    return [_change("DCB220", f"{path}.{a}" if path else a, getattr(old, a), getattr(new, a),
                    f"`{path or 'contract'}` {a}: {shown(getattr(old, a))} -> {shown(getattr(new, a))}", source)
            for a in attributes if getattr(old, a) != getattr(new, a)]


def _note_changes(element: str, path: str, old_paths: Sequence[tuple[str, str]], new_paths: Sequence[tuple[str, str]],
                  documentation: Notes, source: Source) -> list[Change]:
    def gather(paths: Sequence[tuple[str, str]]) -> dict[str, Any]:
        values: dict[str, Any] = {}
        for where in paths:
            node = documentation.get(where, {})
            values.update({k: node[k] for k in NOTE_KEYS[element] if k in node})
        return values

    before, after = gather(old_paths), gather(new_paths)
    return [_change("DCB220", f"{path}.{key}" if path else key, before.get(key), after.get(key),
                    f"`{path or 'contract'}` {key} changed", source)
            for key in NOTE_KEYS[element] if plain(before.get(key)) != plain(after.get(key))]


def _contract_changes(old: Contract, new: Contract, documentation: Notes) -> list[Change]:
    changes = []
    if old.id != new.id:
        changes.append(_change("DCB208", "id", old.id, new.id,
                               f"contract id {old.id} -> {new.id}: consumers find the contract by its id", new.source))
    changes += _texts("", old, new, ("title", "description", "owner"), new.source)
    changes += _note_changes("contract", "", [(old.file, ""), (old.file, "info")], [(new.file, ""), (new.file, "info")],
                             documentation, new.source)
    return changes


def _model_changes(old: Model, new: Model, documentation: Notes) -> list[Change]:
    path = new.name
    changes = _texts(path, old, new, ("description", "type"), new.source)
    if (old.physical_name or old.name) != (new.physical_name or new.name):
        changes.append(_change("DCB208", f"{path}.physicalName", old.physical_name or old.name, new.physical_name or new.name,
                               f"`{path}` is read from table `{new.physical_name or new.name}` (was `{old.physical_name or old.name}`)",
                               new.source))
    changes += _primary_key_changes(path, old, new)
    changes += _foreign_key_changes(path, old, new)
    if {(r.from_ref, r.to) for r in old.relates_to} != {(r.from_ref, r.to) for r in new.relates_to}:
        changes.append(_change("DCB220", f"{path}.relatesTo", [r.to for r in old.relates_to], [r.to for r in new.relates_to],
                               f"`{path}` informational relationships (relatesTo) changed", new.source))
    changes += _note_changes("model", path, [(old.source.file, old.source.path)], [(new.source.file, new.source.path)],
                             documentation, new.source)
    changes += _field_list_changes(path, old.fields, new.fields, new.source, documentation)
    changes += rule_changes(path, old.quality, new.quality, new.source)
    return changes


def _primary_key_changes(path: str, old: Model, new: Model) -> list[Change]:
    # the columns as a set: order does not change what a key guarantees (not null, unique together)
    before, after = frozenset(old.primary_key), frozenset(new.primary_key)
    if before == after:
        return []
    direction: Direction = "stronger" if not before else "weaker" if not after else "different"
    return [_change(code_for("constraint", direction), f"{path}.primaryKey", old.primary_key, new.primary_key,
                    f"`{path}` primary key {shown(old.primary_key)} -> {shown(new.primary_key)}", new.source)]


def _foreign_key_changes(path: str, old: Model, new: Model) -> list[Change]:
    def key(fk):
        return (fk.columns, fk.to_model, fk.to_columns)

    def text(fk) -> str:
        return f"{', '.join(fk.columns)} -> {fk.to_model}.{', '.join(fk.to_columns)}"

    pairs, removed, added = pair(old.foreign_keys, new.foreign_keys, [key])
    return ([_change("DCB213", f"{path}.foreignKey", text(fk), None, f"`{path}` foreign key {text(fk)} removed", new.source)
             for fk in removed]
            + [_change("DCB204", f"{path}.foreignKey", None, text(fk), f"`{path}` foreign key {text(fk)} added: values must now exist there",
                       fk.source) for fk in added]
            + [_id_change(f"{path}.foreignKey({text(after)})", before.id, after.id, after.source)
               for before, after in pairs if before.id != after.id])


def _id_change(path: str, old: str | None, new: str | None, source: Source) -> Change:
    # other contracts and reports reference an element by its id (ODCS RFC); a first id breaks no reference
    code = "DCB220" if old is None else "DCB208"
    return _change(code, f"{path}.id", old, new, f"`{path}` id {shown(old)} -> {shown(new)}", source)


def _field_list_changes(prefix: str, old: Sequence[Field], new: Sequence[Field], parent: Source, documentation: Notes) -> list[Change]:
    pairs, removed, added = pair(old, new, [attrgetter("name")])
    changes = [_change("DCB201", f"{prefix}.{f.name}", f.name, None, f"field `{prefix}.{f.name}` removed", parent) for f in removed]
    for f in added:
        # a new required field fails every row written without it: existing data and producers break
        code, what = ("DCB203", "required field") if f.required else ("DCB210", "optional field")
        changes.append(_change(code, f"{prefix}.{f.name}", None, f.name, f"{what} `{prefix}.{f.name}` added", f.source))
    for before, after in pairs:
        changes += field_changes(f"{prefix}.{after.name}", before, after, documentation)
    return changes


# ---------------------------------------------------------------------------------------------
# fields: one comparator per aspect; each returns (direction, what changed) for two differing values

Comparator = Callable[[Any, Any], tuple[Direction, str]]


def _flag(stronger: str, weaker: str) -> Comparator:
    return lambda old, new: ("stronger", stronger) if new else ("weaker", weaker)


def _replaceable(name: str) -> Comparator:
    """A constraint one value of which holds at a time (pattern, format): added, removed or replaced."""
    def compare(old: Any, new: Any) -> tuple[Direction, str]:
        if old is None:
            return "stronger", f"{name} {shown(new)} added"
        if new is None:
            return "weaker", f"{name} {shown(old)} removed"
        return "different", f"{name} {shown(old)} -> {shown(new)}"
    return compare


def set_direction(old: Sequence[Any] | None, new: Sequence[Any] | None) -> Direction:
    """Allowed values: fewer is stronger. None allows anything."""
    if old is None:
        return "same" if new is None else "stronger"
    if new is None:
        return "weaker"
    removed, added = [v for v in old if v not in new], [v for v in new if v not in old]
    return "same" if not removed and not added else "stronger" if not added else "weaker" if not removed else "different"


def _compare_enum(old: Sequence[Any] | None, new: Sequence[Any] | None) -> tuple[Direction, str]:
    direction = set_direction(old, new)
    if old is None or new is None:
        return direction, f"enum {shown(old)} -> {shown(new)}"
    removed, added = [v for v in old if v not in new], [v for v in new if v not in old]
    parts = ([f"removed {shown(removed)}"] if removed else []) + ([f"added {shown(added)}"] if added else [])
    return direction, "enum " + ", ".join(parts)


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


def _compare_range(name: str) -> Comparator:
    def compare(old: Interval, new: Interval) -> tuple[Direction, str]:
        return interval_direction((old,), (new,)), f"{name} {old} -> {new}"
    return compare


def _length(field: Field) -> Interval:
    return Interval(field.min_length, True, field.max_length, True)


def _value_range(field: Field) -> Interval:
    # an exclusive bound wins over an inclusive one, as in the check plan
    low, low_inclusive = (field.exclusive_minimum, False) if field.exclusive_minimum is not None else (field.minimum, True)
    high, high_inclusive = (field.exclusive_maximum, False) if field.exclusive_maximum is not None else (field.maximum, True)
    return Interval(low, low_inclusive, high, high_inclusive)


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


def _compare_classification(old: str | None, new: str | None) -> tuple[Direction, str]:
    return classification_direction(old, new), f"classification {shown(old)} -> {shown(new)}"


# aspect -> (what it reads from a field, how two differing values compare, aspect kind for ASPECT_CODES)
FIELD_ASPECTS: dict[str, tuple[Callable[[Field], Any], Comparator, str]] = {
    "required": (attrgetter("required"), _flag("is now required (was optional)", "is now optional (was required)"), "required"),
    "unique": (attrgetter("unique"), _flag("must now be unique", "need no longer be unique"), "constraint"),
    "pattern": (attrgetter("pattern"), _replaceable("pattern"), "constraint"),
    "format": (attrgetter("format"), _replaceable("format"), "constraint"),
    "enum": (attrgetter("enum"), _compare_enum, "constraint"),
    "length": (_length, _compare_range("length"), "constraint"),
    "range": (_value_range, _compare_range("range"), "constraint"),
    "pii": (attrgetter("pii"), _flag("is now marked PII", "is no longer marked PII"), "classification"),
    "classification": (attrgetter("classification"), _compare_classification, "classification"),
}
FIELD_TEXTS = ("description", "tags")
NESTED_SLOTS = ("items", "keys", "values")


def field_changes(path: str, old: Field, new: Field, documentation: Notes | None = None) -> list[Change]:
    changes = _type_changes(path, old, new)
    for name, (read, compare, aspect) in FIELD_ASPECTS.items():
        before, after = read(old), read(new)
        if before == after:
            continue
        direction, what = compare(before, after)
        if direction != "same":
            changes.append(_change(code_for(aspect, direction), f"{path}.{name}", before, after, f"`{path}` {what}", new.source))
    if (old.physical_name or old.name) != (new.physical_name or new.name):
        changes.append(_change("DCB208", f"{path}.physicalName", old.physical_name or old.name, new.physical_name or new.name,
                               f"`{path}` is read from column `{new.physical_name or new.name}` (was `{old.physical_name or old.name}`)",
                               new.source))
    if old.id != new.id:
        changes.append(_id_change(path, old.id, new.id, new.source))
    if old.semantic_type != new.semantic_type:
        changes.append(_semantic_type_change(path, old, new))
    changes += _texts(path, old, new, FIELD_TEXTS, new.source)
    changes += _note_changes("field", path, [(old.source.file, old.source.path)], [(new.source.file, new.source.path)],
                             documentation or {}, new.source)
    changes += rule_changes(path, old.quality, new.quality, new.source)
    changes += _field_list_changes(path, old.fields, new.fields, new.source, documentation or {})
    for slot in NESTED_SLOTS:
        before, after = getattr(old, slot), getattr(new, slot)
        if before is not None and after is not None:
            changes += field_changes(f"{path}.{slot}", before, after, documentation)
        elif before is not None or after is not None:
            direction: Direction = "stronger" if after is not None else "weaker"
            what = "now describes" if after is not None else "no longer describes"
            changes.append(_change(code_for("constraint", direction), f"{path}.{slot}", before is not None, after is not None,
                                   f"`{path}` {what} its {slot}", new.source))
    return changes


def _semantic_type_change(path: str, old: Field, new: Field) -> Change:
    """ODCS 3.2 `semanticType`: a measure or dimension is computed, no column of the data."""
    if old.computed == new.computed:  # measure <-> dimension, or unset <-> column: the data is the same
        code, what = "DCB220", f"semanticType {shown(old.semantic_type)} -> {shown(new.semantic_type)}"
    elif new.computed:  # consumers reading the column find none: as if the field were removed
        code, what = "DCB201", f"is no longer a column of the data (now a computed {new.semantic_type})"
    else:  # a column appears: as a field added, required or optional
        code = "DCB203" if new.required else "DCB210"
        what = f"is now a column of the data (was a computed {old.semantic_type})"
    return _change(code, f"{path}.semanticType", old.semantic_type, new.semantic_type, f"`{path}` {what}", new.source)


# ---------------------------------------------------------------------------------------------
# types and safe widenings

# canonical logical type -> the type vocabulary of the diff: the first Spark type it allows (`decimal`
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
_DECIMAL = re.compile(r"^decimal\((\d+),(\d+)\)$")


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
    old_decimal, new_decimal = _DECIMAL.match(old), _DECIMAL.match(new)
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


def _type_changes(path: str, old: Field, new: Field) -> list[Change]:
    before, after = field_type(old), field_type(new)
    if before == after:
        return []
    if before is None or after is None:
        direction: Direction = "stronger" if before is None else "weaker"
        what = f"type {after} now stated" if before is None else f"no longer states a type (was {before})"
        return [_change(code_for("constraint", direction), f"{path}.type", before, after, f"`{path}` {what}", new.source)]
    if is_safe_widening(before, after):
        return [_change("DCB211", f"{path}.type", before, after, f"`{path}` type {before} -> {after} (a safe widening)", new.source)]
    return [_change("DCB202", f"{path}.type", before, after, f"`{path}` type {before} -> {after} is not a safe widening", new.source)]


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


def rule_changes(path: str, old: Sequence[QualityRule], new: Sequence[QualityRule], parent: Source) -> list[Change]:
    pairs, removed, added = pair(old, new, RULE_KEYS)
    changes = []
    for rule in removed:
        # a text rule never runs: adding or removing one changes only documentation
        code = "DCB214" if rule.type != "text" else "DCB220"
        changes.append(_change(code, f"{path}.quality[{rule_label(rule)}]", describe_rule(rule), None,
                               f"`{path}` quality rule `{rule_label(rule)}` removed ({describe_rule(rule)})", parent))
    for rule in added:
        code = "DCB205" if rule.type != "text" else "DCB220"
        changes.append(_change(code, f"{path}.quality[{rule_label(rule)}]", None, describe_rule(rule),
                               f"`{path}` quality rule `{rule_label(rule)}` added ({describe_rule(rule)})", rule.source))
    for before, after in pairs:
        where = f"{path}.quality[{rule_label(after)}]"
        direction, what = rule_direction(before, after)
        if direction != "same":
            changes.append(_change(code_for("quality", direction), where, describe_rule(before), describe_rule(after),
                                   f"`{path}` quality rule `{rule_label(after)}`: {what}", after.source))
        changes += _texts(where, before, after, ("description", "dimension", "name"), after.source)
    return changes


# ---------------------------------------------------------------------------------------------
# service levels, quality objectives, servers


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


def _service_level_changes(old: Sequence[ServiceLevel], new: Sequence[ServiceLevel], parent: Source) -> list[Change]:
    pairs, removed, added = pair(old, new, service_level_keys())
    changes = [_change("DCB206", f"servicelevels.{level_name(s)}", describe_service_level(s), None,
                       f"service level {level_name(s)} removed (was {describe_service_level(s)})", parent) for s in removed]
    changes += [_change("DCB215", f"servicelevels.{level_name(s)}", None, describe_service_level(s),
                        f"service level {level_name(s)} added ({describe_service_level(s)})", s.source) for s in added]
    for before, after in pairs:
        path = f"servicelevels.{level_name(after)}"
        direction = service_level_direction(before, after)
        if direction != "same":
            verb = {"stronger": "strengthened", "weaker": "relaxed", "different": "changed"}[direction]
            changes.append(_change(code_for("service_level", direction), path, describe_service_level(before), describe_service_level(after),
                                   f"service level {level_name(after)} {verb}: {describe_service_level(before)} -> "
                                   f"{describe_service_level(after)}", after.source))
        if (before.model, before.field) != (after.model, after.field):
            column = lambda s: f"{s.model}.{s.field}" if s.field else None  # noqa: E731
            changes.append(_change("DCB206", f"{path}.element", column(before), column(after),
                                   f"service level {level_name(after)} is measured on {shown(column(after))} "
                                   f"(was {shown(column(before))})", after.source))
        changes += _texts(path, before, after, ("description",), after.source)
    return changes


def _objective_changes(old: Sequence[QualityObjective], new: Sequence[QualityObjective], parent: Source) -> list[Change]:
    pairs, removed, added = pair(old, new, [attrgetter("id"), attrgetter("rule_ids")])
    label = lambda o: o.id or ",".join(o.rule_ids)  # noqa: E731
    changes = [_change("DCB214", f"dataQuality[{label(o)}]", o.value, None, f"quality objective `{label(o)}` removed", parent)
               for o in removed]
    changes += [_change("DCB205", f"dataQuality[{label(o)}]", None, o.value, f"quality objective `{label(o)}` added ({shown(o.value)})",
                        o.source) for o in added]
    for before, after in pairs:
        direction = objective_direction(before, after)
        if direction != "same":
            changes.append(_change(code_for("quality", direction), f"dataQuality[{label(after)}]", before.value, after.value,
                                   f"quality objective `{label(after)}`: {shown(before.value)} of {shown(before.rule_ids)} -> "
                                   f"{shown(after.value)} of {shown(after.rule_ids)}", after.source))
    return changes


def objective_direction(old: QualityObjective, new: QualityObjective) -> Direction:
    """A higher share of the same rules that must pass is stronger; other rules are a different objective."""
    if set(old.rule_ids) != set(new.rule_ids) or old.unit != new.unit:
        return "different"
    return "same" if old.value == new.value else "stronger" if new.value > old.value else "weaker"


# server attributes whose change moves the data away from its consumers
SERVER_LOCATION = ("type", "format", "location")


def _server_changes(old: Sequence[Server], new: Sequence[Server], parent: Source) -> list[Change]:
    pairs, removed, added = pair(old, new, [attrgetter("name")])
    changes = [_change("DCB208", f"servers.{s.name}", s.location or s.type, None,
                       f"server `{s.name}` removed: consumers reading from it lose the data", parent) for s in removed]
    changes += [_change("DCB210", f"servers.{s.name}", None, s.location or s.type, f"server `{s.name}` added", s.source) for s in added]
    for before, after in pairs:
        for attribute in SERVER_LOCATION:
            if getattr(before, attribute) != getattr(after, attribute):
                changes.append(_change("DCB208", f"servers.{after.name}.{attribute}", getattr(before, attribute), getattr(after, attribute),
                                       f"server `{after.name}` {attribute} {shown(getattr(before, attribute))} -> "
                                       f"{shown(getattr(after, attribute))}", after.source))
        for key in sorted(set(before.settings) | set(after.settings), key=str):
            if plain(before.settings.get(key)) != plain(after.settings.get(key)):
                changes.append(_change("DCB220", f"servers.{after.name}.{key}", before.settings.get(key), after.settings.get(key),
                                       f"server `{after.name}` {key} changed", after.source))
    return changes


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


# a threshold in the diff's words, numbers as `shown`: `between 1% and 5%` (whether a bound is included is not told)
WORDS = Syntax(compare="{op} {value}{unit}", between="between {low}{unit} and {high}{unit}", not_between="not {between}",
               number=shown)
