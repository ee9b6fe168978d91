"""Registering contracts in a catalog's namespace properties, and reading the registered version back.

Properties of the namespace (Iceberg namespace properties, Spark DBPROPERTIES):

    dc-bridge.contracts                  {"customers": "1.1.0", ...}: every contract registered here, current version
    dc-bridge.contract.<id>@<version>    the registration record of that version (records.py), as JSON

A new version adds its record and becomes current; the earlier records stay, so the namespace lists
every version ever registered (the audit trail). Registering a version's text again changes nothing;
registering another text under a version already registered is refused (a changed contract is a new
version). The text itself is kept where the store keeps it (under the warehouse, or in properties),
and every read checks it against the record's digest.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from dc_bridge.catalog.records import Record, new_record, text_digest, verified_text
from dc_bridge.catalog.store import Store
from dc_bridge.contract.model import Contract

INDEX = "dc-bridge.contracts"
_RECORD = "dc-bridge.contract."


def record_key(contract_id: str, version: str) -> str:
    return f"{_RECORD}{contract_id}@{version}"


class VersionConflict(ValueError):
    """The version is registered already, with another text."""


@dataclass(frozen=True)
class Registration:
    record: Record
    changed: bool  # False: this text was registered already as this version
    previous: Record | None  # the version that was current before


def _file_name(contract_id: str, version: str, digest: str) -> str:
    """A name for the stored text that any file system and property key takes: id, version, digest prefix."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", f"{contract_id}@{version}")
    return f"{safe}-{digest.partition(':')[2][:12]}"


def index(properties: dict[str, str] | None) -> dict[str, str]:
    try:
        listed = json.loads((properties or {}).get(INDEX, "{}"))
    except json.JSONDecodeError:
        return {}
    return listed if isinstance(listed, dict) else {}


def register(store: Store, namespace: str, contract: Contract, text: bytes) -> Registration:
    properties = store.properties(namespace) or {}
    listed = index(properties)
    current = listed.get(contract.id)
    previous = Record.from_json(properties[record_key(contract.id, current)]) if current and record_key(contract.id, current) in properties else None
    existing = properties.get(record_key(contract.id, contract.version))
    digest = text_digest(text)
    if existing is not None:
        record = Record.from_json(existing)
        if record.text_digest != digest:
            raise VersionConflict(f"{contract.id} {contract.version} is registered in {store.label} namespace {namespace} with another "
                                  f"text (registered {record.registered_at}, {record.text_digest}); a changed contract needs a new version")
        if current == contract.version:
            return Registration(record, False, previous)
    location, text_properties = store.keep_text(namespace, _file_name(contract.id, contract.version, digest), text)
    record = new_record(contract, text, location)
    store.set_properties(namespace, {**text_properties, record_key(contract.id, contract.version): record.to_json(),
                                     INDEX: json.dumps({**listed, contract.id: contract.version}, sort_keys=True)})
    return Registration(record, True, previous)


def history(properties: dict[str, str] | None, contract_id: str) -> list[Record]:
    """Every registered version of the contract, oldest registration first."""
    prefix = f"{_RECORD}{contract_id}@"
    records = [Record.from_json(value) for key, value in (properties or {}).items() if key.startswith(prefix)]
    return sorted(records, key=lambda r: (r.registered_at, r.version))


def registered(store: Store, namespace: str, contract_id: str) -> tuple[Record, bytes] | None:
    """The current registered version and its text, checked against the record's digest (DigestMismatch);
    None when the contract was never registered in the namespace (the first registration has no baseline)."""
    properties = store.properties(namespace)
    version = index(properties).get(contract_id)
    if version is None:
        return None
    raw = properties.get(record_key(contract_id, version))
    if raw is None:
        raise ValueError(f"{store.label} namespace {namespace} lists {contract_id} {version} but holds no record of it "
                         f"(property {record_key(contract_id, version)})")
    record = Record.from_json(raw)
    return record, verified_text(record, store.read_text(record.location, properties))
