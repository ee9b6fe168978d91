"""What Airflow recorded of a DAG run, read back from its own metadata database and from the OpenLineage provider's
file transport (conftest.py sets both up)."""

from __future__ import annotations

import json
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent


def recorded(dag_id: str, run_id: str) -> dict[str, dict]:
    """task id -> its state and XCom return_value, as Airflow's metadata database holds them."""
    from sqlalchemy import select

    from airflow.models.taskinstance import TaskInstance
    from airflow.models.xcom import XComModel
    from airflow.utils.session import create_session

    with create_session() as session:
        states = dict(session.execute(select(TaskInstance.task_id, TaskInstance.state)
                                      .where(TaskInstance.dag_id == dag_id, TaskInstance.run_id == run_id)).all())
        values = {row.task_id: XComModel.deserialize_value(row) for row in session.scalars(
            select(XComModel).where(XComModel.dag_id == dag_id, XComModel.run_id == run_id, XComModel.key == "return_value"))}
    return {task: {"state": str(state.value if hasattr(state, "value") else state), "xcom": values.get(task)}
            for task, state in states.items()}


def lineage_events(job: str) -> list[dict]:
    """The OpenLineage events the provider wrote for a job (`DAG.task`), in the order written."""
    lineage = Path(os.environ["AIRFLOW_HOME"]) / "openlineage.jsonl"
    if not lineage.exists():
        return []
    events = [json.loads(line) for line in lineage.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [event for event in events if event.get("job", {}).get("name") == job]
