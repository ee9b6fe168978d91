"""An Iceberg catalog through pyiceberg: namespace properties, the stored contract text, table schemas.

`iceberg` alone is the embedded catalog: pyiceberg's SQL catalog on a SQLite file with a local
warehouse folder, under `.dc-bridge/iceberg/` beside the project configuration (or in the working
directory), so registration works on a laptop with nothing running. `iceberg:NAME` is pyiceberg's
own catalog NAME, configured as pyiceberg configures it (`.pyiceberg.yaml`, `PYICEBERG_CATALOG__NAME__...`
environment variables), which reaches REST, Hive, Glue and SQL catalogs. Both are read when the
command runs, not when pyiceberg was imported.

A table's schema is read from its metadata (no Spark, no data files) and described as a pyspark
`StructType` (pure Python, no JVM), so schema drift compares it exactly as it compares a DataFrame's.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Iterator

from dc_bridge.catalog.store import CatalogUnavailable, Store, keep_in_properties, read_from_properties

EMBEDDED_FOLDER = Path(".dc-bridge") / "iceberg"


def open_iceberg(name: str | None, root: Path) -> IcebergStore:
    """The embedded catalog (name None) under `root`, or pyiceberg's catalog `name`."""
    with _reaching(f"iceberg:{name}" if name else "iceberg"):
        from pyiceberg.catalog import load_catalog
        from pyiceberg.utils.config import Config

        if name is None:
            folder = (root / EMBEDDED_FOLDER).resolve()
            (folder / "warehouse").mkdir(parents=True, exist_ok=True)
            catalog = load_catalog("dc-bridge", type="sql", uri=f"sqlite:///{folder / 'catalog.db'}",
                                   warehouse=(folder / "warehouse").as_uri())
        else:
            # pyiceberg reads its environment once, at import: a fresh Config sees the command's own
            properties = Config().get_catalog_config(name.lower())
            if not properties:
                raise CatalogUnavailable(f"pyiceberg has no catalog named {name!r}: configure it in .pyiceberg.yaml or with "
                                         f"PYICEBERG_CATALOG__{name.upper()}__URI (and __TYPE, __WAREHOUSE, ...)")
            catalog = load_catalog(name, **properties)
    return IcebergStore(catalog, f"iceberg:{name}" if name else "iceberg")


@contextlib.contextmanager
def _reaching(label: str) -> Iterator[None]:
    """Any failure of the catalog (a refused connection, a missing driver, a malformed configuration) as
    CatalogUnavailable; pyiceberg's answers that mean `not there` are caught before this by the callers."""
    try:
        yield
    except CatalogUnavailable:
        raise
    except Exception as exc:  # pyiceberg, SQLAlchemy, requests and boto each raise their own
        raise CatalogUnavailable(f"{label}: {type(exc).__name__}: {exc}".splitlines()[0]) from None


class IcebergStore(Store):
    def __init__(self, catalog, label: str):
        self.catalog = catalog
        self.label = label

    def properties(self, namespace: str) -> dict[str, str] | None:
        from pyiceberg.exceptions import NoSuchNamespaceError

        with _reaching(self.label):
            try:
                return dict(self.catalog.load_namespace_properties(namespace))
            except NoSuchNamespaceError:
                return None

    def set_properties(self, namespace: str, updates: dict[str, str]) -> None:
        from pyiceberg.exceptions import NamespaceAlreadyExistsError

        with _reaching(self.label):
            if self.properties(namespace) is None:
                with contextlib.suppress(NamespaceAlreadyExistsError):
                    self.catalog.create_namespace(namespace)
            self.catalog.update_namespace_properties(namespace, updates=updates)

    def keep_text(self, namespace: str, name: str, text: bytes) -> tuple[str, dict[str, str]]:
        """Under the warehouse when the catalog has one, else in the namespace's properties."""
        warehouse = self.catalog.properties.get("warehouse")
        if not warehouse:
            return keep_in_properties(name, text)
        location = f"{warehouse.rstrip('/')}/_dc_bridge_contracts/{namespace}/{name}.yaml"
        with _reaching(self.label):
            from pyiceberg.io import load_file_io

            with load_file_io(self.catalog.properties, location).new_output(location).create(overwrite=True) as out:
                out.write(text)
        return location, {}

    def read_text(self, location: str, properties: dict[str, str]) -> bytes:
        if location.startswith("property:"):
            return read_from_properties(location, properties)
        with _reaching(self.label):
            from pyiceberg.io import load_file_io

            with load_file_io(self.catalog.properties, location).new_input(location).open() as stream:
                return stream.read()

    def table_schema(self, namespace: str, table: str):
        from pyiceberg.exceptions import NoSuchNamespaceError, NoSuchTableError

        with _reaching(self.label):
            try:
                loaded = self.catalog.load_table(f"{namespace}.{table}")
            except (NoSuchTableError, NoSuchNamespaceError):
                return None
            return spark_struct(loaded.schema().as_struct())

    def table(self, namespace: str, table: str):
        """The pyiceberg Table (for generation), or None."""
        from pyiceberg.exceptions import NoSuchNamespaceError, NoSuchTableError

        with _reaching(self.label):
            try:
                return self.catalog.load_table(f"{namespace}.{table}")
            except (NoSuchTableError, NoSuchNamespaceError):
                return None


# Iceberg primitive type -> pyspark type name (how Iceberg's Spark runtime reads each): timestamps without a
# zone are Spark's timestamp_ntz, with one its timestamp; uuid is a string, fixed is binary; time has no Spark type
_PRIMITIVES = {
    "BooleanType": "BooleanType", "IntegerType": "IntegerType", "LongType": "LongType", "FloatType": "FloatType",
    "DoubleType": "DoubleType", "DateType": "DateType", "TimeType": "StringType", "TimestampType": "TimestampNTZType",
    "TimestamptzType": "TimestampType", "TimestampNanoType": "TimestampNTZType", "TimestamptzNanoType": "TimestampType",
    "StringType": "StringType", "UUIDType": "StringType", "FixedType": "BinaryType", "BinaryType": "BinaryType",
}


def spark_type(iceberg_type):
    """An Iceberg type as the pyspark type Spark would read it as, nested types included."""
    from pyspark.sql import types as T

    kind = type(iceberg_type).__name__
    if kind == "StructType":
        return spark_struct(iceberg_type)
    if kind == "ListType":
        return T.ArrayType(spark_type(iceberg_type.element_type), containsNull=not iceberg_type.element_required)
    if kind == "MapType":
        return T.MapType(spark_type(iceberg_type.key_type), spark_type(iceberg_type.value_type),
                         valueContainsNull=not iceberg_type.value_required)
    if kind == "DecimalType":
        return T.DecimalType(iceberg_type.precision, iceberg_type.scale)
    if kind not in _PRIMITIVES:
        raise ValueError(f"Iceberg type {iceberg_type} has no Spark equivalent dc-bridge knows")
    return getattr(T, _PRIMITIVES[kind])()


def spark_struct(struct):
    from pyspark.sql import types as T

    return T.StructType([T.StructField(f.name, spark_type(f.field_type), nullable=not f.required) for f in struct.fields])
