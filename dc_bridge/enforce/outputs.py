"""The split's outputs written whole or not at all (`dc-bridge run --quarantine`, docs/enforcing.md).

Each output is first written to a hidden sibling of its path (`.<name>.dc-bridge-<token>`: Spark's
file readers skip names starting with `.`), and every one is moved into place only once all of them
are written. So a write that fails leaves no part of any output behind, and an output that exists is
replaced (`overwrite`) only by a rename once its successor is complete. Paths go through Hadoop's
FileSystem, so any file system Spark writes to is served; on an object store a rename is a copy, so
there an output is complete once it appears, not at once.

Before anything is written, the outputs are held to dc_bridge/paths.py's rule (`check_apart`): none is,
holds or lies inside a file its rows are read from, nor another output of the call.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from dc_bridge.paths import Place, clash
from dc_bridge.runner.data import root_cause


class OutputError(ValueError):
    """An output that is there already, or could not be written: nothing of the call's outputs is left behind."""


@dataclass(frozen=True)
class Output:
    option: str  # how messages name it: `--quarantine`
    path: str
    rows: Any  # the DataFrame written there
    overwrite: str = "--overwrite"  # how the caller asks for an existing output to be replaced: the option, or the API's argument

    def exists(self) -> OutputError:
        return OutputError(f"{self.option} {self.path} exists; nothing was written. Replace it with {self.overwrite}, "
                           f"or choose a path that does not exist.")


def check_apart(outputs: list[Output], read: list, also: list[Place] = ()) -> None:
    """Refuse (OutputError) outputs that are, hold or lie inside a file one of the DataFrames `read` reads,
    a file of `also` (the contract's files: runner/outputs.py `contract_places`), or each other (paths.py's
    rule), before anything is written."""
    inputs = [*(Place(path, "a path the rows are read from") for path in sorted({p for frame in read for p in read_paths(frame)})), *also]
    found = clash([Place(output.path, f"{output.option} {output.path}") for output in outputs], inputs)
    if found:
        output, _, how, other = found
        detail = f" ({other.path})" if other in inputs else ""
        raise OutputError(f"{output.what} {how} {other.what}{detail}; nothing was written. "
                          f"Write each output to a path apart from the data it is read from and from the other outputs.")


def read_paths(frame) -> list[str]:
    """The paths `frame` reads: each file, and the folders (or files) its file sources were given, so that
    an output inside a data folder is refused too (Spark would read it with the data, or refuse the folder's
    layout). The folders come from the classic plan's file relations; Spark Connect's frames give their files."""
    paths = list(frame.inputFiles())
    if getattr(frame, "_jdf", None) is None:
        return paths
    leaves = frame._jdf.queryExecution().analyzed().collectLeaves().iterator()
    while leaves.hasNext():
        leaf = leaves.next()
        if leaf.getClass().getSimpleName() == "LogicalRelation" and leaf.relation().getClass().getSimpleName() == "HadoopFsRelation":
            roots = leaf.relation().location().rootPaths().iterator()
            while roots.hasNext():
                paths.append(roots.next().toString())
    return paths


def write_all(outputs: list[Output], format: str, overwrite: bool = False, also: list[Place] = ()) -> None:
    """Write every output's rows to its path in `format` (a folder, as Spark writes one), all or none.
    An existing path is refused (OutputError) unless `overwrite`, as is one `check_apart` refuses."""
    if not outputs:
        return
    check_apart(outputs, [output.rows for output in outputs], also)
    spark = outputs[0].rows.sparkSession
    hadoop = spark._jvm.org.apache.hadoop.fs
    conf = spark._jsc.hadoopConfiguration()
    token = uuid.uuid4().hex[:12]
    staged = []  # (output, its path, the sibling it is written to, their file system)
    try:
        for output in outputs:
            target = hadoop.Path(output.path)
            fs = target.getFileSystem(conf)
            if fs.exists(target) and not overwrite:
                raise output.exists()
            sibling = hadoop.Path(target.getParent(), f".{target.getName()}.dc-bridge-{token}")
            staged.append((output, target, sibling, fs))
            try:
                output.rows.write.format(format).save(sibling.toString())
            except Exception as exc:  # Spark's: a format it lacks, a folder it may not write, a task that failed
                raise OutputError(f"{output.option} {output.path} could not be written ({root_cause(exc)}); "
                                  f"nothing was written") from None
        for output, target, sibling, fs in staged:
            _move(fs, hadoop, output, target, sibling, token)
    finally:
        for _, _, sibling, fs in staged:
            fs.delete(sibling, True)  # what a failure left; after a move, nothing is there


def _move(fs, hadoop, output: Output, target, sibling, token: str) -> None:
    """The written sibling into place; an existing output is set aside first, and deleted once replaced."""
    replaced = None
    if fs.exists(target):
        replaced = hadoop.Path(target.getParent(), f".{target.getName()}.dc-bridge-{token}-replaced")
        if not fs.rename(target, replaced):
            raise OutputError(f"{output.option} {output.path} could not be replaced (renaming it aside failed); it is unchanged")
    if not fs.rename(sibling, target):
        if replaced is not None:
            fs.rename(replaced, target)
        raise OutputError(f"{output.option} {output.path} could not be moved into place from {sibling.toString()}; "
                          f"nothing was written there")
    if replaced is not None:
        fs.delete(replaced, True)


# format -> whether its one write is partitioned: a file format writes a folder of self-contained files
# per partition, moved on as an output of its own (a table format's log, delta's, describes all
# partitions at once: not here); `noop` stores nothing and takes no partitioning, the same one pass
# without storage (bench/enforce.py times it)
ONE_WRITE_FORMATS = {"parquet": True, "json": True, "orc": True, "avro": True, "noop": False}
# formats that give back every value exactly as written: only rows read back from one of them are judged again
# (`write_partitioned`'s `rewritten`). JSON keeps a time to the millisecond, so a key repeated in its microseconds
# would no longer repeat, and its row be lost from both outputs
EXACT_FORMATS = ("parquet", "orc")


def write_partitioned(rows, column: str, outputs: dict[bool, Output], format: str, overwrite: bool = False,
                      rewritten: dict | None = None, also: list[Place] = ()) -> bool:
    """`rows` written in one Spark job, partitioned by the boolean `column`; the rows of each value
    moved to that value's output, all or none as `write_all`. `rewritten`: value -> a function of its
    part's rows as written (read back) giving the rows its output holds instead, written beside the
    part before anything is moved. False, with nothing written, when the
    outputs cannot come from one write: a format not in ONE_WRITE_FORMATS (with `rewritten`, not in
    EXACT_FORMATS), or outputs on two file systems (a folder cannot be renamed from one to the other)."""
    if format not in ONE_WRITE_FORMATS or (rewritten and format not in EXACT_FORMATS):
        return False
    check_apart(list(outputs.values()), [rows], also)
    spark = rows.sparkSession
    hadoop = spark._jvm.org.apache.hadoop.fs
    conf = spark._jsc.hadoopConfiguration()
    targets = {value: hadoop.Path(output.path) for value, output in outputs.items()}
    systems = {value: target.getFileSystem(conf) for value, target in targets.items()}
    if len({fs.getUri().toString() for fs in systems.values()}) > 1:
        return False
    fs = next(iter(systems.values()))
    for value, output in outputs.items():
        if fs.exists(targets[value]) and not overwrite:
            raise output.exists()
    token = uuid.uuid4().hex[:12]
    first = targets[False]
    staging = hadoop.Path(first.getParent(), f".{first.getName()}.dc-bridge-{token}")
    try:
        try:
            writer = rows.write.format(format).mode("overwrite")  # a new folder; noop takes no other mode
            (writer.partitionBy(column) if ONE_WRITE_FORMATS[format] else writer).save(staging.toString())
        except Exception as exc:  # Spark's: a format it lacks, a folder it may not write, a task that failed
            raise OutputError(f"{' and '.join(f'{o.option} {o.path}' for o in outputs.values())} could not be written "
                              f"({root_cause(exc)}); nothing was written") from None
        if not fs.exists(staging):
            return True  # a format that stores nothing (noop)
        parts = {value: hadoop.Path(staging, f"{column}={str(value).lower()}") for value in outputs}
        for value, part in parts.items():
            if not fs.exists(part):  # no row of this value: its output is written empty, with the columns
                rows.limit(0).drop(column).write.format(format).save(part.toString())
            fs.create(hadoop.Path(part, "_SUCCESS")).close()  # as Spark marks a written folder
        written = rows.drop(column).schema
        for value, rewrite in (rewritten or {}).items():
            again = hadoop.Path(staging, f"rewritten={str(value).lower()}")
            try:
                rewrite(spark.read.schema(written).format(format).load(parts[value].toString())).write.format(format).save(again.toString())
            except Exception as exc:  # as the write above: nothing is moved
                raise OutputError(f"{outputs[value].option} {outputs[value].path} could not be written ({root_cause(exc)}); "
                                  f"nothing was written") from None
            parts[value] = again
        for value, output in outputs.items():
            _move(fs, hadoop, output, targets[value], parts[value], token)
    finally:
        fs.delete(staging, True)  # what a failure left, and the write's own marker; moved parts are not there
    return True
