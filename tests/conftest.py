"""Shared fixtures. One Spark session for the whole test run: starting a JVM costs seconds."""

from __future__ import annotations

import os
import sys

import pytest


@pytest.fixture(scope="session")
def spark(tmp_path_factory):
    """A quiet embedded session: local[2], UI off, 2 shuffle partitions, UTC session time zone, its warehouse in
    the run's temporary folder (never a `spark-warehouse/` in the checkout)."""
    from pyspark.sql import SparkSession

    # Python workers must run the same interpreter as the driver (the venv)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    session = (SparkSession.builder.appName("dc-bridge-tests").master("local[2]")
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.shuffle.partitions", "2")
               .config("spark.default.parallelism", "2")
               .config("spark.sql.session.timeZone", "UTC")
               .config("spark.sql.warehouse.dir", str(tmp_path_factory.mktemp("spark-warehouse")))
               .config("spark.driver.extraJavaOptions", "-Dlog4j2.level=ERROR")
               .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture(scope="module", params=["false", "true"], ids=["ansi-off", "ansi-on"])
def ansi_spark(request, spark):
    """The shared session with `spark.sql.ansi.enabled` off, then on (Spark 4's default, opt-in on 3.5),
    restored after the module. A module whose tests must hold in both modes overrides `spark` with it
    (`def spark(ansi_spark): return ansi_spark`), so its module fixtures run once per mode."""
    before = spark.conf.get("spark.sql.ansi.enabled")
    spark.conf.set("spark.sql.ansi.enabled", request.param)
    yield spark
    spark.conf.set("spark.sql.ansi.enabled", before)
