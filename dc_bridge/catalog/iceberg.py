"""An Iceberg catalog through pyiceberg: namespace properties, the stored contract text, table schemas.

`iceberg` alone is the embedded catalog: pyiceberg's SQL catalog on a SQLite file with a local
warehouse folder, `.dc-bridge/iceberg/` in the project's folder, so registration works on a laptop with
nothing running. Where it is (`embedded_folder`) is decided once, from the project, never from the
folder a command happens to run in: beside the project configuration (dc-bridge.toml, or pyproject.toml
with [tool.dc-bridge], found upwards as config.py finds it); without one, the nearest folder upwards
that holds an embedded catalog; without that, the working directory. Every message names the file
(`IcebergStore.label`). A command that only reads never creates the file: a catalog that is not there
reads as an empty one, and its label says so.

`iceberg:NAME` is pyiceberg's own catalog NAME, configured as pyiceberg configures it (`.pyiceberg.yaml`,
`PYICEBERG_CATALOG__NAME__...` environment variables), which reaches REST, Hive, Glue and SQL catalogs;
a NAME configured nowhere is CatalogMisconfigured (bad input), not an outage. Both are read when the
command runs, not when pyiceberg was imported.

A table's schema is read from its metadata (no Spark, no data files) and described as a pyspark
`StructType` (pure Python, no JVM), so schema drift compares it exactly as it compares a DataFrame's.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Iterator
from urllib.parse import urlsplit, urlunsplit

from dc_bridge.catalog.store import (CatalogMisconfigured, CatalogUnavailable, Store, closest, keep_in_properties, listed,
                                     read_from_properties)
from dc_bridge.compiler import safe_name
from dc_bridge.deadline import CATALOG_SECONDS, within
from dc_bridge.extras import missing_message

EMBEDDED_FOLDER = Path(".dc-bridge") / "iceberg"
CATALOG_FILE = "catalog.db"
CATALOG_TABLE = "iceberg_tables"  # the table pyiceberg's SQL catalog keeps its tables in
# a first use of the embedded catalog by several commands at once: each creates pyiceberg's tables, and all
# but one find them created in between; the next attempt sees them
_OPEN_ATTEMPTS = 3
_TEXTS = "_dc_bridge_contracts"  # the folder of the warehouse that keeps registered texts
_MAX_NAMESPACES = 500  # listed for a hint when a namespace is not found; a larger catalog is not walked whole


def embedded_folder(project: Path | None, cwd: Path) -> tuple[Path, str | None]:
    """Where the embedded catalog is, and a note saying why when no project configuration decided it."""
    if project is not None:
        return (project / EMBEDDED_FOLDER).resolve(), None
    cwd = cwd.resolve()
    found = next((folder for folder in (cwd, *cwd.parents) if (folder / EMBEDDED_FOLDER / CATALOG_FILE).is_file()), None)
    if found is not None:
        return found / EMBEDDED_FOLDER, (f"no project configuration (dc-bridge.toml, or [tool.dc-bridge] in pyproject.toml) "
                                         f"was found; using the embedded catalog found upwards in {found}")
    return cwd / EMBEDDED_FOLDER, ("no project configuration (dc-bridge.toml, or [tool.dc-bridge] in pyproject.toml) was "
                                   "found, nor an embedded catalog upwards; using the working directory's")


def open_iceberg(name: str | None, folder: Path, create: bool = False, seconds: float = CATALOG_SECONDS) -> IcebergStore:
    """The embedded catalog in `folder` (name None; created only when `create`), or pyiceberg's catalog `name`, each of
    whose calls (and reads of a stored text) ends within `seconds` in all."""
    if name is None:
        return _open_embedded(folder, create)
    with _reaching(f"iceberg:{name}"):
        from pyiceberg.catalog import load_catalog
        from pyiceberg.utils.config import Config

        # pyiceberg reads its environment once, at import: a fresh Config sees the command's own
        configured = Config().config.get("catalog") or {}
        properties = configured.get(name.lower())
        if not properties:
            raise CatalogMisconfigured(_not_configured(name, sorted(configured)))
    label = f"iceberg:{name} ({_shown_uri(properties.get('uri', ''))})"
    with _reaching(label):
        catalog = within(seconds, f"{label}: opening the catalog", lambda: load_catalog(name, **properties))
    return IcebergStore(_Deadlined(catalog, label, seconds), label, seconds)


class _Deadlined:
    """A catalog reached over the network (REST, Hive, Glue, ...) whose every call has a total deadline (deadline.py):
    pyiceberg's clients bound each read, never a whole answer."""

    def __init__(self, catalog, label: str, seconds: float):
        self._catalog, self._label, self._seconds = catalog, label, seconds

    def __getattr__(self, name: str):
        value = getattr(self._catalog, name)
        if not callable(value):
            return value
        return lambda *args, **kwargs: within(self._seconds, f"{self._label}: {name}", lambda: value(*args, **kwargs))


def _not_configured(name: str, configured: list[str]) -> str:
    close = closest(name.lower(), configured, cutoff=0.6)
    return (f"no catalog named {name!r} is configured; configured: {listed(configured)}"
            + (f"; did you mean iceberg:{close}?" if close else "")
            + f" (pyiceberg's catalogs are configured in .pyiceberg.yaml or PYICEBERG_CATALOG__{name.upper()}__URI and "
              f"__TYPE, __WAREHOUSE, ...; `--catalog iceberg` is the embedded one)")


def _shown_uri(uri: str) -> str:
    """A catalog's URI without what may be a secret (user, password, query)."""
    parts = urlsplit(str(uri))
    if not parts.scheme:
        return str(uri) or "no uri"
    host = (parts.hostname or "") + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


def _open_embedded(folder: Path, create: bool) -> IcebergStore:
    database = folder / CATALOG_FILE
    exists = database.is_file()
    label = f"iceberg ({database}{'' if exists or create else ', which does not exist'})"
    with _reaching(label):
        if exists and not _is_sqlite(database):  # another program's file, or a damaged one: never written over
            raise CatalogMisconfigured(f"{label}: the file is not an SQLite database, so not an embedded catalog; "
                                       f"move it away (register creates a new one), or restore it")
        others = _foreign_tables(database) if exists else None
        if others is not None:  # pyiceberg would add its tables to another program's database
            raise CatalogMisconfigured(f"{label}: the file is a SQLite database of another program (its tables: "
                                       f"{', '.join(others) or 'none'}), not an embedded catalog; nothing was written to it: "
                                       f"move it away (register creates a new one), or restore the catalog's")
        from pyiceberg.catalog.sql import SqlCatalog
        from sqlalchemy.engine import URL

        if not exists and not create:  # read as empty, and leave no file behind
            return IcebergStore(SqlCatalog("dc-bridge", uri="sqlite:///:memory:"), label)
        (folder / "warehouse").mkdir(parents=True, exist_ok=True)
        # a URL object and a plain path: a `sqlite:///` string ends its path at `?`, and pyiceberg's file IO does not
        # decode a file: URI's escapes (a project in `my project/` would get its texts in `my%20project/`)
        for attempt in range(_OPEN_ATTEMPTS):
            try:
                catalog = SqlCatalog("dc-bridge", uri=URL.create("sqlite", database=str(database)),
                                     warehouse=str(folder / "warehouse"))
                break
            except Exception:
                if attempt == _OPEN_ATTEMPTS - 1:
                    raise
    return IcebergStore(catalog, label)


def _is_sqlite(path: Path) -> bool:
    """An SQLite database's header (an empty file is one too: SQLite starts it)."""
    with path.open("rb") as handle:
        head = handle.read(16)
    return head in (b"", b"SQLite format 3\x00")


def _foreign_tables(path: Path) -> list[str] | None:
    """The tables of a SQLite file that holds some but not pyiceberg's catalog table (None for a catalog or an empty file),
    read without writing to it."""
    import sqlite3

    if path.stat().st_size == 0:
        return None
    with contextlib.closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)) as db:
        tables = sorted(name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'"))
    return None if not tables or CATALOG_TABLE in tables else tables


@contextlib.contextmanager
def _reaching(label: str) -> Iterator[None]:
    """Any failure of the catalog (a refused connection, a missing driver, a malformed configuration) as
    CatalogUnavailable; pyiceberg's answers that mean `not there` are caught before this by the callers."""
    try:
        yield
    except CatalogUnavailable:
        raise
    except ModuleNotFoundError as exc:  # an install that lacks a package is configuration, not an outage
        raise CatalogMisconfigured(f"{label}: {missing_message(exc)}") from None
    except Exception as exc:  # pyiceberg, SQLAlchemy, requests and boto each raise their own
        raise CatalogUnavailable(f"{label}: {type(exc).__name__}: {exc}".splitlines()[0]) from None


class IcebergStore(Store):
    def __init__(self, catalog, label: str, seconds: float | None = None):
        self.catalog = catalog
        self.label = label
        self.seconds = seconds  # a network catalog's total deadline per call (the embedded one's is a local file: None)

    def _io(self, what: str, call):
        """A read or write of a stored text, within the catalog's deadline where it has one."""
        return call() if self.seconds is None else within(self.seconds, f"{self.label}: {what}", call)

    def properties(self, namespace: str) -> dict[str, str] | None:
        from pyiceberg.exceptions import NoSuchNamespaceError

        with _reaching(self.label):
            try:
                return dict(self.catalog.load_namespace_properties(namespace))
            except NoSuchNamespaceError:
                return None

    def set_properties(self, namespace: str, updates: dict[str, str]) -> None:
        with _reaching(self.label):
            if self.properties(namespace) is None:
                try:
                    self.catalog.create_namespace(namespace)
                except Exception:
                    # another writer created it in between (pyiceberg says so, or the SQL catalog's unique key does)
                    if self.properties(namespace) is None:
                        raise
            self.catalog.update_namespace_properties(namespace, updates=updates)

    def claim(self, namespace: str, key: str, value: str) -> bool:
        """On pyiceberg's SQL catalog, one INSERT: the properties table's primary key lets one writer of `key` in
        (pyiceberg's own update deletes and inserts, so the last writer would win); elsewhere Store's read-back."""
        from pyiceberg.catalog import Catalog
        from pyiceberg.catalog.sql import IcebergNamespaceProperties, SqlCatalog

        if not isinstance(self.catalog, SqlCatalog):
            return super().claim(namespace, key, value)
        from sqlalchemy.exc import IntegrityError
        from sqlalchemy.orm import Session

        with _reaching(self.label):
            if self.properties(namespace) is None:
                self.set_properties(namespace, {})
            try:
                with Session(self.catalog.engine) as session:
                    session.add(IcebergNamespaceProperties(catalog_name=self.catalog.name,
                                                           namespace=Catalog.namespace_to_string(namespace),
                                                           property_key=key, property_value=value))
                    session.commit()
            except IntegrityError:
                return False
        return True

    def namespaces(self) -> list[str]:
        from pyiceberg.exceptions import NoSuchNamespaceError

        found: list[str] = []
        pending: list[tuple[str, ...]] = [()]
        with _reaching(self.label):
            while pending and len(found) < _MAX_NAMESPACES:
                parent = pending.pop()
                try:
                    children = self.catalog.list_namespaces(parent)
                except NoSuchNamespaceError:
                    continue
                for child in children:
                    if tuple(child) != parent and len(child) > len(parent):
                        found.append(".".join(child))
                        pending.append(tuple(child))
        return sorted(set(found))

    def tables(self, namespace: str) -> list[str]:
        from pyiceberg.exceptions import NoSuchNamespaceError

        with _reaching(self.label):
            try:
                return sorted(identifier[-1] for identifier in self.catalog.list_tables(namespace))
            except NoSuchNamespaceError:
                return []

    def keep_text(self, namespace: str, name: str, text: bytes) -> tuple[str, dict[str, str]]:
        """Under the warehouse when the catalog has one, else in the namespace's properties. A file there already
        (a registration that stopped before its record was written) is kept when it holds these bytes, written again
        when it holds their beginning only (that registration stopped while writing it), and never replaced when it
        holds others: its name carries the digest of the text it should hold."""
        warehouse = self.catalog.properties.get("warehouse")
        if not warehouse:
            return keep_in_properties(name, text)
        location = f"{str(warehouse).rstrip('/')}/{_TEXTS}/{safe_name(namespace, 'namespace')}/{name}.yaml"
        with _reaching(self.label):
            from pyiceberg.io import load_file_io

            io = load_file_io(self.catalog.properties, location)

            def held() -> bytes | None:
                if not io.new_input(location).exists():
                    return None
                with io.new_input(location).open() as stream:
                    return stream.read()
            found = self._io(f"reading {location}", held)
            if found == text:
                return location, {}
            if found is not None and not text.startswith(found):
                raise CatalogMisconfigured(f"{self.label}: {location} holds other bytes than the text its name is the "
                                           f"digest of; it was not replaced: move it away and register again")
            cut_short = found is not None  # the start of the text alone: a write a crash cut short, written again

            def write() -> None:
                with io.new_output(location).create(overwrite=cut_short) as out:
                    out.write(text)
            self._io(f"writing {location}", write)
        return location, {}

    def read_text(self, location: str, properties: dict[str, str]) -> bytes:
        """The text at `location`; for a location under another warehouse's `_dc_bridge_contracts/` that is gone (a
        project moved or cloned to another folder: the embedded catalog's locations are absolute paths), the same
        name under this catalog's warehouse. Either is checked against the record's digest by the caller."""
        if location.startswith("property:"):
            return read_from_properties(location, properties)
        with _reaching(self.label):
            from pyiceberg.io import load_file_io

            io = load_file_io(self.catalog.properties, location)
            warehouse = str(self.catalog.properties.get("warehouse") or "").rstrip("/")
            _, marker, tail = location.partition(f"/{_TEXTS}/")

            def read() -> bytes:
                found = location
                if marker and warehouse and not io.new_input(found).exists():
                    found = f"{warehouse}/{_TEXTS}/{tail}"
                with io.new_input(found).open() as stream:
                    return stream.read()
            return self._io(f"reading {location}", read)

    def table_schema(self, namespace: str, table: str):
        loaded = self.table(namespace, table)
        return None if loaded is None else spark_struct(loaded.schema().as_struct())

    def table(self, namespace: str, table: str):
        """The pyiceberg Table (for generation), or None."""
        from pyiceberg.exceptions import NoSuchNamespaceError, NoSuchTableError

        with _reaching(self.label):
            try:
                return self.catalog.load_table((*self.catalog.identifier_to_tuple(namespace), table))
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
