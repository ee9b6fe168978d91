"""A session dc-bridge starts leaves no `spark-warehouse/` in the folder it runs from (issue 37, class 7).

Spark's default warehouse is `spark-warehouse/` in the current folder, created by the session's catalog;
`run` and `init` left one, empty, wherever they ran. An embedded session dc-bridge starts keeps it in a
temporary folder removed at exit (runner/spark_start.py `private_warehouse`), unless the user chose one.
The tests share one session (conftest), so the session's own start is seen through the real command
line in a process of its own (tests/test_egress.py, whose one run's process serves that test and the no-egress
ones); here, the choice of configuration through the function the session builder takes.
"""

from __future__ import annotations

from pathlib import Path

from dc_bridge.runner.spark_start import private_warehouse

WAREHOUSE = "spark.sql.warehouse.dir"


def test_the_warehouse_is_the_users_where_they_chose_one(tmp_path, monkeypatch):
    for name in ("PYSPARK_SUBMIT_ARGS", "SPARK_CONF_DIR", "SPARK_HOME"):
        monkeypatch.delenv(name, raising=False)
    chosen = private_warehouse({})[WAREHOUSE]
    assert Path(chosen).is_dir() and not Path(chosen).is_relative_to(Path.cwd())
    # what the user configured holds: --conf, a Hive catalog whose tables outlive the process, Spark's own files
    assert private_warehouse({WAREHOUSE: "/data/warehouse"}) == {}
    assert private_warehouse({"spark.sql.catalogImplementation": "hive"}) == {}
    conf = tmp_path / "conf"
    conf.mkdir()
    monkeypatch.setenv("SPARK_CONF_DIR", str(conf))
    assert WAREHOUSE in private_warehouse({})
    (conf / "spark-defaults.conf").write_text(f"{WAREHOUSE} /data/warehouse\n", encoding="utf-8")
    assert private_warehouse({}) == {}
    (conf / "spark-defaults.conf").unlink()
    (conf / "hive-site.xml").write_text("<configuration/>", encoding="utf-8")
    assert private_warehouse({}) == {}
    monkeypatch.delenv("SPARK_CONF_DIR")
    monkeypatch.setenv("PYSPARK_SUBMIT_ARGS", f"--conf {WAREHOUSE}=/data/warehouse pyspark-shell")
    assert private_warehouse({}) == {}
