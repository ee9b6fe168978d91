"""A contract's checks as Dagster asset checks (dc_bridge.dagster, docs/orchestrators.md), run in Dagster's own
in-process executor on the suite's Spark session, their results read back from Dagster's instance: no mocks.

One Dagster run per table: `materialize` of the bundled orders example and of a copy with planted violations (its
assets under multi-part keys), and `execute_in_process` of a job that selects the checks of a contract of hostile
check ids. Each contract's dc-bridge runs are counted by the lines of its own history file (one record per run).
The names and the refusals need no Spark.
"""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

dg = pytest.importorskip("dagster")

from bench.dagster import many_checks  # noqa: E402
from dc_bridge.runner.data import DataLocation  # noqa: E402
from dc_bridge.dagster import NAME_LIMIT, SparkResource, asset_checks, check_names, check_specs, dagster_name  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
ORDERS = ROOT / "contracts" / "orders.yaml"


def runs_in(history: Path) -> int:
    """How many dc-bridge runs a history file recorded (runner/history.py appends one line per run)."""
    return len(history.read_text(encoding="utf-8").splitlines()) if history.exists() else 0


def latest(instance, asset: str | list[str], name: str):
    """The latest evaluation of one check as Dagster's instance stored it."""
    key = dg.AssetCheckKey(dg.AssetKey(asset), name)
    record = instance.event_log_storage.get_asset_check_execution_history(key, limit=1)
    assert record, f"Dagster's instance holds no execution of {key}"
    return record[0].evaluation


def evaluations(instance, specs) -> dict[str, object]:
    """check id -> its latest stored evaluation (passed, severity, metadata)."""
    found = {}
    for item in specs:
        record = instance.event_log_storage.get_asset_check_execution_history(item.spec.key, limit=1)
        # a check the run only planned (not selected) has a record of its plan, and no evaluation
        found[item.check.id] = record[0].evaluation if record and isinstance(record[0].evaluation, dg.AssetCheckEvaluation) else None
    return found


def meta(evaluation) -> dict:
    return {key: value.value for key, value in evaluation.metadata.items()}


@pytest.fixture(scope="module")
def failing_copy(tmp_path_factory) -> Path:
    """contracts/ copied, its orders data with two planted violations: a repeated order_id and an empty e-mail address."""
    folder = tmp_path_factory.mktemp("failing") / "contracts"
    shutil.copytree(ROOT / "contracts", folder)
    orders = folder / "data" / "orders" / "orders.csv"
    with orders.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    rows[1]["order_id"] = rows[0]["order_id"]
    rows[2]["customer_email_address"] = ""
    with orders.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return folder / "orders.yaml"


@pytest.fixture(scope="module")
def orders_run(spark, failing_copy, tmp_path_factory):
    """One materialization: the bundled example's assets and checks, the failing copy's under `bad/...`, and one
    asset downstream of each orders asset (a blocking check that fails keeps the downstream one from running)."""
    folder = tmp_path_factory.mktemp("orders-dagster")
    histories = {"good": folder / "good.jsonl", "bad": folder / "bad.jsonl"}

    @dg.asset(name="orders")
    def good_orders():
        return None

    @dg.asset(name="line_items")
    def good_items():
        return None

    @dg.asset(key=["bad", "orders"])
    def bad_orders():
        return None

    @dg.asset(key=["bad", "line_items"])
    def bad_items():
        return None

    @dg.asset(deps=[good_orders])
    def good_report():
        return None

    @dg.asset(deps=[bad_orders])
    def bad_report():
        return None

    bad_assets = {"orders": "bad/orders", "line_items": ["bad", "line_items"]}
    good = asset_checks(str(ORDERS), history=histories["good"])
    bad = asset_checks(str(failing_copy), bad_assets, name="bad_orders_checks", history=histories["bad"])
    instance = dg.DagsterInstance.ephemeral()
    result = dg.materialize([good_orders, good_items, bad_orders, bad_items, good_report, bad_report, good, bad],
                            instance=instance, resources={"spark": spark}, raise_on_error=False)
    return {"result": result, "instance": instance, "histories": histories,
            "good": check_specs(str(ORDERS)), "bad": check_specs(str(failing_copy), bad_assets)}


def test_every_contract_check_is_an_asset_check_from_one_run_each(orders_run):
    specs = orders_run["good"]
    assert len(specs) == 44  # the bundled example's 44 checks, the contract's own five among them
    stored = evaluations(orders_run["instance"], specs)
    assert None not in stored.values(), [check for check, found in stored.items() if found is None]
    assert {name: runs_in(path) for name, path in orders_run["histories"].items()} == {"good": 1, "bad": 1}
    # the contract's own checks (service levels of no model) are on its first model's asset
    assert {item.spec.asset_key.to_user_string() for item in specs if item.check.model == "(contract)"} == {"orders"}


def test_the_passing_example_reports_each_check_as_its_verdict_says(orders_run):
    stored = evaluations(orders_run["instance"], orders_run["good"])
    outcomes = {check: meta(found)["outcome"] for check, found in stored.items()}
    passed = {check for check, found in stored.items() if found.passed}
    # passed in Dagster exactly where the verdict said passed; a check that could not run is never a pass
    assert passed == {check for check, outcome in outcomes.items() if outcome == "passed"}
    not_run = {check for check, outcome in outcomes.items() if outcome == "not_executable"}
    # availability is judged over earlier runs in the history, and this history has none
    assert not_run == {"orders.customer_email_address.quality[0]", "(contract).retention", "(contract).frequency",
                       "(contract).support", "(contract).backup", "(contract).availability"}
    assert all(stored[check].severity == dg.AssetCheckSeverity.WARN and meta(stored[check])["reason"] for check in not_run)
    required = meta(stored["orders.order_id.required"])
    assert required["engines"] == {"gx": "passed", "soda": "passed"} and required["observed"] == 0
    assert required["samples"] == 0 and required["text"].startswith("passed")


def test_the_failing_copy_fails_its_planted_checks_and_blocks_downstream(orders_run):
    stored = evaluations(orders_run["instance"], orders_run["bad"])
    failed = {check for check, found in stored.items() if not found.passed and meta(found)["outcome"] == "failed"}
    assert {"orders.order_id.unique", "orders.customer_email_address.required"} <= failed
    unique, required = meta(stored["orders.order_id.unique"]), meta(stored["orders.customer_email_address.required"])
    assert stored["orders.order_id.unique"].severity == dg.AssetCheckSeverity.ERROR
    assert required["observed"] == 1 and required["unexpected_count"] == 1 and required["threshold"]
    assert unique["unexpected_count"] == 2  # the two rows of one repeated order id
    assert set(unique["engines"]) == {"gx", "soda"} and "failed" in unique["text"]
    # the checks of orders are blocking: the asset downstream of the failing copy never ran, the good one did
    materialized = {event.asset_key.to_user_string()
                    for event in orders_run["result"].get_asset_materialization_events()}
    assert "good_report" in materialized and "bad_report" not in materialized
    assert {item.spec.asset_key.path[0] for item in orders_run["bad"]} == {"bad"}


HOSTILE = textwrap.dedent("""\
    apiVersion: v3.0.2
    kind: DataContract
    id: urn:test:dagster-hostile
    version: 1.0.0
    status: active
    schema:
      - name: orders
        properties:
          - {name: order_id, logicalType: integer, physicalType: bigint, required: true}
          - {name: amount, logicalType: number, physicalType: double}
        quality:
          - {id: rows.at least one, metric: rowCount, mustBeGreaterOrEqualTo: 1}
          - {id: rows-at-least-one, metric: rowCount, mustBeGreaterOrEqualTo: 1}
          - {id: rows_at_least_one, metric: rowCount, mustBeLessThan: 2}
          - {id: montant_élevé, type: sql, query: SELECT MAX(amount) FROM orders, mustBeLessThan: 100, severity: warning}
          - {id: 注文の数, metric: rowCount, mustBeGreaterThan: 0}
          - {id: LONG_1, metric: rowCount, mustBeGreaterThan: 0}
          - {id: LONG_2, metric: rowCount, mustBeGreaterThan: 100}
      - name: customers
        properties:
          - {name: customer_id, logicalType: string, required: true}
    """).replace("LONG_", "a_very_long_check_id_that_goes_on_past_the_first_sixty_four_characters_dagster_indexes_")
# a second contract on the same asset: its own checks beside the first's
SECOND = textwrap.dedent("""\
    apiVersion: v3.0.2
    kind: DataContract
    id: urn:test:dagster-second
    version: 1.0.0
    status: active
    schema:
      - name: orders
        properties:
          - {name: order_id, logicalType: integer, physicalType: bigint}
        quality:
          - {id: second_rows, metric: rowCount, mustBeGreaterThan: 0}
    """)


@pytest.fixture(scope="module")
def hostile_run(spark, tmp_path_factory):
    """A job of the hostile contract's and a second contract's checks, both on the asset `shop/orders`, executed in
    process; `customers` is left out of Dagster explicitly (the run reads it all the same). The orders rows: two, one
    amount over the warning's limit."""
    folder = tmp_path_factory.mktemp("hostile-dagster")
    (folder / "hostile.yaml").write_text(HOSTILE, encoding="utf-8")
    (folder / "second.yaml").write_text(SECOND, encoding="utf-8")
    spark.createDataFrame([(1, 20.0), (2, 250.0)], "order_id bigint, amount double").write.parquet(str(folder / "orders"))
    # customers is on no asset, yet the one run checks the whole contract: its data is read all the same
    spark.createDataFrame([("c1",)], "customer_id string").write.parquet(str(folder / "customers"))
    data = {"orders": DataLocation(str(folder / "orders"), "parquet"),
            "customers": DataLocation(str(folder / "customers"), "parquet")}
    assets = {"orders": "shop/orders", "customers": None}
    first = asset_checks(str(folder / "hostile.yaml"), assets, engines=["spark"], data=data, history=folder / "h1.jsonl")
    second = asset_checks(str(folder / "second.yaml"), {"orders": "shop/orders"}, prefix="second", engines=["spark"],
                          data={"orders": data["orders"]}, history=folder / "h2.jsonl")
    specs = check_specs(str(folder / "hostile.yaml"), assets)
    # the job selects every check of the first contract but two, and the second's
    left_out = {"orders.amount.exists", "orders.amount.type"}
    selected = [item.spec.key for item in specs if item.check.id not in left_out]
    job = dg.define_asset_job("contract_checks", selection=dg.AssetSelection.checks(*selected, second))
    defs = dg.Definitions(assets=[dg.AssetSpec(["shop", "orders"])], asset_checks=[first, second], jobs=[job],
                          resources={"spark": SparkResource()})
    instance = dg.DagsterInstance.ephemeral()
    result = defs.resolve_job_def("contract_checks").execute_in_process(instance=instance, raise_on_error=False)
    return {"result": result, "instance": instance, "specs": specs, "left_out": left_out,
            "runs": (runs_in(folder / "h1.jsonl"), runs_in(folder / "h2.jsonl"))}


def test_hostile_check_ids_become_distinct_dagster_names_and_run(hostile_run):
    specs = {item.check.id: item.spec for item in hostile_run["specs"]}
    names = [spec.name for spec in specs.values()]
    assert len(set(name.lower() for name in names)) == len(names) == 12
    assert all(dg._core.definitions.utils.is_valid_name(name) and len(name) <= NAME_LIMIT for name in names)
    assert specs["rows_at_least_one"].name == "rows_at_least_one"  # the id that is a name keeps it
    assert specs["rows.at least one"].name.startswith("rows_at_least_one_")
    assert specs["montant_élevé"].name == "montant_eleve" and not specs["montant_élevé"].blocking
    assert [spec.asset_key.path for spec in specs.values()] == [["shop", "orders"]] * 12
    assert not any(item.check.model == "customers" for item in hostile_run["specs"])  # mapped to None: left out
    assert hostile_run["runs"] == (1, 1)  # one dc-bridge run per contract, whatever the job selected


def test_hostile_results_read_back_from_the_instance(hostile_run):
    instance, stored = hostile_run["instance"], evaluations(hostile_run["instance"], hostile_run["specs"])
    assert {check for check, found in stored.items() if found is None} == hostile_run["left_out"]  # not selected: not run
    outcome = {check: (found.passed, found.severity, meta(found)["outcome"]) for check, found in stored.items() if found}
    ERROR, WARN = dg.AssetCheckSeverity.ERROR, dg.AssetCheckSeverity.WARN
    assert outcome["rows_at_least_one"] == (False, ERROR, "failed")  # two rows, fewer than 2 expected
    assert outcome["rows.at least one"] == outcome["rows-at-least-one"] == (True, ERROR, "passed")
    assert outcome["montant_élevé"] == (False, WARN, "warning")  # 250 over 100, a warning check
    assert meta(stored["montant_élevé"])["observed"] == 250
    assert outcome["注文の数"] == (True, ERROR, "passed")
    long_ids = sorted(check for check in outcome if check.startswith("a_very_long"))
    assert [outcome[check][0] for check in long_ids] == [True, False]
    second = latest(instance, ["shop", "orders"], "second_second_rows")
    assert second.passed and meta(second)["check_id"] == "second_rows"


@pytest.mark.parametrize("ids, expected", [
    (["a.b", "a_b"], {"a_b": "a_b"}),  # the id spelled as its name keeps it, the other gets a digest
    (["a.b", "a-b"], {}),  # neither is a name: both get one
    (["A_B", "a_b"], {"A_B": "A_B"}),  # alike without case, as a case-insensitive database compares them: the first keeps it
    (["é"], {"é": "e"}),
    (["x" * 80], {}),
])
def test_names_stay_distinct(ids, expected):
    names = check_names(ids)
    assert len({name.lower() for name in names.values()}) == len(ids)
    assert all(len(name) <= NAME_LIMIT and dg._core.definitions.utils.is_valid_name(name) for name in names.values())
    assert {check: name for check, name in names.items() if check in expected} == expected
    assert all(names[check] != dagster_name(check) or check in expected or len(ids) == 1 for check in ids)


def test_a_name_that_clashes_after_digests_is_refused():
    digested = check_names(["a.b", "a-b"])["a.b"]
    with pytest.raises(ValueError, match="both become the Dagster check name"):
        check_names(["a.b", "a-b", digested])


@pytest.mark.parametrize("assets, message", [
    ({"orders": "orders"}, "gives no asset for model\\(s\\) line_items"),
    ({"orders": "orders", "line_items": "li", "oders": "x"}, "`oders` \\(did you mean `orders`\\?\\)"),
    ({"orders": "orders", "line_items": "line items/é"}, "not one Dagster can name"),
])
def test_a_mapping_that_leaves_a_model_out_or_names_none_is_refused(assets, message):
    with pytest.raises(ValueError, match=message):
        check_specs(str(ORDERS), assets)


def test_two_contracts_with_a_check_id_in_common_on_one_asset_are_refused_unless_prefixed(tmp_path):
    (tmp_path / "first.yaml").write_text(HOSTILE, encoding="utf-8")
    (tmp_path / "second.yaml").write_text(SECOND, encoding="utf-8")
    first = asset_checks(str(tmp_path / "first.yaml"), {"orders": "shop/orders", "customers": None})
    clashing = asset_checks(str(tmp_path / "second.yaml"), {"orders": "shop/orders"})
    with pytest.raises(dg.DagsterInvalidDefinitionError, match="Duplicate asset check key.*orders_order_id_(exists|type)"):
        dg.Definitions(asset_checks=[first, clashing], resources={"spark": SparkResource()}).get_repository_def()
    prefixed = asset_checks(str(tmp_path / "second.yaml"), {"orders": "shop/orders"}, prefix="second")
    dg.Definitions(asset_checks=[first, prefixed], resources={"spark": SparkResource()}).get_repository_def()  # each contract's checks beside the other's
    assert sorted(key.name for key in prefixed.check_keys) == [
        "second_orders_order_id_exists", "second_orders_order_id_type", "second_second_rows"]


def test_checks_of_no_asset_are_refused():
    with pytest.raises(ValueError, match="no check of the contract is on an asset"):
        asset_checks(str(ORDERS), {"orders": None, "line_items": None})


@pytest.mark.parametrize("options, message", [
    ({"engine": ["spark"]}, "unknown run option `engine` \\(did you mean `engines`\\?\\)"),
    ({"spark": object()}, "comes from the Dagster resource"),
    ({"master": "local[1]"}, "SparkResource\\(master=...\\)"),
])
def test_run_options_are_checked_when_the_checks_are_defined(options, message):
    with pytest.raises(TypeError, match=message):
        asset_checks(str(ORDERS), **options)


def test_run_option_values_are_checked_as_dc_bridge_run_checks_them():
    with pytest.raises(ValueError, match="unknown engine"):
        asset_checks(str(ORDERS), engines=["gx", "great"])


def test_two_hundred_checks_are_two_hundred_asset_checks_from_one_run(spark, tmp_path):
    # the bench's contract: 198 row-count rules and the column's exists and type, 200 checks
    contract, data = many_checks(tmp_path, spark, rows=200)
    history = tmp_path / "history.jsonl"
    checks = asset_checks(str(contract), engines=["spark"], data=data, history=history)
    instance = dg.DagsterInstance.ephemeral()
    result = dg.materialize([dg.AssetSpec("events"), checks], instance=instance, resources={"spark": spark},
                            selection=dg.AssetSelection.checks(checks))
    found = result.get_asset_check_evaluations()
    assert len(found) == len(check_specs(str(contract))) == 200
    assert runs_in(history) == 1
    # rowCount > 0 ... 197 over 200 rows: every one passes
    assert all(evaluation.passed for evaluation in found)
    assert json.loads(history.read_text(encoding="utf-8"))["outcome"] == "passed"


def test_without_the_extra_the_import_says_how_to_install_it():
    program = "import sys; sys.modules['dagster'] = None\nimport dc_bridge.dagster"
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert "MissingExtra: the Python package `dagster` is not installed: install dc-bridge's `dagster` extra" in done.stderr
