"""What an engine run returns: one `CheckResult` per check id, in one `EngineReport` per engine and model.

Both runners fill these the same way, so the fold (verdict.py) never asks which engine it reads:

- `observed` is the check's metric as docs/mapping.md defines it: the number of violating rows,
  or their percent of all rows when the check's unit is percent, or the measured value for
  `row_count` and `sql_metric`, or the age in seconds for `freshness`. None when the engine gave no
  number (column_exists, column_type, custom checks without a count, a scalar SQL check that GX
  only confirms as holding: its query returns the value only on violation, see engines/gx/run.py).
- `outcome` is judged by the check's own `Threshold.holds(observed)`, never by the engine's own
  notion of success, except for checks without a threshold (column_exists, column_type, custom_*),
  where the engine's success decides.
- `error` holds the reason when the engine could not evaluate the check (outcome "error"): the root
  cause in a line or two (`cause_text`), never a Java or Python stack.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from typing import Any, Literal

Engine = Literal["gx", "soda", "spark"]
# `warning`: the engine itself rated the check a warning (Soda's `warn` level of a custom Soda check), which the
# fold keeps as it is; an engine's failure of a check the contract marks warning/info is the fold's to soften
Outcome = Literal["passed", "warning", "failed", "error"]


@dataclass(frozen=True)
class CheckResult:
    check_id: str
    engine: Engine
    outcome: Outcome
    observed: float | None = None
    unexpected_count: int | None = None
    unexpected_percent: float | None = None
    # the engine's expectation type (GX) or SodaCL check line (Soda) that produced this result
    native_name: str | None = None
    # a few failing values, from engines that get them from the pass they count in (the native
    # engine; Soda's widened uniqueness query); never for sensitive fields. The bridge fetches the rest itself.
    samples: list[Any] = field(default_factory=list)
    # uniqueness: how many distinct values (or key combinations) repeat
    duplicated_values: int | None = None
    error: str | None = None

    def __post_init__(self):
        if self.error:
            object.__setattr__(self, "error", cause_text(self.error))


def plain_value(value: Any) -> Any:
    """A value from Spark as JSON shows it: text, numbers and booleans as they are, arrays and structs
    (Rows) as lists, maps as objects, anything else (timestamps, dates, decimals) as text."""
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if isinstance(value, (list, tuple)):
        return [plain_value(item) for item in value]
    if isinstance(value, dict):
        return {str(key): plain_value(item) for key, item in value.items()}
    return str(value)


@dataclass(frozen=True)
class RepeatedKeys:
    """A failed uniqueness check's repeated keys, as an engine found them while counting it (GX's count,
    engines/gx/metrics.py), for the failing-value samples (runner/samples.py), which then run no query."""
    distinct: int | None  # how many distinct values (or key combinations) repeat; None for orphan keys
    examples: list[Any]  # the smallest and largest; none of a sensitive field


@dataclass(frozen=True)
class EngineReport:
    engine: Engine
    model: str
    results: dict[str, CheckResult]
    seconds: float
    # set when the whole run failed (no results can be trusted); per-check problems are in results
    error: str | None = None
    # the model's row count when the engine counted it on its way (the native engine's fused pass, GX's
    # element_count): the run's evidence (empty models, dataQuality SLOs) then asks Spark no count of its own
    rows: int | None = None
    # check id -> the repeated keys the engine found on its way, beside its results (which stay counts)
    repeated_keys: dict[str, RepeatedKeys] = field(default_factory=dict)

    def __post_init__(self):
        if self.error:
            object.__setattr__(self, "error", cause_text(self.error))


# a line of a stack: a Java frame or its "... 12 more", a Python traceback's header or frame
_STACK_LINE = re.compile(r"(at |\.\.\. \d+ more|File \"|Traceback \(most recent call last\))")
# a Java exception's own line: its class, then its message (`Caused by: ` for a cause)
_JAVA_EXCEPTION = re.compile(r"(?:Caused by: )?(?:[a-z_$][\w$]*\.)+([A-Z][\w$]*(?:Exception|Error))(?::\s*(.*))?$")
# Py4J's wrapper, which names an object id and a method, never the problem
_PY4J_CALL = re.compile(r"An error occurred while calling [\w.$]+\.?\s*")
REASON_LIMIT = 400
# what only a stack, a traceback or Py4J's wrapper holds
_HAS_STACK = re.compile(r"^\s*at [\w$.<>]+\(|Traceback \(most recent call last\)|JVM stacktrace:|An error occurred while calling"
                        r"|^(?:Caused by: )?(?:[a-z_$][\w$]*\.)+[A-Z][\w$]*(?:Exception|Error)\b", re.M)


def cause_text(text: str) -> str:
    """An engine's error as a reason a person reads in one go: what the engine was doing (the first line)
    and the root cause (the deepest Java exception with a Spark error class, else the deepest one), without
    stack frames, Python tracebacks or Py4J's "An error occurred while calling o42.collectToPython"."""
    if not _HAS_STACK.search(text):
        return text  # dc-bridge's own reasons and engines' plain messages stay as written
    lines, in_traceback = [], False
    for raw in text.split("JVM stacktrace:", 1)[0].splitlines():
        line = _PY4J_CALL.sub("", raw.strip()).lstrip(": ").strip()
        if raw.startswith("Traceback (most recent call last)"):
            in_traceback = True
            continue
        if in_traceback and raw[:1].isspace():  # a traceback's frames and code lines, up to its exception line
            continue
        in_traceback = False
        if line and not _STACK_LINE.match(line):
            lines.append(line)
    if not lines:
        return text.strip().splitlines()[0][:REASON_LIMIT] if text.strip() else text
    exceptions = [(i, m) for i, m in ((i, _JAVA_EXCEPTION.match(line)) for i, line in enumerate(lines)) if m]
    if not exceptions:
        return " ".join(lines[:2])[:REASON_LIMIT]
    classed = [(i, m) for i, m in exceptions if re.match(r"\[[A-Z_.]+\]", m.group(2) or "")]
    index, root = (classed or exceptions)[-1]
    cause = f"{root.group(1)}: {root.group(2)}" if root.group(2) else root.group(1)
    context = lines[0] if exceptions[0][0] > 0 else None
    return (f"{context.rstrip(' :')}: {cause}" if context else cause)[:REASON_LIMIT]


def age_seconds(value, now: datetime) -> float | None:
    """now - max(column) in seconds; GX serialises the max as an ISO string or gives a datetime."""
    if isinstance(value, str):
        try:
            value = date.fromisoformat(value) if len(value) == 10 else datetime.fromisoformat(value)
        except ValueError:
            return None
    if isinstance(value, date) and not isinstance(value, datetime):
        # a date column: its newest row is as old as the end of that day (Soda reads it the same way)
        value = datetime.combine(value, datetime.max.time())
    if not isinstance(value, datetime):
        return None
    if value.tzinfo is None:
        value = value.astimezone()  # PySpark collects timestamps as naive local time
    aware_now = now if now.tzinfo is not None else now.replace(tzinfo=timezone.utc)
    return (aware_now - value).total_seconds()
