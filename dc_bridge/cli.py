"""The `dc-bridge` command line. Each command is a thin wrapper over the pipeline's functions."""

from __future__ import annotations

import sys

import click

from dc_bridge import __version__
from dc_bridge.contract.lint import lint_file
from dc_bridge.report.findings import FORMATTERS

# exit codes shared by every command
EXIT_OK, EXIT_FINDINGS, EXIT_UNREADABLE = 0, 1, 2
_UNREADABLE_CODES = {"DCB001", "DCB002", "DCB006"}


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="dc-bridge")
def main() -> None:
    """Check data contracts (DCS 1.x, ODCS 3.x) with Great Expectations and Soda on Spark."""


@main.command()
@click.argument("contracts", nargs=-1, required=True, type=click.Path(dir_okay=False, path_type=str))
@click.option("--format", "output_format", type=click.Choice(sorted(FORMATTERS)), default="text", show_default=True,
              help="Output format; sarif is SARIF 2.1.0 for code-scanning tools.")
@click.option("--output-file", type=click.Path(dir_okay=False, writable=True), help="Write the report here instead of stdout.")
def lint(contracts: tuple[str, ...], output_format: str, output_file: str | None) -> None:
    """Validate contracts against their standard's schema and dc-bridge's rules.

    Exit 0 when no errors (warnings allowed), 1 when errors were found, 2 when a file could not be read.
    """
    results = [lint_file(path) for path in contracts]
    findings = [f for result in results for f in result.findings]
    report = FORMATTERS[output_format](findings, list(contracts))
    if output_file:
        with open(output_file, "w", encoding="utf-8") as handle:
            handle.write(report + "\n")
    else:
        click.echo(report)
    if any(f.code in _UNREADABLE_CODES for f in findings if f.file in contracts):
        sys.exit(EXIT_UNREADABLE)
    sys.exit(EXIT_FINDINGS if any(f.level == "error" for f in findings) else EXIT_OK)


@main.command(name="compile")
@click.argument("contracts", nargs=-1, required=True, type=click.Path(dir_okay=False, path_type=str))
@click.option("--out", "out_dir", default=".", show_default=True, type=click.Path(file_okay=False, path_type=str),
              help="Folder under which expectation_suites/ and soda_checks/ are written.")
@click.option("--explain", is_flag=True, help="Also print, per contract element, the check ids produced in each engine.")
@click.option("--check", "check_only", is_flag=True, help="Write nothing; exit 1 if a compiled file is missing or stale.")
def compile_command(contracts: tuple[str, ...], out_dir: str, explain: bool, check_only: bool) -> None:
    """Compile contracts to GX expectation suites and SodaCL files.

    Exit 0 on success, 1 when --check finds stale files, 2 when a contract has errors.
    """
    from pathlib import Path

    from dc_bridge import artifacts
    from dc_bridge.report import explain as explain_report

    stale: list[Path] = []
    for path in contracts:
        loaded = _load_or_exit(path)
        if loaded.kind == "library":
            click.echo(f"{path}: a shared quality-rule library; its rules compile where a contract imports them")
            continue
        compiled = artifacts.compile_contract(loaded.contract)
        files = artifacts.rendered(compiled, Path(out_dir))
        if check_only:
            stale += [p for p, text in files.items() if not p.exists() or p.read_text(encoding="utf-8") != text]
        else:
            written = artifacts.write(files)
            click.echo(f"{path}: {len(compiled.plan.checks)} checks, {len(files)} files ({len(written)} changed) under {out_dir}")
        if explain:
            click.echo(explain_report.as_text(compiled))
    if stale:
        click.echo("stale or missing compiled files (run `dc-bridge compile`):\n" + "\n".join(f"  {p}" for p in stale), err=True)
        sys.exit(EXIT_FINDINGS)


def _load_or_exit(path: str):
    """Load a contract for a command that runs it: lint errors stop here, with the lint report."""
    result = lint_file(path)
    errors = [f for f in result.findings if f.level == "error"]
    if result.contract is None or errors:
        click.echo(FORMATTERS["text"](errors or result.findings, [path]), err=True)
        sys.exit(EXIT_UNREADABLE)
    return result
