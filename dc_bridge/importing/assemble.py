"""The carried checks of every source laid into one ODCS 3.x document.

One schema object per dataset (model), in the order the sources name them; each field once, with the
properties the checks set on it; each quality rule on its field, or on the model when it names none. The
same rule from two sources (equal but for its description and provenance) is kept once. Two checks that
disagree are listed as conflicts: a property set to two values (the first source's value is written), or
two rules on one subject with different thresholds (both are written: each source's tool ran both, so the
contract keeps the stricter pair). `base` is an existing contract (`--merge`): generate/merge.py lays it
over the imported document key by key, its keys winning and none lost.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from dc_bridge.contract.reading.quality import THRESHOLD_KEYS
from dc_bridge.generate.merge import lost_keys, merge
from dc_bridge.generate.odcs import API_VERSIONS
from dc_bridge.importing.model import Carried
from dc_bridge.importing.written import written

# keys that say where a rule came from or what it is called, not what it checks: two sources' rules equal
# but for these are one rule
PROVENANCE_KEYS = frozenset({"name", "description", "id", "customProperties", "tags"})
# keys that judge a rule's subject rather than name it: equal subjects with different judgements conflict
JUDGEMENT_KEYS = frozenset(THRESHOLD_KEYS) | {"severity", "unit"}


@dataclass(frozen=True)
class Conflict:
    """Two source checks that disagree on one subject: `key` is the property (`required`, `logicalType`) or
    `rule`; `kept` what the contract has from the first, `other` the second's value (a rule: its judgement)."""
    model: str
    field: str | None
    key: str
    kept: Any
    other: Any
    first: str       # `file location` of the check whose value was kept
    second: str

    def as_json(self) -> dict[str, Any]:
        return {"model": self.model, "field": self.field, "key": self.key, "kept": self.kept, "other": self.other,
                "first": self.first, "second": self.second}


@dataclass
class Assembled:
    document: dict[str, Any]
    conflicts: list[Conflict] = field(default_factory=list)
    duplicates: list[tuple[Carried, Carried]] = field(default_factory=list)  # (kept once, the same rule again)


def assemble(carried: list[Carried], *, id: str, standard: str = "3.1", name: str | None = None, version: str = "1.0.0",
             base: dict[str, Any] | None = None, sources: list[str] | None = None) -> Assembled:
    """The ODCS document of every mapped or custom check in `carried` (refused ones write nothing), with the
    conflicts and duplicates found on the way. `sources`: the SOURCE specs, named in the description."""
    if standard not in API_VERSIONS:
        raise ValueError(f"ODCS {standard} cannot be written: give one of {', '.join(API_VERSIONS)}")
    models: dict[str, _Model] = {}
    result = Assembled(document={})
    for item in carried:
        if item.outcome == "refused":
            continue
        model = models.setdefault(item.model, _Model(item.model))
        model.add(item, result)
    document: dict[str, Any] = {"apiVersion": API_VERSIONS[standard], "kind": "DataContract", "id": id, "name": name or id,
                                "version": version, "status": "draft"}
    if sources:
        document["description"] = {"purpose": "Imported by dc-bridge import from " + ", ".join(sources) + "."}
    document["schema"] = [model.document() for model in models.values()]
    if base is not None:
        merged = merge(document, base)
        missing = lost_keys(base, merged)
        assert not missing, f"the merge lost {missing}"  # merge.py keeps every key of the base by construction
        document = merged
    result.document = document
    return result


def contract_text(document: dict[str, Any]) -> str:
    """The contract file's text (importing/written.py, which also gives what lint reads of it)."""
    return written(document, "")[0]


def _where(item: Carried) -> str:
    return f"{item.check.file} {item.check.location}"


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str, ensure_ascii=False)


def _identity(rule: dict[str, Any]) -> str:
    return _canonical({k: v for k, v in rule.items() if k not in PROVENANCE_KEYS})


def _subject(rule: dict[str, Any]) -> str:
    return _canonical({k: v for k, v in rule.items() if k not in PROVENANCE_KEYS | JUDGEMENT_KEYS})


@dataclass
class _Rules:
    """The quality rules of one field or model: each identity once, subjects compared for conflicts."""
    rules: list[dict[str, Any]] = field(default_factory=list)
    by_identity: dict[str, Carried] = field(default_factory=dict)
    by_subject: dict[str, Carried] = field(default_factory=dict)

    def add(self, item: Carried, model: str, result: Assembled) -> None:
        rule = item.rule
        identity = _identity(rule)
        if identity in self.by_identity:
            result.duplicates.append((self.by_identity[identity], item))
            return
        subject = _subject(rule)
        if subject in self.by_subject:
            first = self.by_subject[subject]
            result.conflicts.append(Conflict(model, item.field, "rule", _judgement(first.rule), _judgement(rule),
                                             _where(first), _where(item)))
        else:
            self.by_subject[subject] = item
        self.by_identity[identity] = item
        self.rules.append(rule)


def _judgement(rule: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in rule.items() if k in JUDGEMENT_KEYS}


@dataclass
class _Field:
    name: str
    properties: dict[str, tuple[Any, Carried]] = field(default_factory=dict)
    quality: _Rules = field(default_factory=_Rules)

    def document(self) -> dict[str, Any]:
        written = {"name": self.name, **{key: value for key, (value, _) in self.properties.items()}}
        if self.quality.rules:
            written["quality"] = self.quality.rules
        return written


@dataclass
class _Model:
    name: str
    fields: dict[str, _Field] = field(default_factory=dict)
    quality: _Rules = field(default_factory=_Rules)

    def add(self, item: Carried, result: Assembled) -> None:
        if item.field is None:
            if item.rule is not None:
                self.quality.add(item, self.name, result)
            return
        target = self.fields.setdefault(item.field, _Field(item.field))
        for key, value in item.properties.items():
            if key not in target.properties:
                target.properties[key] = (value, item)
            elif _canonical(target.properties[key][0]) != _canonical(value):
                kept, first = target.properties[key]
                result.conflicts.append(Conflict(self.name, item.field, key, kept, value, _where(first), _where(item)))
        if item.rule is not None:
            target.quality.add(item, self.name, result)

    def document(self) -> dict[str, Any]:
        written: dict[str, Any] = {"name": self.name, "physicalName": self.name, "physicalType": "table",
                                   "properties": [f.document() for f in self.fields.values()]}
        if self.quality.rules:
            written["quality"] = self.quality.rules
        return written
