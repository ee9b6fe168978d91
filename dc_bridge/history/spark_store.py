"""The verdict history as a table in the Spark catalog (`--history table:db.name`), for teams whose
runs happen on clusters (docs/history.md, "A table in the Spark catalog").

One long table, a row per check per run plus one row per run (`check_id` NULL), the run's facts
repeated on each row: the shape a team queries and dashboards read without joins. A run appends its
rows in one `INSERT` (one Spark job: the rows of a run land together or not at all), never rewrites
earlier ones, and the SLAs read only this contract's run rows within the window (a filter Spark
pushes down to the files), not the whole table.

Versioned as the SQLite store is: every row carries the `schema_version` it was written with, and a
table of an earlier version is brought to this one when it is opened (`MIGRATIONS`: columns added at
the end, which `ALTER TABLE ... ADD COLUMNS` can do to any catalog's table; earlier rows read NULL there);
a table with a column this version does not know, which a newer dc-bridge added, is refused rather than misread.
"""

from __future__ import annotations

import functools
import operator
import re
import uuid
from datetime import datetime
from typing import Any, Iterable, Mapping

from dc_bridge.history.series import run_metrics
from dc_bridge.history.store import StoreError, data_docs_text, data_source_text, epoch_micros, lifecycle_columns
from dc_bridge.monitors import MonitorVerdict, Point, SeriesKey
from dc_bridge.verdict import HISTORY_WINDOW, PastRun, RunHistory, Verdict

PREFIX = "table:"
# db.name or name, each part a plain identifier: the name is written into SQL, so nothing else is accepted
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$")

# the table's columns, in order (docs/history.md lists them: tests/test_history_spark_store.py)
COLUMNS = (
    ("schema_version", "INT"), ("run_id", "STRING"), ("contract_id", "STRING"), ("contract_version", "STRING"),
    ("run_at", "STRING"), ("run_at_us", "BIGINT"), ("run_outcome", "STRING"), ("data_read", "BOOLEAN"),
    ("evaluated", "INT"), ("in_error", "INT"), ("data_source", "STRING"), ("slice", "STRING"), ("reason", "STRING"),
    ("check_id", "STRING"), ("model", "STRING"), ("kind", "STRING"), ("outcome", "STRING"), ("observed", "DOUBLE"),
    ("engines", "MAP<STRING, DOUBLE>"), ("source_line", "INT"), ("data_docs", "STRING"),
    # version 3: a metric row's series and value, and what its monitor said of it (NULL where none judged it)
    ("metric", "STRING"), ("subject", "STRING"), ("value", "DOUBLE"), ("monitor", "STRING"), ("monitor_severity", "STRING"),
    ("monitor_unit", "STRING"), ("monitor_direction", "STRING"), ("band_centre", "DOUBLE"), ("band_lower", "DOUBLE"),
    ("band_upper", "DOUBLE"), ("band_season", "STRING"), ("band_points", "INT"), ("monitor_needed", "INT"),
    ("monitor_sentence", "STRING"),
    # version 4: where the registry said the contract's version was in its life, on every row as the run's other facts
    ("lifecycle_state", "STRING"), ("lifecycle_sunset", "STRING"), ("lifecycle_successor", "STRING"),
    ("lifecycle_days_to_sunset", "INT"),
)
SCHEMA_VERSION = 4
# the columns that make a table a dc-bridge history (every version has had them)
OWN_COLUMNS = ("schema_version", "run_id", "contract_id", "run_at_us", "run_outcome")
# version -> the columns a table of the version before it lacks (added at the end, in order)
_AT = {column: at for at, (column, _) in enumerate(COLUMNS)}
MIGRATIONS: dict[int, tuple[str, ...]] = {
    2: ("data_docs",),
    3: tuple(column for column, _ in COLUMNS[_AT["metric"]:_AT["lifecycle_state"]]),
    4: tuple(column for column, _ in COLUMNS[_AT["lifecycle_state"]:]),
}
# the columns of a metric row after the run's facts (metric ... monitor_sentence)
_METRIC_COLUMNS = _AT["lifecycle_state"] - _AT["metric"]


def is_table(target: str) -> bool:
    return str(target).startswith(PREFIX)


class SparkTableStore:
    """The history table `name` in the catalog of `spark`'s session, created on first use."""

    def __init__(self, spark: Any, target: str):
        name = target[len(PREFIX):] if is_table(target) else target
        if not _NAME.match(name):
            raise StoreError(f"history table {name!r}: name a table as db.name or name, letters, digits and _ only")
        self.spark, self.name = spark, name
        columns = ", ".join(f"{column} {kind}" for column, kind in COLUMNS)
        spark.sql(f"CREATE TABLE IF NOT EXISTS {name} ({columns}) USING parquet")
        present = spark.table(name).columns
        kinds = dict(COLUMNS)
        # a table of someone else's under that name is never altered into a history: ours has had these since version 1
        if not set(OWN_COLUMNS) <= set(present):
            raise StoreError(f"history table {name} is not a dc-bridge history table (its columns: {', '.join(present)}; a "
                             f"history table has {', '.join(OWN_COLUMNS)}); nothing was changed in it: name a table of its own")
        # a later version only adds columns at the end: a column this version does not know is a newer dc-bridge's
        newer = [column for column in present if column not in kinds]
        if newer:
            raise StoreError(f"history table {name} has the columns {', '.join(newer)}, which a newer dc-bridge than this "
                             f"one (schema version {SCHEMA_VERSION}) added: upgrade dc-bridge to write to it")
        for version in sorted(MIGRATIONS):
            missing = [column for column in MIGRATIONS[version] if column not in present]
            if missing:
                spark.sql(f"ALTER TABLE {name} ADD COLUMNS ({', '.join(f'{column} {kinds[column]}' for column in missing)})")

    def append(self, record: dict, verdict: Verdict | None = None, data_source: str | None = None,
               data_docs: dict | None = None, metrics: Mapping[SeriesKey, float | None] | None = None) -> str:
        """This run's rows in one INSERT: the run row, then a row per check (from the verdict, else the record's
        outcomes), then a row per series the run measured (`metrics`, by default its verdict's: series.py
        `run_metrics`) with what its monitor said; `data_docs`, where the GX Data Docs the run built are, on
        every row as the run's other facts."""
        run_id = str(uuid.uuid4())
        run = (SCHEMA_VERSION, run_id, record["contract_id"], record["contract_version"], record["run_at"],
               epoch_micros(datetime.fromisoformat(record["run_at"])), record["outcome"], all(record["read"].values()),
               record["evaluated"], record["in_error"], data_source_text(verdict, data_source), verdict.where if verdict else None,
               record.get("reason"))
        if verdict is not None:
            checks = [(c.check_id, c.model, c.kind, c.outcome, c.observed,
                       {engine: r.observed for engine, r in c.engines.items() if r.observed is not None}, c.source.get("line"))
                      for c in verdict.checks()]
        else:
            checks = [(check_id, None, None, outcome, None, {}, None) for check_id, outcome in record["checks"].items()]
        # the columns after the check's are the run's facts a later version added
        added = (data_docs_text(data_docs),)
        plain = (None,) * _METRIC_COLUMNS
        said = {SeriesKey(m.metric, m.model, m.subject): m for m in (verdict.monitors if verdict is not None else [])}
        values = run_metrics(verdict, datetime.fromisoformat(record["run_at"])) if metrics is None else metrics
        series = [run + (None, key.model or "", None, None, None, None, None) + added + (key.metric, key.subject, value)
                  + _monitor_columns(said.get(key)) for key, value in values.items()]
        life = lifecycle_columns(verdict)
        rows = [row + life for row in [run + (None,) * 7 + added + plain] + [run + check + added + plain for check in checks] + series]
        frame = self.spark.createDataFrame(rows, ", ".join(f"{column} {kind.lower()}" for column, kind in COLUMNS))
        frame.write.insertInto(self.name)
        return run_id

    def earlier_runs(self, contract_id: str, now: datetime) -> RunHistory:
        """This contract's run rows within HISTORY_WINDOW before `now`, as the SQLite store gives them."""
        from pyspark.sql.functions import col

        rows = (self.spark.table(self.name)
                .where(col("check_id").isNull() & col("metric").isNull() & (col("contract_id") == contract_id)
                       & col("run_at_us").between(epoch_micros(now - HISTORY_WINDOW), epoch_micros(now)))
                .select("data_read", "evaluated", "in_error", "run_at_us").orderBy("run_at_us").collect())
        return RunHistory(file=f"{PREFIX}{self.name}", runs=tuple(PastRun(r.data_read, r.evaluated, r.in_error) for r in rows))


    def series(self, contract_id: str, keys: Iterable[SeriesKey] | None = None, limit: int | None = None,
               before: datetime | None = None, sliced: bool | None = None) -> dict[SeriesKey, list[Point]]:
        """As the SQLite store's `series`: the contract's metric rows (only `keys`' when given), each series
        oldest first, over the contract's newest `limit` runs strictly before `before` (of a slice, or of whole
        tables, where `sliced` says); two Spark jobs (the runs, their rows)."""
        from pyspark.sql.functions import col, lit

        table = self.spark.table(self.name)
        mine = ((col("contract_id") == contract_id) & ((col("run_at_us") < epoch_micros(before)) if before is not None else lit(True))
                & {None: lit(True), True: col("slice").isNotNull(), False: col("slice").isNull()}[sliced])
        rows = table.where(col("metric").isNotNull() & mine)
        wanted = list(keys) if keys is not None else None
        if wanted is not None:
            rows = rows.where(functools.reduce(operator.or_, [(col("metric") == k.metric) & (col("model") == k.model)
                                                               & (col("subject") == k.subject) for k in wanted], lit(False)))
        if limit is not None:
            runs = (table.where(col("check_id").isNull() & col("metric").isNull() & mine).orderBy(col("run_at_us").desc())
                    .select("run_id").limit(int(limit)).collect())
            rows = rows.where(col("run_id").isin([run.run_id for run in runs]))
        found: dict[SeriesKey, list[Point]] = {key: [] for key in wanted or []}
        for row in rows.select("metric", "model", "subject", "run_at", "contract_version", "value", "monitor").orderBy("run_at_us").collect():
            found.setdefault(SeriesKey(row.metric, row.model or "", row.subject or ""), []).append(
                Point(datetime.fromisoformat(row.run_at), row.value, row.contract_version, row.monitor == "anomalous"))
        return found

    def monitor_outcomes(self, run_ids: list[str]) -> dict[tuple[str, SeriesKey], MonitorVerdict]:
        """(run id, series) -> what its monitor said of the run, over the given runs."""
        from pyspark.sql.functions import col

        found = {}
        for row in (self.spark.table(self.name).where(col("monitor").isNotNull() & col("run_id").isin(list(run_ids))).collect()):
            key = SeriesKey(row.metric, row.model or "", row.subject or "")
            found[(row.run_id, key)] = MonitorVerdict(
                monitor_id=key.monitor_id, metric=key.metric, model=key.model, subject=key.subject, outcome=row.monitor,
                severity=row.monitor_severity, unit=row.monitor_unit, direction=row.monitor_direction, observed=row.value,
                centre=row.band_centre, lower=row.band_lower, upper=row.band_upper, season=row.band_season,
                points=row.band_points, needed=row.monitor_needed, sentence=row.monitor_sentence)
        return found


def _monitor_columns(said: MonitorVerdict | None) -> tuple:
    """A metric row's monitor columns (monitor ... monitor_sentence), NULL where no monitor judged the series."""
    if said is None:
        return (None,) * 11
    return (said.outcome, said.severity, said.unit, said.direction, said.centre, said.lower, said.upper, said.season, said.points,
            said.needed, said.sentence)
