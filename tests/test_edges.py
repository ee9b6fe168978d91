"""Nothing passes unchecked (issue 24, classes 1-3), on real engines, with Spark's ANSI mode off and on:

1. text of the contract is a literal in every engine: Soda's `${...}` / Jinja syntax, GX's `{batch}` /
   `$PARAMETER`, Spark's string escapes never read a second time what the contract wrote;
2. one run has one clock: retention and freshness are judged against the run's `now` in every engine;
3. literals at the edges of each Spark type (bigint and decimal(38) extremes, NaN, -0.0, infinities,
   dates and timestamps of years 1 and 9999) are compared exactly, and crash no engine.

Each table is ONE `dc_bridge.run` with every engine; each engine's number is compared with a count
made here in Python, with Spark's equality (NaN equals NaN, -0.0 equals 0.0).
"""

from __future__ import annotations

import math
import tempfile
from datetime import date, datetime, timedelta, timezone
from decimal import Decimal
from pathlib import Path

import pytest
import yaml

import dc_bridge
from dc_bridge.compiler import compile_contract
from dc_bridge.contract.reading.load import load_contract
from dc_bridge.engines.registry import ENGINES
from dc_bridge.plan import checks as c

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

EXAMPLES = int(__import__("os").environ.get("DCB_EDGE_EXAMPLES", "3"))
NAN, INF = float("nan"), float("inf")
UTC = timezone.utc
BASE = {"apiVersion": "v3.1.0", "kind": "DataContract", "id": "edges", "version": "1.0.0", "status": "active"}


@pytest.fixture(scope="module")
def spark(ansi_spark):
    """Every test here runs with ANSI mode off, then on (tests/conftest.py)."""
    return ansi_spark


def _run(spark, contract: dict, rows: list, schema: str, **options):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "contract.yaml"
        path.write_text(yaml.safe_dump(contract, sort_keys=False, allow_unicode=True), encoding="utf-8")
        loaded = load_contract(path)
        assert loaded.contract is not None and not loaded.errors, [f"{f.code} {f.path} {f.message}" for f in loaded.findings]
        df = spark.createDataFrame(rows, schema).localCheckpoint()
        verdict = dc_bridge.run(loaded.contract, dataframes={"t": df}, spark=spark, engines=list(ENGINES), samples=False, **options)
    return compile_contract(loaded.contract).plan, df, verdict


def _spark_equal(a, b) -> bool:
    """Spark's equality of two values of one column: NaN equals NaN, -0.0 equals 0.0, numbers exactly."""
    if isinstance(a, float) and isinstance(b, float):
        return a == b or math.isnan(a) and math.isnan(b)
    if isinstance(a, (int, float, Decimal)) and isinstance(b, (int, float, Decimal)) and not isinstance(a, bool):
        if isinstance(a, float) or isinstance(b, float):
            f = a if isinstance(a, float) else b
            if not math.isfinite(f):
                return a == b
        return Decimal(a if not isinstance(a, float) else repr(a)) == Decimal(b if not isinstance(b, float) else repr(b))
    return a == b


def _as_column_value(value, column_type: str):
    """A contract value as the column holds it (dates and timestamps are text in the contract)."""
    if column_type == "date" and isinstance(value, str):
        return date.fromisoformat(value)
    if column_type == "timestamp" and isinstance(value, str):
        parsed = datetime.fromisoformat(value)
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    if column_type.startswith("decimal") and isinstance(value, float):
        return Decimal(repr(value))
    return value


def _aware(value):
    return value.replace(tzinfo=UTC) if isinstance(value, datetime) and value.tzinfo is None else value


def _reference(check, values: list, column_type: str) -> int | None:
    """Violating rows of a row-level check, in Python with Spark's equality."""
    present = [_aware(v) for v in values if v is not None]
    p = check.params
    if isinstance(p, c.InSet):
        allowed = [_as_column_value(v, column_type) for v in p.values]
        return sum(1 for v in present if not any(_spark_equal(v, a) for a in allowed))
    if isinstance(p, c.NotNull):
        missing = [_as_column_value(v, column_type) for v in p.missing_values]
        return sum(1 for v in values if v is None or any(_spark_equal(_aware(v), m) for m in missing))
    if isinstance(p, c.ValueBetween):
        def outside(v):
            low, high = (None if b is None else _as_column_value(b, column_type) for b in (p.min_value, p.max_value))
            if isinstance(v, float) and math.isnan(v):  # NaN is above every number in Spark
                return high is not None
            key = (lambda x: Decimal(repr(x)) if isinstance(x, float) and math.isfinite(x) else x)
            v, low, high = key(v), key(low) if low is not None else None, key(high) if high is not None else None
            return (low is not None and (v <= low if p.strict_min else v < low)) or (high is not None and (v >= high if p.strict_max else v > high))
        return sum(1 for v in present if outside(v))
    return None


def _compare(plan, verdict, rows: list, types: dict[str, str]) -> list[str]:
    """Each engine's number against the count in Python over `rows` (PySpark collects no timestamp of year 1)."""
    checks = {check.id: check for check in plan.checks}
    problems = []
    columns = {name: [row[i] for row in rows] for i, name in enumerate(types)}
    for found in verdict.checks():
        check = checks[found.check_id]
        if check.kind in ("column_exists", "column_type"):
            if found.outcome != "passed":
                problems.append(f"{check.id}: {found.outcome} ({found.reason})")
            continue
        expected = _reference(check, columns[check.column], types[check.column]) if check.column in types else None
        if expected is None:
            continue
        if set(found.engines) != set(ENGINES):
            problems.append(f"{check.id} [{check.kind}]: run by {sorted(found.engines)} only ({found.reason})")
        for engine, result in found.engines.items():
            if result.observed != expected:
                problems.append(f"{check.id} [{check.kind}]: {engine} {result.outcome} {result.observed}, expected {expected} ({result.error})")
        want = "passed" if check.threshold.holds(expected) else "failed"
        if found.outcome != want:
            problems.append(f"{check.id} [{check.kind}]: {found.outcome}, expected {want} ({found.reason})")
    return problems


# ---------------------------------------------------------------------------------------------
# class 1: text of the contract is a literal

TEMPLATED = ["${USER}", "${HOME:-x}", "{% raw %}", "{# c #}", "{{ x }}", "a%b", "#", "$", "}{", "{batch}", "$PARAMETER", "it's", "a\\"]


def test_contract_text_is_a_literal_in_every_engine(spark, monkeypatch):
    monkeypatch.setenv("USER", "someone")
    monkeypatch.setenv("HOME", "/home/someone")
    valid = ["${USER}", "{% raw %}", "{{ x }}", "a%b", "#", "$PARAMETER"]
    contract = {**BASE, "schema": [{"name": "t", "properties": [
        {"name": "s", "logicalType": "string", "quality": [
            {"metric": "invalidValues", "arguments": {"validValues": valid}, "mustBe": 0},
            {"metric": "invalidValues", "arguments": {"validValues": ["{# c #}", "plain"]}, "mustBe": 0},
            {"metric": "missingValues", "arguments": {"missingValues": ["${HOME:-x}", "{batch}"]}, "mustBe": 0},
            {"metric": "invalidValues", "arguments": {"pattern": "^[^$]*$"}, "mustBe": 0},
            {"metric": "invalidValues", "arguments": {"pattern": "^\\{#"}, "mustBe": 0},
        ]},
        {"name": "o", "logicalType": "string", "quality": [
            {"metric": "invalidValues", "arguments": {"validValues": ["${env:HOME}", "${spark.sql.shuffle.partitions}"]}, "mustBe": 0},
            {"metric": "missingValues", "arguments": {"missingValues": ["${system:user.name}"]}, "mustBe": 0}]},
    ], "quality": [
        {"type": "sql", "query": "SELECT COUNT(*) FROM t WHERE s IN ('{% raw %}', '{# c #}', '{{ x }}')", "mustBe": 3},
    ]}]}
    # Spark fills `${env:...}`, `${system:...}` and its own settings into SQL text before parsing it
    other = ["${env:HOME}", "${spark.sql.shuffle.partitions}", "${system:user.name}", "2", "/home/someone", None]
    rows = [(value, other[i % len(other)]) for i, value in enumerate(TEMPLATED)] + [(None, "${USER}"), ("plain", None)]
    plan, df, verdict = _run(spark, contract, rows, "s string, o string")
    problems = _compare(plan, verdict, rows, {"s": "string", "o": "string"})
    metrics = {ch.id for ch in plan.checks if ch.kind == "sql_metric"}
    for found in verdict.checks():
        if found.check_id in metrics:  # the three rows whose text reads as Soda's, Jinja's or GX's syntax
            for engine, result in found.engines.items():
                if result.observed != 3:
                    problems.append(f"{found.check_id}: {engine} {result.observed}, expected 3 ({result.error})")
    patterns = {ch.id: ch for ch in plan.checks if ch.kind == "regex"}
    for found in verdict.checks():
        if found.check_id in patterns:  # the regex counts, by Python's re (these patterns read the same in Java)
            import re

            want = sum(1 for (s, _) in rows if s is not None and not re.search(patterns[found.check_id].params.pattern, s))
            for engine, result in found.engines.items():
                if result.observed != want:
                    problems.append(f"{found.check_id} [regex]: {engine} {result.observed}, expected {want}")
    assert not problems, "\n".join(problems)


# ---------------------------------------------------------------------------------------------
# class 2: one clock

NOW = datetime(2024, 3, 10, 12, 0, 0, 123456, tzinfo=UTC)


def test_one_clock_for_every_engine(spark):
    """A clock fixed two years back: GX and Soda asked Spark's `current_timestamp()` and found every row expired."""
    day = timedelta(days=1)
    contract = {**BASE, "schema": [{"name": "t", "properties": [
        {"name": "ts", "logicalType": "timestamp"}, {"name": "d", "logicalType": "date"}]}],
        "slaProperties": [
            {"id": "ts_retention", "property": "retention", "value": 1, "unit": "d", "element": "t.ts"},
            {"id": "d_retention", "property": "retention", "value": 1, "unit": "d", "element": "t.d"},
            {"id": "ts_freshness", "property": "freshness", "value": 1, "unit": "h", "element": "t.ts"},
        ]}
    micro = timedelta(microseconds=1)
    rows = [(NOW - day, date(2024, 3, 9)), (NOW - day - micro, date(2024, 3, 10)), (NOW - day + timedelta(seconds=1), None),
            (NOW - timedelta(minutes=59, seconds=59), None)]
    plan, df, verdict = _run(spark, contract, rows, "ts timestamp, d date", now=NOW)
    found = {check.check_id: check for check in verdict.checks()}
    assert verdict.started_at == NOW.isoformat()
    problems = []
    for check_id, want in (("ts_retention", 1.0), ("d_retention", 1.0)):  # NOW - 1d - 1µs; 2024-03-09 00:00 < NOW - 1d
        for engine, result in found[check_id].engines.items():
            if result.observed != want:
                problems.append(f"{check_id}: {engine} {result.outcome} {result.observed}, expected {want} ({result.error})")
    for engine, result in found["ts_freshness"].engines.items():
        if result.outcome != "passed" or result.observed != pytest.approx(3599, abs=1e-3):
            problems.append(f"ts_freshness: {engine} {result.outcome} {result.observed} ({result.error})")
    assert set(found["ts_retention"].engines) == set(ENGINES)
    assert not problems, "\n".join(problems)


# ---------------------------------------------------------------------------------------------
# class 3: literals at the edges of each Spark type

LONG_MAX, LONG_MIN = 2**63 - 1, -(2**63)
D38 = 10**38 - 1


def test_values_at_the_edges_of_each_type(spark):
    contract = {**BASE, "schema": [{"name": "t", "properties": [
        {"name": "big", "logicalType": "integer", "physicalType": "bigint", "quality": [
            {"metric": "invalidValues", "arguments": {"validValues": [LONG_MAX, LONG_MIN, 2**53 + 1, 2**64]}, "mustBe": 0}],
         "logicalTypeOptions": {"maximum": LONG_MAX, "minimum": -(2**53)}},
        {"name": "dec", "logicalType": "number", "physicalType": "decimal(38,0)", "quality": [
            {"metric": "invalidValues", "arguments": {"validValues": [D38, -D38, 2**63]}, "mustBe": 0}],
         "logicalTypeOptions": {"maximum": D38 - 1}},
        {"name": "frac", "logicalType": "number", "physicalType": "decimal(38,10)", "quality": [
            {"metric": "invalidValues", "arguments": {"validValues": [0.1, -0.0]}, "mustBe": 0}]},
        {"name": "x", "logicalType": "number", "physicalType": "double", "quality": [
            {"metric": "invalidValues", "arguments": {"validValues": [NAN, -0.0, 1.7976931348623157e308, INF]}, "mustBe": 0},
            {"metric": "missingValues", "arguments": {"missingValues": [NAN, -INF]}, "mustBe": 0}]},
        {"name": "d", "logicalType": "date", "quality": [
            {"metric": "invalidValues", "arguments": {"validValues": [date(1, 1, 1), date(9999, 12, 31)]}, "mustBe": 0}]},
        {"name": "ts", "logicalType": "timestamp", "quality": [
            {"metric": "invalidValues", "arguments": {"validValues": ["0001-01-01 00:00:00", "9999-12-31 23:59:59.999999"]},
             "mustBe": 0}]},
    ]}]}
    rows = [
        (LONG_MAX, Decimal(D38), Decimal("0.1"), NAN, date(1, 1, 1), datetime(1, 1, 1, tzinfo=UTC)),
        (LONG_MIN, Decimal(-D38), Decimal("0.1000000001"), -0.0, date(9999, 12, 31), datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)),
        (2**53 + 1, Decimal(2**63), Decimal("-0"), 0.0, date(2024, 1, 1), datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC)),
        (2**53, Decimal(10**37), Decimal("9999999999999999999999999999.9999999999"), INF, None, None),
        (None, None, None, -INF, date(1, 1, 2), datetime(1970, 1, 1, tzinfo=UTC)),
        (-(2**53) - 1, Decimal(D38 - 1), None, 5e-324, None, None),
    ]
    schema = "big bigint, dec decimal(38,0), frac decimal(38,10), x double, d date, ts timestamp"
    plan, df, verdict = _run(spark, contract, rows, schema)
    problems = _compare(plan, verdict, rows, {"big": "bigint", "dec": "decimal(38,0)", "frac": "decimal(38,10)", "x": "double",
                                            "d": "date", "ts": "timestamp"})
    assert not problems, "\n".join(problems)


def test_rows_pyspark_cannot_hold_count_in_every_engine(spark):
    """GX fetches a query expectation's first rows through PySpark, which holds no timestamp of year 1
    (`year 0 is out of range`); its count is taken from those rows (engines/gx/metrics.py)."""
    contract = {**BASE, "schema": [{"name": "t", "properties": [
        {"name": "ts", "logicalType": "timestamp", "quality": [
            {"metric": "missingValues", "arguments": {"missingValues": ["0001-01-01 00:00:00"]}, "mustBe": 0},
            {"metric": "invalidValues", "arguments": {"validValues": ["2024-02-29 12:30:00"]}, "mustBe": 0}]},
    ]}]}
    rows = [(datetime(1, 1, 1, tzinfo=UTC),), (datetime(1, 1, 1, tzinfo=UTC),), (datetime(2024, 2, 29, 12, 30, tzinfo=UTC),), (None,)]
    plan, _df, verdict = _run(spark, contract, rows, "ts timestamp")
    problems = _compare(plan, verdict, rows, {"ts": "timestamp"})
    assert not problems, "\n".join(problems)


def test_a_range_on_a_decimal_of_38_digits_counts_alike_in_every_engine(spark):
    """Soda writes `maximum: 0` as `<= 0.0`, a decimal(1,1) literal: against decimal(38,0) the comparison
    needs 39 digits (Spark's error under ANSI, NULL without it). A run marks such a range exact
    (engines/columns.py `exact_ranges`); found by the generated literals below."""
    contract = {**BASE, "schema": [{"name": "t", "properties": [
        {"name": "dec", "logicalType": "number", "logicalTypeOptions": {"maximum": 0}},
        {"name": "low", "logicalType": "number", "logicalTypeOptions": {"minimum": 0}},
    ]}]}
    rows = [(Decimal(D38), Decimal(-D38)), (Decimal(5), Decimal(-5)), (Decimal(0), Decimal(0)), (None, None)]
    plan, _df, verdict = _run(spark, contract, rows, "dec decimal(38,0), low decimal(38,0)")
    problems = _compare(plan, verdict, rows, {"dec": "decimal(38,0)", "low": "decimal(38,0)"})
    assert not problems, "\n".join(problems)
    assert {c.check_id: c.observed for c in verdict.checks() if c.kind == "value_between"} == {"t.dec.range": 2, "t.low.range": 2}


def test_compiled_sodacl_counts_a_declared_decimal_of_38_digits_exactly(spark, tmp_path):
    """SodaCL compiled with no data (`dc-bridge compile`), run in a plain Soda scan of the user's own: where
    the contract declares the column a decimal of 38 integer digits (ODCS `physicalType`, DCS `precision`
    and `scale`), the range is dc-bridge's exact count, not `valid min: 0` (Soda's `0.0` needs 39 digits
    against such a column: the row not counted without ANSI, a failed query with it)."""
    from click.testing import CliRunner
    from plain_engines import plain_soda_scan

    from dc_bridge.cli import main
    from dc_bridge.contract.sql import view_name

    odcs = {**BASE, "schema": [{"name": "t", "properties": [
        {"name": "dec", "logicalType": "number", "physicalType": "decimal(38,0)", "logicalTypeOptions": {"maximum": 0}},
        {"name": "low", "logicalType": "number", "physicalType": "decimal(38,0)", "logicalTypeOptions": {"minimum": 0}},
    ]}]}
    dcs = {"dataContractSpecification": "1.1.0", "id": "edges-dcs", "info": {"title": "edges", "version": "1.0.0"},
           "models": {"t": {"fields": {"dec": {"type": "decimal", "precision": 38, "scale": 0, "maximum": 0},
                                       "low": {"type": "decimal", "precision": 38, "scale": 0, "minimum": 0}}}}}
    rows = [(Decimal(D38), Decimal(-D38)), (Decimal(5), Decimal(-5)), (Decimal(0), Decimal(0)), (None, None)]
    df = spark.createDataFrame(rows, "dec decimal(38,0), low decimal(38,0)")
    for name, document in (("odcs", odcs), ("dcs", dcs)):
        path = tmp_path / name / "contract.yaml"
        path.parent.mkdir()
        path.write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")
        compiled = CliRunner().invoke(main, ["compile", str(path), "--out", str(path.parent)], catch_exceptions=False)
        assert compiled.exit_code == 0, compiled.output
        sodacl = (path.parent / "soda_checks" / document["id"] / "t.yml").read_text()
        assert "valid min" not in sodacl and "valid max" not in sodacl, sodacl
        contract = load_contract(path).contract
        view = view_name(contract.id, "t")
        df.createOrReplaceTempView(view)
        try:
            scan = plain_soda_scan(spark, sodacl)
        finally:
            spark.catalog.dropTempView(view)
        assert not scan.has_error_logs(), scan.get_error_logs_text()
        folded = dc_bridge.fold_soda(scan, contract)
        assert {c.check_id: c.observed for c in folded.checks() if c.kind == "value_between"} == {"t.dec.range": 2, "t.low.range": 2}, name


def test_nan_among_listed_values_counts_on_a_cached_dataframe(spark):
    """Spark skips a cached table's batches by their smallest and largest value, which leave NaN out:
    GX's query `x IS NULL OR x IN (NaN)` found no row in a cached batch of NaN and numbers, where the
    native engine and Soda (aggregations, never pruned) counted it, and a GX-only run passed. A NaN in a
    list is `isnan(x)` now (engines/queries.py `listed`)."""
    contract = {**BASE, "schema": [{"name": "t", "properties": [
        {"name": "x", "logicalType": "number", "physicalType": "double", "quality": [
            {"metric": "missingValues", "arguments": {"missingValues": [NAN]}, "mustBe": 0},
            {"metric": "invalidValues", "arguments": {"validValues": [NAN, 1.0]}, "mustBe": 0}]}]}]}
    rows = [(NAN,), (1.0,), (2.0,), (NAN,)]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "contract.yaml"
        path.write_text(yaml.safe_dump(contract, sort_keys=False), encoding="utf-8")
        df = spark.createDataFrame(rows, "x double").coalesce(1).cache()
        try:
            df.count()  # the cache filled: one batch, smallest 1.0, largest 2.0
            verdict = dc_bridge.run(load_contract(path).contract, dataframes={"t": df}, spark=spark, engines=list(ENGINES), samples=False)
        finally:
            df.unpersist()
    counts = {c.check_id: {engine: r.observed for engine, r in c.engines.items()} for c in verdict.checks() if "quality" in c.check_id}
    assert counts == {"t.x.quality[0]": {engine: 2.0 for engine in ENGINES}, "t.x.quality[1]": {engine: 1.0 for engine in ENGINES}}


# drawn: values at each type's edges, and text every engine could read as its own syntax
EDGE_LONGS = [LONG_MAX, LONG_MIN, 0, 2**53, 2**53 + 1, -(2**53) - 1]
EDGE_DECIMALS = [Decimal(D38), Decimal(-D38), Decimal(0), Decimal(2**63), Decimal(10**37)]
EDGE_DOUBLES = [NAN, -0.0, 0.0, INF, -INF, 1.7976931348623157e308, 5e-324, 0.1]
EDGE_DATES = [date(1, 1, 1), date(9999, 12, 31), date(1970, 1, 1), date(2024, 2, 29)]
EDGE_TIMESTAMPS = [datetime(1, 1, 1, tzinfo=UTC), datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC),
                   datetime(1970, 1, 1, tzinfo=UTC), datetime(2024, 2, 29, 12, 30, tzinfo=UTC)]
EDGE_TEXTS = ["${USER}", "${X:-a:b/c}", "{{ x }}", "{% if %}", "{#", "%", "#", "100%", "a'b", "\\", "", "$PARAMETER", "{batch}"]
COLUMNS = {"big": ("bigint", "integer", EDGE_LONGS), "dec": ("decimal(38,0)", "number", EDGE_DECIMALS),
           "x": ("double", "number", EDGE_DOUBLES), "d": ("date", "date", EDGE_DATES), "ts": ("timestamp", "timestamp", EDGE_TIMESTAMPS),
           "s": ("string", "string", EDGE_TEXTS)}


def _contract_value(value):
    """A drawn value as a contract writes it: dates unquoted (YAML reads them as dates), timestamps as
    Spark's own text of them (a value list is compared with a timestamp column as text: see the note
    of issue 24), decimals as integers."""
    if isinstance(value, datetime):
        return str(value.replace(tzinfo=None))
    if isinstance(value, Decimal):
        return int(value)
    return value


@st.composite
def edge_tables(draw):
    rows = draw(st.lists(st.tuples(*(st.one_of(st.none(), st.sampled_from(pool)) for _, _, pool in COLUMNS.values())),
                         min_size=1, max_size=5))
    properties = []
    for name, (physical, logical, pool) in COLUMNS.items():
        prop = {"name": name, "logicalType": logical, "physicalType": physical}
        rules = []
        if draw(st.booleans()):
            values = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=3))
            rules.append({"metric": "invalidValues", "arguments": {"validValues": [_contract_value(v) for v in values]}, "mustBe": 0})
        if draw(st.booleans()):
            values = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=2))
            rules.append({"metric": "missingValues", "arguments": {"missingValues": [_contract_value(v) for v in values]}, "mustBe": 0})
        if logical in ("integer", "number") and draw(st.booleans()):
            bound = draw(st.sampled_from([v for v in pool if not (isinstance(v, float) and not math.isfinite(v)) and abs(v) < 10**38]))
            prop["logicalTypeOptions"] = {draw(st.sampled_from(["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"])):
                                          _contract_value(bound)}
        if rules:
            prop["quality"] = rules
        properties.append(prop)
    return rows, {**BASE, "schema": [{"name": "t", "properties": properties}]}


@settings(max_examples=EXAMPLES, deadline=None, database=None, print_blob=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.data_too_large])
@given(table=edge_tables())
def test_edge_literals_count_alike_in_every_engine(spark, table):
    rows, contract = table
    schema = ", ".join(f"{name} {physical}" for name, (physical, _, _) in COLUMNS.items())
    plan, df, verdict = _run(spark, contract, rows, schema)
    problems = _compare(plan, verdict, rows, {name: physical for name, (physical, _, _) in COLUMNS.items()})
    assert not problems, "\n".join(problems) + f"\nrows: {rows}\ncontract: {contract}"


# ---------------------------------------------------------------------------------------------
# class 1: our own ODCS 3.2 variables (docs/variables.md of the standard: `${VAR_NAME}` and
# `${VAR_NAME:-default}`, the default being the text between `:-` and the closing `}`, verbatim)

VARIABLE_FORMS = [
    ("${DCB_V}", {"DCB_V": "set"}, "set"),
    ("x-${DCB_V}-y", {"DCB_V": "set"}, "x-set-y"),
    ("${DCB_V:-fallback}", {}, "fallback"),
    ("${DCB_V:-fallback}", {"DCB_V": ""}, "fallback"),  # empty counts as unset
    ("${DCB_V:-fallback}", {"DCB_V": "given"}, "given"),
    ("${DCB_V:-}", {}, ""),
    ("${DCB_V:-jdbc:postgresql://db.example.com:5432/orders?ssl=true&user=a}", {}, "jdbc:postgresql://db.example.com:5432/orders?ssl=true&user=a"),
    ("${DCB_V:-jdbc:sqlserver://h:1433;databaseName=x;encrypt=true}", {}, "jdbc:sqlserver://h:1433;databaseName=x;encrypt=true"),
    ("${DCB_V:-s3://bucket/a path/with spaces/}", {}, "s3://bucket/a path/with spaces/"),
    ("${DCB_V:-https://example.com/a?b=c#frag}", {}, "https://example.com/a?b=c#frag"),
    ("${DCB_V:-pa$$word$}", {}, "pa$$word$"),
    ("${DCB_V:-a{b}", {}, "a{b"),
    ("${DCB_V:-a:-b}", {}, "a:-b"),
    ("${DCB_V:-C:\\data\\x}", {}, "C:\\data\\x"),
    ("${DCB_V:-${HOME}", {}, "${HOME"),  # verbatim: the default ends at the first `}`
    ("${DCB_A}/${DCB_B:-b}/${DCB_C:-c}", {"DCB_A": "a", "DCB_C": "C"}, "a/b/C"),
    ("${DCB_V}", {"DCB_V": "${DCB_W}"}, "${DCB_W}"),  # a value is never read again
    ("$${DCB_V}", {"DCB_V": "set"}, "${DCB_V}"),
    ("${table} stays", {}, "${table} stays"),
]


@pytest.mark.parametrize("text,values,expected", VARIABLE_FORMS)
def test_odcs_variables_in_every_form(tmp_path, monkeypatch, text, values, expected):
    from dc_bridge.contract.lint import lint_file

    for name in ("DCB_V", "DCB_W", "DCB_A", "DCB_B", "DCB_C"):
        monkeypatch.delenv(name, raising=False)
    path = tmp_path / "contract.yaml"
    path.write_text(yaml.safe_dump({**BASE, "apiVersion": "v3.2.0", "schema": [{"name": "t", "description": text}]}), encoding="utf-8")
    found = lint_file(path, values)
    assert not [f for f in found.findings if f.code == "DCB174"], [f.message for f in found.findings]
    assert found.contract.models[0].description == expected
