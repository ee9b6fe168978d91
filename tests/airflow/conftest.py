"""Real Airflow 3 for the tests of this folder (tests/airflow/run.sh): a SQLite metadata database in a temporary
AIRFLOW_HOME, DAG files written to its dags folder and run by `dag.test()` (Airflow's in-process runner), what Airflow
recorded read back from its own database, and the OpenLineage provider's events written to a file (its `file` transport).

Airflow is in .venv-airflow only, and reads its configuration when first imported: so these tests are collected only
when run.sh sets DC_BRIDGE_AIRFLOW_TESTS (the README's `pytest -q` leaves them out), and the environment below is set
before anything imports airflow. The Spark session is the suite's one `spark` fixture (tests/conftest.py): the tasks run
in this process, where the operator's run takes the active session as `dc-bridge run` would.
"""

from __future__ import annotations

import atexit
import importlib.util
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE.parent))  # the planted orders data of tests/test_cluster.py, test_startup's import probe

collect_ignore_glob = [] if os.environ.get("DC_BRIDGE_AIRFLOW_TESTS") else ["test_*.py"]

if os.environ.get("DC_BRIDGE_AIRFLOW_TESTS"):
    HOME = Path(tempfile.mkdtemp(prefix="dc-bridge-airflow-"))
    LINEAGE = HOME / "openlineage.jsonl"
    os.environ.update({
        "AIRFLOW_HOME": str(HOME),
        "AIRFLOW__CORE__DAGS_FOLDER": str(HOME / "dags"),
        "AIRFLOW__CORE__LOAD_EXAMPLES": "False",
        "AIRFLOW__DATABASE__SQL_ALCHEMY_CONN": f"sqlite:///{HOME / 'airflow.db'}",
        # the provider's events, one JSON document a line, in a file of the test's (OpenLineage's own file transport);
        # emitted in a thread of the task's process rather than a fork of it (a fork would copy the JVM's gateway)
        "AIRFLOW__OPENLINEAGE__TRANSPORT": json.dumps({"type": "file", "log_file_path": str(LINEAGE), "append": True}),
        "AIRFLOW__OPENLINEAGE__NAMESPACE": "dc-bridge-tests",
        "AIRFLOW__OPENLINEAGE__EXECUTE_IN_THREAD": "True",
    })
    (HOME / "dags").mkdir()
    atexit.register(shutil.rmtree, HOME, ignore_errors=True)


@pytest.fixture(scope="session")
def airflow_home():
    """The AIRFLOW_HOME with its metadata database created (Airflow's own `initdb`, SQLite)."""
    from airflow.utils import db

    db.initdb()
    return HOME


@pytest.fixture(scope="session")
def run_dag(airflow_home, spark):
    """Write a DAG file into the dags folder, load it and run it with `dag.test()`; returns the DagRun's run id."""
    def run(name: str, source: str, dag_id: str) -> str:
        path = airflow_home / "dags" / f"{name}.py"
        path.write_text(source, encoding="utf-8")
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        dag = next(value for value in vars(module).values() if getattr(value, "dag_id", None) == dag_id)
        return dag.test().run_id
    return run
