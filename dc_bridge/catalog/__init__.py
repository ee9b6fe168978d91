"""Contracts beside their tables: registration in a catalog (registry.py, records.py), the registered
version as check-version's baseline, table schemas for drift and generation, for two kinds of catalog:

- `iceberg` / `iceberg:NAME`: an Iceberg catalog through pyiceberg (iceberg.py), no Spark needed;
- `spark`: the session's catalog (spark.py): a Hive metastore, Glue or Unity Catalog, as Spark reaches it.

`open_store` is the one door: commands name a catalog as the user wrote it and get a Store (store.py).
"""

from __future__ import annotations

from pathlib import Path

from dc_bridge.catalog.store import CatalogMisconfigured, CatalogUnavailable, Store

KINDS = ("iceberg", "spark")


def parse(spec: str) -> tuple[str, str | None]:
    """`iceberg` -> (iceberg, None), `iceberg:lake` -> (iceberg, lake), `spark` -> (spark, None); ValueError otherwise."""
    kind, _, name = spec.strip().partition(":")
    if kind not in KINDS or (kind == "spark" and name) or (_ and not name):
        raise ValueError(f"--catalog {spec!r}: give iceberg (the embedded catalog), iceberg:NAME (pyiceberg's catalog NAME) or spark")
    return kind, name or None


def open_store(spec: str, embedded: Path, spark_session=None, create: bool = False) -> Store:
    """The catalog `spec` names: for `iceberg`, the embedded catalog in the folder `embedded` (iceberg.embedded_folder;
    its file created only when `create`); for `spark`, `spark_session` (or a new embedded session when None).
    CatalogUnavailable when it cannot be reached, CatalogMisconfigured when `iceberg:NAME` is configured nowhere or the
    embedded catalog's file is no SQLite database."""
    kind, name = parse(spec)
    if kind == "iceberg":
        from dc_bridge.catalog.iceberg import open_iceberg

        return open_iceberg(name, embedded, create)
    from dc_bridge.catalog.spark import SparkStore

    return SparkStore(spark_session)


__all__ = ["CatalogMisconfigured", "CatalogUnavailable", "KINDS", "Store", "open_store", "parse"]
