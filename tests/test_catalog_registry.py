"""Registration in an Iceberg catalog (`dc-bridge register`, `registrations`) and the registered version as
check-version's baseline, on real pyiceberg SQL catalogs on SQLite in a temporary folder (no Spark).

The seed's scenarios (003, user story 6): `customers:1.0.0` registered in namespace `sales.customer_360`
is listed there; a new version updates it; an unreachable catalog is a warning and the command goes on.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from dc_bridge.catalog.records import Record, schema_hash, text_digest
from dc_bridge.cli import main
from dc_bridge.contract.reading.load import load_contract

NS = "sales.customer_360"
CUSTOMERS = """\
apiVersion: v3.1.0
kind: DataContract
id: customers
name: Customers
version: {version}
status: active
team:
  name: sales-team
schema:
  - name: customers
    properties:
      - name: customer_id
        logicalType: string
        required: true
        primaryKey: true
      - name: email
        logicalType: string
        description: {description}
{more}"""


def customers(tmp_path: Path, version="1.0.0", description="Where we write.", more="", name="customers.yaml") -> str:
    path = tmp_path / name
    path.write_text(CUSTOMERS.format(version=version, description=description, more=more), encoding="utf-8")
    return name  # as a user in the project folder names it (the `project` fixture's working directory)


PHONE = "      - name: phone\n        logicalType: string\n"


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A project folder as the working directory: the embedded catalog lives under .dc-bridge/iceberg."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def invoke(*args: str):
    return CliRunner().invoke(main, list(args))


def unwrapped(text: str) -> list[str]:
    """`register`'s lines with the continuation lines of a value fitted to 80 columns joined back (at a `/` or a space)."""
    lines: list[str] = []
    for line in text.splitlines():
        if line.startswith(" " * 13) and lines:
            lines[-1] += ("" if lines[-1].endswith("/") else " ") + line.strip()
        else:
            lines.append(line)
    return lines


def embedded_catalog(folder: Path):
    from pyiceberg.catalog.sql import SqlCatalog

    base = folder / ".dc-bridge" / "iceberg"
    return SqlCatalog("dc-bridge", uri=f"sqlite:///{base / 'catalog.db'}", warehouse=str(base / "warehouse"))


def test_customers_1_0_0_registered_in_sales_customer_360_is_listed_there(project):
    result = invoke("register", customers(project), "--catalog", "iceberg", "--namespace", NS)
    assert result.exit_code == 0, result.output
    lines = unwrapped(result.stdout)
    database = project / ".dc-bridge" / "iceberg" / "catalog.db"
    assert lines[:3] == ["customers.yaml: registered customers 1.0.0 (first registration)",
                         f"  catalog    iceberg ({database})", f"  namespace  {NS}"]
    properties = embedded_catalog(project).load_namespace_properties(NS)
    assert [key for key in properties if key.startswith("dc-bridge.contract")] == ["dc-bridge.contract.customers@1.0.0"]
    record = Record.from_json(properties["dc-bridge.contract.customers@1.0.0"])
    text = (project / "customers.yaml").read_bytes()
    assert (record.id, record.name, record.version, record.owner, record.standard) == ("customers", "Customers", "1.0.0", "sales-team", "odcs")
    assert record.text_digest == text_digest(text)
    assert record.schema_hash == schema_hash(load_contract(str(project / "customers.yaml")).contract)
    assert record.registered_at.endswith("Z") and len(record.registered_at) == len("2026-01-23T10:00:00Z")
    assert record.location.startswith(str(project / ".dc-bridge" / "iceberg" / "warehouse"))
    assert Path(record.location).read_bytes() == text


def test_a_new_version_updates_it_and_the_earlier_one_stays_listed(project):
    assert invoke("register", customers(project), "--catalog", "iceberg", "--namespace", NS).exit_code == 0
    result = invoke("register", customers(project, version="1.1.0", more=PHONE), "--catalog", "iceberg", "--namespace", NS)
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0].endswith("registered customers 1.1.0 (replaces 1.0.0, which stays listed)")
    listed = json.loads(invoke("registrations", "--catalog", "iceberg", "--namespace", NS, "--format", "json").stdout)
    entry = listed["contracts"]["customers"]
    assert entry["current"] == "1.1.0"
    assert [v["version"] for v in entry["versions"]] == ["1.0.0", "1.1.0"]
    assert entry["versions"][0]["schema_hash"] != entry["versions"][1]["schema_hash"]  # phone added
    text = invoke("registrations", "--catalog", "iceberg", "--namespace", NS).stdout
    assert text.splitlines()[0] == "customers 1.1.0 (current, active)"


def test_the_same_text_again_changes_nothing(project):
    path = customers(project)
    invoke("register", path, "--catalog", "iceberg", "--namespace", NS)
    before = embedded_catalog(project).load_namespace_properties(NS)
    result = invoke("register", path, "--catalog", "iceberg", "--namespace", NS)
    assert result.exit_code == 0
    assert "with this text already; nothing changed" in " ".join(result.stdout.split())
    assert embedded_catalog(project).load_namespace_properties(NS) == before


def test_another_text_under_a_registered_version_is_refused(project):
    invoke("register", customers(project), "--catalog", "iceberg", "--namespace", NS)
    result = invoke("register", customers(project, description="Changed."), "--catalog", "iceberg", "--namespace", NS)
    assert result.exit_code == 1
    assert f"customers 1.0.0 is registered in iceberg ({project / '.dc-bridge' / 'iceberg' / 'catalog.db'}) namespace {NS} with another text" in result.output


def test_an_unreachable_catalog_is_a_warning_and_the_command_goes_on(project, monkeypatch):
    monkeypatch.setenv("PYICEBERG_CATALOG__DOWN__URI", "http://127.0.0.1:9")  # a REST catalog nobody serves
    path = customers(project)
    result = invoke("register", path, "--catalog", "iceberg:down", "--namespace", NS)
    assert result.exit_code == 0, result.output
    assert "warning: the catalog cannot be reached" in result.output and "enforcement.registration = 'warn'" in result.output
    strict = invoke("register", path, "--catalog", "iceberg:down", "--namespace", NS, "--enforce", "registration=strict")
    assert strict.exit_code == 1
    assert "error: the catalog cannot be reached" in strict.output
    (project / "dc-bridge.toml").write_text('[enforcement]\nregistration = "strict"\n', encoding="utf-8")
    assert invoke("register", path, "--catalog", "iceberg:down", "--namespace", NS).exit_code == 1


def test_a_named_catalog_is_configured_as_pyiceberg_configures_it(project, monkeypatch):
    """iceberg:NAME through PYICEBERG_CATALOG__NAME__... environment variables, read when the command runs;
    without a warehouse the text is kept in the namespace's properties, in pieces."""
    monkeypatch.setenv("PYICEBERG_CATALOG__LAKE__TYPE", "sql")
    monkeypatch.setenv("PYICEBERG_CATALOG__LAKE__URI", f"sqlite:///{project / 'lake.db'}")
    long_description = "x" * 2500  # more than two pieces of 900 characters
    path = customers(project, description=long_description)
    result = invoke("register", path, "--catalog", "iceberg:lake", "--namespace", NS)
    assert result.exit_code == 0, result.output
    from pyiceberg.catalog.sql import SqlCatalog

    properties = SqlCatalog("lake", uri=f"sqlite:///{project / 'lake.db'}").load_namespace_properties(NS)
    record = Record.from_json(properties["dc-bridge.contract.customers@1.0.0"])
    assert record.location.startswith("property:dc-bridge.text.customers_1.0.0-") and record.location.endswith("#4")
    assert max(len(v) for v in properties.values()) <= 1000
    # the baseline is read back from the pieces and its digest holds
    same = invoke("check-version", customers(project, version="1.0.1", description=long_description + "y", name="new.yaml"),
                  "--against-registered", "--catalog", "iceberg:lake", "--namespace", NS)
    assert same.exit_code == 0, same.output
    # a piece changed in the catalog: refused
    SqlCatalog("lake", uri=f"sqlite:///{project / 'lake.db'}").update_namespace_properties(
        NS, updates={record.location.removeprefix("property:").rpartition("#")[0] + ".1": "tampered"})
    tampered = invoke("check-version", str(project / "new.yaml"), "--against-registered", "--catalog", "iceberg:lake", "--namespace", NS)
    assert tampered.exit_code == 2
    assert "is not the registered text" in tampered.output


def test_the_schema_hash_is_the_schema_only():
    base = CUSTOMERS.format(version="1.0.0", description="a", more="")
    reordered = base.replace("        required: true\n        primaryKey: true\n", "        primaryKey: true\n        required: true\n")
    commented = "# a comment\n" + base.replace("description: a", "description: another text")
    retyped = base.replace("name: email\n        logicalType: string", "name: email\n        logicalType: integer")

    def hashed(text: str) -> str:
        import tempfile
        with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as handle:
            handle.write(text)
        return schema_hash(load_contract(handle.name).contract)

    assert hashed(base) == hashed(reordered) == hashed(commented)
    assert hashed(base) != hashed(retyped)


# ---------------------------------------------------------------------------------------------
# check-version --against-registered (FR-015)


def test_first_registration_has_no_baseline_and_is_valid(project):
    result = invoke("check-version", customers(project), "--against-registered", "--catalog", "iceberg", "--namespace", NS)
    assert result.exit_code == 0, result.output
    database = project / ".dc-bridge" / "iceberg" / "catalog.db"
    assert (f"namespace {NS} does not exist in iceberg ({database}, which does not exist) (namespaces there: none): the first "
            f"registration has no baseline, 1.0.0 is valid") in result.stdout
    assert not database.exists()  # a command that reads creates no catalog


@pytest.mark.parametrize(("change", "version", "exit_code", "said"), [
    ("non-breaking: an optional field, MINOR", "1.1.0", 0, "version 1.0.0 -> 1.1.0: MINOR bump: ok"),
    ("breaking: a field removed, MINOR", "1.1.0", 1, "version 1.0.0 -> 1.1.0: MINOR bump: NOT ENOUGH"),
    ("breaking: a field removed, MAJOR", "2.0.0", 0, "version 1.0.0 -> 2.0.0: MAJOR bump: ok"),
])
def test_check_version_against_the_registered_baseline(project, change, version, exit_code, said):
    invoke("register", customers(project), "--catalog", "iceberg", "--namespace", NS)
    new = customers(project, version=version, more=PHONE, name="new.yaml")
    if "removed" in change:
        text = Path(new).read_text(encoding="utf-8")
        Path(new).write_text(text.replace("      - name: email\n        logicalType: string\n        description: Where we write.\n", ""),
                             encoding="utf-8")
    result = invoke("check-version", new, "--against-registered", "--catalog", "iceberg", "--namespace", NS)
    assert result.exit_code == exit_code, result.output
    assert said in result.output


def test_a_tampered_baseline_is_refused_never_empty(project):
    invoke("register", customers(project), "--catalog", "iceberg", "--namespace", NS)
    record = Record.from_json(embedded_catalog(project).load_namespace_properties(NS)["dc-bridge.contract.customers@1.0.0"])
    stored = Path(record.location)
    stored.write_text(stored.read_text(encoding="utf-8").replace("required: true", "required: false"), encoding="utf-8")
    result = invoke("check-version", customers(project, version="1.0.1", name="new.yaml"), "--against-registered",
                    "--catalog", "iceberg", "--namespace", NS)
    assert result.exit_code == 2
    assert "cannot be used as the baseline" in result.output and "is not the registered text" in result.output


def test_an_unreadable_catalog_is_an_error_for_the_baseline(project, monkeypatch):
    monkeypatch.setenv("PYICEBERG_CATALOG__DOWN__URI", "http://127.0.0.1:9")
    result = invoke("check-version", customers(project), "--against-registered", "--catalog", "iceberg:down", "--namespace", NS)
    assert result.exit_code == 2
    assert "cannot be used as the baseline" in result.output


def test_catalog_and_namespace_come_from_the_project_configuration(project):
    (project / "pyproject.toml").write_text(f'[tool.dc-bridge]\ncatalog = "iceberg"\nnamespace = "{NS}"\n', encoding="utf-8")
    assert invoke("register", customers(project)).exit_code == 0
    assert "dc-bridge.contract.customers@1.0.0" in embedded_catalog(project).load_namespace_properties(NS)


def test_usage_errors(project):
    path = customers(project)
    assert "give --namespace" in invoke("register", path, "--catalog", "iceberg").output
    assert "--catalog 'hive'" in invoke("register", path, "--catalog", "hive", "--namespace", NS).output
    assert "give NEW only" in invoke("check-version", path, path, "--against-registered", "--catalog", "iceberg", "--namespace", NS).output
    assert "give OLD and NEW" in invoke("check-version", path).output
