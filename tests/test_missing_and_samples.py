"""Issue 13: samples never show a pii value; a missing column is a failed check, not an error; a run
that evaluated nothing is not a pass.

- Samples: a canary value of a pii field fails every check kind the field takes part in (its own
  checks, primary key, composite key, model-level duplicateValues, foreign keys on either side, a
  struct holding a pii child, quality SQL reading it) in all three engines, and appears in no output:
  JSON, console, JUnit, HTML, the engines' own results, the GX Data Docs site.
- Missing columns: every check on a column the data lacks is `failed` naming the column (also a
  foreign key whose referenced column is missing, and quality SQL naming it), the verdict `failed`,
  exit 1; a value check on an array column stays `error` (the tool could not judge it), exit 2.
- Nothing evaluated: verdict `not_executable`, exit 2; some checks passed beside not_executable: exit 0.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.console import Console

import dc_bridge
from dc_bridge.cli import main
from dc_bridge.contract.reading.load import load_contract
from dc_bridge.contract.model import Source
from dc_bridge.engines.results import CheckResult, EngineReport
from dc_bridge.plan.build import build_plan
from dc_bridge.plan.checks import Check, CheckPlan, Unique
from dc_bridge.report.html import as_html
from dc_bridge.report.verdict_formats import as_json, as_junit, print_console
from dc_bridge.verdict import WITHHELD, Evidence, fold

ENGINES = ("gx", "soda", "spark")
CANARY = "zz-canary-7f3a"

# ---------------------------------------------------------------------------------------------
# samples: a pii canary in every check kind it takes part in

PII = """
apiVersion: v3.0.2
kind: DataContract
id: pii-canary
version: 1.0.0
status: active
schema:
  - name: people
    properties:
      - name: id
        logicalType: string
        logicalTypeOptions: {pattern: '^P'}
      - name: region
        logicalType: string
        primaryKey: true
        primaryKeyPosition: 1
      - name: email
        logicalType: string
        classification: pii
        primaryKey: true
        primaryKeyPosition: 2
        unique: true
        logicalTypeOptions: {pattern: '^ok', minLength: 50}
        quality:
          - metric: invalidValues
            arguments: {validValues: [ok]}
      - name: contact
        logicalType: object
        properties:
          - {name: mail, logicalType: string, classification: restricted}
          - {name: phone, logicalType: string}
    quality:
      - metric: duplicateValues
        arguments: {properties: [email]}
      - metric: duplicateValues
        arguments: {properties: [region, email]}
      - metric: duplicateValues
        arguments: {properties: [contact]}
      - type: sql
        query: SELECT COUNT(*) FROM ${table} WHERE email LIKE 'zz%'
        mustBe: 0
  - name: orders
    properties:
      - name: buyer
        logicalType: string
        relationships:
          - to: schema.people.properties.email
      - name: contact
        logicalType: string
        tags: [pii]
        relationships:
          - to: schema.people.properties.id
"""

# every check that involves a pii value; each fails on the data below
PII_CHECKS = {
    "people.email.unique": "unique", "people.email.pattern": "regex", "people.email.length": "length_between",
    "people.email.quality[0]": "in_set", "people.primary_key": "unique_combination", "people.quality[0]": "unique",
    "people.quality[1]": "unique_combination", "people.quality[2]": "unique", "people.quality[3]": "sql_metric",
    "orders.buyer.foreign_key": "foreign_key", "orders.contact.foreign_key": "foreign_key",
}


@pytest.fixture(scope="module")
def pii_run(spark, tmp_path_factory):
    folder = tmp_path_factory.mktemp("pii")
    (folder / "contract.yaml").write_text(PII)
    people = spark.createDataFrame(
        [("P1", "eu", CANARY, (CANARY, "1")), ("P2", "eu", CANARY, (CANARY, "1")), ("X3", "us", "ok", ("ok", "2"))],
        "id string, region string, email string, contact struct<mail:string,phone:string>")
    orders = spark.createDataFrame([(CANARY + "-buyer", CANARY + "-contact")], "buyer string, contact string")
    verdict = dc_bridge.run(str(folder / "contract.yaml"), dataframes={"people": people, "orders": orders}, spark=spark,
                            engines=ENGINES, data_docs=folder / "docs")
    return verdict, folder


def test_pii_checks_fail_and_show_no_value(pii_run):
    verdict, _ = pii_run
    by_id = {c.check_id: c for c in verdict.checks()}
    assert {k: by_id[k].kind for k in PII_CHECKS} == PII_CHECKS
    for check_id in PII_CHECKS:
        got = by_id[check_id]
        assert got.outcome == "failed", (check_id, got.outcome, got.reason)
        assert got.samples == [], check_id
        assert all(result.samples == [] for result in got.engines.values()), check_id
        assert set(got.engines) == ({"gx", "soda", "spark"}), check_id
        # a check with failing values says they were withheld; a SQL metric has none to withhold
        assert got.samples_note == (None if got.kind == "sql_metric" else WITHHELD), check_id
    # samples are on: a check on a field that is not pii shows its failing value
    assert by_id["people.id.pattern"].samples == ["X3"]


def test_pii_canary_appears_in_no_output(pii_run):
    verdict, folder = pii_run
    console = io.StringIO()
    print_console(verdict, Console(file=console, width=200), limit=100)
    outputs = {"json": as_json(verdict), "junit": as_junit(verdict), "console": console.getvalue(), "html": as_html(verdict),
               "api": verdict.model_dump_json()}
    for name, text in outputs.items():
        assert CANARY not in text, name
    # the GX Data Docs site of the run (result format SUMMARY: no unexpected values)
    pages = [path for path in (folder / "docs").rglob("*") if path.is_file()]
    assert any(path.suffix == ".html" for path in pages)
    assert not [path for path in pages if CANARY in path.read_text(errors="replace")]


def _plan(text: str, tmp_path: Path, name: str = "c.yaml") -> CheckPlan:
    path = tmp_path / name
    path.write_text(text)
    contract = load_contract(str(path)).contract
    return build_plan(contract)


def test_the_plan_marks_every_relative_sensitive(tmp_path):
    """No Spark: which checks are marked. A struct holding a pii child and a child of a pii struct are
    sensitive; a sibling of a pii child, a query or custom check naming other columns, are not."""
    plan = _plan(PII.replace("      - name: contact\n        logicalType: object", "      - name: other\n        logicalType: string\n"
                             "      - name: contact\n        logicalType: object"), tmp_path)
    marked = {c.id for c in plan.checks if c.sensitive}
    assert set(PII_CHECKS) <= marked
    assert {"people.id.pattern", "people.region.required", "people.other.exists"}.isdisjoint(marked)


@pytest.mark.parametrize("columns, paths, expected", [
    (("contact",), "contact.mail", True),          # a struct holding a pii child
    (("contact.mail",), "contact.mail", True),     # the child itself
    (("contact.phone",), "contact.mail", False),   # its sibling
    (("contact.phone",), "contact", True),         # a child of a pii struct
    (("Email",), "email", True),                   # Spark resolves columns case-insensitively
    (("emails",), "email", False),
])
def test_touches(columns, paths, expected):
    from dc_bridge.plan.sensitive import _touches

    assert _touches(columns, {paths}) is expected


def test_fold_withholds_samples_of_sensitive_checks_whatever_the_engine_returned():
    src = Source(file="c.yaml", path="models.people", line=1)
    check = Check("people.key", "people", ("region", "email"), Unique(), src, sensitive=True)
    plain = Check("people.id.unique", "people", ("id",), Unique(), src)
    results = {c.id: CheckResult(c.id, "spark", "failed", observed=2.0, samples=[CANARY], duplicated_values=1) for c in (check, plain)}
    reports = {"people": {"spark": EngineReport("spark", "people", results, 1.0)}}
    plan = CheckPlan("c", "1", (check, plain), ("people",))
    coverage = {c.id: {"spark": None} for c in (check, plain)}
    evidence = Evidence(samples={c.id: {"samples": [CANARY], "duplicated_values": 1} for c in (check, plain)})
    verdict = fold(plan, reports, coverage, ("spark",), evidence=evidence, contract_file="c.yaml")
    got = {c.check_id: c for c in verdict.checks()}
    assert (got["people.key"].samples, got["people.key"].samples_note, got["people.key"].duplicated_values) == ([], WITHHELD, 1)
    assert got["people.key"].engines["spark"].samples == []
    assert got["people.id.unique"].samples == [CANARY]  # the fold withholds only what is sensitive
    assert CANARY not in got["people.key"].model_dump_json()


# ---------------------------------------------------------------------------------------------
# missing columns: failed, never error

MISSING = """
dataContractSpecification: 1.1.0
id: ghosts
info: {title: ghosts, version: 1.0.0}
models:
  people:
    fields:
      id: {type: string, required: true}
      nobody: {type: string}
  things:
    primaryKey: [tid, ghost]
    fields:
      tid: {type: string}
      ghost:
        type: string
        required: true
        unique: true
        pattern: '^a'
        enum: [a, b]
        minLength: 2
        minimum: 0
        references: people.id
        quality:
          - type: sql
            query: SELECT count(*) FROM {model} WHERE {column} IS NULL
            mustBe: 0
          - type: sql
            query: SELECT count(*) FROM {model} WHERE {column} = 'x'
            mustBe: 0
            severity: warning
      owner: {type: string, references: people.nobody}
    quality:
      - type: sql
        query: SELECT count(*) FROM {model} WHERE ghost IS NULL
        mustBe: 0
"""

# check id -> (outcome, the fragment its reason names)
MISSING_OUTCOMES = {
    "people.nobody.exists": ("failed", None),
    "people.nobody.type": ("failed", "`nobody` is not in the data"),
    "things.ghost.exists": ("failed", None),
    **{f"things.ghost.{suffix}": ("failed", "`ghost` is not in the data")
       for suffix in ("type", "required", "unique", "pattern", "enum", "length", "range", "quality[0]", "foreign_key")},
    "things.ghost.quality[1]": ("warning", "`ghost` is not in the data"),   # severity warning: a warning, like any failure
    "things.primary_key": ("failed", "`ghost` is not in the data"),
    "things.owner.foreign_key": ("failed", "column `nobody` of `people` is not in the data, which the foreign key references"),
    "things.quality[0]": ("failed", "column `ghost` is not in the data, which the query reads"),
}


def _cli(*args):
    return CliRunner().invoke(main, ["run", *args], catch_exceptions=False)


def test_missing_columns_fail_the_verdict_with_exit_1(spark, tmp_path):
    (tmp_path / "contract.yaml").write_text(MISSING)
    (tmp_path / "people.csv").write_text("id\np1\n")
    (tmp_path / "things.csv").write_text("tid,owner\nt1,p1\n")
    out = tmp_path / "verdict.json"
    result = _cli(str(tmp_path / "contract.yaml"), "--engines", ",".join(ENGINES), "--data", f"people={tmp_path / 'people.csv'}",
                  "--data", f"things={tmp_path / 'things.csv'}", "--output", "json", "--output-file", str(out))
    verdict = json.loads(out.read_text())
    checks = {c["check_id"]: c for m in verdict["models"] for c in m["checks"]}
    got = {k: (checks[k]["outcome"], checks[k]["reason"]) for k in MISSING_OUTCOMES}
    for check_id, (outcome, fragment) in MISSING_OUTCOMES.items():
        assert got[check_id][0] == outcome, (check_id, got[check_id])
        assert fragment is None or fragment in got[check_id][1], (check_id, got[check_id])
    assert not [k for k, c in checks.items() if c["outcome"] == "error"]
    assert (verdict["outcome"], result.exit_code) == ("failed", 1)
    # each engine says it on its own, none says error
    for check_id in ("things.ghost.required", "things.primary_key", "things.ghost.foreign_key"):
        engines = checks[check_id]["engines"]
        assert {e: r["outcome"] for e, r in engines.items()} == {e: "failed" for e in ENGINES}, check_id


def test_a_check_on_an_unfit_column_type_stays_error(spark, tmp_path):
    """A pattern on an array column: the tool cannot judge it (the column is there); error, exit 2."""
    (tmp_path / "c.yaml").write_text("""
dataContractSpecification: 1.1.0
id: unfit
info: {title: unfit, version: 1.0.0}
models:
  people:
    fields:
      tags: {type: array, items: {type: string}, pattern: '^a'}
""")
    frame = spark.createDataFrame([(["a"],)], "tags array<string>")
    verdict = dc_bridge.run(str(tmp_path / "c.yaml"), dataframes={"people": frame}, spark=spark, engines=ENGINES)
    got = {c.check_id: c for c in verdict.checks()}["people.tags.pattern"]
    assert got.outcome == "error"
    assert {e: r.outcome for e, r in got.engines.items()} == {e: "error" for e in ENGINES}
    assert "is array<string>; a regex check needs a single value per row" in got.reason
    assert (verdict.outcome, verdict.exit_code()) == ("error", 2)


# ---------------------------------------------------------------------------------------------
# nothing evaluated is not a pass

TEXT_ONLY = """
dataContractSpecification: 1.1.0
id: words
info: {title: words, version: 1.0.0}
models:
  people:
    quality:
      - type: text
        description: People are people.
"""

GX_ONLY = """
dataContractSpecification: 1.1.0
id: gx-only
info: {title: gx only, version: 1.0.0}
models:
  people:
    quality:
      - type: custom
        engine: great-expectations
        implementation: {type: expect_table_row_count_to_be_between, kwargs: {min_value: 1}}
"""


@pytest.mark.parametrize("contract, engines, counts", [
    (TEXT_ONLY, "spark", {"not_executable": 1}),
    (GX_ONLY, "spark", {"skipped": 1}),   # the only check runs in GX, which was not selected
], ids=["text-rules-only", "no-selected-engine-runs-anything"])
def test_nothing_evaluated_exits_2(spark, tmp_path, contract, engines, counts):
    (tmp_path / "c.yaml").write_text(contract)
    (tmp_path / "people.csv").write_text("id\np1\n")
    out = tmp_path / "verdict.json"
    result = _cli(str(tmp_path / "c.yaml"), "--engines", engines, "--data", f"people={tmp_path / 'people.csv'}",
                  "--output", "json", "--output-file", str(out))
    verdict = json.loads(out.read_text())
    assert {k: v for k, v in verdict["counts"].items() if v} == counts
    assert (verdict["outcome"], result.exit_code) == ("not_executable", 2)


def test_passed_beside_not_executable_passes(spark, tmp_path):
    (tmp_path / "c.yaml").write_text(TEXT_ONLY.replace("    quality:", "    fields:\n      id: {type: string, required: true}\n    quality:"))
    frame = spark.createDataFrame([("p1",)], "id string")
    verdict = dc_bridge.run(str(tmp_path / "c.yaml"), dataframes={"people": frame}, spark=spark, engines=("spark",))
    assert {k: v for k, v in verdict.counts.items() if v} == {"passed": 3, "not_executable": 1}
    assert (verdict.outcome, verdict.exit_code(), verdict.exit_code("warning")) == ("passed", 0, 0)


@pytest.mark.parametrize("outcome, fail_on, code", [
    ("passed", "failed", 0), ("warning", "failed", 0), ("warning", "warning", 1), ("failed", "failed", 1),
    ("error", "failed", 2), ("not_executable", "failed", 2), ("not_executable", "warning", 2),
])
def test_verdict_exit_codes(outcome, fail_on, code):
    from dc_bridge.outcomes import verdict_exit_code

    assert verdict_exit_code(outcome, fail_on) == code



@pytest.mark.parametrize("case_sensitive", ["false", "true"])
def test_a_missing_column_follows_the_sessions_case_rule(spark, case_sensitive):
    """A name found as written is there in either mode; one equal but for case is there only where Spark resolves
    names without case (its default), as Spark itself resolves them on the same DataFrame."""
    from dc_bridge.engines.columns import missing_columns

    frame = spark.createDataFrame([(1, (2,))], "Amount int, `e.Mail` struct<Inner: int>")
    before = spark.conf.get("spark.sql.caseSensitive")
    spark.conf.set("spark.sql.caseSensitive", case_sensitive)
    try:
        names = ["Amount", "amount", "`e.Mail`", "e.Mail", "e.Mail.Inner", "e.mail.inner", "absent"]
        found = missing_columns(frame, names)
        resolved = []
        for name in ["Amount", "amount", "`e.Mail`.Inner", "`e.mail`.inner", "absent"]:
            try:
                frame.select(name).schema
                resolved.append(name)
            except Exception:
                pass
    finally:
        spark.conf.set("spark.sql.caseSensitive", before)
    assert "Amount" not in found and "absent" in found and "e.Mail.Inner" not in found
    assert ("amount" in found) == (case_sensitive == "true") == ("amount" not in resolved)
    assert ("e.mail.inner" in found) == (case_sensitive == "true") == ("`e.mail`.inner" not in resolved)
