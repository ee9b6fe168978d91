"""The registration record: what a catalog keeps about one registered version of a contract.

A record names the contract (id, name), its version and owner, a schema hash, the digest of the
contract's text, where that text is kept, and when it was registered (UTC). The schema hash is a
digest of the normalised schema only: model and field names (the column a field is, its physical
name when it has one), types, required and keys, sorted by name, so it does not change with the
order of keys or fields, comments, descriptions or quality rules; two texts with one schema hash
describe the same columns. The text digest covers every byte of the text, and is checked on every
read (`verified_text`): a stored text that differs from what was registered is refused, never used.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from typing import Any, Sequence

from dc_bridge.contract.model import Contract, Field

DIGEST = "sha256"


@dataclass(frozen=True)
class Record:
    """One registered version. `location` is where the text can be fetched from the catalog alone: a file
    URI under the warehouse, or `property:KEY` for a text kept in the catalog's properties."""

    id: str
    name: str | None
    version: str
    owner: str | None
    schema_hash: str
    text_digest: str
    location: str
    registered_at: str  # ISO 8601, UTC, seconds
    standard: str  # odcs or dcs: how the text is read back

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> Record:
        data = json.loads(text)
        return cls(**{key: data.get(key) for key in cls.__dataclass_fields__})


class DigestMismatch(ValueError):
    """The stored text is not the text that was registered."""


def text_digest(text: bytes) -> str:
    return f"{DIGEST}:{hashlib.sha256(text).hexdigest()}"


def schema_hash(contract: Contract) -> str:
    """Digest of the normalised schema (see the module's docstring)."""
    models = sorted(({"name": m.physical_name or m.name, "primaryKey": sorted(m.primary_key),
                      "fields": _fields(m.fields)} for m in contract.models), key=lambda m: m["name"])
    canonical = json.dumps(models, sort_keys=True, separators=(",", ":"))
    return text_digest(canonical.encode("utf-8"))


def _fields(fields: Sequence[Field]) -> list[dict[str, Any]]:
    return sorted((_field(f) for f in fields if not f.computed), key=lambda f: f["name"])


def _field(field: Field) -> dict[str, Any]:
    normal: dict[str, Any] = {"name": field.physical_name or field.name, "logicalType": field.logical_type,
                              "physicalType": (field.physical_type or "").strip().lower() or None,
                              "required": field.required, "primaryKey": field.primary_key, "unique": field.unique}
    if field.fields:
        normal["fields"] = _fields(field.fields)
    for slot in ("items", "keys", "values"):
        child = getattr(field, slot)
        if child is not None:
            normal[slot] = _field(child)
    return normal


def new_record(contract: Contract, text: bytes, location: str, now: datetime | None = None) -> Record:
    moment = (now or datetime.now(timezone.utc)).astimezone(timezone.utc).replace(microsecond=0)
    return Record(id=contract.id, name=contract.title, version=contract.version, owner=contract.owner,
                  schema_hash=schema_hash(contract), text_digest=text_digest(text), location=location,
                  registered_at=moment.isoformat().replace("+00:00", "Z"), standard=contract.format)


def verified_text(record: Record, text: bytes) -> bytes:
    """`text` when its digest is the record's; DigestMismatch otherwise."""
    found = text_digest(text)
    if found != record.text_digest:
        raise DigestMismatch(f"the text stored for {record.id} {record.version} at {record.location} is not the registered "
                             f"text: its digest is {found}, the record says {record.text_digest}")
    return text
