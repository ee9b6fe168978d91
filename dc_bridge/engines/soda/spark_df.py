"""Soda Core v3's Spark DataFrame data source, carried here instead of soda-core-spark-df.

soda-core-spark-df 3.5.6, the last v3 release, declares `pyspark<4`: installing it would replace the
pyspark 4.x of a Spark 4 environment or a Databricks runtime. Its code needs no more than a session's
`sql()` and a DataFrame's `collect()`, which pyspark 3.5 and 4.x, classic and Spark Connect, answer
alike, and its SQL dialect lives in soda-core-spark (`SparkSQLBase`), which declares no pyspark. So
dc-bridge depends on soda-core-spark and hands each scan this data source already connected
(`attach`); Soda then never imports `soda.data_sources.spark_df_data_source`.
"""

from __future__ import annotations

from soda.data_sources.spark_data_source import SparkSQLBase
from soda.execution.data_type import DataType


class SparkDfDataSource(SparkSQLBase):
    """soda-core-spark-df's `SparkDfDataSource` 3.5.6, less its connection test (Soda's `test-connection`)."""

    TYPE = "spark_df"

    SCHEMA_CHECK_TYPES_MAPPING: dict = {
        "string": ["character varying", "varchar", "text"],
        "int": ["integer", "int"],
        "double": ["decimal"],
        "timestamp": ["timestamptz"],
    }

    SQL_TYPE_FOR_SCHEMA_CHECK_MAP = {
        DataType.TEXT: "string",
        DataType.INTEGER: "int",
        DataType.DECIMAL: "double",
        DataType.DATE: "date",
        DataType.TIME: "timestamp",
        DataType.TIMESTAMP: "timestamp",
        DataType.TIMESTAMP_TZ: "timestamp",  # Spark has no time zone per value
        DataType.BOOLEAN: "boolean",
    }

    def __init__(self, logs, data_source_name: str, data_source_properties: dict):
        super().__init__(logs, data_source_name, data_source_properties)
        self.spark_session = data_source_properties.get("spark_session")
        self.migrate_data_source_name = "spark_df"

    def connect(self):
        self.connection = SparkDfConnection(self.spark_session)

    def quote_table(self, table_name) -> str:
        return f"{table_name}"

    def sql_get_table_names_with_count(self, include_tables=None, exclude_tables=None) -> str | None:
        return None

    def cast_to_text(self, expr: str) -> str:
        return f"CAST({expr} AS string)"

    def get_table_columns(self, table_name: str, query_name: str, included_columns: list[str] | None = None,
                          excluded_columns: list[str] | None = None) -> dict[str, str] | None:
        """The columns and types `DESCRIBE` would list (its `simpleString`), from the view's schema, which the
        session knows already: no SQL execution per model (Soda asks before its schema and type checks)."""
        try:
            fields = self.spark_session.table(table_name).schema.fields
        except Exception:  # not a view or table of this session's: Soda's own DESCRIBE says why
            return super().get_table_columns(table_name, query_name, included_columns, excluded_columns)
        columns = {field.name: field.dataType.simpleString() for field in fields}
        if included_columns or excluded_columns:
            kept = self._filter_include_exclude(list(columns), included_columns, excluded_columns)
            columns = {name: kind for name, kind in columns.items() if name in kept}
        return columns


class SparkDfConnection:
    """The DB-API connection Soda expects, over a Spark session."""

    def __init__(self, spark_session):
        self.spark_session = spark_session

    def cursor(self) -> SparkDfCursor:
        return SparkDfCursor(self.spark_session)

    def close(self):
        pass

    def commit(self):
        pass

    def rollback(self):
        pass


# rows a cursor keeps from its first page onwards (Soda stores at most 10,000 of a result itself)
BUFFERED_ROWS = 10_000


class SparkDfCursor:
    """A DB-API cursor over `spark.sql`: rows as lists, `description` as (name, Spark type name)."""

    def __init__(self, spark_session):
        self.spark_session = spark_session
        self.df = None
        self.description: tuple[tuple, ...] | None = None
        self.rowcount = -1
        self.cursor_index = -1
        self._buffered: list | bool | None = None  # the whole result once fetched; False: too large, paged

    def execute(self, sql: str):
        self.df = self.spark_session.sql(sql)
        self.description = tuple((field.name, type(field.dataType).__name__) for field in self.df.schema.fields)
        self.cursor_index = 0
        self._buffered = None

    def fetchall(self) -> tuple:
        rows = self.df.collect()
        self.rowcount = len(rows)
        return tuple(_values(row) for row in rows)

    def fetchmany(self, size: int) -> tuple:
        # Soda reads a result by pages until one comes back empty (MemorySafeCursorFetcher). The first
        # page fetches up to BUFFERED_ROWS rows in one query and, when that is the whole result (a
        # failed-rows sample, a duplicate listing), every page is served from it: one Spark query
        # where a count and a query per page ran. A larger result is paged by the query as before.
        if self._buffered is None:
            first = self.df.limit(BUFFERED_ROWS + 1).collect()
            self._buffered = first if len(first) <= BUFFERED_ROWS else False
        if self._buffered is not False:
            self.rowcount = len(self._buffered)
            rows = self._buffered[self.cursor_index:self.cursor_index + size]
        else:
            self.rowcount = self.df.count()
            rows = self.df.offset(self.cursor_index).limit(size).collect()
        self.cursor_index += len(rows)
        return tuple(_values(row) for row in rows)

    def fetchone(self) -> tuple:
        rows = self.df.collect()
        self.rowcount = len(rows)
        return tuple(_values(rows[0]))

    def close(self):
        pass


def _values(row) -> list:
    return [row[field] for field in row.__fields__]


def attach(scan, spark, name: str) -> None:
    """Make `spark` the scan's data source `name`, connected: Soda's data source manager returns a
    connected source it holds as it is, instead of importing one by its type."""
    scan.add_spark_session(spark, data_source_name=name)
    # private (`_logs`, `_configuration`, `_data_source_manager`): Soda builds a data source only by
    # importing soda-core-spark-df by its type name, and has no public way to hand a scan one it did not build
    source = SparkDfDataSource(scan._logs, name, scan._configuration.data_source_properties_by_name[name])
    source.connect()
    scan._data_source_manager.data_sources[name] = source
