"""A session dc-bridge starts leaves no `spark-warehouse/` in the folder it runs from (issue 37, class 7).

Spark's default warehouse is `spark-warehouse/` in the current folder, created by the session's catalog;
`run` and `init` left one, empty, wherever they ran. An embedded session dc-bridge starts keeps it in a
temporary folder removed at exit (runner/spark_start.py `private_warehouse`), unless the user chose one.
The tests share one session (conftest), so the session's own start is seen through the real command
line in a process of its own; the choice of configuration through the function the session builder takes.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from dc_bridge.runner.spark_start import private_warehouse

ROOT = Path(__file__).resolve().parent.parent
WAREHOUSE = "spark.sql.warehouse.dir"


def test_a_run_leaves_no_warehouse_in_its_folder_nor_in_the_temporary_one(tmp_path):
    work, temporary = tmp_path / "work", tmp_path / "tmp"
    work.mkdir()
    temporary.mkdir()
    data = ROOT / "contracts" / "data" / "orders"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(temporary)}
    done = subprocess.run([sys.executable, "-c", "from dc_bridge.cli import main; main()", "run", str(ROOT / "contracts" / "orders.yaml"),
                           "--engines", "spark", "--data", f"orders={data / 'orders.csv'}", "--data", f"line_items={data / 'line_items.csv'}"],
                          cwd=work, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert sorted(p.name for p in work.iterdir()) == []  # no spark-warehouse/, nothing else
    assert not [p for p in temporary.iterdir() if p.name.startswith("dc-bridge-warehouse-")]  # removed at exit


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
