"""Options several commands share."""

from __future__ import annotations

import functools

import click

from dc_bridge.contract.reading import variables


class _Assignment(click.ParamType):
    """`--var NAME=VALUE`."""

    name = "NAME=VALUE"

    def convert(self, value, param, ctx):
        try:
            return variables.parse_assignment(value)
        except ValueError as exc:
            self.fail(str(exc), param, ctx)


def with_variables(command):
    """`--var NAME=VALUE` (repeatable): ODCS 3.2 `${NAME}` values for every file the command reads, before the
    environment; the command gets them as its `variables` argument (name -> value; the last of a name wins)."""
    @click.option("--var", "given_variables", multiple=True, type=_Assignment(), metavar="NAME=VALUE",
                  help="Value of an ODCS 3.2 `${NAME}` variable (repeatable); wins over the environment variable NAME.")
    @functools.wraps(command)
    def with_variables(*args, given_variables=(), **kwargs):
        return command(*args, variables=dict(given_variables), **kwargs)
    return with_variables
