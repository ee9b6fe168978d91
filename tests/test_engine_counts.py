"""Both engines count what docs/mapping.md says, on the same data, as plain PySpark does.

Table-driven: a handful of small tables with many columns and violations planted at known rows
(nulls, duplicates, bad formats, bounds hit exactly, orphans, stale rows), each with one in-memory
contract (DCS for `people`/`teams`, ODCS for `orders`/`customers`/`products`). Each contract is
written to tmp_path, loaded, planned and translated like `dc-bridge compile` does; then GX and Soda
run ONCE per table (an engine run costs seconds), and for every check of the plan:

    GX observed == Soda observed == the reference (tests/reference.py)

and both engines' outcomes equal the threshold judged on the reference. The reference reads the
check IR (not the engines' SQL) and counts in Python over the collected rows, from docs/mapping.md;
for a subset of checks it is itself pinned to the planted count.

Known, documented engine limits the assertions encode:
- a scalar SQL metric (sql_metric; row_count with `!=` / not-between) runs in GX as an
  `unexpected_rows_expectation` whose query returns the value only on violation: when the threshold
  holds, GX confirms it (passed) but has no number (observed None);
- column_type over a set of compatible types (logical types) runs in GX only; custom checks run in
  their own engine only.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

import pytest

from dc_bridge.plan import checks as c
from dc_bridge.plan.checks import kind_of
from dc_bridge.compiler import compile_contract
from dc_bridge.engines.soda.translate import sodacl_text
from dc_bridge.contract.reading.load import load_contract
from dc_bridge.contract.formats import FORMATS
from dc_bridge.contract.sql import view_name
from reference import Rows, reference, same

# GX's own name for the batch of its `{batch}` queries outside a bridge run: a user's view of that name is theirs
GX_TMP_VIEW = "tmp_view"

NOW = datetime.now(timezone.utc)


def at(n: int, default, **planted):
    """A column of n values: `default(i)` (or the value), with `_<row>=value` overrides."""
    values = [default(i) if callable(default) else default for i in range(n)]
    for key, value in planted.items():
        values[int(key.lstrip("_"))] = value
    return values


# ---------------------------------------------------------------------------------------------
# the tables: (schema DDL, columns); planted violations are commented where they are planted

N_PEOPLE = 30
PEOPLE_COLUMNS = {
    # ids 1..30; [1, 2, 2, 4, ...] (row 2 repeats 2), a triple 21 at rows 20-22, a null at row 10
    "id": at(N_PEOPLE, lambda i: i + 1, _2=2, _10=None, _20=21, _21=21, _22=21),
    # length 2..6: "A" and "Alexandra" violate, "Jo" and "Joanna" are the bounds; two nulls
    "first name": at(N_PEOPLE, "Anna", _1="A", _2="Alexandra", _3="Jo", _4="Joanna", _5=None, _6=None),
    # email: three bad ones; a quote in the local part is valid (and breaks unescaped SQL)
    "e.mail": at(N_PEOPLE, lambda i: f"user{i}@example.com", _1="no-at-sign", _2="a@b", _3="x@-bad.com",
                 _4="o'brien@example.com", _5=None),
    # inclusive 1.5..2.1: the bounds pass, 1.49 and 2.2 do not
    "größe": at(N_PEOPLE, 1.8, _1=1.5, _2=2.1, _3=1.49, _4=2.2, _5=None),
    # enum a, b, o'k (a value with a quote): "c" and "A" are outside; "" and "n/a" are missing values
    "select": at(N_PEOPLE, "a", _1="b", _2="o'k", _3="c", _4="A", _5=None, _6="", _7="n/a", _8="n/a"),
    # anchored pattern ^[A-Z]{2}-\d{3}$ ; "n'a" is a missing value (with a quote) of its own rule
    "code": at(N_PEOPLE, "AB-123", _1="ab-123", _2="AB-1234", _3="AB123", _4=None, _5="n'a"),
    # unanchored pattern [0-9]{3}: a search, so "x123y" matches; "12a" and "abc" do not
    "tag": at(N_PEOPLE, "x123y", _1="12a", _2="abc", _3="999", _4=None),
    # a regex with an escaped backslash: "dir\file" matches ^[a-z]+\\[a-z]+$, the others do not
    "path": at(N_PEOPLE, "dir\\file", _1="dirfile", _2="dir/file", _3=None),
    "website": at(N_PEOPLE, "https://example.com/x", _1="example.com", _2="://nope", _3="mailto:a@b.c", _4=None),
    "uid": at(N_PEOPLE, "123e4567-e89b-12d3-a456-426614174000", _1="1234", _2="123E4567-E89B-12D3-A456-426614174000",
              _3="123e4567-e89b-12d3-a456-42661417400g", _4=None),
    "day": at(N_PEOPLE, "2024-02-29", _1="2024-13-01", _2="2024-1-01", _3="24-01-01", _4=None),
    "stamp": at(N_PEOPLE, "2024-01-01T10:00:00Z", _1="2024-01-01 10:00:00", _2="2024-01-01T10:00:00.123+01:00",
                _3="2024-01-01T25:00:00", _4="2024-01-01", _5=None),
    "ip4": at(N_PEOPLE, "192.168.0.1", _1="256.1.1.1", _2="1.2.3", _3="01.2.3.4", _4="0.0.0.0", _5=None),
    "ip6": at(N_PEOPLE, "2001:db8::1", _1="::1", _2="fe80::1:2", _3="2001:db8:::1", _4="12345::1", _5="1.2.3.4", _6=None),
    "host": at(N_PEOPLE, "example.com", _1="-bad.com", _2="bad_host.com", _3="a..b", _4="localhost", _5=None),
    # exclusive 0..100: both bounds violate, as do -1 and 101
    "score": at(N_PEOPLE, 50.0, _1=0.0, _2=100.0, _3=-1.0, _4=101.0, _5=0.001, _6=99.9, _7=None, _8=75.0, _9=80.0),
    # references teams.team_id: "t9" and "zz" are orphans; a null is not checked
    "team": at(N_PEOPLE, "t1", _1="t2", _2="t9", _3="zz", _4=None, _5="t4"),
    # newest row is 2h old (row 0); rows 25-27 are older than the 30 day retention; a null at 29
    "ts": at(N_PEOPLE, lambda i: NOW - timedelta(hours=2, minutes=i), _25=NOW - timedelta(days=60),
             _26=NOW - timedelta(days=400), _27=NOW - timedelta(days=31), _29=None),
    # processed 10 min after ts; rows 1-3 took 2h (over the 1h latency); row 4 exactly 1h (allowed)
    "processed": None,  # filled below from ts
}
PEOPLE_COLUMNS["processed"] = [
    None if ts is None else ts + (timedelta(hours=2) if i in (1, 2, 3) else timedelta(hours=1) if i == 4 else timedelta(minutes=10))
    for i, ts in enumerate(PEOPLE_COLUMNS["ts"])]
PEOPLE_SCHEMA = ("id int, `first name` string, `e.mail` string, `größe` double, `select` string, code string, tag string, "
                 "path string, website string, uid string, day string, stamp string, ip4 string, ip6 string, host string, score double, "
                 "team string, ts timestamp, processed timestamp")

TEAMS_COLUMNS = {
    # composite primary key (org, team_id): (o1, t1) twice; a null org
    "org": ["o1", "o1", "o2", "o1", None, "o2"],
    "team_id": ["t1", "t2", "t1", "t1", "t3", "t4"],
    "label": ["a", "b", "c", "d", "e", "f"],
}
TEAMS_SCHEMA = "org string, team_id string, label string"

N_ORDERS = 24
ORDERS_COLUMNS = {
    # composite primary key (order_id, line_no): (o1, 1) twice, a null order_id, a null line_no
    "order_id": at(N_ORDERS, lambda i: f"o{i // 2}", _3="o0", _5=None),
    "line_no": at(N_ORDERS, lambda i: i % 2 + 1, _3=1, _7=None),
    # foreign key to customers.customer_id: c8 and c9 are orphans, a null is not checked
    "customer_id": at(N_ORDERS, lambda i: f"c{i % 5}", _1="c8", _2="c9", _3=None),
    # composite foreign key (sku, variant) -> products: (s1, XL) has the sku but not the variant
    "sku": at(N_ORDERS, "s1", _1="s2", _2="s1", _3="s7", _4="s2"),
    "variant": at(N_ORDERS, "M", _1="L", _2="XL", _3="M", _4=None),
    # one null (4.17% < 5%), -1 is a missing value (2 rows), 5000 is out of the custom GX range
    "amount": at(N_ORDERS, lambda i: 10.0 + i, _1=None, _2=-1.0, _3=-1.0, _4=5000.0),
    # enum new/paid/shipped; "lost" and "NEW" are outside; exactly three "new"
    "status": at(N_ORDERS, "paid", _1="new", _2="new", _3="new", _4="lost", _5="NEW", _6="shipped", _7=None),
    "email": at(N_ORDERS, lambda i: f"b{i}@shop.example", _1="bad", _2="b1@shop.example", _3="b1@shop.example", _4=None),
    # minimum 1 (inclusive), exclusiveMaximum 10: 0 and 10 violate; 1 and 9 pass
    "qty": at(N_ORDERS, 5, _1=0, _2=10, _3=1, _4=9, _5=None),
    # minLength 1, maxLength 5: "" and "toolong" violate
    "note": at(N_ORDERS, "ok", _1="", _2="toolong", _3="12345", _4=None),
    # newest row 3h old; two rows older than the one-year retention
    "created_at": at(N_ORDERS, lambda i: NOW - timedelta(hours=3 + i), _10=NOW - timedelta(days=500),
                     _11=NOW - timedelta(days=800)),
}
ORDERS_SCHEMA = ("order_id string, line_no int, customer_id string, sku string, variant string, amount double, "
                 "status string, email string, qty int, note string, created_at timestamp")

CUSTOMERS_COLUMNS = {
    "customer_id": ["c0", "c1", "c2", "c3", "c4", "c4", None],
    "name": ["Ann", "Bo", None, "Di", "Ed", "Fy", "Gu"],
}
CUSTOMERS_SCHEMA = "customer_id string, name string"

PRODUCTS_COLUMNS = {
    "sku": ["s1", "s1", "s2", "s2", "s3"],
    "variant": ["M", "L", "L", "M", "M"],
    "price": [10.0, 12.0, 8.0, 8.5, None],
    "updated": [(NOW - timedelta(days=d)).date() for d in (1, 2, 5, 9, 1)],
}
PRODUCTS_SCHEMA = "sku string, variant string, price double, updated date"


# ---------------------------------------------------------------------------------------------
# the contracts

DCS_CONTRACT = r"""
dataContractSpecification: 1.1.0
id: urn:test:people
info: {title: People, version: 1.0.0}
models:
  people:
    fields:
      id: {type: integer, required: true, unique: true}
      first name:
        type: string
        minLength: 2
        maxLength: 6
        quality:
          - {type: library, metric: nullValues, unit: percent, mustBeLessThan: 5}
      e.mail: {type: string, format: email}
      größe: {type: double, minimum: 1.5, maximum: 2.1}
      select:
        type: string
        enum: [a, b, "o'k"]
        quality:
          - {type: library, metric: missingValues, arguments: {missingValues: ["", "n/a"]}, unit: percent, mustBeLessThan: 5}
          - {type: library, metric: invalidValues, arguments: {validValues: [a, b, "o'k"]}, unit: percent, mustBeLessOrEqualTo: 10}
      code:
        type: string
        pattern: ^[A-Z]{2}-\d{3}$
        quality:
          - {type: library, metric: missingValues, arguments: {missingValues: ["n'a"]}}
      tag:
        type: string
        pattern: "[0-9]{3}"
        quality:
          - {type: library, metric: invalidValues, arguments: {pattern: "^x"}, mustBeLessThan: 40}
      path: {type: string, pattern: '^[a-z]+\\[a-z]+$'}
      website: {type: string, format: uri}
      uid: {type: string, format: uuid}
      day: {type: string, format: date}
      stamp: {type: string, format: date-time}
      ip4: {type: string, format: ipv4}
      ip6: {type: string, format: ipv6}
      host: {type: string, format: hostname}
      score:
        type: double
        exclusiveMinimum: 0
        exclusiveMaximum: 100
        quality:
          - type: sql
            query: SELECT AVG({field}) FROM {model} WHERE {column} > 0
            mustBeBetween: [40, 60]
      team: {type: string, references: teams.team_id}
      ts: {type: timestamp}
      processed: {type: timestamp, config: {sparkType: timestamp}}
    quality:
      # DCS between is inclusive: the count is exactly the lower bound and passes
      - type: sql
        query: SELECT COUNT(*) FROM {model} WHERE score > 50
        mustBeBetween: [5, 8]
      - type: sql
        query: SELECT MAX(`größe`) FROM {table}
        mustBeLessThan: 2.0
      - {type: library, metric: rowCount, mustBe: 30}
      - {type: library, metric: rowCount, mustBeGreaterThan: 30}
      - {type: library, metric: rowCount, mustBeLessThanOrEqualTo: 30}
      - {type: library, metric: rowCount, mustNotBe: 30}
      - {type: library, metric: rowCount, mustBeBetween: [31, 40]}
      - {type: library, metric: rowCount, mustNotBeBetween: [1, 10]}
      - {type: library, metric: duplicateValues, arguments: {properties: [id]}, unit: percent, mustBeLessThan: 10}
  teams:
    primaryKey: [org, team_id]
    fields:
      org: {type: string}
      team_id: {type: string, required: true}
      label: {type: string, config: {sparkType: bigint}}
    quality:
      # parses, but fails in Spark: both engines report an error, not a number
      - type: sql
        query: SELECT COUNT(no_such_column) FROM {model}
        mustBe: 0
      - type: custom
        engine: great-expectations
        implementation: {type: expect_no_such_thing, kwargs: {}}
servicelevels:
  freshness: {threshold: 1d, timestampField: people.ts}
  latency: {threshold: 1h, sourceTimestampField: people.ts, processedTimestampField: people.processed}
  retention: {period: P30D, timestampField: people.ts}
"""

ODCS_CONTRACT = r"""
apiVersion: v3.0.2
kind: DataContract
id: urn:test:shop
version: 1.0.0
status: active
slaProperties:
  - {property: freshness, value: 1, unit: d, element: orders.created_at}
  - {id: orders_latency, property: latency, value: 2, unit: h, element: orders.created_at}
  - {property: retention, value: 1, unit: y, element: orders.created_at}
  # the longest time between two updates: 500 days minus 26 hours (orders), 4 days (products' dates)
  - {id: orders_frequency, property: frequency, value: 1, unit: d, element: orders.created_at}
  - {id: products_frequency, property: frequency, value: 5, unit: d, element: products.updated}
  # a date column: its newest day counts as fresh until the day ends (Soda's reading, and GX's here)
  - {id: products_fresh, property: freshness, value: 3, unit: d, element: products.updated}
schema:
  - name: orders
    properties:
      - {name: order_id, logicalType: string, primaryKey: true, primaryKeyPosition: 1}
      - {name: line_no, logicalType: integer, physicalType: bigint, primaryKey: true, primaryKeyPosition: 2}
      - name: customer_id
        logicalType: string
        relationships:
          - {type: foreignKey, to: customers.customer_id}
      - {name: sku, logicalType: string}
      - {name: variant, logicalType: string}
      - name: amount
        logicalType: number
        physicalType: double
        quality:
          - {id: amount_nulls_pct, metric: nullValues, unit: percent, mustBeLessThan: 5}
          - {id: amount_missing_pct, metric: missingValues, arguments: {missingValues: [-1]}, unit: percent, mustBeLessOrEqualTo: 10}
          - id: amount_gx_range
            type: custom
            engine: great-expectations
            implementation:
              type: expect_column_values_to_be_between
              kwargs: {minValue: 0, maxValue: 1000}
      - name: status
        logicalType: string
        enum: [new, paid, shipped]
        quality:
          - {id: status_valid_pct, metric: invalidValues, arguments: {validValues: [new, paid, shipped, cancelled]}, unit: percent, mustBeLessThan: 10}
          # ODCS mustBeBetween excludes its bounds: exactly 3 "new" rows violate [3, 10]
          - id: status_new_count
            type: sql
            query: SELECT COUNT(*) FROM ${table} WHERE ${column} = 'new'
            mustBeBetween: [3, 10]
      - name: email
        logicalType: string
        logicalTypeOptions: {format: email}
        quality:
          - {id: email_dup_pct, metric: duplicateValues, unit: percent, mustBeLessOrEqualTo: 1}
          - {id: email_bad_pattern, metric: invalidValues, arguments: {pattern: '@shop\.example$'}, mustBeLessThan: 3}
      - name: qty
        logicalType: integer
        physicalType: int
        logicalTypeOptions: {minimum: 1, exclusiveMaximum: 10}
      - name: note
        logicalType: string
        logicalTypeOptions: {minLength: 1, maxLength: 5}
      - {name: created_at, logicalType: timestamp}
      # in the contract, not in the data: exists fails, and its other checks cannot run
      - {name: ghost, logicalType: string, required: true}
    relationships:
      - type: foreignKey
        from: [orders.sku, orders.variant]
        to: [products.sku, products.variant]
    quality:
      - {id: orders_rows, metric: rowCount, mustBeGreaterOrEqualTo: 20}
      - {id: customer_sku_dups, metric: duplicateValues, arguments: {properties: [customer_id, sku]}, mustBe: 0}
      - id: orders_max_amount
        type: sql
        query: SELECT MAX(amount) FROM orders
        mustBeLessThan: 1000
      - id: soda_rows
        type: custom
        engine: soda
        implementation: |
          row_count between 20 and 30
      # two SodaCL lines under one check id: the worst outcome of both, no single number
      - id: soda_two_lines
        type: custom
        engine: soda
        implementation: |
          checks for orders:
            - missing_count(status) < 5
            - max(qty) <= 9
  - name: customers
    properties:
      - {name: customer_id, logicalType: string, primaryKey: true}
      - {name: name, logicalType: string, required: true}
  - name: products
    properties:
      - {name: sku, logicalType: string, primaryKey: true, primaryKeyPosition: 1}
      - {name: variant, logicalType: string, primaryKey: true, primaryKeyPosition: 2}
      - name: price
        logicalType: number
        quality:
          # a warning: Soda's line carries `warn:` instead of a threshold; the number is the same
          - {id: price_nulls_warn, metric: nullValues, severity: warning, mustBe: 0}
      - {name: updated, logicalType: date}
    quality:
      # the metric is NULL (no row matches): neither engine can judge it
      - id: price_over_1000
        type: sql
        query: SELECT MAX(price) FROM ${table} WHERE price > 1000
        mustBeLessThan: 5
"""


def _sql_reference(df, F):
    """References of the contracts' SQL and custom checks, with DataFrame operations."""
    return {
        "people.quality[0]": lambda: df.filter(F.col("score") > 50).count(),
        "people.quality[1]": lambda: df.agg(F.max("`größe`")).first()[0],
        "people.score.quality[0]": lambda: df.filter(F.col("score") > 0).agg(F.avg("score")).first()[0],
        "status_new_count": lambda: df.filter(F.col("status") == "new").count(),
        "orders_max_amount": lambda: df.agg(F.max("amount")).first()[0],
        "amount_gx_range": lambda: df.filter(F.col("amount").isNotNull() & ~F.col("amount").between(0, 1000)).count(),
        "soda_rows": lambda: df.count(),
    }


# counts planted above, to pin the reference itself (the reference then pins both engines)
PLANTED = {
    "people.id.required": 1,
    "people.id.unique": 5,  # [1, 2, 2, 4]: both rows of the 2 count, and all three rows of 21
    "people.first name.length": 2,
    "people.e.mail.format": 3,
    "people.größe.range": 2,
    "people.select.enum": 5,  # c, A, "", n/a, n/a
    "people.code.pattern": 4,  # ab-123, AB-1234, AB123, n'a
    "people.code.quality[0]": 2,  # null + n'a
    "people.tag.pattern": 2,
    "people.path.pattern": 2,
    "people.website.format": 2,
    "people.uid.format": 2,
    "people.day.format": 3,
    "people.stamp.format": 2,
    "people.ip4.format": 3,
    "people.ip6.format": 3,
    "people.host.format": 3,
    "people.score.range": 4,
    "people.team.foreign_key": 2,
    "people.quality[0]": 5,
    "people.latency": 3,
    "people.retention": 3,
    "teams.primary_key": 2,
    "teams.org.required": 1,
    "orders.primary_key": 2,
    "orders.order_id.required": 1,
    "orders.customer_id.foreign_key": 2,
    "orders.sku_variant.foreign_key": 2,
    "orders.qty.range": 2,
    "orders.note.length": 2,
    "status_new_count": 3,
    "amount_gx_range": 3,
    "orders_frequency": 500 * 86400 - 26 * 3600,
    "products_frequency": 4 * 86400,
}


# checks no engine can evaluate: check id -> (outcome, text in the error) for every engine that runs it
ERRORS = {
    "teams.quality[0]": ("error", "no_such_column"),
    "teams.quality[1]": ("error", "expect_no_such_thing"),
    "price_over_1000": ("error", ""),
}


@dataclass
class Table:
    model: str
    columns: dict
    schema: str
    contract: str  # "dcs" or "odcs"


TABLES = [
    Table("people", PEOPLE_COLUMNS, PEOPLE_SCHEMA, "dcs"),
    Table("teams", TEAMS_COLUMNS, TEAMS_SCHEMA, "dcs"),
    Table("orders", ORDERS_COLUMNS, ORDERS_SCHEMA, "odcs"),
    Table("customers", CUSTOMERS_COLUMNS, CUSTOMERS_SCHEMA, "odcs"),
    Table("products", PRODUCTS_COLUMNS, PRODUCTS_SCHEMA, "odcs"),
]


# ---------------------------------------------------------------------------------------------
# the run: every table once per engine


@dataclass
class Run:
    table: Table
    df: object
    models: dict  # model -> its rows, collected once (tests/reference.py)
    checks: list
    gx: object
    soda: object
    in_gx: set
    in_soda: set
    suite: dict


@pytest.fixture(scope="module")
def spark(ansi_spark):
    """Every test here runs with Spark's ANSI mode off, then on (tests/conftest.py): the counts must not depend on it."""
    return ansi_spark


@pytest.fixture(scope="module")
def runs(spark, tmp_path_factory):
    from dc_bridge.engines.gx.run import run_gx
    from dc_bridge.engines.soda.run import run_soda

    folder = tmp_path_factory.mktemp("contracts")
    compiled = {}
    for kind, text in (("dcs", DCS_CONTRACT), ("odcs", ODCS_CONTRACT)):
        path = folder / f"{kind}.yaml"
        path.write_text(textwrap.dedent(text), encoding="utf-8")
        loaded = load_contract(path)
        assert loaded.contract is not None and not loaded.errors, [f"{f.code} {f.path}: {f.message}" for f in loaded.findings]
        compiled[kind] = compile_contract(loaded.contract)
    frames = {t.model: _frame(spark, t) for t in TABLES}
    collected = {model: Rows.of(frame) for model, frame in frames.items()}

    # a user's own temp view named like GX's batch view must survive the GX runs
    spark.createDataFrame([("mine",)], "owner string").createOrReplaceTempView(GX_TMP_VIEW)

    result = {}
    for table in TABLES:
        comp = compiled[table.contract]
        contract_id = comp.contract.id
        models = [m.name for m in comp.contract.models]
        extra = {view_name(contract_id, m): frames[m] for m in models if m != table.model}
        checks = comp.plan.for_model(table.model)
        suite = comp.artifacts["gx"][table.model]
        text = sodacl_text(comp.artifacts["soda"][table.model], comp.meta)
        df = frames[table.model]
        gx = run_gx(spark, df, suite, checks, NOW, extra_views=extra)
        soda = run_soda(spark, df, text, view_name(contract_id, table.model), checks, extra_views=extra, now=NOW)
        in_gx = {e["meta"]["dc_bridge"]["check_id"] for e in suite["expectations"]}
        in_soda = {cfg["name"] for header, items in comp.artifacts["soda"][table.model].items() for item in items
                   for cfg in item.values() if isinstance(cfg, dict) and "name" in cfg}
        print(f"{table.model}: gx {gx.seconds:.1f}s soda {soda.seconds:.1f}s", file=sys.stderr)
        result[table.model] = Run(table, df, collected, checks, gx, soda, in_gx, in_soda, suite)
    yield result
    spark.catalog.dropTempView(GX_TMP_VIEW)


def _frame(spark, table: Table):
    """The table as a DataFrame held by the JVM: a plain createDataFrame re-runs Python workers to
    unpickle the rows on every Spark job (about 0.5 s a job here); localCheckpoint materialises it
    once, without registering it as cached (so `is_cached` still tells whether GX persisted it)."""
    names = list(table.columns)
    rows = list(zip(*(table.columns[n] for n in names)))
    return spark.createDataFrame(rows, table.schema).localCheckpoint()


# ---------------------------------------------------------------------------------------------
# the reference: tests/reference.py, on the rows collected once per table


def _col(name: str):
    from pyspark.sql import functions as F

    return F.col("`" + name.replace("`", "``") + "`")


def _expected(check, run: Run, sql: dict) -> float | None:
    """The check's number: its SQL or custom check read here with DataFrame operations, else tests/reference.py."""
    if check.id in sql:
        value = sql[check.id]()
        return None if value is None else float(value)
    return reference(check, run.models[run.table.model], now=NOW, models=run.models)


def _type_holds(check, df) -> bool:
    """column_type reference: the column's Spark simpleString is the exact type or a compatible one."""
    actual = next(f.dataType.simpleString() for f in df.schema.fields if f.name == check.column)
    p = check.params
    base = actual.split("(")[0]
    return actual == p.spark_type if p.exact else base in p.compatible


# checks whose GX translation returns the metric value only when the threshold fails
def _gx_scalar(check, suite_type: str | None) -> bool:
    return kind_of(check).measure == "value" and suite_type == "unexpected_rows_expectation"


# ---------------------------------------------------------------------------------------------
# the tests


@pytest.mark.parametrize("model", [t.model for t in TABLES])
def test_engines_count_like_pyspark(runs, model):
    from pyspark.sql import functions as F

    run = runs[model]
    assert run.gx.error is None, run.gx.error
    assert run.soda.error is None, run.soda.error
    sql = _sql_reference(run.df, F)
    problems = []
    for check in run.checks:
        if isinstance(check.params, c.NotExecutable):
            continue
        gx, soda = run.gx.results.get(check.id), run.soda.results.get(check.id)
        # every check an engine translates comes back from it; none that it does not
        if (gx is not None) != (check.id in run.in_gx) or (soda is not None) != (check.id in run.in_soda):
            problems.append(f"{check.id}: translated gx={check.id in run.in_gx} soda={check.id in run.in_soda}, "
                            f"returned gx={gx is not None} soda={soda is not None}")
            continue
        problems += _compare(check, run, gx, soda, sql)
    assert not problems, "\n".join(problems)


def _compare(check, run: Run, gx, soda, sql: dict) -> list[str]:
    problems = []
    engines = [r for r in (gx, soda) if r is not None]
    if check.kind == "column_exists":
        # Decision: a column missing from the data is a *failed* column_exists check in both engines,
        # and every other check on that column is *failed* too, with the reason (a judgement about
        # the data, not an error of the tool); see test_missing_column_* below.
        expected = "passed" if check.column in run.df.columns else "failed"
        return [f"{check.id}: {r.engine} {r.outcome} != {expected}" for r in engines if r.outcome != expected or r.observed is not None]
    missing = [x for x in check.columns if x not in run.df.columns]
    if missing:
        return [f"{check.id}: {r.engine} {r.outcome} ({r.error}) on missing {missing}, expected failed"
                for r in engines if r.outcome != "failed" or "not in the data" not in (r.error or "")]
    if check.id in ERRORS:
        outcome, text = ERRORS[check.id]
        return [f"{check.id}: {r.engine} {r.outcome} ({r.error}), expected {outcome} mentioning {text!r}"
                for r in engines if r.outcome != outcome or text not in (r.error or "") or r.observed is not None]
    if check.kind == "column_type":
        expected = "passed" if _type_holds(check, run.df) else "failed"
        return [f"{check.id}: {r.engine} {r.outcome} != {expected}" for r in engines if r.outcome != expected]

    ref = _expected(check, run, sql)
    if check.id in PLANTED and PLANTED[check.id] is not None and not same(ref, PLANTED[check.id]):
        problems.append(f"{check.id}: reference {ref} is not the planted {PLANTED[check.id]} (fix the test data)")
    if check.kind in ("custom_gx", "custom_soda"):
        # runs verbatim in its own engine only; its own success decides
        own = gx if check.kind == "custom_gx" else soda
        other = soda if check.kind == "custom_gx" else gx
        if own is None or other is not None:
            return [f"{check.id}: custom check must run in its own engine only"]
        expected = CUSTOM_OUTCOMES[check.id]
        if own.outcome != expected or not same(own.observed, ref):
            problems.append(f"{check.id}: {own.engine} {own.outcome} observed {own.observed}, expected {expected} {ref}")
        return problems

    expected = "passed" if check.threshold.holds(ref) else "failed"
    suite_type = next((e["type"] for e in run.suite["expectations"] if e["meta"]["dc_bridge"]["check_id"] == check.id), None)
    for result in engines:
        want = ref
        if result.engine == "gx" and _gx_scalar(check, suite_type) and expected == "passed":
            want = None  # the query returns the value only on violation
        if result.outcome != expected or not same(result.observed, want):
            problems.append(f"{check.id} [{check.kind}]: {result.engine} {result.outcome} observed {result.observed} "
                            f"({result.native_name}; {result.error}), expected {expected} {want}")
        if result.unexpected_count is not None and check.unit == "rows" and not same(float(result.unexpected_count), ref):
            problems.append(f"{check.id}: {result.engine} unexpected_count {result.unexpected_count} != {ref}")
        if result.unexpected_percent is not None and result.unexpected_count is not None and \
                not same(result.unexpected_percent, 100.0 * result.unexpected_count / len(run.models[run.table.model])):
            problems.append(f"{check.id}: {result.engine} unexpected_percent {result.unexpected_percent} is not of all rows")
    return problems


CUSTOM_OUTCOMES = {"amount_gx_range": "failed", "soda_rows": "passed", "soda_two_lines": "failed"}

# every check kind both engines run (plus the custom ones, each in its own engine) is exercised
KINDS = {"not_null", "unique", "unique_combination", "regex", "in_set", "length_between", "value_between", "row_count",
         "sql_metric", "freshness", "frequency", "latency", "retention", "foreign_key", "column_exists", "column_type",
         "custom_gx", "custom_soda"}


def test_every_kind_and_format_is_covered(runs):
    checks = [check for run in runs.values() for check in run.checks]
    assert KINDS <= {check.kind for check in checks}
    assert set(FORMATS) <= {check.params.format for check in checks if isinstance(check.params, c.Regex)}
    # percent-unit library metrics: nulls, missing values, invalid values, duplicates
    percent = {type(check.params).__name__ + ("+missing" if getattr(check.params, "missing_values", ()) else "")
               for check in checks if check.unit == "percent"}
    assert {"NotNull", "NotNull+missing", "InSet", "Unique"} <= percent
    operators = {check.threshold.operator for check in checks if check.kind == "row_count"}
    assert {"=", ">", "<=", "!=", "between", "not_between", ">="} <= operators
    # both standards' between: DCS inclusive, ODCS exclusive
    between = {check.id: check.threshold for check in checks if check.kind == "sql_metric" and check.threshold.operator == "between"}
    assert between["people.quality[0]"].low_inclusive and not between["status_new_count"].low_inclusive
    assert any(isinstance(ch.params, c.ForeignKey) and len(ch.columns) == 2 for ch in checks)


def test_missing_column_fails_exists_and_the_rest(runs):
    """`ghost` is in the contract, not in the data. Both engines: exists -> failed (evaluated, and the
    contract is violated); required -> failed too, naming the column (a judgement about the data, not
    an error of the tool), without taking Soda's fused query, and so every other check of the model,
    down with it."""
    run = runs["orders"]
    for engine in (run.gx, run.soda):
        assert engine.results["orders.ghost.exists"].outcome == "failed"
        assert engine.results["orders.ghost.required"].outcome == "failed"
        assert "`ghost` is not in the data" in engine.results["orders.ghost.required"].error
        errors = {r.check_id for r in engine.results.values() if r.outcome == "error"}
        assert not {"orders.ghost.required", "orders.ghost.type"} & errors, errors


def test_runs_leave_the_session_as_they_found_it(spark, runs):
    """No temp view of a run is left behind (the models' nor GX's batch views), a user's `tmp_view` (GX's own
    batch view name) survives, and GX did not persist the caller's DataFrames (persist=False)."""

    leftovers = [t.name for t in spark.catalog.listTables() if t.isTemporary and t.name.startswith(("dcb_", "dc_bridge_batch_"))]
    assert leftovers == []
    assert [row.owner for row in spark.table(GX_TMP_VIEW).collect()] == ["mine"]
    # GX persists the batch DataFrame unless told persist=False (it would show as MEMORY_AND_DISK here)
    levels = {model: run.df.storageLevel for model, run in runs.items()}
    assert not any(level.useMemory or level.useDisk for level in levels.values()), levels
    # no failed-row queries (samples off): GX gives none, Soda only the repeated keys its uniqueness grouping found
    assert all(not r.samples for run in runs.values() for r in run.gx.results.values())
    assert all(not r.samples or r.duplicated_values is not None for run in runs.values() for r in run.soda.results.values())


def test_validations_side_by_side_read_each_their_own_batch():
    """GX's `{batch}` queries register the batch as the session's one `tmp_view`: inside a bridge run each validation
    (each thread, as contracts run with --parallel) has a batch view of its own instead, so no lock serialises them."""
    import threading

    from dc_bridge.engines.gx.metrics import batch_view

    names: list[str] = []
    both_inside = threading.Barrier(2, timeout=10)

    def validation() -> None:
        with batch_view() as view:
            both_inside.wait()  # the two blocks are open at once
            names.append(view)

    threads = [threading.Thread(target=validation) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(set(names)) == 2 and GX_TMP_VIEW not in names, names
    assert all(name.isidentifier() for name in names), names  # `{batch}` is replaced by the bare name


def test_engines_write_nothing_to_home_and_send_nothing(tmp_path):
    """Importing both engines' runners, creating GX's context and Soda's telemetry singletons reads
    and writes nothing under $HOME (Soda would write ~/.soda/config.yml) and leaves telemetry off."""
    home = tmp_path / "home"
    home.mkdir()
    code = textwrap.dedent("""
        import os
        from dc_bridge.engines.gx import run as bridge_gx
        from dc_bridge.engines.soda import run as bridge_soda
        bridge_soda.disable_soda_telemetry()
        import soda.scan
        from soda.telemetry.soda_telemetry import SodaTelemetry
        import great_expectations as gx
        gx.get_context(mode="ephemeral")
        assert os.environ["GX_ANALYTICS_ENABLED"] == "false"
        assert SodaTelemetry.get_instance()._SodaTelemetry__send is False
        soda.scan.Scan()
    """)
    env = {**os.environ, "HOME": str(home)}
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    assert list(home.iterdir()) == []
    assert not (tmp_path / ".soda").exists()


def test_a_wide_aggregation_is_split_in_compiled_passes_and_merged(spark):
    """Past 100 fields Spark stops compiling a plan; the native engine splits its one aggregation."""
    from pyspark.sql import functions as F

    from dc_bridge.engines.spark_conditions import AGGREGATES_PER_PASS, aggregate

    frame = spark.range(10)
    columns = [F.sum(F.col("id") * i).alias(f"c{i}") for i in range(2 * AGGREGATES_PER_PASS + 5)]
    assert aggregate(frame, columns) == {f"c{i}": 45 * i for i in range(2 * AGGREGATES_PER_PASS + 5)}


# ---------------------------------------------------------------------------------------------
# edge values where an engine counted differently from the data (issue 13): each engine on its own
# (`--engines gx`, `--engines soda`, `--engines spark`) against plain PySpark and exact Python numbers

EDGE_CONTRACT = r"""
dataContractSpecification: 1.1.0
id: urn:test:edges
info: {title: Edges, version: 1.0.0}
models:
  edges:
    fields:
      quoted: {type: string, pattern: '^\Qit''s\E$'}
      quoted_backslash: {type: string, pattern: '^\Qa\b''\E'}
      quote_and_class: {type: string, pattern: "^[a-z']+\\\\[0-9]$"}
      dec: {type: decimal, minimum: -0.1, maximum: 0.1}
      dec_excl: {type: decimal, exclusiveMinimum: 0, exclusiveMaximum: 0.1}
      big: {type: long, maximum: 9007199254740992.0}
      wide: {type: decimal, maximum: 0.001}
      tiny: {type: decimal, minimum: 0.00001}
    quality:
      - {type: sql, query: "SELECT MAX(dec) FROM {model}", mustBeLessThanOrEqualTo: 0.1}
      - {type: sql, query: "SELECT MAX(big) FROM {model}", mustBeLessThanOrEqualTo: 9007199254740992}
      - {type: sql, query: "SELECT MAX(CAST('NaN' AS DOUBLE)) FROM {model}", mustBeGreaterThan: 5}
      - {type: sql, query: "SELECT MAX(CAST('NaN' AS DOUBLE)) FROM {model}", mustNotBe: 5}
      - {type: sql, query: "SELECT MAX('abc') FROM {model}", mustBeGreaterThan: 5}
      - {type: sql, query: "SELECT MAX('7') FROM {model}", mustBeGreaterThan: 5}
      - {type: sql, query: "SELECT MAX(CAST('Infinity' AS DOUBLE)) FROM {model}", mustBeLessThan: 5}
      - {type: sql, query: "SELECT MAX(CAST('-Infinity' AS DOUBLE)) FROM {model}", mustBeLessThan: 5}
      - {type: sql, query: "SELECT MAX(dec) FROM {model} WHERE dec < 0.05", mustBeLessThan: 0.1}
"""
EDGE_SCHEMA = ("quoted string, quoted_backslash string, quote_and_class string, dec decimal(38,18), dec_excl decimal(38,18), "
               "big bigint, wide decimal(38,2), tiny decimal(38,18)")


def _edge_rows():
    from decimal import Decimal as D

    return [
        ("it's", "a\\b'", "o'k\\1", D("0.100000000000000001"), D("0.1"), 9007199254740993, D("100000000000000000000000000000000000"), D("0.000009999999999999")),
        ("it's", "a\\b'x", "ok\\x", D("-0.100000000000000001"), D("0"), 9007199254740992, D("0.00"), D("0.00001")),
        ("its", "ab'", "ok1", D("0.1"), D("0.099999999999999999"), 1, D("0.01"), D("0.000010000000000001")),
        ("it\\x27s", "a\\\\b'", "o'k\\\\1", D("-0.1"), D("0.000000000000000001"), None, None, None),
        (None, None, None, None, None, -9007199254740993, D("-100000000000000000000000000000000000"), D("-1")),
    ]


# exact counts (tests/reference.py: Decimal, and re where it agrees with Java): pinned, and each regex's checked against Spark's rlike
EDGE_COUNTS = {
    "edges.quoted.pattern": 2,  # its, it\x27s
    "edges.quoted_backslash.pattern": 2,  # ab', a\\b'
    "edges.quote_and_class.pattern": 3,  # ok\x, ok1, o'k\\1 (two backslashes)
    "edges.dec.range": 2,  # ±0.100000000000000001 (GX and the native engine compared as doubles: 0)
    "edges.dec_excl.range": 2,  # 0.1 and 0 (bounds excluded); 0.099999999999999999 is inside
    "edges.big.range": 1,  # 9007199254740993 (as doubles it equals the bound)
    "edges.wide.range": 2,  # 1e35 and 0.01: Spark's decimal comparison with 0.001 overflows to NULL for 1e35
    "edges.tiny.range": 2,  # 0.000009999999999999 and -1 (Soda wrote the bound as the double 1e-05)
}
# SQL metrics: the outcome every engine gives (one of them may not run it exactly: its own outcome below)
EDGE_METRICS = {
    "edges.quality[0]": "failed",  # 0.100000000000000001 > 0.1
    "edges.quality[1]": "failed",  # 9007199254740993 > 9007199254740992
    "edges.quality[2]": "failed",  # NaN: no threshold holds for it
    "edges.quality[3]": "failed",
    "edges.quality[4]": "error",  # text
    "edges.quality[5]": "error",  # text, even when it reads as a number
    "edges.quality[6]": "failed",  # +inf < 5 does not hold
    "edges.quality[7]": "passed",  # -inf < 5 holds
    "edges.quality[8]": "passed",  # 0.000000000000000001 < 0.1
}
# Soda reads a metric as a double: where its double judges differently from the exact value, it says so
EDGE_SODA = {"edges.quality[0]": "error", "edges.quality[1]": "error"}


@pytest.fixture(scope="module")
def edge_runs(spark, tmp_path_factory):
    import dc_bridge

    path = tmp_path_factory.mktemp("edges") / "edges.yaml"
    path.write_text(textwrap.dedent(EDGE_CONTRACT), encoding="utf-8")
    loaded = load_contract(path)
    assert loaded.contract is not None and not loaded.errors, [f"{f.code} {f.path}: {f.message}" for f in loaded.findings]
    df = spark.createDataFrame(_edge_rows(), EDGE_SCHEMA).localCheckpoint()
    verdicts = {engine: dc_bridge.run(loaded.contract, dataframes={"edges": df}, spark=spark, engines=[engine], samples=False)
                for engine in ("gx", "soda", "spark")}
    return compile_contract(loaded.contract), df, verdicts


@pytest.mark.parametrize("engine", ["gx", "soda", "spark"])
def test_edge_values_count_exactly_in_each_engine_alone(edge_runs, engine):
    compiled, df, verdicts = edge_runs
    found = {check.check_id: check for check in verdicts[engine].checks()}
    problems = []
    rows = Rows.of(df)
    for check in compiled.plan.checks:
        if check.id in EDGE_COUNTS:
            ref = reference(check, rows)
            if check.kind == "regex":  # the same count from Spark's own rlike
                assert df.where(_col(check.column).isNotNull() & ~_col(check.column).rlike(check.params.pattern)).count() == ref, check.id
            if ref != EDGE_COUNTS[check.id]:
                problems.append(f"{check.id}: reference {ref} is not the planted {EDGE_COUNTS[check.id]}")
            got = found[check.id]
            if got.outcome != ("failed" if ref else "passed") or got.observed != ref:
                problems.append(f"{check.id} [{engine}]: {got.outcome} {got.observed}, expected {ref} ({got.reason})")
        elif check.id in EDGE_METRICS:
            want = EDGE_SODA.get(check.id, EDGE_METRICS[check.id]) if engine == "soda" else EDGE_METRICS[check.id]
            got = found[check.id]
            if got.outcome != want:
                problems.append(f"{check.id} [{engine}]: {got.outcome}, expected {want} ({got.reason})")
            if want == "error" and not got.reason:
                problems.append(f"{check.id} [{engine}]: error without a reason")
    assert not problems, "\n".join(problems)


def test_edge_sodacl_keeps_quotes_and_regexes_exact(edge_runs):
    """Soda's regex is `\\Q...\\E` written out (nothing inside a quote is an escape), a quote as `\\x27`;
    ranges and metrics are the bridge's own queries (exact decimal literals)."""
    from dc_bridge.engines.soda.translate import _soda_round_trip, soda_regex

    assert soda_regex("^\\Qit's\\E$") == "^it\\x27s$"
    assert soda_regex("\\Qa\\b'\\E") == "a\\x5cb\\x27"
    assert soda_regex("\\\\Q'") == "\\x5cQ\\x27"  # an escaped backslash, then a plain Q: no quote
    assert soda_regex("\\Q1.\\E") == "\\x31\\x2e"
    assert soda_regex("a\\\nb") is None and _soda_round_trip("a") == "a"  # a backslash before a line break: the bridge's query
    compiled, _, _ = edge_runs
    text = sodacl_text(compiled.artifacts["soda"]["edges"], compiled.meta)
    assert "0.00001" in text and "1e-05" not in text


def test_freshness_across_daylight_saving_in_a_non_utc_zone(spark, monkeypatch):
    """Europe/Berlin as Spark's session zone and as the process's local zone (PySpark collects timestamps
    in it): the newest row before the last Sunday of March and of October, `now` after it; every engine
    measures the same age as aware datetimes do."""
    import time

    import dc_bridge

    contract = textwrap.dedent("""
        dataContractSpecification: 1.1.0
        id: urn:test:dst
        info: {title: DST, version: 1.0.0}
        models:
          events:
            fields:
              ts: {type: timestamp}
        servicelevels:
          freshness: {threshold: 3650d, timestampField: events.ts}
    """)
    previous = spark.conf.get("spark.sql.session.timeZone")
    monkeypatch.setenv("TZ", "Europe/Berlin")
    time.tzset()
    spark.conf.set("spark.sql.session.timeZone", "Europe/Berlin")
    try:
        import tempfile
        from pathlib import Path

        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "dst.yaml"
            path.write_text(contract, encoding="utf-8")
            loaded = load_contract(path)
        for newest in (datetime(2024, 3, 30, 12, tzinfo=timezone.utc), datetime(2024, 10, 26, 12, tzinfo=timezone.utc)):
            df = spark.createDataFrame([(newest,), (newest - timedelta(days=3),)], "ts timestamp").localCheckpoint()
            collected = df.agg({"ts": "max"}).first()[0]  # naive Berlin time, as PySpark collects it
            verdict = dc_bridge.run(loaded.contract, dataframes={"events": df}, spark=spark, engines=["gx", "soda", "spark"], samples=False)
            check = next(ch for ch in verdict.checks() if ch.kind == "freshness")
            started = verdict.started_at if hasattr(verdict, "started_at") else None
            ages = {engine: result.observed for engine, result in check.engines.items()}
            assert check.outcome == "passed", (check.reason, ages)
            assert set(ages) == {"gx", "soda", "spark"}
            # all engines agree to the microsecond, and on the true age (aware arithmetic), not an hour off
            assert max(ages.values()) - min(ages.values()) < 1e-3, ages
            true_age = (datetime.now(timezone.utc) - collected.astimezone()).total_seconds()
            assert abs(true_age - ages["soda"]) < 600, (true_age, ages, started)
    finally:
        spark.conf.set("spark.sql.session.timeZone", previous)
        monkeypatch.delenv("TZ")
        time.tzset()


@pytest.mark.parametrize("columns", [("k",), ("k", "j")])
def test_duplicates_by_window_and_by_grouping_agree(spark, columns):
    """engines/native/run.py counts a mostly distinct key's repeats with a window, other keys' with a
    grouping: the same rows, distinct repeated keys and samples either way, nulls left out."""
    from dc_bridge.contract.model import Source
    from dc_bridge.engines.spark_conditions import duplicates

    df = spark.createDataFrame([("a", 1), ("a", 1), ("b", 2), (None, 3), (None, 3), ("c", 3), ("c", 3), ("c", 4), ("d", None), ("d", None)],
                               "k string, j int")
    check = c.Check("m.key", "m", columns, c.Unique(), Source(file="c.yaml", path="models.m", line=1))
    by_window = duplicates(df, check, mostly_distinct=True)
    assert by_window == duplicates(df, check, mostly_distinct=False)
    assert by_window == ((7, 3, ["a", "d"]) if columns == ("k",) else (4, 2, [["a", 1], ["c", 3]]))


def test_soda_gives_the_key_samples_from_its_own_grouping(spark, tmp_path):
    """engines/soda/run.py widens Soda's uniqueness query by the repeated keys' count and extremes: the
    same numbers and samples as the native engine's grouping, none of a pii field, and no query of the
    samples' own (runner/samples.py takes them as they are)."""
    import dc_bridge
    from dc_bridge.verdict import WITHHELD

    contract = tmp_path / "keys.yaml"
    contract.write_text("""dataContractSpecification: 1.1.0
id: keys
info: {title: keys, version: 1.0.0}
models:
  m:
    primaryKey: [k, j]
    fields:
      k: {type: string, unique: true}
      j: {type: integer}
      s: {type: string, unique: true, pii: true}
""")
    df = spark.createDataFrame([("a", 1, "x"), ("a", 1, "x"), ("b", 2, "y"), (None, 3, None), (None, 3, None), ("c", 3, "z"),
                                ("c", 3, "z"), ("c", 4, "w"), ("d", None, "v"), ("d", None, "v")], "k string, j int, s string")
    verdict = dc_bridge.run(contract, dataframes={"m": df}, spark=spark, engines=["soda", "spark"])
    found = {check.check_id: check for check in verdict.checks()}
    for check_id, samples, distinct in (("m.k.unique", ["a", "d"], 3), ("m.primary_key", [["a", 1], ["c", 3]], 2)):
        soda, native = found[check_id].engines["soda"], found[check_id].engines["spark"]
        assert (soda.samples, soda.duplicated_values) == (native.samples, native.duplicated_values) == (samples, distinct)
        assert (found[check_id].samples, found[check_id].duplicated_values) == (samples, distinct)
    assert found["m.s.unique"].engines["soda"].samples == [] and found["m.s.unique"].samples_note == WITHHELD


def test_key_samples_of_arrays_structs_and_composite_keys_are_distinct_lists():
    """An array or struct key (a list or a Row from Spark) cannot be hashed: the samples compare them instead,
    and one that could not be shown never takes the engine's run of the model down (it once made every
    Soda check of a model with a repeated array key `error`)."""
    from decimal import Decimal

    from dc_bridge.engines.spark_conditions import key_examples

    assert key_examples(["a", "b"], ["a", "b"], None) == [["a", "b"]]
    assert key_examples(("x", Decimal("1.50")), ("y", [1, 2])) == [["x", "1.50"], ["y", [1, 2]]]
    assert key_examples("k", "k", 3) == ["k", 3]


# keys whose repeats a grouping and a window could tell apart: nulls in a part of the key, NaN and
# the two zeros of a double (Spark's grouping takes each as one value), arrays, a key of two columns
KEY_EDGES = {
    "string with nulls": ("k string", [("a",), ("a",), (None,), (None,), ("b",)], ("k",)),
    "doubles, NaN and zeros": ("k double", [(float("nan"),), (float("nan"),), (0.0,), (-0.0,), (1.5,), (None,), (None,)], ("k",)),
    "arrays": ("k array<int>", [([1, 2],), ([1, 2],), ([2, 1],), (None,), ([],), ([],)], ("k",)),
    "two columns with nulls": ("k string, j double", [("a", 1.0), ("a", 1.0), ("a", None), ("a", None), (None, 2.0), (None, 2.0),
                                                     ("b", float("nan")), ("b", float("nan")), ("c", 0.0), ("c", -0.0), ("c", 1.0)], ("k", "j")),
    "no repeats": ("k string", [("a",), ("b",), (None,)], ("k",)),
}


@pytest.mark.parametrize("edge", sorted(KEY_EDGES))
def test_soda_window_query_counts_as_its_grouping(spark, edge):
    """A bridge run sends Soda's uniqueness query in rows as `key_samples_query`, a window over the key:
    its first column (what Soda receives) is the compiled SodaCL's grouping's number, and its repeated
    keys' count and extremes are the native engine's `duplicates`, on every edge of a key."""
    from dc_bridge.contract.model import Source
    from dc_bridge.engines.soda.translate import key_count_query, key_samples_query
    from dc_bridge.engines.spark_conditions import duplicates, key_examples

    schema, rows, columns = KEY_EDGES[edge]
    df = spark.createDataFrame(rows, schema)
    df.createOrReplaceTempView("key_edges")
    check = c.Check("m.key", "m", columns, c.Unique(), Source(file="c.yaml", path="models.m", line=1))
    try:
        grouped = spark.sql(key_count_query(check, "key_edges")).first()[0]
        windowed = spark.sql(key_samples_query(check, "key_edges")).first()
    finally:
        spark.catalog.dropTempView("key_edges")
    assert windowed[0] == grouped
    # as text: NaN equals no NaN
    assert repr((windowed[0], windowed[1], key_examples(windowed[2], windowed[3]) if windowed[1] else [])) == \
        repr(duplicates(df, check, mostly_distinct=False))


LENGTH_BOUNDS = [  # (min_value, max_value, strict_min, strict_max)
    (None, 3, False, False), (None, 3, False, True), (2, None, False, False), (2, None, True, False),
    (1, 4, False, False), (1, 4, True, True), (0, 0, False, False),
]


@pytest.mark.parametrize("edge", sorted([*KEY_EDGES, "no rows"]))
def test_soda_window_query_in_percent_counts_as_its_grouping(spark, edge):
    """A uniqueness check in percent of all rows is sent as `key_samples_query` too: its first column (what
    Soda receives) is the compiled SodaCL's grouping's percent to the last bit, the percent of the native
    engine's rows whose key repeats among all rows (those with a null key part in the whole, as Soda's
    query has it), and the percent of no rows is 0; its repeated keys' count and extremes are the native
    engine's `duplicates`."""
    from dc_bridge.contract.model import Source
    from dc_bridge.engines.soda.translate import key_count_query, key_samples_query
    from dc_bridge.engines.spark_conditions import duplicates, key_examples

    schema, rows, columns = KEY_EDGES[edge] if edge in KEY_EDGES else ("k string", [], ("k",))
    df = spark.createDataFrame(rows, schema)
    df.createOrReplaceTempView("key_edges")
    check = c.Check("m.key", "m", columns, c.Unique(), Source(file="c.yaml", path="models.m", line=1), unit="percent")
    try:
        grouped = spark.sql(key_count_query(check, "key_edges")).first()[0]
        windowed = spark.sql(key_samples_query(check, "key_edges")).first()
    finally:
        spark.catalog.dropTempView("key_edges")
    repeated, distinct, extremes = duplicates(df, check, mostly_distinct=False)
    assert isinstance(windowed[0], float) and repr(windowed[0]) == repr(grouped) == repr(100.0 * repeated / len(rows) if rows else 0.0)
    assert repr((windowed[1], key_examples(windowed[2], windowed[3]) if windowed[1] else [])) == repr((distinct, extremes))


def test_soda_gives_a_percent_key_as_the_native_engine(spark, tmp_path):
    """A run sends Soda's uniqueness check in percent by the window too: the same percent and samples as
    the native engine's, of one key and of a combination."""
    import dc_bridge

    contract = tmp_path / "keys.yaml"
    contract.write_text("""dataContractSpecification: 1.1.0
id: keys
info: {title: keys, version: 1.0.0}
models:
  m:
    fields:
      k: {type: string}
      j: {type: integer}
    quality:
      - {type: library, metric: duplicateValues, arguments: {properties: [k]}, unit: percent, mustBeLessThan: 10}
      - {type: library, metric: duplicateValues, arguments: {properties: [k, j]}, unit: percent, mustBeLessThan: 10}
""")
    df = spark.createDataFrame([("a", 1), ("a", 1), ("b", 2), (None, 3), (None, 3), ("c", 3), ("c", 3), ("c", 4), ("d", None),
                                ("d", None)], "k string, j int")
    verdict = dc_bridge.run(contract, dataframes={"m": df}, spark=spark, engines=["soda", "spark"])
    keyed = [check for check in verdict.checks() if check.kind in ("unique", "unique_combination")]
    assert len(keyed) == 2
    for found in keyed:
        soda, native = found.engines["soda"], found.engines["spark"]
        assert soda.outcome == native.outcome == "failed"
        assert (soda.observed, soda.samples, soda.duplicated_values) == (native.observed, native.samples, native.duplicated_values)
    assert sorted(found.engines["soda"].observed for found in keyed) == [40.0, 70.0]


def test_gx_value_lengths_count_as_gx_computes_them(spark):
    """engines/gx/metrics.py computes GX's value length condition on Spark with the lengths in place (GX's
    own map and condition functions), so that its count joins the bundled aggregation instead of a pass
    of its own: every bound GX takes counts the rows a length test in Python finds, nulls left out, in
    one aggregation (the condition waits for no metric of the lengths)."""
    import great_expectations as gx
    import great_expectations.expectations as gxe
    from great_expectations.expectations.registry import get_metric_provider
    from great_expectations.validator.metric_configuration import MetricConfiguration

    import dc_bridge.engines.gx.metrics  # noqa: F401  (installs the bridge's metric providers)

    values = ["", "a", "ab", "abc", "abcd", "abcde", None, "äöü", "日本語の", "😀😀", None]
    df = spark.createDataFrame([(v,) for v in values], "s string")
    context = gx.get_context(mode="ephemeral")
    batch = context.data_sources.add_spark("lengths", persist=False).add_dataframe_asset("t").add_batch_definition_whole_dataframe("all")
    suite = context.suites.add(gx.ExpectationSuite(name="lengths", expectations=[
        gxe.ExpectColumnValueLengthsToBeBetween(column="s", min_value=lo, max_value=hi, strict_min=smin, strict_max=smax)
        for lo, hi, smin, smax in LENGTH_BOUNDS]))
    definition = context.validation_definitions.add(gx.ValidationDefinition(name="lengths", data=batch, suite=suite))
    results = definition.run(batch_parameters={"dataframe": df}, result_format="BASIC").results
    engine = context.data_sources.get("lengths").get_execution_engine()
    condition = MetricConfiguration("column_values.value_length.between.condition", {"column": "s"}, {"max_value": 3})
    provider, _ = get_metric_provider(condition.metric_name, engine)
    assert "column_values.value_length.map" not in provider.get_evaluation_dependencies(condition, execution_engine=engine)

    def fails(length, lo, hi, smin, smax):
        low = lo is None or (length > lo if smin else length >= lo)
        high = hi is None or (length < hi if smax else length <= hi)
        return not (low and high)

    for result in results:
        kwargs = result.expectation_config.kwargs
        bounds = (kwargs.get("min_value"), kwargs.get("max_value"), kwargs.get("strict_min", False), kwargs.get("strict_max", False))
        assert result.exception_info.get("raised_exception") in (None, False), result.exception_info
        assert result.result["unexpected_count"] == sum(fails(len(v), *bounds) for v in values if v is not None), bounds


def test_compiled_artifacts_in_plain_engines_fold_as_a_run(spark, tmp_path):
    """The two contracts above compiled and run as a user runs them, outside dc-bridge (a plain Soda
    scan, a plain GX validation), fold as a run with that engine alone (tests/plain_engines.py)."""
    from plain_engines import assert_plain_engines_fold_as_a_run

    frames = {t.model: _frame(spark, t) for t in TABLES}
    for kind, text in (("dcs", DCS_CONTRACT), ("odcs", ODCS_CONTRACT)):
        path = tmp_path / f"{kind}.yaml"
        path.write_text(textwrap.dedent(text), encoding="utf-8")
        models = [m.name for m in load_contract(path).contract.models]
        # the ODCS orders table lacks the contract's `ghost` column (above)
        assert_plain_engines_fold_as_a_run(spark, path, {m: frames[m] for m in models}, tmp_path / kind,
                                           lacking=frozenset({"orders"} if kind == "odcs" else ()))
