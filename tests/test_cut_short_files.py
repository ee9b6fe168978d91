"""Files dc-bridge wrote and reads back at its next start, after a process stopped while writing them
(dc_bridge/paths.py `write_whole`, runner/history.py `read_history`, catalog/iceberg.py `keep_text`): each is
written whole or not at all, or read back with a note saying what was passed over, never a traceback and never
a file left cut short for good.

A stop while writing is made real, not pretended: a child process whose file size limit (RLIMIT_FSIZE) is
smaller than what it writes is killed by the kernel (SIGXFSZ) in the middle of the write, as a full disk or a
kill would leave it.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from click.testing import CliRunner

from dc_bridge.cli import main
from dc_bridge.runner.history import History, append_record, read_history

ROOT = Path(__file__).resolve().parent.parent


def _killed_while_writing(limit: int, code: str, cwd: Path) -> None:
    """Run `code` in a child whose files may not grow past `limit` bytes: it is killed by SIGXFSZ at its first
    larger write (after its imports, so no byte-code cache is what trips it)."""
    child = textwrap.dedent(f"""\
        import resource, signal, sys
        signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
        from dc_bridge.cli import main
        import dc_bridge.history.site.build, dc_bridge.compiler, vl_convert
        resource.setrlimit(resource.RLIMIT_FSIZE, ({limit}, {limit}))
        """) + textwrap.dedent(code)
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    completed = subprocess.run([sys.executable, "-c", child], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    assert completed.returncode == -signal.SIGXFSZ, (completed.returncode, completed.stderr[-2000:])


def _record(number: int) -> dict:
    at = datetime(2026, 11, 1, tzinfo=timezone.utc) + timedelta(days=number)
    return {"dc_bridge_history": 1, "contract_id": "orders", "contract_version": "1.0.0", "run_at": at.isoformat(),
            "outcome": "passed", "read": {"orders": True}, "models": {"orders": "passed"}, "checks": {"a": "passed"},
            "evaluated": 1, "in_error": 0}


def test_a_json_lines_record_cut_short_is_passed_over_with_a_note_and_later_runs_go_on(tmp_path):
    path = tmp_path / "history.jsonl"
    append_record(path, _record(1))
    # the second run's append, stopped by the kernel in the middle of its line
    _killed_while_writing(path.stat().st_size + 40, f"""
        from dc_bridge.runner.history import append_record
        append_record({str(path)!r}, {_record(2)!r})
        """, tmp_path)
    assert not path.read_bytes().endswith(b"\n")  # the line is cut short
    history = History(path)
    assert [r["run_at"] for r in history.records] == [_record(1)["run_at"]] and history.cut_short == [2]
    history.append(_record(3))  # the next run appends on a line of its own
    cut: list[int] = []
    assert [r["run_at"] for r in read_history(path, cut)] == [_record(1)["run_at"], _record(3)["run_at"]] and cut == [2]
    result = CliRunner().invoke(main, ["history", "import", str(path), "--into", str(tmp_path / "history.db")])
    assert result.exit_code == 0, result.output
    assert "imported 2 runs" in result.stdout
    assert (f"note: history file {path}, line 2: the record of a run that stopped while writing it (cut short) is passed over"
            in result.stderr)
    # a line that is not ours, or ours edited into something else, still stops the run
    with path.open("ab") as file:
        file.write(b'{"dc_bridge_history":1,"contract_id":"orders"}\n')
    with pytest.raises(ValueError, match=r"line 4: expected .*`contract_version` missing"):
        History(path)


def test_a_site_build_stopped_while_writing_leaves_no_page_or_bundle_cut_short(tmp_path):
    pytest.importorskip("vl_convert")
    from dc_bridge.history import HistoryStore

    store = HistoryStore(tmp_path / "history.db")
    for number in range(3):
        store.append(_record(number))
    out = tmp_path / "site"
    # the first build, stopped by the kernel while it writes assets/vega.js (about 900 kB)
    _killed_while_writing(200_000, f"""
        main(["site", "--history", {str(store.path)!r}, "--out", {str(out)!r}])
        """, tmp_path)
    vega = out / "assets" / "vega.js"
    assert not vega.exists() or vega.stat().st_size > 200_000
    result = CliRunner().invoke(main, ["site", "--history", str(store.path), "--out", str(out)])
    assert result.exit_code == 0, result.output
    text = vega.read_text(encoding="utf-8")
    assert text.startswith("/* dc-bridge site: vega ") and text.endswith("/* end of the dc-bridge site's vega bundle */\n")
    # a bundle an earlier dc-bridge left cut short (its first line whole) is written again, not kept
    vega.write_text(text[:100_000], encoding="utf-8")
    result = CliRunner().invoke(main, ["site", "--history", str(store.path), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert vega.read_text(encoding="utf-8") == text
    # the pages: a build stopped while writing one leaves the page that was there whole
    page = out / "contracts" / "orders.html"
    before = page.read_bytes()
    store.append(_record(3))
    _killed_while_writing(len(before) // 2, f"""
        main(["site", "--history", {str(store.path)!r}, "--out", {str(out)!r}])
        """, tmp_path)
    assert page.read_bytes() == before
    result = CliRunner().invoke(main, ["site", "--history", str(store.path), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert page.read_bytes() != before and page.read_text(encoding="utf-8").rstrip().endswith("</html>")


def test_compile_stopped_while_writing_leaves_the_compiled_file_it_had(tmp_path):
    orders = ROOT / "contracts" / "orders.yaml"
    contract = tmp_path / "orders.yaml"
    contract.write_text(orders.read_text(encoding="utf-8"), encoding="utf-8")
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["compile", "--out", str(out), str(contract)])
    assert result.exit_code == 0, result.output
    files = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    contract.write_text(contract.read_text(encoding="utf-8").replace("version: 1.0.0", "version: 1.0.1", 1), encoding="utf-8")
    _killed_while_writing(min(len(b) for b in files.values()) // 2, f"""
        main(["compile", "--out", {str(out)!r}, {str(contract)!r}])
        """, tmp_path)
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file() and not p.name.endswith(".dc-bridge-partial")} == files
