"""`dc-bridge run --registered`: every contract registered in a catalog's namespaces, as a run reads it.

Each contract's current version (the highest registered: registry.py) is read from where its record says,
and checked against the record's digest as `check-version --against-registered` checks its baseline: a text
that does not match, or cannot be fetched, is refused (never run), and says why. A verified text is written
to a scratch folder and read there as any contract file is; the run then names it `NS/ID@VERSION`.

A registered text has no folder of its own: a relative path of a local server is read from the project's
folder (where its configuration and the embedded catalog are). A contract with no server Spark can read is
checked against the tables the registration names, `NS.<physicalName, else name>` in the same catalog: a
Spark catalog's through the session; an Iceberg catalog's through the session's Spark catalog of the same
name (`iceberg:NAME` is NAME, the embedded `iceberg` is `dc_bridge`), which needs `spark.sql.catalog.NAME`
and Iceberg's Spark runtime: a session without them refuses the contract, saying what to configure.
"""

from __future__ import annotations

import dataclasses
import fnmatch
from dataclasses import dataclass
from pathlib import Path

from dc_bridge.catalog import parse
from dc_bridge.catalog.records import DigestMismatch, Record, verified_text
from dc_bridge.catalog.registry import history, records
from dc_bridge.catalog.store import CatalogUnavailable, Store
from dc_bridge.compiler import safe_name
from dc_bridge.contract.model import Contract, Server, Source
from dc_bridge.runner.data import DataError, choose_server
from dc_bridge.runner.pipeline import ReadContract, read_contract

# the Spark catalog name the embedded Iceberg catalog is reached by (a Spark identifier: no hyphen)
EMBEDDED_SPARK_CATALOG = "dc_bridge"
ICEBERG_CATALOG_CLASS = "org.apache.iceberg.spark.SparkCatalog"
ICEBERG_RUNTIME = "org.apache.iceberg:iceberg-spark-runtime-3.5_2.12"


@dataclass(frozen=True)
class Registered:
    """One registered contract's current version: its text when verified, else why it is refused."""
    namespace: str
    record: Record
    text: bytes | None
    refused: str | None = None

    @property
    def label(self) -> str:
        """How the run names it: `NS/ID@VERSION`."""
        return f"{self.namespace}/{self.record.id}@{self.record.version}"


def registered_contracts(store: Store, namespaces: list[str], pattern: str | None = None) -> list[Registered]:
    """The current version of every contract registered in `namespaces` whose id matches the glob `pattern`,
    in the order of the namespaces, then of the ids. A BadRecord or CatalogUnavailable reading a namespace's
    properties stops the whole listing (the caller's bad input or outage); a text that cannot be fetched or
    does not match its digest refuses that contract only."""
    found = []
    for namespace in namespaces:
        properties = store.properties(namespace) or {}
        for contract_id in sorted({r.id for r in records(properties)}):
            if pattern is not None and not fnmatch.fnmatchcase(contract_id, pattern):
                continue
            record = history(properties, contract_id)[-1]
            try:
                found.append(Registered(namespace, record, verified_text(record, store.read_text(record.location, properties))))
            except DigestMismatch as exc:
                found.append(Registered(namespace, record, None, f"refused: {exc}"))
            except (CatalogUnavailable, OSError) as exc:
                found.append(Registered(namespace, record, None, f"refused: the text of {record.id} {record.version} cannot be "
                                                                 f"read from {record.location}: {exc}"))
    return found


def spark_catalog(spec: str) -> str | None:
    """The Spark catalog a registration's tables are read through: None for `spark` (the session's own)."""
    kind, name = parse(spec)
    return None if kind == "spark" else name or EMBEDDED_SPARK_CATALOG


def read_registered(entry: Registered, folder: Path, project: Path, spec: str,
                    variables: dict[str, str] | None = None) -> tuple[ReadContract, bool]:
    """The verified text, written under `folder` and read as a run reads a contract file; the contract named
    `NS/ID@VERSION`, its relative local server paths read from `project`, and, with no server Spark can read,
    a server of the registration's catalog (module docstring); and whether it got that server."""
    file = folder / safe_name(entry.namespace, "namespace") / f"{safe_name(f'{entry.record.id}@{entry.record.version}', 'contract')}.yaml"
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_bytes(entry.text or b"")
    read = read_contract(file, variables)
    contract = read.result.contract
    if contract is None:
        return read, False
    servers = tuple(_from_project(server, project) for server in contract.servers)
    tables = choose_server(contract.model_copy(update={"servers": servers}), None) is None
    if tables:
        catalog = spark_catalog(spec)
        settings = {"schema": entry.namespace} | ({"catalog": catalog} if catalog else {})
        servers = (Server(name="catalog", type="catalog", source=Source(file=str(file), path="servers"), settings=settings),)
    patched = contract.model_copy(update={"servers": servers, "file": entry.label})
    return dataclasses.replace(read, result=dataclasses.replace(read.result, contract=patched, file=entry.label)), tables


def _from_project(server: Server, project: Path) -> Server:
    location = server.location
    if server.type not in ("local", "file") or not location or "://" in location or Path(location).is_absolute():
        return server
    return server.model_copy(update={"location": str(project / location)})


def check_iceberg_session(spark, spec: str) -> None:
    """A DataError saying what to configure when the session cannot read the Iceberg catalog's tables."""
    catalog = spark_catalog(spec)
    if catalog is None:
        return
    key = f"spark.sql.catalog.{catalog}"
    configured = spark.conf.get(key, None)
    fix = (f"give --conf {key}={ICEBERG_CATALOG_CLASS} with the catalog's own settings ({key}.type, .uri, .warehouse) and "
           f"Iceberg's Spark runtime (--conf spark.jars.packages={ICEBERG_RUNTIME}:VERSION), or a server in the contract")
    if not configured:
        raise DataError(f"the contract has no server Spark can read, and its tables are in {spec}, which this Spark session "
                        f"does not reach ({key} is not set): {fix}")
    jvm = getattr(spark.sparkContext, "_jvm", None) if hasattr(spark, "sparkContext") else None
    if jvm is None:
        return
    try:
        jvm.java.lang.Class.forName(configured)
    except Exception:
        raise DataError(f"{key} is {configured}, a class this Spark session cannot load (Iceberg's Spark runtime is "
                        f"missing): {fix}") from None
