"""`dc-bridge import SOURCE... --out FILE`: GX suites, SodaCL check files and dbt tests carried into one ODCS contract.

A thin wrapper like every command: dc_bridge/importing/ reads the sources, assembles the document and writes the
report. The conventions are `init`'s (cli/catalog.py): an --out that exists is refused without --overwrite, --out
and --report are never an input nor inside or around one (cli/outputs.py), and the contract is written whole
(a temporary file in its folder, then renamed), so two imports writing one file at once never interleave.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import click

from dc_bridge.outcomes import EXIT_FINDINGS, EXIT_OK, EXIT_UNREADABLE


def register(group: click.Group) -> None:
    """Add the command to the `dc-bridge` group (called at the end of cli/__init__.py)."""
    group.add_command(import_command)


@click.command(name="import")
@click.argument("sources", nargs=-1, required=True, metavar="SOURCE...")
@click.option("--out", required=True, type=click.Path(dir_okay=False, path_type=str), help="The contract file to write.")
@click.option("--report", "report_file", type=click.Path(dir_okay=False, path_type=str),
              help="Also write the import report as JSON to this file.")
@click.option("--overwrite", is_flag=True, help="Replace --out when it exists (refused otherwise).")
@click.option("--id", "contract_id", help="The contract's id (default: --name, else the first dataset's name).")
@click.option("--name", help="The contract's name (default: the id).")
@click.option("--version", "version", default="1.0.0", show_default=True, help="The contract's version.")
@click.option("--standard", type=click.Choice(["3.1", "3.2"]), default="3.1", show_default=True, help="The ODCS version to write.")
@click.option("--merge", "explicit", type=click.Path(dir_okay=False, exists=True, path_type=str),
              help="An existing ODCS contract to import into: its keys win over the imported ones and none is lost.")
def import_command(sources: tuple[str, ...], out: str, report_file: str | None, overwrite: bool, contract_id: str | None,
                   name: str | None, version: str, standard: str, explicit: str | None) -> None:
    """Write an ODCS contract from other tools' checks: GX suites, SodaCL and dbt tests.

    SOURCE is gx:PATH (a GX suite's JSON, a GX project's
    expectations folder or a checkpoint), soda:PATH (a SodaCL check file) or dbt:PATH (a schema.yml or a
    manifest.json); several at once make one contract.

    Every source check is one row of the import report: mapped to a contract form, carried as a custom rule of
    its own engine, or refused with the reason. Exit 0 when every check was carried, 1 when any was refused or the
    written contract has lint errors, 2 when an input cannot be read or an output is refused.
    """
    import yaml

    from dc_bridge.cli.options import report_console
    from dc_bridge.cli.outputs import Input, check_apart, check_file, write_text
    from dc_bridge.contract.lint import lint_file
    from dc_bridge.importing import ImportInputError, read_source
    from dc_bridge.importing.assemble import assemble
    from dc_bridge.importing.report import print_report, report_json, report_text
    from dc_bridge.importing.written import written
    from dc_bridge.report.finding_formats import FORMATTERS

    if Path(out).exists() and not overwrite:
        click.echo(f"dc-bridge import: {out} exists; nothing was written (add --overwrite to replace it)", err=True)
        sys.exit(EXIT_UNREADABLE)
    inputs = [Input(spec.partition(":")[2], f"the source {spec}") for spec in sources if spec.partition(":")[2]]
    inputs += [Input(explicit, "the --merge contract")] if explicit else []
    check_file("--out", out, inputs, written="the contract", create=False)
    if report_file:
        check_file("--report", report_file, inputs, written="the import report", create=False)
        check_apart([("--out", out, None), ("--report", report_file, None)])
    try:
        carried = [item for spec in sources for item in read_source(spec)]
        base = None
        if explicit:
            base = yaml.safe_load(Path(explicit).read_text(encoding="utf-8"))
            if not isinstance(base, dict) or "apiVersion" not in base:
                raise ImportInputError(f"--merge {explicit}: not an ODCS contract (a mapping with apiVersion); "
                                       f"give the ODCS contract to import into")
    except (ImportInputError, yaml.YAMLError, OSError) as exc:
        click.echo(f"dc-bridge import: {exc}", err=True)
        sys.exit(EXIT_UNREADABLE)
    models = [item.model for item in carried]
    default_id = contract_id or name or (models[0] if models else Path(out).stem)
    assembled = assemble(carried, id=default_id, standard=standard, name=name, version=version, base=base, sources=list(sources))
    report = report_json(carried, assembled, sources=list(sources), out=out)
    check_file("--out", out, inputs, written="the contract")
    # the text and what reading it back gives, made together: lint reads the contract without parsing it again
    text, written_document = written(assembled.document, out)
    write_whole(out, text, replace=overwrite)
    if report_file:
        check_file("--report", report_file, inputs, written="the import report")
        write_text("--report", report_file, report_text(report))
    print_report(report, report_console())
    errors = [f for f in lint_file(out, document=written_document).findings if f.level == "error"]
    click.echo(f"{out}: {len(assembled.document.get('schema', []))} model(s) from {len(carried)} source check(s)"
               + (f", merged with {explicit}" if explicit else "") + ("; lint: clean" if not errors else f"; lint: {len(errors)} error(s)"))
    if errors:
        click.echo(FORMATTERS["text"](errors, [out]), err=True)
    sys.exit(EXIT_FINDINGS if errors or report["summary"]["refused"] else EXIT_OK)


def write_whole(out: str, text: str, *, replace: bool) -> None:
    """Write `out` whole or not at all: a temporary file in its folder, then renamed over it (`replace`) or linked
    to its name (refused when another writer made it meanwhile: the check that it did not exist is not enough)."""
    target = Path(out)
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        if replace:
            os.replace(temporary, target)
        else:
            try:
                os.link(temporary, target)
            except FileExistsError:
                click.echo(f"dc-bridge import: {out} was written by another command meanwhile; nothing was written "
                           f"(add --overwrite to replace it)", err=True)
                sys.exit(EXIT_UNREADABLE)
    finally:
        Path(temporary).unlink(missing_ok=True)
