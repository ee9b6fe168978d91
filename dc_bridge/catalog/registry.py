"""Registering contracts in a catalog's namespace properties, and reading the registered version back.

Each registered version is one property of the namespace (Iceberg namespace properties, Spark DBPROPERTIES):

    dc-bridge.contract.<id>@<version>    the registration record of that version (records.py), as JSON

and nothing else is shared between registrations: no index is read, changed and written back, so
registrations of different contracts (or versions) written at the same time cannot drop each other
(a catalog that writes properties one key at a time, as pyiceberg's catalogs do, keeps them all).
A key is that plain text for a lower-case id and version of letters, digits, `.`, `_`, `-` (and `+` in
a version); any other id or version (upper case, spaces, `@`, quotes, unicode, very long) has a key
of its digest, `dc-bridge.contract.~<hex>`, which every catalog takes as it is (no quoting, no case
folding, within the 255 characters catalogs bound a key to). The record names its id and version, so
reading never parses a key.

The current version of a contract is the highest registered version (SemVer precedence): it only moves
forward. Registering a version's text again changes nothing; registering another text under a version
already registered is refused (a changed contract is a new version; `v1.2.0` and `1.2.0+build.7` are
1.2.0, as SemVer orders them); registering a version below the current one records it in the audit trail and leaves the
current one current. The text itself is kept where the store keeps it (under the warehouse, or in
properties), and every read checks it against the record's digest.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass

from dc_bridge.catalog.records import Record, new_record, text_digest, verified_text
from dc_bridge.catalog.store import CatalogUnavailable, Store
from dc_bridge.compiler import safe_name
from dc_bridge.contract.evolution.versioning import SemVer
from dc_bridge.contract.model import Contract

_RECORD = "dc-bridge.contract."
_PLAIN_ID = re.compile(r"[a-z0-9][a-z0-9._-]*")
_PLAIN_VERSION = re.compile(r"[a-z0-9][a-z0-9._+-]*")
_MAX_PLAIN = 160  # with the prefix, well under the 255 characters of a catalog's property key
# a catalog that replaces a namespace's whole property map (Spark's ALTER NAMESPACE) can drop a record another
# writer set between its read and its write: the record is read back, and written again this many times
_WRITES = 3


def record_key(contract_id: str, version: str) -> str:
    """The property holding the record of `contract_id` `version` (see the module's docstring)."""
    if _PLAIN_ID.fullmatch(contract_id) and _PLAIN_VERSION.fullmatch(version) and len(contract_id) + len(version) < _MAX_PLAIN:
        return f"{_RECORD}{contract_id}@{version}"
    digest = hashlib.sha256(json.dumps([contract_id, version]).encode("utf-8")).hexdigest()[:40]
    return f"{_RECORD}~{digest}"


class VersionConflict(ValueError):
    """The version is registered already, with another text."""


class NotSemVer(ValueError):
    """The contract's version is no semantic version, so it cannot be ordered against the registered ones."""


class BadRecord(ValueError):
    """A property under the record prefix that is not a registration record (edited by hand, cut short)."""


@dataclass(frozen=True)
class Registration:
    record: Record
    changed: bool  # False: this text was registered already as this version
    previous: Record | None  # the version that was current before
    current: Record  # the version that is current after: `record`, unless it is below the current one


def _file_name(contract_id: str, version: str, digest: str) -> str:
    """A name for the stored text that any file system, URI and property key takes: id, version, digest prefix."""
    return f"{safe_name(f'{contract_id}@{version}', 'contract')}-{digest.partition(':')[2][:12]}"


def records(properties: dict[str, str] | None) -> list[Record]:
    """Every registration record in the namespace's properties; BadRecord names a property that is not one."""
    found = []
    for key, value in (properties or {}).items():
        if not key.startswith(_RECORD):
            continue
        try:
            record = Record.from_json(value)
        except (ValueError, TypeError) as exc:
            raise BadRecord(f"property {key} is not a dc-bridge registration record ({exc}); "
                            f"restore it or remove it from the namespace") from None
        if not isinstance(record.id, str) or not isinstance(record.version, str):
            raise BadRecord(f"property {key} is not a dc-bridge registration record (no id or version)")
        found.append(record)
    return found


def _order(record: Record) -> tuple:
    """Highest last: SemVer precedence, then (for records written before versions of equal precedence were one
    version) the registration time; a version that is no SemVer, which dc-bridge never registers, below every
    one that is."""
    version = SemVer.parse(record.version)
    return (version is not None, version or SemVer(0), record.registered_at, record.version)


def history(properties: dict[str, str] | None, contract_id: str) -> list[Record]:
    """Every registered version of the contract, lowest first (the current one last)."""
    return sorted((r for r in records(properties) if r.id == contract_id), key=_order)


def current_versions(properties: dict[str, str] | None) -> dict[str, str]:
    """Every contract registered in the namespace -> its current version."""
    listed: dict[str, Record] = {}
    for record in sorted(records(properties), key=_order):
        listed[record.id] = record
    return {cid: record.version for cid, record in sorted(listed.items())}


def register(store: Store, namespace: str, contract: Contract, text: bytes) -> Registration:
    version = SemVer.parse(contract.version or "")
    if version is None:
        raise NotSemVer(f"version {contract.version!r} is not a semantic version (MAJOR.MINOR.PATCH): the registered "
                        f"versions are ordered to find the current one; write it as e.g. `version: 1.0.0`")
    digest = text_digest(text)
    key = record_key(contract.id, contract.version)
    for _ in range(_WRITES):
        properties = store.properties(namespace) or {}
        versions = history(properties, contract.id)
        previous = versions[-1] if versions else None
        # `v1.2.0` and `1.2.0+build.7` are 1.2.0: one version, one text
        existing = next((r for r in versions if SemVer.parse(r.version) == version), None)
        if existing is not None:
            if existing.text_digest != digest:
                raise VersionConflict(f"{contract.id} {existing.version} is registered in {store.label} namespace {namespace} "
                                      f"with another text (registered {existing.registered_at}, {existing.text_digest}); "
                                      f"a changed contract needs a new version")
            return Registration(existing, False, previous, previous)
        location, text_properties = store.keep_text(namespace, _file_name(contract.id, contract.version, digest), text)
        record = new_record(contract, text, location)
        store.set_properties(namespace, {**text_properties, key: record.to_json()})
        after = history(store.properties(namespace), contract.id)
        if any(r.version == contract.version and r.text_digest == digest for r in after):
            return Registration(record, True, previous, after[-1])
    raise CatalogUnavailable(f"{store.label} namespace {namespace}: the record of {contract.id} {contract.version} was "
                             f"written {_WRITES} times and was not there when read back (another writer replaces the "
                             f"namespace's properties at the same time); register again")


def registered(store: Store, namespace: str, contract_id: str) -> tuple[Record, bytes] | None:
    """The current registered version and its text, checked against the record's digest (DigestMismatch);
    None when the contract was never registered in the namespace (the first registration has no baseline)."""
    properties = store.properties(namespace)
    versions = history(properties, contract_id)
    if not versions:
        return None
    record = versions[-1]
    return record, verified_text(record, store.read_text(record.location, properties or {}))
