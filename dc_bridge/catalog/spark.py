"""The Spark session's catalog as a registration store: a Hive metastore, Glue or Unity Catalog, as the
session reaches it. Records go into the namespace's DBPROPERTIES (`ALTER NAMESPACE ... SET DBPROPERTIES`),
each model's table gets the contract's id, version and schema hash in its TBLPROPERTIES, and a table's
schema is `spark.table(...).schema`.

Spark shows a namespace's properties only as text (`DESCRIBE NAMESPACE EXTENDED`: `((key,value), ...)`),
where a value holding `,` or `)` cannot be told from the next entry; dc-bridge's values (JSON records,
pieces of contract text) are therefore written base64url-encoded, and read back by their own keys only.
"""

from __future__ import annotations

import base64
import re

from dc_bridge.catalog.store import CatalogUnavailable, Store, keep_in_properties, read_from_properties
from dc_bridge.contract.sql import quote_identifier, sql_literal

_OURS = re.compile(r"\((dc-bridge\.[^,()]+),([A-Za-z0-9_=-]*)\)")


def _quoted_name(dotted: str, table: str | None = None) -> str:
    """A namespace (`a.b`, one part per dot) and, when given, a table in it, each part quoted: the table's name is
    one part whatever it holds (`e.mail`)."""
    parts = [*dotted.split("."), *([table] if table is not None else [])]
    return ".".join(quote_identifier(part) for part in parts)


def _encode(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode("utf-8")).decode("ascii")


def _decode(text: str) -> str:
    return base64.urlsafe_b64decode(text.encode("ascii")).decode("utf-8")


class SparkStore(Store):
    label = "spark"

    def __init__(self, spark):
        self.spark = spark

    def _sql(self, statement: str):
        try:
            return self.spark.sql(statement)
        except Exception as exc:  # AnalysisException, a metastore that cannot be reached, ...
            from dc_bridge.runner.data import root_cause

            if "NoSuchNamespace" in type(exc).__name__ or "SCHEMA_NOT_FOUND" in str(exc) or "NoSuchDatabase" in str(exc):
                raise LookupError(str(exc)) from None
            raise CatalogUnavailable(f"spark: {root_cause(exc)}") from None

    def properties(self, namespace: str) -> dict[str, str] | None:
        try:
            rows = self._sql(f"DESCRIBE NAMESPACE EXTENDED {_quoted_name(namespace)}").collect()
        except LookupError:
            return None
        text = next((row[1] for row in rows if str(row[0]).strip().lower() == "properties"), "") or ""
        return {key: _decode(value) for key, value in _OURS.findall(text)}

    def set_properties(self, namespace: str, updates: dict[str, str]) -> None:
        """Spark's ALTER NAMESPACE reads the namespace, adds the properties and writes the whole map back: a writer in
        another session between the two can lose a key (registry.register reads its record back and writes again;
        registrations in one namespace from several sessions at once are not guarded beyond that)."""
        self._sql(f"CREATE NAMESPACE IF NOT EXISTS {_quoted_name(namespace)}")
        pairs = ", ".join(f"{sql_literal(key)} = {sql_literal(_encode(value))}" for key, value in updates.items())
        self._sql(f"ALTER NAMESPACE {_quoted_name(namespace)} SET DBPROPERTIES ({pairs})")

    def keep_text(self, namespace: str, name: str, text: bytes) -> tuple[str, dict[str, str]]:
        return keep_in_properties(name, text)

    def read_text(self, location: str, properties: dict[str, str]) -> bytes:
        return read_from_properties(location, properties)

    def namespaces(self) -> list[str]:
        return sorted(str(row[0]) for row in self._sql("SHOW NAMESPACES").collect())

    def tables(self, namespace: str) -> list[str]:
        try:
            return sorted(str(row["tableName"]) for row in self._sql(f"SHOW TABLES IN {_quoted_name(namespace)}").collect())
        except LookupError:
            return []

    def _exists(self, namespace: str, table: str) -> bool:
        try:  # each part quoted: a table's name with a dot is one name
            return self.spark.catalog.tableExists(_quoted_name(namespace, table))
        except Exception as exc:  # the metastore cannot be reached
            from dc_bridge.runner.data import root_cause

            raise CatalogUnavailable(f"spark: {root_cause(exc)}") from None

    def table_schema(self, namespace: str, table: str):
        if not self._exists(namespace, table):
            return None
        return self.spark.table(_quoted_name(namespace, table)).schema

    def tag_table(self, namespace: str, table: str, properties: dict[str, str]) -> bool:
        if not self._exists(namespace, table):
            return False
        pairs = ", ".join(f"{sql_literal(key)} = {sql_literal(value)}" for key, value in properties.items())
        self._sql(f"ALTER TABLE {_quoted_name(namespace, table)} SET TBLPROPERTIES ({pairs})")
        return True
