"""Where `init --from` reads a schema (and, for --profile, the data):

    PATH[:FORMAT]      a path Spark reads (parquet, orc, delta, json, csv; the format from the extension if not given)
    table:DB.TABLE     a table of the Spark session's catalog (`spark.table`)
    iceberg:NS.TABLE   an Iceberg table through pyiceberg: its schema from the metadata, no Spark (profiling reads
                       the columns it measures through pyiceberg's scan into Spark, bounded like any profile)

Each source is one model, named after the table or the path's last part (without its extension).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from dc_bridge.runner.data import DataError, DataLocation, missing_local, parse_location


@dataclass(frozen=True)
class Source:
    spec: str  # as the user wrote it
    kind: str  # path, table, iceberg
    target: str  # the path, DB.TABLE or NS.TABLE
    model: str
    location: DataLocation | None = None  # a path source's


def parse_source(spec: str) -> Source:
    """A source, checked before Spark starts: a path's format known and the path there (a local one)."""
    kind, colon, rest = spec.partition(":")
    if colon and kind in ("table", "iceberg"):
        namespace, dot, table = rest.rpartition(".")
        if not dot or not namespace or not table:
            raise DataError(f"--from {spec!r}: give {kind}:{'DB' if kind == 'table' else 'NS'}.TABLE")
        return Source(spec, kind, rest, table)
    location = parse_location(spec, f"--from {spec}", given_by="--from ")
    if missing_local(location.path):
        raise DataError(f"--from {spec}: {location.path} does not exist"
                        + (" (no file matches the glob)" if any(ch in location.path for ch in "*?[") else "") + "; check the path")
    path = Path(location.path.rstrip("/"))
    # a glob's model is named after its folder (`orders/*.csv` -> orders)
    named = path.parent if any(ch in path.name for ch in "*?[") else path
    return Source(spec, "path", spec, named.name.split(".", 1)[0] or "data", location)


def read_frame(source: Source, spark) -> Any:
    """The source as a Spark DataFrame (path and table sources): a path as `run` reads it (runner/data.py
    `read_untyped`: the same rule for files, folders and globs of every format)."""
    if source.kind == "table":
        return spark.table(source.target)
    from dc_bridge.runner.data import read_untyped

    return read_untyped(spark, source.model, source.location)


def generated_servers(sources: list[Source], out: str, project: Path) -> list[dict[str, Any]]:
    """The ODCS server of the local files the contract is generated from, so `run` of it needs no --data: its
    path relative to the contract's folder when the contract and the data are both inside the project (the
    pair moves with a checkout), else absolute. Several sources share one server when their paths differ only
    by the model's name (`data/{model}.parquet`); sources that do not (a table, a remote path, files in other
    places, other formats or reader options a server cannot say) get none: `run` needs --data for them."""
    if not sources or any(s.kind != "path" or "://" in s.location.path for s in sources):
        return []
    folder = Path(out).resolve().parent
    paths = []
    for source in sources:
        path = Path(source.location.path).resolve()
        inside = path.is_relative_to(project) and folder.is_relative_to(project)
        paths.append(os.path.relpath(path, folder) if inside else str(path))
    head, _, tail = paths[0].rpartition(sources[0].model)
    pattern = paths[0] if len(sources) == 1 else head + "{model}" + tail
    kinds = {(source.location.format, source.location.options) for source in sources}
    fmt, options = next(iter(kinds))
    if len(kinds) > 1 or (options and not (fmt == "json" and options in _DELIMITERS)):
        return []
    if any(pattern.replace("{model}", source.model) != path for source, path in zip(sources, paths)):
        return []
    delimiter = _DELIMITERS.get(options) if fmt == "json" else None
    return [{"server": "local", "type": "local", "path": pattern.replace(os.sep, "/"), "format": fmt,
             **({"delimiter": delimiter} if delimiter else {})}]


# reader options a server can say (DCS/ODCS `delimiter` of JSON), as runner/data.py `server_location` reads them
_DELIMITERS = {(): None, (("multiLine", "true"),): "array", (("multiLine", "false"),): "new_line"}


def iceberg_schema(source: Source, open_catalog: Callable[[], Any]):
    """(the table's schema as a pyspark StructType, the pyiceberg Table) of an iceberg: source."""
    from dc_bridge.catalog.iceberg import spark_struct

    namespace, _, table = source.target.rpartition(".")
    store = open_catalog()
    loaded = store.table(namespace, table)
    if loaded is None:
        raise DataError(f"--from {source.spec}: there is no table {source.target} in {store.label}")
    return spark_struct(loaded.schema().as_struct()), loaded


def iceberg_sample(table, schema, sample_rows: int | None, spark):
    """The columns a profile measures (profile.measured_fields) of a pyiceberg Table, its first `sample_rows` rows
    (None: every row), as a Spark DataFrame: read by pyiceberg's scan, so Spark needs no Iceberg runtime.

    The rows go through Arrow's Python values, not pandas: pandas makes a null number NaN, which Spark
    would count as a value."""
    from pyspark.sql import types as T

    from dc_bridge.generate.profile import measured_fields

    fields = measured_fields(schema)
    if not fields:
        return spark.createDataFrame([], T.StructType([]))
    rows = table.scan(selected_fields=tuple(f.name for f in fields), limit=sample_rows).to_arrow().to_pylist()
    return spark.createDataFrame(rows, schema=T.StructType(fields))
