"""What registration and drift need from a catalog, whichever it is: a namespace's properties, a place
to keep a contract's text, and a table's schema. iceberg.py and spark.py implement it.

A text kept in properties is cut into pieces of at most `PIECE` characters: catalogs bound a property's
value (pyiceberg's SQL catalog and Hive metastores keep it in a 1,000 and 4,000 character column).
"""

from __future__ import annotations

from abc import ABC, abstractmethod

PIECE = 900


class CatalogUnavailable(Exception):
    """The catalog could not be reached or refused the request; the message says which catalog and why."""


class Store(ABC):
    label: str  # how messages name the catalog: iceberg, iceberg:NAME, spark

    @abstractmethod
    def properties(self, namespace: str) -> dict[str, str] | None:
        """The namespace's properties; None when the namespace does not exist."""

    @abstractmethod
    def set_properties(self, namespace: str, updates: dict[str, str]) -> None:
        """Set properties on the namespace, creating it when it does not exist."""

    @abstractmethod
    def keep_text(self, namespace: str, name: str, text: bytes) -> tuple[str, dict[str, str]]:
        """Keep a contract's text; (its location, properties to set with the record when it is kept in them)."""

    @abstractmethod
    def read_text(self, location: str, properties: dict[str, str]) -> bytes:
        """The text kept at `location` (the namespace's `properties` for a text kept in them)."""

    @abstractmethod
    def table_schema(self, namespace: str, table: str):
        """The table's schema as a pyspark StructType; None when the table does not exist."""

    def tag_table(self, namespace: str, table: str, properties: dict[str, str]) -> bool:
        """Set properties on a model's table when the catalog keeps them there; False when it does not exist."""
        return False


def keep_in_properties(name: str, text: bytes) -> tuple[str, dict[str, str]]:
    """`property:KEY#N` and the N properties KEY.0 ... KEY.N-1 that hold the text."""
    key = f"dc-bridge.text.{name}"
    decoded = text.decode("utf-8")
    pieces = [decoded[i:i + PIECE] for i in range(0, len(decoded), PIECE)] or [""]
    return f"property:{key}#{len(pieces)}", {f"{key}.{i}": piece for i, piece in enumerate(pieces)}


def read_from_properties(location: str, properties: dict[str, str]) -> bytes:
    """The text as far as the properties hold it: a missing piece fails the digest check, as any change does."""
    key, _, count = location.removeprefix("property:").rpartition("#")
    pieces = int(count) if count.isdigit() else 0
    return "".join(properties.get(f"{key}.{i}", "") for i in range(pieces)).encode("utf-8")
