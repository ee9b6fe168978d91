"""Inheritance (`x-dc-bridge-extends`): a child contract may tighten its ancestors, never weaken them.

The three-tier scenarios are seed 003's (User Story 3): an enterprise contract, a domain contract
that extends it, a product contract that extends the domain. Each scenario asserts the exact finding
`dc-bridge lint` reports: code, file, path, line, message, expected and found.
"""

from __future__ import annotations

import json
from pathlib import Path
from textwrap import dedent

import pytest
from click.testing import CliRunner

from dc_bridge.cli import main
from dc_bridge.contract.lint import lint_file

INHERITANCE_CODES = {"DCB101", "DCB240", "DCB241", "DCB242", "DCB243", "DCB244", "DCB245"}


def write(directory: Path, name: str, text: str) -> Path:
    path = directory / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def findings(path: Path) -> list[tuple]:
    """(code, file name, path, line, message, expected, found) of the inheritance findings of a lint."""
    return [(f.code, Path(f.file).name, f.path, f.line, f.message, f.expected, f.found)
            for f in lint_file(str(path)).findings if f.code in INHERITANCE_CODES]


def odcs(name: str, *, extends: str | None = None, sla: str = "", email: str = "") -> str:
    """An ODCS 3.1 contract; `extends` is the list written in customProperties, `email` the property's extra keys."""
    parents = f"customProperties:\n  - property: x-dc-bridge-extends\n    value: {extends}\n" if extends else ""
    return (f"apiVersion: v3.1.0\nkind: DataContract\nid: {name}\nname: {name}\nversion: 1.0.0\nstatus: active\n{parents}"
            f"schema:\n  - name: customers\n    properties:\n      - name: email\n        logicalType: string\n"
            + "".join(f"        {line}\n" for line in dedent(email).strip().splitlines())
            + "      - name: updated_at\n        logicalType: timestamp\n"
            + (f"slaProperties:\n{dedent(sla).strip()}\n" if sla.strip() else ""))


def dcs(name: str, *, extends: str | None = None, servicelevels: str = "", email: str = "{type: string}") -> str:
    """A DCS contract; `extends` is written as the top-level x-dc-bridge-extends."""
    parents = f"x-dc-bridge-extends: {extends}\n" if extends else ""
    return (f"dataContractSpecification: 1.1.0\nid: {name}\ninfo:\n  title: {name}\n  version: 1.0.0\n{parents}"
            f"models:\n  customers:\n    fields:\n      email: {email}\n      updated_at: {{type: timestamp}}\n"
            + (f"servicelevels:\n{servicelevels.rstrip()}\n" if servicelevels.strip() else ""))


FRESHNESS_6H = "  - {property: freshness, value: PT6H, element: customers.updated_at}"
COMPLETENESS = "quality:\n  - {metric: nullValues, unit: percent, mustBeLessOrEqualTo: %s}"


# ---------------------------------------------------------------------------------------------
# seed 003, User Story 3


def test_freshness_pt12h_weakens_enterprise_pt6h(tmp_path):
    write(tmp_path, "enterprise.yaml", odcs("enterprise", sla=FRESHNESS_6H))
    domain = write(tmp_path, "domain.yaml", dcs("domain", extends="[enterprise.yaml]",
                                                servicelevels="  freshness: {threshold: PT12H, timestampField: customers.updated_at}"))
    assert findings(domain) == [
        ("DCB240", "domain.yaml", "servicelevels.freshness", 13, "freshness PT12H is weaker than PT6H required by enterprise.yaml",
         "at most PT6H (enterprise.yaml)", "PT12H"),
    ]


def test_freshness_pt2h_strengthens_enterprise_pt6h(tmp_path):
    write(tmp_path, "enterprise.yaml", odcs("enterprise", sla=FRESHNESS_6H))
    domain = write(tmp_path, "domain.yaml", dcs("domain", extends="[enterprise.yaml]",
                                                servicelevels="  freshness: {threshold: PT2H, timestampField: customers.updated_at}"))
    assert findings(domain) == []
    assert not [f for f in lint_file(str(domain)).findings if f.level == "error"]


def test_completeness_95_weakens_enterprise_99_through_a_domain(tmp_path):
    write(tmp_path, "enterprise.yaml", odcs("enterprise", email=COMPLETENESS % 1))
    write(tmp_path, "domain.yaml", odcs("domain", extends="[enterprise.yaml]"))  # restates nothing: inherits
    product = write(tmp_path, "product.yaml", odcs("product", extends="[domain.yaml]", email=COMPLETENESS % 5))
    assert findings(product) == [
        ("DCB241", "product.yaml", "schema[0].properties[0].quality[0]", 16,
         "`customers.email` quality rule `nullValues` is weaker than in enterprise.yaml: "
         "nullValues <= 1% (completeness >= 99%) -> nullValues <= 5% (completeness >= 95%)",
         "nullValues <= 1% (completeness >= 99%), severity error, or stricter (enterprise.yaml)",
         "nullValues <= 5% (completeness >= 95%), severity error"),
    ]


def test_availability_99_0_weakens_enterprise_99_9(tmp_path):
    write(tmp_path, "enterprise.yaml", odcs("enterprise", sla="  - {property: availability, value: 99.9, unit: percent}"))
    write(tmp_path, "domain.yaml", dcs("domain", extends="enterprise.yaml"))
    product = write(tmp_path, "product.yaml", odcs("product", extends="[domain.yaml]",
                                                   sla="  - {property: availability, value: 99.0, unit: percent}"))
    assert findings(product) == [
        ("DCB240", "product.yaml", "slaProperties[0]", 18, "availability 99% is weaker than 99.9% required by enterprise.yaml",
         "at least 99.9% (enterprise.yaml)", "99%"),
    ]


def test_availability_written_in_dcs_compares_with_odcs(tmp_path):
    write(tmp_path, "enterprise.yaml", dcs("enterprise", servicelevels="  availability: {percentage: 99.9%}"))
    stronger = write(tmp_path, "a.yaml", odcs("a", extends="[enterprise.yaml]", sla="  - {property: availability, value: 99.95, unit: percent}"))
    weaker = write(tmp_path, "b.yaml", odcs("b", extends="[enterprise.yaml]", sla="  - {property: availability, value: 99.5, unit: percent}"))
    assert findings(stronger) == []
    assert [f[4] for f in findings(weaker)] == ["availability 99.5% is weaker than 99.9% required by enterprise.yaml"]


# ---------------------------------------------------------------------------------------------
# three tiers: the child answers to every ancestor


def test_product_answers_to_the_enterprise_even_where_the_domain_is_looser(tmp_path):
    write(tmp_path, "enterprise.yaml", odcs("enterprise", sla=FRESHNESS_6H))
    write(tmp_path, "domain.yaml", odcs("domain", extends="[enterprise.yaml]",
                                        sla="  - {property: freshness, value: 12, unit: h, element: customers.updated_at}"))
    product = write(tmp_path, "product.yaml", odcs("product", extends="[domain.yaml]",
                                                   sla="  - {property: freshness, value: 8, unit: h, element: customers.updated_at}"))
    # 8 h is stronger than the domain's 12 h, weaker than the enterprise's PT6H
    assert [(f[0], f[1], f[4]) for f in findings(product)] == [
        ("DCB240", "product.yaml", "freshness 8 h is weaker than PT6H required by enterprise.yaml")]


def test_weaker_than_two_ancestors_is_reported_against_each(tmp_path):
    write(tmp_path, "enterprise.yaml", odcs("enterprise", sla=FRESHNESS_6H))
    write(tmp_path, "domain.yaml", odcs("domain", extends="[enterprise.yaml]",
                                        sla="  - {property: freshness, value: 4, unit: h, element: customers.updated_at}"))
    product = write(tmp_path, "product.yaml", odcs("product", extends="[domain.yaml]",
                                                   sla="  - {property: freshness, value: 1, unit: d, element: customers.updated_at}"))
    assert [f[4] for f in findings(product)] == ["freshness 1 d is weaker than 4 h required by domain.yaml",
                                                 "freshness 1 d is weaker than PT6H required by enterprise.yaml"]


def test_a_diamond_reaches_the_enterprise_once(tmp_path):
    write(tmp_path, "enterprise.yaml", odcs("enterprise", sla=FRESHNESS_6H))
    write(tmp_path, "sales.yaml", odcs("sales", extends="[enterprise.yaml]"))
    write(tmp_path, "marketing.yaml", odcs("marketing", extends="[enterprise.yaml]"))
    product = write(tmp_path, "product.yaml", odcs("product", extends="[sales.yaml, marketing.yaml]",
                                                   sla="  - {property: freshness, value: PT7H, element: customers.updated_at}"))
    assert [f[4] for f in findings(product)] == ["freshness PT7H is weaker than PT6H required by enterprise.yaml"]


def test_parent_in_another_folder(tmp_path):
    write(tmp_path, "enterprise.yaml", odcs("enterprise", sla=FRESHNESS_6H))
    product = write(tmp_path / "products", "product.yaml", odcs("product", extends="[../enterprise.yaml]",
                                                               sla="  - {property: freshness, value: PT7H, element: customers.updated_at}"))
    assert [f[4] for f in findings(product)] == ["freshness PT7H is weaker than PT6H required by ../enterprise.yaml"]


# ---------------------------------------------------------------------------------------------
# every kind of weakening, and what is allowed


@pytest.mark.parametrize(("parent", "child", "expected"), [
    # retention and latency: shorter retention and longer latency are weaker
    (dcs("p", servicelevels="  retention: {period: P1Y, timestampField: customers.updated_at}"),
     dcs("c", extends="p.yaml", servicelevels="  retention: {period: P6M, timestampField: customers.updated_at}"),
     [("DCB240", "retention P6M is weaker than P1Y required by p.yaml")]),
    (odcs("p", sla="  - {property: latency, value: 1, unit: h, element: customers.updated_at}"),
     odcs("c", extends="[p.yaml]", sla="  - {property: latency, value: 2, unit: h, element: customers.updated_at}"),
     [("DCB240", "latency 2 h is weaker than 1 h required by p.yaml")]),
    # a required flag removed
    (dcs("p", email="{type: string, required: true}"), dcs("c", extends="p.yaml", email="{type: string}"),
     [("DCB243", "`customers.email` is optional, but p.yaml requires it")]),
    # PII marking removed (DCS flag) and classification lowered
    (dcs("p", email="{type: string, pii: true, classification: confidential}"),
     dcs("c", extends="p.yaml", email="{type: string, classification: internal}"),
     [("DCB242", "`customers.email` is not marked PII, but p.yaml marks it"),
      ("DCB242", "`customers.email` classification 'internal' is lower than 'confidential' required by p.yaml")]),
    # classification removed
    (odcs("p", email="classification: restricted"), odcs("c", extends="[p.yaml]"),
     [("DCB242", "`customers.email` classification none is lower than 'restricted' required by p.yaml")]),
    # a quality rule's severity lowered
    (odcs("p", email="quality:\n  - {metric: nullValues, mustBe: 0}"),
     odcs("c", extends="[p.yaml]", email="quality:\n  - {metric: nullValues, mustBe: 0, severity: warning}"),
     [("DCB241", "`customers.email` quality rule `nullValues` is weaker than in p.yaml: severity error -> warning")]),
    # everything stronger: allowed
    (odcs("p", email="classification: internal\nquality:\n  - {metric: nullValues, unit: percent, mustBeLessOrEqualTo: 5}",
          sla="  - {property: retention, value: 1, unit: y, element: customers.updated_at}"),
     odcs("c", extends="[p.yaml]", email="required: true\nclassification: restricted\n"
                                        "quality:\n  - {metric: nullValues, unit: percent, mustBeLessOrEqualTo: 1}",
          sla="  - {property: retention, value: 2, unit: y, element: customers.updated_at}"),
     []),
    # nothing restated: inherited, not weakened
    (odcs("p", email="required: true\nclassification: restricted", sla=FRESHNESS_6H), dcs("c", extends="p.yaml", email="{type: string, required: true}")
     .replace("email: {type: string, required: true}", "email: {type: string, required: true, classification: restricted}"), []),
], ids=["retention", "latency", "required", "pii-and-classification", "classification-removed", "severity", "stronger", "inherited"])
def test_weakening(tmp_path, parent, child, expected):
    write(tmp_path, "p.yaml", parent)
    contract = write(tmp_path, "c.yaml", child)
    assert [(f[0], f[4]) for f in findings(contract)] == expected


def test_nested_field_required_by_the_parent(tmp_path):
    nested = "customer:\n  type: object\n  fields:\n    id: {type: string%s}"
    write(tmp_path, "p.yaml", dcs("p").replace("      email: {type: string}\n", "      email: {type: string}\n"
                                                "      " + (nested % ", required: true").replace("\n", "\n      ") + "\n"))
    child = write(tmp_path, "c.yaml", dcs("c", extends="p.yaml").replace(
        "      email: {type: string}\n", "      email: {type: string}\n      " + (nested % "").replace("\n", "\n      ") + "\n"))
    assert [(f[0], f[2], f[4]) for f in findings(child)] == [
        ("DCB243", "models.customers.fields.customer.fields.id", "`customers.customer.id` is optional, but p.yaml requires it")]


# ---------------------------------------------------------------------------------------------
# cycles, missing parents, wrong declarations


def test_cycle_is_reported_with_its_path(tmp_path):
    a = write(tmp_path, "a.yaml", dcs("a", extends="b.yaml"))
    write(tmp_path, "b.yaml", odcs("b", extends="[c.yaml]"))
    write(tmp_path, "c.yaml", dcs("c", extends="[a.yaml]"))
    assert findings(a) == [
        ("DCB245", "c.yaml", "x-dc-bridge-extends[0]", 6, "inheritance cycle: a.yaml -> b.yaml -> c.yaml -> a.yaml",
         "no contract among its own ancestors", "a.yaml -> b.yaml -> c.yaml -> a.yaml"),
    ]


def test_a_contract_that_extends_itself(tmp_path):
    a = write(tmp_path, "a.yaml", odcs("a", extends="[a.yaml]"))
    assert findings(a) == [("DCB245", "a.yaml", "customProperties[0].value[0]", 9, "inheritance cycle: a.yaml -> a.yaml",
                            "no contract among its own ancestors", "a.yaml -> a.yaml")]


def test_missing_parent_is_reported_at_the_line_that_names_it(tmp_path):
    product = write(tmp_path, "product.yaml", dcs("product", extends="[domain.yaml, ../platform/enterprise.yaml]"))
    write(tmp_path, "domain.yaml", dcs("domain"))
    assert findings(product) == [
        ("DCB244", "product.yaml", "x-dc-bridge-extends[1]", 6, "parent contract ../platform/enterprise.yaml does not exist",
         "an existing contract file, relative to this one", str(tmp_path / "../platform/enterprise.yaml")),
    ]


def test_missing_grandparent_is_reported_in_the_parent(tmp_path):
    write(tmp_path, "domain.yaml", odcs("domain", extends="[enterprise.yaml]"))
    product = write(tmp_path, "product.yaml", dcs("product", extends="domain.yaml"))
    assert [(f[0], f[1], f[2], f[3], f[4]) for f in findings(product)] == [
        ("DCB244", "domain.yaml", "customProperties[0].value[0]", 9, "parent contract enterprise.yaml does not exist")]


@pytest.mark.parametrize(("parent_text", "problem"), [
    ("- just\n- a list\n", "cannot be read: "),
    ("apiVersion: v3.1.0\nkind: DataContract\nid: lib\nquality:\n  - {id: q, metric: rowCount, mustBeGreaterThan: 0}\n",
     "is a quality-rule library, not a contract"),
])
def test_parent_that_is_not_a_contract(tmp_path, parent_text, problem):
    write(tmp_path, "parent.yaml", parent_text)
    child = write(tmp_path, "child.yaml", dcs("child", extends="parent.yaml"))
    ((code, _, path, _, message, _, _),) = findings(child)
    assert (code, path) == ("DCB244", "x-dc-bridge-extends")
    assert message.startswith(f"parent contract parent.yaml {problem}")


def test_declaration_that_is_not_a_path(tmp_path):
    child = write(tmp_path, "child.yaml", dcs("child", extends="[12]"))
    assert findings(child) == [("DCB101", "child.yaml", "x-dc-bridge-extends[0]", 6, "`x-dc-bridge-extends` must name parent contract files",
                                "a path or a list of paths", "12")]


# ---------------------------------------------------------------------------------------------
# dc-bridge lint


def test_lint_reports_weakening_with_exit_1_in_every_format(tmp_path):
    write(tmp_path, "enterprise.yaml", odcs("enterprise", sla=FRESHNESS_6H))
    domain = write(tmp_path, "domain.yaml", dcs("domain", extends="[enterprise.yaml]",
                                                servicelevels="  freshness: {threshold: PT12H, timestampField: customers.updated_at}"))
    result = CliRunner().invoke(main, ["lint", str(domain)])
    assert result.exit_code == 1, result.output
    assert (f"{domain}:13: error DCB240 at servicelevels.freshness: freshness PT12H is weaker than PT6H required by enterprise.yaml\n"
            "    expected at most PT6H (enterprise.yaml); found PT12H\n"
            "    fix: Keep the parent's service level or make it stricter.") in result.output
    report = json.loads(CliRunner().invoke(main, ["lint", "--format", "json", str(domain)]).output)
    assert [f["code"] for f in report["findings"]] == ["DCB240"]
    sarif = json.loads(CliRunner().invoke(main, ["lint", "--format", "sarif", str(domain)]).output)
    assert [r["ruleId"] for r in sarif["runs"][0]["results"]] == ["DCB240"]


def test_odcs_declaration_passes_the_odcs_schema(tmp_path):
    write(tmp_path, "enterprise.yaml", odcs("enterprise"))
    product = write(tmp_path, "product.yaml", odcs("product", extends="[enterprise.yaml]"))
    assert [f.code for f in lint_file(str(product)).findings] == []
