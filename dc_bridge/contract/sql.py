"""Quality SQL: placeholder substitution and the read-only rule, shared by lint, the translators and the runners.

A contract's SQL runs with the rights of whoever runs dc-bridge, so it must be exactly one read-only
query. It is parsed (Spark dialect) and refused otherwise; it is never repaired.
"""

from __future__ import annotations

import logging
import re

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError

# what the plan writes where a quality query names its model's table; each engine puts its own
# table reference there (GX `{batch}`, Soda the scan's view name)
TABLE_MARKER = "__dc_bridge_table__"

# every placeholder spelling of both standards: name -> what it stands for
PLACEHOLDERS = {
    "model": "table", "table": "table", "object": "table",
    "field": "column", "column": "column", "property": "column",
}
# sqlglot logs a warning when it falls back to a Command; we report that ourselves
logging.getLogger("sqlglot").setLevel(logging.ERROR)

_PLACEHOLDER = re.compile(r"\$?\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}")

# functions that reach outside the data are refused even inside a SELECT: JVM reflection, file
# and stream readers, HTTP and secrets (Databricks), and the names of the files a table is read from
_FORBIDDEN_FUNCTIONS = {
    "reflect", "java_method", "try_reflect",
    "read_files", "read_kafka", "read_kinesis", "read_pubsub", "read_pulsar", "read_statestore", "cloud_files_state",
    "http_request", "secret", "try_secret", "ai_query",
    "input_file_name", "input_file_block_start", "input_file_block_length",
}
# `parquet.`/path`` and friends: Spark reads the file at that path directly
_FILE_SOURCES = {"parquet", "csv", "json", "orc", "avro", "text", "binaryfile", "delta", "iceberg", "hudi", "xml", "jdbc", "file"}


class SqlProblem(ValueError):
    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


def view_name(contract_id: str, model: str) -> str:
    """The temp view a model's data is registered under: stable (compiled files name it) and
    prefixed and hashed so it cannot collide with a user's own views."""
    import hashlib

    slug = re.sub(r"[^A-Za-z0-9]+", "_", model).strip("_").lower()[:40] or "model"
    digest = hashlib.sha1(f"{contract_id}\0{model}".encode("utf-8")).hexdigest()[:8]
    return f"dcb_{slug}_{digest}"


def quote_identifier(name: str) -> str:
    """A Spark SQL identifier for any column or table name (spaces, dots, backticks, keywords)."""
    return "`" + name.replace("`", "``") + "`"


def sql_literal(value) -> str:
    """A Spark SQL literal for a contract value (enum members, missing values, range bounds)."""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, (int, float)):
        return repr(value)
    return "'" + str(value).replace("\\", "\\\\").replace("'", "\\'") + "'"


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


def check_read_only(query: str) -> exp.Expression:
    """Parse `query` (placeholders already filled) and return it if it is one read-only query."""
    try:
        statements = [s for s in sqlglot.parse(query, read="spark") if s is not None]
    except ParseError as exc:
        first = exc.errors[0]["description"] if exc.errors else str(exc)
        raise SqlProblem("DCB171", f"the SQL does not parse: {first}") from None
    if len(statements) != 1:
        raise SqlProblem("DCB170", f"the SQL holds {len(statements)} statements; exactly one SELECT is allowed")
    statement = statements[0]
    if not isinstance(statement, exp.Query):
        kind = type(statement).__name__.upper()
        raise SqlProblem("DCB170", f"the SQL is a `{kind}` statement, not a SELECT")
    for node in statement.walk():
        if isinstance(node, (exp.DDL, exp.DML, exp.Command, exp.Set)) and not isinstance(node, exp.Query):
            raise SqlProblem("DCB170", f"the SQL contains a `{type(node).__name__.upper()}` statement")
        if isinstance(node, exp.Into):  # SELECT ... INTO t is CREATE TABLE t AS SELECT in Spark's SQL
            raise SqlProblem("DCB170", "the SQL writes its result into a table (SELECT ... INTO)")
        if isinstance(node, exp.QueryTransform):  # SELECT TRANSFORM(...) USING 'script' runs a program
            raise SqlProblem("DCB170", "the SQL runs a script (SELECT TRANSFORM ... USING)")
        name = _function_name(node)
        if name in _FORBIDDEN_FUNCTIONS:
            raise SqlProblem("DCB170", f"the SQL calls {name}(), which reaches outside the data")
        if isinstance(node, exp.Table) and isinstance(node.args.get("db"), exp.Identifier) \
                and node.args["db"].name.lower() in _FILE_SOURCES:
            raise SqlProblem("DCB170", f"the SQL reads files directly ({node.args['db'].name}.`{node.name}`)")
    return statement


def _function_name(node: exp.Expression) -> str | None:
    """The lower-case name a function call is looked up by, however it is written (`REFLECT`, `` `reflect` ``)."""
    if isinstance(node, exp.Anonymous):
        return node.name.lower()
    if isinstance(node, exp.Func):
        return node.sql_name().lower()
    return None


def epoch_seconds(expression: str) -> str:
    """Seconds since the epoch of a timestamp, date or ISO string column (a plain cast to DOUBLE is null for dates)."""
    return f"CAST(CAST({expression} AS TIMESTAMP) AS DOUBLE)"
