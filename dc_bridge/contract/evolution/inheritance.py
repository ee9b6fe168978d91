"""Contract inheritance: a child contract may tighten what its parents require, never loosen it.

Neither standard defines inheritance, so a contract names its parents with a specification extension,
`x-dc-bridge-extends` (one path or a list, relative to the contract that names it):

    # DCS: a top-level specification extension (DCS allows `x-` keys)
    x-dc-bridge-extends: [../enterprise.yaml]

    # ODCS: a custom property (the ODCS schema refuses unknown top-level keys)
    customProperties:
      - property: x-dc-bridge-extends
        value: [../enterprise.yaml]

A parent names its own parents the same way, to any depth (enterprise -> domain -> product), in
either standard. The linted contract is compared with every ancestor, its elements paired and
compared as the diff compares them (contract/evolution/algebra.py): a looser freshness, latency,
availability or retention, a weaker quality rule, a removed or lowered classification or PII marking,
and a removed required flag are errors. What the child
does not restate it inherits, which is not a weakening. Cycles and missing parents are errors at the
line that names the parent.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from operator import attrgetter
from pathlib import Path
from typing import Any, Sequence

from dc_bridge.contract.evolution.algebra import (
    RULE_KEYS, SERVICE_LEVEL_MEASURES, classification_direction, describe_rule, describe_service_level, level_name,
    objective_direction, pair, rule_direction, rule_label, service_level_direction, service_level_keys, shown,
)
from dc_bridge.contract.reading.document import Document, format_path
from dc_bridge.contract.reading.load import LoadResult, load_contract
from dc_bridge.contract.model import Contract, Field, QualityRule, Source
from dc_bridge.contract.reading.reader import describe
from dc_bridge.contract.findings import Finding

EXTENDS = "x-dc-bridge-extends"
_NOT_WEAKER = ("same", "stronger")


@dataclass(frozen=True)
class Ancestor:
    contract: Contract
    label: str  # how messages name it: its path relative to the linted contract's folder
    files: tuple[str, ...] = ()  # the files its load read (itself first): a command's inputs, not read again


def inheritance_findings(result: LoadResult) -> list[Finding]:
    """Every place the loaded contract weakens an ancestor, plus cycles and missing parents."""
    if result.contract is None or not result.documents or result.kind != result.contract.format:
        return []  # nothing loaded, or a quality-rule library: neither has parents
    found, findings = ancestors(result)
    for ancestor in found:
        findings += weakenings(result.contract, ancestor)
    return findings


def declared_parents(document: Document, findings: list[Finding]) -> list[tuple[tuple, str]]:
    """(path of the entry, parent path as written) for each parent the document names."""
    data = document.data
    if not isinstance(data, dict):
        return []
    entries: list[tuple[tuple, Any]] = [((EXTENDS,), data[EXTENDS])] if EXTENDS in data else []
    properties = data.get("customProperties")
    for index, item in enumerate(properties if isinstance(properties, list) else []):
        if isinstance(item, dict) and item.get("property") == EXTENDS:
            entries.append((("customProperties", index, "value"), item.get("value")))
    parents = []
    for path, value in entries:
        items = list(enumerate(value)) if isinstance(value, list) else [(None, value)]
        for index, item in items:
            item_path = path if index is None else path + (index,)
            if isinstance(item, str) and item.strip():
                parents.append((item_path, item.strip()))
            else:
                findings.append(Finding("DCB101", document.file, format_path(item_path), f"`{EXTENDS}` must name parent contract files",
                                        line=document.line_of(item_path), expected="a path or a list of paths", found=describe(item)))
    return parents


def ancestors(result: LoadResult) -> tuple[list[Ancestor], list[Finding]]:
    """Every ancestor, nearest first and each once (a parent reached twice through a diamond is one)."""
    findings: list[Finding] = []
    found: list[Ancestor] = []
    home = Path(result.file).resolve().parent
    loaded: set[str] = set()

    def label(resolved: str) -> str:
        return Path(os.path.relpath(resolved, home)).as_posix()

    def visit(document: Document, stack: list[str]) -> None:
        for path, reference in declared_parents(document, findings):
            target = Path(document.file).parent / reference
            key = str(target.resolve())
            where = dict(line=document.line_of(path))
            if key in stack:
                cycle = " -> ".join(label(k) for k in stack[stack.index(key):] + [key])
                findings.append(Finding("DCB245", document.file, format_path(path), f"inheritance cycle: {cycle}",
                                        expected="no contract among its own ancestors", found=cycle, **where))
                continue
            if key in loaded:
                continue
            if not target.is_file():
                findings.append(Finding("DCB244", document.file, format_path(path), f"parent contract {reference} does not exist",
                                        expected="an existing contract file, relative to this one", found=str(target), **where))
                continue
            parent = load_contract(str(target), variables=result.variables)
            problem = _unusable(parent)
            if problem:
                findings.append(Finding("DCB244", document.file, format_path(path), f"parent contract {reference} {problem}",
                                        expected="a DCS or ODCS contract", found=problem, **where))
                continue
            loaded.add(key)
            found.append(Ancestor(parent.contract, label(key), tuple(d.file for d in parent.documents)))
            visit(parent.documents[0], stack + [key])

    visit(result.documents[0], [str(Path(result.file).resolve())])
    return found, findings


def _unusable(parent: LoadResult) -> str | None:
    if parent.contract is None:
        first = next((f.message for f in parent.findings if f.level == "error"), "cannot be read")
        return f"cannot be read: {first}"
    if parent.kind != parent.contract.format:
        return "is a quality-rule library, not a contract"
    return None


# ---------------------------------------------------------------------------------------------
# what a child may not weaken


def weakenings(child: Contract, ancestor: Ancestor) -> list[Finding]:
    parent = ancestor.contract
    findings = _service_level_weakenings(child, ancestor)
    findings += _objective_weakenings(child, ancestor)
    for parent_model, model in pair(parent.models, child.models, [attrgetter("name")])[0]:
        findings += _rule_weakenings(model.name, parent_model.quality, model.quality, ancestor)
        findings += _field_weakenings(model.name, parent_model.fields, model.fields, ancestor)
    return findings


def _at(source: Source, code: str, message: str, expected: str, found: str) -> Finding:
    return Finding(code, source.file, source.path, message, line=source.line, expected=expected, found=found)


def _service_level_weakenings(child: Contract, ancestor: Ancestor) -> list[Finding]:
    findings = []
    for required, level in pair(ancestor.contract.service_levels, child.service_levels, service_level_keys())[0]:
        if level.kind not in SERVICE_LEVEL_MEASURES:
            continue  # no known order for other service levels: nothing to call weaker
        direction = service_level_direction(required, level)
        if direction in _NOT_WEAKER:
            continue
        name, theirs, ours = level_name(level), describe_service_level(required), describe_service_level(level)
        bound = "at least" if SERVICE_LEVEL_MEASURES[level.kind][1] else "at most"
        message = (f"{name} {ours} is weaker than {theirs} required by {ancestor.label}" if direction == "weaker" else
                   f"{name} {ours} cannot be compared with {theirs} required by {ancestor.label}")
        findings.append(_at(level.source, "DCB240", message, f"{bound} {theirs} ({ancestor.label})", ours))
    return findings


def _objective_weakenings(child: Contract, ancestor: Ancestor) -> list[Finding]:
    findings = []
    for required, objective in pair(ancestor.contract.quality_objectives, child.quality_objectives,
                                    [attrgetter("id"), attrgetter("rule_ids")])[0]:
        if objective_direction(required, objective) not in _NOT_WEAKER:
            name = objective.id or ",".join(objective.rule_ids)
            findings.append(_at(objective.source, "DCB241",
                                f"quality objective `{name}` {shown(objective.value)} of {shown(objective.rule_ids)} is weaker than "
                                f"{shown(required.value)} of {shown(required.rule_ids)} required by {ancestor.label}",
                                f"at least {shown(required.value)} of {shown(required.rule_ids)} ({ancestor.label})", shown(objective.value)))
    return findings


def _rule_weakenings(path: str, required: Sequence[QualityRule], rules: Sequence[QualityRule], ancestor: Ancestor) -> list[Finding]:
    findings = []
    for theirs, ours in pair(required, rules, RULE_KEYS)[0]:
        direction, what = rule_direction(theirs, ours)
        if direction in _NOT_WEAKER:
            continue
        verb = "is weaker than" if direction == "weaker" else "cannot be compared with"
        findings.append(_at(ours.source, "DCB241", f"`{path}` quality rule `{rule_label(ours)}` {verb} in {ancestor.label}: {what}",
                            f"{describe_rule(theirs)}, severity {theirs.severity}, or stricter ({ancestor.label})",
                            f"{describe_rule(ours)}, severity {ours.severity}"))
    return findings


def _field_weakenings(prefix: str, required: Sequence[Field], fields: Sequence[Field], ancestor: Ancestor) -> list[Finding]:
    findings = []
    for theirs, ours in pair(required, fields, [attrgetter("name")])[0]:
        findings += _one_field_weakenings(f"{prefix}.{ours.name}", theirs, ours, ancestor)
    return findings


def _one_field_weakenings(path: str, theirs: Field, ours: Field, ancestor: Ancestor) -> list[Finding]:
    findings = []
    if theirs.required and not ours.required:
        findings.append(_at(ours.source, "DCB243", f"`{path}` is optional, but {ancestor.label} requires it",
                            f"required: true (as in {ancestor.label})", "optional"))
    if theirs.pii and not ours.pii:
        findings.append(_at(ours.source, "DCB242", f"`{path}` is not marked PII, but {ancestor.label} marks it",
                            f"a PII marking (as in {ancestor.label})", "none"))
    direction = classification_direction(theirs.classification, ours.classification)
    if direction not in _NOT_WEAKER:
        verb = "is lower than" if direction == "weaker" else "cannot be compared with"
        findings.append(_at(ours.source, "DCB242", f"`{path}` classification {shown(ours.classification)} {verb} "
                            f"{shown(theirs.classification)} required by {ancestor.label}",
                            f"classification {shown(theirs.classification)} or higher ({ancestor.label})", shown(ours.classification)))
    findings += _rule_weakenings(path, theirs.quality, ours.quality, ancestor)
    findings += _field_weakenings(path, theirs.fields, ours.fields, ancestor)
    for slot in ("items", "keys", "values"):
        if getattr(theirs, slot) is not None and getattr(ours, slot) is not None:
            findings += _one_field_weakenings(f"{path}.{slot}", getattr(theirs, slot), getattr(ours, slot), ancestor)
    return findings
