"""Outputs never overwrite an input, and file names from contracts cannot leave the output folder.

Every output option of the command line (cli/outputs.py, compiler.safe_name and compiler.rendered):
a path that is the contract, a file it references, imports or extends, or a data path of the run is
refused with exit 2 and the user's file stays byte-identical; a missing output folder is created
before the work starts, or refused when it cannot be; contract ids and model names become file names
that stay inside the output folder, and two that would share a file are an error naming both.
The refusals of `run` and `drift` happen before Spark starts: those tests replace the run and the
session with functions that fail the test. One test runs for real into a missing folder.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from textwrap import dedent

import pytest
from click.testing import CliRunner

from dc_bridge import compiler
from dc_bridge.cli import main
from dc_bridge.cli.outputs import OutputRefused, write_text

ROOT = Path(__file__).resolve().parent.parent
CONTRACTS = ROOT / "contracts"


def cli(*args) -> tuple[int, str]:
    result = CliRunner().invoke(main, [str(a) for a in args], prog_name="dc-bridge")
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.output


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def unchanged(*paths: Path):
    """A context that asserts every file's bytes are the same afterwards."""
    class Guard:
        def __enter__(self):
            self.before = {p: p.read_bytes() for p in paths}

        def __exit__(self, *exc):
            for path, data in self.before.items():
                assert path.read_bytes() == data, f"{path} changed"

    return Guard()


@pytest.fixture
def orders(tmp_path) -> Path:
    """The bundled orders contract with its sample data (a local server: ./data/orders/{model}.csv)."""
    shutil.copy(CONTRACTS / "orders.yaml", tmp_path / "orders.yaml")
    shutil.copytree(CONTRACTS / "data" / "orders", tmp_path / "data" / "orders")
    return tmp_path / "orders.yaml"


@pytest.fixture
def family(tmp_path) -> dict[str, Path]:
    """A child contract that `$ref`s a definitions file and extends a parent, which extends a grandparent."""
    def dcs(name: str, extends: str = "", field: str = "{type: string}") -> str:
        parents = f"x-dc-bridge-extends: [{extends}]\n" if extends else ""
        return (f"dataContractSpecification: 1.1.0\nid: {name}\ninfo:\n  title: {name}\n  version: 1.0.0\n{parents}"
                f"models:\n  customers:\n    fields:\n      email: {field}\n")

    return {
        "grandparent": write(tmp_path / "grandparent.yaml", dcs("grandparent")),
        "parent": write(tmp_path / "parent.yaml", dcs("parent", extends="grandparent.yaml")),
        "definitions": write(tmp_path / "definitions.yaml", "email:\n  type: string\n"),
        "child": write(tmp_path / "child.yaml", dcs("child", extends="parent.yaml", field="{$ref: 'definitions.yaml#/email'}")),
    }


# The command line in a process of its own that file modes bind, for the tests of a folder without
# write permission. CI runs the suite as root, whom modes do not bind (CAP_DAC_OVERRIDE): there the
# process is root without that capability and CAP_DAC_READ_SEARCH (setpriv drops them from the
# bounding set, so the new process never holds them), which still reads what root owns (the checkout,
# the venv, tmp_path) and, like any owner, cannot write into its own folder of mode 0500. `nobody`
# would need every file on the way readable by others (the venv's Python lies under /root here). Any
# other user is bound already and runs it as itself. A run or a Spark session fails as in `no_spark`.
REFUSING_CLI = """
import sys
import dc_bridge.runner.data, dc_bridge.runner.pipeline
from dc_bridge.cli import main

def fail(*args, **kwargs):
    raise AssertionError("the command started its work before refusing its output")

dc_bridge.runner.pipeline.run = dc_bridge.runner.data.get_session = fail
main(sys.argv[1:], prog_name="dc-bridge")
"""


def cli_bound_by_file_modes(*args) -> tuple[int, str]:
    unbound = ["setpriv", "--bounding-set=-dac_override,-dac_read_search", "--"] if os.geteuid() == 0 else []
    done = subprocess.run([*unbound, sys.executable, "-c", REFUSING_CLI, *map(str, args)], capture_output=True, text=True,
                          timeout=120, check=False)
    return done.returncode, done.stdout + done.stderr


@pytest.fixture
def no_spark(monkeypatch):
    """Fail the test if a run or a Spark session starts: refusals come before both."""
    import dc_bridge.runner.data
    import dc_bridge.runner.pipeline

    def fail(*args, **kwargs):
        raise AssertionError("the command started its work before refusing its output")

    monkeypatch.setattr(dc_bridge.runner.pipeline, "run", fail)
    monkeypatch.setattr(dc_bridge.runner.pipeline, "check", fail)
    monkeypatch.setattr(dc_bridge.runner.data, "get_session", fail)


# ---------------------------------------------------------------------------------------------
# lint


@pytest.mark.parametrize("spelling", ["plain", "dot-slash", "dot-dot", "symlink"])
def test_lint_refuses_to_write_its_report_over_the_contract(orders, spelling, monkeypatch):
    monkeypatch.chdir(orders.parent)
    target = {"plain": "orders.yaml", "dot-slash": "./orders.yaml", "dot-dot": "data/../orders.yaml", "symlink": "link.yaml"}[spelling]
    if spelling == "symlink":
        os.symlink("orders.yaml", "link.yaml")
    with unchanged(orders):
        code, output = cli("lint", "--output-file", target, "orders.yaml")
    assert code == 2
    assert (f"dc-bridge lint: --output-file {target} is the contract (orders.yaml), which the report would replace; "
            "nothing was written. Write the report to a file this command does not read.") in output


@pytest.mark.parametrize("member", ["definitions", "parent", "grandparent"])
def test_lint_refuses_a_referenced_file_and_every_ancestor(family, member):
    with unchanged(*family.values()):
        code, output = cli("lint", "--output-file", family[member], family["child"])
    assert code == 2
    what = ("a file {} references or imports" if member == "definitions" else
            "a parent contract of {} (x-dc-bridge-extends), or a file it reads").format(family["child"])
    assert f"--output-file {family[member]} is {what} ({family[member]})" in output


def test_lint_refuses_an_imported_rule_library(tmp_path):
    for name in ("customer_master.yaml", "common-quality-rules.yaml"):
        shutil.copy(CONTRACTS / name, tmp_path / name)
    library = tmp_path / "common-quality-rules.yaml"
    with unchanged(library):
        code, output = cli("lint", "--output-file", library, tmp_path / "customer_master.yaml")
    assert code == 2 and f"is a file {tmp_path / 'customer_master.yaml'} references or imports" in output


def test_lint_report_into_a_missing_folder_creates_it(orders, tmp_path):
    report = tmp_path / "reports" / "lint" / "orders.sarif"
    code, output = cli("lint", "--format", "sarif", "--output-file", report, orders)
    assert code == 0 and output == ""
    assert json.loads(report.read_text(encoding="utf-8"))["version"] == "2.1.0"


def test_a_report_folder_that_cannot_be_created_is_refused(orders, tmp_path):
    blocker = write(tmp_path / "blocker", "a file, not a folder\n")
    code, output = cli("lint", "--output-file", blocker / "report.txt", orders)
    assert code == 2
    assert (f"dc-bridge lint: --output-file: cannot create the folder of {blocker / 'report.txt'}: {blocker} is a file, not a folder; "
            "nothing was written. Choose a folder you can create or write to.") in output


@pytest.mark.skipif(os.name != "posix", reason="file modes are POSIX")
def test_a_report_folder_without_write_permission_is_refused(orders, tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        code, output = cli_bound_by_file_modes("lint", "--output-file", locked / "report.txt", orders)
    finally:
        locked.chmod(0o700)
    assert code == 2 and "cannot be written (permission denied)" in output


def test_a_report_that_cannot_be_written_after_all_goes_to_stdout(tmp_path, capsys):
    with pytest.raises(OutputRefused) as refused:
        write_text("--output-file", str(tmp_path / "gone" / "report.json"), '{"outcome": "passed"}\n')
    assert capsys.readouterr().out == '{"outcome": "passed"}\n'
    assert refused.value.exit_code == 2 and "the report is on stdout instead" in refused.value.format_message()


# ---------------------------------------------------------------------------------------------
# compile: file names from contracts


@pytest.mark.parametrize("text", ["..", ".", "", "...", "/", "/etc/passwd", "a/../../b", "..\\..\\x", "C:\\Windows", "a\0b",
                                  "con", "NUL.v2", "lpt1", "   ", "_._", "x" * 400, "ü" * 200, "orders.", ".hidden", "..orders",
                                  "a..b", "x...y", "._.orders._.", "." * 200 + "x"])
def test_safe_name_stays_in_its_folder(text, tmp_path):
    name = compiler.safe_name(text, "model")
    assert name not in ("", ".", "..") and not any(ch in name for ch in "/\\\0:")
    # no hidden file, and no `..` a web server or a reader takes for the parent folder
    assert not name.startswith(".") and ".." not in name
    assert name.split(".")[0].upper() not in {"CON", "PRN", "AUX", "NUL", "COM1", "LPT1"}
    assert len(name.encode("utf-8")) <= 150 and not name.endswith(".")
    assert (tmp_path / name).resolve().parent == tmp_path.resolve()


@pytest.mark.parametrize("text, name", [("urn:datacontract:checkout:orders-latest", "urn_datacontract_checkout_orders-latest"),
                                        ("customer-master-data", "customer-master-data"), ("DC-0001", "DC-0001"),
                                        ("line_items", "line_items"), ("order items", "order_items"), ("größe", "größe"),
                                        ("顧客", "顧客"), ("..", "model"), ("con", "con_"), ("a..b", "a.b"),
                                        (".hidden", "hidden"), ("..orders", "orders"), ("v1.2", "v1.2")])
def test_safe_name_keeps_what_is_already_safe(text, name):
    assert compiler.safe_name(text, "model") == name


def test_compile_of_a_contract_whose_id_is_dot_dot_stays_under_out(orders, tmp_path):
    """The id `..` once made `soda_checks/../orders.yml`: over a contract named orders.yml in --out."""
    contract = tmp_path / "orders.yml"
    contract.write_text(orders.read_text(encoding="utf-8").replace("id: urn:datacontract:checkout:orders-latest", 'id: ".."'),
                        encoding="utf-8")
    out = tmp_path / "soda_checks"
    with unchanged(contract):
        code, output = cli("compile", "--out", out, contract)
    assert code == 0, output
    written = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert written == ["expectation_suites/contract/line_items.json", "expectation_suites/contract/orders.json",
                       "soda_checks/contract/line_items.yml", "soda_checks/contract/orders.yml"]


def test_compile_of_names_with_leading_and_repeated_dots_writes_no_hidden_file_and_no_dot_dot(orders, tmp_path):
    text = orders.read_text(encoding="utf-8").replace("id: urn:datacontract:checkout:orders-latest", 'id: "..checkout..orders"')
    contract = tmp_path / "orders.yml"
    contract.write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    code, output = cli("compile", "--out", out, contract)
    assert code == 0, output
    written = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert written == ["expectation_suites/checkout.orders/line_items.json", "expectation_suites/checkout.orders/orders.json",
                       "soda_checks/checkout.orders/line_items.yml", "soda_checks/checkout.orders/orders.yml"]


def test_compile_refuses_a_compiled_file_that_is_the_contract(orders, tmp_path):
    contract = tmp_path / "out" / "soda_checks" / "urn_datacontract_checkout_orders-latest" / "orders.yml"
    contract.parent.mkdir(parents=True)
    shutil.copy(orders, contract)
    shutil.copytree(orders.parent / "data", contract.parent / "data")
    with unchanged(contract):
        code, output = cli("compile", "--out", tmp_path / "out", contract)
    assert code == 2
    assert (f"dc-bridge compile: --out {tmp_path / 'out'}: the compiled file {contract} is the contract ({contract}), "
            "which it would replace; nothing was written. Choose another --out folder.") in output
    assert not (tmp_path / "out" / "expectation_suites").exists()


def two_models(tmp_path: Path, first: str, second: str, contract_id: str = "shop", name: str = "shop.yaml") -> Path:
    return write(tmp_path / name, f"""
        dataContractSpecification: 1.1.0
        id: "{contract_id}"
        info: {{title: shop, version: 1.0.0}}
        models:
          "{first}":
            fields:
              id: {{type: string, required: true}}
          "{second}":
            fields:
              id: {{type: string}}
        """)


@pytest.mark.parametrize("first, second", [("order items", "order_items"), ("Orders", "orders"), ("a/b", "a_b")])
def test_two_models_that_would_share_a_file_are_an_error_naming_both(tmp_path, first, second):
    contract = two_models(tmp_path, first, second)
    code, output = cli("compile", "--out", tmp_path / "out", contract)
    assert code == 2
    assert f"dc-bridge compile: nothing written; {contract}: models `{first}` and `{second}` both compile to " in output
    assert "one would overwrite the other; rename one of them" in output
    assert not (tmp_path / "out").exists()


def test_two_contracts_that_would_share_a_file_are_an_error_naming_both(tmp_path):
    first = two_models(tmp_path, "orders", "customers", contract_id="shop:eu", name="a.yaml")
    second = two_models(tmp_path, "orders", "payments", contract_id="shop/eu", name="b.yaml")
    code, output = cli("compile", "--out", tmp_path / "out", first, second)
    assert code == 2
    assert f"dc-bridge compile: nothing written; {first} and {second} both compile to {tmp_path / 'out'}" in output
    assert "give them different ids, or compile them with different --out folders" in output
    assert not (tmp_path / "out").exists()


def test_the_same_contract_named_twice_compiles(orders, tmp_path):
    code, output = cli("compile", "--out", tmp_path / "out", orders, orders)
    assert code == 0, output


def test_compile_into_an_out_folder_that_cannot_be_created_is_refused(orders, tmp_path):
    blocker = write(tmp_path / "blocker", "a file\n")
    code, output = cli("compile", "--out", blocker / "out", orders)
    assert code == 2 and "Traceback" not in output
    assert f"dc-bridge compile: --out: cannot create {blocker / 'out'}: {blocker} is a file, not a folder" in output


# ---------------------------------------------------------------------------------------------
# run: refused before Spark starts


def test_run_refuses_to_write_its_verdict_over_the_contract(orders, no_spark):
    with unchanged(orders):
        code, output = cli("run", orders, "--output", "json", "--output-file", orders)
    assert code == 2
    assert f"dc-bridge run: --output-file {orders} is the contract ({orders}), which the report would replace" in output


@pytest.mark.parametrize("how", ["server", "data file", "inside data folder", "data glob"])
def test_run_refuses_to_write_over_its_data(orders, no_spark, how):
    data = orders.parent / "data" / "orders"
    csv = data / "orders.csv"
    options = {"server": [], "data file": ["--data", f"orders={csv}"], "inside data folder": ["--data", f"orders={data}:csv"],
               "data glob": ["--data", f"orders={data}/*.csv"]}[how]
    target = data / ("new.csv" if how in ("inside data folder", "data glob") else "orders.csv")
    with unchanged(csv, orders):
        code, output = cli("run", orders, *options, "--output", "junit", "--output-file", target)
    assert code == 2 and not target.with_name("new.csv").exists()
    expected = {"server": f"is the data of model `orders` (server `local`) ({csv})",
                "data file": f"is the data of model `orders` (--data) ({csv})",
                "inside data folder": f"lies inside the data of model `orders` (--data) ({data})",
                "data glob": f"matches the data of model `orders` (--data) ({data}/*.csv)"}[how]
    assert f"--output-file {target} {expected}, which the report would replace" in output


def test_run_refuses_an_output_file_in_a_folder_that_cannot_be_created(orders, tmp_path, no_spark):
    blocker = write(tmp_path / "blocker", "a file\n")
    code, output = cli("run", orders, "--output", "json", "--output-file", blocker / "verdict.json")
    assert code == 2 and "Traceback" not in output
    assert (f"dc-bridge run: --output-file: cannot create the folder of {blocker / 'verdict.json'}: "
            f"{blocker} is a file, not a folder") in output


def test_run_refuses_data_docs_in_a_folder_that_cannot_be_created(orders, tmp_path, no_spark):
    blocker = write(tmp_path / "blocker", "a file\n")
    code, output = cli("run", orders, "--data-docs", blocker / "site")
    assert code == 2 and "Traceback" not in output
    assert f"dc-bridge run: --data-docs: cannot create {blocker / 'site'}: {blocker} is a file, not a folder" in output


@pytest.mark.skipif(os.name != "posix", reason="file modes are POSIX")
def test_run_refuses_data_docs_in_an_unwritable_folder(orders, tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        code, output = cli_bound_by_file_modes("run", orders, "--data-docs", locked)
    finally:
        locked.chmod(0o700)
    assert code == 2 and "cannot be written (permission denied)" in output


def test_run_refuses_data_docs_that_would_write_over_the_contract(orders, tmp_path, no_spark):
    site = tmp_path / "site"
    contract = site / "index.html"
    site.mkdir()
    shutil.copy(orders, contract)
    shutil.copytree(orders.parent / "data", site / "data")
    with unchanged(contract):
        code, output = cli("run", contract, "--data-docs", site)
    assert code == 2
    assert f"--data-docs {site}: the contract ({contract}) is or lies in {contract}, which this command writes" in output


def test_run_refuses_data_docs_for_a_contract_id_gx_would_store_outside_the_site(orders, tmp_path, no_spark):
    text = orders.read_text(encoding="utf-8")
    orders.write_text(text.replace("id: urn:datacontract:checkout:orders-latest", 'id: ".."'), encoding="utf-8")
    code, output = cli("run", orders, "--data-docs", tmp_path / "site")
    assert code == 2
    assert "dc-bridge run: --data-docs" in output and "suite name '...orders' has an empty part between dots" in output


def test_run_refuses_a_report_that_is_the_data_docs_folder(orders, tmp_path, no_spark):
    code, output = cli("run", orders, "--output", "html", "--output-file", tmp_path / "site", "--data-docs", tmp_path / "site")
    assert code == 2 and f"--output-file {tmp_path / 'site'} is also the --data-docs folder" in output


def test_run_into_a_missing_folder_creates_it_and_writes_the_report(spark, tmp_path):
    report = tmp_path / "reports" / "today" / "orders.json"
    code, output = cli("run", CONTRACTS / "orders.yaml", "--engines", "spark", "--output", "json", "--output-file", report)
    assert code == 0, output
    assert json.loads(report.read_text(encoding="utf-8"))["outcome"] == "passed"


# ---------------------------------------------------------------------------------------------
# the other commands' output options


@pytest.mark.parametrize("command", ["diff", "check-version"])
@pytest.mark.parametrize("side", [0, 1])
def test_diff_and_check_version_refuse_either_contract(orders, tmp_path, command, side):
    old = tmp_path / "old.yaml"
    shutil.copy(orders, old)
    files = [old, orders]
    with unchanged(*files):
        code, output = cli(command, old, orders, "--output-file", files[side])
    assert code == 2 and f"dc-bridge {command}: --output-file {files[side]} is the contract ({files[side]})" in output


def test_diff_into_a_missing_folder_creates_it(orders, tmp_path):
    code, _ = cli("diff", orders, orders, "--format", "json", "--output-file", tmp_path / "new" / "diff.json")
    assert code == 0 and json.loads((tmp_path / "new" / "diff.json").read_text(encoding="utf-8"))["changes"] == []


@pytest.mark.parametrize("target", ["contract", "data"])
def test_drift_refuses_the_contract_and_its_data(orders, no_spark, target):
    csv = orders.parent / "data" / "orders" / "orders.csv"
    path = orders if target == "contract" else csv
    with unchanged(orders, csv):
        code, output = cli("drift", orders, "--output-file", path)
    assert code == 2 and f"dc-bridge drift: --output-file {path} is the " in output


def test_soda_config_refuses_the_contract_and_the_sodacl_it_reads(orders, tmp_path):
    out = tmp_path / "compiled"
    assert cli("compile", "--out", out, orders)[0] == 0
    sodacl = out / "soda_checks" / "urn_datacontract_checkout_orders-latest" / "orders.yml"
    for target, what in ((orders, f"is the contract ({orders})"), (sodacl, f"is the compiled SodaCL of model `orders` ({sodacl})")):
        with unchanged(orders, sodacl):
            code, output = cli("soda", "config", orders, "--out", out, "--output-file", target)
        assert code == 2 and f"dc-bridge soda config: --output-file {target} {what}, which the config would replace" in output


def test_gx_init_refuses_a_project_whose_gx_folder_holds_the_contract(orders, tmp_path, monkeypatch):
    import great_expectations as gx

    monkeypatch.setattr(gx, "get_context", lambda *a, **k: pytest.fail("GX context created"))
    contract = tmp_path / "project" / "gx" / "orders.yaml"
    contract.parent.mkdir(parents=True)
    shutil.copy(orders, contract)
    with unchanged(contract):
        code, output = cli("gx", "init", contract, "--project-dir", tmp_path / "project")
    assert code == 2
    assert f"dc-bridge gx init: --project-dir {tmp_path / 'project'}: the contract ({contract}) is or lies in" in output


def test_gx_init_refuses_a_contract_id_gx_would_store_outside_the_project(orders, tmp_path, monkeypatch):
    """The id `..` made GX write the suites to /orders.json and /line_items.json."""
    import great_expectations as gx

    monkeypatch.setattr(gx, "get_context", lambda *a, **k: pytest.fail("GX context created"))
    text = orders.read_text(encoding="utf-8")
    orders.write_text(text.replace("id: urn:datacontract:checkout:orders-latest", 'id: ".."'), encoding="utf-8")
    code, output = cli("gx", "init", orders, "--project-dir", tmp_path / "project")
    assert code == 2
    assert "dc-bridge gx init: nothing written; suite name '...orders' has an empty part between dots" in output
