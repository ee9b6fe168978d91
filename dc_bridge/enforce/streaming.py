"""`dc_bridge.streaming.guard`: the contract enforced on every micro-batch of a Structured Streaming
query, as the function of `writeStream.foreachBatch` (docs/enforcing.md, "Streaming").

Each batch is judged by the split (split.py: the same checks, the native engine's semantics), and
its verdict appended to `log` as one JSON line. The native engine judges by default: its counts come
from the split's own pass, where GX and Soda each cost a run of their own per batch, with seconds of
fixed overhead; `engines` chooses them all the same (the rows are split by the native conditions).
Then, by `on_failure`:
- `stop`: a batch with a failed or errored check raises `GuardStopped` naming the batch id and the
  failing checks, before any of its rows is written: the query stops with that error;
- `quarantine`: the rows of a violated `error`-severity row-level check go to `quarantine`, the rest
  to `sink`;
- `continue`: every row goes to `sink`; the verdict is only logged.
Under `quarantine` and `continue` the sink's write is the pass that judges and counts the batch's rows
(`Split.write_first`): a batch is read once for its verdict and its sink, where a counting pass of its
own cost a second reading and a cache; the quarantined rows are recomputed and written beside it, in a
thread of their own (a batch of one file is one task: the other cores would idle). A uniqueness key's
repeats are counted by a window inside each of those passes (`split`'s `keys_in_pass`), not cached by jobs
of their own first: a batch's rows are few. That needs adaptive execution, which coalesces the window's
shuffle into few files, and which a stream's session turns off: the guard judges a batch with it as the
caller's session has it (`_adaptive`); off there, the keys are cached first as for a table.

Exactly once per batch id: a batch's files are written to a staging folder and then moved into the
output under names carrying the batch id (`part-batch-<id>-...`), after any files of the same batch id
are removed (files only for an output that gets rows of the batch: Spark writes an empty file for none); once the log records the batch as written, a re-delivered batch (the same id after a
restart from the checkpoint) is skipped. A crash between the move and the log line therefore
re-writes that batch's files in place, never beside them. Paths go through Hadoop's FileSystem, so
any file system Spark writes to is served.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

from dc_bridge.contract.model import Contract
from dc_bridge.enforce.outputs import read_paths
from dc_bridge.enforce.split import ENGINE_NAME, VIOLATIONS_COLUMN, chosen_engines, prepare, process_session, split
from dc_bridge.paths import Place, clash, foreign
from dc_bridge.report.prometheus import METRICS_MARK, Targets, publish, warn_unpublished
from dc_bridge.runner.data import is_connect
from dc_bridge.runner.options import RunOptions
from dc_bridge.runner.pipeline import read_contract, unchecked
from dc_bridge.verdict import Verdict
from dc_bridge.runner.outputs import contract_places

OnFailure = Literal["stop", "quarantine", "continue"]
ON_FAILURE = ("stop", "quarantine", "continue")
# check outcomes that stop a batch under `stop`
FAILING = ("failed", "error")
_STAGING = "_dc_bridge_staging"
_ADAPTIVE = "spark.sql.adaptive.enabled"


class GuardStopped(RuntimeError):
    """A micro-batch failed the contract under `on_failure="stop"`: none of its rows was written."""


def guard(contract: str | Path | Contract, model: str, *, sink: str, log: str, on_failure: OnFailure = "stop",
          quarantine: str | None = None, frames: dict | None = None, format: str = "parquet",
          vars: dict[str, str] | None = None, engines: tuple[str, ...] | list[str] = (ENGINE_NAME,),
          metrics_push: str | None = None, metrics_file: str | None = None) -> Callable[[Any, int], None]:
    """The `foreachBatch` function that judges each micro-batch of `model` and writes it to `sink`
    (a folder, in `format`), its quarantined rows to `quarantine` (with `on_failure="quarantine"`),
    and its verdict as one JSON line to `log`. `frames`: DataFrames of the models foreign keys reference.
    `engines`: whose results judge each batch (`split`'s `engines`: the native engine unless given).
    `metrics_push`, `metrics_file`: each batch's verdict as Prometheus metrics (report/prometheus.py), replacing the
    previous batch's; what cannot be published is a `MetricsWarning`, never a stopped query."""
    engines = chosen_engines(engines)
    metrics = Targets(push=metrics_push, file=metrics_file, words=("metrics_push=", "metrics_file="))
    if on_failure not in ON_FAILURE:
        raise ValueError(f"on_failure={on_failure!r}: choose one of {', '.join(ON_FAILURE)}")
    if on_failure == "quarantine" and quarantine is None:
        raise ValueError("on_failure='quarantine' needs quarantine=PATH, where the violating rows go")
    if Path(log).exists() and not Path(log).is_file():
        raise ValueError(f"log={log!r} is not a file")
    written = [Place(str(path), f"{name}={str(path)!r}") for name, path in (("sink", sink), ("quarantine", quarantine), ("log", log),
                                                                             ("metrics_file", metrics_file)) if path]
    _refuse_clash(written, contract_places(contract))
    # another program's file is neither replaced (the metrics) nor appended to (the log, whose every line is a batch's record)
    for name, path, mark, what in (("metrics_file", metrics_file, METRICS_MARK, "a metrics file dc-bridge wrote"),
                                   ("log", log, '"batch_id"', "a guard's log")):
        if path is not None and foreign(path, mark):
            raise ValueError(f"{name}={str(path)!r} is not {what}, and each batch would write to it; nothing was written. "
                             f"Choose another file, or move it.")

    # batch id -> its last record's action and failing checks: the log is read once, on the first batch
    # (a restarted query's guard finds the earlier deliveries there), then kept here as this guard appends
    seen: dict[int, dict] | None = None

    def record_of(batch_id: int) -> dict | None:
        nonlocal seen
        if seen is None:
            seen = _logged(log)
        return seen.get(batch_id)

    def append(record: dict) -> None:
        _append(log, record)
        if seen is not None:
            seen[record["batch_id"]] = {"action": record["action"], "failing": record["failing"]}

    # the contract loaded, linted and compiled on the first batch, for all of them (`split`'s `prepared`)
    prepared = None

    def judge(batch, batch_id: int) -> None:
        nonlocal prepared
        logged = record_of(int(batch_id))
        if logged is not None and logged["action"] == "written":
            return  # re-delivered after a restart: written once already
        if logged is not None and logged["action"] == "stopped":
            raise GuardStopped(_stopped_message(batch_id, logged["failing"]))
        if prepared is None:  # the first batch: the stream's source files are known
            _refuse_clash(written, [Place(path, "a path the stream reads") for path in read_paths(batch)]
                          + [Place(path, f"a path model `{name}` is read from") for name, frame in (frames or {}).items()
                             for path in read_paths(frame)])
        try:
            prepared = prepared or prepare(contract, batch.sparkSession, vars)
            with _adaptive(batch) as in_pass:
                judge_batch(batch, batch_id, in_pass)
        except GuardStopped:
            raise
        except Exception as exc:  # a batch without a verdict (the contract in error, a write that failed): its metrics say
            if metrics:           # `error` under the contract's id, never the last good batch's word
                warn_unpublished(publish(_unchecked(contract, exc, engines), metrics))
            raise

    def judge_batch(batch, batch_id: int, in_pass: bool) -> None:
        # a key's repeats counted inside the pass (`in_pass`): its window's shuffle writes a file per shuffle
        # partition unless adaptive execution coalesces them, so not without it. A batch of one partition (read
        # from one file) is said to be one: the window then needs no shuffle, and each pass is one stage
        rows = batch.coalesce(1) if in_pass and _one_partition(batch) else batch
        result = split(contract, model, rows, frames=frames, engines=engines, prepared=prepared, keys_in_pass=in_pass)
        try:
            if on_failure != "stop":
                # the sink's write is the pass that judges and counts every row (`Split.write_first`), the quarantined
                # rows written beside it; the violations column is dropped by name (`select` would parse `e.mail`)
                aside = (lambda rows: _stage(rows, quarantine, batch_id, format)) if on_failure == "quarantine" else None
                result.write_first(lambda rows: _stage(rows.drop(VIOLATIONS_COLUMN), sink, batch_id, format),
                                   rows="valid" if on_failure == "quarantine" else "all", quarantined=aside)
                # moved in once the pass has counted them: an output that gets no row of the batch gets no file
                # (Spark writes an empty one), as a clean batch's quarantined rows in a mostly clean stream
                quarantined = result.quarantined_rows if aside is not None else 0
                _move_in(batch.sparkSession, sink, batch_id, keep=result.rows["table"] > quarantined)
                if aside is not None:
                    _move_in(batch.sparkSession, quarantine, batch_id, keep=quarantined > 0)
            failing = [c.check_id for c in result.verdict.checks() if c.outcome in FAILING]
            record = {"batch_id": int(batch_id), "outcome": result.verdict.outcome, "failing": failing, "rows": result.rows,
                      "verdict": result.verdict.model_dump(mode="json")}
            if metrics:  # the batch's verdict, whatever happens to its rows next (under `stop`)
                warn_unpublished(publish(result.verdict, metrics))
            if on_failure == "stop":
                if failing:
                    append({**record, "action": "stopped"})
                    raise GuardStopped(_stopped_message(batch_id, failing))
                if result.rows["table"]:  # every row as it came: no flags to compute again
                    _stage(batch, sink, batch_id, format)
                _move_in(batch.sparkSession, sink, batch_id, keep=result.rows["table"] > 0)
            append({**record, "action": "written"})
        finally:
            result.release()

    return judge


@contextmanager
def _adaptive(batch) -> Iterator[bool]:
    """Within the block, the micro-batch's session executes with adaptive execution as the caller's session has it
    (Spark's default: on), and whether it is on. A stream's session turns it off for the stream's own plans, whose
    state and shuffle partitions must not change between batches; a batch handed to `foreachBatch` is a fixed set of
    rows by then, and the guard's plans over it are a batch query's. Put back afterwards, before the stream plans
    its next batch."""
    session = batch.sparkSession
    before = session.conf.get(_ADAPTIVE, "true")
    wanted = process_session(session).conf.get(_ADAPTIVE, "true")  # Spark Connect: the batch's own, left as it is
    if wanted != before:
        session.conf.set(_ADAPTIVE, wanted)
    try:
        yield str(wanted).lower() == "true"
    finally:
        if wanted != before:
            session.conf.set(_ADAPTIVE, before)


def _one_partition(batch) -> bool:
    """Whether the batch's rows are one partition (not asked of Spark Connect, which does not say)."""
    return not is_connect(batch.sparkSession) and batch._jdf.rdd().getNumPartitions() == 1


def _refuse_clash(outputs: list[Place], inputs: list[Place] = ()) -> None:
    """The guard's outputs held to paths.py's rule: none is, holds or lies inside another or what the stream reads."""
    found = clash(outputs, inputs)
    if found:
        output, _, how, other = found
        detail = f" ({other.path})" if other in inputs else ""
        raise ValueError(f"{output.what} {how} {other.what}{detail}; nothing was written. Give the sink, the quarantine, "
                         f"the log and the metrics file each a path of its own, apart from the stream's source.")


def _stopped_message(batch_id: int, failing: list[str]) -> str:
    return f"batch {batch_id} failed the contract, nothing of it was written: failing checks {', '.join(failing)}"


def _logged(log: str) -> dict[int, dict]:
    """batch id -> its last record's action and failing checks, from the log."""
    path = Path(log)
    if not path.exists():
        return {}
    found = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            record = json.loads(line)
            found[int(record["batch_id"])] = {"action": record["action"], "failing": record["failing"]}
    return found


def _append(log: str, record: dict) -> None:
    path = Path(log)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as out:
        out.write(json.dumps(record, sort_keys=True) + "\n")


def _stage(df, path: str, batch_id: int, format: str) -> None:
    """The batch's rows written to its staging folder under `path` (an earlier staging of the batch removed first)."""
    fs, _, _, staging = _places(df.sparkSession, path, batch_id)
    fs.delete(staging, True)
    df.write.format(format).save(staging.toString())


def _move_in(spark, path: str, batch_id: int, keep: bool = True) -> None:
    """The staged files of the batch moved into `path` as `part-batch-<id>-...`, after the files of an earlier delivery
    of the same batch id are removed; `keep=False`: none moved in (the staged files are dropped), the earlier ones
    still removed."""
    fs, hadoop, target, staging = _places(spark, path, batch_id)
    fs.mkdirs(target)
    prefix = f"part-batch-{int(batch_id)}-"
    for status in fs.listStatus(target) or []:
        if status.getPath().getName().startswith(prefix):
            fs.delete(status.getPath(), False)
    for status in (fs.listStatus(staging) or []) if keep else []:
        name = status.getPath().getName()
        if name.startswith("part-"):
            if not fs.rename(status.getPath(), hadoop.Path(target, prefix + name[len("part-"):])):
                raise OSError(f"could not move {status.getPath().toString()} into {path}")
    fs.delete(staging, True)
    parent = staging.getParent()
    try:  # no empty folder left behind; only tidying: another writer's staging meanwhile keeps it
        if fs.exists(parent) and not list(fs.listStatus(parent) or []):
            fs.delete(parent, False)
    except Exception:
        pass


def _places(spark, path: str, batch_id: int):
    """(the file system, Hadoop's fs package, the output folder, the batch's staging folder) of `path`."""
    hadoop = spark._jvm.org.apache.hadoop.fs
    target = hadoop.Path(path)
    fs = target.getFileSystem(spark._jsc.hadoopConfiguration())
    return fs, hadoop, target, hadoop.Path(f"{path.rstrip('/')}/{_STAGING}/batch-{int(batch_id)}")


def _unchecked(contract: str | Path | Contract, exc: BaseException, engines) -> Verdict:
    """The `error` verdict of a batch that ended with `exc`, named by the contract's id as far as it can be read."""
    known = contract if isinstance(contract, Contract) else read_contract(contract)
    return unchecked(known, exc, RunOptions(engines=tuple(engines)))
