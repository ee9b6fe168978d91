"""Where a command may write: the checks behind every output option of the command line, in the
words of each option. The rule itself is dc_bridge/paths.py's, one for commands and APIs alike, and its checks
are runner/outputs.py's, which `dc_bridge.run` passes through as `dc-bridge run` does; here they are the
command's refusal (`OutputRefused`, exit 2).

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

import functools
from pathlib import Path

import click

from dc_bridge.outcomes import EXIT_UNREADABLE
from dc_bridge.runner import outputs as rule
# the rule's own pieces, which the commands use as they are
from dc_bridge.runner.outputs import Input, contract_inputs, data_inputs, same_path  # noqa: F401


class OutputRefused(click.ClickException):
    """An output option that would replace an input or cannot be written; exit 2 before any work."""

    exit_code = EXIT_UNREADABLE

    def __init__(self, message: str):
        super().__init__(message)
        context = click.get_current_context(silent=True)  # the command's, while it runs: `dc-bridge run`
        self.command = context.command_path if context else "dc-bridge"

    def show(self, file=None) -> None:
        click.echo(f"{self.command}: {self.format_message()}", err=True)


def _worded(check):
    """The runner's check (runner/outputs.py), its refusal as the command's: exit 2, prefixed by the command."""
    @functools.wraps(check)
    def checked(*args, **kwargs):
        try:
            return check(*args, **kwargs)
        except rule.OutputRefused as exc:
            raise OutputRefused(str(exc)) from None
    return checked


check_file = _worded(rule.check_file)
check_folder = _worded(rule.check_folder)
check_apart = _worded(rule.check_apart)
check_not_foreign = _worded(rule.check_not_foreign)
check_run_outputs = _worded(rule.check_run_outputs)


def write_text(option: str, path: str, text: str) -> None:
    """Write a report checked by `check_file`. Should the write still fail (the disk filled up, the
    folder went away), the report goes to stdout rather than being lost, and the command exits 2."""
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as exc:
        click.echo(text, nl=False)
        raise OutputRefused(f"{option} {path} could not be written ({exc.strerror or exc}); "
                            f"the report is on stdout instead.") from None
