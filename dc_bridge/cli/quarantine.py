"""`dc-bridge run --quarantine PATH --valid-output PATH`: a model's rows split by the contract and written
out (dc_bridge/enforce, docs/enforcing.md "The split from the command line").

Every refusal comes before Spark starts: a model the contract lacks or a choice it needs (`--model`),
an output that exists (without `--overwrite`), is, holds or lies inside an input of the run or the
other output (dc_bridge/paths.py), or cannot be created. The
outputs are then written whole or not at all (enforce/outputs.py), and the run's exit code is the
verdict's.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import click

from dc_bridge.cli.outputs import (
    OutputRefused,
    check_apart,
    check_folder,
    contract_inputs,
    data_inputs,
)
from dc_bridge.paths import local_path

# the engine a split judges with unless --engines is given: its counts come from the split's own pass
SPLIT_ENGINES = ("spark",)
# formats that can hold the quarantine's list of violations (csv has no arrays)
SPLIT_FORMATS = ("parquet", "delta", "json", "orc", "avro")


@dataclass(frozen=True)
class SplitRequest:
    """What `run --quarantine` writes: `model`'s rows, split, to two paths in `format`."""
    model: str
    quarantine: str
    valid_output: str
    format: str
    overwrite: bool


def requested(files: list[str], read, *, quarantine: str | None, valid_output: str | None, model: str | None, split_format: str,
              overwrite: bool, data: dict, server: str | None, data_docs: str | None, history: str | None) -> SplitRequest | None:
    """The split `run` was asked for, checked before Spark starts (None: a plain run); `read`: the one
    contract's ReadContract. Raises click's usage errors and OutputRefused (exit 2)."""
    if quarantine is None and valid_output is None:
        for given, option in ((model, "--model"), (overwrite, "--overwrite")):
            if given:
                raise click.UsageError(f"{option} belongs to a split: give it with --quarantine PATH --valid-output PATH.")
        return None
    if quarantine is None or valid_output is None:
        missing = "--valid-output" if quarantine else "--quarantine"
        raise click.UsageError(f"a split writes both halves of the rows: give {missing} PATH too.")
    if len(files) > 1:
        raise click.UsageError(f"--quarantine splits one model of one contract, and {len(files)} were given; run each on its own.")
    for given, option in ((data_docs, "--data-docs"), (history, "--history")):
        if given:
            raise click.UsageError(f"{option} belongs to a run of the engines, not to a split (--quarantine); leave one of them out.")
    contract = read.result.contract
    chosen = model
    if contract is not None:  # else the run reports the contract's errors
        names = [m.name for m in contract.models]
        if model is not None and model not in names:
            raise OutputRefused(f"--model {model}: {files[0]} has no model named `{model}` (models: {', '.join(names)}); "
                                        f"nothing was written.")
        if model is None and len(names) != 1:
            raise OutputRefused(f"--quarantine: {files[0]} has {len(names)} models ({', '.join(names)}); choose the one "
                                        f"whose rows are split with --model NAME. Nothing was written.")
        chosen = model or names[0]
        inputs = contract_inputs(files[0], read.result) + data_inputs(contract, data, server)
    else:
        inputs = contract_inputs(files[0], read.result)
    check_apart([("--quarantine", quarantine, None), ("--valid-output", valid_output, None)])
    for option, path in (("--quarantine", quarantine), ("--valid-output", valid_output)):
        local = local_path(path)
        if local is None:
            continue  # object stores and clusters: checked by the write itself, which leaves nothing behind
        check_folder(option, local, inputs, create=False)
        if Path(local).exists() and not overwrite:
            from dc_bridge.enforce.outputs import Output

            raise OutputRefused(str(Output(option, path, None).exists()))
    return SplitRequest(chosen, quarantine, valid_output, split_format, overwrite)


def split_and_write(read, request: SplitRequest, options):
    """Split the model's rows by the contract and write both halves; the verdict of the split.
    `read`: the ReadContract; `options`: the run's RunOptions (engines, data, server, where, Spark)."""
    from dc_bridge.compiler import lint_for_run
    from dc_bridge.contract.lint.java_regex import compiler_in
    from dc_bridge.enforce.outputs import Output
    from dc_bridge.enforce.split import prepared_from, split
    from dc_bridge.runner.data import model_sources, source_dataframe
    from dc_bridge.runner.pipeline import SessionOnFirstNeed

    session = SessionOnFirstNeed(options.master, options.conf, options.engines)
    found: dict = {}

    def ready(contract) -> None:
        # every model's source, found before Spark starts (a missing path stops here)
        found["sources"] = model_sources(contract, options.data, set(), options.server)
        options.say("starting Spark")

    try:
        # lint as a run does, in two halves: what needs no JVM before Spark starts (a contract that cannot
        # run is refused at lint's speed), then the patterns compiled in the session's JVM (ContractError)
        contract, local_errors = lint_for_run(read.result, compiler_in(session.jvm), ready=ready)
        (spark, _), (server, sources) = session.get(), found["sources"]
        # every model's rows, as a run reads them: foreign keys look up the others, SQL checks may read them
        frames = {m.name: source_dataframe(spark, m, sources[m.name], server) for m in contract.models}
        options.say(f"splitting {request.model}")
        # linted once, here: the split takes the contract as it stands
        result = split(contract, request.model, frames[request.model], where=options.where, frames=frames, now=options.clock(),
                       engines=options.engines, prepared=prepared_from(contract, local_errors))
        try:
            options.say("writing")
            # in one pass over the rows, the valid ones with their own columns only (split.py `Split.write_to`)
            result.write_to({False: Output("--valid-output", request.valid_output, None), True: Output("--quarantine", request.quarantine, None)},
                            request.format, request.overwrite, annotated_valid=False)
        finally:
            result.release()
    finally:
        session.stop()
    judged = result.rows.get("slice", result.rows["table"])
    click.echo(f"{request.model}: {judged - result.quarantined_rows} valid rows written to {request.valid_output}, "
               f"{result.quarantined_rows} quarantined rows to {request.quarantine}", err=True)
    return result.verdict
