"""Where a command may write: the checks behind every output option of the command line, in the
words of each option. The rule itself is dc_bridge/paths.py's, one for commands and APIs alike.

An output never replaces an input of the same command, nor another output of it. Refused, with exit 2
and nothing run or written, is an output path that is, lies inside or (a folder written whole, as
`run --quarantine`'s) holds

- the contract, a file it references or imports (`$ref`, ODCS `imports`), or a parent contract
  (`x-dc-bridge-extends`, to any depth) or a file that parent reads: what `contract_inputs` lists;
- a data path of the run (`--data MODEL=PATH`, a local server's path): the file itself, a file inside
  a data folder, or a file a data glob (`data/*.csv`) would read;
- another file the command reads (the compiled SodaCL `soda config` reads, the history store `site` reads);
- another output of the command (`check_apart`).

Paths are compared as the file system resolves them: symlinks followed, `./x` and `x` alike, `file:`
URIs as their path, and an existing file by identity (`os.path.samefile`), so case and hard links count
as the file system has them. A missing output folder is created here, before the command's work starts,
or refused when it cannot be created or written to; a report is never lost after a run for want of its folder.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import click

from dc_bridge.outcomes import EXIT_UNREADABLE
from dc_bridge.paths import Place, clash, local_path, may_write_in, nearest_existing, relation


class OutputRefused(click.ClickException):
    """An output option that would replace an input or cannot be written; exit 2 before any work."""

    exit_code = EXIT_UNREADABLE

    def __init__(self, message: str):
        super().__init__(message)
        context = click.get_current_context(silent=True)  # the command's, while it runs: `dc-bridge run`
        self.command = context.command_path if context else "dc-bridge"

    def show(self, file=None) -> None:
        click.echo(f"{self.command}: {self.format_message()}", err=True)


@dataclass(frozen=True)
class Input:
    path: str
    what: str  # how a message names it: "the contract", "the data of model `orders` (--data)", ...
    glob: bool = False


def contract_inputs(contract: str, result=None, variables: dict[str, str] | None = None) -> list[Input]:
    """The contract file and every file loading it reads: references and imports, and each parent
    contract (`x-dc-bridge-extends`) with the files it reads. `result`: the contract's LoadResult when
    the command has loaded it already; else it is loaded with the command's `variables` (`--var`)."""
    from dc_bridge.contract.evolution.inheritance import ancestors
    from dc_bridge.contract.reading.load import load_contract

    result = result if result is not None else load_contract(contract, variables)
    found = [Input(contract, "the contract")]
    found += [Input(d.file, f"a file {contract} references or imports") for d in result.documents[1:]]
    if result.contract is not None and result.documents:
        found += [Input(file, f"a parent contract of {contract} (x-dc-bridge-extends), or a file it reads")
                  for ancestor in ancestors(result)[0] for file in ancestor.files]
    return found


def data_inputs(contract, data: dict, server: str | None, *, every_model: bool = True) -> list[Input]:
    """The local data paths a run or drift reads: `--data` locations, and the server's location of
    each other model (`every_model=False`: the server only when named, as drift reads it). A server
    that cannot be chosen or located is left to the command to report."""
    from dc_bridge.runner.data import DataError, choose_server, server_location

    found = [Input(location.path, f"the data of model `{model}` (--data)") for model, location in data.items()]
    rest = [m for m in contract.models if m.name not in data]
    try:
        chosen = choose_server(contract, server) if rest and (every_model or server or not data) else None
    except DataError:
        chosen = None
    for model in rest if chosen is not None else []:
        try:
            location = server_location(contract, chosen, model)
        except DataError:
            continue
        if not isinstance(location, str):
            found.append(Input(location.path, f"the data of model `{model.name}` (server `{chosen.name}`)"))
    return [local for local in map(_local, found) if local is not None]


def _local(item: Input) -> Input | None:
    path = local_path(item.path)
    if path is None:
        return None  # object stores and clusters: not this machine's files
    return Input(path, item.what, glob=any(ch in path for ch in "*?["))


def check_file(option: str, path: str, inputs: Sequence[Input], *, written: str = "the report", fix: str | None = None,
               create: bool = True) -> None:
    """Refuse `path` as the output file of `option` (OutputRefused), or make it writable: its folder
    is created now (`create=False`: only checked to be creatable, for a command with several
    outputs to check all before creating any). `written`: what the command writes there, as
    messages name it; `fix`: how to avoid a refusal for an input, when not by naming another file."""
    target = Path(path)
    for item in inputs:
        problem = _replaces(target, item)
        if problem:
            raise OutputRefused(f"{option} {path} {problem}, which {written} would replace; nothing was written. "
                                f"{fix or f'Write {written} to a file this command does not read.'}")
    if target.is_dir():
        raise OutputRefused(f"{option} {path} is a folder; nothing was written. Name a file (for example {target / 'report'}).")
    _make_folder(option, target.parent, f"the folder of {path}", create)
    if target.exists() and not os.access(target, os.W_OK):
        raise OutputRefused(f"{option} {path} cannot be written (permission denied); nothing was written. "
                            f"Choose a writable file.")


def check_folder(option: str, path: str, inputs: Sequence[Input], *, owned: Sequence[str] | None = None, create: bool = True) -> None:
    """Refuse `path` as the output folder of `option`, or create it now (`create` as for
    `check_file`). `owned`: what the command writes inside it (`index.html`, `gx`), an input there
    would be replaced; None: the folder is written whole (`--quarantine`), so it may not hold an input
    either. The folder may not be an input nor lie inside one (a data folder)."""
    folder = Path(path)
    for item in inputs:
        problem = _replaces(folder, item)
        if problem and (owned is None or not problem.startswith("holds")):
            raise OutputRefused(f"{option} {path} {problem}; nothing was written. Choose a folder this command does not read.")
        for name in owned or ():
            if relation(str(folder / name), item.path) in ("is", "holds", "matches"):
                raise OutputRefused(f"{option} {path}: {item.what} ({item.path}) is or lies in {folder / name}, which this "
                                    f"command writes; nothing was written. Choose another folder, or move the file.")
    if folder.exists() and not folder.is_dir():
        raise OutputRefused(f"{option} {path} is a file, not a folder; nothing was written. Name a folder.")
    _make_folder(option, folder, path, create)


def check_apart(outputs: Sequence[tuple[str, str, Sequence[str] | None]]) -> None:
    """Refuse two outputs of one command that meet: (option, path, what it writes inside the path or None
    for the path whole), as `check_folder`'s `owned`. One output's write would replace or hold the other's."""
    places = [Place(local_path(path) or path, f"{option} {path}", None if owned is None else tuple(owned))
              for option, path, owned in outputs if path]
    found = clash(places)
    if found:
        output, written, how, other = found
        where = "" if written == output.path else f" (its {Path(written).name})"
        raise OutputRefused(f"{output.what}{where} {how} {other.what}: two outputs of this command would replace each other; "
                            f"nothing was written. Give each output a path of its own, apart from the others.")


def check_not_foreign(option: str, file: Path, mark: str, what: str) -> None:
    """Refuse to replace an existing `file` that does not hold `mark` (what the program writing it puts in
    its first lines): another program's file, replaced only when the user moves it."""
    if file.is_file() and mark not in file.read_text(encoding="utf-8", errors="replace")[:4096]:
        raise OutputRefused(f"{option}: {file} is not {what}, and this command would replace it; nothing was written. "
                            f"Choose another folder, or move the file.")


def _make_folder(option: str, folder: Path, label: str, create: bool) -> None:
    existing = nearest_existing(folder)
    if not existing.is_dir():
        raise OutputRefused(f"{option}: cannot create {label}: {existing} is a file, not a folder; nothing was written. "
                            f"Choose a folder you can create or write to.")
    if create:
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise OutputRefused(f"{option}: cannot create {label}: {exc.strerror or exc}; nothing was written. "
                                f"Choose a folder you can create or write to.") from None
        existing = folder
    if not may_write_in(existing):
        raise OutputRefused(f"{option}: {label} cannot be written (permission denied); nothing was written. "
                            f"Choose a folder you can write to.")


def write_text(option: str, path: str, text: str) -> None:
    """Write a report checked by `check_file`. Should the write still fail (the disk filled up, the
    folder went away), the report goes to stdout rather than being lost, and the command exits 2."""
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as exc:
        click.echo(text, nl=False)
        raise OutputRefused(f"{option} {path} could not be written ({exc.strerror or exc}); "
                            f"the report is on stdout instead.") from None


def _replaces(target: Path, item: Input) -> str | None:
    """Why writing `target` would replace `item`, or None."""
    how = relation(str(target), item.path)
    return f"{how} {item.what} ({item.path})" if how else None


def same_path(a: str | Path, b: str | Path) -> bool:
    """Whether two paths name one file or folder, as the file system resolves them (it may not exist yet)."""
    return relation(str(a), str(b)) == "is"
