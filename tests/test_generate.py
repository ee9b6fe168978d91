"""`dc-bridge init --from SOURCE --out FILE` and `contract_from_dataframe`: contracts generated from a parquet
folder, a Spark catalog table and an Iceberg table (real pyiceberg SQL catalog), each linting clean and, for
the data Spark reads, passing `run` and `drift` on that same data; `--merge` (explicit keys win, none lost);
`--profile` on planted data, its evidence against counts taken from the rows in plain Python.
"""

from __future__ import annotations

import datetime
import decimal
import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from dc_bridge.cli import main
from dc_bridge.contract.lint import lint_file
from dc_bridge.generate import contract_from_dataframe
from dc_bridge.generate.merge import lost_keys, merge

NESTED = ("id bigint, name string, tags array<string>, scores map<string,double>, "
          "address struct<city:string,zip:int,geo:struct<lat:double,lon:double>>, "
          "orders array<struct<order_id:string,amount:decimal(10,2)>>, day date, at timestamp, flag boolean")


def nested_rows(count: int = 20):
    return [(i, f"n{i}", ["a", "b"] if i % 2 else None, {"k": float(i)}, (f"city{i % 3}", i % 5, (1.0, 2.0)),
             [(f"o{i}", decimal.Decimal("1.50"))], datetime.date(2024, 1, 1 + i % 20), datetime.datetime(2024, 1, 1, i % 24),
             i % 2 == 0) for i in range(count)]


@pytest.fixture(scope="module")
def nested_parquet(spark, tmp_path_factory):
    path = tmp_path_factory.mktemp("generate") / "customers.parquet"
    spark.createDataFrame(nested_rows(), NESTED).coalesce(1).write.parquet(str(path))
    return path


def invoke(*args: str):
    return CliRunner().invoke(main, list(args))


def lint_errors(path: Path) -> list[str]:
    return [f"{f.code} {f.path}: {f.message}" for f in lint_file(str(path)).findings if f.level in ("error", "warning")]


def test_from_a_parquet_folder_with_nested_types_lints_clean_and_run_passes(tmp_path, nested_parquet):
    out = tmp_path / "customers.yaml"
    result = invoke("init", "--from", str(nested_parquet), "--out", str(out), "--version", "2.1.0", "--name", "Customers")
    assert result.exit_code == 0, result.output
    assert result.output.strip().endswith("1 model(s), 9 top-level field(s); lint: clean")
    assert lint_errors(out) == []
    document = yaml.safe_load(out.read_text(encoding="utf-8"))
    assert (document["apiVersion"], document["id"], document["name"], document["version"]) == ("v3.1.0", "Customers", "Customers", "2.1.0")
    properties = {p["name"]: p for p in document["schema"][0]["properties"]}
    assert properties["id"] == {"name": "id", "logicalType": "integer", "physicalType": "bigint"}
    assert properties["scores"] == {"name": "scores", "physicalType": "map<string,double>"}
    assert properties["tags"]["items"] == {"logicalType": "string", "physicalType": "string"}
    geo = properties["address"]["properties"][2]
    assert geo["name"] == "geo" and [p["name"] for p in geo["properties"]] == ["lat", "lon"]
    assert properties["orders"]["items"]["properties"][1] == {"name": "amount", "logicalType": "number", "physicalType": "decimal(10,2)"}
    run = invoke("run", str(out), "--data", f"customers={nested_parquet}", "--output", "json")
    assert run.exit_code == 0, run.output
    assert json.loads(run.output[run.output.index("{"):])["outcome"] == "passed"
    drift = invoke("drift", str(out), "--data", f"customers={nested_parquet}")
    assert drift.exit_code == 0 and "0 error(s), 0 warning(s), 0 info" in drift.output, drift.output


def test_from_a_spark_table_required_from_non_nullability(tmp_path, spark):
    from pyspark.sql import types as T

    schema = T.StructType([T.StructField("order_id", T.StringType(), False), T.StructField("lines", T.ArrayType(T.StructType(
        [T.StructField("sku", T.StringType(), False)])), True)])
    spark.createDataFrame([("A1", [("s1",)])], schema).createOrReplaceGlobalTempView("generated_orders")  # a view of the shared session: its catalog stays empty
    out = tmp_path / "orders.yaml"
    result = invoke("init", "--from", "table:global_temp.generated_orders", "--out", str(out), "--standard", "3.2")
    assert result.exit_code == 0, result.output
    document = yaml.safe_load(out.read_text(encoding="utf-8"))
    assert document["apiVersion"] == "v3.2.0"
    order_id, lines = document["schema"][0]["properties"]
    assert order_id == {"name": "order_id", "logicalType": "string", "physicalType": "string", "required": True}
    assert lines["items"]["properties"] == [{"name": "sku", "logicalType": "string", "physicalType": "string", "required": True}]
    assert lint_errors(out) == []


def embedded_iceberg(folder: Path):
    """The embedded catalog `init --from iceberg:...` opens in `folder` (a real pyiceberg SQL catalog on SQLite), with
    a namespace `sales`."""
    from pyiceberg.catalog.sql import SqlCatalog

    base = folder / ".dc-bridge" / "iceberg"
    (base / "warehouse").mkdir(parents=True)
    lake = SqlCatalog("dc-bridge", uri=f"sqlite:///{base / 'catalog.db'}", warehouse=(base / "warehouse").as_uri())
    lake.create_namespace("sales")
    return lake


def test_from_an_iceberg_table_with_nested_types(tmp_path, monkeypatch):
    from pyiceberg.schema import Schema
    from pyiceberg.types import DoubleType, ListType, LongType, MapType, NestedField, StringType, StructType, TimestamptzType

    monkeypatch.chdir(tmp_path)
    lake = embedded_iceberg(tmp_path)
    lake.create_table("sales.customers", schema=Schema(
        NestedField(1, "customer_id", LongType(), required=True),
        NestedField(2, "address", StructType(NestedField(5, "city", StringType(), required=True))),
        NestedField(3, "tags", ListType(6, StringType(), element_required=True)),
        NestedField(4, "scores", MapType(7, StringType(), 8, DoubleType())),
        NestedField(9, "updated_at", TimestamptzType())))
    result = invoke("init", "--from", "iceberg:sales.customers", "--out", "customers.yaml")
    assert result.exit_code == 0, result.output
    properties = yaml.safe_load(Path("customers.yaml").read_text(encoding="utf-8"))["schema"][0]["properties"]
    assert properties[0] == {"name": "customer_id", "logicalType": "integer", "physicalType": "bigint", "required": True}
    assert properties[1]["properties"] == [{"name": "city", "logicalType": "string", "physicalType": "string", "required": True}]
    assert properties[3] == {"name": "scores", "physicalType": "map<string,double>"}
    assert properties[4] == {"name": "updated_at", "logicalType": "timestamp", "physicalType": "timestamp"}
    assert lint_errors(Path("customers.yaml")) == []
    drift = invoke("drift", "customers.yaml", "--catalog", "iceberg", "--namespace", "sales")
    assert drift.exit_code == 0 and "0 error(s), 0 warning(s), 0 info" in drift.output, drift.output


EXPLICIT = """\
apiVersion: v3.1.0
kind: DataContract
id: urn:sales:customers
version: 3.0.0
status: active
team:
  name: sales-team
schema:
  - name: customers
    description: One row per customer.
    properties:
      - name: id
        primaryKey: true
        required: true
        description: The customer's key.
      - name: tier
        logicalType: string
        quality:
          - metric: invalidValues
            arguments: {validValues: [gold, silver]}
            mustBe: 0
  - name: segments
    properties:
      - name: segment
        logicalType: string
slaProperties:
  - {property: retention, value: 3, unit: y}
"""


def test_merge_explicit_keys_win_and_none_is_lost(tmp_path, spark):
    frame = spark.createDataFrame([(1, "gold", 2.5)], "id bigint, tier string, score double")
    generated = contract_from_dataframe(frame, model="customers", id="customers")
    explicit = yaml.safe_load(EXPLICIT)
    merged = merge(generated, explicit)
    assert lost_keys(explicit, merged) == []
    assert (merged["id"], merged["version"], merged["status"]) == ("urn:sales:customers", "3.0.0", "active")
    customers, segments = merged["schema"]
    assert customers["description"] == "One row per customer." and customers["physicalType"] == "table"
    id_field, tier, score = customers["properties"]
    assert id_field == {"name": "id", "logicalType": "integer", "physicalType": "bigint", "primaryKey": True, "required": True,
                        "description": "The customer's key."}
    assert tier["quality"][0]["arguments"] == {"validValues": ["gold", "silver"]}
    assert score == {"name": "score", "logicalType": "number", "physicalType": "double"}
    assert segments["name"] == "segments" and merged["slaProperties"] == explicit["slaProperties"]
    # the command: the same merge, written and linted
    frame.coalesce(1).write.parquet(str(tmp_path / "customers.parquet"))
    (tmp_path / "explicit.yaml").write_text(EXPLICIT, encoding="utf-8")
    out = tmp_path / "merged.yaml"
    result = invoke("init", "--from", str(tmp_path / "customers.parquet"), "--merge", str(tmp_path / "explicit.yaml"), "--out", str(out))
    assert result.exit_code == 0, result.output
    assert "merged with" in result.output and lint_errors(out) == []
    assert lost_keys(explicit, yaml.safe_load(out.read_text(encoding="utf-8"))) == []


PLANTED_ROWS = 1000


@pytest.fixture(scope="module")
def planted(spark):
    """key: distinct (a candidate key); tier: 3 values; score: 7% nulls, 0.5 to 499.5; day: dates; note: free text."""
    rows = [(i, ("gold", "silver", "bronze")[i % 3], None if i % 100 < 7 else i / 2, datetime.date(2024, 1, 1) + datetime.timedelta(days=i % 40),
             f"note {i % 37}") for i in range(1, PLANTED_ROWS + 1)]
    return rows, spark.createDataFrame(rows, "key int, tier string, score double, day date, note string")


def evidence(rule: dict) -> dict:
    return next(p["value"] for p in rule["customProperties"] if p["property"] == "dc-bridge.evidence")


def test_profile_proposals_match_counts_taken_from_the_rows(planted):
    rows, frame = planted
    document = contract_from_dataframe(frame, model="planted", id="planted", profile=True, sample_rows=None)
    rules = {p["name"]: p.get("quality", []) for p in document["schema"][0]["properties"]}
    for rule in (r for column in rules.values() for r in column):
        assert "proposed" in rule["tags"] and {"property": "dc-bridge.proposed", "value": True} in rule["customProperties"]
        assert evidence(rule)["sample"] == "every row" and evidence(rule)["rows"] == len(rows)
    columns = dict(zip(["key", "tier", "score", "day", "note"], zip(*rows)))
    # the oracle: plain Python over the rows
    nulls = {name: sum(v is None for v in values) for name, values in columns.items()}
    distinct = {name: len({v for v in values if v is not None}) for name, values in columns.items()}
    for name in columns:
        for rule in rules[name]:
            assert evidence(rule)["nulls"] == nulls[name], name
            if "distinct" in evidence(rule):  # counted: the value set and key candidates
                assert evidence(rule)["distinct"] == distinct[name], name
            else:  # estimated (approx_count_distinct, 5% relative standard deviation): within 4 of them
                assert abs(evidence(rule)["distinct_estimate"] - distinct[name]) <= 0.2 * distinct[name], name
    assert "distinct" in evidence(rules["key"][0]) and "distinct" in evidence(rules["tier"][0])
    assert [r.get("metric", r.get("type")) for r in rules["key"]] == ["nullValues", "sql", "duplicateValues"]
    assert [r.get("metric", r.get("type")) for r in rules["tier"]] == ["nullValues", "invalidValues"]
    assert rules["tier"][1]["arguments"] == {"validValues": sorted(set(columns["tier"]))}
    score_nulls, score_range = rules["score"]
    assert score_nulls["unit"] == "percent" and score_nulls["mustBeLessOrEqualTo"] == 100 * nulls["score"] / len(rows) == 7.0
    present = [v for v in columns["score"] if v is not None]
    assert score_range["query"] == f"SELECT COUNT(*) FROM {{model}} WHERE `score` < {min(present)!r} OR `score` > {max(present)!r}"
    assert evidence(rules["day"][1])["minimum"] == str(min(columns["day"])) and "DATE '2024-01-01'" in rules["day"][1]["query"]
    assert [r.get("metric") for r in rules["note"]] == ["nullValues"]  # 37 distinct values: no value set proposed


def test_profile_reads_a_bounded_sample_by_default_and_says_so(planted):
    _, frame = planted
    document = contract_from_dataframe(frame, model="planted", id="planted", profile=True, sample_rows=100)
    rule = document["schema"][0]["properties"][0]["quality"][0]
    assert evidence(rule)["sample"] == "the first 100 rows read" and evidence(rule)["rows"] == 100
    assert "in the first 100 rows read (100 rows)" in rule["description"]


def test_profiled_contract_lints_clean_and_its_rules_pass_on_the_data(tmp_path, planted):
    _, frame = planted
    path = tmp_path / "planted.parquet"
    frame.coalesce(1).write.parquet(str(path))
    out = tmp_path / "planted.yaml"
    result = invoke("init", "--from", str(path), "--out", str(out), "--profile", "--sample-rows", "all")
    assert result.exit_code == 0, result.output
    assert "proposed rule(s) from every row; lint: clean" in result.output
    run = invoke("run", str(out), "--data", f"planted={path}", "--engines", "spark", "--output", "json")
    assert run.exit_code == 0, run.output


def test_profile_of_an_iceberg_table_matches_plain_pyspark_counts_lints_clean_and_run_passes(tmp_path, monkeypatch, spark):
    """`init --from iceberg:NS.TABLE --profile` on planted rows appended through pyiceberg (nested columns kept in the
    schema, not profiled): each proposed rule's evidence is what plain PySpark counts on the table's data files, the
    contract lints clean, and `run` on those files passes."""
    import pyarrow as pa
    from pyiceberg.schema import Schema
    from pyiceberg.types import (
        DateType, DoubleType, ListType, LongType, MapType, NestedField, StringType, StructType,
    )
    from pyspark.sql import functions as F

    monkeypatch.chdir(tmp_path)
    table = embedded_iceberg(tmp_path).create_table("sales.planted", schema=Schema(
        NestedField(1, "key", LongType(), required=True), NestedField(2, "tier", StringType()), NestedField(3, "score", DoubleType()),
        NestedField(4, "day", DateType()), NestedField(5, "note", StringType()),
        NestedField(6, "address", StructType(NestedField(7, "city", StringType(), required=True))),
        NestedField(8, "tags", ListType(9, StringType(), element_required=True)),
        NestedField(10, "scores", MapType(11, StringType(), 12, DoubleType(), value_required=False))))
    # key: distinct (a candidate key); tier: 3 values, 2% nulls; score: 7% nulls, 0.5 to 499.5; day: 40 dates; note: 37 values
    table.append(pa.Table.from_pylist([
        {"key": i, "tier": None if i % 50 == 0 else ("gold", "silver", "bronze")[i % 3], "score": None if i % 100 < 7 else i / 2,
         "day": datetime.date(2024, 1, 1) + datetime.timedelta(days=i % 40), "note": f"note {i % 37}", "address": {"city": f"c{i % 4}"},
         "tags": ["a"] * (i % 3), "scores": {"k": float(i)}} for i in range(1, PLANTED_ROWS + 1)], schema=table.schema().as_arrow()))
    result = invoke("init", "--from", "iceberg:sales.planted", "--out", "planted.yaml", "--profile", "--sample-rows", "all")
    assert result.exit_code == 0, result.output
    assert "proposed rule(s) from every row; lint: clean" in result.output
    assert lint_errors(Path("planted.yaml")) == []
    rules = {p["name"]: p.get("quality", []) for p in yaml.safe_load(Path("planted.yaml").read_text(encoding="utf-8"))["schema"][0]["properties"]}

    # the oracle: plain PySpark over the table's data files
    data = Path(table.location().removeprefix("file://")) / "data"
    frame = spark.read.parquet(str(data))
    rows = frame.count()
    assert rows == PLANTED_ROWS
    for name in ("key", "tier", "score", "day", "note"):
        column = F.col(name)
        nulls = frame.filter(column.isNull()).count()
        present = frame.filter(column.isNotNull()).select(column)
        distinct = sorted(row[0] for row in present.distinct().collect())
        low, high = frame.agg(F.min(column), F.max(column)).collect()[0]
        assert rules[name], name
        for rule in rules[name]:
            assert "proposed" in rule["tags"] and {"property": "dc-bridge.proposed", "value": True} in rule["customProperties"]
            seen = evidence(rule)
            assert (seen["sample"], seen["rows"], seen["nulls"]) == ("every row", rows, nulls), name
            if "distinct" in seen:  # counted: the value set and key candidates
                assert seen["distinct"] == len(distinct), name
            else:  # estimated (approx_count_distinct, 5% relative standard deviation)
                assert abs(seen["distinct_estimate"] - len(distinct)) <= 0.2 * len(distinct), name
            if "minimum" in seen:
                assert (seen["minimum"], seen["maximum"]) == (str(low), str(high)), name
            if "values" in seen:
                assert seen["values"] == distinct == rule["arguments"]["validValues"], name
        if nulls:
            assert rules[name][0]["metric"] == "nullValues" and rules[name][0]["mustBeLessOrEqualTo"] == 100 * nulls / rows, name
    assert [r.get("metric", r.get("type")) for r in rules["key"]] == ["sql", "duplicateValues"]  # required: no null rule
    assert [r.get("metric", r.get("type")) for r in rules["tier"]] == ["nullValues", "invalidValues"]
    assert [r.get("metric", r.get("type")) for r in rules["score"]] == ["nullValues", "sql"]
    assert [r.get("metric", r.get("type")) for r in rules["day"]] == ["nullValues", "sql"]
    assert [r.get("metric") for r in rules["note"]] == ["nullValues"]  # 37 distinct values: no value set
    assert rules["address"] == rules["tags"] == rules["scores"] == []  # nested: in the schema, not profiled

    run = invoke("run", "planted.yaml", "--data", f"planted={data}:parquet", "--output", "json")
    assert run.exit_code == 0, run.output
    assert json.loads(run.output[run.output.index("{"):])["outcome"] == "passed"


def test_an_existing_out_is_never_overwritten_without_overwrite(tmp_path, nested_parquet):
    out = tmp_path / "customers.yaml"
    out.write_text("mine\n", encoding="utf-8")
    result = invoke("init", "--from", str(nested_parquet), "--out", str(out))
    assert result.exit_code == 2
    assert "exists; nothing was written (add --overwrite to replace it)" in result.output
    assert out.read_text(encoding="utf-8") == "mine\n"
    assert invoke("init", "--from", str(nested_parquet), "--out", str(out), "--overwrite").exit_code == 0
    assert out.read_text(encoding="utf-8").startswith("apiVersion: v3.1.0")


def test_a_missing_path_is_refused_before_spark_starts_naming_from(tmp_path):
    """Checked before Spark starts: in a process without Java, whose Spark could never start, the message is the
    path's (a Spark start would say Java is missing); it names init's --from, never run's --data."""
    import subprocess
    import sys

    for spec in (str(tmp_path / "nothing.parquet"), str(tmp_path / "*.csv")):
        done = subprocess.run([sys.executable, "-c", "from dc_bridge.cli import main; main()", "init", "--from", spec, "--out", str(tmp_path / "x.yaml")],
                              capture_output=True, text=True, env={"PATH": "/nonexistent", "JAVA_HOME": "/nonexistent",
                                                                   "HOME": str(tmp_path)}, timeout=120)
        assert done.returncode == 2, done.stderr
        assert f"dc-bridge init: --from {spec}: " in done.stderr and "does not exist" in done.stderr, done.stderr
        assert "--data" not in done.stderr and "Java" not in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "x.yaml").exists()


def test_a_csv_folder_with_reordered_columns_is_typed_from_every_file_and_its_contract_passes_run(tmp_path, monkeypatch):
    """Three files with their columns in different orders (one with a column the others lack): every column is typed
    from the values of every file by the text rule `run` reads CSV with, the contract names the folder as its
    server (relative to the contract: both inside the project), lints clean, and `run` of it alone passes."""
    monkeypatch.chdir(tmp_path)
    data = tmp_path / "lake" / "orders"
    data.mkdir(parents=True)
    (data / "a.csv").write_text("id,amount,day,name,flag\n1,1.5,2024-01-02,x,true\n2,3,2024-01-03,y,false\n")
    (data / "b.csv").write_text("name,flag,day,id,amount\nz,TRUE,2024-02-01,3000000000,7\n")
    (data / "c.csv").write_text("day,amount,id,note,name,flag\n2024-03-04,-2.25,4,hello,w,false\n")
    out = tmp_path / "contracts" / "orders.yaml"
    result = invoke("init", "--from", str(data) + ":csv", "--out", str(out))
    assert result.exit_code == 0, result.output
    assert lint_errors(out) == []
    document = yaml.safe_load(out.read_text(encoding="utf-8"))
    types = {p["name"]: p["physicalType"] for p in document["schema"][0]["properties"]}
    # id holds 3000000000 (beyond int), amount 1.5, day dates, flag TRUE/true/false, name and note text
    assert types == {"id": "bigint", "amount": "double", "day": "date", "name": "string", "flag": "boolean", "note": "string"}
    assert document["servers"] == [{"server": "local", "type": "local", "path": "../lake/orders", "format": "csv"}]
    run = invoke("run", str(out), "--output", "json")
    assert run.exit_code == 0, run.output
    verdict = json.loads(run.output[run.output.index("{"):])
    assert verdict["outcome"] == "passed" and verdict["models"][0]["counts"]["passed"] > 0


SENSITIVE = """\
apiVersion: v3.1.0
kind: DataContract
id: people
version: 1.0.0
status: active
schema:
  - name: people
    properties:
      - {name: email, customProperties: [{property: pii, value: true}]}
      - {name: salary, classification: confidential}
      - {name: birth_date, classification: restricted}
      - {name: phone, tags: [pii]}
"""


def test_profile_merged_over_sensitive_fields_writes_none_of_their_values(tmp_path, spark):
    """Fields the --merge contract marks pii or with a sensitive classification (plan/sensitive.py's rule, as a run
    reads it) get no value set, range or evidence holding their values; the other columns are profiled as before."""
    rows = [(f"p{i % 3}@example.com", 51000 + 1000 * (i % 4), datetime.date(1980 + i % 5, 3, 7), f"+33 6{i % 3}", ("gold", "silver")[i % 2], i)
            for i in range(40)]
    path = tmp_path / "people.parquet"
    spark.createDataFrame(rows, "email string, salary int, birth_date date, phone string, tier string, n int").coalesce(1).write.parquet(str(path))
    (tmp_path / "explicit.yaml").write_text(SENSITIVE, encoding="utf-8")
    out = tmp_path / "people.yaml"
    result = invoke("init", "--from", str(path), "--merge", str(tmp_path / "explicit.yaml"), "--out", str(out), "--profile")
    assert result.exit_code == 0, result.output
    text = out.read_text(encoding="utf-8")
    shown = {str(v) for row in rows for v in row[:4]} | {f"{row[2]:%Y}" for row in rows} | {row[2].isoformat() for row in rows}
    assert [value for value in sorted(shown) if value in text] == []
    rules = {p["name"]: [r.get("metric", r.get("type")) for r in p.get("quality", [])]
             for p in yaml.safe_load(text)["schema"][0]["properties"]}
    assert rules["email"] == rules["salary"] == rules["birth_date"] == rules["phone"] == ["nullValues"]
    assert rules["tier"] == ["nullValues", "invalidValues"] and rules["n"] == ["nullValues", "sql", "duplicateValues"]
    assert "gold" in text and "silver" in text  # a column nobody marked is profiled with its values


def _commands(group, prefix=()):
    import click

    for name, command in group.commands.items():
        yield prefix + (name,), command
        if isinstance(command, click.Group):
            yield from _commands(command, prefix + (name,))


def test_every_option_a_command_names_is_one_it_has():
    """Every `--option` in a command's help, its options' help and the strings of its own code (its error messages)
    is an option of that command, or of the command named just before it (`run --history`): init's error for a
    missing path recommended --data, an option only run and drift have."""
    import ast
    import inspect
    import re
    import textwrap

    named = re.compile(r"(?:\b([a-z][a-z-]*) )?(--[a-z][a-z0-9-]*)")
    commands = dict(_commands(main))
    options = {path: {o for p in command.params for o in (*p.opts, *p.secondary_opts)} | {"--help"} for path, command in commands.items()}
    wrong = []
    for path, command in commands.items():
        texts = [command.help or ""] + [getattr(p, "help", None) or "" for p in command.params]
        if command.callback is not None:
            tree = ast.parse(textwrap.dedent(inspect.getsource(inspect.unwrap(command.callback))))
            texts += [node.value for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str)]
        for text in texts:
            for before, option in named.findall(text):
                owner = path[:-1] + (before,) if path[:-1] + (before,) in options else (before,) if (before,) in options else path
                if option not in options[owner]:
                    wrong.append(f"{' '.join(path)}: {option} ({text[:80]!r})")
    assert len(commands) > 10 and wrong == []


def test_out_is_never_an_input_nor_inside_a_data_folder(tmp_path):
    """paths.py's rule for init's --out, before Spark starts: not the data file (with --overwrite it replaced the data),
    not a file inside the data folder read (the next read of the folder would read the contract as data), not the
    --merge contract; nothing is written or changed."""
    data = tmp_path / "orders"
    data.mkdir()
    (data / "a.csv").write_text("id\n1\n")
    (tmp_path / "explicit.yaml").write_text(SENSITIVE, encoding="utf-8")
    cases = {str(data / "a.csv"): ("--from", str(data / "a.csv")), str(data / "contract.yaml"): ("--from", f"{data}:csv"),
             str(tmp_path / "explicit.yaml"): ("--merge", str(tmp_path / "explicit.yaml"))}
    for out, (option, value) in cases.items():
        extra = ["--from", str(data / "a.csv")] if option == "--merge" else []
        result = invoke("init", option, value, *extra, "--out", out, "--overwrite")
        assert result.exit_code == 2, result.output
        assert f"--out {out} " in result.output and "nothing was written" in result.output, result.output
    # a folder without a format: the message names --from as the user wrote it (it named `--data 'orders=...'`)
    result = invoke("init", "--from", str(data), "--out", str(tmp_path / "x.yaml"))
    assert result.exit_code == 2 and f"dc-bridge init: --from {data}: cannot tell the format of {data}" in result.output, result.output
    assert sorted(p.name for p in data.iterdir()) == ["a.csv"] and (data / "a.csv").read_text() == "id\n1\n"
    assert (tmp_path / "explicit.yaml").read_text(encoding="utf-8") == SENSITIVE
