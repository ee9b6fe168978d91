"""`dc-bridge gx ...` and `dc-bridge soda ...`: thin command wrappers over gx_project and soda_config.

Registered on the main group by `register(main)` (at the end of cli/__init__.py), so the
integrations stay out of the core command module. Exit codes as everywhere: 0 done, 1 findings
(stale files), 2 bad input (contract errors, conflicts in the GX project).
"""

from __future__ import annotations

import sys

import click

from dc_bridge.outcomes import EXIT_FINDINGS, EXIT_UNREADABLE

import dc_bridge.cli.outputs as outputs
from dc_bridge.cli.options import Group, in_project, with_variables, with_verbosity



def register(main: click.Group) -> None:
    main.add_command(gx_group)
    main.add_command(soda_group)


def _contract_errors(contract: str, exc) -> None:
    from dc_bridge.report.finding_formats import FORMATTERS

    click.echo(FORMATTERS["text"](exc.findings, [contract]), err=True)
    sys.exit(EXIT_UNREADABLE)


@click.group(name="gx", cls=Group)
def gx_group() -> None:
    """Use a contract in a Great Expectations (GX 1.x) project."""


@gx_group.command(name="init")
@in_project
@with_verbosity
@with_variables
@click.argument("contract", type=click.Path(exists=True, dir_okay=False, path_type=str))
@click.option("--project-dir", default=".", show_default=True, type=click.Path(file_okay=False, path_type=str),
              help="Folder of the GX project (GX keeps it in <DIR>/gx); created if missing, updated if present.")
@click.option("--result-format", type=click.Choice(["summary", "complete"]), default="summary", show_default=True,
              help="Result format of new checkpoints: summary keeps no failing values; complete keeps them all "
                   "(and the value of a failed SQL metric check).")
def gx_init(contract: str, project_dir: str, result_format: str, variables: dict[str, str]) -> None:
    """Create or update a GX file-context project for CONTRACT.

    Per model: a DataFrame asset of a Spark data source named like the contract, the compiled suite,
    a validation definition and a checkpoint that updates Data Docs. Objects you added are kept.
    """
    from dc_bridge.engines.gx import ProjectConflict
    from dc_bridge.integrations.gx_project import init_project
    from dc_bridge.compiler import ContractError

    # GX keeps the project in <DIR>/gx and rewrites what is there: no input of this command may lie in it
    outputs.check_folder("--project-dir", project_dir, outputs.contract_inputs(contract, variables=variables), owned=("gx",))
    try:
        report = init_project(contract, project_dir, result_format, variables)
    except ContractError as exc:
        _contract_errors(contract, exc)
    except ProjectConflict as exc:
        click.echo(f"dc-bridge gx init: nothing written; {exc}", err=True)
        sys.exit(EXIT_UNREADABLE)
    click.echo(f"GX project {report.project}")
    for change in report.changes:
        click.echo(f"  {change.kind:<22} {change.name}  {change.what}")
    for check_id, why in report.left_out.items():
        click.echo(f"  left out (error in the verdict): {check_id}: {why}")
    click.echo("Run a model's checkpoint with plain GX, then fold the results (docs/gx-project.md):")
    for model, name in report.checkpoints.items():
        click.echo(f"  context.checkpoints.get({name!r}).run(batch_parameters={{'dataframe': <{model} DataFrame>}}"
                   + (", expectation_parameters={...}" if report.parameters else "") + ")")
    click.echo(f"  dc_bridge.fold_gx([<checkpoint results>], {contract!r})")
    if report.parameters:
        click.echo("Expectation parameters the checkpoints need:")
        for name, what in report.parameters.items():
            click.echo(f"  {name}: {what}")
    if len(report.views) > 1:
        click.echo("Temp views foreign-key expectations read (register each model's DataFrame under its name):")
        for model, view in report.views.items():
            click.echo(f"  {model}: {view}")


@click.group(name="soda")
def soda_group() -> None:
    """Run a contract's compiled SodaCL in your own Soda Core v3 scans."""


@soda_group.command(name="config")
@in_project
@with_variables
@click.argument("contract", type=click.Path(exists=True, dir_okay=False, path_type=str))
@click.option("--out", "out_dir", default=".", show_default=True, type=click.Path(file_okay=False, path_type=str),
              help="The folder `dc-bridge compile --out` wrote soda_checks/ under.")
@click.option("--output-file", type=click.Path(dir_okay=False, writable=True), help="Write the config here instead of stdout.")
def soda_config_command(contract: str, out_dir: str, output_file: str | None, variables: dict[str, str]) -> None:
    """Print what a plain Soda scan of CONTRACT's SodaCL on a Spark session needs: the data source
    name and, per model, the temp view to register its DataFrame as and the SodaCL file.

    Exit 1 when a SodaCL file is missing or stale (run `dc-bridge compile`).
    """
    from dc_bridge.integrations.soda_config import config_text, soda_config
    from dc_bridge.compiler import ContractError

    from dc_bridge.compiler import OutputError

    try:
        config, stale = soda_config(contract, out_dir, variables)
    except ContractError as exc:
        _contract_errors(contract, exc)
    except OutputError as exc:
        raise outputs.OutputRefused(str(exc)) from None
    text = config_text(config)
    if output_file:
        # the contract's files and the compiled SodaCL this config names are inputs here
        read = [outputs.Input(model["sodacl"], f"the compiled SodaCL of model `{name}`") for name, model in config["models"].items()]
        outputs.check_file("--output-file", output_file, outputs.contract_inputs(contract, variables=variables) + read, written="the config")
        outputs.write_text("--output-file", output_file, text)
    else:
        click.echo(text, nl=False)
    if stale:
        click.echo("missing or stale SodaCL (run `dc-bridge compile " + contract + f" --out {out_dir}`):\n"
                   + "\n".join(f"  {p}" for p in stale), err=True)
        sys.exit(EXIT_FINDINGS)
