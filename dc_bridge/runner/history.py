"""The run history: a JSON Lines file the user names (`dc-bridge run --history PATH`, `dc_bridge.run(history=PATH)`)
to which each run appends one record per contract, and over which the fold judges availability and
errorRate SLAs (verdict.py `judge_history`; docs/mapping.md, "Service levels over a history of runs").

The file is the user's: it is read before Spark starts and appended to once the verdict exists (or
once a model's data turned out unreadable), never rewritten or truncated. A line that is not a
dc-bridge history record stops the run (HistoryError: the file, the line, what was expected) instead
of being skipped: a history that silently lost runs would misjudge availability. The one exception is
a record cut short, a line that begins as dc-bridge writes a record and ends before its JSON does (a
run stopped while appending it: killed, out of disk): that run's record never was whole, so it is
passed over, and said so (`History.cut_short`, `cut_short_note`), rather than stopping every later run.
"""

from __future__ import annotations

import json
import os
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Iterable

from dc_bridge.outcomes import ALL
from dc_bridge.verdict import HISTORY_WINDOW, PastRun, RunHistory, Verdict, checks_in_error

# the key and version every record starts with: what makes a line ours
FORMAT_KEY, FORMAT = "dc_bridge_history", 1
# how every line `append_record` writes begins: a line that begins so and is not JSON was cut short while written
_WRITTEN_START = json.dumps({FORMAT_KEY: FORMAT}, separators=(",", ":"))[:-1].encode("utf-8") + b","
EXPECTED = f'one JSON object per line, written by dc-bridge run --history ({{"{FORMAT_KEY}": {FORMAT}, "contract_id": ...}})'


class HistoryError(ValueError):
    """A history file dc-bridge cannot read or append to; the message names the file and the line."""


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _timestamp(value: Any) -> bool:
    try:
        return isinstance(value, str) and datetime.fromisoformat(value).tzinfo is not None
    except ValueError:
        return False


# record field -> (what its value must be, as a message says it; the test of a value)
_FIELDS: dict[str, tuple[str, Callable[[Any], bool]]] = {
    FORMAT_KEY: (str(FORMAT), lambda v: v == FORMAT and not isinstance(v, bool)),
    "contract_id": ("a string", lambda v: isinstance(v, str)),
    "contract_version": ("a string", lambda v: isinstance(v, str)),
    "run_at": ("an ISO 8601 time with its offset from UTC", _timestamp),
    "outcome": (f"one of {', '.join(ALL)}", lambda v: v in ALL),
    "read": ("an object of model -> true or false (its data could be read)",
             lambda v: isinstance(v, dict) and all(isinstance(x, bool) for x in v.values())),
    "models": ("an object of model -> outcome", lambda v: isinstance(v, dict) and all(x in ALL for x in v.values())),
    "checks": ("an object of check id -> outcome", lambda v: isinstance(v, dict) and all(x in ALL for x in v.values())),
    "evaluated": ("a whole number, 0 or more", _count),
    "in_error": ("a whole number from 0 to `evaluated`", _count),
}


def read_history(path: str | Path, cut_short: list[int] | None = None) -> list[dict]:
    """Every record of the file (none when it does not exist yet), checked line by line; HistoryError
    for the first line that is not a record, or a file that could not be appended to after the run.
    A record cut short while it was written is passed over, its line number added to `cut_short`."""
    path = Path(path)
    _check_appendable(path)
    if not path.exists():
        return []
    try:
        lines = path.read_bytes().split(b"\n")
    except OSError as exc:
        raise HistoryError(f"history file {path} cannot be read: {exc.strerror or exc}") from None
    records = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        if _cut_short(line):
            if cut_short is not None:
                cut_short.append(number)
            continue
        records.append(_record(path, number, line))
    return records


def _cut_short(line: bytes) -> bool:
    """A line that begins as `append_record` writes a record and is not JSON: the record of a run stopped while writing it."""
    if not line.startswith(_WRITTEN_START):
        return False
    try:
        json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return True
    return False


def cut_short_note(path: str | Path, lines: list[int]) -> str:
    """What a command says of the records of `path` that were cut short (`read_history`'s `cut_short`)."""
    where = f"line {lines[0]}" if len(lines) == 1 else f"lines {', '.join(map(str, lines))}"
    return (f"history file {path}, {where}: the record of a run that stopped while writing it (cut short) is passed over; "
            f"that run is not counted. The line is left as it is")


def _record(path: Path, number: int, line: bytes) -> dict:
    def refuse(found: str) -> HistoryError:
        return HistoryError(f"history file {path}, line {number}: expected {EXPECTED}; found {found}. The file is not a "
                            f"dc-bridge history or was edited: name another file with --history, or mend that line.")
    try:
        record = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise refuse(f"text that is not JSON: {line[:60].decode('utf-8', 'replace')!r}") from None
    if not isinstance(record, dict) or FORMAT_KEY not in record:
        raise refuse(f"{type(record).__name__} without `{FORMAT_KEY}`: not a record of dc-bridge's")
    for key, (wanted, test) in _FIELDS.items():
        if key not in record or not test(record[key]):
            raise refuse(f"`{key}` " + (f"= {json.dumps(record[key])[:60]}" if key in record else "missing") + f" (it must be {wanted})")
    if record["in_error"] > record["evaluated"]:
        raise refuse(f"`in_error` {record['in_error']} over `evaluated` {record['evaluated']}")
    return record


def _check_appendable(path: Path) -> None:
    """Before the run, not after it: a record that cannot be written would be lost with the run."""
    if path.is_dir():
        raise HistoryError(f"history file {path} is a folder; name a file (for example {path / 'history.jsonl'})")
    if not path.exists() and not path.parent.is_dir():
        raise HistoryError(f"history file {path}: the folder {path.parent} does not exist; create it or name a file in an existing folder")
    if not os.access(path if path.exists() else path.parent, os.W_OK):
        raise HistoryError(f"history file {path} cannot be appended to (permission denied); name a file you can write")


class History:
    """The history file as one command uses it: read and checked once (`dc-bridge run` before its first
    contract), then each contract's earlier runs taken from those records, and each record this command
    appends kept beside them, so a later contract of the same run sees it as a second read would."""

    def __init__(self, path: str | Path):
        self.path = path
        self.cut_short: list[int] = []  # lines of records cut short while written, passed over (`cut_short_note`)
        self.records = read_history(path, self.cut_short)

    def earlier_runs(self, contract_id: str, now: datetime) -> RunHistory:
        return earlier_runs(self.records, self.path, contract_id, now)

    def append(self, record: dict, verdict: Verdict | None = None, data_docs: dict | None = None) -> None:
        """The record as one line; the verdict's numbers and where the run's Data Docs are are for a history
        store (dc_bridge/history), a line keeps outcomes."""
        append_record(self.path, record)
        self.records.append(record)


def earlier_runs(records: Iterable[dict], path: str | Path, contract_id: str, now: datetime) -> RunHistory:
    """The records of this contract (any version: the data is the same product) within HISTORY_WINDOW before `now`."""
    runs = tuple(PastRun(data_read=all(r["read"].values()), evaluated=r["evaluated"], in_error=r["in_error"])
                 for r in records if r["contract_id"] == contract_id and now - HISTORY_WINDOW <= datetime.fromisoformat(r["run_at"]) <= now)
    return RunHistory(file=str(path), runs=runs)


def run_record(verdict: Verdict, models: Iterable[str], at: datetime) -> dict:
    """The record of a run that read the data of every model and has its verdict."""
    evaluated, in_error = checks_in_error(verdict.checks())
    return {FORMAT_KEY: FORMAT, "contract_id": verdict.contract_id, "contract_version": verdict.contract_version,
            "run_at": at.isoformat(), "outcome": verdict.outcome, "read": {model: True for model in models},
            "models": {m.name: m.outcome for m in verdict.models}, "checks": {c.check_id: c.outcome for c in verdict.checks()},
            "evaluated": evaluated, "in_error": in_error}


def unread_record(contract_id: str, contract_version: str, read: dict[str, bool], at: datetime, reason: str) -> dict:
    """The record of a run that stopped because a model's data could not be read: `read` has the models
    read before it (true) and that model (false); the models after it were not tried."""
    return {FORMAT_KEY: FORMAT, "contract_id": contract_id, "contract_version": contract_version, "run_at": at.isoformat(),
            "outcome": "error", "read": read, "models": {}, "checks": {}, "evaluated": 0, "in_error": 0, "reason": reason}


def append_record(path: str | Path, record: dict) -> None:
    """One line at the end of the file, created if missing. The bytes already there are never touched:
    a file whose last line lacks its newline (edited by hand) gets one first, so no two records share a line."""
    line = json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"
    try:
        with open(path, "a+b") as file:
            if file.seek(0, os.SEEK_END) > 0:
                file.seek(-1, os.SEEK_END)
                if file.read(1) != b"\n":
                    line = b"\n" + line
            file.write(line)
    except OSError as exc:
        raise HistoryError(f"history file {path}: the record of this run could not be appended ({exc.strerror or exc})") from None
