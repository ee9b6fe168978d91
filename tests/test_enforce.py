"""The contract enforced inside a pipeline (dc_bridge/enforce, docs/enforcing.md), on real Spark with
planted violations: the split partitions the rows exactly (by id and by a checksum of every column),
quarantines exactly the rows that violate an error-severity row-level check, keeps warning rows valid
and annotated, and counts each check as the native engine's batch verdict does on the same data."""

from __future__ import annotations

import json
import math
import os
import textwrap
from datetime import datetime, timezone

import pytest

import dc_bridge
from dc_bridge.enforce.outputs import OutputError
from dc_bridge.enforce.split import VIOLATIONS_COLUMN, SplitError

NOW = datetime(2024, 6, 1, tzinfo=timezone.utc)

CONTRACT = textwrap.dedent("""\
    apiVersion: v3.0.2
    kind: DataContract
    id: urn:test:enforce
    version: 1.0.0
    status: active
    schema:
      - name: orders
        properties:
          - {name: order_id, logicalType: integer, physicalType: bigint, primaryKey: true}
          - {name: email, logicalType: string, required: true, logicalTypeOptions: {pattern: '^[a-z]+@[a-z]+$'}}
          - {name: status, logicalType: string, enum: [new, paid]}
          - name: amount
            logicalType: number
            physicalType: double
            logicalTypeOptions: {minimum: 0, maximum: 1000}
          - name: customer_id
            logicalType: string
            relationships:
              - {type: foreignKey, to: customers.customer_id}
          - name: note
            logicalType: string
            quality:
              - {id: note_known, metric: invalidValues, arguments: {validValues: [a, b]}, mustBe: 0, severity: warning}
          - {name: region, logicalType: string}
          - {name: line_no, logicalType: integer, physicalType: bigint}
        quality:
          - {id: orders_rows, metric: rowCount, mustBeGreaterOrEqualTo: 1}
          - {id: region_line_dups, metric: duplicateValues, arguments: {properties: [region, line_no]}, mustBe: 0}
          - {id: max_amount, type: sql, query: SELECT MAX(amount) FROM orders, mustBeLessThan: 100000}
      - name: customers
        properties:
          - {name: customer_id, logicalType: string, primaryKey: true}
    """)

SCHEMA = "order_id bigint, email string, status string, amount double, customer_id string, note string, region string, line_no bigint"
NAN = float("nan")
# id -> row; planted violations per row, the error-severity ones make the row quarantined
ROWS = [
    (1, "ann@x", "new", 10.0, "c1", "a", "eu", 1),       # clean
    (2, "bob@x", "paid", 20.0, "c2", "zzz", "eu", 2),    # warning only (note): valid, annotated
    (3, None, "new", 30.0, "c1", "a", "eu", 3),          # email null (required)
    (4, "BAD", "new", 40.0, "c1", "a", "eu", 4),         # email pattern
    (5, "eve@x", "lost", 50.0, "c1", "a", "eu", 5),      # status not in set
    (6, "fay@x", None, None, None, None, None, None),    # nulls only where allowed: clean
    (7, "gus@x", "new", NAN, "c1", "a", "us", 1),        # NaN amount: above the maximum (Spark orders NaN last)
    (8, "hal@x", "new", 2000.0, "c9", "a", "us", 2),     # amount range and orphan customer
    (8, "ian@x", "new", 5.0, "c2", "b", "us", 3),        # order_id 8 repeats: both rows are duplicates
    (10, "jan@x", "new", 5.0, "c2", "a", "ap", 7),       # composite key (ap, 7) repeats
    (11, "kim@x", "new", 5.0, "c2", "a", "ap", 7),
    (12, "lou@x", "new", 5.0, "c2", "a", None, 7),       # a key with a null part is no duplicate
    (13, "max@x", "new", 5.0, "c2", "a", None, 7),
    (None, "ned@x", "new", 5.0, "c2", "a", "sa", 1),     # null primary key: not_null, not a duplicate
]
QUARANTINED = {3, 4, 5, 7, 8, 10, 11, None}
CUSTOMERS = [("c1",), ("c2",), (None,)]


@pytest.fixture(scope="module")
def contract(tmp_path_factory):
    path = tmp_path_factory.mktemp("enforce") / "enforce.odcs.yaml"
    path.write_text(CONTRACT)
    return path


@pytest.fixture(scope="module")
def frames(spark):
    return spark.createDataFrame(ROWS, SCHEMA), spark.createDataFrame(CUSTOMERS, "customer_id string")


def _key(row):
    return (row["order_id"] is None, row["order_id"] or 0, row["email"] or "")


def _checksum(df, columns):
    """A checksum of every column of every row, order-free: the sum of each row's hash."""
    from pyspark.sql import functions as F

    return df.select(F.sum(F.xxhash64(*[F.col(c) for c in columns]).cast("decimal(38,0)")).alias("s")).first()["s"]


# the repeated keys cached first and joined (a table), or counted by a window inside each pass (a stream's micro-batch)
KEYS_IN_PASS = pytest.mark.parametrize("keys_in_pass", [False, True], ids=["keys-cached", "keys-in-pass"])


@KEYS_IN_PASS
def test_the_split_partitions_the_rows_exactly(contract, frames, keys_in_pass):
    orders, customers = frames
    valid, quarantined, verdict = dc_bridge.split(contract, "orders", orders, frames={"customers": customers}, now=NOW,
                                                  keys_in_pass=keys_in_pass)
    assert {r["order_id"] for r in quarantined.collect()} == QUARANTINED
    assert {r["order_id"] for r in valid.collect()} == {1, 2, 6, 12, 13}
    # nothing lost, nothing doubled: ids and a checksum of all source columns
    source = orders.columns
    both = valid.select(*source).unionByName(quarantined.select(*source))
    assert sorted(map(_key, both.collect())) == sorted(map(_key, orders.collect()))
    assert _checksum(both, source) == _checksum(orders, source)
    assert valid.columns == source + [VIOLATIONS_COLUMN] == quarantined.columns


@KEYS_IN_PASS
def test_each_row_lists_every_violated_check(contract, frames, keys_in_pass):
    orders, customers = frames
    valid, quarantined, _ = dc_bridge.split(contract, "orders", orders, frames={"customers": customers}, now=NOW,
                                            keys_in_pass=keys_in_pass)
    listed = {(r["order_id"], r["email"]): {(v["id"], v["kind"], v["severity"]) for v in r[VIOLATIONS_COLUMN]}
              for r in valid.unionByName(quarantined).collect()}
    assert listed[(1, "ann@x")] == set()
    assert listed[(2, "bob@x")] == {("note_known", "in_set", "warning")}
    kinds = {kind for _, kind, _ in listed[(8, "hal@x")]}
    assert kinds == {"value_between", "foreign_key", "unique"}
    assert {kind for _, kind, _ in listed[(10, "jan@x")]} == {"unique_combination"}
    assert {kind for _, kind, _ in listed[(None, "ned@x")]} == {"not_null"}
    assert all(v["reason"] for vs in [r[VIOLATIONS_COLUMN] for r in quarantined.collect()] for v in vs)


@KEYS_IN_PASS
def test_counts_equal_the_batch_verdict(contract, frames, spark, keys_in_pass):
    orders, customers = frames
    split = dc_bridge.split(contract, "orders", orders, frames={"customers": customers}, now=NOW, keys_in_pass=keys_in_pass)
    batch = dc_bridge.run(contract, dataframes={"orders": orders, "customers": customers}, spark=spark,
                          engines=("spark",), samples=False)
    ran = {c.check_id: c for c in batch.checks() if c.model == "orders"}
    split_checks = {c.check_id: c for c in split.verdict.checks()}
    assert set(split_checks) == set(ran)
    for check_id, check in ran.items():
        assert (split_checks[check_id].outcome, split_checks[check_id].observed) == (check.outcome, check.observed) or \
            (check.observed is not None and math.isclose(split_checks[check_id].observed, check.observed)), check_id
        assert split_checks[check_id].scope == "table"
    assert split.verdict.outcome == batch.models[0].outcome == "failed"
    assert split.rows == {"table": len(ROWS)}


def test_refusals_name_what_is_wrong(contract, frames):
    orders, customers = frames
    with pytest.raises(SplitError, match="no model named `payments`"):
        dc_bridge.split(contract, "payments", orders)
    with pytest.raises(SplitError, match="`email`"):
        dc_bridge.split(contract, "orders", orders.drop("email"), frames={"customers": customers})
    with pytest.raises(SplitError, match="frames="):
        dc_bridge.split(contract, "orders", orders)
    with pytest.raises(SplitError, match="already has a column"):
        dc_bridge.split(contract, "orders", orders.withColumn(VIOLATIONS_COLUMN, orders.email), frames={"customers": customers})


def test_a_clean_slice_repeating_a_key_of_history_fails_uniqueness(contract, frames, spark):
    orders, customers = frames
    history = [(1, "ann@x", "new", 10.0, "c1", "a", "eu", 1), (2, "bob@x", "paid", 20.0, "c2", "a", "eu", 2)]
    today = [(2, "cat@x", "new", 5.0, "c1", "a", "us", 9), (3, "dan@x", "new", 5.0, "c2", "a", "us", 8)]
    table = spark.createDataFrame([r + ("old",) for r in history] + [r + ("new",) for r in today], SCHEMA + ", day string")
    split = dc_bridge.split(contract, "orders", table, where="day = 'new'", frames={"customers": customers}, now=NOW)
    valid, quarantined, verdict = split
    assert [r["email"] for r in quarantined.collect()] == ["cat@x"]  # its key 2 occurs in history
    assert sorted(r["email"] for r in valid.collect()) == ["dan@x"]  # only the slice's rows are output
    checks = {c.check_id: c for c in verdict.checks()}
    unique = next(c for c in checks.values() if c.kind == "unique")
    assert (unique.outcome, unique.observed, unique.scope) == ("failed", 1.0, "slice")  # only the slice's row counted
    rows = next(c for c in checks.values() if c.kind == "row_count")
    assert rows.scope == "table" and rows.observed == 4 and "slice 2" in rows.reason
    assert split.rows == {"slice": 2, "table": 4}


def test_a_slice_with_orphans_against_the_whole_referenced_model_fails_the_foreign_key(contract, frames, spark):
    orders, customers = frames
    table = spark.createDataFrame([(1, "ann@x", "new", 1.0, "c1", "a", "eu", 1, "old"),
                                   (2, "bob@x", "new", 1.0, "c7", "a", "eu", 2, "new"),
                                   (3, "cat@x", "new", 1.0, "c2", "a", "eu", 3, "new")], SCHEMA + ", day string")
    valid, quarantined, verdict = dc_bridge.split(contract, "orders", table, where="day = 'new'",
                                                  frames={"customers": customers}, now=NOW)
    assert [r["email"] for r in quarantined.collect()] == ["bob@x"]
    fk = next(c for c in verdict.checks() if c.kind == "foreign_key")
    assert (fk.outcome, fk.observed, fk.scope) == ("failed", 1.0, "slice")


def test_a_slice_filter_on_a_column_the_rows_lack_is_refused(contract, frames):
    orders, customers = frames
    with pytest.raises(SplitError, match="`day`"):
        dc_bridge.split(contract, "orders", orders, where="day = 'new'", frames={"customers": customers})


# --- streaming: a file source read with trigger(availableNow=True), one file per micro-batch

CLEAN = [(1, "ann@x", "new", 1.0, "c1", "a", "eu", 1), (2, "bob@x", "paid", 2.0, "c2", "a", "eu", 2)]
BAD = [(3, "cat@x", "new", 3.0, "c1", "a", "eu", 3), (4, "BAD", "new", 4.0, "c9", "a", "eu", 4)]


def _stream(spark, tmp_path, batches, on_failure, checkpoint=None, **outputs):
    import json as j

    source = tmp_path / "in"
    if not source.exists():
        source.mkdir()
        names = SCHEMA.split(", ")
        for number, rows in enumerate(batches):
            lines = [j.dumps(dict(zip([n.split()[0] for n in names], row))) for row in rows]
            file = source / f"{number:03d}.json"
            file.write_text("\n".join(lines) + "\n")
            # the file source orders files by modification time: one batch per file, in this order
            os.utime(file, (1_700_000_000 + number * 60, 1_700_000_000 + number * 60))
    return (spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1).json(str(source)).writeStream
            .foreachBatch(dc_bridge.streaming.guard(tmp_path / "c.yaml", "orders", on_failure=on_failure,
                                                    frames={"customers": outputs.pop("customers")}, **outputs))
            .option("checkpointLocation", str(checkpoint or tmp_path / "checkpoint")).trigger(availableNow=True).start())


def _ids(spark, path):
    return sorted(r["order_id"] for r in spark.read.parquet(str(path)).collect())


def test_stop_ends_the_query_before_a_bad_batch_reaches_the_sink(spark, tmp_path, frames):
    from pyspark.errors import StreamingQueryException

    (tmp_path / "c.yaml").write_text(CONTRACT)
    query = _stream(spark, tmp_path, [CLEAN, BAD], "stop", sink=str(tmp_path / "sink"), log=str(tmp_path / "log.jsonl"),
                    customers=frames[1])
    with pytest.raises(StreamingQueryException, match=r"batch 1 failed the contract.*orders\.email"):
        query.awaitTermination()
    assert _ids(spark, tmp_path / "sink") == [1, 2]
    lines = [json.loads(line) for line in (tmp_path / "log.jsonl").read_text().splitlines()]
    assert [(r["batch_id"], r["action"], r["outcome"]) for r in lines] == [(0, "written", "passed"), (1, "stopped", "failed")]


def test_quarantine_sends_bad_rows_aside_and_a_restart_writes_nothing_twice(spark, tmp_path, frames):
    (tmp_path / "c.yaml").write_text(CONTRACT)
    outputs = dict(sink=str(tmp_path / "sink"), quarantine=str(tmp_path / "q"), log=str(tmp_path / "log.jsonl"), customers=frames[1])
    _stream(spark, tmp_path, [CLEAN, BAD], "quarantine", **dict(outputs)).awaitTermination()
    assert _ids(spark, tmp_path / "sink") == [1, 2, 3]
    quarantined = spark.read.parquet(str(tmp_path / "q")).collect()
    assert [r["order_id"] for r in quarantined] == [4] and {v["kind"] for v in quarantined[0][VIOLATIONS_COLUMN]} == {"regex", "foreign_key"}
    assert len((tmp_path / "log.jsonl").read_text().splitlines()) == 2
    # the clean batch 0 left no empty file among the quarantined rows, and no staging folder is left anywhere
    assert {p.name.split("-")[2] for p in (tmp_path / "q").glob("part-*")} == {"1"}
    assert {p.name.split("-")[2] for p in (tmp_path / "sink").glob("part-*")} == {"0", "1"}
    assert not list(tmp_path.rglob("_dc_bridge_staging"))
    # the last batch is delivered again: its commit is forgotten, as after a crash before the commit
    for name in ("1", ".1.crc"):
        (tmp_path / "checkpoint" / "commits" / name).unlink(missing_ok=True)
    _stream(spark, tmp_path, [], "quarantine", **dict(outputs)).awaitTermination()
    assert _ids(spark, tmp_path / "sink") == [1, 2, 3]
    assert [r["order_id"] for r in spark.read.parquet(str(tmp_path / "q")).collect()] == [4]
    assert len((tmp_path / "log.jsonl").read_text().splitlines()) == 2
    # and a batch written but not logged (a crash between the two) replaces its own files
    guard = dc_bridge.streaming.guard(tmp_path / "c.yaml", "orders", on_failure="continue", sink=str(tmp_path / "sink"),
                                      log=str(tmp_path / "other.jsonl"), frames={"customers": frames[1]})
    batch = spark.createDataFrame(CLEAN, SCHEMA)
    guard(batch, 0)
    (tmp_path / "other.jsonl").unlink()
    guard(batch, 0)
    assert _ids(spark, tmp_path / "sink") == [1, 2, 3]


def test_a_key_repeated_inside_a_batch_is_quarantined_and_the_streams_setting_is_put_back(spark, tmp_path, frames):
    """A stream's session runs with adaptive execution off (Spark's own rule for a stream's plans); the guard judges a
    batch with it as the caller's session has it (on: a key's repeats counted by a window inside the pass) and puts the
    stream's setting back before the stream plans its next batch."""
    (tmp_path / "c.yaml").write_text(CONTRACT)
    twice = [(5, "dan@x", "new", 1.0, "c1", "a", "eu", 1), (5, "eve@x", "paid", 2.0, "c2", "a", "eu", 2)]
    query = _stream(spark, tmp_path, [CLEAN, twice], "quarantine", sink=str(tmp_path / "sink"), quarantine=str(tmp_path / "q"),
                    log=str(tmp_path / "log.jsonl"), customers=frames[1])
    query.awaitTermination()
    assert _ids(spark, tmp_path / "sink") == [1, 2]
    assert _ids(spark, tmp_path / "q") == [5, 5]
    # each output has files of the batches that sent it rows: none is an empty file
    assert {p.name.split("-")[2] for p in (tmp_path / "sink").glob("part-*")} == {"0"}
    assert {p.name.split("-")[2] for p in (tmp_path / "q").glob("part-*")} == {"1"}
    lines = [json.loads(line) for line in (tmp_path / "log.jsonl").read_text().splitlines()]
    assert [(r["batch_id"], r["outcome"]) for r in lines] == [(0, "passed"), (1, "failed")]
    # around a batch of a stream's session: the caller's setting inside, the stream's own before and after
    from dc_bridge.enforce.streaming import _adaptive

    seen = []

    def around(batch, batch_id):
        seen.append(batch.sparkSession.conf.get("spark.sql.adaptive.enabled"))
        with _adaptive(batch) as on:
            seen.append((on, batch.sparkSession.conf.get("spark.sql.adaptive.enabled")))
        seen.append(batch.sparkSession.conf.get("spark.sql.adaptive.enabled"))

    (spark.readStream.schema(SCHEMA).json(str(tmp_path / "in")).writeStream.foreachBatch(around)
     .option("checkpointLocation", str(tmp_path / "other-checkpoint")).trigger(availableNow=True).start().awaitTermination())
    assert spark.conf.get("spark.sql.adaptive.enabled") == "true"
    assert seen == ["false", (True, "true"), "false"], seen


def test_a_stream_judged_by_gx_or_soda_per_batch_judges_as_the_native_engine(spark, tmp_path, frames):
    """engines=("gx",) and engines=("soda",): each judges every micro-batch, with the native engine's
    outcome and failing checks."""
    from pyspark.errors import StreamingQueryException

    logged = {}
    for engines in (("spark",), ("gx",), ("soda",)):
        folder = tmp_path / engines[0]
        folder.mkdir()
        (folder / "c.yaml").write_text(CONTRACT)
        query = _stream(spark, folder, [CLEAN, BAD], "stop", sink=str(folder / "sink"), log=str(folder / "log.jsonl"),
                        customers=frames[1], engines=engines)
        with pytest.raises(StreamingQueryException, match=r"batch 1 failed the contract"):
            query.awaitTermination()
        assert _ids(spark, folder / "sink") == [1, 2]
        logged[engines[0]] = [json.loads(line) for line in (folder / "log.jsonl").read_text().splitlines()]
    judged = {engine: [(r["batch_id"], r["action"], r["outcome"], sorted(r["failing"])) for r in lines]
              for engine, lines in logged.items()}
    for engine in ("gx", "soda"):
        assert [r["verdict"]["engines"] for r in logged[engine]] == [[engine], [engine]]
        assert judged[engine] == judged["spark"], engine


@pytest.mark.parametrize("format", ["parquet", "orc", "json"])
def test_the_guard_gives_each_quarantined_row_every_violation(spark, tmp_path, contract, frames, format):
    """Under `quarantine`, in each file format: every quarantined row lists the same violations as the split's own
    quarantined rows (a key's repeats counted inside the guard's passes, cached first by the split), the sink holds
    the valid rows with their own columns, and nothing is lost or doubled."""
    from dc_bridge.enforce.split import VIOLATION_TYPE

    orders, customers = frames
    outputs = {name: str(tmp_path / name) for name in ("sink", "q")}
    guard = dc_bridge.streaming.guard(contract, "orders", on_failure="quarantine", sink=outputs["sink"], quarantine=outputs["q"],
                                      log=str(tmp_path / "log.jsonl"), frames={"customers": customers}, format=format)
    guard(orders, 0)
    read = spark.read.format(format)
    sink = read.schema(orders.schema).load(outputs["sink"])
    quarantined = read.schema(f"{SCHEMA}, {VIOLATIONS_COLUMN} {VIOLATION_TYPE}").load(outputs["q"])
    listed = {(r["order_id"], r["email"]): {(v["id"], v["kind"], v["severity"], v["reason"]) for v in r[VIOLATIONS_COLUMN]}
              for r in quarantined.collect()}
    _, expected_rows, _ = dc_bridge.split(contract, "orders", orders, frames={"customers": customers})
    expected = {(r["order_id"], r["email"]): {(v["id"], v["kind"], v["severity"], v["reason"]) for v in r[VIOLATIONS_COLUMN]}
                for r in expected_rows.collect()}
    assert listed == expected
    assert {kind for _, kind, _, _ in listed[(8, "hal@x")]} == {"value_between", "foreign_key", "unique"}
    assert {kind for _, kind, _, _ in listed[(10, "jan@x")]} == {"unique_combination"}
    assert {r["order_id"] for r in sink.collect()} == {1, 2, 6, 12, 13}
    assert sink.columns == orders.columns
    both = sink.unionByName(quarantined.drop(VIOLATIONS_COLUMN))
    assert sorted(map(_key, both.collect())) == sorted(map(_key, orders.collect()))
    assert _checksum(both, orders.columns) == _checksum(orders, orders.columns)
    assert not list(tmp_path.rglob("_dc_bridge_staging"))


# --- `dc-bridge run --quarantine PATH --valid-output PATH`: the split written out, by the real command in process


@pytest.fixture(scope="module")
def parquet_data(frames, tmp_path_factory):
    """The planted rows as the parquet files a run reads (--data)."""
    folder = tmp_path_factory.mktemp("enforce-data")
    orders, customers = frames
    orders.write.parquet(str(folder / "orders.parquet"))
    customers.write.parquet(str(folder / "customers.parquet"))
    return ["--data", f"orders={folder / 'orders.parquet'}:parquet", "--data", f"customers={folder / 'customers.parquet'}:parquet"]


def _cli(*args):
    from click.testing import CliRunner

    from dc_bridge.cli import main

    return CliRunner().invoke(main, ["run", *map(str, args)])


def _left_behind(folder):
    return sorted(p.name for p in folder.iterdir() if ".dc-bridge-" in p.name)


def test_run_quarantine_writes_the_violating_rows_aside_and_the_rest_on(contract, frames, parquet_data, spark, tmp_path):
    orders, _ = frames
    quarantine, valid = tmp_path / "out" / "quarantine", tmp_path / "out" / "valid"
    result = _cli(contract, *parquet_data, "--model", "orders", "--quarantine", quarantine, "--valid-output", valid)
    assert result.exit_code == 1, result.output  # the verdict's: the planted violations fail it
    assert f"5 valid rows written to {valid}, 9 quarantined rows to {quarantine}" in result.output
    written_q, written_v = spark.read.parquet(str(quarantine)), spark.read.parquet(str(valid))
    # exactly the violating rows: by id, the two rows of id 8 and the row without one included
    assert sorted(map(_key, written_q.collect())) == sorted(_key(r) for r in orders.collect() if r["order_id"] in QUARANTINED)
    assert written_v.columns == orders.columns and written_q.columns == orders.columns + [VIOLATIONS_COLUMN]
    # the one write held the source columns alone: the quarantined rows' violations were judged again, each with an error
    assert all(any(v["severity"] == "error" for v in row[VIOLATIONS_COLUMN]) for row in written_q.collect())
    # nothing lost, nothing doubled: sorted ids and a checksum of every column
    both = written_v.unionByName(written_q.select(*orders.columns))
    assert sorted(map(_key, both.collect())) == sorted(map(_key, orders.collect()))
    assert _checksum(both, orders.columns) == _checksum(orders, orders.columns)
    assert _left_behind(tmp_path / "out") == []


def test_run_quarantine_refuses_an_existing_output_and_leaves_it_untouched(contract, parquet_data, spark, tmp_path):
    quarantine, valid = tmp_path / "quarantine", tmp_path / "valid"
    quarantine.mkdir()
    (quarantine / "keep.txt").write_text("mine")
    result = _cli(contract, *parquet_data, "--model", "orders", "--quarantine", quarantine, "--valid-output", valid)
    assert result.exit_code == 2
    assert f"--quarantine {quarantine} exists; nothing was written. Replace it with --overwrite" in result.output
    assert (quarantine / "keep.txt").read_text() == "mine" and not valid.exists()
    # with --overwrite it is replaced, once the new output is complete
    result = _cli(contract, *parquet_data, "--model", "orders", "--quarantine", quarantine, "--valid-output", valid, "--overwrite")
    assert result.exit_code == 1, result.output
    assert not (quarantine / "keep.txt").exists() and {r["order_id"] for r in spark.read.parquet(str(quarantine)).collect()} == QUARANTINED
    assert _left_behind(tmp_path) == []


def test_run_quarantine_refuses_before_spark_what_it_cannot_do(contract, parquet_data, tmp_path):
    outputs = ["--quarantine", tmp_path / "q", "--valid-output", tmp_path / "v"]
    result = _cli(contract, *parquet_data, *outputs)
    assert result.exit_code == 2 and "has 2 models (orders, customers); choose the one whose rows are split with --model NAME" in result.output
    result = _cli(contract, *parquet_data, *outputs, "--model", "payments")
    assert result.exit_code == 2 and "--model payments:" in result.output and "no model named `payments`" in result.output
    result = _cli(contract, *parquet_data, "--model", "orders", "--quarantine", tmp_path / "q")
    assert result.exit_code == 2 and "give --valid-output PATH too" in result.output
    (tmp_path / "a_file").write_text("")
    result = _cli(contract, *parquet_data, "--model", "orders", "--quarantine", tmp_path / "a_file" / "q", "--valid-output", tmp_path / "v")
    assert result.exit_code == 2
    assert f"--quarantine: cannot create {tmp_path / 'a_file' / 'q'}: {tmp_path / 'a_file'} is a file, not a folder" in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a_file"]


def test_a_one_pass_write_judges_read_back_rows_only_from_a_format_that_keeps_every_value(spark, tmp_path):
    """`run --quarantine --valid-output` writes its valid rows' source columns once and judges the quarantined part
    again as read back. JSON keeps a time to the millisecond: read back, two rows whose key repeats only in its
    microseconds would no longer be found among the repeated keys, and their uniqueness violation would be lost.
    Such a format is written by two passes, each quarantined row keeping every violation."""
    from datetime import datetime as dt

    from dc_bridge.enforce.outputs import Output
    from dc_bridge.enforce.split import VIOLATION_TYPE

    (tmp_path / "c.yaml").write_text(textwrap.dedent("""\
        apiVersion: v3.0.2
        kind: DataContract
        id: urn:test:micros
        version: 1.0.0
        status: active
        schema:
          - name: events
            properties:
              - {name: at, logicalType: timestamp, unique: true}
              - {name: code, logicalType: string, required: true}
        """))
    at = dt(2024, 1, 1, 0, 0, 0, 1, tzinfo=timezone.utc)
    rows = spark.createDataFrame([(at, "a"), (at, None), (dt(2024, 1, 2, tzinfo=timezone.utc), "b")], "at timestamp, code string")
    for format in ("parquet", "json"):
        result = dc_bridge.split(tmp_path / "c.yaml", "events", rows)
        folder = tmp_path / format
        try:
            result.write_to({False: Output("--valid-output", str(folder / "valid"), None),
                             True: Output("--quarantine", str(folder / "q"), None)}, format, annotated_valid=False)
        finally:
            result.release()
        quarantined = spark.read.format(format).schema(f"at timestamp, code string, {VIOLATIONS_COLUMN} {VIOLATION_TYPE}").load(str(folder / "q"))
        listed = sorted(sorted(v["kind"] for v in r[VIOLATIONS_COLUMN]) for r in quarantined.collect())
        assert listed == [["not_null", "unique"], ["unique"]], (format, listed)


def test_a_failed_write_leaves_no_output_behind(spark, tmp_path):
    """The second output fails while Spark writes it: the first, already written, is not moved into place either."""
    from pyspark.sql import functions as F

    from dc_bridge.enforce.outputs import Output, OutputError, write_all

    good = spark.range(10)
    failing = spark.range(0, 10, 1, 2).select(F.when(F.col("id") < 7, F.col("id")).otherwise(F.raise_error(F.lit("boom"))).alias("id"))
    with pytest.raises(OutputError, match=r"--quarantine .*/q could not be written \(.*boom.*\); nothing was written"):
        write_all([Output("--valid-output", str(tmp_path / "v"), good), Output("--quarantine", str(tmp_path / "q"), failing)], "parquet")
    assert list(tmp_path.iterdir()) == []


def test_split_write_writes_both_outputs_in_one_pass_with_the_same_verdict(contract, frames, spark, tmp_path):
    """`Split.write`: one Spark job writes every judged row, partitioned by the quarantine flag; its
    two parts are moved into place, and its Observation gives the counts the unpacked split gives."""
    orders, customers = frames
    counted = dc_bridge.split(contract, "orders", orders, frames={"customers": customers}, now=NOW)
    written = dc_bridge.split(contract, "orders", orders, frames={"customers": customers}, now=NOW)
    recounted = written._recounted
    written._recounted = None  # the counts must come from the write's own Observation, not from a pass of their own
    try:
        verdict = written.write(valid=str(tmp_path / "out" / "valid"), quarantined=str(tmp_path / "out" / "q"))
    finally:
        written._recounted = recounted
        written.release()
    valid, quarantined = spark.read.parquet(str(tmp_path / "out" / "valid")), spark.read.parquet(str(tmp_path / "out" / "q"))
    assert {r["order_id"] for r in quarantined.collect()} == QUARANTINED
    assert {r["order_id"] for r in valid.collect()} == {1, 2, 6, 12, 13}
    assert valid.columns == orders.columns + [VIOLATIONS_COLUMN] == quarantined.columns
    both = valid.select(*orders.columns).unionByName(quarantined.select(*orders.columns))
    assert _checksum(both, orders.columns) == _checksum(orders, orders.columns)
    assert [(c.check_id, c.outcome, c.observed) for c in verdict.checks()] == \
        [(c.check_id, c.outcome, c.observed) for c in counted.verdict.checks()]
    assert (written.rows, written.quarantined_rows) == (counted.rows, counted.quarantined_rows) == ({"table": len(ROWS)}, 9)
    assert _left_behind(tmp_path / "out") == []
    # written again to the same paths: refused in the API's own words, the outputs as they were
    with pytest.raises(OutputError, match=r"^valid .* exists; nothing was written\. Replace it with overwrite=True"):
        counted.write(valid=str(tmp_path / "out" / "valid"), quarantined=str(tmp_path / "out" / "q"))
    assert spark.read.parquet(str(tmp_path / "out" / "valid")).count() == 5
    counted.release()
