"""CheckPlan -> one GX 1.x ExpectationSuite (as JSON) per model.

`TRANSLATIONS` maps each params class to a function returning expectation dicts (`type`, `kwargs`).
Every expectation carries the check id, kind and source in `meta`, so results join by id, never by
position. Checks GX cannot express on Spark natively (SQL metrics, foreign keys, latency,
retention) become `unexpected_rows_expectation` queries that return rows only on violation.
"""

from __future__ import annotations

import math
import re
from typing import Callable

from dc_bridge.plan import checks as c
from dc_bridge.plan.checks import Check
from dc_bridge.engines.columns import gx_listed_name
from dc_bridge.engines.compiled_text import indented_json
from dc_bridge.engines.engine import Unsupported, from_history, not_executable, unsupported
from dc_bridge.contract.lint.gx_catalog import gx_name
from dc_bridge.contract.model import Threshold
from dc_bridge.contract.thresholds import Syntax
from dc_bridge.contract.sql import TABLE_MARKER, SqlProblem, check_read_only, epoch_seconds, quote_identifier, retarget, view_name
from dc_bridge.engines.queries import (DOUBLE_EXACT, NUMERIC_TYPEOF, foreign_key_query, missing, not_in_set, number_text, outside_range,
                                      plain_literals, threshold_holds_sql)
from dc_bridge.engines.nested_types import needs_query, nested_type_query

# GX 1.x expectation severity names
SEVERITY = {"error": "critical", "warning": "warning", "info": "info"}
# Spark simpleString -> pyspark class name, GX's spelling of a type (not derived from pyspark: compile would import it)
GX_SPARK_TYPES = {
    "string": "StringType", "varchar": "StringType", "char": "StringType", "int": "IntegerType", "bigint": "LongType",
    "smallint": "ShortType", "tinyint": "ByteType", "float": "FloatType", "double": "DoubleType",
    "decimal": "DecimalType", "boolean": "BooleanType", "timestamp": "TimestampType", "timestamp_ntz": "TimestampNTZType",
    "date": "DateType", "binary": "BinaryType", "array": "ArrayType", "map": "MapType", "struct": "StructType",
}
BATCH = "{batch}"
# a threshold as a Spark SQL condition on its subject (the one SQL form of Threshold.holds); numbers as
# `str` writes them (`5.0`, `1e-05`), which Spark SQL reads as they are
SQL = Syntax(compare="{subject} {op} {value}", between="({subject} {low_op} {low} AND {subject} {high_op} {high})",
             not_between="NOT {between}", operators={"!=": "<>"})


def cutoff_parameter(check: Check) -> str:
    """Name of the run-time suite parameter holding a check's cut-off from the run's clock (the oldest
    allowed max(timestamp) of a freshness check, the oldest row a retention check keeps)."""
    return f"{check.kind}_cutoff__" + "".join(ch if ch.isalnum() else "_" for ch in check.id)


def _col(check: Check) -> str:
    return quote_identifier(check.column) if check.column else ""


def _mostly(check: Check) -> dict:
    """A percent threshold on bad rows as GX `mostly` (GX divides by non-null rows for column maps)."""
    t = check.threshold
    if check.unit == "percent" and t is not None and t.operator in ("<=", "<") and isinstance(t.value, (int, float)):
        return {"mostly": round(1 - t.value / 100, 10)}
    return {}


def _not_null(check: Check, p: c.NotNull, contract_id: str) -> list[dict]:
    if p.missing_values:
        return [_violating(check, missing(_col(check), p.missing_values))]
    return [{"type": "expect_column_values_to_not_be_null", "kwargs": {"column": check.column, **_mostly(check)}}]


def _unique(check: Check, p: c.Unique, contract_id: str) -> list[dict]:
    if len(check.columns) == 1:
        return [{"type": "expect_column_values_to_be_unique", "kwargs": {"column": check.column, **_mostly(check)}}]
    return [{"type": "expect_compound_columns_to_be_unique",
             "kwargs": {"column_list": list(check.columns), "ignore_row_if": "any_value_is_missing", **_mostly(check)}}]


def _regex(check: Check, p: c.Regex, contract_id: str) -> list[dict]:
    return [{"type": "expect_column_values_to_match_regex", "kwargs": {"column": check.column, "regex": p.pattern, **_mostly(check)}}]


def _in_set(check: Check, p: c.InSet, contract_id: str) -> list[dict]:
    if not plain_literals(p.values):  # GX hands the values to PySpark's `isin`: exact literals of the bridge's instead
        return [_violating(check, not_in_set(_col(check), p.values))]
    return [{"type": "expect_column_values_to_be_in_set", "kwargs": {"column": check.column, "value_set": list(p.values), **_mostly(check)}}]


def _length(check: Check, p: c.LengthBetween, contract_id: str) -> list[dict]:
    return [{"type": "expect_column_value_lengths_to_be_between",
             "kwargs": {"column": check.column, "min_value": p.min_length, "max_value": p.max_length, **_mostly(check)}}]


def _between(check: Check, p: c.ValueBetween, contract_id: str) -> list[dict]:
    if any(isinstance(v, float) or isinstance(v, int) and v not in DOUBLE_EXACT for v in (p.min_value, p.max_value)):
        # GX compares with a double literal (a decimal(38,18) `0.100000000000000001` is not above 0.1)
        # and gets NULL where a decimal comparison overflows: the bridge's exact condition (engines/queries.py).
        # (and GX reads an integer bound as a double: -(2^53) - 1 is then not below -(2^53)). An integer
        # bound a double holds exactly is exact against every numeric column: GX's own expectation
        return [_violating(check, outside_range(_col(check), p))]
    return [{"type": "expect_column_values_to_be_between",
             "kwargs": {"column": check.column, "min_value": p.min_value, "max_value": p.max_value,
                        "strict_min": p.strict_min, "strict_max": p.strict_max, **_mostly(check)}}]


def _row_count(check: Check, p: c.RowCount, contract_id: str) -> list[dict]:
    t = check.threshold
    bounds = _integer_bounds(t)
    if t.operator == "=":
        return [{"type": "expect_table_row_count_to_equal", "kwargs": {"value": t.value}}]
    # an exclusive range with no integer inside, `(0, 1)`, is no valid GX range: the query form judges it
    if bounds is not None and not (None not in bounds and bounds[0] > bounds[1]):
        return [{"type": "expect_table_row_count_to_be_between", "kwargs": {"min_value": bounds[0], "max_value": bounds[1]}}]
    return [_scalar(f"SELECT COUNT(*) FROM {BATCH}", t)]


def _integer_bounds(t: Threshold) -> tuple[int | None, int | None] | None:
    """Row counts are integers, so `> 5` is `>= 6`; None when the threshold is no single range."""
    def up(v, inclusive):  # smallest integer allowed
        return math.ceil(v) if inclusive else math.floor(v) + 1

    def down(v, inclusive):  # largest integer allowed
        return math.floor(v) if inclusive else math.ceil(v) - 1

    if t.operator in (">", ">="):
        return up(t.value, t.operator == ">="), None
    if t.operator in ("<", "<="):
        return None, down(t.value, t.operator == "<=")
    if t.operator == "between":
        return up(t.low, t.low_inclusive), down(t.high, t.high_inclusive)
    return None


def _exists(check: Check, p: c.ColumnExists, contract_id: str) -> list[dict]:
    return [{"type": "expect_column_to_exist", "kwargs": {"column": gx_listed_name(check.column)}}]


def _column_type(check: Check, p: c.ColumnType, contract_id: str) -> list[dict]:
    # GX compares a type's class (`DecimalType`, `ArrayType`): an exact type's parameters and the types
    # of nested elements are compared by a query of the bridge's (engines/nested_types.py)
    extra = [_rows(nested_type_query(check.column, p, BATCH, include_top=True))] if needs_query(p) else []
    if p.exact:
        return [{"type": "expect_column_values_to_be_of_type", "kwargs": {"column": gx_listed_name(check.column), "type_": _gx_type(p.spark_type)}}] + extra
    if not p.compatible:  # nested elements only: the column's own type is in the query
        return extra
    return [{"type": "expect_column_values_to_be_in_type_list",
             "kwargs": {"column": gx_listed_name(check.column), "type_list": sorted({_gx_type(t) for t in p.compatible})}}] + extra


def _gx_type(spark_type: str) -> str:
    return GX_SPARK_TYPES.get(spark_type.split("(")[0].split("<")[0], spark_type)


def _sql(check: Check, p: c.SqlMetric | c.Frequency, contract_id: str) -> list[dict]:
    return [_scalar(p.query.replace(f"`{TABLE_MARKER}`", BATCH).replace(TABLE_MARKER, BATCH), check.threshold)]


def _freshness(check: Check, p: c.Freshness, contract_id: str) -> list[dict]:
    # the cut-off (the run's clock minus the allowed age) is a suite parameter, so the suite file is static
    return [{"type": "expect_column_max_to_be_between",
             "kwargs": {"column": check.column, "min_value": {"$PARAMETER": cutoff_parameter(check)}}}]


def _latency(check: Check, p: c.Latency, contract_id: str) -> list[dict]:
    processed, source = (quote_identifier(x) for x in check.columns)
    seconds = number_text(p.max_latency.total_seconds())
    return [_violating(check, f"{epoch_seconds(processed)} - {epoch_seconds(source)} > {seconds}")]


def _retention(check: Check, p: c.Retention, contract_id: str) -> list[dict]:
    # the oldest row kept (the run's clock minus the period) is a suite parameter, as for freshness: one
    # clock for every engine of a run (Spark's `current_timestamp()` is each query's own), exact to the microsecond
    return [{"type": "expect_column_values_to_be_between",
             "kwargs": {"column": check.column, "min_value": {"$PARAMETER": cutoff_parameter(check)}}}]


def _custom(check: Check, p: c.CustomGx, contract_id: str) -> list[dict]:
    expectation = gx_expectation(p.implementation, check.column)
    kwargs = expectation["kwargs"]
    if isinstance(kwargs.get("unexpected_rows_query"), str):
        kwargs["unexpected_rows_query"] = bind_gx_query(kwargs["unexpected_rows_query"], dict(p.tables))
    return [expectation]


# GX fills an unexpected_rows_query with str.format: `{batch}` is the batch, `{{`/`}}` are literal braces
_GX_FORMAT = re.compile(r"\{\{|\}\}|\{batch\}")


def bind_gx_query(query: str, targets: dict[str, str]) -> str:
    """A custom GX `unexpected_rows_query` with each table it names that `targets` holds (lower-case name -> TABLE_MARKER,
    written `{batch}`, for its own model, another model's run view; CustomGx.tables) bound to it, as engines/soda/translate.py
    `bind_soda_line` binds a Soda check's: a team's query names its table (`FROM dim_customer`) where GX's own
    form is `{batch}`. As written when it names none of them, or is not one read-only SELECT (GX then reports its
    own error, lint its finding) or holds a format field other than `{batch}`."""
    if not targets or re.search(r"[{}]", _GX_FORMAT.sub("", query)):
        return query
    plain = _GX_FORMAT.sub(lambda m: {"{{": "{", "}}": "}"}.get(m[0], TABLE_MARKER), query)
    try:
        check_read_only(plain, targets)
        bound = retarget(plain, targets)
        if bound == retarget(plain, {}):
            return query  # it names none of them: the team's text, not sqlglot's rewrite of it
    except (SqlProblem, RecursionError):
        return query
    escaped = bound.replace("{", "{{").replace("}", "}}")
    return escaped.replace(f"`{TABLE_MARKER}`", BATCH).replace(TABLE_MARKER, BATCH)


def gx_expectation(implementation, column: str | None) -> dict:
    """A custom GX check as a GX 1.x expectation: 0.x `expectation_type` and camelCase kwargs mapped,
    the rule's field as the `column` of a column expectation that names none."""
    body = dict(implementation) if isinstance(implementation, dict) else {}
    expectation_type = gx_name(str(body.get("type") or body.get("expectation_type") or ""))
    kwargs = {gx_name(k): v for k, v in (body.get("kwargs") or {}).items()}
    # a column pair names its columns column_A and column_B: it takes no `column`
    if column and "column" not in kwargs and expectation_type.startswith("expect_column") and not expectation_type.startswith("expect_column_pair_"):
        kwargs["column"] = column
    return {"type": expectation_type, "kwargs": kwargs, "meta": dict(body.get("meta") or {})}


def _violating(check: Check, condition: str) -> dict:
    """The rows of the check's columns that meet `condition`: only those columns, since GX collects
    a few of the rows through PySpark, which cannot hold every value another column may (a timestamp
    of year 1 raises `year 0 is out of range`)."""
    columns = ", ".join(quote_identifier(column) for column in check.columns)
    return _rows(f"SELECT {columns} FROM {BATCH} WHERE {condition}")


def _rows(query: str) -> dict:
    # GX fills the query with str.format: every brace but the `{batch}` placeholder is doubled, so
    # SQL with its own braces (a regex quantifier `[0-9]{5}`, a JSON literal) reaches Spark as written
    escaped = query.replace("{", "{{").replace("}", "}}").replace("{{batch}}", BATCH)
    return {"type": "unexpected_rows_expectation", "kwargs": {"unexpected_rows_query": escaped}}


def _scalar(query: str, t: Threshold) -> dict:
    """A scalar metric as a query that returns its value only when the threshold fails, or when it is no
    number a threshold can judge (NULL, NaN, text: the runner reads why, engines/queries.py `judge_metric`);
    the comparison is exact (`threshold_holds_sql`: decimals are not rounded to doubles)."""
    return _rows(f"SELECT v FROM (SELECT ({query.strip().rstrip(';')}) AS v) AS metric WHERE v IS NULL "
                 f"OR NOT (typeof(v) RLIKE '{NUMERIC_TYPEOF}') OR isnan(CAST(v AS DOUBLE)) OR NOT ({threshold_holds_sql(t, 'v')})")


def _foreign_key(check: Check, p: c.ForeignKey, contract_id: str) -> list[dict]:
    return [_rows(foreign_key_query(check, p, contract_id, BATCH))]


# kind -> its expectations; every kind has an entry (tests/test_kinds.py)
TRANSLATIONS: dict[str, Callable[[Check, object, str], list[dict] | Unsupported]] = {
    "not_null": _not_null,
    "unique": _unique,
    "unique_combination": _unique,
    "regex": _regex,
    "in_set": _in_set,
    "length_between": _length,
    "value_between": _between,
    "row_count": _row_count,
    "column_exists": _exists,
    "column_type": _column_type,
    "sql_metric": _sql,
    "frequency": _sql,
    "freshness": _freshness,
    "latency": _latency,
    "retention": _retention,
    "foreign_key": _foreign_key,
    "custom_gx": _custom,
    "custom_soda": unsupported("a custom Soda check runs in Soda only"),
    "availability": from_history,
    "error_rate": from_history,
    "not_executable": not_executable,
}


def translate_check(check: Check, contract_id: str) -> list[dict] | Unsupported:
    """The expectations of one check, or why GX does not run it."""
    made = TRANSLATIONS[check.kind](check, check.params, contract_id)
    if isinstance(made, Unsupported):
        return made
    for expectation in made:
        expectation["meta"] = {**expectation.get("meta", {}), "dc_bridge": _meta(check)}
        expectation["severity"] = SEVERITY[check.severity]
        if check.description:
            expectation["description"] = check.description
        expectation["notes"] = _notes(check)
    return made


def _notes(check: Check) -> str:
    # GX Data Docs show an expectation's notes (Markdown) on the suite page, never its meta: this is
    # where a reader of the docs sees which contract check the expectation is
    line = f" line {check.source.line}" if check.source.line else ""
    return f"Contract check `{check.id}` ({check.kind}), from `{check.source.file}`{line}."


def _meta(check: Check) -> dict:
    return {"check_id": check.id, "kind": check.kind, "model": check.model, "columns": list(check.columns),
            "source": {"file": check.source.file, "path": check.source.path, "line": check.source.line}}


def _suite_notes(contract_meta: dict, model: str) -> list[str]:
    # the suite page of GX Data Docs renders notes (Markdown paragraphs) but not meta: the contract's
    # identity and owner go here so the docs name them
    title = f" ({contract_meta['title']})" if contract_meta.get("title") else ""
    return [f"Contract **{contract_meta.get('contract_id')}**{title}, version {contract_meta.get('contract_version')}, "
            f"owner: {contract_meta.get('owner') or 'not given'}. Model `{model}`.",
            f"Compiled by dc-bridge from `{contract_meta.get('contract_file')}`. Each expectation's notes name its contract check."]


def suite_name(contract_id: str, model: str) -> str:
    """A model's suite name; GX validation definitions, checkpoints and Data Docs pages carry it too."""
    return f"{contract_id}.{model}"


def assemble_suite(contract_id: str, model: str, translated: list[list[dict]], contract_meta: dict) -> dict:
    """One model's suite JSON (GX 1.x `ExpectationSuite(**suite)` loads it) from its checks' expectations."""
    return {
        "name": suite_name(contract_id, model),
        "expectations": [expectation for expectations in translated for expectation in expectations],
        "meta": {"dc_bridge": {**contract_meta, "model": model, "view": view_name(contract_id, model)}},
        "notes": _suite_notes(contract_meta, model),
    }


def suite_text(suite: dict, contract_meta: dict | None = None) -> str:
    """The suite file's exact text (deterministic: an unchanged contract compiles to the same bytes): what
    `json.dumps(suite, indent=2, ensure_ascii=False)` writes (engines/compiled_text.py says why not json itself)."""
    return indented_json(suite)
