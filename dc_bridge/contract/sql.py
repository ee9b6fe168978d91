"""Quality SQL: placeholder substitution and the read-only rule, shared by lint, the translators and the runners.

A contract's SQL runs with the rights of whoever runs dc-bridge, so it must be exactly one read-only
query over the run's own data. It is parsed (Spark dialect) and refused otherwise; it is never repaired.
What it may use is an allowlist, not a list of things to refuse:

- tables: its own model (by name, physical name or placeholder; the plan writes TABLE_MARKER there),
  the other models of the contract (the plan writes their run views there), and the CTEs the query
  defines itself (whose bodies are held to the same rule). Nothing else: no other table or view of
  the session, no file read by path under any format name, no table-valued function, no `IDENTIFIER()`;
- functions: Spark's built-in functions (contract/spark_functions.py), less those that reach outside
  the data (`_OUTSIDE`). A user's or a catalog's function (`my_udf(x)`, `db.f(x)`) is refused;
- text: no `${`, which Spark replaces with a configuration value, environment variable or system
  property before it parses the query.

A `--where` filter is held to the same rules as one expression (`filter_expression`).
"""

from __future__ import annotations

import functools
import hashlib
import logging
import math
import re
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from typing import Iterable, Iterator, Mapping

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, SqlglotError

from dc_bridge.contract.spark_functions import SPARK_FUNCTIONS

# what the plan writes where a quality query names its model's table; each engine puts its own
# table reference there (GX `{batch}`, Soda the scan's view name)
TABLE_MARKER = "__dc_bridge_table__"
# what a `{field}` placeholder stands for while a query is checked and rewritten (plan/build.py
# puts the field's quoted name there afterwards); lint and the plan use the same text, so one parse serves both
FIELD_STAND_IN = "__dc_bridge_field__"

# every placeholder spelling of both standards: name -> what it stands for
PLACEHOLDERS = {
    "model": "table", "table": "table", "object": "table",
    "field": "column", "column": "column", "property": "column",
}
# sqlglot logs a warning when it falls back to a Command; we report that ourselves
logging.getLogger("sqlglot").setLevel(logging.ERROR)

_PLACEHOLDER = re.compile(r"\$?\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}")

# built-in functions that reach outside the data: name -> what they do (the message says it)
_OUTSIDE = {
    **dict.fromkeys(("reflect", "java_method", "try_reflect"), "calls Java methods in the JVM"),
    **dict.fromkeys(("read_files", "read_kafka", "read_kinesis", "read_pubsub", "read_pulsar", "read_statestore",
                     "cloud_files_state", "range", "sql_keywords"), "is a table function, not a model's data"),
    **dict.fromkeys(("http_request", "secret", "try_secret", "ai_query"), "reaches services outside Spark"),
    **dict.fromkeys(("input_file_name", "input_file_block_start", "input_file_block_length"), "names the files the data is read from"),
    **dict.fromkeys(("current_user", "user", "session_user", "current_catalog", "current_database", "current_schema",
                     "version"), "reads the session, not the data"),
    # Spark's XPath parser loads a document's external DTD (a file or a URL)
    **dict.fromkeys(("xpath", "xpath_boolean", "xpath_double", "xpath_float", "xpath_int", "xpath_long", "xpath_number",
                     "xpath_short", "xpath_string"), "parses XML, which can load files and URLs"),
}
# SQL syntax that sqlglot writes as a call but Spark's registry does not list
_SYNTAX = {"try_cast", "cast", "extract"}
FUNCTIONS = frozenset((SPARK_FUNCTIONS | _SYNTAX) - set(_OUTSIDE))

# the format names Spark reads a path under (`parquet.`/p``): only for a clearer message, every
# qualified name that is not a model is refused anyway
_FILE_SOURCES = {"parquet", "csv", "json", "orc", "avro", "text", "binaryfile", "delta", "iceberg", "hudi", "xml", "jdbc",
                 "file", "image", "libsvm", "noop", "console", "rate", "socket", "kafka"}
_CALL = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*\(")
# Soda's own scan variable (runner: engines/soda/run.py); Soda fills it in before Spark sees the text
_SODA_VARIABLES = re.compile(r"\$\{\s*NOW\s*\}")
_BRACES = re.compile(r"(?<!\$)\{[^{}]*\}")

# sqlglot recurses per nesting level: SQL nested a few hundred levels deep is refused, never a crash
TOO_DEEP = ("the SQL nests too deeply to parse (parentheses, subqueries or CASE inside one another); "
            "write it with fewer levels, e.g. with a WITH clause")


class SqlProblem(ValueError):
    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


@functools.lru_cache(maxsize=65536)
def view_name(contract_id: str, model: str) -> str:
    """The temp view a model's data is registered under: stable (compiled files name it) and
    prefixed and hashed so it cannot collide with a user's own views."""
    slug = re.sub(r"[^A-Za-z0-9]+", "_", model).strip("_").lower()[:40] or "model"
    digest = hashlib.sha1(f"{contract_id}\0{model}".encode("utf-8")).hexdigest()[:8]
    return f"dcb_{slug}_{digest}"


def quote_identifier(name: str) -> str:
    """A Spark SQL identifier for any column or table name (spaces, dots, backticks, keywords)."""
    return "`" + name.replace("`", "``") + "`"


def sql_literal(value) -> str:
    """A Spark SQL literal for a contract value (enum members, missing values, range bounds, patterns):
    the value the contract wrote, read by nothing on its way to Spark. Numbers are exact
    (`exact_number`); NaN and the infinities are the doubles they name. Text is quoted and escaped,
    and every `{` is written `\\u007B`, which Spark's literal reads back as `{`: so no `${`
    reaches Spark's variable substitution (it fills in `${env:HOME}` before parsing), Soda's Jinja
    (`${...}`, `{% %}`, `{# #}` in every query it runs) or GX's `str.format` of a query (`{batch}`)."""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float) and not math.isfinite(value):
        return f"CAST('{'NaN' if math.isnan(value) else 'Infinity' if value > 0 else '-Infinity'}' AS DOUBLE)"
    if isinstance(value, (int, float)):
        return exact_number(value)
    if isinstance(value, (date, datetime)):  # YAML reads an unquoted date or timestamp as one: a typed literal, never text
        return f"{'TIMESTAMP' if isinstance(value, datetime) else 'DATE'} '{_iso(value)}'"
    text = str(value).replace("\\", "\\\\").replace("'", "\\'").replace("{", "\\u007B")
    return "'" + text + "'"


def _iso(value) -> str:
    """ISO text Spark reads for every year from 1 to 9999 (`isoformat` pads the year; `str` does too)."""
    return value.isoformat(sep=" ") if isinstance(value, datetime) else value.isoformat()


def number_text(value) -> str:
    """A number as exact SQL / SodaCL text without an exponent: `5`, `0.5`, `31536000.0`, `0.00001`
    (`:g` alone keeps 6 digits, and SodaCL takes no `1e-05`)."""
    if isinstance(value, float):
        text = f"{value:g}"
        return text if "e" not in text and float(text) == value else format(Decimal(repr(value)), "f")
    return str(value)


# Spark's widest exact number: a decimal literal of more digits is refused
_MAX_DIGITS = 38


def exact_number(value) -> str:
    """A contract number as a Spark SQL literal with the value the contract wrote: an integer as
    written (beyond a bigint Spark reads it as decimal(38,0)), a float as the decimal its shortest text
    names (`0.1` is decimal(1,1): exact against a decimal or integer column, and the same double
    against a double column). A number whose decimal needs more than Spark's 38 digits (`1e-300`,
    an integer of 39 digits) stays a double literal."""
    text = number_text(value)
    digits = Decimal(text).as_tuple()
    scale = max(0, -digits.exponent)
    whole = max(0, len(digits.digits) + digits.exponent)
    return text if whole + scale <= _MAX_DIGITS else f"CAST('{value!r}' AS DOUBLE)"


def unknown_placeholders(query: str) -> list[str]:
    return [m.group(0) for m in _PLACEHOLDER.finditer(query) if m.group(1).lower() not in PLACEHOLDERS]


def substitute(query: str, *, table: str, column: str | None) -> str:
    """Fill placeholders with quoted identifiers. Raises SqlProblem for unknown or unusable ones."""
    def fill(match: re.Match) -> str:
        role = PLACEHOLDERS.get(match.group(1).lower())
        if role is None:
            raise SqlProblem("DCB172", f"unknown placeholder {match.group(0)}")
        if role == "column":
            if column is None:
                raise SqlProblem("DCB172", f"{match.group(0)} is used in a model-level rule, which has no field")
            return quote_identifier(column)
        return quote_identifier(table)

    return _PLACEHOLDER.sub(fill, query)


def custom_placeholders(text: str) -> str:
    """SQL of a custom engine check as it is checked: GX's `{batch}` (any `{...}`) and Soda's `${NOW}`
    are the model's table. Any other `${...}` stays, and is refused: Spark would fill it in."""
    return _BRACES.sub(TABLE_MARKER, _SODA_VARIABLES.sub(TABLE_MARKER, text))


# ---------------------------------------------------------------------------------------------
# which tables a contract's SQL may name


def model_tables(contract, model) -> tuple[tuple[str, str], ...]:
    """(lower-case table name, what the plan writes for it) for every table a quality query on
    `model` may read: the model itself by name or physical name -> TABLE_MARKER; each other model of
    the contract by name, physical name or run view -> its run view (`view_name`), registered for
    every model of a run. The model's own names win over another model's."""
    names = dict(_contract_tables(contract.id, tuple((m.name, m.physical_name) for m in contract.models)))
    for name in (model.name, model.physical_name, view_name(contract.id, model.name)):
        if name:
            names[name.lower()] = TABLE_MARKER
    return _Tables(names.items())


class _Tables(tuple):
    """`model_tables`' answer, hashed once: lint and the plan key a cache of each quality rule's check by it, and a
    tuple hashes every item anew each time (600 names in a 200-model contract, 2,000 rules: a tenth of a second)."""

    def __hash__(self) -> int:
        if "hash" not in self.__dict__:
            self.__dict__["hash"] = tuple.__hash__(self)
        return self.__dict__["hash"]


@functools.lru_cache(maxsize=64)
def _contract_tables(contract_id: str, models: tuple[tuple[str, str | None], ...]) -> tuple[tuple[str, str], ...]:
    """Every model's names -> its run view; computed once per contract, not once per model."""
    names: dict[str, str] = {}
    for name, physical_name in models:
        view = view_name(contract_id, name)
        for written in (name, physical_name, view):
            if written:
                names.setdefault(written.lower(), view)
    return tuple(names.items())


def view_tables(contract) -> frozenset[str]:
    """What a custom engine check's SQL may read: it runs verbatim, so only names that are the run's
    own views when it runs (the `{batch}` placeholder, and each model's `view_name`)."""
    return frozenset(view_name(contract.id, m.name) for m in contract.models)


def allowed_tables_text(contract, model) -> str:
    """What a quality query on `model` may read, for a message."""
    others = [f"`{m.name}`" for m in contract.models if m.name != model.name]
    text = f"its model `{model.name}` (or {{model}})"
    if others:
        text += " and the contract's other models, " + ", ".join(others[:6]) + (", ..." if len(others) > 6 else "")
    return text + ", by name or physical name"


def readable(tables: Iterable[str]) -> str:
    """The allowed table names, for a message (the marker is the `{model}` placeholder)."""
    names = sorted(set(tables) - {TABLE_MARKER})
    shown = ", ".join(names[:6]) + (", ..." if len(names) > 6 else "")
    return f"the {{model}} placeholder or {shown}" if shown else "the {model} placeholder"


# ---------------------------------------------------------------------------------------------
# the rule


def check_read_only(query: str, tables: Iterable[str] = (), *, allowed: str | None = None) -> exp.Query:
    """Parse `query` (placeholders already filled) and return it if it is one read-only query that
    reads only TABLE_MARKER and `tables` (lower-case names) and calls only allowed functions.

    The returned tree is shared by every caller of the same text (the parse is cached): copy it before changing it.
    `allowed` describes `tables` in the message when the query reads something else."""
    analysis = _analyse(query, False)
    _raise_problem(analysis, tables, allowed)
    return analysis.tree


def check_expression(text: str, tables: Iterable[str] = (), *, allowed: str | None = None, subqueries: bool = True) -> exp.Expression:
    """`text` as one SQL expression (a filter, a condition, a metric expression), held to the rules
    of `check_read_only`; with `subqueries=False`, a subquery of any kind is refused too."""
    analysis = _analyse(text, True)
    _raise_problem(analysis, tables, allowed)
    if not subqueries and any(isinstance(node, exp.Query) for node in analysis.tree.walk()):
        raise SqlProblem("DCB170", "it contains a subquery; a filter is one expression over the model's own columns")
    return analysis.tree


def retarget(query: str, targets: Mapping[str, str]) -> str:
    """A query `check_read_only` passed, in Spark SQL with each table it reads (not a CTE of its own) replaced
    by its target name (`model_tables`): TABLE_MARKER for the model, a run view for another model."""
    reads = {name for name, _, _ in _analyse(query, False).reads}
    # written once per query and targets of the tables it reads: a contract repeats one query on every model, and
    # the models' `targets` differ in names the query does not read (a model's own names are TABLE_MARKER)
    return _retargeted(query, tuple(sorted((name, targets[name]) for name in reads if name in targets)))


@functools.lru_cache(maxsize=4096)
def _retargeted(query: str, targets: tuple[tuple[str, str], ...]) -> str:
    copy, lookup = _analyse(query, False).tree.copy(), dict(targets)
    for table, name in list(_tables(copy)):
        target = lookup.get(name)
        if target is not None:
            args = {k: v for k, v in table.args.items() if k not in ("this", "db", "catalog")}
            table.replace(exp.Table(this=exp.to_identifier(target), **args))
    return copy.sql(dialect="spark")


def filter_expression(where: str) -> tuple[str, frozenset[str]]:
    """A `--where` filter: (the expression as Spark is given it, the top-level columns it names).

    One boolean expression over a model's columns, held to the rules of quality SQL, with no subquery at all.
    Raises ValueError with a message naming --where, what is wrong and how to fix it."""
    example = "e.g. --where \"order_timestamp >= '2024-01-01'\""
    if not where.strip():
        raise ValueError(f"--where is empty; give one boolean expression over the models' columns, {example}")
    try:
        tree = check_expression(where, (), subqueries=False)
    except SqlProblem as problem:
        what = str(problem).replace("the SQL ", "it ", 1)
        raise ValueError(f"--where {where!r} is refused: {what}. Give one boolean expression over the models' "
                         f"columns, with Spark's built-in functions and no subquery, {example}") from None
    if isinstance(tree, (exp.Star, exp.Alias)):
        raise ValueError(f"--where {where!r} is not a condition; {example}")
    bound = {i.name.lower() for lam in tree.find_all(exp.Lambda) for i in lam.expressions if isinstance(i, exp.Identifier)}
    columns = set()
    for column in tree.find_all(exp.Column):
        parts = column.parts
        if parts and parts[0].name and parts[0].name.lower() not in bound:
            columns.add(parts[0].name)
    return tree.sql(dialect="spark"), frozenset(columns)


def _raise_problem(analysis: "_Analysis", tables: Iterable[str], allowed: str | None) -> None:
    if analysis.problem is not None:
        raise SqlProblem(*analysis.problem)
    permitted = None
    for name, shown, file_like in analysis.reads:
        if name == TABLE_MARKER:
            continue
        if permitted is None:
            permitted = set(tables)
        if name in permitted:
            continue
        if file_like:
            raise SqlProblem("DCB170", f"the SQL reads files directly ({shown})")
        raise SqlProblem("DCB170", f"the SQL reads `{shown}`, which is not a table it may read; it may read "
                                   f"{allowed or readable(permitted)}")


@dataclass(frozen=True)
class _Analysis:
    tree: exp.Expression | None
    problem: tuple[str, str] | None  # (code, message)
    # every table the text reads (CTE references left out): (lower-case dotted name, as shown, a path under a format?)
    reads: tuple[tuple[str, str, bool], ...] = ()


@functools.lru_cache(maxsize=4096)
def _analyse(text: str, expression: bool) -> _Analysis:
    """Parse and judge `text` once (contracts repeat a query on many fields and models); which of the
    tables it reads are allowed is the caller's question."""
    try:
        if expression:
            statements = [sqlglot.parse_one(text, read="spark", into=exp.Condition)]
        else:
            statements = [s for s in sqlglot.parse(text, read="spark") if s is not None]
    except ParseError as exc:
        return _Analysis(None, ("DCB171", f"the SQL does not parse: {_parse_error(exc)}"))
    except RecursionError:
        return _Analysis(None, ("DCB171", TOO_DEEP))
    except SqlglotError as exc:  # a string or comment that does not end, a character no token starts with
        return _Analysis(None, ("DCB171", f"the SQL does not parse: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"))
    if len(statements) != 1:
        return _Analysis(None, ("DCB170", f"the SQL holds {len(statements)} statements; exactly one SELECT is allowed"))
    tree = statements[0]
    if not expression and not isinstance(tree, exp.Query):
        return _Analysis(None, ("DCB170", f"the SQL is a `{type(tree).__name__.upper()}` statement, not a SELECT"))
    try:
        reads = tuple(_judge(tree))
        written = tree.sql(dialect="spark")
    except SqlProblem as problem:
        return _Analysis(None, (problem.code, str(problem)))
    except RecursionError:
        return _Analysis(None, ("DCB171", TOO_DEEP))
    except Exception as exc:  # sqlglot cannot write it back (a node it parsed but cannot generate)
        return _Analysis(None, ("DCB171", f"the SQL cannot be read as Spark SQL: {type(exc).__name__} {exc}"))
    if "${" in text or "${" in written:
        return _Analysis(None, ("DCB170", "the SQL contains `${`, which Spark replaces with a configuration value, "
                                          "an environment variable or a system property before it runs the query"))
    return _Analysis(tree, None, reads)


def _parse_error(exc: ParseError) -> str:
    if not exc.errors:
        return str(exc).splitlines()[0]
    first = exc.errors[0]
    description = str(first.get("description") or "").splitlines()[0]
    if description.startswith("Failed to parse") or not description:
        description = "not one expression"
    elif description.startswith("Required keyword"):  # sqlglot's "Required keyword: 'expression' missing for <class ...EQ>"
        description = "an operand is missing"
    if first.get("highlight") and first.get("into_expression") is not None:
        return f"{description} at `{first['highlight']}` (column {first.get('col')})"
    return description


def _judge(tree: exp.Expression) -> Iterator[tuple[str, str, bool]]:
    """Raise SqlProblem for anything that is not read-only or reaches outside the data; yield each table read."""
    for node in tree.walk():
        if isinstance(node, (exp.DDL, exp.DML, exp.Command, exp.Set)) and not isinstance(node, exp.Query):
            raise SqlProblem("DCB170", f"the SQL contains a `{type(node).__name__.upper()}` statement")
        if isinstance(node, exp.Into):  # SELECT ... INTO t is CREATE TABLE t AS SELECT in Spark's SQL
            raise SqlProblem("DCB170", "the SQL writes its result into a table (SELECT ... INTO)")
        if isinstance(node, exp.QueryTransform):  # SELECT TRANSFORM(...) USING 'script' runs a program
            raise SqlProblem("DCB170", "the SQL runs a script (SELECT TRANSFORM ... USING)")
        if isinstance(node, exp.Hint):
            _judge_hint(node)
        elif isinstance(node, exp.Func) and not _in_hint(node):
            _judge_function(node)
    for table, name in _tables(tree):
        shown = ".".join(quote_identifier(p.name) if p.args.get("quoted") or not re.fullmatch(r"\w+", p.name) else p.name
                         for p in table.parts)
        parts = [p.name for p in table.parts]
        file_like = len(parts) > 1 and (parts[0].lower() in _FILE_SOURCES or bool(re.search(r"[/\\:]", parts[-1])))
        yield name, shown, file_like


def _judge_function(node: exp.Func) -> None:
    parent = node.parent
    if isinstance(parent, exp.Dot) and parent.expression is node:
        raise SqlProblem("DCB170", f"the SQL calls {parent.sql(dialect='spark').split('(')[0]}(), a function of a catalog or "
                                   "database; only Spark's built-in functions may be called")
    name = _called(node)
    if name is None:
        return
    if name in _OUTSIDE:
        raise SqlProblem("DCB170", f"the SQL calls {name}(), which reaches outside the data: it {_OUTSIDE[name]}")
    if name == "identifier":
        raise SqlProblem("DCB170", "the SQL uses IDENTIFIER(...), which Spark turns into a table or function name only when "
                                   "it runs; write the name itself")
    if name not in FUNCTIONS:
        raise SqlProblem("DCB170", f"the SQL calls {name}(), which is not a built-in function of Spark SQL; "
                                   "only built-in functions may be called (a user's or a catalog's function can do anything)")


def _called(node: exp.Func) -> str | None:
    """The lower-case name Spark looks the call up by, as sqlglot writes it for Spark (`REFLECT`,
    `` `reflect` ``, `approx_distinct` -> approx_count_distinct); None for syntax that is no call."""
    if isinstance(node, exp.Anonymous):
        return node.name.lower()
    match = _CALL.match(node.sql(dialect="spark"))
    return match.group(1).lower() if match else None


def _in_hint(node: exp.Expression) -> bool:
    return node.find_ancestor(exp.Hint) is not None


def _judge_hint(hint: exp.Hint) -> None:
    """A hint (`/*+ BROADCAST(t) */`) names relations and columns; anything else in one is refused."""
    for entry in hint.expressions:
        for node in entry.iter_expressions():
            if not all(isinstance(n, (exp.Table, exp.Column, exp.Identifier, exp.Literal, exp.Var)) for n in node.walk()):
                raise SqlProblem("DCB170", f"the SQL has a hint with more than names in it ({entry.sql(dialect='spark')})")


def _tables(tree: exp.Expression) -> Iterator[tuple[exp.Table, str]]:
    """Each table the tree reads, with its lower-case dotted name: CTE references (in the scope of
    their WITH) and the relations a hint names are left out; a table function is refused."""
    stack: list[tuple[exp.Expression, frozenset[str]]] = [(tree, frozenset())]
    while stack:
        node, visible = stack.pop()
        if isinstance(node, exp.Hint):
            continue
        with_ = node.args.get("with_") or node.args.get("with")
        if not isinstance(with_, exp.With):
            with_ = None
        children = [child for child in node.iter_expressions() if child is not with_]
        if with_ is not None:
            names = set(visible)
            ctes = [cte for cte in with_.expressions if isinstance(cte, exp.CTE)]
            if with_.args.get("recursive"):
                names |= {cte.alias_or_name.lower() for cte in ctes}
            bodies = []
            for cte in ctes:  # a CTE's body sees the CTEs before it (and the enclosing ones), never itself
                bodies.append((cte.this, frozenset(names)))
                names.add(cte.alias_or_name.lower())
            visible = frozenset(names)
            stack.extend(reversed(bodies))
        if isinstance(node, exp.Table):
            name = _table_name(node)
            if not (len(node.parts) == 1 and name in visible):
                yield node, name
        stack.extend((child, visible) for child in reversed(children))


def _table_name(table: exp.Table) -> str:
    if not isinstance(table.this, (exp.Identifier, exp.Dot)):
        if isinstance(table.this, exp.Func):
            called = _called(table.this) or type(table.this).__name__.lower()
            if called == "identifier":
                raise SqlProblem("DCB170", "the SQL names its table with IDENTIFIER(...), which Spark resolves when it runs; "
                                           "write the model's name or {model}")
            raise SqlProblem("DCB170", f"the SQL reads from the table function {called}(), not from a model")
        raise SqlProblem("DCB170", f"the SQL reads from `{table.sql(dialect='spark')}`, which is not a table name")
    parts = table.parts
    if not all(isinstance(p, exp.Identifier) for p in parts):
        raise SqlProblem("DCB170", f"the SQL reads from `{table.sql(dialect='spark')}`, which is not a table name")
    return ".".join(p.name for p in parts).lower()


def epoch_seconds(expression: str) -> str:
    """Seconds since the epoch of a timestamp, date or ISO string column (a plain cast to DOUBLE is null for dates)."""
    return f"CAST(CAST({expression} AS TIMESTAMP) AS DOUBLE)"


def query_columns(query: str) -> set[str]:
    """The column names a (planned, read-only) query names, as sqlglot reads them; none when it cannot."""
    try:
        return {column.name for column in sqlglot.parse_one(query, read="spark").find_all(exp.Column)}
    except Exception:  # the plan checked the query already; one sqlglot cannot read again names nothing here
        return set()


# ---------------------------------------------------------------------------------------------
# a query that only counts its model's rows

# what the condition of such a query may hold: columns and literals compared under boolean logic. Nothing
# that can raise while rows are read (a cast, arithmetic, a function, a pattern) or read other rows (a
# subquery): the native engine counts it inside its one aggregation, where one row's error would fail
# every check of the model, not this one alone
_COUNTABLE = (exp.Column, exp.Identifier, exp.Literal, exp.Boolean, exp.Null, exp.Paren, exp.And, exp.Or, exp.Not,
              exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.Is, exp.In, exp.Between, exp.Neg)


def _one_value_of_model(query: str, clauses: tuple[str, ...]):
    """`query` parsed, when it is a SELECT of one value from its model's table alone (TABLE_MARKER, unqualified and
    without alias) with no clause beyond `clauses` (no join, grouping, limit, ...); else None."""
    tree = _analyse(query, False).tree
    if not isinstance(tree, exp.Select) or len(tree.expressions) != 1:
        return None
    source = tree.args.get("from_") or tree.args.get("from")
    if source is None or any(value for key, value in tree.args.items() if key not in ("expressions", "from_", "from", *clauses)):
        return None
    table = source.this
    if not (isinstance(table, exp.Table) and table.name == TABLE_MARKER and len(table.parts) == 1 and not table.alias):
        return None
    return tree


@dataclass(frozen=True)
class CountQuery:
    """A quality query that is `SELECT COUNT(*) FROM <its model> [WHERE condition]`: its value is the model's
    rows, or the rows meeting `condition` (Spark SQL over the model's own columns). Not plan/checks.py's
    `RowCount`, the params of a row count check."""
    condition: str | None


@functools.lru_cache(maxsize=4096)
def count_query(query: str) -> CountQuery | None:
    """`query` (placeholders filled, its model's table TABLE_MARKER) as a CountQuery, or None when it is any
    other query: more than the one count, another table, a join, a grouping, a limit, a condition beyond
    `_COUNTABLE`, a column qualified by a table name."""
    tree = _one_value_of_model(query, ("where",))
    if tree is None:
        return None
    count = tree.expressions[0].unalias()
    if not isinstance(count, exp.Count) or count.expressions or not (
            isinstance(count.this, exp.Star) or (isinstance(count.this, exp.Literal) and not count.this.is_string)):
        return None
    where = tree.args.get("where")
    if where is None:
        return CountQuery(None)
    nodes = list(where.this.walk())
    if not all(isinstance(node, _COUNTABLE) for node in nodes) or any(node.table for node in nodes if isinstance(node, exp.Column)):
        return None
    return CountQuery(where.this.sql(dialect="spark"))


# ---------------------------------------------------------------------------------------------
# a query that aggregates its model's rows into one number

# the aggregates such a query may take, each of one plain column (`COUNT` of `*` too), and what may surround
# them: numbers and arithmetic, which without ANSI mode never raise (a division by zero is NULL). Nothing that
# can raise on a row, read other rows or differ between two runs (DISTINCT, FILTER, a function, a cast, `rand`)
_AGGREGATES = (exp.Count, exp.Sum, exp.Avg, exp.Min, exp.Max, exp.Stddev, exp.StddevPop, exp.StddevSamp, exp.Variance,
               exp.VariancePop, exp.ApproxQuantile)
_AROUND_AGGREGATES = (exp.Literal, exp.Paren, exp.Add, exp.Sub, exp.Mul, exp.Div, exp.Neg)


@functools.lru_cache(maxsize=4096)
def aggregate_query(query: str) -> str | None:
    """`query` (placeholders filled, its model's table TABLE_MARKER) as its one aggregate expression in Spark SQL,
    when it is `SELECT <aggregate> FROM <its model>`: an aggregate of `_AGGREGATES` over one unqualified column
    (a percentile at a number), or numbers and arithmetic over such aggregates. None for any other query (a
    `count_query` included, which counts without an expression): the native engine computes its value inside its
    one aggregation, where one row's error would fail every check of the model, not this one alone."""
    tree = _one_value_of_model(query, ())
    if tree is None or count_query(query):
        return None
    value = tree.expressions[0].unalias()
    return value.sql(dialect="spark") if not isinstance(value, exp.Literal) and _aggregated(value) else None


def _aggregated(node) -> bool:
    """Whether `node` is an allowed aggregate, or numbers and arithmetic over them with at least one aggregate."""
    if isinstance(node, _AGGREGATES):
        return _aggregate_arguments(node)
    if isinstance(node, exp.Literal):
        return not node.is_string
    if not isinstance(node, _AROUND_AGGREGATES):
        return False
    children = [child for child in node.iter_expressions()]
    return all(_aggregated(child) or (isinstance(child, exp.Literal) and not child.is_string) for child in children) \
        and any(not isinstance(child, exp.Literal) for child in children)


def _aggregate_arguments(node) -> bool:
    """An aggregate's arguments: one unqualified column (or `*`, counted), and a percentile's numbers."""
    arguments = {key: value for key, value in node.args.items() if value not in (None, []) and key != "big_int"}
    column = arguments.pop("this", None)
    plain = isinstance(column, exp.Column) and not column.table and isinstance(column.this, exp.Identifier)
    if isinstance(node, exp.Count) and isinstance(column, exp.Star) and not column.args.get("except") and not arguments:
        return True
    if isinstance(node, exp.ApproxQuantile):
        numbers = [arguments.pop(key, None) for key in ("quantile", "accuracy")]
        if numbers[0] is None or any(n is not None and not (isinstance(n, exp.Literal) and not n.is_string) for n in numbers):
            return False
    return plain and not arguments
