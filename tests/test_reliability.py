"""The bad-input corpus, part two: what tests/broken/ (the lint corpus) does not cover.

Contracts (no Spark): files too large to read or that grow when read (a 50 MB file, an alias bomb,
deep nesting, a chain of thousands of `$ref`s), files that are not text or not safe YAML, wrong
types for more of the fields dc-bridge uses, unknown fields, references that lead outside
(a URL, a directory, a huge file), and regular expressions that backtrack catastrophically. Each
case names the exact finding (code, path, severity); error cases are also refused by `dc-bridge
lint` and `dc-bridge run` with the right exit code, and nothing raises.

Data (one Spark run for many models): column names that look like SQL or break parsers, empty and
all-null data, NaN and infinity, decimals at the limits of their precision, timestamps with and
without time zone, dates, nested structs, arrays and maps, and a CSV file whose columns are in
another order than the contract's, lack one, or hold values that do not parse. Each case pins the
outcome and the number both engines report, computed by hand and by plain PySpark. Models without
data (or whose data cannot be read) stop the run with a clear message and exit code 2.

Whatever the input: no traceback, and never exit 0 when something was not evaluated.
"""

from __future__ import annotations

import math
import subprocess
import sys
import textwrap
import time
import tracemalloc
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone
from decimal import Decimal
from pathlib import Path
from typing import Callable

import pytest
from click.testing import CliRunner

import dc_bridge
from dc_bridge.cli import main
from dc_bridge.contract.lint import lint_file
from dc_bridge.contract.findings import CODES, CONFORMANCE_CODES
from dc_bridge.plan.checks import CHECK_LOCAL_CODES

ROOT = Path(__file__).resolve().parent.parent
HAS_JAVA = __import__("shutil").which("java") is not None

DCS_HEAD = "dataContractSpecification: 1.1.0\nid: c\ninfo: {title: t, version: 1.0.0}\n"
ODCS_HEAD = "apiVersion: v3.1.0\nkind: DataContract\nid: c\nversion: 1.0.0\nstatus: active\n"


def dcs(fields: str = "      id: {type: integer, required: true}\n", extra: str = "") -> str:
    return DCS_HEAD + "models:\n  orders:\n    fields:\n" + fields + extra


def odcs(lines: str = "", extra: str = "") -> str:
    return ODCS_HEAD + "schema:\n  - name: orders\n    properties:\n      - name: id\n        logicalType: integer\n" + lines + extra


def text(content: str) -> Callable[[Path], Path]:
    def make(folder: Path) -> Path:
        path = folder / "contract.yaml"
        path.write_text(content, encoding="utf-8")
        return path
    return make


def raw(content: bytes) -> Callable[[Path], Path]:
    def make(folder: Path) -> Path:
        path = folder / "contract.yaml"
        path.write_bytes(content)
        return path
    return make


def enormous(folder: Path) -> Path:
    """A 50 MB contract: a valid head, then a sparse hole (no disk or memory spent on it)."""
    path = folder / "contract.yaml"
    with open(path, "wb") as handle:
        handle.write(dcs().encode())
        handle.truncate(50 * 1024 * 1024)
    return path


def alias_bomb(folder: Path) -> Path:
    """50 values on 12 lines that expand to nearly 500 million ("billion laughs")."""
    lines = [DCS_HEAD.rstrip(), 'x0: &x0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    lines += [f"x{i}: &x{i} [" + ",".join([f"*x{i - 1}"] * 9) + "]" for i in range(1, 9)]
    return text("\n".join(lines) + "\n" + dcs().split("\n", 3)[3])(folder)


def deep_block(levels: int) -> Callable[[Path], Path]:
    def make(folder: Path) -> Path:
        nested = "".join("  " * i + "- \n" for i in range(1, levels))
        return text(dcs() + "x:\n" + nested)(folder)
    return make


def deep_flow(levels: int) -> Callable[[Path], Path]:
    return lambda folder: text(dcs() + "x: " + "{a: " * levels + "1" + "}" * levels + "\n")(folder)


def directory(folder: Path) -> Path:
    path = folder / "contract.yaml"
    path.mkdir()
    return path


def ref_chain(links: int) -> Callable[[Path], Path]:
    definitions = "".join(f"  d{i}: {{$ref: '#/definitions/d{i + 1}'}}\n" for i in range(links)) + f"  d{links}: {{type: string}}\n"
    return text(DCS_HEAD + "definitions:\n" + definitions + "models:\n  orders:\n    fields:\n      id: {$ref: '#/definitions/d0'}\n")


def ref_to_huge_file(folder: Path) -> Path:
    with open(folder / "defs.yaml", "wb") as handle:
        handle.write(b"definitions:\n  id: {type: string}\n")
        handle.truncate(50 * 1024 * 1024)
    return text(dcs("      id: {$ref: 'defs.yaml#/definitions/id'}\n"))(folder)


@dataclass(frozen=True)
class ContractCase:
    name: str
    make: Callable[[Path], Path]
    code: str | None  # None: no finding beyond DCB100 schema notes
    path: str = ""
    message: str = ""  # a fragment the message must contain
    in_file: str | None = None  # the finding belongs to this file (relative), not the contract


PWNED = Path("/tmp/dcb-reliability-yaml-pwned")

CONTRACT_CASES = [
    # too large, or too large once read
    ContractCase("enormous_50mb_file", enormous, "DCB006", "", "52,428,800 bytes; contracts are limited to 10,485,760 bytes"),
    ContractCase("yaml_alias_bomb", alias_bomb, "DCB006", "", "aliases expand 50 written values to 490,329,086"),
    ContractCase("deep_block_nesting", deep_block(3000), "DCB006", "", "nests deeper than 100 levels"),
    ContractCase("deep_flow_nesting", deep_flow(5000), "DCB006", "", "nests deeper than 100 levels"),
    ContractCase("nesting_just_under_the_limit", deep_flow(95), None),
    ContractCase("large_but_legal_3mb", text(dcs("      id: {type: string, description: '" + "x" * 3_000_000 + "'}\n")), None),
    ContractCase("ref_chain_of_2000_links", ref_chain(2000), "DCB006", "definitions.d99.$ref", "references nest deeper than 100 levels"),
    ContractCase("ref_chain_of_90_links", ref_chain(90), None),
    ContractCase("ref_to_a_50mb_file", ref_to_huge_file, "DCB006", "", "contracts are limited to", in_file="defs.yaml"),
    # not text, or not safe YAML
    ContractCase("binary_file", raw(bytes(range(256))), "DCB001", "", "is not UTF-8 text"),
    ContractCase("utf16_file", raw(dcs().encode("utf-16")), "DCB001", "", "is not UTF-8 text"),
    ContractCase("utf8_with_bom", raw(b"\xef\xbb\xbf" + dcs().encode()), None),
    ContractCase("nul_byte", text(dcs().replace("id: c", "id: c\x00d")), "DCB002", "", "unacceptable character"),
    ContractCase("python_object_tag", text(DCS_HEAD + f"x: !!python/object/apply:os.system ['touch {PWNED}']\n"), "DCB002", "",
                 "could not determine a constructor"),
    ContractCase("key_that_is_a_list", text(DCS_HEAD + "? [a, b]\n: 1\n"), "DCB002", "", "a key that is not a plain value"),
    ContractCase("a_directory", directory, "DCB001", "", "is a directory"),
    # unknown fields: where the standard's schema forbids them, an error of conformance alone (DCB100: compile and
    # run go on), never a crash
    ContractCase("dcs_unknown_top_level_key", text(dcs() + "colour: blue\n"), None),
    ContractCase("odcs_unknown_top_level_key", text(odcs(extra="colour: blue\n")), "DCB100", "", "'colour' is not a field of the standard"),
    # ... except a near miss of a key that makes a check: an error, so the check is not silently lost
    ContractCase("odcs_misspelt_property_key", text(odcs("        requird: true\n")), "DCB104", "schema[0].properties[0].requird",
                 "`requird`"),
    # wrong types for fields that change what runs
    ContractCase("dcs_unique_is_text", text(dcs("      code: {type: string, unique: 'yes'}\n")), "DCB101", "models.orders.fields.code.unique"),
    ContractCase("dcs_pattern_is_a_number", text(dcs("      code: {type: string, pattern: 123}\n")), "DCB101", "models.orders.fields.code.pattern"),
    ContractCase("dcs_enum_is_text", text(dcs("      code: {type: string, enum: 'a,b'}\n")), "DCB101", "models.orders.fields.code.enum"),
    ContractCase("dcs_minimum_is_a_word", text(dcs("      n: {type: integer, minimum: ten}\n")), "DCB101", "models.orders.fields.n.minimum",
                 "`minimum` of a `integer` field must be a number"),
    ContractCase("odcs_maximum_is_a_word", text(odcs("        logicalTypeOptions: {maximum: lots}\n")), "DCB101",
                 "schema[0].properties[0].logicalTypeOptions.maximum", "must be a number"),
    ContractCase("dcs_primary_key_is_a_number", text(dcs("      code: {type: string, primaryKey: 1}\n")), "DCB101",
                 "models.orders.fields.code.primaryKey"),
    ContractCase("dcs_must_be_is_a_word", text(dcs(extra="    quality:\n      - {type: sql, query: 'SELECT COUNT(*) FROM {model}', mustBe: zero}\n")),
                 "DCB101", "models.orders.quality[0].mustBe"),
    ContractCase("dcs_quality_is_a_mapping", text(dcs(extra="    quality: {type: sql}\n")), "DCB101", "models.orders.quality"),
    ContractCase("dcs_models_is_a_list", text(DCS_HEAD + "models: [a, b]\n"), "DCB101", "models"),
    ContractCase("dcs_threshold_is_a_number", text(dcs("      id: {type: integer, required: true}\n      ts: {type: timestamp}\n",
                                                           "servicelevels:\n  freshness: {threshold: 5, timestampField: orders.ts}\n")),
                 "DCB101", "servicelevels.freshness.threshold"),
    ContractCase("odcs_schema_is_a_mapping", text(ODCS_HEAD + "schema: {name: orders}\n"), "DCB101", "schema"),
    ContractCase("odcs_schema_item_is_text", text(ODCS_HEAD + "schema:\n  - orders\n"), "DCB101", "schema[0]"),
    ContractCase("odcs_required_is_text", text(odcs("        required: 'true'\n")), "DCB101", "schema[0].properties[0].required"),
    ContractCase("odcs_options_is_a_list", text(odcs("        logicalTypeOptions: [1]\n")), "DCB101", "schema[0].properties[0].logicalTypeOptions"),
    ContractCase("odcs_unit_is_unknown", text(odcs("        quality:\n          - {metric: nullValues, mustBe: 0, unit: kilometers}\n")),
                 "DCB101", "schema[0].properties[0].quality[0].unit"),
    ContractCase("odcs_must_be_is_a_list", text(odcs("        quality:\n          - {metric: nullValues, mustBe: [0]}\n")),
                 "DCB101", "schema[0].properties[0].quality[0].mustBe"),
    ContractCase("odcs_quality_item_is_text", text(odcs("        quality:\n          - just text\n")), "DCB101",
                 "schema[0].properties[0].quality[0]"),
    ContractCase("odcs_sla_element_names_nothing", text(odcs(extra="slaProperties:\n  - {property: freshness, value: 1, unit: d, element: nope.ts}\n")),
                 "DCB125", "slaProperties[0].element"),
    # references that lead outside
    ContractCase("ref_to_itself", text(DCS_HEAD + "definitions:\n  a: {$ref: '#/definitions/a'}\nmodels:\n  orders:\n    fields:\n      id: {$ref: '#/definitions/a'}\n"),
                 "DCB122", "definitions.a.$ref", "cycle"),
    ContractCase("ref_is_a_number", text(dcs("      id: {$ref: 42}\n")), "DCB101", "models.orders.fields.id.$ref"),
    ContractCase("ref_to_a_directory", text(dcs("      id: {$ref: '/tmp#/definitions/x'}\n")), "DCB121", "models.orders.fields.id.$ref"),
    ContractCase("ref_to_a_url", text(dcs("      id: {$ref: 'https://example.com/defs.yaml#/definitions/id'}\n")), "DCB120",
                 "models.orders.fields.id.$ref", "dc-bridge reads local files only"),
    # regular expressions that backtrack catastrophically (a warning: the run goes on)
    ContractCase("regex_nested_quantifier", text(dcs("      code: {type: string, pattern: '^((a+)+)+$'}\n")), "DCB142",
                 "models.orders.fields.code.pattern", "`(a+)+` repeats a group that itself repeats without bound"),
    ContractCase("regex_classic_redos", text(dcs("      code: {type: string, pattern: '^([a-zA-Z0-9]+\\s?)*$'}\n")), "DCB142",
                 "models.orders.fields.code.pattern"),
    ContractCase("regex_counted_repeat", text(dcs("      code: {type: string, pattern: '(.*a){30}'}\n")), "DCB142",
                 "models.orders.fields.code.pattern", "`(.*a){30}`"),
    ContractCase("regex_in_invalid_values", text(odcs("        quality:\n          - {metric: invalidValues, arguments: {pattern: '(\\w+\\s?)+$'}, mustBe: 0}\n")),
                 "DCB142", "schema[0].properties[0].quality[0].arguments.pattern"),
    ContractCase("regex_possessive_is_fine", text(dcs("      code: {type: string, pattern: '^(a++)+$'}\n")), None),
    ContractCase("regex_atomic_is_fine", text(dcs("      code: {type: string, pattern: '^(?>a+)+$'}\n")), None),
    ContractCase("regex_java_only_syntax_is_fine", text(dcs("      code: {type: string, pattern: '^\\p{Lu}+$'}\n")), None),
]

_EXIT = {"DCB001": 2, "DCB002": 2, "DCB006": 2}


def _show(findings) -> str:
    return "\n".join(f"  {f.code} {f.level} {Path(f.file).name}:{f.line} {f.path!r}: {f.message[:160]}" for f in findings) or "  (none)"


@pytest.mark.parametrize("case", CONTRACT_CASES, ids=[c.name for c in CONTRACT_CASES])
def test_bad_contract(case: ContractCase, tmp_path):
    if case.name.startswith("regex") and not HAS_JAVA:
        pytest.skip("needs Java to compile patterns the way Spark does")
    path = case.make(tmp_path)
    began = time.monotonic()
    findings = lint_file(str(path)).findings
    assert time.monotonic() - began < 20, "lint must stay fast on hostile input"
    errors = [f for f in findings if f.level == "error"]
    if case.code is None:
        assert not [f for f in findings if f.code not in CONFORMANCE_CODES], _show(findings)
        return
    file = tmp_path / (case.in_file or "contract.yaml")
    matches = [f for f in findings if f.code == case.code and f.path == case.path and Path(f.file).resolve() == file.resolve()]
    assert matches, f"no {case.code} at {case.path!r}:\n{_show(findings)}"
    assert case.message in matches[0].message, matches[0].message
    assert len(matches) == 1, f"reported {len(matches)} times:\n{_show(matches)}"
    severity = CODES[case.code].severity
    others = [f for f in errors if f not in matches and f.code not in CONFORMANCE_CODES]
    assert others == [], f"errors besides {case.code}:\n{_show(others)}"

    # the command line: lint exits 2 (unreadable) / 1 (errors) / 0 (warnings); run refuses errors with 2, but for
    # those of conformance alone and those confined to one check, which it goes past (tests/test_conformance.py)
    lint = CliRunner().invoke(main, ["lint", str(path)])
    assert lint.exception is None or isinstance(lint.exception, SystemExit), lint.output
    want = _EXIT.get(case.code, 1) if severity == "error" else 0
    if case.in_file:  # a referenced file that cannot be read is an error of the contract, not an unreadable contract
        want = 1
    assert lint.exit_code == want, lint.output
    if severity == "error" and case.code not in CONFORMANCE_CODES | CHECK_LOCAL_CODES:
        run = CliRunner().invoke(main, ["run", str(path)])
        assert run.exception is None or isinstance(run.exception, SystemExit), run.output
        # (click itself refuses a directory as CONTRACT, before dc-bridge reads anything)
        assert run.exit_code == 2 and (case.code in run.output or "is a directory" in run.output), run.output
    assert not PWNED.exists(), "YAML executed code"


def test_enormous_contract_is_refused_in_bounded_memory(tmp_path):
    path = enormous(tmp_path)
    tracemalloc.start()
    try:
        findings = lint_file(str(path)).findings
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert [f.code for f in findings] == ["DCB006"]
    assert peak < 2 * 1024 * 1024, f"lint allocated {peak:,} bytes for a file it refuses"


def test_alias_bomb_is_refused_in_bounded_memory(tmp_path):
    path = alias_bomb(tmp_path)
    tracemalloc.start()
    try:
        findings = lint_file(str(path)).findings
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert [f.code for f in findings] == ["DCB006"] and peak < 2 * 1024 * 1024, (findings, peak)


def test_nesting_that_crashed_libyaml_is_refused(tmp_path):
    """300,000 nested `[` used to overflow the C stack of libyaml's composer (a segfault, exit 139);
    run in a subprocess so a regression cannot take the test session down."""
    path = tmp_path / "contract.yaml"
    path.write_text(dcs() + "x: " + "[" * 300_000 + "]" * 300_000 + "\n")
    code = "import sys; from dc_bridge.contract.lint import lint_file; print([f.code for f in lint_file(sys.argv[1]).findings])"
    done = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"exit {done.returncode}: {done.stderr[-2000:]}"
    assert done.stdout.strip() == "['DCB006']"


def test_references_never_reach_the_network(tmp_path, monkeypatch):
    import socket

    attempts = []

    def refuse(*args, **kwargs):
        attempts.append(args)
        raise OSError("no network in this test")

    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    monkeypatch.setattr(socket.socket, "connect", refuse)
    path = text(odcs("        relationships:\n          - {type: imports, to: 'https://example.com/rules.yaml#quality.x'}\n")
                + "")(tmp_path)
    lint_file(str(path))
    path = text(dcs("      id: {$ref: 'https://example.com/defs.yaml#/definitions/id'}\n"))(tmp_path)
    lint_file(str(path))
    assert attempts == []


# ---------------------------------------------------------------------------------------------
# data: one run over many models, every case pinned


DATA_CONTRACT = r"""
apiVersion: v3.1.0
kind: DataContract
id: bad-data
version: 1.0.0
status: active
schema:
  # column names: spaces, dots, quotes, unicode, SQL keywords, SQL syntax, SodaCL's own words
  - name: names
    properties:
      - {name: "first name", logicalType: string, required: true, unique: true}
      - {name: "a.b", logicalType: string, required: true, logicalTypeOptions: {pattern: '^[a-z]+$'}}
      - {name: "quo\"te", logicalType: integer, logicalTypeOptions: {minimum: 0, maximum: 10}}
      - {name: "it's", logicalType: string, required: true, unique: true}
      - {name: "größe", logicalType: number, logicalTypeOptions: {minimum: 1.0}}
      - {name: "日本", logicalType: string, required: true}
      - {name: "select", logicalType: string, required: true, unique: true}
      - {name: "x; DROP TABLE y", logicalType: string, required: true, logicalTypeOptions: {pattern: '^v[0-9]$'},
         quality: [{type: sql, query: "SELECT COUNT(*) FROM ${table} WHERE ${column} IS NULL", mustBe: 0}]}
      - {name: "--c", logicalType: string, required: true}
      - {name: "a/*b*/", logicalType: string, required: true}
      - {name: "d", logicalType: string, required: true}
      - {name: "m", logicalType: string, logicalTypeOptions: {minLength: 2}}
      - {name: "pass", logicalType: string, required: true}
      - {name: "tick`name", logicalType: string, required: true}
  # no rows at all
  - name: empty
    properties:
      - {name: id, logicalType: integer, required: true, unique: true, logicalTypeOptions: {minimum: 1}}
      - {name: code, logicalType: string, logicalTypeOptions: {pattern: '^[A-Z]+$', minLength: 1}}
      - {name: ts, logicalType: timestamp}
    quality:
      - {id: empty_rows, metric: rowCount, mustBeGreaterThan: 0}
      - {id: empty_max, type: sql, query: "SELECT MAX(id) FROM ${table}", mustBeLessThan: 10}
  # NaN, infinity, all-null columns, decimals at the limits of their precision
  - name: numbers
    properties:
      - {name: x, logicalType: number, physicalType: double, required: true, unique: true, logicalTypeOptions: {minimum: 0, maximum: 100}}
      - {name: f, logicalType: number, physicalType: float, logicalTypeOptions: {minimum: 0}}
      - {name: e, logicalType: number, physicalType: double, logicalTypeOptions: {exclusiveMaximum: 10}}
      - {name: nothing, logicalType: integer, required: true, unique: true, logicalTypeOptions: {minimum: 1}}
      - {name: nothing_s, logicalType: string, logicalTypeOptions: {pattern: '^[A-Z]+$', minLength: 1}}
      - {name: big, logicalType: number, physicalType: "decimal(38,0)", required: true, unique: true,
         logicalTypeOptions: {minimum: 0, maximum: 99999999999999999999999999999999999999}}
      - {name: fine, logicalType: number, physicalType: "decimal(38,18)",
         logicalTypeOptions: {minimum: -0.000000000000000001, maximum: 99999999999999999999.999999999999999999}}
      - {name: money, logicalType: number, physicalType: "decimal(10,2)", logicalTypeOptions: {minimum: "0.01", exclusiveMaximum: 100000000}}
  # timestamps with (timestamp) and without (timestamp_ntz) a time zone, and dates
  - name: times
    properties:
      - {name: ltz, logicalType: timestamp, physicalType: timestamp, required: true, unique: true}
      - {name: ntz, logicalType: timestamp, physicalType: timestamp_ntz, required: true, unique: true}
      - {name: day, logicalType: date, required: true}
  # nested structs, arrays, maps
  - name: nested
    properties:
      - {name: s, logicalType: object, required: true, properties: [{name: a, logicalType: string, required: true}]}
      - {name: arr, logicalType: array, required: true, items: {logicalType: string, logicalTypeOptions: {pattern: '^x'}}}
      - {name: mp, logicalType: object, physicalType: "map<string,int>", required: true}
      - {name: tags, logicalType: array, unique: true}
      - {name: codes, logicalType: array, logicalTypeOptions: {pattern: '^x'}}
  # a CSV file: columns in another order, one missing, one extra, values that do not parse
  - name: csv
    properties:
      - {name: id, logicalType: integer, required: true, unique: true}
      - {name: name, logicalType: string, required: true, logicalTypeOptions: {pattern: '^[a-z]+$'}}
      - {name: amount, logicalType: integer, required: true, logicalTypeOptions: {minimum: 0}}
      - {name: ghost, logicalType: string, required: true}
slaProperties:
  - {property: freshness, value: 1, unit: d, element: times.ltz}
  - {property: freshness, value: 1, unit: d, element: times.ntz}
  - {property: retention, value: 2, unit: d, element: times.ntz}
  - {property: freshness, value: 1, unit: d, element: empty.ts}
"""

NAN, INF = float("nan"), float("inf")
TOP = Decimal("99999999999999999999999999999999999999")  # 10^38 - 1, the largest decimal(38,0)
FINE_TOP = Decimal("99999999999999999999.999999999999999999")  # the largest decimal(38,18)
CSV_TEXT = "name,amount,id,extra\nann,10,1,x\nbob,12.5,2,y\nCAT,-1,2,z\ndee,x,,w\n"


def _frames(spark) -> dict:
    now = datetime.now(timezone.utc).replace(tzinfo=None, microsecond=0)  # taken when the data is made: ages are measured from the run
    names = ["first name", "a.b", 'quo"te', "it's", "größe", "日本", "select", "x; DROP TABLE y", "--c", "a/*b*/", "d", "m", "pass",
             "tick`name"]
    from pyspark.sql import types as T

    kinds = {'quo"te': T.IntegerType(), "größe": T.DoubleType()}
    schema = T.StructType([T.StructField(n, kinds.get(n, T.StringType())) for n in names])
    rows = [
        ("ann", "abc", 1, "p", 1.5, "u", "s1", "v1", "c", "d", "d", "mm", "p", "t"),
        ("bo", "ABC", 11, "p", 0.5, None, "s1", "v1", None, "d", None, "m", "p", "t"),
        ("A", None, -1, None, None, "u", None, "bad", "c", None, "d", None, None, None),
        (None, "x", None, "q", 2.0, "u", "s2", None, "c", "d", "d", "mmm", "p", "t"),
    ]
    nested = "s struct<a:string,b:int>, arr array<string>, mp map<string,int>, tags array<string>, codes array<string>"
    return {
        "names": spark.createDataFrame(rows, schema),
        "empty": spark.createDataFrame([], "id int, code string, ts timestamp"),
        "numbers": spark.createDataFrame([
            (1.0, 1.0, 1.0, None, None, TOP, FINE_TOP, Decimal("99999999.99")),
            (NAN, NAN, NAN, None, None, Decimal(-1), Decimal("-0.000000000000000001"), Decimal("0.01")),
            (NAN, -INF, INF, None, None, Decimal(0), Decimal("-0.000000000000000002"), Decimal("0.00")),
            (INF, INF, 10.0, None, None, TOP, Decimal("0.000000000000000001"), None),
            (-INF, 2.0, None, None, None, Decimal(1), None, Decimal("12.34")),
            (None, None, 9.999, None, None, Decimal(2), Decimal(0), Decimal("5.00")),
        ], "x double, f float, e double, nothing int, nothing_s string, big decimal(38,0), fine decimal(38,18), money decimal(10,2)"),
        "times": spark.createDataFrame([
            (now - timedelta(hours=1), now - timedelta(hours=2), date.today()),
            (now - timedelta(days=3), now - timedelta(hours=2), date.today() - timedelta(days=3)),
            (now - timedelta(days=4), now - timedelta(days=5), None),
        ], "ltz timestamp, ntz timestamp_ntz, day date"),
        "nested": spark.createDataFrame([
            (("v", 1), ["x1", "y"], {"k": 1}, ["a"], ["x1"]),
            (None, None, None, ["a"], None),
            (("w", None), [], {}, ["b", "a"], ["x2", "y"]),
        ], nested),
    }


# (check id) -> (outcome, observed); the count both engines report, worked out by hand from the rows
# above (and cross-checked with PySpark in test_data_case_matches_pyspark)
DATA_CASES = {
    # names: each is a column, never SQL
    "names.first name.required": ("failed", 1), "names.first name.unique": ("passed", 0),
    "names.a.b.required": ("failed", 1), "names.a.b.pattern": ("failed", 1),
    'names.quo"te.range': ("failed", 2),
    "names.it's.required": ("failed", 1), "names.it's.unique": ("failed", 2),
    "names.größe.range": ("failed", 1),
    "names.日本.required": ("failed", 1),
    "names.select.required": ("failed", 1), "names.select.unique": ("failed", 2),
    "names.x; DROP TABLE y.required": ("failed", 1), "names.x; DROP TABLE y.pattern": ("failed", 1),
    "names.x; DROP TABLE y.quality[0]": ("failed", 1),
    "names.--c.required": ("failed", 1), "names.a/*b*/.required": ("failed", 1),
    # SodaCL's grammar has tokens `d`, `m`, `pass`: such columns are quoted for Soda
    "names.d.required": ("failed", 1), "names.m.length": ("failed", 1), "names.pass.required": ("failed", 1),
    # empty: the row count fails, value checks pass vacuously (and say so), a NULL metric is an error
    "empty_rows": ("failed", 0), "empty.id.required": ("passed", 0), "empty.id.unique": ("passed", 0),
    "empty.id.range": ("passed", 0), "empty.code.pattern": ("passed", 0), "empty.code.length": ("passed", 0),
    "empty.freshness": ("failed", None),
    # NaN is not null, sorts above every number (Spark), and NaN = NaN; +-infinity are ordinary bounds
    "numbers.x.required": ("failed", 1), "numbers.x.unique": ("failed", 2), "numbers.x.range": ("failed", 4),
    "numbers.f.range": ("failed", 1), "numbers.e.range": ("failed", 3),
    # all-null: required counts every row, the rest has nothing to judge
    "numbers.nothing.required": ("failed", 6), "numbers.nothing.unique": ("passed", 0), "numbers.nothing.range": ("passed", 0),
    "numbers.nothing_s.pattern": ("passed", 0), "numbers.nothing_s.length": ("passed", 0),
    # decimals: the largest values of their precision are inside bounds written at that precision
    "numbers.big.required": ("passed", 0), "numbers.big.unique": ("failed", 2), "numbers.big.range": ("failed", 1),
    "numbers.fine.range": ("failed", 1), "numbers.money.range": ("failed", 1),
    # timestamps with and without time zone, dates
    "times.ltz.unique": ("passed", 0), "times.ntz.unique": ("failed", 2), "times.day.required": ("failed", 1),
    "times.retention": ("failed", 1),
    # nested: the containers are columns like any other; constraints inside them are not run (and say so)
    "nested.s.required": ("failed", 1), "nested.arr.required": ("failed", 1), "nested.mp.required": ("failed", 1),
    "nested.tags.unique": ("failed", 2),
    # the CSV: read by header name, so `id`, `name`, `amount` are right whatever their order; `amount`
    # holds `12.5` and `x`, which are no integers: the column stays text as on disk and its type check
    # fails (never two values quietly read as NULL)
    "csv.id.required": ("failed", 1), "csv.id.unique": ("failed", 2), "csv.name.pattern": ("failed", 1),
    "csv.amount.required": ("passed", 0), "csv.amount.type": ("failed", None),
    # the file has no such column: a judgement about the data, failed (reason: `ghost` is not in the data), never error
    "csv.ghost.required": ("failed", None),
}
# checks that cannot be evaluated: error (never passed), with the reason
DATA_ERRORS = {
    # GX and Soda cannot name a column with a backtick (Spark 3.5: "Syntax error in attribute name: ...", 4.x: "in the attribute name")
    "names.tick`name.required": "attribute name: tick`name",
    "empty_max": "the metric query returned NULL",                  # MAX over no rows
    # `amount` stayed text (`x`): a numeric range on text is no judgement (3.5 would convert, 4.x's ANSI mode fail)
    "csv.amount.range": "holds text; a range with numeric bounds needs a number column",
    "nested.codes.pattern": "is array<string>; a regex check needs a single value per row",  # not Soda's whole scan
}
NOT_RUN = {"nested.s.fields.a": "not checked yet", "nested.arr.items": "not checked yet"}
AGES = {"times.freshness": 3600, "times.freshness~2": 7200}  # newest row: 1 h (ltz), 2 h (ntz) old


@pytest.fixture(scope="module")
def data_run(spark, tmp_path_factory):
    folder = tmp_path_factory.mktemp("bad-data")
    contract = folder / "contract.yaml"
    contract.write_text(DATA_CONTRACT, encoding="utf-8")
    (folder / "csv.csv").write_text(CSV_TEXT)
    frames = {name: frame.localCheckpoint() for name, frame in _frames(spark).items()}
    from dc_bridge.runner.data import DataLocation

    verdict = dc_bridge.run(str(contract), dataframes=frames, data={"csv": DataLocation(str(folder / "csv.csv"), "csv")},
                            spark=spark, samples=False)
    return verdict, frames, folder


def _checks(verdict) -> dict:
    return {c.check_id: c for c in verdict.checks()}


@pytest.mark.parametrize("check_id", sorted(DATA_CASES))
def test_data_case(data_run, check_id):
    verdict, _, _ = data_run
    check = _checks(verdict)[check_id]
    outcome, observed = DATA_CASES[check_id]
    assert (check.outcome, check.observed) == (outcome, observed), (check.reason, check.engines)
    engines = {e: (r.outcome, r.observed) for e, r in check.engines.items()}
    # Soda's schema check takes one exact type: a logical type (a set of Spark types) is GX's alone
    assert set(engines) == ({"gx", "soda"} & set(engines)) and ("soda" in engines or check.kind == "column_type"), engines
    assert all(o == outcome.replace("warning", "failed") for o, _ in engines.values()), engines
    if check_id.startswith("empty.") and outcome == "passed":
        assert check.reason == "passed vacuously: `empty` has no rows, so no value could violate the check"


@pytest.mark.parametrize("check_id", sorted(DATA_ERRORS))
def test_data_case_that_cannot_be_evaluated_is_an_error(data_run, check_id):
    verdict, _, _ = data_run
    check = _checks(verdict)[check_id]
    assert check.outcome == "error" and DATA_ERRORS[check_id] in (check.reason or ""), (check.reason, check.engines)


@pytest.mark.parametrize("check_id", sorted(NOT_RUN))
def test_nested_constraints_are_reported_not_run(data_run, check_id):
    check = _checks(data_run[0])[check_id]
    assert check.outcome == "not_executable" and NOT_RUN[check_id] in check.reason


@pytest.mark.parametrize("check_id", sorted(AGES))
def test_freshness_with_and_without_time_zone(data_run, check_id):
    check = _checks(data_run[0])[check_id]
    assert check.outcome == "passed" and math.isclose(check.observed, AGES[check_id], abs_tol=300), check
    assert set(check.engines) == {"gx", "soda"}


def test_nothing_passes_unevaluated_and_the_exit_code_says_error(data_run):
    verdict, _, _ = data_run
    for check in verdict.checks():
        if check.outcome in ("passed", "warning", "failed"):
            assert check.engines and all(r.outcome != "error" for r in check.engines.values()), check
    assert verdict.outcome == "error" and verdict.exit_code() == 2


def test_csv_columns_are_read_by_name(data_run, spark):
    _, _, folder = data_run
    from dc_bridge.contract.reading.load import load_contract
    from dc_bridge.runner.data import DataLocation, read_location

    model = load_contract(folder / "contract.yaml").contract.model("csv")
    frame = read_location(spark, model, DataLocation(str(folder / "csv.csv"), "csv"))
    assert frame.columns == ["name", "amount", "id", "extra"]
    assert [tuple(r) for r in frame.orderBy("name").collect()] == [
        ("CAT", "-1", 2, "z"), ("ann", "10", 1, "x"), ("bob", "12.5", 2, "y"), ("dee", "x", None, "w")]


def test_data_case_matches_pyspark(data_run):
    """The hand-worked numbers above, recomputed with DataFrame operations for the value checks."""
    from pyspark.sql import functions as F

    verdict, frames, _ = data_run
    numbers, names = frames["numbers"], frames["names"]

    def col(name):
        return F.col("`" + name.replace("`", "``") + "`")

    def outside(frame, name, low=None, high=None, strict_high=False):
        c = col(name)
        bad = F.lit(False)
        if low is not None:
            bad = bad | (c < F.lit(low))
        if high is not None:
            bad = bad | ((c >= F.lit(high)) if strict_high else (c > F.lit(high)))
        return frame.where(c.isNotNull() & bad).count()

    reference = {
        "numbers.x.range": outside(numbers, "x", 0, 100),
        "numbers.f.range": outside(numbers, "f", 0),
        "numbers.e.range": outside(numbers, "e", high=10, strict_high=True),
        "numbers.big.range": outside(numbers, "big", 0, TOP),
        "numbers.fine.range": outside(numbers, "fine", Decimal("-0.000000000000000001"), FINE_TOP),
        "numbers.money.range": outside(numbers, "money", Decimal("0.01"), Decimal(100000000), strict_high=True),
        "numbers.x.required": numbers.where(col("x").isNull()).count(),
        'names.quo"te.range': outside(names, 'quo"te', 0, 10),
        "names.größe.range": outside(names, "größe", 1.0),
    }
    checks = _checks(verdict)
    assert {k: checks[k].observed for k in reference} == {k: float(v) for k, v in reference.items()}


# ---------------------------------------------------------------------------------------------
# models whose data is missing: a clear DataError and exit 2, before any engine runs

MISSING = textwrap.dedent("""
    dataContractSpecification: 1.1.0
    id: missing-data
    info: {title: Missing data, version: 1.0.0}
    servers:
      local: {type: local, format: parquet, path: './nowhere/{model}.parquet'}
      tables: {type: dataframe}
    models:
      orders:
        fields:
          id: {type: integer, required: true}
""")

MISSING_CASES = {
    "server_path_does_not_exist": ([], "does not exist"),
    "data_path_does_not_exist": (["--data", "orders=/nonexistent/orders.parquet"], "cannot read parquet data at /nonexistent/orders.parquet"),
    "data_for_an_unknown_model": (["--data", "customers=/tmp/x.parquet"], "has no model named customers"),
    "data_in_another_format": (["--data", "orders={folder}/orders.csv:parquet"], "cannot read parquet data"),
    "data_is_an_empty_folder": (["--data", "orders={folder}/empty:parquet"], "cannot read parquet data"),
    "data_format_unknown": (["--data", "orders={folder}/orders.txt"], "cannot tell the format"),
    "unknown_server": (["--server", "prod"], "no server named `prod`"),
    "table_does_not_exist": (["--server", "tables"], "table or view `orders`"),
}


@pytest.mark.parametrize("name", sorted(MISSING_CASES))
def test_missing_data_is_a_clear_error(name, spark, tmp_path):
    contract = tmp_path / "contract.yaml"
    contract.write_text(MISSING)
    (tmp_path / "orders.csv").write_text("id\n1\n")
    (tmp_path / "orders.txt").write_text("id\n1\n")
    (tmp_path / "empty").mkdir()
    options, message = MISSING_CASES[name]
    options = [o.replace("{folder}", str(tmp_path)) for o in options]
    result = CliRunner().invoke(main, ["run", str(contract), *options])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert result.exit_code == 2, result.output
    assert result.output.startswith("dc-bridge run: ") and message in result.output, result.output


def test_a_model_without_data_is_a_data_error_in_the_api(spark, tmp_path):
    contract = tmp_path / "contract.yaml"
    contract.write_text(MISSING.replace("servers:\n  local: {type: local, format: parquet, path: './nowhere/{model}.parquet'}\n  tables: {type: dataframe}\n", ""))
    from dc_bridge.runner.data import DataError

    with pytest.raises(DataError, match="model `orders`: no data. Pass --data orders=PATH"):
        dc_bridge.run(str(contract), spark=spark)
