"""Schema drift against a catalog's tables: each model's table (NAMESPACE.<physical name or name>) read
from the catalog's metadata, compared as runner/drift.py compares a DataFrame's schema (DCB300-DCB302).

A table that does not exist yet is DCB304 (info) and its drift is skipped: the first run creates it.
"""

from __future__ import annotations

from dc_bridge.catalog.store import Store
from dc_bridge.contract.findings import Finding
from dc_bridge.contract.model import Contract
from dc_bridge.runner.drift import model_drift


def table_name(model) -> str:
    return model.physical_name or model.name


def catalog_drift(contract: Contract, store: Store, namespace: str, *, strict: bool = False) -> list[Finding]:
    findings: list[Finding] = []
    for model in contract.models:
        table = f"{namespace}.{table_name(model)}"
        schema = store.table_schema(namespace, table_name(model))
        if schema is None:
            findings.append(Finding("DCB304", model.source.file, model.source.path,
                                    f"table `{table}` of model `{model.name}` does not exist in {store.label} yet; its drift check "
                                    f"is skipped (the first run creates it)", line=model.source.line,
                                    expected=f"table {table}", found="no such table"))
            continue
        findings += model_drift(model, schema, strict=strict)
    return findings
