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
