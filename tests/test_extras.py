"""A command that needs a package of one of dc-bridge's extras that is not installed says which extra to install
(both ways: from the package index and in a checkout) and exits 2: a missing pyiceberg is not a catalog that
"cannot be reached" (it was a warning and exit 0, nothing registered), a missing matplotlib is no traceback in
`site`. The package is made unimportable in a process of its own (`sys.modules[name] = None`, as Python does for
a module it could not find), so the rest of the installation is the real one."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _without(package: str, args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    program = textwrap.dedent(f"""
        import sys
        sys.modules[{package!r}] = None
        from dc_bridge.cli import main
        sys.argv = ["dc-bridge", *{args!r}]
        main()
    """)
    return subprocess.run([sys.executable, "-c", program], cwd=cwd, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize(("package", "extra", "command"), [
    ("pyiceberg", "catalog", ["register", str(ROOT / "contracts" / "orders.yaml"), "--catalog", "iceberg", "--namespace", "x"]),
    ("vl_convert", "site", ["site", "--history", "{store}", "--out", "{out}"]),
])
def test_a_missing_extra_is_named_with_how_to_install_it(tmp_path, package, extra, command):
    from dc_bridge.history import open_store

    open_store(tmp_path / "runs.db")  # an empty store, created on first use
    args = [part.format(store=tmp_path / "runs.db", out=tmp_path / "site") for part in command]
    done = _without(package, args, tmp_path)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert f"`{package}` is not installed" in done.stderr and f"pip install 'dc-bridge[{extra}]'" in done.stderr, done.stderr
    assert f"pip install -e '.[{extra}]'" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "site").exists() and not (tmp_path / ".dc-bridge").exists()


def test_the_airflow_operator_without_airflow_names_its_extra(tmp_path):
    """`from dc_bridge.airflow import DcBridgeOperator` in a DAG file where Airflow is missing: the import error a DAG
    shows says which extra to install, not a bare ModuleNotFoundError of `airflow`."""
    program = textwrap.dedent("""
        import sys
        sys.modules["airflow"] = None
        from dc_bridge.extras import MissingExtra
        try:
            import dc_bridge.airflow
        except MissingExtra as exc:
            print(exc)
    """)
    done = subprocess.run([sys.executable, "-c", program], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert "`airflow` is not installed" in done.stdout and "pip install 'dc-bridge[airflow]'" in done.stdout, done.stdout
