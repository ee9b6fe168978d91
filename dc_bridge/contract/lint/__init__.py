"""Lint: the official JSON schema plus the semantic rules that decide whether a contract can run.

Findings of the loader (wrong types, unresolved references, cycles) come first; this module adds
the JSON-schema findings and the rules that need the whole normalised contract.
"""

from __future__ import annotations

from pathlib import Path
from typing import Mapping

from dc_bridge import config
from dc_bridge.contract.evolution.inheritance import inheritance_findings
from dc_bridge.contract.findings import Finding
from dc_bridge.contract.reading.document import Document
from dc_bridge.contract.reading.load import LoadResult, load_contract
from dc_bridge.contract.lint.examples import example_findings
from dc_bridge.contract.lint.java_regex import RegexCompiler, java_regex_errors
from dc_bridge.contract.lint.rules import pattern_findings, semantic_findings
from dc_bridge.contract.lint.schema import _said_already, referenced_key_findings, validate_schema

__all__ = ["lint_file", "lint_loaded", "lint_patterns", "pattern_findings", "semantic_findings"]


def lint_file(path: str | Path, variables: Mapping[str, str] | None = None,
              regex_compiler: RegexCompiler = java_regex_errors, document: Document | None = None) -> LoadResult:
    """Load one contract (with the caller's `variables`, contract/reading/variables.py) and add every
    lint finding to the result; `regex_compiler` judges its patterns as Java does (java_regex.py). `document`:
    the file as the command that wrote it knows it (importing/written.py), read instead of the file."""
    return lint_loaded(load_contract(path, variables, document), regex_compiler)


def lint_loaded(result: LoadResult, regex_compiler: RegexCompiler | None = java_regex_errors) -> LoadResult:
    """Add every lint finding to a contract load's result (in place; returned for convenience). With
    `regex_compiler` None, the patterns are left for `lint_patterns`: what needs no JVM is all found first."""
    if result.contract is None and not result.documents:
        return result
    main = result.documents[0] if result.documents else None
    schema_findings: list[Finding] = []
    schema_at = len(result.findings)
    if main is not None and result.kind is not None:
        schema_findings = validate_schema(main, result.kind, result.contract.spec_version if result.contract else "")
        if result.contract is not None:
            result.findings.extend(referenced_key_findings(main, result.kind, result.definitions, result.contract.spec_version))
    if result.contract is not None:
        # a name still holding an unresolved variable is DCB174's: DCB173 would say to rename it
        unresolved = {(f.file, f.path) for f in result.findings if f.code == "DCB174"}
        result.findings.extend(f for f in semantic_findings(result.contract, regex_compiler) if f.code != "DCB173" or not
                               {(f.file, f"{f.path}.{key}") for key in ("name", "physicalName")} & unresolved)
        result.findings.extend(inheritance_findings(result))
        result.findings.extend(example_findings(result))
    # what dc-bridge's own rules already said as an error at a place (DCB151 for `minimum: .nan`) is not
    # said again by the schema; a warning (DCB112) must not hide what the schema rejects
    said: dict[tuple[str, str], list[str]] = {}
    for finding in result.findings:
        if finding.level == "error":
            said.setdefault((finding.file, finding.path), []).append(finding.message)
    result.findings[schema_at:schema_at] = [f for f in schema_findings if not _said_already(f, said)]
    # the normalisers can meet one bad value on several paths (`schema: {}` is read for models,
    # relationships and SLAs): report each finding once
    result.findings[:] = list(dict.fromkeys(result.findings))
    result.findings.sort(key=lambda f: (f.file, f.line or 0, f.code))
    # the project's enforcement levels (config.py): a validator turned off says nothing, one set to warn only warns
    result.findings[:] = config.enforce(result.findings)
    return result




def lint_patterns(result: LoadResult, regex_compiler: RegexCompiler) -> LoadResult:
    """Add what `lint_loaded(result, None)` left out: the contract's patterns judged by `regex_compiler`
    (a run's compiles them in its Spark JVM, started for them only once nothing else stopped the run)."""
    if result.contract is not None:
        result.findings.extend(config.enforce(pattern_findings(result.contract, regex_compiler)))
        result.findings.sort(key=lambda f: (f.file, f.line or 0, f.code))
    return result
