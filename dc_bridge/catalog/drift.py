"""Schema drift against a catalog's tables: each model's table (NAMESPACE.<physical name or name>) read
from the catalog's metadata, compared as runner/drift.py compares a DataFrame's schema (DCB300-DCB302).

A table that does not exist yet is DCB304 (info; a warning when its name is a likely typo of one there) and its drift is skipped: the first run creates it. Its
message says which catalog was read and what is there instead: the namespace's tables, and the one the
name is most likely a typo of, so `not created yet` and `misspelt` read differently. (A namespace that
does not exist is decided before this, by the command: cli/catalog.namespace_state.)
"""

from __future__ import annotations

from dc_bridge.catalog.store import Store, closest, listed
from dc_bridge.contract.findings import Finding
from dc_bridge.contract.model import Contract
from dc_bridge.runner.drift import model_drift


def table_name(model) -> str:
    return model.physical_name or model.name


def catalog_drift(contract: Contract, store: Store, namespace: str, *, strict: bool = False) -> list[Finding]:
    findings: list[Finding] = []
    tables: list[str] | None = None  # listed once, for the first table that is not there
    for model in contract.models:
        table = f"{namespace}.{table_name(model)}"
        schema = store.table_schema(namespace, table_name(model))
        if schema is None:
            tables = store.tables(namespace) if tables is None else tables
            typo = closest(table_name(model), tables)
            there = (f"; did you mean `{namespace}.{typo}`? (the model's physicalName names its table)" if typo
                     else f" yet; its drift check is skipped (the first run creates it); tables in {namespace}: {listed(tables)}")
            findings.append(Finding("DCB304", model.source.file, model.source.path,
                                    f"table `{table}` of model `{model.name}` does not exist in {store.label}{there}",
                                    line=model.source.line, expected=f"table {table}", found="no such table",
                                    # a likely typo warns: the run would not find the table either
                                    severity="warning" if typo else None,
                                    hint=f"Correct the model's physicalName to {typo!r}, or create the table." if typo else None))
            continue
        findings += model_drift(model, schema, strict=strict)
    return findings
