"""dbt's own verdict against the imported contract's, on the same rows.

tests/dbt/jaffle is a dbt project of jaffle-shop-classic's seeds and the tests of its schema.yml files, plus one
test per config the import carries (where, severity, warn_if/error_if, limit, fail_calc, quote). For the rows as
jaffle-shop ships them (every test passes) and for the same rows with violations planted (every test fails or
warns), dbt runs as its users run it (`dbt build --store-failures` on dbt-duckdb, one build per data set), and
the contract that `dc-bridge import` makes of the same property file runs through `dc_bridge.run` in GX, Soda
and the native engine (one run per data set). For every dbt test:

    dbt's status (pass / warn / fail)  == each engine's outcome (passed / warning / failed)
    dbt's count                        == each engine's observed count

where dbt's count is its `failures` for a rule the import wrote as dbt's own query (a `type: sql` rule), and the
rows dbt stored as failing (the sum of `n_records` for unique and accepted_values, which return one row per
value) for a field property or library metric, which count rows. For uniqueness, dbt's `failures` (duplicated
values) is also the run's `duplicated_values`. The manifest dbt writes for the project imports to the same
contract forms as the property file.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

pytest.importorskip("dbt.cli.main", reason="dbt-core is in the `test` extra")
pytest.importorskip("dbt.adapters.duckdb", reason="dbt-duckdb is in the `test` extra")
duckdb = pytest.importorskip("duckdb")

from dc_bridge.importing.assemble import assemble  # noqa: E402
from dc_bridge.importing.dbt import read  # noqa: E402

PROJECT = Path(__file__).parent / "dbt" / "jaffle"
PROPERTIES = PROJECT / "seeds" / "properties.yml"
ENGINES = ("gx", "soda", "spark")
SCHEMAS = {
    "stg_customers": "customer_id INT, first_name STRING, last_name STRING",
    "stg_orders": "order_id INT, customer_id INT, order_date STRING, status STRING",
    "stg_payments": "payment_id INT, order_id INT, payment_method STRING, amount INT",
}
# planted violations: (seed, row index, column, value); "" is NULL to both dbt's seed loader and Spark's CSV reader
PLANTED = [
    ("stg_customers", 1, "customer_id", "1"),          # a duplicated key (2 rows, 1 value)
    ("stg_customers", 5, "customer_id", ""),           # a null key; orders of customers 2 and 6 become orphans
    ("stg_customers", 7, "first_name", ""),            # warns
    ("stg_orders", 1, "order_id", "1"),                # 3 rows share order_id 1
    ("stg_orders", 2, "order_id", "1"),
    ("stg_orders", 3, "order_id", ""),
    ("stg_orders", 10, "status", "lost"),              # 3 rows, 2 values outside the list; 'lost' is allowed by one test
    ("stg_orders", 11, "status", "lost"),
    ("stg_orders", 12, "status", "unknown"),
    ("stg_orders", 13, "status", "stolen"),
    ("stg_orders", 20, "customer_id", ""),
    ("stg_orders", 21, "customer_id", "999"),          # orphans, one of them placed
    ("stg_orders", 21, "status", "placed"),
    ("stg_orders", 22, "customer_id", "998"),
    ("stg_payments", 1, "payment_id", "1"),
    ("stg_payments", 2, "payment_id", ""),
    ("stg_payments", 5, "payment_method", "cash"),
    ("stg_payments", 6, "payment_method", "cash"),
    ("stg_payments", 7, "payment_method", "bitcoin"),
    ("stg_payments", 8, "payment_method", "iou"),
    ("stg_payments", 9, "payment_method", "coupon"),
    ("stg_payments", 9, "amount", ""),
    ("stg_payments", 10, "amount", ""),
]
STATUS = {"pass": "passed", "warn": "warning", "fail": "failed", "error": "error"}
PROPERTY_CHECKS = {"required": "required", "unique": "unique", "relationships": "foreign_key", "physicalType": "type",
                   "minimum": "range", "maximum": "range", "exclusiveMinimum": "range", "exclusiveMaximum": "range",
                   "pattern": "pattern", "minLength": "length", "maxLength": "length"}


def _property_check(properties: dict) -> str:
    """The constraint a field property checks, as its check id ends (docs/mapping.md, "Check ids")."""
    if not properties:
        return "exists"
    ((key, value),) = properties.items()
    return PROPERTY_CHECKS[next(iter(value)) if key == "logicalTypeOptions" else key]


def _planted(project: Path) -> None:
    for seed in SCHEMAS:
        path = project / "seeds" / f"{seed}.csv"
        with path.open(newline="") as file:
            rows = list(csv.DictReader(file))
        for table, index, column, value in PLANTED:
            if table == seed:
                rows[index][column] = value
        with path.open("w", newline="") as file:
            writer = csv.DictWriter(file, fieldnames=list(rows[0]), lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows)


def _dbt_build(project: Path, work: Path) -> dict[str, dict]:
    """Each test's status, failures and failing rows (as dbt stored them), by unique_id."""
    env = {**os.environ, "DC_BRIDGE_DBT_DATABASE": str(work / "db.duckdb"), "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
           "DO_NOT_TRACK": "1"}
    dbt = Path(sys.executable).parent / "dbt"
    done = subprocess.run([str(dbt), "build", "--store-failures", "--profiles-dir", str(project), "--project-dir",
                           str(project), "--target-path", str(work / "target"), "--log-path", str(work / "logs")],
                          env=env, capture_output=True, text=True, timeout=300)
    results = json.loads((work / "target" / "run_results.json").read_text())["results"]
    assert [r["unique_id"] for r in results if r["status"] == "error"] == [], done.stdout[-3000:]
    tests = {}
    with duckdb.connect(str(work / "db.duckdb"), read_only=True) as db:
        for result in results:
            if not result["unique_id"].startswith("test."):
                continue
            stored = db.execute(f"SELECT * FROM {result['relation_name']}")
            columns = [d[0] for d in stored.description]
            rows = stored.fetchall()
            failing = sum(row[columns.index("n_records")] for row in rows) if "n_records" in columns else len(rows)
            tests[result["unique_id"]] = {"status": result["status"], "failures": result["failures"], "rows": failing}
    return tests


def _check_id(document: dict, item) -> str:
    """The check id dc-bridge gives what `item` became in the assembled contract."""
    if item.rule is None:
        return f"{item.model}.{item.field}.{_property_check(item.properties)}"
    schema = next(s for s in document["schema"] if s["name"] == item.model)
    if item.field is None:
        return f"{item.model}.quality[{schema['quality'].index(item.rule)}]"
    prop = next(p for p in schema["properties"] if p["name"] == item.field)
    return f"{item.model}.{item.field}.quality[{prop['quality'].index(item.rule)}]"


def _shape(item) -> str:
    return json.dumps([item.outcome, item.model, item.field, item.properties, item.rule], sort_keys=True)


def _both(base: Path, source: Path, variants: dict, schemas: dict, spark) -> tuple:
    """The import of `source`'s property file, and per variant (name -> a writer of the seeds' rows, or None to
    keep them): dbt's results, the verdict of the imported contract on the same CSV files, the manifest's import."""
    import dc_bridge

    carried = read(str(source / "seeds" / "properties.yml"))
    assert [c for c in carried if c.outcome != "mapped"] == []
    assembled = assemble(carried, id=f"{source.name}-dbt-import")
    contract = base / "contract.odcs.yaml"
    contract.write_text(yaml.safe_dump(assembled.document, sort_keys=False, allow_unicode=True), encoding="utf-8")
    found = {}
    for variant, write in variants.items():
        project = base / variant / "project"
        shutil.copytree(source, project)
        if write is not None:
            write(project)
        if source == PACKAGE_PROJECT:
            shutil.copytree(PACKAGES, project / "dbt_packages")
        tests = _dbt_build(project, base / variant)
        frames = {seed: spark.read.csv(str(project / "seeds" / f"{seed}.csv"), header=True, schema=schema)
                  for seed, schema in schemas.items()}
        verdict = dc_bridge.run(str(contract), dataframes=frames, spark=spark, engines=ENGINES)
        manifest = read(str(base / variant / "target" / "manifest.json"))
        found[variant] = (tests, verdict, manifest)
    return carried, assembled.document, found


def _compare(carried, document, found, variant: str, count: int, unchanged: frozenset = frozenset()) -> None:
    """dbt and each engine agree on every test (`unchanged`: tests of the table's shape, which the planted rows
    leave passing)."""
    tests, verdict, manifest = found[variant]
    # the manifest dbt wrote for the project carries every test as the property file does
    assert sorted(map(_shape, manifest)) == sorted(map(_shape, carried))
    assert len(manifest) == len(tests) == count
    checks = {c.check_id: c for c in verdict.checks()}
    differences = []
    for item in manifest:
        unique_id = item.check.location.removeprefix("nodes.")
        dbt = tests[unique_id]
        if variant == "planted" and item.check.text not in unchanged:
            assert dbt["status"] in ("fail", "warn"), f"{unique_id}: the planted rows do not fail it"
        check = checks[_check_id(document, item)]
        sql_rule = item.rule is not None and item.rule.get("type") == "sql"
        judged = item.rule is not None and item.rule.get("metric") == "rowCount"
        expected_count = dbt["failures"] if sql_rule else dbt["rows"]
        assert check.outcome == STATUS[dbt["status"]], (unique_id, check.outcome, check.reason)
        for engine in ENGINES:
            result = check.engines.get(engine)
            if result is None:
                # a logical type's compatible set runs in GX only (docs/mapping.md)
                assert check.kind == "column_type" and engine == "soda", (unique_id, engine)
                continue
            # an engine judges the threshold; the rule's severity makes a failed check a warning in the verdict
            allowed = {STATUS[dbt["status"]], "failed"} if dbt["status"] == "warn" else {STATUS[dbt["status"]]}
            assert result.outcome in allowed, (unique_id, engine, result.outcome, result.error)
            if result.observed is None or judged or check.kind in ("column_exists", "column_type"):
                # GX runs a SQL rule as rows returned on violation: a passing one has no number; a row count is
                # the table's size, and a column's existence or type no count, where dbt counts 0 or 1 failure
                assert result.observed is None or judged or check.kind in ("column_exists", "column_type"), (unique_id, engine)
                continue
            if result.observed != expected_count:
                differences.append((unique_id, engine, result.observed, expected_count))
        if item.properties.get("unique") and dbt["status"] != "pass":
            assert check.duplicated_values == dbt["failures"], (unique_id, check.duplicated_values)
    assert differences == []


@pytest.fixture(scope="module")
def jaffle(tmp_path_factory, spark):
    return _both(tmp_path_factory.mktemp("dbt_jaffle"), PROJECT, {"shipped": None, "planted": _planted}, SCHEMAS, spark)


@pytest.mark.parametrize("variant", ["shipped", "planted"])
def test_dbt_and_the_imported_contract_agree(jaffle, variant):
    _compare(*jaffle, variant, count=17)


# ---------------------------------------------------------------------------------------------
# dbt-utils and dbt-expectations: dbt packages, which `dbt deps` fetches from dbt's hub; the test runs where
# DC_BRIDGE_DBT_PACKAGES names a folder holding dbt_utils, dbt_expectations and dbt_date as dbt installs them

PACKAGES = os.environ.get("DC_BRIDGE_DBT_PACKAGES")
PACKAGE_PROJECT = Path(__file__).parent / "dbt" / "packages"
PACKAGE_SCHEMAS = {
    "measures": "id INT, amount INT, note STRING, status STRING, name STRING, maybe STRING, kind STRING, blank STRING, code STRING",
    "mirror": "id INT",
}
SHAPE = frozenset({"dbt_expectations.expect_column_to_exist", '{"dbt_expectations.expect_column_values_to_be_of_type": '
                                                               '{"column_type": "integer"}}'})
NAMES = ["ann", "bo", "cy", "dee", "ed", "flo", "gus", "hal", "ivy", "jo"]


def _measures(planted: bool) -> list[dict]:
    rows = [{"id": i + 1, "amount": 10 + 5 * i, "note": "" if i == 0 else "n", "status": "ab"[i % 2], "name": NAMES[i],
             "maybe": "m" if i == 3 else "", "kind": "kj"[i % 2], "blank": "", "code": "abc"} for i in range(10)]
    if not planted:
        return rows
    rows.append({**rows[0], "code": "ab1"})                          # (id 1, a) twice; a digit in the code
    rows.append({**rows[5], "id": 12})
    for i, column, value in [(1, "amount", -5), (2, "amount", 500), (3, "amount", 100), (1, "note", ""), (2, "note", ""),
                             (3, "note", ""), (4, "status", "x"), (5, "status", ""), (6, "name", " "), (7, "name", ""),
                             (8, "name", "toolongname"), (9, "blank", "z")]:
        rows[i][column] = value
    for row in rows:
        row["maybe"], row["kind"] = "", "k"
    return rows


def _write_measures(planted: bool):
    def write(project: Path) -> None:
        for seed, rows in (("measures", _measures(planted)), ("mirror", [{"id": i + 1} for i in range(10)])):
            with (project / "seeds" / f"{seed}.csv").open("w", newline="") as file:
                writer = csv.DictWriter(file, fieldnames=list(rows[0]), lineterminator="\n")
                writer.writeheader()
                writer.writerows(rows)
    return write


@pytest.fixture(scope="module")
def packages(tmp_path_factory, spark):
    if not PACKAGES:
        pytest.skip("DC_BRIDGE_DBT_PACKAGES names no folder of the dbt packages dbt_utils, dbt_expectations, dbt_date")
    return _both(tmp_path_factory.mktemp("dbt_packages"), PACKAGE_PROJECT,
                 {"shipped": _write_measures(False), "planted": _write_measures(True)}, PACKAGE_SCHEMAS, spark)


@pytest.mark.parametrize("variant", ["shipped", "planted"])
def test_package_tests_agree(packages, variant):
    _compare(*packages, variant, count=23, unchanged=SHAPE | {"not_null"})


# ---------------------------------------------------------------------------------------------
# hostile names through a run: what the import wrote quotes every name in every engine

HOSTILE = ["order.lines", "order lines", "it's \"q\"", "price$usd", "ünï_名前", "back`tick"]


def test_hostile_names_run(tmp_path, spark):
    """Models and columns named with dots, spaces, quotes, `$`, backticks and unicode: a not_null (a property), a
    not_null under `where` (dbt's query), accepted_values with a quote, `${...}` and `{batch}` in its values (a
    library metric), and a relationship whose target has a dot (dbt's query). Each engine counts what Python
    counts over the same rows."""
    import dc_bridge

    values = ["it's", "${HOME}", "{batch}"]
    tests = lambda target: ["not_null", {"not_null": {"config": {"where": "1 = 1", "severity": "warn"}}},  # noqa: E731
                            {"accepted_values": {"values": values}},
                            {"relationships": {"to": f"ref('{target}')", "field": HOSTILE[0]}}]
    models = [{"name": name, "columns": [{"name": column, "tests": tests(HOSTILE[0])} for column in HOSTILE]}
              for name in HOSTILE[:2]]
    path = tmp_path / "schema.yml"
    path.write_text(yaml.safe_dump({"models": models}, allow_unicode=True), encoding="utf-8")
    carried = read(str(path))
    assert {c.outcome for c in carried} == {"mapped"}
    assembled = assemble(carried, id="hostile")
    contract = tmp_path / "hostile.odcs.yaml"
    contract.write_text(yaml.safe_dump(assembled.document, sort_keys=False, allow_unicode=True), encoding="utf-8")
    # rows: each column holds the allowed values, a null, a value outside them; the second model's "it's" is no
    # value of the first model's key column
    rows = {HOSTILE[0]: [("it's",) * 6, ("${HOME}",) * 6, ("{batch}",) * 6, (None,) * 6, ("other",) * 6],
            HOSTILE[1]: [("it's",) * 6, (None,) * 6, ("zzz",) * 6, ("zzz",) * 6]}
    first_keys = {r[0] for r in rows[HOSTILE[0]] if r[0] is not None}
    frames = {name: spark.createDataFrame(data, ", ".join(f"`{c.replace('`', '``')}` STRING" for c in HOSTILE))
              for name, data in rows.items()}
    verdict = dc_bridge.run(str(contract), dataframes=frames, spark=spark, engines=ENGINES)
    checks = {c.check_id: c for c in verdict.checks()}
    compared = 0
    for item in carried:
        check = checks[_check_id(assembled.document, item)]
        data = [r[HOSTILE.index(item.field)] for r in rows[item.model]]
        name = item.check.text
        if name == "not_null" or name.startswith('{"not_null"'):
            expected = sum(v is None for v in data)
        elif "accepted_values" in name:
            expected = sum(v is not None and v not in values for v in data)
        else:
            expected = sum(v is not None and v not in first_keys for v in data)
        for engine in ENGINES:
            result = check.engines[engine]
            if "`" in item.field and engine in ("gx", "soda") and result.outcome == "error":
                # docs/reliability.md: GX's and Soda's column syntax cannot name a column holding a backtick
                assert item.rule is None or item.rule.get("type") != "sql", (item.model, item.field, name, result)
                compared += 1
                continue
            if result.observed is None and engine == "gx" and item.rule and item.rule.get("type") == "sql":
                assert expected == 0 and result.outcome == "passed", (item.model, item.field, name, result)
            else:
                assert result.observed == expected, (item.model, item.field, name, engine, result)
            compared += 1
    assert compared == len(ENGINES) * 2 * len(HOSTILE) * 4
