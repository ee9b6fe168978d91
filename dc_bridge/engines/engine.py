"""What an engine is to the rest of dc-bridge: a name, a translation of each check, a compiled file
per model (where the engine has one), and a run of one model.

Each engine wires itself in its package's `__init__.py` (`ENGINE = Engine(...)`), and
engines/registry.py lists them: the compiler and the runner only ever ask the registry.

A translation returns the engine's form of a check or `Unsupported(reason)`, never nothing: the
reason is what `compile --explain` and a skipped check in the verdict show.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Callable, Mapping

from dc_bridge.engines.results import EngineReport
from dc_bridge.plan.checks import Check


@dataclass(frozen=True)
class Unsupported:
    """A check this engine does not run, and why."""
    reason: str


def unsupported(reason: str) -> Callable[..., Unsupported]:
    """A translation-table entry for a kind the engine does not run."""
    return lambda *_: Unsupported(reason)


def not_executable(check: Check, *_) -> Unsupported:
    """The `not_executable` entry of every engine's table: no engine runs it, for the check's own reason."""
    return Unsupported(check.params.reason)


# the entry of every engine's table for a service level judged over the run history (verdict.py `judge_history`)
from_history = unsupported("judged by dc-bridge over the history of runs (--history), not by an engine")


@dataclass(frozen=True)
class CompiledFiles:
    """Where an engine's compiled artifact of one model is written, and as what text."""
    folder: str
    suffix: str
    # (artifact, contract) -> the file's exact text
    text: Callable[[Any, Any], str]


@dataclass(frozen=True)
class Engine:
    name: str
    # (check, contract id) -> the engine's form of the check, or Unsupported
    translate: Callable[[Check, str], Any]
    # (contract id, model, the forms of its checks in plan order, contract meta) -> the model's artifact
    assemble: Callable[[str, str, list, dict], Any] | None
    files: CompiledFiles | None
    # (spark, model frames, compiled contract, model, now) -> the engine's report on that model; the
    # compiled contract is compiler.Compiled, which the compiler builds from the engines (so not named here)
    run: Callable[[Any, Mapping[str, Any], Any, str, datetime], EngineReport]
    # imports what `run` needs when that takes seconds (GX, Soda): runner/pipeline.py calls it in a
    # thread while Spark starts, so that the run finds it loaded; None when there is nothing to gain
    preload: Callable[[], None] | None = None
