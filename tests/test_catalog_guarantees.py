"""What a registration guarantees, on real pyiceberg SQL catalogs on SQLite (no Spark): registrations that survive
concurrent writers (real processes racing), a current version that only moves forward, the embedded catalog found
from the project and named in every message, configuration errors (a catalog or a namespace nobody has) told
apart from outages and from `nothing registered`, `register`'s lines in 80 columns, and hostile contract ids and
namespaces through register, registrations and check-version."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from dc_bridge.cli import main

ROOT = Path(__file__).resolve().parent.parent
NS = "sales.customer_360"
CONTRACT = """\
apiVersion: v3.1.0
kind: DataContract
id: {id}
version: {version}
status: active
schema:
  - name: {table}
    physicalName: {table}
    properties:
      - name: customer_id
        logicalType: string
        required: true
{more}"""
EMAIL = "      - name: email\n        logicalType: string\n"
PHONE = "      - name: phone\n        logicalType: string\n"


def write(folder: Path, name: str, version: str = "1.0.0", more: str = EMAIL, id: str = "customers", table: str = "customers") -> str:
    (folder / name).write_text(CONTRACT.format(id=json.dumps(id), version=version, more=more, table=json.dumps(table)), encoding="utf-8")
    return name


def invoke(*args: str):
    return CliRunner().invoke(main, list(args))


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A project: its configuration names the embedded catalog and the namespace; the working directory is its folder."""
    (tmp_path / "dc-bridge.toml").write_text(f'catalog = "iceberg"\nnamespace = "{NS}"\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def database(folder: Path) -> Path:
    return folder / ".dc-bridge" / "iceberg" / "catalog.db"


def listing(*options: str) -> dict:
    result = invoke("registrations", "--format", "json", *options)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["contracts"]


# ---------------------------------------------------------------------------------------------
# concurrent writers


def test_six_registrations_at_the_same_time_are_all_listed(project):
    """Six processes register six contracts into one namespace of a catalog none of them has created yet, then three
    register three versions of one contract at once: each is listed, and the highest version is current (an index read,
    changed and written back kept one of the six; creating the namespace at once failed one with a unique key)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}

    def race(files: list[str]) -> list[subprocess.CompletedProcess]:
        processes = [subprocess.Popen([sys.executable, "-c", "from dc_bridge.cli import main; main()", "register", file],
                                      cwd=project, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for file in files]
        return [subprocess.CompletedProcess(p.args, p.wait(timeout=300), *p.communicate()) for p in processes]

    contracts = [write(project, f"c{i}.yaml", id=f"c{i}", table=f"t{i}") for i in range(6)]
    for done in race(contracts):
        assert done.returncode == 0 and "registered" in done.stdout and not done.stderr, done.stdout + done.stderr
    assert sorted(listing()) == [f"c{i}" for i in range(6)]

    versions = [write(project, f"v{v}.yaml", version=v, id="orders", table="orders") for v in ("1.0.0", "1.2.0", "1.1.0")]
    for done in race([versions[0]]) + race(versions[1:]):
        assert done.returncode == 0, done.stdout + done.stderr
    orders = listing()["orders"]
    assert orders["current"] == "1.2.0"
    assert [v["version"] for v in orders["versions"]] == ["1.0.0", "1.1.0", "1.2.0"]


# ---------------------------------------------------------------------------------------------
# the current version only moves forward


def test_the_current_version_only_moves_forward(project):
    assert invoke("register", write(project, "v1.yaml", "1.0.0")).exit_code == 0
    assert invoke("register", write(project, "v11.yaml", "1.1.0", EMAIL + PHONE)).exit_code == 0
    before = listing()["customers"]

    # 1.0.0's text again: nothing changes, not even its time, and 1.1.0 stays current
    again = invoke("register", "v1.yaml")
    assert again.exit_code == 0, again.output
    assert " ".join(again.stdout.split()).startswith("v1.yaml: customers 1.0.0 is registered with this text already; nothing changed")
    assert listing()["customers"] == before

    # an older version with a new text: in the audit trail, not current
    older = invoke("register", write(project, "v101.yaml", "1.0.1"))
    assert older.exit_code == 0, older.output
    assert " ".join(older.stdout.split()).startswith("v101.yaml: recorded customers 1.0.1 in the audit trail; 1.1.0 stays current")
    after = listing()["customers"]
    assert after["current"] == "1.1.0" and [v["version"] for v in after["versions"]] == ["1.0.0", "1.0.1", "1.1.0"]

    # so a breaking 1.1.1 is compared with 1.1.0, and fails (phone removed)
    breaking = invoke("check-version", write(project, "new.yaml", "1.1.1"), "--against-registered")
    assert breaking.exit_code == 1, breaking.output
    assert "version 1.1.0 -> 1.1.1: PATCH bump: NOT ENOUGH" in breaking.stdout
    assert f"the baseline is customers 1.1.0 (current, registered {after['versions'][-1]['registered_at']}) in iceberg ({database(project)})" \
        in " ".join(breaking.stderr.split())

    # `v1.1.0` and `1.1.0+build.2` are 1.1.0: another text under them is refused
    for same in ("v1.1.0", "1.1.0+build.2"):
        conflict = invoke("register", write(project, "same.yaml", same))
        assert conflict.exit_code == 1, conflict.output
        assert "customers 1.1.0 is registered in iceberg" in conflict.stderr and "with another text" in conflict.stderr

    # a version that cannot be ordered is refused, not registered
    latest = invoke("register", write(project, "latest.yaml", "latest"))
    assert latest.exit_code == 2
    assert "version 'latest' is not a semantic version" in latest.stderr
    assert [v["version"] for v in listing()["customers"]["versions"]] == ["1.0.0", "1.0.1", "1.1.0"]


# ---------------------------------------------------------------------------------------------
# where the embedded catalog is, named in every message


def test_the_embedded_catalog_is_the_projects_wherever_the_command_runs(project, tmp_path_factory, monkeypatch):
    write(project, "customers.yaml")
    assert invoke("register", "customers.yaml").exit_code == 0
    breaking = write(project, "new.yaml", "1.0.1", more="")  # email removed

    # from a subfolder of the project: the project's catalog, named
    (project / "ci" / "job").mkdir(parents=True)
    monkeypatch.chdir(project / "ci" / "job")
    checked = invoke("check-version", "../../new.yaml", "--against-registered")
    assert checked.exit_code == 1, checked.output
    assert "version 1.0.0 -> 1.0.1: PATCH bump: NOT ENOUGH" in checked.stdout
    assert f"in iceberg ({database(project)}) namespace {NS}" in " ".join(checked.stderr.split())
    drift = invoke("drift", "../../new.yaml", "--catalog", "iceberg", "--format", "json")
    assert [f["message"] for f in json.loads(drift.stdout)["findings"]] == [
        f"table `{NS}.customers` of model `customers` does not exist in iceberg ({database(project)}) yet; its drift "
        f"check is skipped (the first run creates it); tables in {NS}: none"]
    assert f"dc-bridge drift: the tables of namespace {NS} in iceberg ({database(project)})" in " ".join(drift.stderr.split())

    # from a folder outside any project: the contract's own project applies (its catalog: the breaking change is found), said so
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    monkeypatch.chdir(elsewhere)
    outside = invoke("check-version", str(project / "new.yaml"), "--against-registered", "--catalog", "iceberg", "--namespace", NS)
    assert outside.exit_code == 1, outside.output
    assert f"belongs to the project in {project} (dc-bridge.toml)" in " ".join(outside.stderr.split())
    assert "version 1.0.0 -> 1.0.1: PATCH bump: NOT ENOUGH" in outside.stdout

    # a contract in no project, from there: the working directory's catalog, which does not exist, said so and not created
    write(elsewhere, "loose.yaml", "1.0.1", more="")
    alone = invoke("check-version", "loose.yaml", "--against-registered", "--catalog", "iceberg", "--namespace", NS)
    assert alone.exit_code == 0, alone.output
    said = " ".join(alone.output.split())
    assert "note: no project configuration (dc-bridge.toml, or [tool.dc-bridge] in pyproject.toml) was found, nor an embedded " \
           "catalog upwards; using the working directory's" in said
    assert f"namespace {NS} does not exist in iceberg ({database(elsewhere)}, which does not exist)" in said
    assert not database(elsewhere).exists()

    # without a project, a catalog registered in a folder is found from its subfolders, and the note says where
    write(elsewhere, "other.yaml")
    assert invoke("register", "other.yaml", "--catalog", "iceberg", "--namespace", "loose").exit_code == 0
    assert database(elsewhere).is_file()
    (elsewhere / "sub").mkdir()
    monkeypatch.chdir(elsewhere / "sub")
    found = invoke("registrations", "--catalog", "iceberg", "--namespace", "loose")
    assert found.exit_code == 0, found.output
    assert found.stdout.splitlines()[0] == "customers 1.0.0 (current, active)"
    assert f"using the embedded catalog found upwards in {elsewhere}" in " ".join(found.stderr.split())


# ---------------------------------------------------------------------------------------------
# configuration errors are not outages, and not `nothing registered`


def test_an_unknown_catalog_name_is_bad_input_and_a_configured_one_that_is_down_a_warning(project, monkeypatch):
    monkeypatch.setenv("PYICEBERG_CATALOG__LAKE__URI", "http://127.0.0.1:9")  # configured, nobody serves it
    write(project, "customers.yaml")
    for command in (["register", "customers.yaml"], ["check-version", "customers.yaml", "--against-registered"],
                    ["drift", "customers.yaml"], ["registrations"]):  # drift reads the catalog when --catalog names one
        unknown = invoke(*command, "--catalog", "iceberg:lak")
        assert unknown.exit_code == 2, (command, unknown.output)
        assert "no catalog named 'lak' is configured; configured: lake; did you mean iceberg:lake?" in unknown.stderr, command
        assert "cannot be reached" not in unknown.stderr
    down = invoke("register", "customers.yaml", "--catalog", "iceberg:lake")
    assert down.exit_code == 0 and "warning: the catalog cannot be reached" in down.stderr, down.output


def test_an_embedded_catalog_file_that_is_no_catalog_is_bad_input_and_kept(project):
    database(project).parent.mkdir(parents=True)
    database(project).write_text("my notes, not a catalog\n", encoding="utf-8")
    for command in (["register", write(project, "customers.yaml")], ["check-version", "customers.yaml", "--against-registered"],
                    ["registrations"]):
        result = invoke(*command)
        assert result.exit_code == 2, (command, result.output)
        assert f"iceberg ({database(project)}): the file is not an SQLite database, so not an embedded catalog" in result.stderr
    assert database(project).read_text(encoding="utf-8") == "my notes, not a catalog\n"


def test_an_embedded_catalog_file_that_is_another_programs_database_is_bad_input_and_kept(project):
    import hashlib
    import sqlite3

    database(project).parent.mkdir(parents=True)
    with sqlite3.connect(database(project)) as db:
        db.executescript("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT); INSERT INTO notes (text) VALUES ('mine');")
    before = hashlib.sha256(database(project).read_bytes()).hexdigest()
    for command in (["register", write(project, "customers.yaml")], ["check-version", "customers.yaml", "--against-registered"],
                    ["registrations"]):
        result = invoke(*command)
        assert result.exit_code == 2, (command, result.output)
        assert (f"iceberg ({database(project)}): the file is a SQLite database of another program (its tables: notes), not an "
                f"embedded catalog; nothing was written to it") in result.stderr, (command, result.stderr)
        assert hashlib.sha256(database(project).read_bytes()).hexdigest() == before, command


def test_a_misspelt_namespace_is_refused_and_a_new_one_said_to_be_new(project):
    from pyiceberg.catalog.sql import SqlCatalog
    from pyiceberg.schema import Schema
    from pyiceberg.types import NestedField, StringType

    assert invoke("register", write(project, "customers.yaml")).exit_code == 0
    lake = SqlCatalog("dc-bridge", uri=f"sqlite:///{database(project)}", warehouse=str(project / ".dc-bridge" / "iceberg" / "warehouse"))
    lake.create_table(f"{NS}.customers", schema=Schema(NestedField(1, "customer_id", StringType(), required=True),
                                                       NestedField(2, "email", StringType())))
    typo = "sales.customer_306"
    for command in (["check-version", "customers.yaml", "--against-registered"], ["drift", "customers.yaml", "--catalog", "iceberg"],
                    ["registrations"]):
        result = invoke(*command, "--namespace", typo)
        assert result.exit_code == 2, (command, result.output)
        assert f"namespace {typo} does not exist in iceberg ({database(project)}); did you mean {NS}?" in " ".join(result.stderr.split())
    # a namespace like none there: nothing registered, said as such
    new = invoke("check-version", "customers.yaml", "--against-registered", "--namespace", "finance")
    assert new.exit_code == 0
    assert f"namespace finance does not exist in iceberg ({database(project)}) (namespaces there: sales, {NS})" in new.stdout
    # the contract not registered in a namespace that exists: what is registered there
    other = invoke("check-version", write(project, "orders.yaml", id="orders", table="orders"), "--against-registered")
    assert other.exit_code == 0
    assert f"no version of orders is registered in iceberg ({database(project)}) namespace {NS} (registered there: customers)" in other.stdout
    # a table name that is most likely a typo of one there warns; a table not there yet is info
    misspelt = invoke("drift", write(project, "misspelt.yaml", table="customer"), "--catalog", "iceberg", "--format", "json")
    assert [(f["code"], f["severity"], f["message"]) for f in json.loads(misspelt.stdout)["findings"]] == [
        ("DCB304", "warning", f"table `{NS}.customer` of model `customer` does not exist in iceberg ({database(project)}); "
                              f"did you mean `{NS}.customers`? (the model's physicalName names its table)")]


# ---------------------------------------------------------------------------------------------
# 80 columns


def test_register_and_registrations_keep_to_80_columns(project):
    outputs = [invoke("register", write(project, "v1.yaml", "1.0.0")), invoke("register", "v1.yaml"),
               invoke("register", write(project, "v2.yaml", "1.1.0", EMAIL + PHONE)),
               invoke("register", write(project, "v101.yaml", "1.0.1")), invoke("registrations")]
    for result in outputs:
        assert result.exit_code == 0, result.output
        too_wide = [line for line in result.output.splitlines() if len(line) > 80]
        assert not too_wide, too_wide
    assert "  schema     sha256:" in outputs[0].stdout and len(outputs[0].stdout.split("  schema     ")[1].split()[0]) == len("sha256:") + 12


# ---------------------------------------------------------------------------------------------
# hostile names


HOSTILE_IDS = ["e.mail", "a b", "a$b#c%d", "a`b", "a'b\"c", "a(b),c", "ünï-cödé", "Customers", "customers", "a", "a@b",
               "x" * 300]
HOSTILE_NAMESPACES = ["with space", "dollar$hash#pct%", "quote'double\"", "ünïcödé", "Sales", "sales"]


def test_hostile_contract_ids_and_namespaces_through_register_registrations_and_check_version(project):
    """Each id its own contract in one namespace (ids that differ only in case, one a prefix of another with `@`, one of
    300 characters), and one contract in each hostile namespace: each is listed with its own versions, and each's
    breaking change is compared with its own registered version. Its text is kept under the warehouse."""
    warehouse = project / ".dc-bridge" / "iceberg" / "warehouse"
    for n, contract_id in enumerate(HOSTILE_IDS):
        first = invoke("register", write(project, f"id{n}.yaml", id=contract_id, table=f"t{n}"))
        assert first.exit_code == 0, (contract_id, first.output)
        assert invoke("register", write(project, f"id{n}b.yaml", "1.1.0", EMAIL + PHONE, id=contract_id, table=f"t{n}")).exit_code == 0
    listed = listing()
    assert sorted(listed) == sorted(HOSTILE_IDS)
    for contract_id, entry in listed.items():
        assert entry["current"] == "1.1.0" and [(v["id"], v["version"]) for v in entry["versions"]] == [(contract_id, "1.0.0"), (contract_id, "1.1.0")]
        for version in entry["versions"]:
            assert Path(version["location"]).is_file() and warehouse in Path(version["location"]).parents
    for n, contract_id in enumerate(HOSTILE_IDS):
        checked = invoke("check-version", write(project, f"new{n}.yaml", "1.1.1", EMAIL, id=contract_id, table=f"t{n}"), "--against-registered")
        assert checked.exit_code == 1, (contract_id, checked.output)
        assert "version 1.1.0 -> 1.1.1: PATCH bump: NOT ENOUGH" in checked.stdout
    from pyiceberg.catalog.sql import SqlCatalog

    keys = SqlCatalog("dc-bridge", uri=f"sqlite:///{database(project)}").load_namespace_properties(NS)
    assert all(len(key) <= 255 and key == key.lower() and key.isascii() for key in keys)

    for n, namespace in enumerate(HOSTILE_NAMESPACES):
        registered = invoke("register", write(project, f"ns{n}.yaml", version=f"{n + 1}.0.0"), "--namespace", namespace)
        assert registered.exit_code == 0, (namespace, registered.output)
    for n, namespace in enumerate(HOSTILE_NAMESPACES):
        entry = listing("--namespace", namespace)["customers"]
        assert entry["current"] == f"{n + 1}.0.0", namespace
        assert Path(entry["versions"][0]["location"]).is_file() and warehouse in Path(entry["versions"][0]["location"]).parents
        checked = invoke("check-version", write(project, "nsnew.yaml", f"{n + 1}.0.1", more=""), "--against-registered", "--namespace", namespace)
        assert checked.exit_code == 1 and f"version {n + 1}.0.0 -> {n + 1}.0.1: PATCH bump: NOT ENOUGH" in checked.stdout, checked.output


def test_a_project_folder_with_spaces_and_escapes_keeps_its_texts_inside_it(tmp_path, monkeypatch):
    """The embedded catalog of a project in `my project #1?/`: its SQLite file and its texts in that folder (a file: URI
    of it, which pyiceberg does not decode, put them in `my%20project%20%231%3F/`; a sqlite:/// URL ended at `?`)."""
    folder = tmp_path / "my project #1?"
    folder.mkdir()
    (folder / "dc-bridge.toml").write_text(f'catalog = "iceberg"\nnamespace = "{NS}"\n', encoding="utf-8")
    monkeypatch.chdir(folder)
    assert invoke("register", write(folder, "customers.yaml")).exit_code == 0
    entry = listing()["customers"]
    assert Path(entry["versions"][0]["location"]).is_file() and folder in Path(entry["versions"][0]["location"]).parents
    assert sorted(path.name for path in tmp_path.iterdir()) == ["my project #1?"]
    assert database(folder).is_file()


HOSTILE_TABLES = ["e.mail", "a b", "dollar$hash#", "quote'd", "ünïcödé", "Customers"]


def test_drift_finds_tables_with_hostile_names(project):
    """A table's name is one part of its identifier, whatever it holds: `e.mail` was read as table `mail` of namespace
    `sales.customer_360.e`, and said not to exist."""
    from pyiceberg.catalog.sql import SqlCatalog
    from pyiceberg.schema import Schema
    from pyiceberg.types import LongType, NestedField, StringType

    database(project).parent.mkdir(parents=True)
    lake = SqlCatalog("dc-bridge", uri=f"sqlite:///{database(project)}", warehouse=str(project / ".dc-bridge" / "iceberg" / "warehouse"))
    lake.create_namespace(NS)
    for table in HOSTILE_TABLES:
        lake.create_table((*NS.split("."), table), schema=Schema(NestedField(1, "customer_id", LongType(), required=True),
                                                                 NestedField(2, "email", StringType())))
    for table in HOSTILE_TABLES:
        result = invoke("drift", write(project, "t.yaml", table=table), "--catalog", "iceberg", "--format", "json")
        # the table is read: its customer_id is bigint where the contract says string
        assert [(f["code"], f["message"]) for f in json.loads(result.stdout)["findings"]] == [
            ("DCB301", f"`{table}.customer_id` is bigint in the data; the contract allows string or varchar or char")], (table, result.output)


def test_a_namespace_an_earlier_dc_bridge_wrote_answers_with_its_highest_version(project):
    """An earlier dc-bridge kept an index, `dc-bridge.contracts`, that re-registering 1.0.0 after 1.1.0 set back to
    1.0.0: it is no longer read, and the baseline is 1.1.0, the highest record."""
    from pyiceberg.catalog.sql import SqlCatalog

    assert invoke("register", write(project, "v1.yaml", "1.0.0")).exit_code == 0
    assert invoke("register", write(project, "v11.yaml", "1.1.0", EMAIL + PHONE)).exit_code == 0
    lake = SqlCatalog("dc-bridge", uri=f"sqlite:///{database(project)}")
    lake.update_namespace_properties(NS, updates={"dc-bridge.contracts": json.dumps({"customers": "1.0.0"})})
    assert listing()["customers"]["current"] == "1.1.0"
    breaking = invoke("check-version", write(project, "new.yaml", "1.1.1"), "--against-registered")
    assert breaking.exit_code == 1 and "version 1.1.0 -> 1.1.1: PATCH bump: NOT ENOUGH" in breaking.stdout, breaking.output


def test_a_project_moved_to_another_folder_keeps_its_baseline(tmp_path, monkeypatch):
    """The embedded catalog's records name their texts by absolute paths: in a project moved (or cloned) elsewhere the
    text is read from the same place under the catalog's own warehouse, and still checked against its digest."""
    before = tmp_path / "before"
    before.mkdir()
    (before / "dc-bridge.toml").write_text(f'catalog = "iceberg"\nnamespace = "{NS}"\n', encoding="utf-8")
    monkeypatch.chdir(before)
    assert invoke("register", write(before, "customers.yaml")).exit_code == 0
    after = before.rename(tmp_path / "after")
    monkeypatch.chdir(after)
    breaking = invoke("check-version", write(after, "new.yaml", "1.0.1", more=""), "--against-registered")
    assert breaking.exit_code == 1 and "version 1.0.0 -> 1.0.1: PATCH bump: NOT ENOUGH" in breaking.stdout, breaking.output
    stored = next((after / ".dc-bridge" / "iceberg" / "warehouse" / "_dc_bridge_contracts").rglob("*.yaml"))
    stored.write_text(stored.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    tampered = invoke("check-version", "new.yaml", "--against-registered")
    assert tampered.exit_code == 2 and "is not the registered text" in tampered.stderr, tampered.output


def test_a_file_where_the_text_goes_is_never_replaced(project):
    """A file at the path a text is kept at (its name carries the text's digest) that holds other bytes is refused
    (exit 2) and kept; one that holds the same bytes (a registration that stopped before its record) is used."""
    from dc_bridge.catalog.records import text_digest

    text = (project / write(project, "customers.yaml")).read_bytes()
    folder = project / ".dc-bridge" / "iceberg" / "warehouse" / "_dc_bridge_contracts" / NS
    folder.mkdir(parents=True)
    stored = folder / f"customers_1.0.0-{text_digest(text).partition(':')[2][:12]}.yaml"
    stored.write_text("someone else's bytes\n", encoding="utf-8")
    refused = invoke("register", "customers.yaml")
    assert refused.exit_code == 2 and "holds other bytes than the text its name is the digest of" in refused.stderr, refused.output
    assert stored.read_text(encoding="utf-8") == "someone else's bytes\n"
    stored.write_bytes(text)
    assert invoke("register", "customers.yaml").exit_code == 0
    assert listing()["customers"]["versions"][0]["location"] == str(stored)


def test_a_registered_text_cut_short_by_a_stopped_registration_is_written_again(project, tmp_path_factory, monkeypatch):
    # a registration elsewhere gives the text's file as register writes it
    other = tmp_path_factory.mktemp("other")
    (other / "dc-bridge.toml").write_text((project / "dc-bridge.toml").read_text(encoding="utf-8"), encoding="utf-8")
    write(other, "customers.yaml")
    monkeypatch.chdir(other)
    assert invoke("register", "customers.yaml").exit_code == 0
    [kept] = (other / ".dc-bridge" / "iceberg" / "warehouse").rglob("*.yaml")
    # here: a registration of the same text that stopped half-way through writing it, before its record
    cut = project / kept.relative_to(other)
    cut.parent.mkdir(parents=True)
    cut.write_bytes(kept.read_bytes()[: len(kept.read_bytes()) // 2])
    monkeypatch.chdir(project)
    write(project, "customers.yaml")
    result = invoke("register", "customers.yaml")
    assert result.exit_code == 0, result.output
    assert cut.read_bytes() == kept.read_bytes()
    assert invoke("check-version", "customers.yaml", "--against-registered").exit_code == 0
    # other bytes than the text's own beginning are still never replaced
    cut.write_bytes(b"someone else's text\n")
    (project / ".dc-bridge" / "iceberg" / "catalog.db").unlink()
    result = invoke("register", "customers.yaml")
    assert result.exit_code == 2 and "holds other bytes than the text its name is the digest of" in result.stderr, result.output
