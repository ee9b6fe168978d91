"""Where a write may go: the one rule of every command and API that writes (docs/enforcing.md "Outputs"); and
`write_whole`, how a file dc-bridge reads back at its next start is written (whole or not at all).

What a call writes (a file, a folder written whole, or the entries a call writes inside a folder it
shares, as Data Docs' `index.html` and `static/`) never

- is an input of the call, lies inside one (a file in a data folder), or holds one (a folder
  around the data file: replacing it deletes the data);
- is, lies inside or holds another output of the same call.

`relation` is that comparison, and `clash` applies it to a call's outputs and inputs; runner/outputs.py
(a run's outputs, for `dc-bridge run` and `dc_bridge.run` alike, and every command's through cli/outputs.py)
and the other APIs (enforce/outputs.py, the streaming guard, `dc_bridge.metrics`) word its answer. Paths
compare as the file system resolves them: a `file:` URI as its local path, relative to the current
folder, `..` and symlinks resolved; other URIs (`s3a://`, `hdfs://`) by their normalised text. A
glob among the inputs stands for every file it matches.
"""

from __future__ import annotations

import contextlib
import fnmatch
import glob as globbing
import os
import posixpath
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

# `file:/x`, `file:///x`, `file://localhost/x`: Hadoop writes the first, Python's `as_uri` the second
_FILE_URI = re.compile(r"^file:(?://(?:localhost)?)?(?=/)", re.IGNORECASE)
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


@dataclass(frozen=True)
class Place:
    """An input or an output of a call. `owned`: for an output folder the call shares with other files,
    the entries it writes there (None: the path itself is written, whole)."""
    path: str
    what: str  # how messages name it: "the contract", "--quarantine", "valid"
    owned: tuple[str, ...] | None = None


def local_path(path: str) -> str | None:
    """The local file system path `path` names (a `file:` URI decoded), or None for another scheme's URI."""
    text = str(path)
    uri = _FILE_URI.match(text)
    if uri:
        return unquote(text[uri.end():])
    return None if _SCHEME.match(text) else text


def _key(path: str) -> str:
    """The path as it resolves: local paths absolute with symlinks followed, URIs normalised."""
    local = local_path(path)
    if local is None:
        scheme, rest = str(path).split("://", 1)
        return f"{scheme.lower()}://{posixpath.normpath('/' + rest).lstrip('/')}"
    return os.path.normcase(os.path.realpath(local))


def _inside(path: str, folder: str) -> bool:
    return path.startswith(folder.rstrip("/" + os.sep) + ("/" if "://" in folder else os.sep))


def relation(written: str, other: str) -> str | None:
    """How the written path meets `other`: `is`, `lies inside`, `holds` (an ancestor folder of it), `matches`
    (a glob `other` reads), or None when writing it leaves `other` alone."""
    mine = _key(written)
    if globbing.has_magic(str(other)):
        pattern = _key(str(other))
        if fnmatch.fnmatch(mine, pattern):
            return "matches"
        fixed = _key(str(other)[:len(str(other)) - len(_magic_tail(str(other)))] or ".")
        return "holds" if mine == fixed or _inside(fixed, mine) else None
    theirs = _key(other)
    if mine == theirs or _same_file(written, other):
        return "is"
    if _inside(mine, theirs):
        return "lies inside"
    if _inside(theirs, mine):
        return "holds"
    return None


def _magic_tail(pattern: str) -> str:
    """The part of a glob from the first segment with a wildcard on: `data/*/x.csv` -> `*/x.csv`."""
    parts = pattern.replace(os.sep, "/").split("/")
    first = next(i for i, part in enumerate(parts) if globbing.has_magic(part))
    return "/".join(parts[first:])


def _same_file(a: str, b: str) -> bool:
    """Two existing local paths that are one file (hard links; case on a case-insensitive file system)."""
    first, second = local_path(a), local_path(b)
    if first is None or second is None:
        return False
    try:
        return os.path.samefile(first, second)
    except OSError:
        return False


def written_paths(output: Place) -> list[str]:
    """What writing `output` replaces: its path, or the entries it owns in its folder."""
    if output.owned is None:
        return [output.path]
    return [f"{output.path.rstrip('/')}/{name}" for name in output.owned]


def clash(outputs: list[Place], inputs: list[Place] = ()) -> tuple[Place, str, str, Place] | None:
    """The first output that meets an input or another output: (output, the path of it written, how, what
    it meets), how as `relation` words it; None when every output may be written."""
    for index, output in enumerate(outputs):
        for path in written_paths(output):
            for item in inputs:
                how = relation(path, item.path)
                if how:
                    return output, path, how, item
            for other in outputs[index + 1:]:
                for theirs in written_paths(other):
                    how = relation(path, theirs)
                    if how:
                        return output, path, how, other
    return None


def nearest_existing(folder: Path) -> Path:
    """`folder` itself or its nearest ancestor that exists: where making it would start, and whose kind
    (a folder, or a file in the way) and permissions decide whether a file can be written under it."""
    return next((p for p in [folder, *folder.parents] if p.exists()), Path("."))


def may_write_in(folder: Path) -> bool:
    """Whether this process may create files in the existing folder `folder`."""
    return os.access(folder, os.W_OK | os.X_OK)


# the process's umask, read once at import (reading it sets it: not something to do while threads write files)
_UMASK = os.umask(0o022)
os.umask(_UMASK)
# what a file being written is named until it is complete: hidden, beside the file it will replace
TEMPORARY_SUFFIX = ".dc-bridge-partial"


def write_whole(path: str | Path, text: str | bytes) -> None:
    """`path` written whole or not at all, for a file dc-bridge reads back at its next start (a compiled file, a page or
    asset of the site, a Data Docs page it rewrote): the text goes to a temporary file beside it, renamed over it once
    complete, so a process stopped while writing (killed, out of disk) leaves the old file or the new one, never one
    cut short. The file keeps its permissions (a new one gets those a plain write would give)."""
    path = Path(path)
    data = text.encode("utf-8") if isinstance(text, str) else text
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=TEMPORARY_SUFFIX)
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
        try:
            mode = path.stat().st_mode & 0o7777
        except FileNotFoundError:
            mode = 0o666 & ~_UMASK
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def foreign(file: str | Path, mark: str) -> bool:
    """Whether `file` exists as another program's file: not empty, and without `mark` (what dc-bridge, or the
    library it drives, puts in the first lines of a file it writes) in its first 4 KiB. Such a file is not replaced."""
    path = Path(local_path(str(file)) or file)
    try:
        if not path.is_file() or not path.stat().st_size:
            return False
        with path.open(encoding="utf-8", errors="replace") as text:
            return mark not in text.read(4096)
    except OSError:
        return False
