"""Where `init --from` reads a schema (and, for --profile, the data):

    PATH[:FORMAT]      a path Spark reads (parquet, orc, delta, json, csv; the format from the extension if not given)
    table:DB.TABLE     a table of the Spark session's catalog (`spark.table`)
    iceberg:NS.TABLE   an Iceberg table through pyiceberg: its schema from the metadata, no Spark (profiling reads
                       the columns it measures through pyiceberg's scan into Spark, bounded like any profile)

Each source is one model, named after the table or the path's last part (without its extension).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from dc_bridge.runner.data import DataError, parse_data_option


@dataclass(frozen=True)
class Source:
    spec: str  # as the user wrote it
    kind: str  # path, table, iceberg
    target: str  # the path, DB.TABLE or NS.TABLE
    model: str


def parse_source(spec: str) -> Source:
    kind, colon, rest = spec.partition(":")
    if colon and kind in ("table", "iceberg"):
        namespace, dot, table = rest.rpartition(".")
        if not dot or not namespace or not table:
            raise DataError(f"--from {spec!r}: give {kind}:{'DB' if kind == 'table' else 'NS'}.TABLE")
        return Source(spec, kind, rest, table)
    path = spec.rpartition(":")[0] if ":" in spec and not Path(spec).exists() else spec
    stem = Path(path.rstrip("/")).name.split(".", 1)[0] or "data"
    return Source(spec, "path", spec, stem)


def read_frame(source: Source, spark) -> Any:
    """The source as a Spark DataFrame (path and table sources)."""
    if source.kind == "table":
        return spark.table(source.target)
    _, location = parse_data_option(f"{source.model}={source.target}", Path.cwd())
    reader = spark.read.format(location.format)
    defaults = {"parquet": {"mergeSchema": "true"}, "orc": {"mergeSchema": "true"},
                "csv": {"header": "true", "inferSchema": "true"}}.get(location.format, {})
    try:
        return reader.options(**{**defaults, **dict(location.options)}).load(location.path)
    except Exception as exc:  # Spark's AnalysisException and friends
        from dc_bridge.runner.data import read_error

        raise read_error(source.model, location, exc) from None


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
