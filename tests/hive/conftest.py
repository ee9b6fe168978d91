"""A Spark session with Hive support on an embedded Derby metastore in a temporary folder, for the tests of
`--catalog spark` (test_hive_catalog.py). They run in a process of their own (tests/test_catalog_spark.py
starts it), so the suite's shared session keeps its in-memory catalog: a process holds one SparkContext.
"""

from __future__ import annotations

import os
import sys

import pytest

RUN = os.environ.get("DC_BRIDGE_HIVE_TESTS") == "1"


def pytest_collection_modifyitems(config, items):
    if not RUN:
        skip = pytest.mark.skip(reason="run by tests/test_catalog_spark.py in a process of its own (DC_BRIDGE_HIVE_TESTS=1)")
        for item in items:
            if "tests/hive/" in str(item.fspath).replace(os.sep, "/"):
                item.add_marker(skip)


@pytest.fixture(scope="session")
def spark(tmp_path_factory):
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    folder = tmp_path_factory.mktemp("hive")
    session = (SparkSession.builder.appName("dc-bridge-hive-tests").master("local[2]")
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.shuffle.partitions", "2")
               .config("spark.sql.session.timeZone", "UTC")
               .config("spark.sql.catalogImplementation", "hive")
               .config("spark.sql.warehouse.dir", str(folder / "warehouse"))
               .config("spark.hadoop.javax.jdo.option.ConnectionURL", f"jdbc:derby:;databaseName={folder / 'metastore_db'};create=true")
               .config("spark.driver.extraJavaOptions", f"-Dderby.system.home={folder} -Dlog4j2.level=ERROR")
               .enableHiveSupport()
               .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
