"""A registered version's life on the embedded Iceberg catalog (pyiceberg's SQL catalog on a real SQLite file, no
Spark): every transition through `dc-bridge lifecycle`, the audit trail read back by another process, each refusal
writing nothing, hostile dates, ids and reasons, and processes racing to move one version."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from click.testing import CliRunner

from dc_bridge.cli import main

ROOT = Path(__file__).resolve().parent.parent
NS = "sales"
CONTRACT = """\
apiVersion: v3.1.0
kind: DataContract
id: {id}
version: {version}
status: {status}
schema:
  - name: customers
    properties:
      - name: customer_id
        logicalType: string
        required: true
"""
HOSTILE_ID = 'cust"omers\n${HOME}\'s'
HOSTILE_REASON = 'the "new" one\nreplaces it; ${HOME} stays $(id) \'quoted\''


def write(folder: Path, name: str, version: str = "1.0.0", status: str = "active", id: str = "customers") -> str:
    (folder / name).write_text(CONTRACT.format(id=json.dumps(id), version=version, status=status), encoding="utf-8")
    return name


def invoke(*args: str):
    return CliRunner().invoke(main, list(args))


def in_days(days: int) -> str:
    return (datetime.now(timezone.utc) + timedelta(days=days)).date().isoformat()


@pytest.fixture
def project(tmp_path, monkeypatch):
    (tmp_path / "dc-bridge.toml").write_text(f'catalog = "iceberg"\nnamespace = "{NS}"\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def rows(folder: Path) -> list[tuple]:
    """Every property row of the embedded catalog's SQLite file, read without dc-bridge."""
    with sqlite3.connect(folder / ".dc-bridge" / "iceberg" / "catalog.db") as db:
        return sorted(db.execute("SELECT namespace, property_key, property_value FROM iceberg_namespace_properties"))


def read_back(folder: Path, contract_id: str = "customers") -> dict:
    """`registrations --format json` in a process of its own, after the ones that wrote have exited."""
    done = subprocess.run([sys.executable, "-c", "from dc_bridge.cli import main; main()", "registrations", "--format", "json"],
                          cwd=folder, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return {v["version"]: v["lifecycle"] for v in json.loads(done.stdout)["contracts"][contract_id]["versions"]}


def test_every_transition_is_recorded_and_read_back_by_another_process(project):
    """proposed (from the text's status) -> draft -> active -> deprecated -> sunset -> retired, each with its reason;
    2.0.0 registered without transitions is active; the trail is read back by a new process."""
    assert invoke("register", write(project, "v1.yaml", status="proposed")).exit_code == 0
    assert invoke("register", write(project, "v2.yaml", "2.0.0")).exit_code == 0
    sunset = in_days(40)
    steps = [("draft", ()), ("active", ()), ("deprecated", ("--sunset", sunset, "--successor", "customers@2.0.0")),
             ("sunset", ()), ("retired", ())]
    for state, extra in steps:
        moved = invoke("lifecycle", "customers@1.0.0", "--to", state, "--reason", f"to {state}", *extra)
        assert moved.exit_code == 0, moved.output
        assert f"-> {state}" in moved.output
    trail = read_back(project)
    old = trail["1.0.0"]
    assert old["state"] == "retired" and not old["by_date"]
    assert [(t["from_state"], t["to"], t["reason"]) for t in old["transitions"]] == [
        (None, "proposed", "registered with this status"), ("proposed", "draft", "to draft"), ("draft", "active", "to active"),
        ("active", "deprecated", "to deprecated"), ("deprecated", "sunset", "to sunset"), ("sunset", "retired", "to retired")]
    deprecation = old["transitions"][3]
    assert deprecation["sunset"] == f"{sunset}T00:00:00Z" and deprecation["successor"] == "customers@2.0.0"
    assert all(datetime.fromisoformat(t["at"].replace("Z", "+00:00")) <= datetime.now(timezone.utc) for t in old["transitions"])
    assert trail["2.0.0"]["state"] == "active" and trail["2.0.0"]["transitions"][0]["to"] == "active"
    listed = invoke("registrations")
    assert "customers 2.0.0 (current, active)" in listed.output and "retired" in listed.output


def test_a_deprecated_version_is_sunset_from_its_date_and_retires_from_there(project):
    """The date passing makes it sunset with no transition; `retired` then follows from that sunset."""
    from dc_bridge.catalog import open_store
    from dc_bridge.catalog.lifecycle import LifecycleRefused, Request, life, move

    assert invoke("register", write(project, "v1.yaml")).exit_code == 0
    assert invoke("lifecycle", "customers", "--to", "deprecated", "--sunset", in_days(10)).exit_code == 0
    store = open_store("iceberg", project / ".dc-bridge" / "iceberg")
    later = datetime.now(timezone.utc).replace(microsecond=0) + timedelta(days=11)
    before = life(store.properties(NS), "customers", "1.0.0", later - timedelta(days=2))
    after = life(store.properties(NS), "customers", "1.0.0", later)
    assert (before.state, before.by_date, before.days_to_sunset(later - timedelta(days=2))) == ("deprecated", False, 1)
    assert (after.state, after.stored, after.by_date) == ("sunset", "deprecated", True)
    with pytest.raises(LifecycleRefused, match="its sunset date has passed.*there already"):
        move(store, NS, Request("customers", None, "sunset"), now=later)
    done = move(store, NS, Request("customers", None, "retired", "past its date"), now=later)
    assert (done.from_state, done.to) == ("sunset", "retired")
    assert read_back(project)["1.0.0"]["state"] == "retired"


REFUSALS = [
    # (what, arguments after `lifecycle`, the message's words)
    ("backwards", ("customers@1.0.0", "--to", "active"), "states only move forward"),
    ("skipping", ("customers@2.0.0", "--to", "retired"), "may not be skipped"),
    ("the same state", ("customers@2.0.0", "--to", "active"), "it is there already"),
    ("no such state", ("customers@2.0.0", "--to", "archived"), "is no state"),
    ("a sunset in the past", ("customers@2.0.0", "--to", "deprecated", "--sunset", "2020-01-01"), "is not in the future"),
    ("a sunset now, in another zone", ("customers@2.0.0", "--to", "deprecated", "--sunset",
                                       (datetime.now(timezone(timedelta(hours=-9))) - timedelta(minutes=1)).isoformat(timespec="seconds")),
     "is not in the future"),
    ("a day-first date", ("customers@2.0.0", "--to", "deprecated", "--sunset", "31/03/2027"), "not an ISO 8601 date"),
    ("a month that is none", ("customers@2.0.0", "--to", "deprecated", "--sunset", "2027-13-01"), "is no date"),
    ("a time without its zone", ("customers@2.0.0", "--to", "deprecated", "--sunset", "2027-03-31T12:00:00"), "no offset"),
    ("no sunset date", ("customers@2.0.0", "--to", "deprecated"), "needs --sunset"),
    ("a sunset on another move", ("customers@3.0.0", "--to", "active", "--sunset", "2099-01-01"), "belong to --to deprecated"),
    ("a successor not registered", ("customers@2.0.0", "--to", "deprecated", "--sunset", "2099-01-01", "--successor", "orders@1.0.0"),
     "'orders' is not registered"),
    ("a successor version not registered", ("customers@2.0.0", "--to", "deprecated", "--sunset", "2099-01-01",
                                            "--successor", "customers@9.0.0"), "'9.0.0' is not registered"),
    ("a retired successor", ("customers@2.0.0", "--to", "deprecated", "--sunset", "2099-01-01", "--successor", "gone@1.0.0"),
     "is retired itself"),
    ("itself as successor", ("customers@2.0.0", "--to", "deprecated", "--sunset", "2099-01-01", "--successor", "customers@2.0.0"),
     "is the version being deprecated"),
    ("a successor that is no ID@VERSION", ("customers@2.0.0", "--to", "deprecated", "--sunset", "2099-01-01", "--successor", "customers"),
     "is not ID@VERSION"),
    ("a reason too long", ("customers@2.0.0", "--to", "deprecated", "--sunset", "2099-01-01", "--reason", "x" * 501), "at most 500"),
    ("a contract not registered", ("orders", "--to", "deprecated", "--sunset", "2099-01-01"), "'orders' is not registered"),
    ("a namespace that does not exist", ("customers", "--to", "deprecated", "--sunset", "2099-01-01", "--namespace", "nowhere.at_all"),
     "namespace nowhere.at_all does not exist"),
    ("a catalog configured nowhere", ("customers", "--to", "deprecated", "--sunset", "2099-01-01", "--catalog", "iceberg:lake"),
     "no catalog named 'lake' is configured"),
    ("a catalog spec that is none", ("customers", "--to", "deprecated", "--catalog", "hive"), "give iceberg"),
]


def test_each_refusal_exits_2_says_why_and_writes_nothing(project):
    """One catalog for the whole table: customers 1.0.0 deprecated, 2.0.0 active, 3.0.0 proposed, gone 1.0.0 retired."""
    for name, version, status, id in (("c1", "1.0.0", "active", "customers"), ("c2", "2.0.0", "active", "customers"),
                                      ("c3", "3.0.0", "proposed", "customers"), ("g1", "1.0.0", "active", "gone")):
        assert invoke("register", write(project, f"{name}.yaml", version, status, id)).exit_code == 0
    assert invoke("lifecycle", "customers@1.0.0", "--to", "deprecated", "--sunset", "2099-01-01").exit_code == 0
    for state, extra in (("deprecated", ("--sunset", "2099-01-01")), ("sunset", ()), ("retired", ())):
        assert invoke("lifecycle", "gone", "--to", state, *extra).exit_code == 0
    before = rows(project)
    failures = []
    for what, arguments, words in REFUSALS:
        result = invoke("lifecycle", *arguments)
        if result.exit_code != 2 or words not in " ".join(result.output.split()) or "Traceback" in result.output:
            failures.append((what, result.exit_code, result.output))
    assert not failures
    assert rows(project) == before


def test_dates_in_other_zones_are_kept_as_their_utc_instant(project):
    assert invoke("register", write(project, "c1.yaml")).exit_code == 0
    assert invoke("register", write(project, "c2.yaml", "2.0.0")).exit_code == 0
    assert invoke("lifecycle", "customers@1.0.0", "--to", "deprecated", "--sunset", "2099-03-31T01:30:00+05:00").exit_code == 0
    assert invoke("lifecycle", "customers@2.0.0", "--to", "deprecated", "--sunset", "2099-03-31T23:00:00Z").exit_code == 0
    trail = read_back(project)
    assert trail["1.0.0"]["sunset"] == "2099-03-30T20:30:00Z" and trail["2.0.0"]["sunset"] == "2099-03-31T23:00:00Z"


def test_hostile_ids_and_reasons_are_kept_as_written_and_shown_escaped(project):
    assert invoke("register", write(project, "h1.yaml", id=HOSTILE_ID)).exit_code == 0
    assert invoke("register", write(project, "h2.yaml", "2.0.0", id=HOSTILE_ID)).exit_code == 0
    moved = invoke("lifecycle", f"{HOSTILE_ID}@1.0.0", "--to", "deprecated", "--sunset", "2099-01-01", "--reason", HOSTILE_REASON,
                   "--successor", f"{HOSTILE_ID}@2.0.0")
    assert moved.exit_code == 0, moved.output
    assert json.dumps(HOSTILE_REASON) in moved.output  # one line: its newline escaped, nothing expanded
    trail = read_back(project, HOSTILE_ID)
    deprecation = trail["1.0.0"]["transitions"][-1]
    assert (deprecation["id"], deprecation["reason"], deprecation["successor"]) == (HOSTILE_ID, HOSTILE_REASON, f"{HOSTILE_ID}@2.0.0")
    assert all(len(key) <= 255 and "\n" not in key for _, key, _ in rows(project))


def test_a_status_no_version_starts_in_is_not_recorded_and_said(project):
    registered = invoke("register", write(project, "c1.yaml", status="retired"))
    assert registered.exit_code == 0 and "status 'retired' is not recorded" in " ".join(registered.output.split())
    assert read_back(project)["1.0.0"] == {"state": "active", "stored_state": "active", "by_date": False, "sunset": None,
                                            "days_to_sunset": None, "successor": None, "transitions": []}


def test_a_text_contradicts_the_registry_only_with_a_state_the_version_has_not_been_in():
    from dc_bridge.catalog.lifecycle import Life, Transition, contradiction, text_status

    deprecated = Life("deprecated", "deprecated", (Transition("c", "1.0.0", "active", "deprecated", "2026-01-01T00:00:00Z"),),
                      None, None, False)
    assert contradiction("active", deprecated) is None  # older than the registry, not against it
    assert "registry says deprecated" in contradiction("retired", deprecated)
    assert contradiction("proposed", deprecated) is not None  # a version registered active was never proposed
    assert text_status({"apiVersion": "v3.1.0", "status": " Deprecated "}) == "deprecated"
    assert text_status({"dataContractSpecification": "1.1.0", "info": {"status": "active"}}) == "active"
    assert text_status({"apiVersion": "v3.1.0"}) is None


def test_processes_moving_one_version_at_once_one_wins_and_the_others_are_told(project):
    """Four processes deprecate 1.0.0 at once, each with its own reason: one exits 0; each other is told, exit 1 naming
    the winner's move when it read the version before the winner wrote, exit 2 (it is there already) when after; the
    trail holds the winner's transition alone. Then two race from deprecated to sunset."""
    assert invoke("register", write(project, "c1.yaml")).exit_code == 0
    env = {**os.environ, "PYTHONPATH": str(ROOT)}

    def race(argument_lists):
        processes = [subprocess.Popen([sys.executable, "-c", "from dc_bridge.cli import main; main()", "lifecycle", *arguments],
                                      cwd=project, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                     for arguments in argument_lists]
        return [(p.wait(timeout=300), *p.communicate()) for p in processes]

    done = race([("customers", "--to", "deprecated", "--sunset", "2099-01-01", "--reason", f"writer {n}") for n in range(4)])
    assert sorted(code for code, _, _ in done)[0] == 0 and sorted(code for code, _, _ in done)[1] in (1, 2), done
    winner = next(out for code, out, _ in done if code == 0)
    reason = next(f"writer {n}" for n in range(4) if f'"writer {n}"' in winner)
    told = {1: f'another writer first: to deprecated at', 2: "it cannot move to deprecated: it is there already"}
    assert all(told[code] in " ".join(err.split()) for code, _, err in done if code), done
    assert all(f'"{reason}"' in " ".join(err.split()) for code, _, err in done if code == 1), done
    trail = read_back(project)["1.0.0"]["transitions"]
    assert [(t["to"], t["reason"]) for t in trail] == [("active", "registered with this status"), ("deprecated", reason)]
    done = race([("customers", "--to", "sunset", "--reason", f"end {n}") for n in range(2)])
    assert sorted(code for code, _, _ in done) in ([0, 1], [0, 2]), done
    assert [t["to"] for t in read_back(project)["1.0.0"]["transitions"]] == ["active", "deprecated", "sunset"]


MOVER = """
import sys, time
from datetime import datetime, timezone
from pathlib import Path
from dc_bridge.catalog import open_store
from dc_bridge.catalog.lifecycle import Request, plan, utc_now
store = open_store("iceberg", Path(".dc-bridge/iceberg"))
prop, transition = plan(store.properties("sales"), "sales", store.label,
                        Request("customers", None, "deprecated", sys.argv[1], "2099-01-01"), utc_now())
Path(sys.argv[1]).touch()  # read and planned: ready
while not Path("go").exists():
    time.sleep(0.01)
print("won" if store.claim("sales", prop, transition.to_json()) else "lost")
"""


def test_writers_that_all_read_before_any_writes_have_one_winner(project):
    """Four processes each read the version (active) and plan its deprecation, wait for each other, then claim the same
    property at once: exactly one sets it, the others are told they did not, and the property is the winner's (a
    read, write and read back, Store's generic claim, let several believe they won and kept only the last)."""
    assert invoke("register", write(project, "c1.yaml")).exit_code == 0
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    names = [f"writer-{n}" for n in range(4)]
    processes = [subprocess.Popen([sys.executable, "-c", MOVER, name], cwd=project, env=env, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True) for name in names]
    deadline = datetime.now() + timedelta(seconds=120)
    while not all((project / name).exists() for name in names) and datetime.now() < deadline:
        time.sleep(0.01)
    (project / "go").touch()
    said = {name: p.communicate(timeout=120) for name, p in zip(names, processes)}
    assert sorted(out.strip() for out, _ in said.values()) == ["lost", "lost", "lost", "won"], said
    winner = next(name for name, (out, _) in said.items() if out.strip() == "won")
    assert [(t["to"], t["reason"]) for t in read_back(project)["1.0.0"]["transitions"]][-1] == ("deprecated", winner)


WIDE = CONTRACT + """      - name: email
        logicalType: string
"""


def test_a_breaking_change_waits_out_the_deprecation_window(tmp_path, monkeypatch):
    """check-version --against-registered with lifecycle.deprecation-window: no window, today's answer; an active
    version, refused naming the change; deprecated today, refused with the date to wait for; deprecated 40 days ago
    (a transition written with that clock through the API), allowed; a non-breaking change never waits."""
    from dc_bridge.catalog import open_store
    from dc_bridge.catalog.lifecycle import Request, move

    monkeypatch.chdir(tmp_path)
    plain = f'catalog = "iceberg"\nnamespace = "{NS}"\n'
    (tmp_path / "dc-bridge.toml").write_text(plain, encoding="utf-8")
    for name, version, text in (("a.yaml", "1.0.0", WIDE), ("b.yaml", "2.0.0", WIDE)):
        (tmp_path / name).write_text(text.format(id="customers", version=version, status="active"), encoding="utf-8")
    assert invoke("register", "a.yaml").exit_code == 0
    assert invoke("register", "b.yaml").exit_code == 0
    (tmp_path / "new.yaml").write_text(CONTRACT.format(id="customers", version="3.0.0", status="active"), encoding="utf-8")
    (tmp_path / "minor.yaml").write_text((WIDE + "      - name: phone\n        logicalType: string\n").format(
        id="customers", version="2.1.0", status="active"), encoding="utf-8")
    assert invoke("check-version", "new.yaml", "--against-registered").exit_code == 0
    (tmp_path / "dc-bridge.toml").write_text(plain + '[lifecycle]\ndeprecation-window = "30d"\n', encoding="utf-8")
    active = invoke("check-version", "new.yaml", "--against-registered")
    said = " ".join(active.output.split())
    assert active.exit_code == 1 and "customers 2.0.0 is active" in said and "customers.email" in said and "needs that wait" in said, said
    assert invoke("check-version", "minor.yaml", "--against-registered").exit_code == 0
    assert invoke("lifecycle", "customers@2.0.0", "--to", "deprecated", "--sunset", in_days(60)).exit_code == 0
    today = invoke("check-version", "new.yaml", "--against-registered", "--format", "json")
    assert today.exit_code == 1 and "so wait until" in json.loads(today.stdout)["deprecation_wait"]
    # orders 1.0.0 deprecated 40 days ago (a transition written with that clock through the API): its breaking change passes
    (tmp_path / "o1.yaml").write_text(WIDE.format(id="orders", version="1.0.0", status="active"), encoding="utf-8")
    (tmp_path / "o2.yaml").write_text(CONTRACT.format(id="orders", version="2.0.0", status="active"), encoding="utf-8")
    assert invoke("register", "o1.yaml").exit_code == 0
    store = open_store("iceberg", tmp_path / ".dc-bridge" / "iceberg")
    long_ago = datetime.now(timezone.utc).replace(microsecond=0) - timedelta(days=40)
    move(store, NS, Request("orders", None, "deprecated", "moved on", in_days(20)), now=long_ago)
    waited = invoke("check-version", "o2.yaml", "--against-registered")
    assert waited.exit_code == 0 and "needs that wait" not in waited.output, waited.output
    (tmp_path / "dc-bridge.toml").write_text(plain + '[lifecycle]\ndeprecation-window = "a month or so"\n', encoding="utf-8")
    bad = invoke("check-version", "new.yaml", "--against-registered")
    assert bad.exit_code == 2 and "lifecycle.deprecation-window" in bad.output
