"""What registration and drift need from a catalog, whichever it is: a namespace's properties, a place
to keep a contract's text, and a table's schema. iceberg.py and spark.py implement it.

A text kept in properties is cut into pieces of at most `PIECE` characters: catalogs bound a property's
value (pyiceberg's SQL catalog and Hive metastores keep it in a 1,000 and 4,000 character column).
"""

from __future__ import annotations

import difflib
from abc import ABC, abstractmethod

PIECE = 900
# how alike a name that is not there must be to one that is to be called a typo of it: `sales.customer_306` of
# `sales.customer_360`, `sale` of `sales` (0.89), not `dev` of `prod`
TYPO = 0.85


class CatalogUnavailable(Exception):
    """The catalog could not be reached or refused the request; the message says which catalog and why."""


class CatalogMisconfigured(CatalogUnavailable):
    """Bad input (exit 2), never the soft failure of a configured catalog that is down: `--catalog iceberg:NAME` with
    a NAME configured nowhere, an embedded catalog file that is no SQLite database, a file in the warehouse where
    a registered text goes that holds other bytes. A CatalogUnavailable, so a
    caller that treats every catalog failure as bad input needs nothing more; register, registrations,
    check-version and drift catch it first."""


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

    def claim(self, namespace: str, key: str, value: str) -> bool:
        """Set `key` on the namespace only when no writer has set it; False when one had. This generic form reads,
        writes and reads back: two writers between one's read and write can both believe they set it (a catalog
        with a unique key says so atomically: IcebergStore on pyiceberg's SQL catalog)."""
        if key in (self.properties(namespace) or {}):
            return False
        self.set_properties(namespace, {key: value})
        return (self.properties(namespace) or {}).get(key) == value

    def namespaces(self) -> list[str]:
        """Every namespace the catalog lists (for a hint when one is not found); empty when it lists none."""
        return []

    def tables(self, namespace: str) -> list[str]:
        """The names of the namespace's tables (for a hint when one is not found)."""
        return []

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


def closest(name: str, names: list[str], cutoff: float = TYPO) -> str | None:
    """The name among `names` that `name` is most likely a typo of, or None."""
    found = difflib.get_close_matches(name, names, n=1, cutoff=cutoff)
    return found[0] if found else None


def listed(names: list[str], most: int = 10) -> str:
    """Names for a message: the first `most`, and how many more."""
    shown = ", ".join(names[:most]) or "none"
    return shown + (f" and {len(names) - most} more" if len(names) > most else "")
