"""Fidelity of `dc-bridge import soda:...` against Soda itself, on Soda's own documented checks
(tests/soda_import/documented_checks.yml, sources in its NOTICE.md).

For a data set that passes the checks and one that breaks them: the original file in a plain Soda Core `Scan` on
spark-df, as its users run it, and the imported contract through `dc_bridge.run` in every engine (gx, soda,
spark; a custom Soda rule runs in Soda only). Per source check, the verdict's outcome must be Soda's (pass ->
passed, warn -> warning, fail -> failed) and every engine's number Soda's value; `DIFFERENCES` lists the
documented semantic differences (docs/importing-soda.md), and the test fails on any other and on a listed one
that no longer differs. Every table's checks run in one scan and one run per data set.
"""

from __future__ import annotations

import math
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import pytest
import yaml

import dc_bridge
from dc_bridge.importing.assemble import assemble
from dc_bridge.importing.soda import read

CHECKS = Path(__file__).parent / "soda_import" / "documented_checks.yml"
NOW = datetime.now(timezone.utc).replace(microsecond=0, tzinfo=None)
# Soda's outcome -> the verdict's; None: Soda did not evaluate the check (its documented `freshness (start_date)`,
# with a space, does not parse in Soda 3), which a run reports as `error`
SODA_OUTCOMES = {"pass": "passed", "warn": "warning", "fail": "failed", None: "error"}
# (location, what differs) -> why: each documented in docs/importing-soda.md ("Fidelity")
DIFFERENCES = {
    ("checks for dim_customer[4]", "count"): "duplicate_count counts distinct duplicated values; the contract the rows holding them",
    # Soda writes `"number_cars_owned"` into Spark SQL as written, where double quotes make a text literal: Soda
    # checks the text, never the column, and passes; the contract checks the column
    ("checks for dim_customer[16]", "outcome"): "a double-quoted column is a text literal in Soda's Spark SQL",
    ("checks for dim_customer[16]", "count"): "a double-quoted column is a text literal in Soda's Spark SQL",
}


def _customers(spark, passing: bool):
    rows = []
    if passing:
        for i in range(12):
            rows.append((date(1980, 1, 1 + i), f"+1 555 0100 {i:02d}", 1 + i % 6, f"user{i}@example.com", "x" * 100,
                         i % 2, "M" if i % 2 else "S", f"{1 + i % 12:02d}/15/1990", str(i % 2), "Al", "Smith", i))
    else:
        rows += [
            (None, "+1 555 0100 00", 0, "not-an-email", "short", 7, "", "1990-13-45", "2", "A", None, 1),
            (date(1980, 1, 2), "+1 555 0100 00", 7, "b@example.com", "x" * 100, 2, "Married", "01/15/1990", "3", "Bo", "Li", 1),
            (date(1980, 1, 3), "+1 555 0100 03", 3, "c@example.com", "x" * 100, 0, "Single", "02/15/1990", "Y", "Cy", "Ng", 2),
            (date(1980, 1, 4), "+1 555 0100 04", 2, "d@example.com", "x" * 100, 1, "M", "03/15/1990", "1", "Di", "Ox", 3),
            (date(1980, 1, 5), "+1 555 0100 05", 4, "e@example.com", "x" * 100, 0, "S", "04/15/1990", "0", "Ed", "Oz", None),
        ]
    return spark.createDataFrame(rows, "birth_date date, phone string, number_cars_owned int, email_address string, "
                                       "english_education string, total_children int, marital_status string, birthday string, "
                                       "house_owner_flag string, first_name string, last_name string, geography_key int")


def _frames(spark, passing: bool) -> dict:
    product = spark.createDataFrame(
        [(60 if passing else 10, NOW - (timedelta(hours=1) if passing else timedelta(days=3)), 1.0, 2.0, 3.0, "m")] * 3,
        "safety_stock_level int, start_date timestamp, dealer_price double, list_price double, standard_cost double, model_name string")
    groups = spark.createDataFrame([("sales",), ("ops",)] + ([] if passing else [("legal",)]), "department_group_name string")
    employees = spark.createDataFrame([("sales",), ("ops",), ("hr",)], "department_name string")
    names = [("ann", 1068.5, 1.0)] * 10 if passing else [("N/A", 10.0, 1.0)] * 60 + [("No value", 10.0, 1.0)] * 60
    customers = spark.createDataFrame(names, "name string, size double, distance double")
    return {"dim_customer": _customers(spark, passing), "dim_product": product, "dim_department_group": groups,
            "dim_employee": employees, "CUSTOMERS": customers}


def soda_scan(spark, frames: dict) -> dict[tuple[str, int], tuple[str | None, float | None]]:
    """The original file in a plain Soda Core scan on spark-df: (dataset, index of the check in its section) ->
    (Soda's outcome, its value)."""
    import dc_bridge.engines.soda.run  # noqa: F401  (before soda.scan: telemetry off)
    from soda.scan import Scan

    for name, frame in frames.items():
        frame.createOrReplaceTempView(name)
    try:
        scan = Scan()
        scan.set_data_source_name("spark_df")
        scan.add_spark_session(spark, data_source_name="spark_df")
        scan.add_variables({"NOW": datetime.now().isoformat()})
        scan.add_sodacl_yaml_file(str(CHECKS))
        scan.execute()
    finally:
        for name in frames:
            spark.catalog.dropTempView(name)
    document = yaml.safe_load(CHECKS.read_text())
    lines = {header.removeprefix("checks for ").strip(): [next(iter(i)) if isinstance(i, dict) else i for i in items]
             for header, items in document.items()}
    seen: dict[tuple[str, str], int] = {}
    results = {}
    for check in scan._checks:
        table = check.partition.table.table_name
        line = check.check_cfg.source_line
        occurrence = seen[(table, line)] = seen.get((table, line), -1) + 1
        index = [i for i, written in enumerate(lines[table]) if written.strip() == line.strip()][occurrence]
        outcome = check.outcome.value.lower() if check.outcome is not None else None
        value = getattr(check, "check_value", None)
        value = value if isinstance(value, (int, float)) and not isinstance(value, bool) else None
        results[(table, index)] = (outcome, value)
    return results


def _check_ids(carried, document: dict) -> dict[str, str]:
    """Each carried check's location -> the contract check id its rule or property becomes."""
    ids = {}
    models = {m["name"]: m for m in document["schema"]}
    for item in carried:
        if item.outcome == "refused":
            continue
        model = models[item.model]
        if item.rule is None:
            suffix = "required" if item.properties.get("required") else "unique"
            ids[item.check.location] = f"{item.model}.{item.field}.{suffix}"
            continue
        if item.field is not None and item.outcome == "mapped":
            prop = next(p for p in model["properties"] if p["name"] == item.field)
            index = prop["quality"].index(item.rule)
            ids[item.check.location] = f"{item.model}.{item.field}.quality[{index}]"
        else:
            ids[item.check.location] = f"{item.model}.quality[{model['quality'].index(item.rule)}]"
    return ids


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    carried = read(str(CHECKS))
    document = assemble(carried, id="urn:test:soda-documented").document
    path = tmp_path_factory.mktemp("soda_fidelity") / "imported.yaml"
    path.write_text(yaml.safe_dump(document, sort_keys=False, allow_unicode=True))
    return carried, path, _check_ids(carried, document)


def test_every_documented_check_is_one_report_row(imported):
    carried, _, _ = imported
    document = yaml.safe_load(CHECKS.read_text())
    assert len(carried) == sum(len(items) for items in document.values())
    assert [c.outcome for c in carried].count("refused") == 0


@pytest.mark.parametrize("passing", [True, False], ids=["passing", "failing"])
def test_imported_contract_judges_as_soda(spark, imported, passing):
    carried, path, ids = imported
    frames = _frames(spark, passing)
    soda = soda_scan(spark, frames)
    verdict = dc_bridge.run(str(path), dataframes=frames, spark=spark, engines=("gx", "soda", "spark"), samples=False)
    by_id = {c.check_id: c for c in verdict.checks()}
    differences, compared = [], 0
    for item in carried:
        dataset, index = item.model, int(item.check.location.rsplit("[", 1)[1].rstrip("]"))
        outcome, value = soda.get((dataset, index), (None, None))  # a check Soda could not parse has no object
        check = by_id[ids[item.check.location]]
        compared += 1
        if check.outcome != SODA_OUTCOMES[outcome]:
            differences.append((item.check.location, "outcome", f"Soda {outcome}, dc-bridge {check.outcome} ({check.reason})"))
        for engine, result in check.engines.items():
            number = result.observed
            if value is not None and number is not None and not math.isclose(float(value), float(number), rel_tol=1e-9, abs_tol=0.006):
                differences.append((item.check.location, "count", f"{engine}: Soda {value}, dc-bridge {number}"))
    found = {(location, what) for location, what, _ in differences}
    undocumented = [d for d in differences if (d[0], d[1]) not in DIFFERENCES]
    assert undocumented == [], undocumented
    if not passing:  # the documented differences show on the data that breaks the checks
        assert found == set(DIFFERENCES), differences
    assert compared == len(carried)
