"""What an engine is to the rest of dc-bridge: a name, a translation of each check, a compiled file
per model (where the engine has one), a run of one model, and a reader of the results it produced
outside dc-bridge (where it has such results).

Each engine wires itself in its package's `__init__.py` (`ENGINE = Engine(...)`, and whatever else
the rest of dc-bridge may use of it), and engines/registry.py lists them: the compiler and the
runner only ever ask the registry, and nothing outside an engine's folder imports its modules
(tests/test_imports.py).

A translation returns the engine's form of a check or `Unsupported(reason)`, never nothing: the
reason is what `compile --explain` and a skipped check in the verdict show.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Callable, Mapping

from dc_bridge.engines.results import CheckResult, EngineReport
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
class ExternalResults:
    """What an engine read from results it produced outside dc-bridge (a GX checkpoint, a Soda scan),
    for integrations/fold.py to fold as a run of that engine alone."""
    # model -> check id -> the check's result, for the models the results cover
    found: dict[str, dict[str, CheckResult]]
    # why a model the results do not cover has none (each of its checks is `error`)
    missing: str
    # when the earliest of those runs started (ISO 8601), when the results say
    started_at: str | None


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
    # results the engine produced outside dc-bridge -> their reader over the compiled contract (compiler.Compiled)
    # (`dc_bridge.fold_gx`, `fold_soda`); results of a type the engine cannot read raise TypeError, here or
    # in the reader. None: the engine runs only inside dc-bridge (the native engine)
    read_external: Callable[[Any], Callable[[Any], ExternalResults]] | None = None
    # the distribution whose version a verdict folded from such results records
    library: str | None = None
