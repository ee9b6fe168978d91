"""Data is read as it is on disk (issue 13): JSON without invented columns and with its own structure,
JSON arrays and multi-line JSON, CSV headers, parquet folders with evolving schemas, nested element
types in every engine, and read errors that name their root cause.

Each case runs all three engines once and compares with plain PySpark on the same files
(tests/data_reading/, generated once and committed)."""

from __future__ import annotations

import csv
import datetime
import json
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

import dc_bridge
from dc_bridge.cli import main
from dc_bridge.runner.data import DataError, DataLocation, parse_data_option, read_location

HERE = Path(__file__).parent / "data_reading"
ENGINES = ("gx", "soda", "spark")


def _contract(tmp_path: Path, body: str, name: str = "contract.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(body))
    return path


def _outcomes(verdict) -> dict:
    """check id -> (outcome, {engine: outcome})"""
    return {c.check_id: (c.outcome, {e: r.outcome for e, r in c.engines.items()}) for c in verdict.checks()}


def _assert(verdict, expected: dict[str, str], engines=ENGINES):
    got = _outcomes(verdict)
    for check_id, outcome in expected.items():
        assert check_id in got, (check_id, sorted(got))
        overall, per_engine = got[check_id]
        assert overall == outcome, (check_id, got[check_id])
        for engine in engines:
            if engine in per_engine:
                assert per_engine[engine] == outcome, (check_id, engine, got[check_id])


RECORDS = """\
dataContractSpecification: 1.1.0
id: reading
info: {title: reading, version: 1.0.0}
{servers}
models:
  records:
    fields:
      id: {type: integer, required: true, unique: true}
      ts: {type: timestamp, required: true}
      amount: {type: double}
      note: {type: string, required: true}
      address:
        type: object
        fields:
          city: {type: string}
          zip: {type: string}
      tags:
        type: array
        items: {type: string}
      attrs:
        type: map
        keys: {type: string}
        values: {type: long}
"""


def _records_contract(tmp_path, servers=""):
    return _contract(tmp_path, RECORDS.replace("{servers}", servers))


# what the files hold, against the contract above: `note` is absent (not invented), `zip` is a number
# where the contract says string, tags are numbers where it says strings; ids, timestamps, amounts and
# the map fit
RECORD_OUTCOMES = {
    "records.note.exists": "failed", "records.note.required": "failed",
    "records.address.type": "failed", "records.tags.type": "failed", "records.attrs.type": "passed",
    "records.id.type": "passed", "records.id.required": "passed", "records.id.unique": "passed",
    "records.ts.type": "passed", "records.ts.required": "passed", "records.amount.type": "passed",
}


def _reference_json(spark, path, multiline=False):
    return spark.read.option("multiLine", str(multiline).lower()).json(str(path))


def test_json_lines_no_invented_columns_and_nested_structure(spark, tmp_path):
    contract = _records_contract(tmp_path)
    path = HERE / "records.jsonl"
    verdict = dc_bridge.run(contract, spark=spark, engines=ENGINES, data={"records": DataLocation(str(path), "json")}, samples=False)
    _assert(verdict, RECORD_OUTCOMES)
    reference = _reference_json(spark, path)
    assert "note" not in reference.columns and reference.count() == 3
    assert reference.schema["tags"].dataType.simpleString() == "array<bigint>"
    assert reference.schema["address"].dataType.simpleString() == "struct<city:string,zip:bigint>"
    frame = read_location(spark, _model(contract), DataLocation(str(path), "json"))
    assert "note" not in frame.columns
    assert frame.schema["ts"].dataType.simpleString() == "timestamp"  # a JSON string the contract types: converted
    assert frame.schema["id"].dataType.simpleString() == "int"  # a JSON number, narrowed: every value fits
    assert frame.schema["tags"].dataType.simpleString() == "array<bigint>"  # its own structure, not a string
    assert frame.count() == reference.count()
    assert verdict.outcome == "failed" and verdict.exit_code() == 1
    # the reasons name the nested element and the types
    reasons = {c.check_id: c.engines["spark"].error for c in verdict.checks() if "spark" in c.engines}
    assert "`items` is bigint" in reasons["records.tags.type"]
    assert "`fields.zip` is bigint" in reasons["records.address.type"]


def _model(contract_path, name="records"):
    from dc_bridge.contract.reading.load import load_contract

    return load_contract(contract_path).contract.model(name)


def test_json_array_file_with_server_delimiter_array(spark, tmp_path):
    servers = f"servers:\n  local:\n    type: local\n    format: json\n    delimiter: array\n    path: {HERE / 'records_array.json'}\n"
    contract = _records_contract(tmp_path, servers)
    verdict = dc_bridge.run(contract, spark=spark, engines=ENGINES, samples=False)
    _assert(verdict, RECORD_OUTCOMES)
    reference = _reference_json(spark, HERE / "records_array.json", multiline=True)
    assert reference.count() == 3 and reference.where("id IS NULL").count() == 0
    frame = read_location(spark, _model(contract), DataLocation(str(HERE / "records_array.json"), "json", (("multiLine", "true"),)))
    assert sorted(r.id for r in frame.collect()) == sorted(r.id for r in reference.collect()) == [1, 2, 3]


def test_json_array_without_a_delimiter_is_recognised_and_pretty_json_needs_multiline(spark, tmp_path):
    contract = _records_contract(tmp_path)
    model = _model(contract)
    # a local file that starts with `[` is one JSON array
    frame = read_location(spark, model, DataLocation(str(HERE / "records_array.json"), "json"))
    assert frame.count() == 3 and frame.where("id IS NULL").count() == 0
    # a pretty-printed record read as JSON lines is not silently a row of nulls: the message says how to read it
    with pytest.raises(DataError, match=r"not valid JSON; pass --data MODEL=PATH:json,multiLine"):
        read_location(spark, model, DataLocation(str(HERE / "records_pretty.json"), "json"))
    _, location = parse_data_option(f"records={HERE / 'records_pretty.json'}:json,multiLine", tmp_path)
    assert location.options == (("multiLine", "true"),)
    frame = read_location(spark, model, location)
    reference = _reference_json(spark, HERE / "records_pretty.json", multiline=True)
    assert frame.count() == reference.count() == 1
    # a server that says new_line is taken at its word
    from dc_bridge.runner.data import server_location

    servers = f"servers:\n  local:\n    type: local\n    format: json\n    delimiter: new_line\n    path: {HERE / 'records_array.json'}\n"
    loaded = _load(_contract(tmp_path, RECORDS.replace("{servers}", servers), "lines.yaml"))
    assert server_location(loaded, loaded.servers[0], loaded.models[0]).options == (("multiLine", "false"),)


def _load(path):
    from dc_bridge.contract.reading.load import load_contract

    return load_contract(path).contract


def test_data_option_parsing():
    model, location = parse_data_option("m=/d/x.json:json,multiLine,dateFormat=yyyy-MM-dd", Path("."))
    assert (model, location.path, location.format) == ("m", "/d/x.json", "json")
    assert location.options == (("multiLine", "true"), ("dateFormat", "yyyy-MM-dd"))
    assert parse_data_option("m=/d/x.csv", Path("."))[1] == DataLocation("/d/x.csv", "csv")
    with pytest.raises(DataError, match="empty reader option"):
        parse_data_option("m=/d/x.json:json,", Path("."))


def test_json_values_that_do_not_convert_stay_as_on_disk(spark, tmp_path):
    """`yesterday` is no timestamp and 3000000000 is no int: those columns keep the files' types, so
    their type checks fail in every engine instead of the values turning into NULL."""
    contract = _records_contract(tmp_path)
    path = HERE / "bad_values.jsonl"
    verdict = dc_bridge.run(contract, spark=spark, engines=ENGINES, data={"records": DataLocation(str(path), "json")}, samples=False)
    _assert(verdict, {"records.ts.type": "failed", "records.id.type": "failed", "records.ts.required": "passed",
                      "records.id.required": "passed", "records.amount.type": "passed"})
    frame = read_location(spark, _model(contract), DataLocation(str(path), "json"))
    reference = _reference_json(spark, path)
    assert frame.schema["ts"].dataType == reference.schema["ts"].dataType  # string, as in the file
    assert frame.schema["id"].dataType == reference.schema["id"].dataType  # bigint, as in the file
    assert frame.where("ts IS NULL").count() == reference.where("ts IS NULL").count() == 0


CSV_CONTRACT = """\
dataContractSpecification: 1.1.0
id: csv-reading
info: {title: csv, version: 1.0.0}
models:
  prices:
    fields:
      id: {type: integer, required: true}
      amount: {type: double}
      currency: {type: string, required: true}
"""


def test_csv_header_without_a_column_and_text_that_does_not_convert(spark, tmp_path):
    contract = _contract(tmp_path, CSV_CONTRACT)
    path = HERE / "missing_column.csv"
    verdict = dc_bridge.run(contract, spark=spark, engines=ENGINES, data={"prices": DataLocation(str(path), "csv")}, samples=False)
    # `currency` is not in the header: not invented; `amount` holds `x`: stays text, its type check fails
    _assert(verdict, {"prices.currency.exists": "failed", "prices.currency.required": "failed",
                      "prices.amount.type": "failed", "prices.id.type": "passed", "prices.id.required": "passed"})
    reference = spark.read.option("header", "true").csv(str(path))
    frame = read_location(spark, _model(contract, "prices"), DataLocation(str(path), "csv"))
    assert frame.columns == reference.columns == ["id", "amount"]
    assert [r.amount for r in frame.orderBy("id").collect()] == [r.amount for r in reference.orderBy("id").collect()] == ["12.5", "x", None]


EVOLVING = """\
dataContractSpecification: 1.1.0
id: evolving
info: {title: evolving, version: 1.0.0}
models:
  items:
    fields:
      id: {type: long, required: true, unique: true}
      name: {type: string, required: true}
      legacy: {type: string}
      discount: {type: integer, minimum: 6}
"""


@pytest.mark.parametrize("path", ["evolving", "evolving/*.parquet"])
def test_parquet_folder_and_glob_merge_schemas(spark, tmp_path, path):
    contract = _contract(tmp_path, EVOLVING)
    location = str(HERE / path)
    verdict = dc_bridge.run(contract, spark=spark, engines=ENGINES, data={"items": DataLocation(location, "parquet")}, samples=False)
    reference = spark.read.option("mergeSchema", "true").parquet(location)
    assert set(reference.columns) == {"id", "name", "legacy", "discount"} and reference.count() == 4
    nulls = reference.where("name IS NULL").count()
    below = reference.where("discount < 6").count()
    assert (nulls, below) == (1, 1)
    _assert(verdict, {"items.legacy.exists": "passed", "items.discount.exists": "passed", "items.legacy.type": "passed",
                      "items.discount.type": "passed", "items.name.required": "failed", "items.discount.range": "failed",
                      "items.id.unique": "passed"})
    counts = {c.check_id: {e: r.unexpected_count for e, r in c.engines.items()} for c in verdict.checks()}
    assert set(counts["items.name.required"].values()) == {nulls}
    assert set(counts["items.discount.range"].values()) == {below}


def test_parquet_files_with_incompatible_types_say_so(spark, tmp_path):
    contract = _contract(tmp_path, EVOLVING)
    with pytest.raises(DataError) as caught:
        read_location(spark, _model(contract, "items"), DataLocation(str(HERE / "incompatible"), "parquet"))
    message = str(caught.value)
    assert "model `items`" in message and str(HERE / "incompatible") in message
    assert 'Failed to merge incompatible data types "BIGINT" and "STRING"' in message
    assert "incompatible types" in message and "o" not in message.split(":")[0][-3:]
    assert "An error occurred while calling" not in message


NESTED = """\
dataContractSpecification: 1.1.0
id: nested
info: {title: nested, version: 1.0.0}
models:
  nested:
    fields:
      id: {type: integer}
      numbers:
        type: array
        items: {type: string}
      numbers_exact:
        type: array
        config: {sparkType: "array<bigint>"}
      address:
        type: object
        fields:
          city: {type: string}
          zip: {type: string}
      address_ok:
        type: object
        fields:
          city: {type: string}
          zip: {type: integer}
      address_missing:
        type: object
        fields:
          street: {type: string}
      attrs:
        type: map
        keys: {type: string}
        values: {type: string}
      lines:
        type: array
        items:
          type: object
          fields:
            sku: {type: long}
            qty: {type: integer}
      lines_bad:
        type: array
        items:
          type: object
          fields:
            sku: {type: string}
      not_array:
        type: array
        items: {type: string}
"""


def test_nested_element_types_in_every_engine(spark, tmp_path):
    contract = _contract(tmp_path, NESTED)
    df = spark.read.parquet(str(HERE / "nested.parquet")).selectExpr(
        "id", "numbers", "numbers AS numbers_exact", "address", "address AS address_ok", "address AS address_missing",
        "attrs", "lines", "lines AS lines_bad", "CAST(id AS STRING) AS not_array")
    assert df.schema["numbers"].dataType.simpleString() == "array<bigint>"
    verdict = dc_bridge.run(contract, dataframes={"nested": df}, spark=spark, engines=ENGINES, samples=False)
    _assert(verdict, {
        "nested.numbers.type": "failed",          # array<bigint>, items must be strings
        "nested.numbers_exact.type": "passed",    # the exact type matches
        "nested.address.type": "failed",          # zip is int, the contract says string
        "nested.address_ok.type": "passed",
        "nested.address_missing.type": "failed",  # no field `street`
        "nested.attrs.type": "failed",            # map values are int
        "nested.lines.type": "passed",            # items' struct fields fit (sku bigint: long; qty int: integer)
        "nested.lines_bad.type": "failed",        # items.fields.sku is bigint
        "nested.not_array.type": "failed",        # a string where an array is expected
    })
    reasons = {c.check_id: c.engines["spark"].error for c in verdict.checks() if "spark" in c.engines}
    assert reasons["nested.address_missing.type"].startswith("`fields.street` is not in the data")
    assert reasons["nested.lines_bad.type"] == "`items.fields.sku` is bigint; the contract allows string or varchar or char"


def test_nested_types_from_odcs_items_and_properties(spark, tmp_path):
    contract = _contract(tmp_path, """\
        apiVersion: v3.0.2
        kind: DataContract
        id: nested-odcs
        version: 1.0.0
        status: active
        schema:
          - name: nested
            properties:
              - name: numbers
                logicalType: array
                items: {logicalType: string}
              - name: address
                logicalType: object
                properties:
                  - {name: city, logicalType: string}
                  - {name: zip, logicalType: integer}
              - name: lines
                logicalType: array
                items:
                  logicalType: object
                  properties:
                    - {name: sku, logicalType: string}
        """)
    df = spark.read.parquet(str(HERE / "nested.parquet"))
    verdict = dc_bridge.run(contract, dataframes={"nested": df}, spark=spark, engines=ENGINES, samples=False)
    _assert(verdict, {"nested.numbers.type": "failed", "nested.address.type": "passed", "nested.lines.type": "failed"})


def test_delta_without_its_package_says_how_to_add_it(spark, tmp_path):
    contract = _contract(tmp_path, EVOLVING)
    with pytest.raises(DataError) as caught:
        read_location(spark, _model(contract, "items"), DataLocation(str(HERE / "evolving"), "delta"))
    message = str(caught.value)
    assert "model `items`: cannot read delta data at" in message
    assert "DATA_SOURCE_NOT_FOUND" in message and "spark.jars.packages=io.delta:delta-spark" in message
    assert "An error occurred while calling" not in message


def test_cli_exits_2_on_unreadable_data(spark, tmp_path):
    contract = _contract(tmp_path, EVOLVING)
    result = CliRunner().invoke(main, ["run", str(contract), "--data", f"items={HERE / 'incompatible'}:parquet", "--engines", "spark"],
                                catch_exceptions=False)
    assert result.exit_code == 2, result.output
    assert "incompatible data types" in result.output and "An error occurred while calling" not in result.output
    result = CliRunner().invoke(main, ["run", str(contract), "--data", f"items={tmp_path / 'nothing'}:parquet", "--engines", "spark"],
                                catch_exceptions=False)
    assert result.exit_code == 2 and "PATH_NOT_FOUND" in result.output and "Check the path" in result.output


# Issue 24, class 4: the same values written as CSV, JSON Lines and parquet get one verdict. A quoted
# line break in CSV is one value (not a second record); a zoned time is not a zone-less timestamp and a
# timestamp is not a date, whether a typed format holds it or text does; a boolean's text is true/false.
SAME_VALUES = """\
dataContractSpecification: 1.1.0
id: same-values
info: {title: same values, version: 1.0.0}
models:
  events:
    fields:
      id: {type: integer, required: true, unique: true}
      note: {type: string, maxLength: 10}
      local_time: {type: timestamp_ntz}
      day: {type: date}
      at: {type: timestamp}
      flag: {type: boolean}
      amount: {type: double}
"""
SAME_ROWS = [  # (id, note, local_time and day: zoned instants, at: a zoned instant, flag, amount)
    (1, "line one\nline 2", "2024-03-01T10:00:00+02:00", "2024-03-01T00:30:00Z", "2024-03-01T10:00:00+02:00", True, 1.5),
    (2, "short", "2024-03-02T10:00:00Z", "2024-03-02T23:59:59Z", "2024-03-02T10:00:00Z", False, -0.25),
]


def _write_same_values(spark, tmp_path: Path) -> dict[str, DataLocation]:
    import csv
    import datetime as dt
    import json

    from pyspark.sql import types as T

    def instant(text):
        return dt.datetime.fromisoformat(text.replace("Z", "+00:00"))

    (tmp_path / "csv").mkdir()
    with open(tmp_path / "csv" / "events.csv", "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "note", "local_time", "day", "at", "flag", "amount"])
        for row in SAME_ROWS:
            writer.writerow([*row[:5], str(row[5]).lower(), row[6]])
    with open(tmp_path / "events.jsonl", "w") as handle:
        for row in SAME_ROWS:
            handle.write(json.dumps(dict(zip(["id", "note", "local_time", "day", "at", "flag", "amount"], row))) + "\n")
    schema = T.StructType([T.StructField("id", T.IntegerType()), T.StructField("note", T.StringType()),
                           T.StructField("local_time", T.TimestampType()), T.StructField("day", T.TimestampType()),
                           T.StructField("at", T.TimestampType()), T.StructField("flag", T.BooleanType()),
                           T.StructField("amount", T.DoubleType())])
    rows = [(r[0], r[1], instant(r[2]), instant(r[3]), instant(r[4]), r[5], r[6]) for r in SAME_ROWS]
    spark.createDataFrame(rows, schema).coalesce(1).write.parquet(str(tmp_path / "parquet"))
    return {"csv": DataLocation(str(tmp_path / "csv"), "csv"), "json": DataLocation(str(tmp_path / "events.jsonl"), "json"),
            "parquet": DataLocation(str(tmp_path / "parquet"), "parquet")}


def test_the_same_values_get_one_verdict_in_every_format(spark, tmp_path):
    contract = _contract(tmp_path, SAME_VALUES)
    verdicts = {fmt: dc_bridge.run(contract, spark=spark, engines=ENGINES, data={"events": location}, samples=False)
                for fmt, location in _write_same_values(spark, tmp_path).items()}
    outcomes = {fmt: {c.check_id: c.outcome for c in v.checks()} for fmt, v in verdicts.items()}
    assert outcomes["csv"] == outcomes["json"] == outcomes["parquet"], outcomes
    assert {v.exit_code() for v in verdicts.values()} == {1}
    for verdict in verdicts.values():
        _assert(verdict, {"events.note.length": "failed",   # 15 characters, one of them a line break
                          "events.local_time.type": "failed",  # zoned instants, not zone-less times
                          "events.day.type": "failed",         # timestamps, not dates
                          "events.at.type": "passed", "events.flag.type": "passed", "events.amount.type": "passed",
                          "events.id.type": "passed", "events.id.unique": "passed"})
    counts = {fmt: {c.check_id: c.engines["spark"].unexpected_count for c in v.checks()} for fmt, v in verdicts.items()}
    assert counts["csv"]["events.note.length"] == counts["parquet"]["events.note.length"] == 1


@pytest.mark.parametrize("text, converts", [
    ("true", True), ("FALSE", True), ("yes", False), ("1", False), ("t", False), (" true", False)])
def test_boolean_text_is_true_or_false(spark, tmp_path, text, converts):
    contract = _contract(tmp_path, SAME_VALUES)
    (tmp_path / "flags.csv").write_text(f"id,flag\n1,{text}\n")
    frame = read_location(spark, _model(contract, "events"), DataLocation(str(tmp_path / "flags.csv"), "csv"))
    assert frame.schema["flag"].dataType.simpleString() == ("boolean" if converts else "string")


@pytest.mark.parametrize("column, text, converts", [
    ("id", "12", True), ("id", " 12", False), ("id", "12.0", False), ("amount", "1e3", True), ("amount", "NaN", True),
    ("amount", "0x10", False), ("day", "2024-01-01", True), ("day", "2024-01-01T10:00:00", False),
    ("day", "20240101", False), ("local_time", "2024-01-01 10:00:00", True), ("local_time", "2024-01-01T10:00:00Z", False),
    ("local_time", "2024-01-01T10:00:00 Europe/Paris", False), ("at", "2024-01-01T10:00:00", True),
    ("at", "2024-01-01T10:00:00.123+05:30", True), ("at", "2024-01-01", False)])
def test_text_converts_only_from_its_types_form_in_csv_and_json(spark, tmp_path, column, text, converts):
    """The text rule (runner/data.py TEXT_FORMS) is one rule: CSV text and JSON strings alike."""
    contract = _contract(tmp_path, SAME_VALUES)
    wanted = {"id": "int", "amount": "double", "day": "date", "local_time": "timestamp_ntz", "at": "timestamp"}[column]
    (tmp_path / "one.csv").write_text(f'x,{column}\n1,"{text}"\n')
    frame = read_location(spark, _model(contract, "events"), DataLocation(str(tmp_path / "one.csv"), "csv"))
    assert frame.schema[column].dataType.simpleString() == (wanted if converts else "string")
    if wanted in ("date", "timestamp_ntz", "timestamp"):  # JSON has these as strings: the same rule
        (tmp_path / "one.jsonl").write_text('{"x": 1, "%s": "%s"}\n' % (column, text))
        frame = read_location(spark, _model(contract, "events"), DataLocation(str(tmp_path / "one.jsonl"), "json"))
        assert frame.schema[column].dataType.simpleString() == (wanted if converts else "string")


def test_csv_folder_with_different_headers_reads_like_parquet(spark, tmp_path):
    """Files added a column and reordered the others: read file by file, joined by name, like parquet's
    mergeSchema and like JSON; a column a file lacks is null in its rows."""
    contract = _contract(tmp_path, SAME_VALUES)
    folder = tmp_path / "csv"
    folder.mkdir()
    (folder / "a.csv").write_text("id,note\n1,first\n")
    (folder / "b.csv").write_text("note,flag,id\nsecond,true,2\nthird is too long,false,3\n")
    (tmp_path / "json").mkdir()
    (tmp_path / "json" / "a.jsonl").write_text('{"id": 1, "note": "first"}\n')
    (tmp_path / "json" / "b.jsonl").write_text('{"note": "second", "flag": true, "id": 2}\n{"note": "third is too long", "flag": false, "id": 3}\n')
    verdicts = {fmt: dc_bridge.run(contract, spark=spark, engines=ENGINES, samples=False,
                                   data={"events": DataLocation(str(tmp_path / fmt), fmt)}) for fmt in ("csv", "json")}
    outcomes = {fmt: {c.check_id: c.outcome for c in v.checks()} for fmt, v in verdicts.items()}
    assert outcomes["csv"] == outcomes["json"], outcomes
    _assert(verdicts["csv"], {"events.flag.type": "passed", "events.id.unique": "passed", "events.note.length": "failed",
                              "events.id.type": "passed"})
    frame = read_location(spark, _model(contract, "events"), DataLocation(str(folder), "csv"))
    assert sorted((r.id, r.note, r.flag) for r in frame.collect()) == [
        (1, "first", None), (2, "second", True), (3, "third is too long", False)]


TEXT_ONLY = """\
dataContractSpecification: 1.1.0
id: text-only
info: {title: text only, version: 1.0.0}
models:
  notes:
    fields:
      code: {type: string, required: true}
      note: {type: string}
"""


def _last_ids(spark) -> tuple[int, int]:
    """The newest Spark SQL execution's and Spark job's ids (-1 before any): what a step started, by the difference."""
    listed = spark._jsparkSession.sharedState().statusStore().executionsList()
    jobs = spark.sparkContext._jsc.sc().statusStore().jobsList(None)
    return (max((listed.apply(i).executionId() for i in range(listed.size())), default=-1),
            max((jobs.apply(i).jobId() for i in range(jobs.size())), default=-1))


def test_a_text_only_csv_is_read_in_one_pass_over_a_folder_and_none_for_one_file(spark, tmp_path):
    """A contract that types no column of a CSV: a folder's files are read in one pass that holds each header to the
    first file's (different headers joined by name); one local file has no other header, and its plain header is read
    without Spark: no job at all until the data is used (a fleet of small CSV models paid two Spark jobs per model)."""
    contract = _contract(tmp_path, TEXT_ONLY)
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.csv").write_text("code,note\nA1,first\n")
    (folder / "b.csv").write_text("note,code\nsecond,B2\n")
    frame = read_location(spark, _model(contract, "notes"), DataLocation(str(folder), "csv"))
    assert sorted((r.code, r.note) for r in frame.collect()) == [("A1", "first"), ("B2", "second")]
    before = _last_ids(spark)
    frame = read_location(spark, _model(contract, "notes"), DataLocation(str(folder / "a.csv"), "csv"))
    assert _last_ids(spark) == before, "one file's read started Spark work"
    assert frame.columns == ["code", "note"]
    assert [(r.code, r.note) for r in frame.collect()] == [("A1", "first")]


# header lines (bytes): plain ones, read without Spark; those Spark renames or reads otherwise (quotes, escapes, a BOM,
# empty, padded or repeated names, CR line ends, no line end, not ASCII), left to Spark's own reading as before
PLAIN = [b"code,note\n", b"code,n o t e,#x\n"]
LEFT_TO_SPARK = [b"code,note\r\n", "c\u00f6de,note\n".encode(), b"code,\n", b"code,,note\n", b" code,note\n", b"code,Code\n",
                 b"code,code\n", b'"co,de",note\n', b'"code","note"\n', b"co\\de,note\n", "\ufeffcode,note\n".encode(),
                 b"code,note\rA1,first\r", b"code,note", b"\xffcode,note\n"]


def test_a_csv_header_is_read_without_spark_only_where_plain_and_names_the_columns_as_spark_does(spark, tmp_path):
    from dc_bridge.runner.data import _plain_header

    contract = _contract(tmp_path, TEXT_ONLY)
    for index, header in enumerate(LEFT_TO_SPARK):
        path = tmp_path / f"left{index}.csv"
        path.write_bytes(header + (b"A1,first\n" if header.endswith(b"\n") else b""))
        assert _plain_header(str(path), {}) is None, header
    for index, header in enumerate(PLAIN):
        path = tmp_path / f"plain{index}.csv"
        path.write_bytes(header + b"A1,first\n")
        assert _plain_header(str(path), {}) is not None and _plain_header(str(path), {"sep": ","}) is None
        frame = read_location(spark, _model(contract, "notes"), DataLocation(str(path), "csv"))
        reference = spark.read.option("header", "true").option("multiLine", "true").csv(str(path))
        assert frame.columns == reference.columns, header
        assert frame.collect() == reference.collect(), header


def test_parquet_folder_mixing_number_widths_reads_like_json(spark, tmp_path):
    """int in one file, bigint in another (and float and double): Spark's mergeSchema refuses them, JSON
    holding the same numbers reads them; read at the wider type. A number beside a string still fails
    (test_parquet_files_with_incompatible_types_say_so)."""
    contract = _contract(tmp_path, EVOLVING)
    folder = tmp_path / "items"
    spark.sql("SELECT CAST(1 AS INT) AS id, 'a' AS name, CAST(7 AS INT) AS discount, array(CAST(1 AS INT)) AS tags, "
              "CAST(1.5 AS FLOAT) AS ratio").write.parquet(str(folder / "part=1"))
    spark.sql("SELECT CAST(2 AS BIGINT) AS id, 'b' AS name, CAST(5 AS BIGINT) AS discount, array(CAST(2 AS BIGINT)) AS tags, "
              "CAST(2.5 AS DOUBLE) AS ratio").write.parquet(str(folder / "part=2"))
    frame = read_location(spark, _model(contract, "items"), DataLocation(str(folder), "parquet"))
    assert {f.name: f.dataType.simpleString() for f in frame.schema.fields} == {
        "id": "bigint", "name": "string", "discount": "bigint", "tags": "array<bigint>", "ratio": "double", "part": "int"}
    assert sorted(r.id for r in frame.collect()) == [1, 2]
    verdict = dc_bridge.run(contract, spark=spark, engines=ENGINES, samples=False, data={"items": DataLocation(str(folder), "parquet")})
    _assert(verdict, {"items.id.type": "passed", "items.id.unique": "passed", "items.discount.type": "failed",
                      "items.discount.range": "failed"})


# Issue 24, class 5: a type written two ways is checked both ways. The physical type was compared and the
# logical one never, so `string` stored as INT64 passed on a bigint column (datacontract-cli fails it).
TWO_TYPES = """\
apiVersion: v3.0.2
kind: DataContract
id: types-two-ways
version: 1.0.0
status: active
schema:
  - name: t
    properties:
      - {name: id, logicalType: string, physicalType: INT64}
      - name: tags
        logicalType: array
        items: {logicalType: string, physicalType: int64}
      - name: listed
        logicalType: array
        physicalType: list<int64>
        items: {logicalType: number}
      - {name: wide, logicalType: integer, physicalType: BIGINT}
      - {name: oracle, logicalType: integer, physicalType: NUMBER(10)}
      - {name: price, logicalType: number, physicalType: "decimal(10, 2)"}
"""


def test_logical_and_physical_types_are_both_checked(spark, tmp_path):
    from dc_bridge.contract.lint import lint_file

    contract = _contract(tmp_path, TWO_TYPES)
    findings = {(f.code, f.path.rsplit(".", 1)[0]) for f in lint_file(contract).findings if f.code in ("DCB113", "DCB114")}
    assert findings == {("DCB113", "schema[0].properties[0]"), ("DCB113", "schema[0].properties[1].items"),
                        ("DCB114", "schema[0].properties[2]")}
    df = spark.sql("SELECT CAST(1 AS BIGINT) AS id, array(CAST(1 AS BIGINT)) AS tags, array(CAST(1 AS BIGINT)) AS listed, "
                   "CAST(1 AS BIGINT) AS wide, CAST(1 AS DECIMAL(10,0)) AS oracle, CAST(1 AS DECIMAL(10,2)) AS price")
    verdict = dc_bridge.run(contract, dataframes={"t": df}, spark=spark, engines=ENGINES, samples=False)
    _assert(verdict, {"t.id.type": "failed", "t.tags.type": "failed",      # contradictions: no column is both
                      "t.listed.type": "passed",                           # physical not checked (DCB114), logical is
                      "t.wide.type": "passed", "t.oracle.type": "passed",  # a width the logical type leaves open
                      "t.price.type": "passed"})
    reasons = {c.check_id: c.engines["spark"].error for c in verdict.checks() if "spark" in c.engines}
    assert reasons["t.id.type"] == "the column is bigint; the contract allows string or varchar or char"
    assert reasons["t.tags.type"] == "`items` is bigint; the contract allows string or varchar or char"


# One reading rule per format (issue 37): the same rows as csv, json and parquet, each read as a single file, a
# folder and a glob, flat and with a nested field, in three shapes, get one verdict per shape whatever the format
# and the layout. One run checks every combination (a model each).
# shape -> the rows of its two files (a, b), each file's columns in its own order. `differing`: the second file
# orders its columns differently and adds one the first lacks; `bad`: an id that is not a number.
SHAPES = {
    "same": ([{"id": 1, "name": "a", "extra": "x", "info": {"n": 5, "day": "2024-01-05"}}, {"id": 2, "name": "b", "extra": "y", "info": {"n": 6, "day": "2024-01-06"}}],
             [{"id": 3, "name": "c", "extra": "z", "info": {"n": 7, "day": "2024-01-07"}}]),
    "differing": ([{"id": 1, "name": "a", "info": {"n": 5, "day": "2024-01-05"}}, {"id": 2, "name": "b", "info": {"n": 6, "day": "2024-01-06"}}],
                  [{"extra": "z", "info": {"n": 7, "day": "2024-01-07"}, "name": "c", "id": 3}]),
    "bad": ([{"id": "x1", "name": "a", "extra": "x", "info": {"n": 5, "day": "2024-01-05"}}], [{"id": "x2", "name": "b", "extra": "y", "info": {"n": 6, "day": "2024-01-06"}}]),
}
# shape -> the verdict of its model, and the checks that fail, the same in every format and layout
EXPECTED = {"same": ("passed", set()), "differing": ("passed", set()), "bad": ("failed", {"id.type"})}
FORMATS = ("csv", "json", "parquet")
LAYOUTS = ("file", "folder", "glob")


def _write_shape(spark, fmt: str, rows: list[dict], path: Path) -> None:
    if fmt == "csv":  # CSV has no nested values: the flat columns only
        columns = [c for c in rows[0] if c != "info"]
        with open(path, "w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, columns)
            writer.writeheader()
            writer.writerows({c: r[c] for c in columns} for r in rows)
    elif fmt == "json":
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    else:  # parquet as a writer with the contract's types writes it: id and info.n int32, info.day a date
        id_type = "string" if isinstance(rows[0]["id"], str) else "int"
        types = {"id": id_type, "name": "string", "extra": "string", "info": "struct<n:int,day:date>"}
        schema = ", ".join(f"{c} {types[c]}" for c in rows[0])
        values = [tuple((r[c]["n"], datetime.date.fromisoformat(r[c]["day"])) if c == "info" else r[c] for c in rows[0]) for r in rows]
        folder = path.with_suffix(".tmp")
        spark.createDataFrame(values, schema).coalesce(1).write.parquet(str(folder))
        next(folder.glob("part-*.parquet")).rename(path)


def _shape_model(fmt: str, typed: bool) -> str:
    """A model of the table's columns; `typed` False: no column with a type to convert to (CSV's text is read as is)."""
    nested = "" if fmt == "csv" or not typed else "      info:\n        type: object\n        fields:\n          n: {type: integer}\n          day: {type: date}\n"
    return (f"    fields:\n      id: {{{'type: integer, ' if typed else ''}required: true, unique: true}}\n"
            "      name: {type: string, required: true}\n      extra: {type: string}\n" + nested)


@pytest.fixture(scope="module")
def shapes_table(spark, tmp_path_factory):
    """model name -> (its shape, its location): every format x layout x shape, and the differing shape again for
    a contract that types no column (`_text`)."""
    root = tmp_path_factory.mktemp("reading_table")
    found = {}
    for fmt in FORMATS:
        for shape, (first, second) in SHAPES.items():
            folder = root / f"{fmt}_{shape}"
            folder.mkdir()
            _write_shape(spark, fmt, first, folder / f"a.{fmt}")
            _write_shape(spark, fmt, second, folder / f"b.{fmt}")
            (folder / "README.txt").write_text("not data: the glob leaves it out, so the folder layout has its own copy\n")
            only = root / f"{fmt}_{shape}_folder"
            only.mkdir()
            for name in (f"a.{fmt}", f"b.{fmt}"):
                (only / name).write_bytes((folder / name).read_bytes())
            paths = {"file": folder / f"b.{fmt}", "folder": only, "glob": folder / f"*.{fmt}"}
            for layout in LAYOUTS:
                found[f"{fmt}_{layout}_{shape}"] = (shape, DataLocation(str(paths[layout]), fmt))
                if shape == "differing":  # a contract that types no column: nothing to convert, the same verdict
                    found[f"{fmt}_{layout}_{shape}_text"] = (shape, DataLocation(str(paths[layout]), fmt))
    return found


def test_one_verdict_per_shape_in_every_format_and_layout(spark, tmp_path, shapes_table):
    models = "".join(f"  {name}:\n{_shape_model(location.format, not name.endswith('_text'))}" for name, (_, location) in shapes_table.items())
    contract = tmp_path / "table.yaml"
    contract.write_text("dataContractSpecification: 1.1.0\nid: table\ninfo: {title: table, version: 1.0.0}\nmodels:\n" + models)
    verdict = dc_bridge.run(contract, spark=spark, data={name: location for name, (_, location) in shapes_table.items()},
                            engines=("gx", "soda", "spark"), samples=False)
    got = {}
    for model in verdict.models:
        failed = {c.check_id.split(".", 1)[1] for c in model.checks if c.outcome in ("failed", "error")}
        engines = {e for c in model.checks for e, r in c.engines.items() if r.outcome != c.outcome}
        got[model.name] = (model.outcome, failed, engines)
    expected = {name: (*EXPECTED[shape], set()) for name, (shape, _) in shapes_table.items()}
    assert got == expected
    assert all("Py4J" not in (c.reason or "") and "\tat " not in (c.reason or "") for c in verdict.checks())


def test_a_nested_json_value_that_does_not_convert_leaves_its_column_as_inferred(spark, tmp_path):
    """The rule's other side, on the reader alone: one nested number beyond the declared width, or one date
    text that is a timestamp, and the column keeps JSON's inferred type (its `type` check fails), no value changed."""
    from dc_bridge.contract.reading.load import load_contract

    (tmp_path / "a.json").write_text('{"info": {"n": 5, "day": "2024-01-02"}, "other": {"n": 1, "day": "2024-01-02"}}\n'
                                     '{"info": {"n": 3000000000, "day": "2024-01-02T10:00:00"}, "other": {"n": 2, "day": "2024-01-03"}}\n')
    contract = tmp_path / "c.yaml"
    fields = "type: object\n        fields:\n          n: {type: integer}\n          day: {type: date}"
    contract.write_text(f"dataContractSpecification: 1.1.0\nid: c\ninfo: {{title: c, version: 1.0.0}}\nmodels:\n  a:\n    fields:\n"
                        f"      info:\n        {fields}\n      other:\n        {fields}\n")
    frame = read_location(spark, load_contract(str(contract)).contract.models[0], DataLocation(str(tmp_path / "a.json"), "json"))
    assert frame.schema["info"].dataType.simpleString() == "struct<day:string,n:bigint>"
    assert frame.schema["other"].dataType.simpleString() == "struct<day:date,n:int>"
    assert [r.info.n for r in frame.collect()] == [5, 3000000000]
