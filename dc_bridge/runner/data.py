"""Spark: the session (embedded local by default, or the caller's) and each model's data.

Data for a model comes, in this order, from a DataFrame the caller passed, from `--data MODEL=PATH[:FORMAT]`,
or from the contract's server. Files are read with the contract's schema where the format has no
types of its own (CSV, JSON), so a timestamp column arrives as a timestamp.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from dc_bridge.contract.model import Contract, Field, Model, Server
from dc_bridge.contract.types import SPARK_TYPES, spark_physical_type

FILE_FORMATS = ("parquet", "csv", "json", "delta", "orc", "avro")
_OBJECT_STORES = ("s3", "gcs", "azure", "local", "file", "hdfs", "abfs", "adls", "minio")
_CATALOG_SERVERS = ("databricks", "hive", "glue", "unity", "spark", "table", "catalog")


class DataError(Exception):
    """A model's data cannot be found or read; the message says which model, from where, and how to fix it."""


@dataclass(frozen=True)
class DataLocation:
    path: str
    format: str


def get_session(master: str | None = None, conf: dict[str, str] | None = None):
    """(session, created): the active session if there is one, else a new quiet one.

    Without `master`, a new session is embedded (`local[*]`), unless the process was launched by
    spark-submit, whose `--master` then holds. An embedded session gets small-data defaults (no UI,
    4 shuffle partitions); a session on a cluster keeps the cluster's. `conf` overrides either. A
    session created here leaves `${...}` in SQL text alone (`spark.sql.variable.substitute` off).
    """
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        running = active.sparkContext.master
        if master is not None and master != running:
            raise ValueError(f"a Spark session on {running} is already running in this process, and a process holds one "
                             f"session: run against it (leave out the master) or stop it before asking for {master}")
        return active, False
    # Python workers (for the caller's UDFs) run this interpreter, not whatever python3 is on PATH
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    submitted = master is None and "PYSPARK_GATEWAY_PORT" in os.environ  # spark-submit started our JVM with its master
    embedded = not submitted and (master is None or master.startswith("local"))
    builder = SparkSession.builder.appName("dc-bridge")
    if not submitted:
        builder = builder.master(master or "local[*]")
    if embedded:
        # an embedded session talks to itself only; this also silences Spark's hostname warning
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
        builder = (builder.config("spark.ui.enabled", "false")
                   .config("spark.sql.shuffle.partitions", "4"))
    log_config = resources.files("dc_bridge").joinpath("log4j2.properties")
    builder = (builder.config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.session.timeZone", "UTC")
               # Spark fills `${...}` in SQL text from its configuration, the environment and system
               # properties; dc-bridge's SQL has none (contract/sql.py refuses them), so nothing may fill one
               .config("spark.sql.variable.substitute", "false")
               .config("spark.driver.extraJavaOptions", f"-Dlog4j.configurationFile={log_config}"))
    for key, value in (conf or {}).items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    return session, True


def parse_data_option(text: str, contract_dir: Path) -> tuple[str, DataLocation]:
    """`MODEL=PATH[:FORMAT]` -> (model, location); the format defaults to the file's extension."""
    model, eq, rest = text.partition("=")
    if not eq or not model or not rest:
        raise DataError(f"--data {text!r} must be MODEL=PATH or MODEL=PATH:FORMAT")
    path, colon, fmt = rest.rpartition(":")
    if not colon or fmt.lower() not in FILE_FORMATS:
        path, fmt = rest, Path(rest).suffix.lstrip(".").lower()
    if fmt not in FILE_FORMATS:
        raise DataError(f"--data {text!r}: cannot tell the format of {path}; add :parquet, :csv, :json or :delta")
    return model, DataLocation(path, fmt.lower())


def spark_schema(model: Model):
    """A StructType from the contract's fields, for formats without types of their own."""
    from pyspark.sql import types as T

    simple = {"string": T.StringType(), "int": T.IntegerType(), "bigint": T.LongType(), "smallint": T.ShortType(),
              "tinyint": T.ByteType(), "float": T.FloatType(), "double": T.DoubleType(), "boolean": T.BooleanType(),
              "timestamp": T.TimestampType(), "timestamp_ntz": T.TimestampNTZType(), "date": T.DateType(),
              "binary": T.BinaryType(), "decimal": T.DecimalType(38, 18)}

    def field_type(field: Field):
        physical = spark_physical_type(field.physical_type) if field.physical_type else None
        if physical and physical.startswith("decimal("):
            precision, scale = (int(x) for x in physical[8:-1].split(","))
            return T.DecimalType(precision, scale)
        if physical in simple:
            return simple[physical]
        logical = SPARK_TYPES.get(field.logical_type or "string", ("string",))[0]
        if logical == "decimal" and field.precision:
            return T.DecimalType(field.precision, field.scale or 0)
        return simple.get(logical, T.StringType())

    return T.StructType([T.StructField(f.physical_name or f.name, field_type(f), True) for f in model.fields])


def read_location(spark, model: Model, location: DataLocation):
    reader = spark.read.format(location.format)
    if location.format == "csv":
        reader = reader.option("header", "true").option("mode", "PERMISSIVE")
    try:
        if location.format == "csv":
            reader = reader.schema(_csv_schema(spark, model, location.path))
        elif location.format == "json":
            reader = reader.schema(spark_schema(model))
        return reader.load(location.path)
    except Exception as exc:  # Spark raises AnalysisException and friends; report as data error
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise DataError(f"model `{model.name}`: cannot read {location.format} data at {location.path}: {first}") from None


def _csv_schema(spark, model: Model, path: str):
    """The contract's types in the order of the file's header: Spark applies a CSV schema by
    position, so columns in another order than the contract would land in the wrong fields, and a
    column the file lacks would appear as all-null. Columns the contract does not name stay strings."""
    from pyspark.sql import types as T

    header = spark.read.format("csv").option("header", "true").load(path).columns  # reads the header only
    typed = {f.name.lower(): f for f in spark_schema(model).fields}
    return T.StructType([T.StructField(name, typed[name.lower()].dataType, True) if name.lower() in typed
                         else T.StructField(name, T.StringType(), True) for name in header])


def choose_server(contract: Contract, name: str | None) -> Server | None:
    """The named server, else the first one Spark can read (a local server first: it needs no credentials)."""
    if name is not None:
        server = next((s for s in contract.servers if s.name == name), None)
        if server is None:
            names = ", ".join(s.name for s in contract.servers) or "none"
            raise DataError(f"{contract.file}: no server named `{name}` (servers: {names})")
        return server
    readable = [s for s in contract.servers if s.type in _OBJECT_STORES + _CATALOG_SERVERS + ("dataframe",)]
    return next((s for s in readable if s.type == "local"), readable[0] if readable else None)


def server_location(contract: Contract, server: Server, model: Model) -> DataLocation | str:
    """A file location, or a table/view name to read with `spark.table`."""
    if server.type in _CATALOG_SERVERS:
        parts = [server.settings.get(k) for k in ("catalog", "schema", "database")]
        return ".".join([p for p in parts if isinstance(p, str)] + [model.physical_name or model.name])
    if server.type == "dataframe":
        return model.physical_name or model.name
    if not server.location:
        raise DataError(f"{contract.file}: server `{server.name}` has no `location` or `path`")
    location = server.location.replace("{model}", model.name)
    if server.type in ("local", "file") and not os.path.isabs(location) and "://" not in location:
        location = str((Path(contract.file).parent / location).resolve())
    fmt = (server.format or Path(location).suffix.lstrip(".") or "parquet").lower()
    if fmt not in FILE_FORMATS:
        raise DataError(f"{contract.file}: server `{server.name}` has format `{fmt}`, which Spark cannot read here")
    return DataLocation(location, fmt)


def model_dataframe(spark, contract: Contract, model: Model, server: Server | None, data: dict[str, DataLocation]):
    if model.name in data:
        return read_location(spark, model, data[model.name])
    if server is None:
        raise DataError(f"model `{model.name}`: no data. Pass --data {model.name}=PATH, a DataFrame, or add a server to {contract.file}")
    location = server_location(contract, server, model)
    if isinstance(location, str):
        try:
            return spark.table(location)
        except Exception as exc:
            first = str(exc).strip().splitlines()[0]
            raise DataError(f"model `{model.name}`: table or view `{location}` (server `{server.name}`) cannot be read: {first}") from None
    if "://" not in location.path and not Path(location.path).exists() and not any(ch in location.path for ch in "*?["):
        raise DataError(f"model `{model.name}`: {location.path} does not exist (server `{server.name}` of {contract.file}); "
                        f"pass --data {model.name}=PATH to read it from elsewhere")
    return read_location(spark, model, location)
