"""Lint holds a contract's own examples to its rules (contract/lint/examples.py, DCB166/DCB167): field and model
examples of DCS, property examples of ODCS; the bundled contracts' examples keep their own rules."""

from pathlib import Path

import pytest

from dc_bridge.contract.findings import CONFORMANCE_CODES
from dc_bridge.contract.formats import FORMATS
from dc_bridge.contract.lint import lint_file
from dc_bridge.contract.lint.examples import python_form

CONTRACTS = Path(__file__).resolve().parent.parent / "contracts"

DCS = """\
dataContractSpecification: 1.1.0
id: urn:datacontract:shop:orders
info:
  title: Orders
  version: 1.0.0
models:
  orders:
    fields:
{fields}
{model}"""

ODCS = """\
apiVersion: v3.1.0
kind: DataContract
id: urn:shop:orders
version: 1.0.0
status: active
schema:
  - name: orders
    properties:
{properties}"""


def findings(tmp_path, text, codes=("DCB166", "DCB167")):
    path = tmp_path / "contract.yaml"
    path.write_text(text, encoding="utf-8")
    return [(f.code, f.line, f.path, f.message) for f in lint_file(path).findings if f.code in codes]


def dcs(fields, model=""):
    return DCS.format(fields=fields, model=model)


def test_a_field_example_that_breaks_its_pattern_is_reported_at_its_line(tmp_path):
    text = dcs("""\
      order_id:
        type: string
        pattern: ^ORD-[0-9]{6}$
        examples:
          - ORD-000123
          - ORD-12""")
    assert findings(tmp_path, text) == [
        ("DCB166", 14, "models.orders.fields.order_id.examples[1]",
         "example 'ORD-12' breaks `orders.order_id`'s pattern `^ORD-[0-9]{6}$`")]


def test_a_model_example_row_that_breaks_a_range_is_reported_at_the_row(tmp_path):
    text = dcs("""\
      order_id: {type: string}
      amount:
        type: long
        minimum: 0
        maximum: 100000""", """\
    examples:
      - |
        order_id,amount
        A1,2500
        A2,-5
        A3,100001
""")
    assert findings(tmp_path, text) == [
        ("DCB166", 18, "models.orders.examples[0]", "example 1, row 2: '-5' breaks `orders.amount`'s minimum 0"),
        ("DCB166", 19, "models.orders.examples[0]", "example 1, row 3: '100001' breaks `orders.amount`'s maximum 100000"),
    ]


@pytest.mark.parametrize("field, examples, expected", [
    # (field's rules, its examples, the messages after `example `)
    ("type: long", "[12, '13', abc, 1.5]", ["'abc' is no `long` value, the type of `orders.x`", "1.5 is no `long` value, the type of `orders.x`"]),
    ("type: integer", "[2147483647, 2147483648]", ["2147483648 is no `integer` value, the type of `orders.x`"]),
    ("type: date", "['2024-02-29', '2024-02-29T10:00:00Z', '2023-02-29', '2024-01-01x']",
     ["'2023-02-29' is no `date` value, the type of `orders.x`", "'2024-01-01x' is no `date` value, the type of `orders.x`"]),
    ("{type: time, maximum: '18:00'}", "['9:30', '17:59:59.5', '18:30', '25:00']",
     ["'18:30' breaks `orders.x`'s maximum 18:00", "'25:00' is no `time` value, the type of `orders.x`"]),
    ("type: timestamp", "['2024-09-09T08:30:00Z', '2024-09-09 08:30:00', 'yesterday']",
     ["'yesterday' is no `timestamp` value, the type of `orders.x`"]),
    ("type: boolean", "[true, 'false', maybe]", ["'maybe' is no `boolean` value, the type of `orders.x`"]),
    ("{type: string, required: true}", "[a, null]", ["null breaks `orders.x`'s required"]),
    ("{type: string, enum: [EUR, USD]}", "[EUR, GBP]", ["'GBP' breaks `orders.x`'s enum [EUR, USD]"]),
    ("{type: integer, enum: [1, 2]}", "[1, '2', 3]", ["3 breaks `orders.x`'s enum [1, 2]"]),
    ("{type: string, minLength: 2, maxLength: 3}", "[ab, a, abcd]",
     ["'a' breaks `orders.x`'s minLength 2", "'abcd' breaks `orders.x`'s maxLength 3"]),
    ("{type: string, format: email}", "[a@example.com, not-an-email]", ["'not-an-email' breaks `orders.x`'s format `email`"]),
    ("{type: double, exclusiveMinimum: 0}", "[0.5, 0]", ["0 breaks `orders.x`'s exclusiveMinimum 0"]),
    ("{type: date, minimum: '2010-01-01'}", "['2010-01-01', '2009-12-31']", ["'2009-12-31' breaks `orders.x`'s minimum 2010-01-01"]),
    # a number YAML read for a string field is its written text: 00123 keeps the pattern
    ("{type: string, pattern: '^[0-9]{5}$'}", "[00123, 0x1F]", ["31 breaks `orders.x`'s pattern `^[0-9]{5}$`"]),
    # Spark's rlike finds the pattern anywhere in the value
    ("{type: string, pattern: '[0-9]'}", "[a1b, abc]", ["'abc' breaks `orders.x`'s pattern `[0-9]`"]),
])
def test_field_rules(tmp_path, field, examples, expected):
    text = dcs(f"      x: {{{field.strip('{}')}, examples: {examples}}}")
    assert [m.removeprefix("example ") for _, _, _, m in findings(tmp_path, text)] == expected


def test_examples_of_a_definition_are_held_to_the_field_that_takes_it(tmp_path):
    text = dcs("""\
      sku:
        $ref: '#/definitions/sku'
        maxLength: 8""") + """\
definitions:
  sku:
    type: string
    pattern: ^[A-Z0-9]+$
    examples:
      - ABC123
      - abc
      - ABCDEFGHIJ
"""
    assert findings(tmp_path, text) == [
        ("DCB166", 18, "definitions.sku.examples[1]", "example 'abc' breaks `orders.sku`'s pattern `^[A-Z0-9]+$`"),
        ("DCB166", 19, "definitions.sku.examples[2]", "example 'ABCDEFGHIJ' breaks `orders.sku`'s maxLength 8"),
    ]


def test_model_rows_keep_unique_the_primary_key_and_required(tmp_path):
    text = dcs("""\
      id: {type: string, unique: true, required: true}
      line: {type: integer}
      note: {type: string}""", """\
    primaryKey: [id, line]
    examples:
      - |
        id,line,note
        A,1,x
        A,2,
        B,1,"quoted, with a comma"
        ,3,y
      - {id: C, line: 1, note: z}
      - {id: C, line: one}
      - [not, a, row]
""")
    assert findings(tmp_path, text) == [
        ("DCB166", 17, "models.orders.examples[0]", "example 1, row 2: 'A' repeats row 1, but `orders.id` is unique"),
        ("DCB166", 19, "models.orders.examples[0]", "example 1, row 4: null breaks `orders.id`'s required"),
        ("DCB166", 21, "models.orders.examples[2]", "example 3, row 1: 'one' is no `integer` value, the type of `orders.line`"),
        ("DCB167", 22, "models.orders.examples[3]",
         "example 4 of model `orders` is neither CSV text nor a mapping of one row; it was not checked"),
    ]


def test_odcs_property_examples_and_nested_values(tmp_path):
    text = ODCS.format(properties="""\
      - name: status
        logicalType: string
        examples: [open, lost]
        quality:
          - type: library
            metric: invalidValues
            arguments: {validValues: [open]}
            mustBe: 0
      - name: code
        logicalType: string
        logicalTypeOptions: {pattern: '^[A-Z]{3}$', maxLength: 3}
        examples: [EUR, eur]
      - name: tags
        logicalType: array
        items: {name: tag, logicalType: string, logicalTypeOptions: {minLength: 2}}
        examples:
          - [ab, c]
""")
    assert findings(tmp_path, text) == [
        ("DCB166", 20, "schema[0].properties[1].examples[1]", "example 'eur' breaks `orders.code`'s pattern `^[A-Z]{3}$`"),
        ("DCB166", 25, "schema[0].properties[2].examples[0]", "example 'c' breaks `orders.tags[1]`'s minLength 2"),
    ]


@pytest.mark.parametrize("pattern, text, reported", [
    # not in the syntax Java and Python share: not matched, said so (DCB167), never a false DCB166
    (r"^\p{Lu}+$", "ABC", "DCB167"),
    (r"^\QA.B\E$", "A.B", "DCB167"),
    (r"^[a-z&&[^x]]+$", "abc", "DCB167"),
    (r"^a++$", "aaa", "DCB167"),
    (r"^(?<n>a)\k<n>$", "aa", "DCB167"),
    (r"^abc\z", "abc", "DCB167"),
    # a pattern that can backtrack catastrophically (DCB142) is never run on an example
    (r"^(a+)+$", "aaaa", "DCB167"),
    # \w is ASCII in Java unless a flag says otherwise: matched only on ASCII text
    (r"^\w+$", "Zoë", "DCB167"),
    (r"^\w+$", "Zoe!", "DCB166"),
    (r"^\w+$", "Zoe", None),
    (r"^[A-Za-zë]+$", "Zoë", None),
    # a line terminator only Java knows changes `$`: not matched
    (r"^a$", "a\r", "DCB167"),
    (r"(?i)^abc$", "ABC", None),
    (r"^\d{3}-\d{2}$", "123-45", None),
    (r"^\x41\u0042$", "AB", None),
    (r"^[\-\.]+$", "-.", None),
])
def test_patterns_are_matched_only_where_java_and_python_agree(tmp_path, pattern, text, reported):
    contract = dcs("      x:\n        type: string\n        pattern: '" + pattern.replace("'", "''") + "'\n        examples: [" + repr(text).replace("\\r", "\\r").replace("'", '"') + "]")
    codes = [code for code, _, _, _ in findings(tmp_path, contract)]
    assert codes == ([reported] if reported else [])


def test_every_format_expression_is_in_the_shared_syntax():
    # a format is matched by lint as by the engines; none may fall back to DCB167
    assert [name for name, regex in FORMATS.items() if python_form(regex) is None] == []


def test_an_example_error_is_one_of_conformance_compile_and_run_go_on():
    assert "DCB166" in CONFORMANCE_CODES


@pytest.mark.parametrize("name", sorted(p.name for p in CONTRACTS.glob("*.yaml")))
def test_the_bundled_contracts_examples_keep_their_own_rules(name):
    result = lint_file(CONTRACTS / name)
    assert [(f.code, f.line, f.message) for f in result.findings if f.code in ("DCB166", "DCB167")] == []


MATCHER = """\
import java.util.Base64;
import java.util.regex.Pattern;
import java.io.*;

public class Match {
    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
        String line;
        while ((line = in.readLine()) != null) {
            String[] parts = line.split(" ", 2);
            String pattern = new String(Base64.getDecoder().decode(parts[0]), "UTF-8");
            String text = new String(Base64.getDecoder().decode(parts[1]), "UTF-8");
            System.out.println(Pattern.compile(pattern).matcher(text).find());
        }
    }
}
"""

SHARED_PATTERNS = [r"^[A-Za-z0-9]{8,14}$", r"^\w+@\w+\.\w{2,}$", r"\d", r"^\s*$", r"^(?:ab|cd)+?x", r"\bword\b", r"(?i)^straße|abc$",
                   r"^[^,]*,[^,]*$", r"a.c", r"^a$", r"(?=.*\d)(?!.*x).{3,}", r"^[\x41-\x5A]+$", r"^\u00e9+$", r"^[\w.-]+$", r"[\[\]]"]
TEXTS = ["ABCDEFGH", "abc", "a1", "", "   ", "ababx", "word here", "swordfish", "STRASSE", "ABC", "x,y", "a,b,c", "a\nc", "a\n",
         "été", "ÉTÉ", "zoë@ex.am", "x@y.com", "1x2", "ZZZ", "[", "a.b-c", "123456789012345"]


def test_where_python_matches_a_pattern_it_agrees_with_java(tmp_path):
    """The oracle is java.util.regex itself (what Spark's rlike runs), not the code under test."""
    import base64
    import shutil
    import subprocess

    from dc_bridge.contract.lint.examples import _java_find, _Unjudged

    java = shutil.which("java")
    if java is None:
        pytest.skip("no java")
    (tmp_path / "Match.java").write_text(MATCHER)
    cases = [(p, t, _java_find(p, t)) for p in SHARED_PATTERNS for t in TEXTS]
    judged = [(p, t, found) for p, t, found in cases if not isinstance(found, _Unjudged)]
    assert len(judged) > len(cases) * 3 // 4  # most of the table is judged here, not left to DCB167
    lines = "".join(f"{base64.b64encode(p.encode()).decode()} {base64.b64encode(t.encode()).decode()}\n" for p, t, _ in judged)
    out = subprocess.run([java, str(tmp_path / "Match.java")], input=lines, capture_output=True, text=True, timeout=120, check=True)
    java_says = [line == "true" for line in out.stdout.splitlines()]
    assert [(p, t, found) for (p, t, found), by_java in zip(judged, java_says) if found != by_java] == []
