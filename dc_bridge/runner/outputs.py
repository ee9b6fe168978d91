"""Where a run may write: the checks behind every output of a run, one for the command line and the API.

paths.py holds the rule (an output never is, lies inside or holds an input of the call or another of its
outputs); this module finds a run's inputs and holds each output to it, in the words of whoever asked:
`dc-bridge run`'s options (`--metrics-file`) or `dc_bridge.run`'s keywords (`metrics_file=`). Both pass
through `check_run_outputs`: `dc-bridge run` for each contract before any runs, and runner/pipeline.py
`check` for every run, so that no caller of the API can skip it. cli/outputs.py words the same checks for
every other command.

An output is refused (OutputRefused, a ValueError; exit 2 on the command line) when it is, lies inside
or (a folder written whole) holds

- the contract, a file it references or imports (`$ref`, ODCS `imports`), or a parent contract
  (`x-dc-bridge-extends`, to any depth) or a file that parent reads: what `contract_inputs` lists;
- a data path of the run (a `data` location, a local server's path): the file itself, a file inside
  a data folder, or a file a data glob (`data/*.csv`) would read;
- another output of the run (`check_apart`);

and an existing file another program wrote (a Data Docs folder's `index.html`, a metrics file) is not
replaced (`check_not_foreign`). A missing output folder is created before the run starts, or refused
when it cannot be created or written to: a report is never lost after a run for want of its folder.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Mapping, Sequence

from dc_bridge.paths import Place, clash, foreign, local_path, may_write_in, nearest_existing, relation


class OutputRefused(ValueError):
    """An output that would replace an input or another output, or cannot be written; nothing was run or written."""


@dataclass(frozen=True)
class Input:
    path: str
    what: str  # how a message names it: "the contract", "the data of model `orders` (--data)", ...
    glob: bool = False


# how messages name a run's outputs: the command line's options, or the Python API's keywords
WORDS = {
    "cli": {"output_file": "--output-file", "data_docs": "--data-docs", "history": "--history", "metrics_file": "--metrics-file",
            "data": "--data", "openlineage": "--openlineage"},
    "api": {"output_file": "output_file=", "data_docs": "data_docs=", "history": "history=", "metrics_file": "metrics_file=",
            "data": "data=", "openlineage": "OpenLineage"},
}
# what a run writes inside its Data Docs folder (the rest of the folder is the user's)
DATA_DOCS_OWNED = ("index.html", "static", "expectations", "validations")
# what the first lines of a file each writer replaces hold when dc-bridge (or the library it drives) wrote it
DATA_DOCS_MARK = "created by Great Expectations"


def named(option: str, path) -> str:
    """An output as messages name it: `--history runs.jsonl`, `history='runs.jsonl'`."""
    return f"{option}{str(path)!r}" if option.endswith("=") else f"{option} {path}"


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


def data_inputs(contract, data: Mapping, server: str | None, *, every_model: bool = True, option: str = "--data") -> list[Input]:
    """The local data paths a run or drift reads: `data` locations, and the server's location of
    each other model (`every_model=False`: the server only when named, as drift reads it). A server
    that cannot be chosen or located is left to the command to report."""
    from dc_bridge.runner.data import DataError, choose_server, server_location

    found = [Input(location.path, f"the data of model `{model}` ({option})") for model, location in data.items()]
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


def contract_places(contract) -> list[Place]:
    """The files a contract was read from, for the APIs that take one (`split`, the streaming guard): its file
    and every file loading it reads, as paths.py's `Place`s. A Contract object made in memory has none."""
    from dc_bridge.contract.model import Contract

    file = contract.file if isinstance(contract, Contract) else str(contract)
    if not file or not Path(file).is_file():
        return []
    return [Place(item.path, item.what) for item in contract_inputs(file)]


def run_inputs(read, data: Mapping, server: str | None, option: str = "--data") -> list[Input]:
    """What a run reads: the contract's files (`read` a LoadResult, or a Contract object with its file, if any) and its data."""
    from dc_bridge.contract.model import Contract

    if isinstance(read, Contract):
        found = [Input(read.file, "the contract")] if read.file and Path(read.file).exists() else []
        contract = read
    else:
        found, contract = contract_inputs(read.file, read), read.contract
    return found + (data_inputs(contract, data, server, option=option) if contract is not None else [])


@dataclass(frozen=True)
class RunOutputs:
    """What one run writes, by the keyword of `WORDS`: files (`output_file`, `history` (appended to),
    `metrics_file`, the OpenLineage file transport's `openlineage`) and the `data_docs` folder."""
    output_file: str | None = None
    data_docs: str | None = None
    history: str | None = None
    metrics_file: str | None = None
    openlineage: str | None = None  # the file (append) or the prefix of the files OpenLineage's file transport writes

    def __bool__(self) -> bool:
        return any((self.output_file, self.data_docs, self.history, self.metrics_file, self.openlineage))


def check_run_outputs(read, outputs: RunOutputs, data: Mapping, server: str | None, spelled: str = "api", create: bool = True) -> None:
    """Refuse (OutputRefused) a run's outputs that meet its inputs or each other, or cannot be written; else create
    their missing folders (`create`). `read`: the contract as the run read it (a LoadResult, or a Contract object);
    `spelled`: `cli` or `api`, how messages name the outputs. Every refusal comes before any folder is created."""
    from dc_bridge.history import is_table

    words = WORDS[spelled]
    history = None if outputs.history and is_table(str(outputs.history)) else outputs.history  # a catalog table is no file
    output_file, data_docs, metrics_file, lineage = outputs.output_file, outputs.data_docs, outputs.metrics_file, outputs.openlineage
    output_file, data_docs, history, metrics_file = (str(p) if p is not None else None for p in (output_file, data_docs, history, metrics_file))
    if not (output_file or data_docs or history or metrics_file or lineage):
        return
    if output_file and history and same_path(output_file, history):
        raise OutputRefused(f"{named(words['output_file'], output_file)} is also the {words['history']} file, which the report "
                            f"would replace; nothing was written. Give the report and the history a file each.")
    if output_file and data_docs and same_path(output_file, data_docs):
        raise OutputRefused(f"{named(words['output_file'], output_file)} is also the {words['data_docs']} folder; nothing was "
                            f"written. Give the report a file of its own, e.g. {Path(data_docs) / 'report.html'}.")
    check_apart([(words["output_file"], output_file, None), (words["data_docs"], data_docs, DATA_DOCS_OWNED),
                 (words["history"], history, None), (words["metrics_file"], metrics_file, None),
                 (words["openlineage"], lineage, None)])
    inputs = run_inputs(read, data, server, words["data"])
    _check_suite_names(read, words["data_docs"], data_docs)
    for making in (False, True) if create else (False,):  # every refusal before any folder is created
        if data_docs:
            check_folder(words["data_docs"], data_docs, inputs, owned=DATA_DOCS_OWNED, create=making)
            check_not_foreign(words["data_docs"], Path(data_docs) / "index.html", DATA_DOCS_MARK, "a Data Docs site's index")
        if output_file:
            check_file(words["output_file"], output_file, inputs, create=making)
        if history:
            check_file(words["history"], history, inputs, written="the run history", create=making,
                       fix="Name a file of its own for the history, e.g. history.jsonl.")
        if metrics_file:
            check_file(words["metrics_file"], metrics_file, inputs, written="the metrics", create=making,
                       fix="Name a file of its own for the metrics, e.g. dc-bridge.prom.")
            # imported here: report/prometheus.py brings the verdict's models, which `dc-bridge --help` must not import
            from dc_bridge.report.prometheus import METRICS_MARK

            check_not_foreign(words["metrics_file"], Path(metrics_file), METRICS_MARK, "a metrics file dc-bridge wrote")
        if lineage:
            option = words["openlineage"] + " file transport's log_file_path"
            check_file(option, lineage, inputs, written="the lineage events", create=making,
                       fix="Name a file of its own in OpenLineage's configuration (transport.log_file_path).")
            check_not_foreign(option, Path(lineage), '"eventType"', "a file of OpenLineage events")  # appended to


def _check_suite_names(read, option: str, data_docs: str | None) -> None:
    """The suite names a Data Docs site stores: GX would write one outside the site's folder."""
    from dc_bridge.contract.model import Contract
    from dc_bridge.engines.gx import suite_name, unstorable

    contract = read if isinstance(read, Contract) else read.contract
    problems = unstorable(suite_name(contract.id, m.name) for m in contract.models) if data_docs and contract else []
    if problems:
        raise OutputRefused(f"{named(option, data_docs)}: {'; '.join(problems)}; nothing was written. Give the contract an id "
                            f"without leading, trailing or doubled dots and without `/` or `\\`, or leave out {option}.")


def lineage_file() -> str | None:
    """The file OpenLineage's configured file transport writes (`log_file_path` itself when it appends, else the file
    of the next event: a new one per event, named as the transport names it, `{log_file_path}-{time}.json`), or None:
    no file transport, or no client."""
    try:
        from openlineage.client import OpenLineageClient
        from openlineage.client.transport.composite import CompositeTransport
        from openlineage.client.transport.file import FileTransport
    except ImportError:
        return None
    try:
        transport = OpenLineageClient().transport
    except Exception:  # a configuration the client cannot read: `emit` says so after the run, as before
        return None
    transports = list(getattr(transport, "transports", ())) if isinstance(transport, CompositeTransport) else [transport]
    config = next((t.config for t in transports if isinstance(t, FileTransport)), None)
    if config is None:
        return None
    return config.log_file_path if config.append else f"{config.log_file_path}-{datetime.now():%Y%m%d-%H%M%S.%f}.json"


def check_file(option: str, path: str, inputs: Sequence[Input], *, written: str = "the report", fix: str | None = None,
               create: bool = True) -> None:
    """Refuse `path` as the output file of `option` (OutputRefused), or make it writable: its folder
    is created now (`create=False`: only checked to be creatable, for a command with several
    outputs to check all before creating any). `written`: what the command writes there, as
    messages name it; `fix`: how to avoid a refusal for an input, when not by naming another file."""
    target = Path(local_path(path) or path)
    for item in inputs:
        problem = _replaces(path, item)
        if problem:
            raise OutputRefused(f"{named(option, path)} {problem}, which {written} would replace; nothing was written. "
                                f"{fix or f'Write {written} to a file this command does not read.'}")
    if target.is_dir():
        raise OutputRefused(f"{named(option, path)} is a folder; nothing was written. Name a file (for example {target / 'report'}).")
    _make_folder(option, target.parent, f"the folder of {path}", create)
    if target.exists() and not os.access(target, os.W_OK):
        raise OutputRefused(f"{named(option, path)} cannot be written (permission denied); nothing was written. "
                            f"Choose a writable file.")


def check_folder(option: str, path: str, inputs: Sequence[Input], *, owned: Sequence[str] | None = None, create: bool = True) -> None:
    """Refuse `path` as the output folder of `option`, or create it now (`create` as for
    `check_file`). `owned`: what the command writes inside it (`index.html`, `gx`), an input there
    would be replaced; None: the folder is written whole (`--quarantine`), so it may not hold an input
    either. The folder may not be an input nor lie inside one (a data folder)."""
    folder = Path(local_path(path) or path)
    for item in inputs:
        problem = _replaces(path, item)
        if problem and (owned is None or not problem.startswith("holds")):
            raise OutputRefused(f"{named(option, path)} {problem}; nothing was written. Choose a folder this command does not read.")
        for name in owned or ():
            if relation(str(folder / name), item.path) in ("is", "holds", "matches"):
                raise OutputRefused(f"{named(option, path)}: {item.what} ({item.path}) is or lies in {folder / name}, which this "
                                    f"command writes; nothing was written. Choose another folder, or move the file.")
    if folder.exists() and not folder.is_dir():
        raise OutputRefused(f"{named(option, path)} is a file, not a folder; nothing was written. Name a folder.")
    _make_folder(option, folder, path, create)


def check_apart(outputs: Sequence[tuple[str, str | None, Sequence[str] | None]]) -> None:
    """Refuse two outputs of one command that meet: (option, path, what it writes inside the path or None
    for the path whole), as `check_folder`'s `owned`. One output's write would replace or hold the other's."""
    places = [Place(local_path(path) or path, named(option, path), None if owned is None else tuple(owned))
              for option, path, owned in outputs if path]
    found = clash(places)
    if found:
        output, written, how, other = found
        where = "" if written == output.path else f" (its {Path(written).name})"
        raise OutputRefused(f"{output.what}{where} {how} {other.what}: two outputs of this command would replace each other; "
                            f"nothing was written. Give each output a path of its own, apart from the others.")


def check_not_foreign(option: str, file: Path, mark: str, what: str) -> None:
    """Refuse to replace an existing `file` that does not hold `mark` (what the program writing it puts in
    its first lines): another program's file, replaced only when the user moves it. An empty file holds nothing to lose."""
    if foreign(file, mark):
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


def _replaces(target: str | Path, item: Input) -> str | None:
    """Why writing `target` would replace `item`, or None."""
    how = relation(str(target), item.path)
    return f"{how} {item.what} ({item.path})" if how else None


def same_path(a: str | Path, b: str | Path) -> bool:
    """Whether two paths name one file or folder, as the file system resolves them (it may not exist yet)."""
    return relation(str(a), str(b)) == "is"
