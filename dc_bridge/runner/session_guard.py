"""What a run changes in a session it did not create, recorded before and put back after the run.

A caller's session (a notebook's, a job's) outlives the run. The run registers a temp view per
model under `view_name(contract id, model)` (the name docs/soda.md and docs/gx-project.md tell teams
to register themselves), and the engines and libraries it drives may change the session's SQL
configuration, the calling thread's job properties (job group, description, tags, scheduler pool)
or the current catalog and database. The guard records each of these before the run and restores
it afterwards: a view of the caller's under a run's name is registered again with the caller's own
plan (a view the run created is dropped), a configuration value is set back (unset when it was
unset), the thread's local properties (classic) or operation tags (Spark Connect) are put back, and
the current catalog and database are selected again. The JVM loggers that would warn of the run's
own SQL (runner/verbosity.py `QUIETED`) are quiet for the run and get their levels back after it.

Cached data needs no record: the run never persists a caller's DataFrame (each model is read
through a plan of the run's own, runner/pipeline.py `_model_frames`) and releases what it persisted.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from dc_bridge.engines.views import existing_temp_view
from dc_bridge.runner.verbosity import QuietLoggers


@dataclass
class SessionGuard:
    """The session's state as a run found it; `restore()` puts it back."""

    spark: object
    views: dict[str, object]        # view name -> the caller's DataFrame behind it, or None (no such view)
    conf: dict[str, str]            # every SQL configuration key set in the session -> its value
    catalog: str | None
    database: str | None
    local_properties: object        # the thread's Spark local properties (a java.util.Properties), classic only
    tags: frozenset[str] | None     # the thread's operation tags, Spark Connect only
    loggers: QuietLoggers | None    # the JVM loggers quieted for the run, classic only

    @classmethod
    def record(cls, spark, views: Iterable[str]) -> SessionGuard:
        from dc_bridge.runner.data import is_connect

        connect = is_connect(spark)
        return cls(spark=spark,
                   views={name: existing_temp_view(spark, name) for name in dict.fromkeys(views)},
                   conf=_sql_conf(spark),
                   catalog=_or_none(spark.catalog.currentCatalog),
                   database=_or_none(spark.catalog.currentDatabase),
                   local_properties=None if connect else spark.sparkContext._jsc.sc().getLocalProperties().clone(),
                   tags=frozenset(spark.getTags()) if connect else None,
                   loggers=None if connect else QuietLoggers(spark.sparkContext._jvm))

    def restore(self) -> None:
        """Every recorded part put back; a part that cannot be (the session is gone) is left."""
        for restore in (self._restore_views, self._restore_conf, self._restore_catalog, self._restore_thread, self._restore_loggers):
            try:
                restore()
            except Exception:  # a stopped session: nothing of it is left to restore
                pass

    def _restore_views(self) -> None:
        for name, previous in self.views.items():
            if previous is not None:
                previous.createOrReplaceTempView(name)
            else:
                self.spark.catalog.dropTempView(name)

    def _restore_conf(self) -> None:
        now = _sql_conf(self.spark)
        for key in now.keys() - self.conf.keys():
            self.spark.conf.unset(key)
        for key, value in self.conf.items():
            if now.get(key) != value:
                self.spark.conf.set(key, value)

    def _restore_catalog(self) -> None:
        if self.catalog is not None and self.spark.catalog.currentCatalog() != self.catalog:
            self.spark.catalog.setCurrentCatalog(self.catalog)
        if self.database is not None and self.spark.catalog.currentDatabase() != self.database:
            self.spark.catalog.setCurrentDatabase(self.database)

    def _restore_thread(self) -> None:
        if self.local_properties is not None:
            self.spark.sparkContext._jsc.sc().setLocalProperties(self.local_properties)
        if self.tags is not None:
            for tag in set(self.spark.getTags()) - self.tags:
                self.spark.removeTag(tag)
            for tag in self.tags:
                self.spark.addTag(tag)

    def _restore_loggers(self) -> None:
        if self.loggers is not None:
            self.loggers.restore()


def _sql_conf(spark) -> dict[str, str]:
    """The SQL configuration keys set in the session (`SET` without -v: the set ones, not every default)."""
    return {row[0]: row[1] for row in spark.sql("SET").collect()}


def _or_none(read):
    try:
        return read()
    except Exception:  # a catalog that cannot say (an old Spark without currentCatalog)
        return None
