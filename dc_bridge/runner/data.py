"""Spark: the session (embedded local by default, or the caller's) and each model's data.

Data for a model comes, in this order, from a DataFrame the caller passed, from `--data MODEL=PATH[:FORMAT[,OPTION...]]`,
or from the contract's server. Files are read as they are on disk (`read_location`; docs/running.md,
"How data is read"): no column the files lack is added, parquet and ORC schemas are merged, JSON
keeps its own types, and a typeless value (CSV text, a JSON timestamp string) takes the contract's
type only when every value of the column converts. A read that fails says why (`read_error`).
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from dc_bridge.contract.model import Contract, Field, Model, Server, Source
from dc_bridge.contract.types import SPARK_TYPES, spark_physical_type
from dc_bridge.runner import verbosity
from dc_bridge.runner.spark_start import (
    SparkUnavailable,
    check_classic,
    check_connect,
    check_master,
    private_warehouse,
    starting,
)

FILE_FORMATS = ("parquet", "csv", "json", "delta", "orc", "avro")
_OBJECT_STORES = ("s3", "gcs", "azure", "local", "file", "hdfs", "abfs", "adls", "minio")
_CATALOG_SERVERS = ("databricks", "hive", "glue", "unity", "spark", "table", "catalog")


class DataError(Exception):
    """A model's data cannot be found or read; the message says which model, from where, and how to fix it."""


@dataclass(frozen=True)
class DataLocation:
    """Where a model's data is: a path (file, folder or glob), its format, and Spark reader options
    (`multiLine` for JSON arrays and pretty-printed JSON, `sep` for CSV, ...) as (name, value) pairs."""
    path: str
    format: str
    options: tuple[tuple[str, str], ...] = ()
    # how the user gives a location to the command that reads it, for the fixes its errors suggest:
    # run's and drift's `--data MODEL=PATH[:FORMAT]`, init's `--from PATH[:FORMAT]`
    given_by: str = "--data MODEL="


# A run whose models all read local files of at most this many bytes in all is a small run: the JVM it
# starts compiles with C1 only (`-XX:TieredStopAtLevel=1`). In a run of seconds, C2's compiler threads
# cost more CPU than their faster code saves: the orders example with `--engines spark` took 11 s of
# CPU with it against 21 s without, whole process (docs/benchmarks.md); on millions of rows C2 pays off.
SMALL_DATA_BYTES = 64 * 2**20
# C1 alone reserves 48 MiB of code cache where the whole JIT reserves 240 MiB: a fleet of small contracts in one JVM
# filled the smaller one and the JVM stopped compiling (`CodeCache is full`), so C1 gets the whole JIT's size
SMALL_DATA_JVM_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:ReservedCodeCacheSize=240m"


def local_bytes(sources: dict[str, DataLocation | str]) -> int | None:
    """The bytes of the files of each model's source (pipeline `_Sources.found`), when each is a local file,
    folder or glob; None when any is elsewhere (a table, a remote store) or unknown."""
    import glob

    try:
        total = 0
        for found in sources.values():
            if not isinstance(found, DataLocation) or "://" in found.path:
                return None
            paths = glob.glob(found.path) if any(ch in found.path for ch in "*?[") else [found.path]
            if not paths:
                return None
            for path in map(Path, paths):
                total += sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) if path.is_dir() else path.stat().st_size
        return total
    except OSError:
        return None


def get_session(master: str | None = None, conf: dict[str, str] | None = None, small_data: bool = False):
    """(session, created): the active session if there is one, else a new one, quiet unless the command
    asked otherwise (runner/verbosity.py).

    Without `master`, a new session is embedded (`local[*]`), unless the process was launched by
    spark-submit, whose `--master` then holds. An embedded session gets small-data defaults (no UI,
    4 shuffle partitions); a session on a cluster keeps the cluster's. `conf` overrides either. A
    session created here leaves `${...}` in SQL text alone (`spark.sql.variable.substitute` off).
    `small_data` (the run reads a few local megabytes, `local_bytes`): an embedded session's JVM compiles
    with C1 only (SMALL_DATA_JVM_OPTIONS), unless `conf` sets the driver's Java options itself.

    A Spark Connect server is reached by `master` `sc://host:port`, `conf` `spark.remote`, or the
    `SPARK_REMOTE` environment variable, in that order (docs/cluster.md); such a session has no
    SparkContext or JVM here, so only SQL settings are sent, and nothing sets log levels.

    A session that cannot be started or reached (no Java, a master Spark cannot parse or reach, a Spark
    Connect server that is down) raises SparkUnavailable with the cause and the fix, before any JVM is
    launched where that can be known (runner/spark_start.py).
    """
    from pyspark.sql import SparkSession

    conf = dict(conf or {})
    if master is not None and not master.startswith("sc://"):
        check_master(master, reach=False)  # a URL Spark cannot parse is said as such, whether or not a session runs already
    active = running_session()
    if active is not None:
        running = location(active)
        if master is not None and _normal(master) != _normal(running):
            raise SparkUnavailable(f"a Spark session on {running} is already running in this process, and a process holds one "
                             f"session: run against it (leave out the master) or stop it before asking for {_normal(master)}")
        return active, False
    remote = _remote(master, conf)
    if remote is not None:
        check_connect(remote)
        conf.pop("spark.remote", None)
        with starting(_normal(remote), root_cause):
            builder = SparkSession.builder.remote(remote)
            for key, value in {**_SQL_DEFAULTS, **conf}.items():
                builder = builder.config(key, value)
            return builder.getOrCreate(), True
    # Python workers (for the caller's UDFs) run this interpreter, not whatever python3 is on PATH
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    submitted = "PYSPARK_GATEWAY_PORT" in os.environ  # spark-submit started our JVM (with its master, unless one is given)
    check_classic(master, submitted)
    submitted = submitted and master is None
    embedded = not submitted and (master is None or master.startswith("local"))
    builder = SparkSession.builder.appName("dc-bridge")
    if not submitted:
        builder = builder.master(master or "local[*]")
    if embedded:
        # an embedded session talks to itself only; this also silences Spark's hostname warning
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
        builder = (builder.config("spark.ui.enabled", "false")
                   .config("spark.sql.shuffle.partitions", "4"))
    # the log level of the command's verbosity from the JVM's first line on: no banner, no warnings unless asked
    java_options = verbosity.java_options() + (f" {SMALL_DATA_JVM_OPTIONS}" if embedded and small_data else "")
    builder = (builder.config("spark.ui.showConsoleProgress", "false")
               .config("spark.driver.extraJavaOptions", java_options))
    # an embedded session's warehouse in a temporary folder: none left in the current one (runner/spark_start.py)
    for key, value in {**_SQL_DEFAULTS, **(private_warehouse(conf) if embedded else {}), **conf}.items():
        builder = builder.config(key, value)
    with starting(master or ("local[*]" if not submitted else "spark-submit's master"), root_cause):
        session = builder.getOrCreate()
    session.sparkContext.setLogLevel(verbosity.current().jvm.upper())  # a JVM spark-submit started read no file of ours
    return session, True


def embedded(master: str | None, conf: dict[str, str] | None = None) -> bool:
    """Whether `get_session(master, conf)` will start a session in this process (local[*], local[N]), whose
    paths without a scheme are this machine's: no session running already, no Spark Connect, no cluster, no
    spark-submit's master."""
    if running_session() is not None or (master is None and "PYSPARK_GATEWAY_PORT" in os.environ):
        return False
    try:
        remote = _remote(master, dict(conf or {}))
    except SparkUnavailable:
        return False
    return remote is None and (master is None or master.startswith("local"))


# the SQL settings of every session dc-bridge creates, classic or Spark Connect
_SQL_DEFAULTS = {
    "spark.sql.session.timeZone": "UTC",
    # Spark fills `${...}` in SQL text from its configuration, the environment and system
    # properties; dc-bridge's SQL has none (contract/sql.py refuses them), so nothing may fill one
    "spark.sql.variable.substitute": "false",
}


def is_connect(spark) -> bool:
    """A Spark Connect session: no SparkContext, JVM or RDDs in this process (pyspark 3.4+'s
    `pyspark.sql.connect`, which Databricks serverless and shared clusters hand out too)."""
    return type(spark).__module__.startswith("pyspark.sql.connect")


def jvm_of(spark):
    """py4j's view of the session's JVM; None for Spark Connect, which has none in this process."""
    return None if is_connect(spark) else spark._jvm


def location(spark) -> str:
    """Where a session runs: its master URL, or `sc://host:port` of its Spark Connect server (never
    the connection string's token or other parameters)."""
    if not is_connect(spark):
        return spark.sparkContext.master
    endpoint = getattr(getattr(spark.client, "_builder", None), "endpoint", None)
    return f"sc://{endpoint}" if endpoint else "a Spark Connect server"


def running_session():
    """The session this process runs already, whichever thread started it, or None.

    A session is active per thread (the JVM's active session, Spark Connect's client), and the thread
    an orchestrator (Airflow, Dagster, a notebook's pool) runs a task in has none of its own: asked
    there, `getActiveSession()` says None while the caller's session runs. The process's default
    session (`SparkSession.active()`: the thread's, else the one the process made first) is the one the
    builder would hand back, as if new, with the builder's settings applied to it; a run taking it as
    its own would change the caller's SQL settings and stop the caller's session at its end."""
    from pyspark.sql import SparkSession
    from pyspark.sql.utils import is_remote

    if not is_remote():
        from pyspark import SparkContext

        if SparkContext._active_spark_context is None:
            return None  # no classic session in this process (nor a stopped one's leftover default)
    try:
        return SparkSession.active()
    except Exception:  # none made yet
        return None


def _remote(master: str | None, conf: dict[str, str]) -> str | None:
    """The Spark Connect URL a new session is asked for, or None for a classic session. A classic
    `master` beside `spark.remote` or SPARK_REMOTE is SparkUnavailable: pyspark cannot build both."""
    remote = conf.get("spark.remote") or os.environ.get("SPARK_REMOTE") or None
    if master is None or master.startswith("sc://"):
        return master or remote
    if remote:
        named = "spark.remote" if conf.get("spark.remote") else "SPARK_REMOTE"
        raise SparkUnavailable(f"--master {master} asks for a classic session and {named}={_normal(remote)} for Spark Connect: give one of them")
    return None


def _normal(url: str) -> str:
    """A master URL as `location` writes it: Spark Connect's default port added, parameters (a token) left out."""
    if not url.startswith("sc://"):
        return url
    netloc = url[len("sc://"):].split("/", 1)[0].split(";", 1)[0]
    return f"sc://{netloc if ':' in netloc else netloc + ':15002'}"


def parse_data_option(text: str, contract_dir: Path) -> tuple[str, DataLocation]:
    """`MODEL=PATH[:FORMAT[,OPTION[=VALUE]]...]` -> (model, location); the format defaults to the file's
    extension. Options are Spark reader options; a bare name means `true` (`:json,multiLine`)."""
    model, eq, rest = text.partition("=")
    if not eq or not model or not rest:
        raise DataError(f"--data {text!r} must be MODEL=PATH or MODEL=PATH:FORMAT")
    return model, parse_location(rest, f"--data {text!r}")


def parse_location(text: str, named: str, given_by: str = "--data MODEL=") -> DataLocation:
    """`PATH[:FORMAT[,OPTION[=VALUE]]...]` -> a location; `named` says where the text was given (`--data 'a=x'`,
    `--from x`) in errors, `given_by` how the command takes a location (DataLocation.given_by)."""
    path, colon, spec = text.rpartition(":")
    fmt, *option_texts = spec.split(",")
    if not colon or fmt.lower() not in FILE_FORMATS:
        path, fmt, option_texts = text, Path(text).suffix.lstrip(".").lower(), []
    if fmt.lower() not in FILE_FORMATS:
        raise DataError(f"{named}: cannot tell the format of {path}; add :parquet, :csv, :json or :delta")
    options = []
    for option in option_texts:
        name, has_value, value = option.partition("=")
        if not name.strip():
            raise DataError(f"{named}: an empty reader option; write :FORMAT,NAME or :FORMAT,NAME=VALUE (e.g. :json,multiLine)")
        options.append((name.strip(), value if has_value else "true"))
    return DataLocation(path, fmt.lower(), tuple(options), given_by)


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
        # a `number` is read as a double (its first allowed type is tinyint, too small to read into)
        logical = "double" if field.logical_type == "number" else SPARK_TYPES.get(field.logical_type or "string", ("string",))[0]
        if logical == "decimal" and field.precision:
            return T.DecimalType(field.precision, field.scale or 0)
        return simple.get(logical, T.StringType())

    return T.StructType([T.StructField(f.physical_name or f.name, field_type(f), True) for f in model.fields])


def read_location(spark, model: Model, location: DataLocation):
    """The model's data as it is on disk: nothing the files do not hold is added.

    Parquet and ORC merge the schemas of all their files (`mergeSchema`). JSON's own types are kept
    (objects stay structs, arrays stay arrays, a column the files lack stays absent); CSV's header names
    the columns. Where the format has no type of its own for a value (a timestamp or a decimal in JSON, any
    typed value in CSV), the column is converted to the contract's type only when every value converts;
    otherwise it stays as on disk, so the `type` check fails instead of a value turning into NULL.
    """
    options = dict(location.options)
    try:
        if location.format == "json":
            return _read_json(spark, model, location, options)
        if location.format == "csv":
            return _read_csv(spark, model, location, options)
        if location.format in ("parquet", "orc"):
            return _read_merged(spark, location, options)
        return spark.read.format(location.format).options(**options).load(location.path)
    except DataError:
        raise
    except Exception as exc:  # Spark raises AnalysisException, Py4JJavaError and friends
        raise read_error(model.name, location, exc) from None


def read_error(model: str, location: DataLocation, exc: BaseException) -> DataError:
    """A DataError naming the model, the path and format, Spark's root cause (not Py4J's "An error
    occurred while calling o36.load"), and how to fix it."""
    cause = root_cause(exc)
    hint = _fix(cause, location)
    return DataError(f"model `{model}`: cannot read {location.format} data at {location.path}: {cause}"
                     + (f". {hint}" if hint else ""))


def root_cause(exc: BaseException) -> str:
    """The innermost Java exception's message (Py4JJavaError), else the exception's first line."""
    java = getattr(exc, "java_exception", None)
    text = None
    if java is not None:
        try:
            chain, current = [], java
            while current is not None and len(chain) < 20:
                chain.append((str(current.getMessage() or ""), str(current.toString())))
                current = current.getCause()
            # the deepest message with a Spark error class says what went wrong; a deeper cause is added
            classed = [i for i, (message, _) in enumerate(chain) if re.match(r"\s*\[[A-Z_.]+\]", message)]
            pick = classed[-1] if classed else len(chain) - 1
            text = chain[pick][0] or chain[pick][1]
            if pick < len(chain) - 1 and chain[-1][0] not in text:
                text = f"{text} (cause: {chain[-1][1]})"
        except Exception:
            text = None
    if text is None:
        text = str(exc)
        marker = "JVM stacktrace:"
        if marker in text:
            text = text.split(marker, 1)[0]
    lines = [line.strip() for line in text.strip().splitlines() if line.strip() and not line.strip().startswith("at ")]
    text = " ".join(lines) if lines else type(exc).__name__
    text = text.removeprefix("An error occurred while calling").strip()
    return text[:600].rstrip(" .")


_PACKAGES = {
    "delta": "io.delta:delta-spark_2.12:3.2.0 (and --conf spark.sql.extensions=io.delta.sql.DeltaSparkSessionExtension "
             "--conf spark.sql.catalog.spark_catalog=org.apache.spark.sql.delta.catalog.DeltaCatalog)",
    "avro": "org.apache.spark:spark-avro_2.12:{spark}",
}


def _fix(cause: str, location: DataLocation) -> str:
    text = cause.lower()
    if "data_source_not_found" in text or "failed to find data source" in text or "failed to find the data source" in text:
        package = _PACKAGES.get(location.format, "the package that provides it").replace("{spark}", _spark_version())
        return (f"This Spark session cannot read {location.format}: add the package with "
                f"--conf spark.jars.packages={package} (Python API: conf={{'spark.jars.packages': ...}}), "
                "or pass a session that has it")
    if "illegal parquet type" in text or ("parquet" in text and "time(" in text):
        return ("Spark 3.5 has no TIME type: write the column as a string or a timestamp, or leave it out of the files")
    if "cannot_merge_incompatible_data_type" in text or "failed to merge incompatible data types" in text:
        return ("The files hold one column with incompatible types (see above): rewrite the older files with one type, "
                f"or point {location.given_by}PATH at files of one schema")
    if "path_not_found" in text or "path does not exist" in text:
        return f"Check the path, or pass {location.given_by}PATH[:FORMAT] to read it from elsewhere"
    if "unable_to_infer_schema" in text or "unable to infer schema" in text:
        return f"No {location.format} files were found there (an empty folder?), or the format is not {location.format}"
    if "cannot_read_file_footer" in text or "is not a parquet file" in text or "not an orc file" in text:
        return f"A file there is not {location.format} (or is corrupt): give the right format with {location.given_by}PATH:FORMAT"
    return ""


def _spark_version() -> str:
    try:
        import pyspark

        return pyspark.__version__
    except Exception:
        return "3.5.1"


# the corrupt-record column of a read: a name no contract uses
_CORRUPT = "_dc_bridge_corrupt_record"
# contract types JSON has no type of its own for, and the JSON types they are read from
_TEMPORAL = ("date", "timestamp", "timestamp_ntz")
_NUMERIC = ("tinyint", "smallint", "int", "bigint", "float", "double", "decimal")


def _read_json(spark, model: Model, location: DataLocation, options: dict):
    from pyspark.sql import types as T

    options = {k: v for k, v in options.items()}
    if not any(k.lower() == "multiline" for k in options) and _starts_with_array(location.path):
        options["multiLine"] = "true"
    multiline = str(next((v for k, v in options.items() if k.lower() == "multiline"), "false")).lower() == "true"
    reader = spark.read.format("json").options(**options).option("columnNameOfCorruptRecord", _CORRUPT)
    inferred = reader.load(location.path).schema
    if _CORRUPT in inferred.fieldNames():
        server = " or set the server's `delimiter: array`" if location.given_by.startswith("--data") else ""
        how = (f"pass {location.given_by}PATH:json,multiLine{server} if a file is one JSON "
               "array or one pretty-printed document" if not multiline else
               "with multiLine each file must be one JSON document (an array of records or one record)")
        raise DataError(f"model `{model.name}`: some records of the json data at {location.path} are not valid JSON; {how}")
    wanted = _contract_types(model)
    maps = _contract_maps(model)
    fields, converted = [], []
    for field in inferred.fields:
        target, allowed = wanted.get(field.name.lower(), (None, ()))
        as_map = maps.get(field.name.lower())
        if as_map is not None and isinstance(field.dataType, T.StructType):
            # JSON has objects, not maps: an object the contract calls a map is read as one
            fields.append(T.StructField(field.name, as_map, True))
            converted.append(field.name)
        elif target is not None and _json_converts(field.dataType, target, allowed):
            fields.append(T.StructField(field.name, target, True))
            converted.append(field.name)
        else:
            fields.append(field)
    texts = {field.name: wanted[field.name.lower()][0] for field in inferred.fields
             if field.name not in converted and field.name.lower() in wanted and field.dataType == T.StringType()
             and wanted[field.name.lower()][0].simpleString() in _TEMPORAL
             and not _allows(wanted[field.name.lower()][1], field.dataType)}
    nested = _nested_targets(model, inferred)
    if not converted:
        return _narrowed(_from_text(reader.schema(inferred).load(location.path), texts), nested)
    typed = T.StructType(fields + [T.StructField(_CORRUPT, T.StringType(), True)])
    df = reader.option("mode", "PERMISSIVE").schema(typed).load(location.path)
    from pyspark.sql import functions as F

    bad = F.col(_CORRUPT).isNotNull()
    lost = [F.count(F.when(bad & F.col(_q(name)).isNull() &
                           (F.lit(True) if multiline else F.get_json_object(F.col(_CORRUPT), _json_path(name)).isNotNull()),
                           True)).alias(f"c{i}") for i, name in enumerate(converted)]
    counts = df.agg(*lost).collect()[0]
    keep = {name for i, name in enumerate(converted) if counts[f"c{i}"]}
    if keep:  # a value that does not convert: that column stays as the files hold it
        fields = [inferred[f.name] if f.name in keep else f for f in fields]
        df = reader.option("mode", "PERMISSIVE").schema(T.StructType(fields + [typed[_CORRUPT]])).load(location.path)
    return _narrowed(_from_text(df.drop(_CORRUPT), texts), nested)


def _nested_targets(model: Model, inferred) -> dict:
    """column -> its Spark type with each element inside it (a struct's field, an array's items, a map's values,
    at any depth) read as at the top level: a number at the contract's width where JSON's inferred width (bigint,
    double) is not one the contract allows (a JSON number has no width, so `5` in a field declared `integer` is
    an int as parquet's int32 is), a string as the contract's date or timestamp. Only the columns whose type changes."""
    by_name = {(f.physical_name or f.name).lower(): f for f in model.fields}
    targets = {}
    for column in inferred.fields:
        field = by_name.get(column.name.lower())
        if field is not None and column.dataType.typeName() in ("struct", "array", "map"):
            target = _narrow_type(column.dataType, field)
            if target != column.dataType:
                targets[column.name] = target
    return targets


def _narrow_type(data_type, field: Field):
    """`data_type` with its numbers at the widths, and its texts at the dates or timestamps, `field` (and its nested
    fields) declare."""
    from pyspark.sql import types as T

    if isinstance(data_type, T.StructType):
        children = {(c.physical_name or c.name).lower(): c for c in field.fields}
        return T.StructType([T.StructField(f.name, _narrow_type(f.dataType, children[f.name.lower()]), f.nullable)
                             if f.name.lower() in children else f for f in data_type.fields])
    if isinstance(data_type, T.ArrayType):
        return T.ArrayType(_narrow_type(data_type.elementType, field.items), data_type.containsNull) if field.items else data_type
    if isinstance(data_type, T.MapType):
        return (T.MapType(data_type.keyType, _narrow_type(data_type.valueType, field.values), data_type.valueContainsNull)
                if field.values else data_type)
    holder = Model(name="v", source=field.source, fields=(field.model_copy(update={"name": "v", "physical_name": None}),))
    target, allowed = _contract_types(holder).get("v", (None, ()))
    text = isinstance(data_type, T.StringType) and target is not None and target.simpleString() in _TEMPORAL
    return target if target is not None and (_json_converts(data_type, target, allowed) or text and not _allows(allowed, data_type)) \
        else data_type


def _narrowed(df, targets: dict):
    """Each column of `targets` (column -> type) converted to its type (`_converting`) when every value inside it
    converts: a number keeps its value at the narrower width (cast back unchanged), a date's or time's text has
    the type's text form (TEXT_FORMS) and converts. Otherwise the column stays as read, so its `type` check fails
    instead of a value changing. One pass over the data."""
    from pyspark.sql import functions as F

    if not targets:
        return df
    converting = {name: _converting(F.col(_q(name)), df.schema[name].dataType, target) for name, target in targets.items()}
    counts = df.agg(*[F.count(F.when(bad, True)).alias(f"c{i}") for i, (_, bad) in enumerate(converting.values())]).collect()[0]
    fits = {name for i, name in enumerate(converting) if not counts[f"c{i}"]}
    return df.select(*[converting[name][0].alias(name) if name in fits else F.col(_q(name)) for name in df.columns])


def _converting(value, actual, target):
    """(`value`, of Spark type `actual`, as `target`; a condition true when some element of it does not convert),
    element by element through structs, arrays and map values."""
    import operator
    from functools import reduce

    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    if actual == target:
        return value, F.lit(False)
    if isinstance(actual, T.StructType):
        parts = [(f.name, *_converting(value.getField(f.name), f.dataType, t.dataType)) for f, t in zip(actual.fields, target.fields)]
        whole = F.when(value.isNotNull(), F.struct(*[converted.alias(name) for name, converted, _ in parts]))
        return whole, value.isNotNull() & reduce(operator.or_, [bad for _, _, bad in parts], F.lit(False))
    if isinstance(actual, T.ArrayType):
        return (F.transform(value, lambda e: _converting(e, actual.elementType, target.elementType)[0]),
                F.coalesce(F.exists(value, lambda e: _converting(e, actual.elementType, target.elementType)[1]), F.lit(False)))
    if isinstance(actual, T.MapType):
        return (F.transform_values(value, lambda _, v: _converting(v, actual.valueType, target.valueType)[0]),
                F.coalesce(F.exists(F.map_values(value), lambda v: _converting(v, actual.valueType, target.valueType)[1]), F.lit(False)))
    if isinstance(actual, T.StringType):  # a date or time as text: the text rule of `_from_text`
        form = value.rlike(TEXT_FORMS[target.simpleString().split("(")[0]])
        converted = F.when(form, value.cast(target))
        return converted, value.isNotNull() & converted.isNull()
    converted = value.cast(target)  # a number at another width: it must keep its value
    return converted, value.isNotNull() & F.coalesce(converted.cast(actual) != value, F.lit(True))


def _contract_maps(model: Model) -> dict:
    """lower-cased column name -> MapType(string, V) for the contract's `map` fields whose values have a
    simple type V (string keys: JSON object keys are strings)."""
    from pyspark.sql import types as T

    found = {}
    for field in model.fields:
        if field.logical_type != "map" or field.physical_type or field.values is None:
            continue
        if field.keys is not None and field.keys.logical_type not in (None, "string"):
            continue
        holder = Model(name="values", source=model.source, fields=(field.values.model_copy(update={"name": "v", "physical_name": None}),))
        values = _contract_types(holder).get("v")
        if values is not None:
            found[(field.physical_name or field.name).lower()] = T.MapType(T.StringType(), values[0], True)
    return found


def _json_path(name: str) -> str:
    return "$['" + name.replace("\\", "\\\\").replace("'", "\\'") + "']"


def _json_converts(actual, target, allowed: tuple[str, ...]) -> bool:
    """Whether a JSON number of Spark type `actual` is read as `target` by the reader: to the contract's
    width or decimal, when the contract does not allow `actual` already; never a string to a number or
    anything to a string. Temporal values are strings in JSON, converted by the text rule (`_from_text`)."""
    a, t = actual.simpleString(), target.simpleString()
    if _allows(allowed, actual):
        return False
    return a.split("(")[0] in _NUMERIC and t.split("(")[0] in _NUMERIC


def _allows(allowed: tuple[str, ...], actual) -> bool:
    a = actual.simpleString()
    return a in allowed or a.split("(")[0] in [x for x in allowed if "(" not in x]


def _starts_with_array(path: str) -> bool:
    """A local JSON file (or the first one of a folder) whose first character is `[`: one JSON array."""
    if "://" in path and not path.startswith("file:"):
        return False
    local = Path(path.removeprefix("file:"))
    try:
        if local.is_dir():
            local = next(iter(sorted(p for p in local.rglob("*") if p.is_file() and not p.name.startswith((".", "_")))), None)
        elif not local.is_file():
            import glob

            local = next(iter(sorted(glob.glob(str(local)))), None)
            local = Path(local) if local else None
        if local is None or not Path(local).is_file():
            return False
        with open(local, "rb") as handle:
            head = handle.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n")
        return head.startswith(b"[")
    except OSError:
        return False


def _read_csv(spark, model: Model, location: DataLocation, options: dict):
    """Every column as the text the file holds, named by each file's header; then each column the contract
    types is converted by the text rule (`_from_text`).

    A quoted value may hold line breaks (RFC 4180): `multiLine` is on unless the caller sets it, so such a
    value is one value, as in every other format, not the start of a second record. Files of one folder
    with different headers (columns added, dropped or reordered) are read file by file and joined by
    column name, as parquet's `mergeSchema` does: a column a file lacks is null in that file's rows."""
    reader = (spark.read.format("csv").option("header", "true").option("mode", "PERMISSIVE")
              .option("enforceSchema", "false"))
    if not any(k.lower() == "multiline" for k in options):
        reader = reader.option("multiLine", "true")
    reader = reader.options(**options)
    names = _plain_header(location.path, options)
    if names is not None:  # Spark would run a job to read them; the same names, every column a string, checked as it reads
        from pyspark.sql import types as T

        reader = reader.schema(T.StructType([T.StructField(name, T.StringType()) for name in names]))
    raw = reader.load(location.path)  # header only: every column a string
    targets = _text_targets(model, raw.columns)
    try:
        # one pass checks every file's header against the first file's (a folder's or a glob's): the conversion's,
        # or a count when the contract types no column, without which a differing header fails every check later;
        # one local file has no other header to differ from, and that count would be a Spark job for nothing
        return _from_text(raw, targets) if targets else raw if _one_local_file(location.path) else _read_once(raw)
    except Exception as exc:
        if "csv header" not in root_cause(exc).lower():
            raise
    reader = _file_reader(reader, location)
    headers: dict[tuple[str, ...], list[str]] = {}
    for file in raw.inputFiles():
        headers.setdefault(tuple(reader.load(file).columns), []).append(file)
    frames = [reader.load(files) for files in headers.values()]
    joined = frames[0]
    for frame in frames[1:]:
        joined = joined.unionByName(frame, allowMissingColumns=True)
    return _from_text(joined, _text_targets(model, joined.columns))


def _one_local_file(path: str) -> bool:
    """A local path (no scheme, no glob) that is one file, not a folder."""
    return "://" not in path and not any(ch in path for ch in "*?[") and Path(path).is_file()


# a header line holding any of these is left to Spark to read: quoting and escapes, a byte-order mark, a NUL
_UNPLAIN_HEADER = ('"', "\\", "\ufeff", "\r", "\x00")


def _plain_header(path: str, options: dict) -> list[str] | None:
    """The column names Spark's CSV reader gives one local file of Spark's default options, read here without a
    Spark job; None where Spark's own reading could name them otherwise (reader options given, a folder or glob,
    quoting or escapes in the line, an empty, padded or repeated name, which Spark renames, a line that is not
    ASCII, ends in CR LF or does not end). Spark still holds the file's header to these names as it reads (`enforceSchema` off)."""
    if options or not _one_local_file(path):
        return None
    with open(path, "rb") as handle:
        line = handle.readline(65536)
    if not line.endswith(b"\n"):
        return None
    if not line.isascii():
        return None
    text = line[:-1].decode("ascii")
    names = text.split(",")
    if any(mark in text for mark in _UNPLAIN_HEADER) or any(not name or name != name.strip() for name in names) \
            or len({name.lower() for name in names}) < len(names):
        return None
    return names


def _read_once(df):
    """`df`, after one pass over its files (Spark checks each CSV file's header as it reads it)."""
    from pyspark.sql import functions as F

    df.agg(F.count(F.lit(1))).collect()
    return df


def _file_reader(reader, location: DataLocation):
    """A reader of single files of a folder that keeps the folder's partition columns (`key=value`
    folders), as reading the folder does."""
    return reader if any(ch in location.path for ch in "*?[") else reader.option("basePath", location.path)


def _text_targets(model: Model, columns: list[str]) -> dict:
    """column -> the Spark type its text is read as, for the columns the contract types as other than text."""
    wanted = _contract_types(model)
    return {name: wanted[name.lower()][0] for name in columns
            if name.lower() in wanted and "string" not in wanted[name.lower()][1]}


# The text a value must be to be read as a type: what a writer of that type produces (Spark's CSV and
# JSON writers, ISO 8601). Spark's casts accept more (`yes` and `1` as booleans, ` 12` as 12, a
# timestamp's text as a date, a zoned time as a zone-less one by dropping the zone): a value a typed
# format (parquet) could not hold as the contract's type is not made to fit from text either.
_DATE_TEXT = r"[+-]?[0-9]{4,}-[0-9]{1,2}-[0-9]{1,2}"
_TIME_TEXT = r"[T ][0-9]{1,2}:[0-9]{1,2}(:[0-9]{1,2}(\.[0-9]{0,9})?)?"
_ZONE_TEXT = r"(Z|[+-][0-9]{1,2}(:?[0-9]{2}){0,2}| ?[A-Za-z][A-Za-z0-9/_+:-]*)"
_NUMBER_TEXT = r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?"
_INTEGER_TEXT = r"^[+-]?[0-9]+$"
TEXT_FORMS = {
    "boolean": r"^(?i)(true|false)$",
    "tinyint": _INTEGER_TEXT, "smallint": _INTEGER_TEXT, "int": _INTEGER_TEXT, "bigint": _INTEGER_TEXT,
    "float": rf"^({_NUMBER_TEXT}|[+-]?(NaN|Infinity))$", "double": rf"^({_NUMBER_TEXT}|[+-]?(NaN|Infinity))$",
    "decimal": rf"^{_NUMBER_TEXT}$",
    "date": rf"^{_DATE_TEXT}$",
    "timestamp": rf"^{_DATE_TEXT}{_TIME_TEXT}{_ZONE_TEXT}?$",  # no zone: the session's time zone
    "timestamp_ntz": rf"^{_DATE_TEXT}{_TIME_TEXT}$",
}


def _from_text(df, targets: dict):
    """Each text column of `targets` (column -> Spark type) converted to its type when every value has
    the type's text form (`TEXT_FORMS`) and converts (`try_cast`); otherwise the column stays text, so
    its `type` check fails instead of a value turning into NULL. One pass over the data."""
    from pyspark.sql import functions as F

    if not targets:
        return df
    checks = [_unconverted(name, target).alias(f"c{i}") for i, (name, target) in enumerate(targets.items())]
    counts = df.agg(*checks).collect()[0]
    keep = {name for i, name in enumerate(targets) if counts[f"c{i}"]}
    return df.select(*[_converted(name, targets[name]).alias(name) if name in targets and name not in keep
                       else F.col(_q(name)) for name in df.columns])


def _converted(name: str, target):
    """A text column as `target` by the text rule: NULL where the value does not have the type's text form."""
    from pyspark.sql import functions as F

    form = TEXT_FORMS.get(target.simpleString().split("(")[0])
    cast = F.expr(f"try_cast({_q(name)} AS {target.simpleString()})")
    return cast if form is None else F.when(F.col(_q(name)).rlike(form), cast)


def _unconverted(name: str, target):
    """How many values of a text column do not convert to `target` (`_converted`)."""
    from pyspark.sql import functions as F

    return F.count(F.when(F.col(_q(name)).isNotNull() & _converted(name, target).isNull(), True))


# the types `read_untyped` gives a text column, narrowest first: the first every value converts to
TEXT_INFERENCE = ("int", "bigint", "double", "boolean", "date", "timestamp")


def read_untyped(spark, name: str, location: DataLocation):
    """A location read as `run` reads it (`read_location`, the same rule for files, folders and globs) for a
    contract that does not exist yet (`init`): the types the files hold; each text column of a format without
    types (CSV) as the first type of TEXT_INFERENCE every value converts to by the text rule, so a contract
    generated from it passes `run` on the same files. One more pass over a CSV's data."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    df = read_location(spark, Model(name=name, source=_GENERATED), location)
    texts = [f.name for f in df.schema.fields if location.format == "csv" and isinstance(f.dataType, T.StringType)]
    if not texts:
        return df
    types = {"int": T.IntegerType(), "bigint": T.LongType(), "double": T.DoubleType(), "boolean": T.BooleanType(),
             "date": T.DateType(), "timestamp": T.TimestampType()}
    candidates = [(column, types[kind]) for column in texts for kind in TEXT_INFERENCE]
    counts = df.agg(*[F.count(F.col(_q(column))).alias("n" + str(i)) for i, column in enumerate(texts)],
                    *[_unconverted(column, kind).alias(f"c{i}") for i, (column, kind) in enumerate(candidates)]).collect()[0]
    valued = {column for i, column in enumerate(texts) if counts[f"n{i}"]}  # an empty column stays text
    chosen = {}
    for i, (column, kind) in enumerate(candidates):
        if column in valued and column not in chosen and not counts[f"c{i}"]:
            chosen[column] = kind
    return df.select(*[_converted(c, chosen[c]).alias(c) if c in chosen else F.col(_q(c)) for c in df.columns])


_GENERATED = Source(file="(init)", path="")


def _read_merged(spark, location: DataLocation, options: dict):
    """Parquet or ORC with the schemas of all files merged (`mergeSchema`). Spark's merge refuses two
    widths of one kind of number (int and bigint, float and double, two decimals), which JSON or CSV
    holding the same values never meet: such files are read one schema at a time and joined by name,
    each column at the widest of its types. Other differences (a number and a string) still fail."""
    from functools import reduce

    try:
        return spark.read.format(location.format).option("mergeSchema", "true").options(**options).load(location.path)
    except Exception as exc:
        if "merge" not in root_cause(exc).lower():
            raise
        failure = exc
    reader = _file_reader(spark.read.format(location.format).options(**options), location)  # a new reader: `option` changes its reader
    schemas: dict[str, list[str]] = {}
    frames = {}
    for file in reader.load(location.path).inputFiles():
        frame = reader.load(file)
        key = frame.schema.json()
        schemas.setdefault(key, []).append(file)
        frames.setdefault(key, frame.schema)
    if not all(_widens(a, b) for a in frames.values() for b in frames.values()):
        raise failure
    return reduce(lambda left, right: left.unionByName(right, allowMissingColumns=True),
                  [reader.load(files) for files in schemas.values()])


# kinds of number whose widths one column may mix across files, by Spark type name
_NUMBER_KINDS = {"tinyint": "integer", "smallint": "integer", "int": "integer", "bigint": "integer",
                 "float": "floating", "double": "floating", "decimal": "decimal"}


def _widens(a, b) -> bool:
    """Whether two files' types of one column join by widening a number (at any depth; a struct field
    one file lacks is null in its rows)."""
    from pyspark.sql import types as T

    if a == b:
        return True
    if isinstance(a, T.StructType) and isinstance(b, T.StructType):
        theirs = {f.name.lower(): f.dataType for f in b.fields}
        return all(_widens(f.dataType, theirs[f.name.lower()]) for f in a.fields if f.name.lower() in theirs)
    if isinstance(a, T.ArrayType) and isinstance(b, T.ArrayType):
        return _widens(a.elementType, b.elementType)
    if isinstance(a, T.MapType) and isinstance(b, T.MapType):
        return _widens(a.keyType, b.keyType) and _widens(a.valueType, b.valueType)
    kind = _NUMBER_KINDS.get(a.simpleString().split("(")[0])
    return kind is not None and kind == _NUMBER_KINDS.get(b.simpleString().split("(")[0])


def _q(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def _contract_types(model: Model) -> dict:
    """lower-cased column name -> (the Spark type a typeless value is read as, the Spark type names the
    contract allows), for the fields with a simple type (no array, map, struct, time or undeclared type)."""
    schema = spark_schema(model)
    typed = {}
    for field, spark_field in zip(model.fields, schema.fields):
        if field.physical_type and spark_physical_type(field.physical_type) is not None:
            typed[spark_field.name.lower()] = (spark_field.dataType, (spark_physical_type(field.physical_type),))
        elif not field.physical_type and field.logical_type in SPARK_TYPES and field.logical_type not in ("array", "map", "object", "time"):
            typed[spark_field.name.lower()] = (spark_field.dataType, SPARK_TYPES[field.logical_type])
    return typed


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
    delimiter = str(server.settings.get("delimiter") or "").lower()
    options = (("multiLine", "true" if delimiter == "array" else "false"),) if fmt == "json" and delimiter in ("array", "new_line") else ()
    return DataLocation(location, fmt, options)


class UnreadModel(DataError):
    """A model's data could not be found or read (not a --where that cannot filter it): the run a
    history records as one without data."""

    def __init__(self, model: str, message: str):
        super().__init__(message)
        self.model = model


def model_sources(contract: Contract, data: dict[str, DataLocation], given: set[str], server_name: str | None,
                  local: bool = False, elsewhere: str | None = None) -> tuple[Server | None, dict[str, DataLocation | str]]:
    """(the server chosen, model -> its `model_source`) for every model whose DataFrame is not `given`, decided
    before Spark starts. A model that is not the contract's is a DataError; a model whose data is not there
    an UnreadModel. `elsewhere`: how this run's caller may read a model's data from elsewhere, as the hint says it
    ({model} is the model's name; None: `--data MODEL=PATH`, which a run of several contracts refuses)."""
    names = [m.name for m in contract.models]
    unknown = (given | set(data)) - set(names)
    if unknown:
        raise DataError(f"{contract.file} has no model named {', '.join(sorted(unknown))} (models: {', '.join(names)})")
    server = None if all(name in given or name in data for name in names) else choose_server(contract, server_name)
    found = {}
    for model in contract.models:
        if model.name not in given:
            try:
                found[model.name] = model_source(contract, model, server, data, local, elsewhere)
            except DataError as exc:
                raise UnreadModel(model.name, str(exc)) from None
    return server, found


# how a model's data is read from elsewhere, as a missing-data hint says it to one contract's run
DATA_ELSEWHERE = "pass --data {model}=PATH to read it from elsewhere"


def model_source(contract: Contract, model: Model, server: Server | None, data: dict[str, DataLocation],
                 local: bool = False, elsewhere: str | None = None) -> DataLocation | str:
    """Where a model's data is, decided before Spark starts: its `--data` location, else its server's (a file
    location, or a table or view name). A DataError when it has none, a format Spark cannot read, or a local path
    that does not exist: a server's of type local or file, or (`local`: the session will be embedded, so a path
    without a scheme is this machine's) a `--data` path."""
    if model.name in data:
        location = data[model.name]
        if location.format not in FILE_FORMATS:
            raise DataError(f"model `{model.name}`: --data format `{location.format}` is not one Spark reads here "
                            f"({', '.join(FILE_FORMATS)})")
        if local and missing_local(location.path):
            raise DataError(f"model `{model.name}`: {location.path} does not exist (--data); check the path")
        return location
    hint = (elsewhere or DATA_ELSEWHERE).format(model=model.name)
    if server is None:
        raise DataError(f"model `{model.name}`: no data. " + (f"Add a server to {contract.file}, or {hint}" if elsewhere else
                                                              f"Pass --data {model.name}=PATH, a DataFrame, or add a server to {contract.file}"))
    location = server_location(contract, server, model)
    if not isinstance(location, str) and missing_local(location.path):
        raise DataError(f"model `{model.name}`: {location.path} does not exist (server `{server.name}` of {contract.file}); {hint}")
    return location


def missing_local(path: str) -> bool:
    """A local path (no scheme) that does not exist, or a local glob that matches nothing: known before Spark starts."""
    import glob

    if "://" in path:
        return False
    return not glob.glob(path) if any(ch in path for ch in "*?[") else not Path(path).exists()


def source_dataframe(spark, model: Model, source: DataLocation | str, server: Server | None):
    """The model's DataFrame from its `model_source` (a table name comes from `server`)."""
    if isinstance(source, str):
        try:
            return spark.table(source)
        except Exception as exc:
            raise DataError(f"model `{model.name}`: table or view `{source}` (server `{server.name}`) cannot be read: "
                            f"{root_cause(exc)}") from None
    return read_location(spark, model, source)
