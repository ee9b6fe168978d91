"""Contract evolution: every difference between two versions of a contract, classified.

`diff(old, new)` reads only the format-neutral model, so any mix of DCS and ODCS is compared by what
the contracts say, not how they are written: a DCS contract rewritten in ODCS with the same meaning
has no changes. Each difference is a `Change` that is `breaking` (a consumer, or data that passed
before, may break: MAJOR), `non-breaking` (MINOR) or `patch` (documentation: PATCH), with the lint
code that names its rule (the code table is in contract/findings.py).

Elements are paired as contract/evolution/algebra.py pairs them. A renamed element is a removal plus
an addition: the data changed for every consumer that reads it by its old name.

Each aspect is compared as a direction (contract/evolution/algebra.py: stronger, weaker, same,
different). Whether that breaks anyone depends on the aspect (ASPECT_CODES): a stricter constraint
or quality threshold may fail data that passed before (breaking), a stricter SLA only gives
consumers more (non-breaking). `different` is breaking: what cannot be shown safe is treated as unsafe.
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import attrgetter
from typing import Any, Callable, Literal, Mapping, Sequence

from dc_bridge.contract.evolution.algebra import (
    RULE_KEYS, Direction, Interval, classification_direction, describe_rule, describe_service_level, field_type, interval_direction,
    is_safe_widening, level_name, objective_direction, pair, plain, rule_direction, rule_label, service_level_direction,
    service_level_keys, set_direction, shown,
)
from dc_bridge.contract.findings import Finding
from dc_bridge.contract.model import Contract, Field, Model, QualityObjective, QualityRule, Server, ServiceLevel, Source
from dc_bridge.contract.reading.document import format_path

Kind = Literal["breaking", "non-breaking", "patch"]

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


def _compare_enum(old: Sequence[Any] | None, new: Sequence[Any] | None) -> tuple[Direction, str]:
    direction = set_direction(old, new)
    if old is None or new is None:
        return direction, f"enum {shown(old)} -> {shown(new)}"
    removed, added = [v for v in old if v not in new], [v for v in new if v not in old]
    parts = ([f"removed {shown(removed)}"] if removed else []) + ([f"added {shown(added)}"] if added else [])
    return direction, "enum " + ", ".join(parts)


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
