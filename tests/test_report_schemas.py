"""Every report validates against its format's official schema and agrees with the verdict, for every
name a contract can hold (issue 24, class 7): JUnit against the Jenkins xUnit junit-10.xsd, SARIF
against OASIS's SARIF 2.1.0 JSON schema, the HTML page's ids unique and every in-page link resolving
(tests/schemas/README.md says where the schemas come from and under which licence)."""

from __future__ import annotations

import json
import textwrap
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote

import pytest
from click.testing import CliRunner

from dc_bridge.cli import main

SCHEMAS = Path(__file__).parent / "schemas"
# names a contract can hold: spaces, `#`, `%`, unicode, and names that differ only in punctuation
NAMES = ["order lines", "order-lines", "order_lines", "#tags", "100% done", "Bestellungen Straße", "注文"]


def _contract(folder: Path, file_name: str) -> Path:
    fields = "\n".join(f"      {json.dumps(n)}: {{type: string, required: true, maxLength: 3}}" for n in ["id"])
    models = "\n".join(f"  {json.dumps(n)}:\n    fields:\n{fields}" for n in NAMES)
    path = folder / file_name
    path.write_text(textwrap.dedent("""\
        dataContractSpecification: 1.1.0
        id: "urn:names #1 100%"
        info: {title: names, version: 1.0.0}
        servers:
          local: {type: local, path: "./{model}.csv", format: csv}
        models:
        """) + models + "\n", encoding="utf-8")
    return path


def _data(folder: Path) -> list[str]:
    """Each model's CSV, where the contract's server finds it; every other model has a value too long."""
    for i, name in enumerate(NAMES):
        (folder / f"{name}.csv").write_text("id\nab\nabcd\n" if i % 2 else "id\nab\n", encoding="utf-8")
    return []


@pytest.fixture(scope="module")
def reports(tmp_path_factory, spark):
    """One real run (native engine) of a contract with hostile names beside a contract whose data cannot be
    read, as JUnit and HTML; and lint's SARIF for a file whose name holds the same characters."""
    folder = tmp_path_factory.mktemp("names #1 100% ü")
    checked = _contract(folder, "names #1 100% ü.yaml")
    unread = folder / "unread.yaml"
    unread.write_text("dataContractSpecification: 1.1.0\nid: unread\ninfo: {title: u, version: 1.0.0}\n"
                      "servers:\n  local: {type: local, path: ./nothing.parquet, format: parquet}\n"
                      "models:\n  gone:\n    fields:\n      id: {type: string}\n", encoding="utf-8")
    out = {}
    for output in ("junit", "html"):
        target = folder / f"report.{output}"
        result = CliRunner().invoke(main, ["run", str(checked), str(unread), *_data(folder), "--engines", "spark",
                                           "--output", output, "--output-file", str(target)], catch_exceptions=False)
        assert result.exit_code == 2, result.output
        out[output] = target.read_text(encoding="utf-8")
    single = folder / "single.xml"
    result = CliRunner().invoke(main, ["run", str(checked), *_data(folder), "--engines", "spark", "--output", "junit",
                                       "--output-file", str(single)], catch_exceptions=False)
    assert result.exit_code == 1, result.output
    out["junit_single"] = single.read_text(encoding="utf-8")
    broken = folder / "broken #2 100% ü.yaml"
    broken.write_text("dataContractSpecification: 1.1.0\nid: b\ninfo: {title: b, version: 1.0.0}\n"
                      "models:\n  m:\n    fields:\n      id: {type: strng}\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["lint", str(broken), str(checked), "--format", "sarif"], catch_exceptions=False)
    out["sarif"], out["sarif_files"] = result.output, (broken, checked)
    return out


@pytest.mark.parametrize("which", ["junit", "junit_single"])
def test_junit_validates_against_the_xsd_and_its_counts_agree_with_its_cases(reports, which):
    import xmlschema

    schema = xmlschema.XMLSchema(str(SCHEMAS / "junit-10.xsd"))
    text = reports[which]
    schema.validate(text)
    root = ET.fromstring(text)
    cases = list(root.iter("testcase"))
    for scope in [root, *root.findall("testsuite")]:
        scoped = list(scope.iter("testcase"))
        assert int(scope.get("tests")) == len(scoped)
        assert int(scope.get("failures")) == sum(c.find("failure") is not None for c in scoped)
        assert int(scope.get("errors")) == sum(c.find("error") is not None for c in scoped)
    names = {c.get("classname").rsplit(".", 1)[-1] for c in cases if c.get("name") != "contract"}
    assert set(NAMES) <= names
    if which == "junit":  # the contract that could not be checked is an error, counted as one
        assert int(root.get("errors")) >= 1 and any(c.get("name") == "contract" for c in cases)


def test_sarif_validates_against_the_official_schema_and_names_the_files(reports):
    import jsonschema

    schema = json.loads((SCHEMAS / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
    sarif = json.loads(reports["sarif"])
    jsonschema.Draft4Validator(schema, format_checker=jsonschema.FormatChecker()).validate(sarif)
    broken, checked = reports["sarif_files"]
    run = sarif["runs"][0]
    uris = [a["location"]["uri"] for a in run["artifacts"]]
    for uri in uris:  # an RFC 3986 reference: no space, and `#` would start a fragment
        assert " " not in uri and "#" not in uri and all(ord(ch) < 128 for ch in uri)
    assert [unquote(u) for u in uris] == [broken.as_posix(), checked.as_posix()]
    located = {unquote(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]) for r in run["results"]}
    assert broken.as_posix() in located


class _Ids(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids, self.links = [], []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if "id" in attributes:
            self.ids.append(attributes["id"])
        if tag == "a" and (attributes.get("href") or "").startswith("#"):
            self.links.append(attributes["href"][1:])


def test_html_ids_are_unique_and_every_link_resolves(reports):
    parser = _Ids()
    parser.feed(reports["html"])
    assert len(parser.ids) == len(set(parser.ids)), sorted(i for i in parser.ids if parser.ids.count(i) > 1)
    assert parser.links and set(parser.links) <= set(parser.ids)
    assert len([i for i in parser.ids if "model-" in i]) >= len(NAMES)
