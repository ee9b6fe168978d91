"""What a SQL check reads, confirmed on Spark's analysed plan before any engine runs it.

The allowlist of contract/sql.py decides, on the parse, which tables a query may name. This is a
second look, at what Spark resolved those names to: every leaf of the analysed plan, and of each
subquery in it, must lie inside one of the run's model views, or be data written in the query itself
(VALUES, a SELECT without FROM, a reference to one of its CTEs). A check whose plan reads anything
else does not run: it is `error` with the reason, and reaches no engine.

It costs one analysis (no Spark job, some milliseconds) and a walk over the plan's nodes per query
shape: a query repeated on many fields differs only in the quoted column, which can name a column
and never a table (contract/sql.py refuses a placeholder where a table goes), so each model analyses
it once. A query Spark cannot analyse (a column the model's data does not have, a type mismatch) does
not run either: it is `error` with Spark's message in one line (the column and Spark's "did you mean",
never the logical plan), instead of each engine's failure of the whole query. A column the contract
declares and the data lacks is engines/columns.py's `absent_references` (`failed`), which wins over this.
Where the session has no JVM (Spark Connect) nothing is decided here; the engines report what fails.
"""

from __future__ import annotations

import re
from typing import Iterable, Mapping

from dc_bridge.contract.sql import TABLE_MARKER, quote_identifier
from dc_bridge.plan.checks import Check

# leaves that read nothing: a SELECT without FROM, VALUES, a CTE's reference to its definition
_INLINE = {"OneRowRelation", "LocalRelation", "CTERelationRef"}


def foreign_reads(spark, checks: Iterable[Check], views: Mapping[str, str], unanalysable: bool = False) -> dict[str, str]:
    """check id -> why it may not run, for each check with a query whose analysed plan reads
    anything but the run's views (`views`: model -> its view); with `unanalysable` (a run's), also
    for each check whose query Spark cannot analyse, its error in one line (`analysis_error`)."""
    session = getattr(spark, "_jsparkSession", None)
    if session is None:  # Spark Connect: no plan to look at from here
        return {}
    from pyspark.errors import AnalysisException

    allowed = {view.lower() for view in views.values()}
    found: dict[str, str] = {}
    shapes: dict[tuple[str, str], str | None] = {}  # (model, query with its columns blanked) -> what it reads outside
    refused: dict[tuple[str, str], str] = {}  # (model, query) -> why Spark cannot analyse it: its own words, per query
    for check in checks:
        query, view = getattr(check.params, "query", None), views.get(check.model)
        if not isinstance(query, str) or view is None:
            continue
        shape = query
        for column in check.columns:
            shape = shape.replace(quote_identifier(column), "\0")
        if (check.model, shape) not in shapes and (check.model, query) not in refused:
            try:
                plan = session.sql(query.replace(f"`{TABLE_MARKER}`", view).replace(TABLE_MARKER, view)).queryExecution().analyzed()
                shapes[(check.model, shape)] = _outside(plan, allowed)
            except AnalysisException as exc:  # a name the column blanked may be the one missing: kept per query
                refused[(check.model, query)] = analysis_error(exc)
            except Exception:  # an unexpected plan API: the engines run it and report
                continue
        if (check.model, query) in refused:
            if unanalysable:
                found[check.id] = refused[(check.model, query)]
            continue
        outside = shapes[(check.model, shape)]
        if outside:
            found[check.id] = (f"the SQL reads {outside}, which is not one of the run's model views (found on Spark's "
                               "analysed plan); it was not run")
    return found


def analysis_error(exc) -> str:
    """Spark's analysis error of a check's query in one line: a column the data it reads does not have, with
    Spark's suggestions, else Spark's first line (its error class and message, without the logical plan)."""
    error_class = exc.getErrorClass() or ""
    parameters = exc.getMessageParameters() or {}
    if error_class.startswith("UNRESOLVED_COLUMN"):
        proposal = parameters.get("proposal")
        meant = f" (Spark: did you mean one of {proposal}?)" if proposal else ""
        return f"the query names the column {parameters.get('objectName', '?')}, which the data it reads does not have{meant}; it was not run"
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    first = re.sub(r";?\s*line \d+ pos \d+;?$", "", first).rstrip("; .")
    return f"Spark cannot analyse the query: {first}; it was not run"


def _outside(plan, allowed: set[str]) -> str | None:
    """The first thing the plan reads outside the `allowed` temp views, described; None when there is none."""
    stack = [plan]
    while stack:
        node = stack.pop()
        name = node.nodeName()
        if name == "View":
            identifier = node.desc().identifier()
            if node.isTempView() and identifier.table().lower() in allowed:
                continue  # the model's own data, however it was read
            return f"the view `{identifier.unquotedString()}`"
        below = _items(node.children()) + _items(node.subqueries())
        if not below:
            if name in _INLINE:
                continue
            text = str(node.simpleString(5)).splitlines()[0]
            return f"`{text[:200]}`"
        stack.extend(below)
    return None


def _items(seq) -> list:
    return [seq.apply(i) for i in range(seq.size())]
