"""DcBridgeOperator in real Airflow 3 (tests/airflow/run.sh): DAG files run by `dag.test()`, the task states and the XCom
verdicts read back from Airflow's metadata database, the OpenLineage events read from the provider's file transport.

The bundled orders example passes; a copy of its data with violations planted (tests/test_cluster.py `_planted`, each
violation's count known from how it was planted) fails, its task failed with the verdict in XCom all the same. The DAG
of docs/orchestrators.md is taken from the doc as it is written and run. Wrong arguments are an import error of the
DAG file (Airflow's own DagBag parse), each named.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap

import pytest

from dag_runs import ROOT, lineage_events, recorded

from test_cluster import PLANTED, _planted

ORDERS = ROOT / "contracts" / "orders.yaml"
DOC = ROOT / "docs" / "orchestrators.md"


@pytest.fixture(scope="module")
def orders_run(run_dag, tmp_path_factory):
    """One DAG run: the bundled orders example, the same contract on the planted copy, and a contract file that is not there."""
    orders, items = _planted(tmp_path_factory.mktemp("planted"))
    source = textwrap.dedent(f"""
        from datetime import datetime

        from airflow.sdk import DAG

        from dc_bridge.airflow import DcBridgeOperator

        with DAG("dc_bridge_orders", schedule=None, start_date=datetime(2026, 1, 1)) as dag:
            DcBridgeOperator(task_id="bundled", contracts={str(ORDERS)!r}, engines="spark")
            DcBridgeOperator(task_id="planted", contracts=[{str(ORDERS)!r}], engines=["spark"],
                             data={{"orders": {str(orders)!r}, "line_items": {str(items)!r}}})
            DcBridgeOperator(task_id="unreadable", contracts={str(ORDERS.parent / "no-such-contract.yaml")!r}, engines="spark")
    """)
    run_id = run_dag("dc_bridge_orders", source, "dc_bridge_orders")
    return {"tasks": recorded("dc_bridge_orders", run_id), "orders": str(orders), "items": str(items)}


def _checks(verdict: dict) -> dict[str, dict]:
    return {check["check_id"]: check for model in verdict["models"] for check in model["checks"]}


def test_the_bundled_example_passes_and_its_verdict_is_in_xcom(orders_run):
    bundled = orders_run["tasks"]["bundled"]
    assert bundled["state"] == "success"
    verdict = bundled["xcom"]
    assert verdict["contract_file"] == str(ORDERS) and verdict["engines"] == ["spark"]
    assert verdict["outcome"] in ("passed", "warning") and verdict["counts"]["failed"] == verdict["counts"]["error"] == 0
    assert {model["name"] for model in verdict["models"]} >= {"orders", "line_items"}


def test_the_planted_copy_fails_the_task_with_its_verdict_in_xcom(orders_run):
    planted = orders_run["tasks"]["planted"]
    assert planted["state"] == "failed"
    verdict = planted["xcom"]  # pushed before the task failed
    assert verdict["outcome"] == "failed" and verdict["data_sources"]["orders"] == orders_run["orders"]
    checks = _checks(verdict)
    assert {check_id: checks[check_id]["observed"] for check_id in PLANTED} == PLANTED
    assert all(checks[check_id]["outcome"] in ("failed", "warning") for check_id in PLANTED)


def test_a_contract_that_cannot_be_checked_fails_the_task_with_its_error_verdict(orders_run):
    unreadable = orders_run["tasks"]["unreadable"]
    assert unreadable["state"] == "failed"
    assert unreadable["xcom"]["outcome"] == "error" and unreadable["xcom"]["models"] == []
    assert "no-such-contract.yaml" in unreadable["xcom"]["error"]
    events = lineage_events("dc_bridge_orders.unreadable")
    assert [e["eventType"] for e in events][-1] == "FAIL" and events[-1]["inputs"] == []


def test_the_openlineage_provider_gets_the_datasets_and_their_assertions(orders_run):
    """The provider's own events (COMPLETE for the passing task, FAIL for the failing one) carry each checked model as an
    input dataset whose assertions are the XCom verdict's checks, one each, success where the check passed."""
    for task, event_type in (("bundled", "COMPLETE"), ("planted", "FAIL")):
        verdict = orders_run["tasks"][task]["xcom"]
        events = [e for e in lineage_events(f"dc_bridge_orders.{task}") if e["eventType"] == event_type]
        assert len(events) == 1, [e["eventType"] for e in lineage_events(f"dc_bridge_orders.{task}")]
        inputs = {dataset["name"]: dataset for dataset in events[0]["inputs"]}
        assert set(inputs) == {_source(verdict, model) for model in ("orders", "line_items")}
        for model in verdict["models"]:
            if model["name"] not in verdict["data_sources"]:
                continue
            assertions = inputs[_source(verdict, model["name"])]["inputFacets"]["dataQualityAssertions"]["assertions"]
            mine = {a["name"]: a["success"] for a in assertions if not a["assertion"].startswith(("monitor/", "lifecycle"))}
            expected = {c["check_id"]: c["outcome"] == "passed" for c in model["checks"]}
            assert expected.items() <= mine.items()


def _source(verdict: dict, model: str) -> str:
    """OpenLineage's name of a local file: its absolute path (the naming conventions' `file` namespace)."""
    return os.path.abspath(verdict["data_sources"][model])


def _doc_dag() -> tuple[str, str]:
    """The DAG file docs/orchestrators.md shows (the python block after its `dags/NAME.py`: line), and its name."""
    text = DOC.read_text(encoding="utf-8")
    found = re.search(r"`dags/(\w+)\.py`:\n\n```python\n(.*?)\n```\n", text, re.S)
    assert found, "docs/orchestrators.md shows no `dags/NAME.py`: block"
    return found.group(1), found.group(2) + "\n"


def test_the_docs_dag_runs_as_the_doc_says(run_dag, monkeypatch):
    name, source = _doc_dag()
    dag_id = re.search(r'DAG\("(\w+)"', source).group(1)
    monkeypatch.chdir(ROOT)  # the doc: relative paths are read from a dc-bridge checkout
    tasks = recorded(dag_id, run_dag(name, source, dag_id))
    assert tasks["check_orders"]["state"] == "success" and tasks["check_orders"]["xcom"]["outcome"] == "passed"
    verdict = tasks["check_orders"]["xcom"]
    assert tasks["announce"] == {"state": "success", "xcom": f"{verdict['contract_id']} {verdict['contract_version']}: passed"}


BAD = [
    ('fail_on="warnings"', "fail_on='warnings': choose one of failed, warning"),
    ('engines="gx,sparc"', "unknown engine(s) sparc; choose from gx, soda, spark"),
    ('engines=[]', "unknown engine(s) (none)"),
    ('timeout=0', "timeout=0: give a positive number of seconds"),
    ('data={"orders": "contracts/data/orders/orders"}', "data['orders']: cannot tell the format of contracts/data/orders/orders"),
    ('contracts=["a.yaml", "b.yaml"], data={"orders": "o.csv"}', "data= belongs to one contract, and 2 were given"),
    ('contracts=[]', "contracts=[]: give a contract file, or a list of them"),
    ('where="order_total > 0; DROP TABLE x"', "--where 'order_total > 0; DROP TABLE x' is refused"),
    ('conf={"spark.sql.shuffle.partitions": 2}', "conf={'spark.sql.shuffle.partitions': 2}: give a mapping of names to text values"),
]


@pytest.mark.parametrize(("argument", "message"), BAD, ids=[argument for argument, _ in BAD])
def test_a_wrong_argument_is_an_import_error_of_the_dag(airflow_home, tmp_path, argument, message):
    """Parsed by Airflow's own DagBag, as the DAG processor parses a file: the import error names the task and the argument."""
    from airflow.dag_processing.dagbag import DagBag

    keywords = argument if argument.startswith("contracts=") else f'contracts="contracts/orders.yaml", {argument}'
    dag_file = tmp_path / "bad_dag.py"
    dag_file.write_text(textwrap.dedent(f"""
        from airflow.sdk import DAG

        from dc_bridge.airflow import DcBridgeOperator

        with DAG("bad", schedule=None) as dag:
            DcBridgeOperator(task_id="check", {keywords})
    """), encoding="utf-8")
    bag = DagBag(dag_folder=str(dag_file))
    assert "bad" not in bag.dags
    (error,) = bag.import_errors.values()
    assert "ValueError: DcBridgeOperator(task_id='check'): " in error and message in error, error


def test_dc_bridge_and_its_command_line_import_no_airflow():
    """Airflow is installed here: `import dc_bridge` and `dc-bridge --help` still leave it alone (only dc_bridge.airflow imports it)."""
    from test_startup import imported

    code, modules = imported("--help")
    assert code in (0, None) and "dc_bridge.cli" in modules
    assert not {m for m in modules if m.split(".")[0] == "airflow"}
    shown = subprocess.run([sys.executable, "-c", "import sys, dc_bridge; dc_bridge.run; "
                            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'airflow'))"],
                           capture_output=True, text=True, check=True).stdout
    assert shown.strip() == "[]"
    probe = subprocess.run([sys.executable, "-c", "import sys, dc_bridge.airflow; print('airflow' in sys.modules)"],
                           capture_output=True, text=True, check=True).stdout
    assert probe.strip() == "True"  # the probe can fail: dc_bridge.airflow does import it
