"""The verdict history store: an embedded SQLite file (standard library `sqlite3`, nothing to install)
that every run of `--history TARGET` appends its verdict to, and that availability and errorRate SLAs
are judged over (docs/history.md has the schema).

- **Append-only.** A run inserts its rows in one transaction (`BEGIN IMMEDIATE`, so concurrent runs
  take turns instead of failing) and never updates or deletes a row; only `prune` deletes, when the
  user asks.
- **Concurrent runs lose nothing.** WAL mode lets readers go on while one run writes; writers wait
  for each other up to `BUSY_SECONDS`.
- **Reads only what a run needs.** `earlier_runs` asks for three numbers of this contract's runs
  within HISTORY_WINDOW through an index on (contract, time): the cost of a run does not grow with
  the history.
- **Versioned.** `schema_version` holds each version the file was brought to; a file of an older
  version is migrated (`MIGRATIONS`) in the transaction of a command that writes to it, losing nothing,
  and a file of a newer version is refused rather than misread.
- **Only its own file.** A file is looked at before it is opened (`identify`): one that is not a store
  (another program's SQLite database, the embedded Iceberg catalog, a text file) is refused before a
  byte of it changes, and a command that only reads (`mode="read"`) creates, migrates and re-journals
  nothing: an older store is read through a migrated copy in a temporary folder.

A record is the JSON Lines record of runner/history.py (`run_record`, `unread_record`): the runs
table holds the same facts, so a JSON Lines history imports without loss (`import_jsonl`), and the
verdict, when the run has one, adds each check's numbers, each engine's, the models and the SLOs.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
import tempfile
import uuid
import weakref
from contextlib import closing, contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Iterable, Iterator, Literal, Mapping

from dc_bridge.history.series import CHECK, run_metrics
from dc_bridge.monitors import MonitorVerdict, Point, SeriesKey
from dc_bridge.runner.history import HistoryError, read_history
from dc_bridge.verdict import HISTORY_WINDOW, PastRun, RunHistory, Verdict

SCHEMA_VERSION = 4
# how long a run waits for another run's transaction on the same file before it gives up
BUSY_SECONDS = 60.0

# the tables of the current schema version, created together in one transaction (docs/history.md follows them:
# tests/test_history_store.py). Times are kept twice: ISO 8601 text to read, microseconds since the
# epoch (UTC) to compare exactly as runner/history.py compares datetimes.
SCHEMA = """
CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL, applied_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY,
    contract_id TEXT NOT NULL,
    contract_version TEXT NOT NULL,
    run_at TEXT NOT NULL,
    run_at_us INTEGER NOT NULL,
    outcome TEXT NOT NULL,
    data_read INTEGER NOT NULL,
    evaluated INTEGER NOT NULL,
    in_error INTEGER NOT NULL,
    contract_file TEXT,
    data_source TEXT,
    slice TEXT,
    reason TEXT,
    seconds REAL,
    phases TEXT,
    origin TEXT NOT NULL,
    data_docs TEXT,
    lifecycle_state TEXT,
    lifecycle_sunset TEXT,
    lifecycle_successor TEXT,
    lifecycle_days_to_sunset INTEGER
);
CREATE INDEX IF NOT EXISTS runs_by_contract_and_time ON runs (contract_id, run_at_us);
CREATE INDEX IF NOT EXISTS runs_by_time ON runs (run_at_us);
CREATE TABLE IF NOT EXISTS models (
    run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
    model TEXT NOT NULL,
    data_read INTEGER,
    outcome TEXT,
    PRIMARY KEY (run_id, model)
);
CREATE TABLE IF NOT EXISTS checks (
    run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
    check_id TEXT NOT NULL,
    model TEXT,
    kind TEXT,
    outcome TEXT NOT NULL,
    severity TEXT,
    observed REAL,
    unit TEXT,
    expected TEXT,
    scope TEXT,
    reason TEXT,
    source_file TEXT,
    source_line INTEGER,
    PRIMARY KEY (run_id, check_id)
);
CREATE TABLE IF NOT EXISTS check_engines (
    run_id TEXT NOT NULL,
    check_id TEXT NOT NULL,
    engine TEXT NOT NULL,
    outcome TEXT NOT NULL,
    observed REAL,
    error TEXT,
    PRIMARY KEY (run_id, check_id, engine),
    FOREIGN KEY (run_id, check_id) REFERENCES checks (run_id, check_id) ON DELETE CASCADE
);
CREATE TABLE IF NOT EXISTS objectives (
    run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
    objective_id TEXT NOT NULL,
    outcome TEXT NOT NULL,
    value REAL,
    target REAL,
    PRIMARY KEY (run_id, objective_id)
);
CREATE TABLE IF NOT EXISTS imports (
    source TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    records INTEGER NOT NULL,
    imported_at TEXT NOT NULL,
    PRIMARY KEY (source, sha256)
);
-- version 3: each run's value of each series monitors watch, and what they said of it
CREATE TABLE IF NOT EXISTS metrics (
    run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
    metric TEXT NOT NULL,
    model TEXT NOT NULL DEFAULT '',
    subject TEXT NOT NULL DEFAULT '',
    value REAL,
    PRIMARY KEY (run_id, metric, model, subject)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS monitors (
    run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
    metric TEXT NOT NULL,
    model TEXT NOT NULL DEFAULT '',
    subject TEXT NOT NULL DEFAULT '',
    outcome TEXT NOT NULL,
    severity TEXT NOT NULL,
    unit TEXT NOT NULL,
    direction TEXT NOT NULL,
    observed REAL,
    centre REAL,
    lower REAL,
    upper REAL,
    season TEXT,
    points INTEGER NOT NULL,
    needed INTEGER,
    sentence TEXT NOT NULL,
    PRIMARY KEY (run_id, metric, model, subject)
);
"""

# version -> the statements that bring a file of the version before it to it; each runs once, in the
# transaction that opens the file, and records its version in `schema_version`
MIGRATIONS: dict[int, tuple[str, ...]] = {
    # where the GX Data Docs of a run of `--data-docs DIR` are (NULL for the runs before, as for a run without them)
    2: ("ALTER TABLE runs ADD COLUMN data_docs TEXT",),
    # what monitors watch and said: `metrics` and `monitors` (created by SCHEMA already; the runs before have none)
    3: (),
    # where the registry said the contract's version was in its life when it ran (NULL: no lifecycle read, as before)
    4: tuple(f"ALTER TABLE runs ADD COLUMN {column} {kind}" for column, kind in (
        ("lifecycle_state", "TEXT"), ("lifecycle_sunset", "TEXT"), ("lifecycle_successor", "TEXT"),
        ("lifecycle_days_to_sunset", "INTEGER"))),
}


class StoreError(HistoryError):
    """A history store dc-bridge cannot open, read or append to (a ValueError, as HistoryError)."""


# the first 16 bytes of every SQLite 3 database file
SQLITE_HEADER = b"SQLite format 3\x00"
# the tables every version of the store has had: what makes a SQLite file a dc-bridge store
STORE_TABLES = frozenset({"runs", "schema_version"})
RUNS_COLUMNS = frozenset({"run_id", "contract_id", "run_at_us", "outcome", "evaluated", "in_error"})
# a table -> the program whose database has it, to say whose file a refused one is
KNOWN_OWNERS = {"iceberg_tables": "an Iceberg SQL catalog (pyiceberg's; dc-bridge's embedded catalog is one)"}
# how a command opens a store: `create` a missing or empty file (run --history, history import --into), `write` only an
# existing store (history prune), `read` only an existing store and nothing written to it (site, monitor backtest)
Mode = Literal["create", "write", "read"]


@dataclass(frozen=True)
class FileKind:
    """What a `--history` file is, looked at without writing to it (`identify`)."""
    nature: Literal["missing", "empty", "store", "jsonl", "other", "sqlite", "unreadable"]
    version: int | None = None  # a store's schema version
    detail: str = ""  # a SQLite database's tables or owner, or why the file could not be read


def identify(path: str | Path) -> FileKind:
    """What `path` is, read only: its first bytes, and for a SQLite file its tables (opened read-only, so nothing is
    created or re-journaled in a file that is not ours)."""
    path = Path(path)
    try:
        with path.open("rb") as file:
            head = file.read(len(SQLITE_HEADER))
    except FileNotFoundError:
        return FileKind("missing")
    except OSError as exc:
        return FileKind("unreadable", detail=exc.strerror or str(exc))
    if not head:
        return FileKind("empty")
    if head != SQLITE_HEADER:
        return FileKind("jsonl" if path.suffix.lower() == ".jsonl" or head.lstrip()[:1] == b"{" else "other")
    try:
        with closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)) as db:
            tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if not tables:  # a database with nothing in it: another run creating the store this moment (it sets the
                return FileKind("empty")  # journal mode before its schema's transaction), or nobody's data to lose
            # a `runs` table of another program's is not ours either: ours has had these columns since version 1
            runs = {row[1] for row in db.execute("PRAGMA table_info(runs)")}
            if not STORE_TABLES <= tables or not RUNS_COLUMNS <= runs:
                owner = next((who for table, who in KNOWN_OWNERS.items() if table in tables), None)
                return FileKind("sqlite", detail=owner or (f"its tables: {', '.join(sorted(tables))}" if tables else "no tables"))
            return FileKind("store", version=db.execute("SELECT max(version) FROM schema_version").fetchone()[0] or 0)
    except sqlite3.Error as exc:
        return FileKind("unreadable", detail=str(exc))


def refusal(path: str | Path, found: FileKind) -> str | None:
    """Why `path`, as `identify` found it, is not a store a command may open (None for a store or a file yet to be one)."""
    return {
        "jsonl": f"{path} is a JSON Lines history, not a history store: import it into a store with "
                 f"`dc-bridge history import {path} --into history.db`",
        "other": f"{path} is not a dc-bridge history store (not a SQLite database file)",
        "sqlite": f"{path} is a SQLite database of another program ({found.detail}), not a dc-bridge history store "
                  f"(whose runs and schema_version tables it lacks)",
        "unreadable": f"{path} cannot be read as a history store: {found.detail}",
    }.get(found.nature)


def data_source_text(verdict: Verdict | None, given: str | None = None) -> str | None:
    """The `data_source` a run records: `given`, else the verdict's model -> source as a JSON object
    (`{"orders": "/data/orders.parquet"}`: one text column, read back with SQLite's json_extract or Spark's from_json)."""
    if given is not None or verdict is None or not verdict.data_sources:
        return given
    return json.dumps(verdict.data_sources, sort_keys=True, ensure_ascii=False)


def contract_file_text(verdict: Verdict | None) -> str | None:
    """The `contract_file` a run records: a file as an absolute path (a relative one means nothing to the site or to
    `monitor backtest` run from another folder), anything else as the run named it (a fleet run's `NS/ID@VERSION`)."""
    file = verdict.contract_file if verdict else None
    return str(Path(file).resolve()) if file and Path(file).is_file() else file


def data_docs_text(data_docs: dict | None) -> str | None:
    """The `data_docs` a run records: `{"index": ..., "validations": {model: ...}}` as JSON (absolute paths), or NULL."""
    return json.dumps(data_docs, sort_keys=True, ensure_ascii=False) if data_docs else None


def lifecycle_columns(verdict: Verdict | None) -> tuple[str | None, str | None, str | None, int | None]:
    """The lifecycle a run records (state, sunset, successor, days to sunset): the verdict's, NULL where the run read none."""
    found = verdict.lifecycle if verdict is not None else None
    return (found.state, found.sunset, found.successor, found.days_to_sunset) if found is not None else (None,) * 4


def epoch_micros(at: datetime) -> int:
    return int((at - datetime(1970, 1, 1, tzinfo=timezone.utc)) / timedelta(microseconds=1))


@dataclass(frozen=True)
class StoredRun:
    """One run as the store holds it, for readers (the site, `history` commands)."""
    run_id: str
    contract_id: str
    contract_version: str
    run_at: str
    outcome: str
    data_read: bool
    evaluated: int
    in_error: int
    # where the GX Data Docs of the run are (`data_docs_text`, read back), None when it built none
    data_docs: dict | None = None
    # where its data came from (`data_source_text`: model -> source as JSON) and the `--where` slice it checked
    data_source: str | None = None
    slice: str | None = None
    # where the registry said the contract's version was in its life (`lifecycle_columns`), None where the run read none
    lifecycle_state: str | None = None
    lifecycle_sunset: str | None = None
    lifecycle_successor: str | None = None
    lifecycle_days_to_sunset: int | None = None


class HistoryStore:
    """A SQLite history file. Every method opens its own connection, so one store may be used from
    threads and processes alike. `mode` (`Mode`): `create` makes a missing or empty file a store with its
    schema, `write` and `read` take only a store; a file that is not one is refused before anything is written
    to it (StoreError), and `read` writes nothing at all."""

    def __init__(self, path: str | Path, mode: Mode = "create"):
        self.path = Path(path)
        self._file = self.path  # what reads open: the store, or in `read` mode a migrated copy of an older one
        if self.path.is_dir():
            raise StoreError(f"history store {self.path} is a folder; name a file (for example {self.path / 'history.db'})")
        if not self.path.exists() and not self.path.parent.is_dir():
            raise StoreError(f"history store {self.path}: the folder {self.path.parent} does not exist; create it or name a file in an existing folder")
        found = identify(self.path)
        refused = refusal(self.path, found)
        if refused:
            raise StoreError(f"{refused}; nothing was written to it. Name a store file of its own (e.g. runs/history.db)")
        if found.nature != "store" and mode != "create":
            raise StoreError(f"history store {self.path} " + ("does not exist" if found.nature == "missing" else "is an empty file")
                             + ": name the file `run --history` wrote (a store is created by the first run that records to it)")
        if found.version is not None and found.version > SCHEMA_VERSION:
            raise StoreError(f"history store {self.path} has schema version {found.version}, newer than this dc-bridge's "
                             f"{SCHEMA_VERSION}: upgrade dc-bridge to read it")
        if mode == "read":
            if found.version < SCHEMA_VERSION:
                self._file = self._migrated_copy()
            return
        self._bring_to_schema(self.path)

    def _migrated_copy(self) -> Path:
        """An older store read by a command that only reads: copied (SQLite's backup, consistent under writers) into a
        temporary folder removed with this object, and the copy migrated; the user's file stays as it was."""
        folder = tempfile.mkdtemp(prefix="dc-bridge-store-")
        weakref.finalize(self, shutil.rmtree, folder, True)
        copy = Path(folder) / "history.db"
        try:
            with closing(self._reader()) as source, closing(sqlite3.connect(copy)) as target:
                source.backup(target)
        except sqlite3.Error as exc:
            raise StoreError(f"history store {self.path} cannot be read: {exc}") from None
        self._bring_to_schema(copy)
        return copy

    def _bring_to_schema(self, file: Path) -> None:
        """Create the schema in a new file, or migrate an older store, in one transaction."""
        with self._transaction(file) as db:
            for statement in SCHEMA.split(";"):
                db.execute(statement)
            versions = [row[0] for row in db.execute("SELECT version FROM schema_version")]
            now = datetime.now(timezone.utc).isoformat()
            if not versions:
                db.execute("INSERT INTO schema_version VALUES (?, ?)", (SCHEMA_VERSION, now))
            elif max(versions) > SCHEMA_VERSION:
                raise StoreError(f"history store {self.path} has schema version {max(versions)}, newer than this dc-bridge's "
                                 f"{SCHEMA_VERSION}: upgrade dc-bridge to read it")
            for version in range(max(versions, default=SCHEMA_VERSION) + 1, SCHEMA_VERSION + 1):
                for statement in MIGRATIONS[version]:
                    db.execute(statement)
                db.execute("INSERT INTO schema_version VALUES (?, ?)", (version, now))

    @contextmanager
    def _transaction(self, file: Path | None = None) -> Iterator[sqlite3.Connection]:
        """One connection, one write transaction taken up front: committed on success, rolled back on any error."""
        try:
            connection = sqlite3.connect(file or self.path, timeout=BUSY_SECONDS, isolation_level=None)
        except sqlite3.Error as exc:
            raise StoreError(f"history store {self.path} cannot be opened: {exc}") from None
        with closing(connection) as db:
            try:
                db.execute("PRAGMA journal_mode=WAL")
                db.execute("PRAGMA foreign_keys=ON")
                db.execute("BEGIN IMMEDIATE")
                yield db
                db.execute("COMMIT")
            except sqlite3.Error as exc:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise StoreError(f"history store {self.path}: {exc}") from None
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise

    def _reader(self) -> sqlite3.Connection:
        return sqlite3.connect(f"{self._file.resolve().as_uri()}?mode=ro", uri=True, timeout=BUSY_SECONDS)

    def _read(self, sql: str, parameters: tuple = ()) -> list[tuple]:
        try:
            with closing(self._reader()) as db:
                return db.execute(sql, parameters).fetchall()
        except sqlite3.Error as exc:
            raise StoreError(f"history store {self.path} cannot be read: {exc}") from None

    def append(self, record: dict, verdict: Verdict | None = None, data_source: str | None = None,
               data_docs: dict | None = None, metrics: Mapping[SeriesKey, float | None] | None = None) -> str:
        """This run, in one transaction: `record` is runner/history.py's record of it (`run_record`,
        `unread_record`), `verdict` adds each check's numbers when the run has one, and what its monitors
        said; `data_docs` where the GX Data Docs it built are (report/data_docs.py `run_data_docs`).
        `metrics`: the series' values of the run, by default those its verdict holds (series.py `run_metrics`).
        Returns the run id."""
        run_id = str(uuid.uuid4())
        with self._transaction() as db:
            _insert(db, run_id, record, verdict, data_source, origin="run", data_docs=data_docs)
            _insert_metrics(db, run_id, record, verdict, metrics)
        return run_id

    def series(self, contract_id: str, keys: Iterable[SeriesKey] | None = None, limit: int | None = None,
               before: datetime | None = None, sliced: bool | None = None) -> dict[SeriesKey, list[Point]]:
        """The contract's series (only `keys` when given, else every one stored), each oldest first, over the
        contract's newest `limit` runs strictly before `before` (all of them when None): a monitor's lookback counts
        runs, so a series with a gap there has fewer points. A point is anomalous when its run's monitor said so.
        `sliced`: only the runs of a `--where` slice (True) or of whole tables (False): a check over a slice counts
        the slice, so the two are series apart (None: every run).
        One query: the newest runs through the runs' index on (contract, time), then each named series' row of each
        through the metrics' key, so what a run's monitors cost does not grow with the history."""
        cutoff = epoch_micros(before) if before is not None else None
        condition = ("contract_id = ?" + (" AND run_at_us < ?" if cutoff is not None else "")
                     + {None: "", True: " AND slice IS NOT NULL", False: " AND slice IS NULL"}[sliced])
        bounds = (contract_id,) + ((cutoff,) if cutoff is not None else ())
        wanted = None if keys is None else set(keys)
        if wanted == set():
            return {}
        newest = (f"SELECT rowid AS n, run_id, run_at, run_at_us, contract_version FROM runs WHERE {condition} "
                  f"ORDER BY run_at_us DESC, rowid DESC" + (f" LIMIT {int(limit)}" if limit is not None else ""))
        # a check's number is its row of `checks` (stored once): the `check` series read from there, beside the metrics
        checks = wanted is None or any(key.metric == CHECK for key in wanted)
        rows = ("SELECT m.metric, m.model, m.subject, m.value, r.run_at, r.contract_version, r.run_at_us, r.n, m.run_id "
                "FROM r JOIN metrics m ON m.run_id = r.run_id {named}" + (
                    " UNION ALL SELECT 'check', c.model, c.check_id, c.observed, r.run_at, r.contract_version, r.run_at_us, r.n, c.run_id "
                    "FROM r JOIN checks c ON c.run_id = r.run_id AND c.model IS NOT NULL AND c.observed IS NOT NULL {named_checks}"
                    if checks else ""))
        select = (f"WITH r AS ({newest}) SELECT s.metric, s.model, s.subject, s.run_at, s.contract_version, s.value, mo.outcome "
                  f"FROM ({rows}) s LEFT JOIN monitors mo ON mo.run_id = s.run_id AND mo.metric = s.metric AND mo.model = s.model "
                  f"AND mo.subject = s.subject ORDER BY s.run_at_us DESC, s.n DESC")
        # rows keyed by plain tuples, made SeriesKeys once at the end (a frozen dataclass hashes slowly)
        found: dict[tuple, list[tuple]] = {(k.metric, k.model, k.subject): [] for k in wanted or ()}
        try:
            with closing(self._reader()) as db:
                # named series: only their rows, each found through its table's key
                values = "IN (VALUES " + ", ".join(["(?, ?, ?)"] * len(wanted)) + ")" if wanted else ""
                named = f"AND (m.metric, m.model, m.subject) {values}" if wanted else ""
                named_checks = f"AND ('{CHECK}', c.model, c.check_id) {values}" if wanted else ""
                given = tuple(part for key in found for part in key) if wanted else ()
                sql = select.format(named=named, named_checks=named_checks)
                for row in db.execute(sql, bounds + given + (given if checks else ())):
                    points = found.get(row[:3])
                    if points is None and wanted is None:
                        points = found[row[:3]] = []
                    if points is not None:
                        points.append(row[3:])
        except sqlite3.Error as exc:
            raise StoreError(f"history store {self.path} cannot be read: {exc}") from None
        times: dict[str, datetime] = {}  # a run's time read once for all its series
        return {SeriesKey(*key): [Point(times.get(at) or times.setdefault(at, datetime.fromisoformat(at)), value, version,
                                        outcome == "anomalous") for at, version, value, outcome in reversed(points)]
                for key, points in found.items()}

    def monitor_outcomes(self, run_ids: list[str]) -> dict[tuple[str, SeriesKey], MonitorVerdict]:
        """(run id, series) -> what its monitor said of the run, over the given runs, in one query (the site's window)."""
        marks = ", ".join("?" * len(run_ids))
        columns = ("metric", "model", "subject", "outcome", "severity", "unit", "direction", "observed", "centre", "lower",
                   "upper", "season", "points", "needed", "sentence")
        found = {}
        for run_id, *row in self._read(f"SELECT run_id, {', '.join(columns)} FROM monitors WHERE run_id IN ({marks}) ORDER BY rowid",
                                       tuple(run_ids)):
            said = dict(zip(columns, row))
            key = SeriesKey(said["metric"], said["model"], said["subject"])
            found[(run_id, key)] = MonitorVerdict(monitor_id=key.monitor_id, **said)
        return found

    def earlier_runs(self, contract_id: str, now: datetime) -> RunHistory:
        """This contract's runs within HISTORY_WINDOW before `now` (any version), in the order recorded, as runner/history.py's
        `earlier_runs` gives them from a JSON Lines file: only the three numbers the SLAs count."""
        rows = self._read("SELECT data_read, evaluated, in_error FROM runs WHERE contract_id = ? AND run_at_us BETWEEN ? AND ? "
                          "ORDER BY rowid", (contract_id, epoch_micros(now - HISTORY_WINDOW), epoch_micros(now)))
        return RunHistory(file=str(self.path), runs=tuple(PastRun(bool(read), evaluated, in_error) for read, evaluated, in_error in rows))

    def runs(self, contract_id: str | None = None, limit: int | None = None) -> list[StoredRun]:
        """Runs, newest first (of one contract when named; the newest `limit` when given)."""
        sql = ("SELECT run_id, contract_id, contract_version, run_at, outcome, data_read, evaluated, in_error, data_docs, "
               "data_source, slice, lifecycle_state, lifecycle_sunset, lifecycle_successor, lifecycle_days_to_sunset FROM runs")
        parameters: tuple = ()
        if contract_id is not None:
            sql, parameters = sql + " WHERE contract_id = ?", (contract_id,)
        sql += " ORDER BY run_at_us DESC, rowid DESC" + (f" LIMIT {int(limit)}" if limit is not None else "")
        return [StoredRun(*row[:5], bool(row[5]), *row[6:8], json.loads(row[8]) if row[8] else None, *row[9:])
                for row in self._read(sql, parameters)]

    def checks(self, run_id: str) -> list[dict[str, Any]]:
        """One run's checks with each engine's number (`engines`: engine -> {outcome, observed, error})."""
        columns = ("check_id", "model", "kind", "outcome", "severity", "observed", "unit", "expected", "scope", "reason",
                   "source_file", "source_line")
        found = {row[0]: dict(zip(columns, row), engines={})
                 for row in self._read(f"SELECT {', '.join(columns)} FROM checks WHERE run_id = ? ORDER BY rowid", (run_id,))}
        for check_id, engine, outcome, observed, error in self._read(
                "SELECT check_id, engine, outcome, observed, error FROM check_engines WHERE run_id = ? ORDER BY rowid", (run_id,)):
            found[check_id]["engines"][engine] = {"outcome": outcome, "observed": observed, "error": error}
        return list(found.values())

    def contracts(self) -> list[str]:
        """Every contract id with a run, in order."""
        return [contract_id for (contract_id,) in self._read("SELECT DISTINCT contract_id FROM runs ORDER BY contract_id")]

    def contract_file(self, contract_id: str) -> str | None:
        """The contract file of the contract's newest run that recorded one."""
        found = self._read("SELECT contract_file FROM runs WHERE contract_id = ? AND contract_file IS NOT NULL "
                           "ORDER BY run_at_us DESC, rowid DESC LIMIT 1", (contract_id,))
        return found[0][0] if found else None

    def outcomes(self, run_ids: list[str]) -> dict[str, dict[str, tuple[str, float | None]]]:
        """Check id -> run id -> (outcome, observed) over the given runs, in one query (the site's window)."""
        marks = ", ".join("?" * len(run_ids))
        table: dict[str, dict[str, tuple[str, float | None]]] = {}
        for run_id, check_id, outcome, observed in self._read(
                f"SELECT run_id, check_id, outcome, observed FROM checks WHERE run_id IN ({marks}) ORDER BY rowid", tuple(run_ids)):
            table.setdefault(check_id, {})[run_id] = (outcome, observed)
        return table

    def objective_compliance(self, run_ids: list[str]) -> list[tuple[str, int, int]]:
        """(objective id, runs it passed, runs that judged it passed or failed) over the given runs."""
        marks = ", ".join("?" * len(run_ids))
        return self._read(f"SELECT objective_id, sum(outcome = 'passed'), sum(outcome IN ('passed', 'failed')) FROM objectives "
                          f"WHERE run_id IN ({marks}) GROUP BY objective_id ORDER BY objective_id", tuple(run_ids))

    def prune(self, older_than: timedelta, now: datetime | None = None) -> int:
        """Delete the runs that started more than `older_than` before `now`, with their rows; how many.
        Only ever called by `dc-bridge history prune`: retention is the user's choice."""
        cutoff = epoch_micros((now or datetime.now(timezone.utc)) - older_than)
        with self._transaction() as db:
            return db.execute("DELETE FROM runs WHERE run_at_us < ?", (cutoff,)).rowcount

    def import_jsonl(self, path: str | Path, cut_short: list[int] | None = None) -> int:
        """The records of a JSON Lines history (checked as a run checks it: HistoryError on a line that
        is not a record), in one transaction; the file is only read. Imported once: the same file again
        adds nothing, and a file that grew since adds only the records after those imported. A record cut short
        while it was written is passed over, its line added to `cut_short` (runner/history.py `read_history`)."""
        path = Path(path)
        records = read_history(path, cut_short)
        data = path.read_bytes()
        source = str(path.resolve())
        with self._transaction() as db:
            if db.execute("SELECT 1 FROM imports WHERE source = ? AND sha256 = ?", (source, _sha256(data))).fetchone():
                return 0
            # an earlier import of this file whose bytes are still its beginning: those records are in already
            done = _already_imported(db, source, data)
            fresh = records[done:]
            for record in fresh:
                _insert(db, str(uuid.uuid4()), record, None, None, origin=f"import:{source}")
            db.execute("INSERT INTO imports VALUES (?, ?, ?, ?)",
                       (source, _sha256(data), len(records), datetime.now(timezone.utc).isoformat()))
        return len(fresh)


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _already_imported(db: sqlite3.Connection, source: str, data: bytes) -> int:
    """The records of `source` an earlier import took, when the file still starts with the bytes it read."""
    imported = 0
    for digest, count in db.execute("SELECT sha256, records FROM imports WHERE source = ?", (source,)).fetchall():
        if count > imported and any(_sha256(data[:end]) == digest for end in _line_ends(data)):
            imported = count
    return imported


def _line_ends(data: bytes) -> Iterator[int]:
    """Every prefix of `data` that ends a line (and the whole), the sizes an earlier import may have read."""
    at = data.find(b"\n")
    while at != -1:
        yield at + 1
        at = data.find(b"\n", at + 1)
    yield len(data)


def _insert(db: sqlite3.Connection, run_id: str, record: dict, verdict: Verdict | None, data_source: str | None, origin: str,
            data_docs: dict | None = None) -> None:
    at = datetime.fromisoformat(record["run_at"])
    db.execute(f"INSERT INTO runs VALUES ({', '.join('?' * 21)})", (
        run_id, record["contract_id"], record["contract_version"], record["run_at"], epoch_micros(at), record["outcome"],
        all(record["read"].values()), record["evaluated"], record["in_error"],
        contract_file_text(verdict), data_source_text(verdict, data_source), verdict.where if verdict else None,
        record.get("reason"),
        verdict.seconds if verdict else None, json.dumps([p.model_dump(exclude_none=True) for p in verdict.phases]) if verdict and verdict.phases else None,
        origin, data_docs_text(data_docs), *lifecycle_columns(verdict)))
    models = sorted(set(record["read"]) | set(record["models"]))
    db.executemany("INSERT INTO models VALUES (?, ?, ?, ?)",
                   [(run_id, m, record["read"].get(m), record["models"].get(m)) for m in models])
    if verdict is None:  # a JSON Lines record, or a run without a verdict: the outcomes it recorded
        db.executemany("INSERT INTO checks (run_id, check_id, outcome) VALUES (?, ?, ?)",
                       [(run_id, check_id, outcome) for check_id, outcome in record["checks"].items()])
        return
    for check in verdict.checks():
        scope = None if check.model in verdict.where_not_applied else verdict.where
        db.execute("INSERT INTO checks VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", (
            run_id, check.check_id, check.model, check.kind, check.outcome, check.severity, check.observed, check.unit,
            check.expected, scope, check.reason, check.source.get("file"), check.source.get("line")))
        db.executemany("INSERT INTO check_engines VALUES (?, ?, ?, ?, ?, ?)",
                       [(run_id, check.check_id, engine, result.outcome, result.observed, result.error)
                        for engine, result in check.engines.items()])
    db.executemany("INSERT INTO objectives VALUES (?, ?, ?, ?, ?)",
                   [(run_id, o.objective_id, o.outcome, o.value, o.target) for o in verdict.objectives])


def _insert_metrics(db: sqlite3.Connection, run_id: str, record: dict, verdict: Verdict | None,
                    metrics: Mapping[SeriesKey, float | None] | None) -> None:
    """The run's metric values and what its monitors said of them."""
    if metrics is None:  # a check's number is in `checks` already: `series` reads it from there
        metrics = {key: value for key, value in run_metrics(verdict, datetime.fromisoformat(record["run_at"])).items()
                   if key.metric != CHECK}
    db.executemany("INSERT INTO metrics VALUES (?, ?, ?, ?, ?)",
                   [(run_id, key.metric, key.model, key.subject, value) for key, value in metrics.items()])
    if verdict is not None:
        db.executemany("INSERT INTO monitors VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", [
            (run_id, m.metric, m.model, m.subject, m.outcome, m.severity, m.unit, m.direction, m.observed, m.centre, m.lower,
             m.upper, m.season, m.points, m.needed, m.sentence) for m in verdict.monitors])
