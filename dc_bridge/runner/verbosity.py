"""How much the libraries a command drives may print: Spark's JVM log and Python's warnings.

dc-bridge reports what matters itself (the verdict, its findings, what could not run), so by default
Spark's JVM logs errors only and prints no log-level banner, and GX and Soda print no progress bars
(engines/gx: GX's own `progress_bars` setting). `-v`/`--verbose` raises the level, `-q`/`--quiet`
lowers it (cli/options.py `with_verbosity`): the command runs `using` its level, set before any
session starts. A session dc-bridge starts (runner/data.py `get_session`) logs at
the level from its first line: the JVM reads `log4j2.properties` with the level as a system property.

A caller's session (the Python API) keeps its own log level. Only the loggers in `QUIETED`, whose
warnings the run's own SQL causes, are quieted for the run and put back after it
(runner/session_guard.py).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import resources


@dataclass(frozen=True)
class Verbosity:
    """One level: the JVM's log4j root level, whether Python's warnings are shown, and the level of the
    loggers of a failed task (`tasks`): a check's query that fails at run time is that check's `error` with
    its root cause, so at the default level its task's stack is not printed a second time."""
    jvm: str
    warnings: bool
    tasks: str


# -q, none, -v, -vv (and more): what each shows
LEVELS: dict[int, Verbosity] = {
    -1: Verbosity(jvm="off", warnings=False, tasks="off"),
    0: Verbosity(jvm="error", warnings=True, tasks="off"),
    1: Verbosity(jvm="warn", warnings=True, tasks="warn"),
    2: Verbosity(jvm="info", warnings=True, tasks="info"),
}

# JVM loggers whose warnings come from the SQL of a contract's own checks, not from anything the caller
# can act on: WindowExec warns of every window without PARTITION BY (a frequency check's LAG over the
# whole table, the bundled orders contract's gap query), once per query
QUIETED = ("org.apache.spark.sql.execution.window.WindowExec",)

_current = 0


@contextmanager
def using(level: int) -> Iterator[None]:
    """A command's verbosity (-1 quiet, 0 the default, 1 and more verbose) while it runs; Python's warnings
    are filtered or not for as long."""
    global _current
    before, _current = _current, max(min(level, max(LEVELS)), min(LEVELS))
    try:
        with warnings.catch_warnings():
            if not current().warnings:
                warnings.simplefilter("ignore")
            yield
    finally:
        _current = before


def level() -> int:
    return _current


def current() -> Verbosity:
    return LEVELS[_current]


def java_options() -> str:
    """`spark.driver.extraJavaOptions` of a session dc-bridge starts: dc-bridge's log4j2 configuration and the
    levels it reads (`dc_bridge.log.level`, `dc_bridge.log.tasks`), all in force before Spark logs its first line."""
    config = resources.files("dc_bridge").joinpath("log4j2.properties")
    return f"-Dlog4j.configurationFile={config} -Ddc_bridge.log.level={current().jvm} -Ddc_bridge.log.tasks={current().tasks}"


class QuietLoggers:
    """The JVM loggers of `QUIETED` at ERROR for a run on a session dc-bridge did not start; `restore()`
    puts each back as it was (its own level, or none of its own: it follows its parent again)."""

    def __init__(self, jvm, names: tuple[str, ...] = QUIETED):
        self._jvm = jvm
        self._before: dict[str, str | None] = {}
        if _current >= 1:  # -v asked for the JVM's warnings, these included
            return
        log4j = jvm.org.apache.logging.log4j
        try:
            configuration = log4j.LogManager.getContext(False).getConfiguration()
            for name in names:
                own = configuration.getLoggerConfig(name)
                before = own.getLevel().name() if own.getName() == name else None
                log4j.core.config.Configurator.setLevel(name, log4j.Level.ERROR)
                self._before[name] = before
        except Exception:  # a JVM that logs through something other than log4j 2's core: it keeps its own levels
            pass

    def restore(self) -> None:
        log4j = self._jvm.org.apache.logging.log4j
        for name, before in self._before.items():
            if before is not None:
                log4j.core.config.Configurator.setLevel(name, log4j.Level.toLevel(before))
                continue
            context = log4j.LogManager.getContext(False)
            context.getConfiguration().removeLogger(name)
            context.updateLoggers()
