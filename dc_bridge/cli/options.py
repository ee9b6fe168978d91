"""Options several commands share, and the group class of dc-bridge's command groups."""

from __future__ import annotations

import contextlib
import functools
import gc
import sys
from typing import Iterator

import click

from dc_bridge import config
from dc_bridge.outcomes import EXIT_UNREADABLE
from dc_bridge.runner.spark_start import SparkUnavailable


class Group(click.Group):
    """A group of dc-bridge commands (`dc-bridge`, `dc-bridge gx`). Spark that cannot be started or reached
    (runner/spark_start.py) is bad input, whichever command needed it: one line naming the command, the cause
    and the fix, exit 2, never a traceback."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except SparkUnavailable as exc:
            click.echo(f"{ctx.command_path} {ctx.invoked_subcommand}: {exc}", err=True)
            sys.exit(EXIT_UNREADABLE)


class _Assignment(click.ParamType):
    """`--var NAME=VALUE`."""

    name = "NAME=VALUE"

    def convert(self, value, param, ctx):
        from dc_bridge.contract.reading import variables  # the contract model: not for `--help`

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


class _Level(click.ParamType):
    """`--enforce VALIDATOR=LEVEL`, of the validators a command reads."""

    name = "VALIDATOR=LEVEL"

    def __init__(self, validators: tuple[str, ...] = config.OPTION_VALIDATORS):
        self.validators = validators

    def convert(self, value, param, ctx):
        try:
            return config.parse_level_option(value, self.validators)
        except ValueError as exc:
            self.fail(str(exc), param, ctx)


# `run --enforce monitors=LEVEL`: the one level a run reads (the command applies it to the project's settings)
run_enforce = click.option("--enforce", "enforce_levels", multiple=True, type=_Level(config.RUN_VALIDATORS), metavar="VALIDATOR=LEVEL",
                           help="Enforcement level of the monitors (monitors=off, warn or strict; repeatable, the last wins); "
                                "wins over the project configuration.")


# a command's parameters that name its contract files, in the order that decides: the first given is the contract whose
# project applies (`check-version OLD NEW` and `diff OLD NEW`: NEW's, OLD being the baseline; OLD alone with --against-registered;
# `init --out`: the contract it writes)
_CONTRACT_PARAMETERS = ("contracts", "contract", "new", "old", "out")


def _contract_arguments(kwargs: dict) -> list[str]:
    value = next((kwargs[name] for name in _CONTRACT_PARAMETERS if kwargs.get(name)), ())
    return [value] if isinstance(value, str) else list(value)


def _project_settings(kwargs: dict) -> config.Settings:
    """The settings of the project the command's contracts live in (config.contracts_project; the working directory's
    without contracts), its notice said on stderr; a configuration error or contracts of several projects: exit 2."""
    try:
        settings, notice = config.contracts_project(_contract_arguments(kwargs))
    except config.ConfigError as exc:
        click.echo(f"dc-bridge: {exc}", err=True)
        sys.exit(EXIT_UNREADABLE)
    if notice:
        click.echo(notice, err=True)
    return settings


def in_project(command):
    """The configuration of the project the command's contracts live in (config.py, found upwards from the contracts'
    folder, as linters find theirs per file) in effect for the command (`run`, `compile`: its engines, monitors, catalog
    and inheritance mode, the validators at their default levels: `Settings.for_running`). A configuration with an
    unknown key or value, or contracts of different projects, stop the command (exit 2) before it reads anything."""
    @functools.wraps(command)
    def in_project(*args, **kwargs):
        with config.using(_project_settings(kwargs).for_running()):
            return command(*args, **kwargs)
    return in_project


def with_settings(command):
    """`in_project`, with `--enforce VALIDATOR=LEVEL` (repeatable) on top of the project's configuration."""
    @click.option("--enforce", "enforce_levels", multiple=True, type=_Level(), metavar="VALIDATOR=LEVEL",
                  help=f"Enforcement level of a validator ({', '.join(config.OPTION_VALIDATORS)}): off, warn or strict "
                       f"(repeatable); wins over the project's configuration.")
    @functools.wraps(command)
    def with_settings(*args, enforce_levels=(), **kwargs):
        with config.using(_project_settings(kwargs).overridden(dict(enforce_levels))):
            return command(*args, **kwargs)
    return with_settings


def default_engines() -> str:
    """`run`'s engines when --engines is not given: the configuration's `engines` of the project in effect (`in_project`),
    else gx,soda. Only this key is read for `run`: enforcement levels change what lint and the evolution commands report,
    never which contracts a run accepts."""
    return ",".join(config.current().engines or ("gx", "soda"))


def conf_pairs(conf_options) -> dict[str, str]:
    """`--conf KEY=VALUE` options (repeatable) as Spark configuration; the last of a key wins."""
    conf = {}
    for option in conf_options:
        key, eq, value = option.partition("=")
        if not eq:
            raise click.BadParameter(f"--conf {option!r} must be KEY=VALUE")
        conf[key] = value
    return conf


@contextlib.contextmanager
def spark_session(master: str | None, conf_options) -> Iterator:
    """The Spark session a command's `--master` and `--conf` ask for, started as `run` starts it
    (runner/data.get_session: the active session when there is one), and stopped on leaving when started here."""
    from dc_bridge.runner.data import get_session

    session, created = get_session(master, conf_pairs(conf_options))
    try:
        yield session
    finally:
        if created:
            session.stop()


# the process is the `dc-bridge` command's own (cli `command`, its script's entry), not a caller's (the API, a test's runner)
_OWN_PROCESS = False


def own_process() -> None:
    global _OWN_PROCESS
    _OWN_PROCESS = True


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off while a command reads and compiles one contract (`lint`, `compile`).
    What they build (the YAML's nodes, the document, the contract, the plan, the compiled files: some 100,000
    objects for 200 models) lives until the command has used it, and the collector would walk it again at each
    full collection and free nothing: a quarter of their CPU. The collector is back on, as it was, for the
    next contract. In the command's own process what lived until then is frozen first (`gc.freeze`): turned back
    on over 100,000 young objects, the collector walked them all at once and again at the interpreter's exit, a
    tenth of the command's CPU for nothing (objects still go when nothing refers to them; cycles among them are
    left to the process's end, which a caller's longer process would not want)."""
    if not gc.isenabled():  # the caller's own choice stays
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        if _OWN_PROCESS:
            gc.freeze()
        gc.enable()


# `--data` of run and drift (runner/data.py `parse_data_option`)
DATA_METAVAR = "MODEL=PATH[:FORMAT[,OPTION[=VALUE]...]]"
READER_HELP = ("FORMAT defaults to the extension (parquet, csv, json, delta, orc, avro); each OPTION is a Spark reader "
               "option, a bare name meaning true: orders=o.json:json,multiLine or p=p.csv:csv,sep=;")


def with_verbosity(command):
    """`-v`/`--verbose` (repeatable) and `-q`/`--quiet` on a command that can start Spark: how much Spark's
    JVM and the libraries print while it runs (runner/verbosity.py); the report is the same at every level."""
    @click.option("-v", "--verbose", count=True,
                  help="Show Spark's warnings (-vv: its info log too); by default Spark logs errors only.")
    @click.option("-q", "--quiet", is_flag=True,
                  help="Nothing from Spark's log or Python warnings, and no progress line: the report only.")
    @functools.wraps(command)
    def with_verbosity(*args, verbose=0, quiet=False, **kwargs):
        from dc_bridge.runner import verbosity

        with verbosity.using(-1 if quiet else verbose):
            return command(*args, **kwargs)
    return with_verbosity


class _Unpadded:
    """A text stream that passes each line on without the blanks rich pads it with (a table's cells
    are padded to the column's width): a report redirected to a file or a CI log ends its lines where
    its text does. The last, unfinished line waits for its newline or a flush."""

    def __init__(self, stream):
        self._stream, self._pending = stream, ""

    def write(self, text: str) -> int:
        lines = (self._pending + text).split("\n")
        self._pending = lines.pop()
        if lines:
            self._stream.write("\n".join(line.rstrip(" ") for line in lines) + "\n")
        return len(text)

    def flush(self) -> None:
        if self._pending:
            self._stream.write(self._pending)
            self._pending = ""
        self._stream.flush()

    def isatty(self) -> bool:
        return False


def report_console(stderr: bool = False):
    """The console a command prints its report to: rich's own on a terminal; redirected, one whose
    lines carry no trailing blanks."""
    from rich.console import Console

    stream = sys.stderr if stderr else sys.stdout
    return Console(stderr=stderr) if stream.isatty() else Console(file=_Unpadded(stream))

