"""CheckPlan -> one GX 1.x ExpectationSuite (as JSON) per model.

`TRANSLATIONS` maps each params class to a function returning expectation dicts (`type`, `kwargs`).
Every expectation carries the check id, kind and source in `meta`, so results join by id, never by
position. Checks GX cannot express on Spark natively (SQL metrics, foreign keys, latency,
retention) become `unexpected_rows_expectation` queries that return rows only on violation.
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Callable

from dc_bridge.plan import checks as c
from dc_bridge.plan.checks import Check, CheckPlan
from dc_bridge.contract.model import Threshold
from dc_bridge.contract.sql import TABLE_MARKER, quote_identifier, sql_literal, view_name

# GX 1.x expectation severity names
SEVERITY = {"error": "critical", "warning": "warning", "info": "info"}
# Spark simpleString -> the Spark type class name GX compares with
GX_SPARK_TYPES = {
    "string": "StringType", "varchar": "StringType", "char": "StringType", "int": "IntegerType", "bigint": "LongType",
    "smallint": "ShortType", "tinyint": "ByteType", "float": "FloatType", "double": "DoubleType",
    "decimal": "DecimalType", "boolean": "BooleanType", "timestamp": "TimestampType", "timestamp_ntz": "TimestampNTZType",
    "date": "DateType", "binary": "BinaryType", "array": "ArrayType", "map": "MapType", "struct": "StructType",
}
BATCH = "{batch}"


def freshness_parameter(check: Check) -> str:
    """Name of the run-time suite parameter holding the oldest allowed max(timestamp) of a check."""
    return "freshness_cutoff__" + "".join(ch if ch.isalnum() else "_" for ch in check.id)


def _col(check: Check) -> str:
    return quote_identifier(check.column) if check.column else ""


def _mostly(check: Check) -> dict:
    """A percent threshold on bad rows as GX `mostly` (GX divides by non-null rows for column maps)."""
    t = check.threshold
    if check.unit == "percent" and t is not None and t.operator in ("<=", "<") and isinstance(t.value, (int, float)):
        return {"mostly": round(1 - t.value / 100, 10)}
    return {}


def _not_null(check: Check, p: c.NotNull) -> list[dict]:
    if p.missing_values:
        values = ", ".join(sql_literal(v) for v in p.missing_values)
        return [_rows(f"SELECT * FROM {BATCH} WHERE {_col(check)} IS NULL OR {_col(check)} IN ({values})")]
    return [{"type": "expect_column_values_to_not_be_null", "kwargs": {"column": check.column, **_mostly(check)}}]


def _unique(check: Check, p: c.Unique) -> list[dict]:
    if len(check.columns) == 1:
        return [{"type": "expect_column_values_to_be_unique", "kwargs": {"column": check.column, **_mostly(check)}}]
    return [{"type": "expect_compound_columns_to_be_unique",
             "kwargs": {"column_list": list(check.columns), "ignore_row_if": "any_value_is_missing", **_mostly(check)}}]


def _regex(check: Check, p: c.Regex) -> list[dict]:
    return [{"type": "expect_column_values_to_match_regex", "kwargs": {"column": check.column, "regex": p.pattern, **_mostly(check)}}]


def _in_set(check: Check, p: c.InSet) -> list[dict]:
    return [{"type": "expect_column_values_to_be_in_set", "kwargs": {"column": check.column, "value_set": list(p.values), **_mostly(check)}}]


def _length(check: Check, p: c.LengthBetween) -> list[dict]:
    return [{"type": "expect_column_value_lengths_to_be_between",
             "kwargs": {"column": check.column, "min_value": p.min_length, "max_value": p.max_length, **_mostly(check)}}]


def _between(check: Check, p: c.ValueBetween) -> list[dict]:
    return [{"type": "expect_column_values_to_be_between",
             "kwargs": {"column": check.column, "min_value": p.min_value, "max_value": p.max_value,
                        "strict_min": p.strict_min, "strict_max": p.strict_max, **_mostly(check)}}]


def _row_count(check: Check, p: c.RowCount) -> list[dict]:
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


def _exists(check: Check, p: c.ColumnExists) -> list[dict]:
    return [{"type": "expect_column_to_exist", "kwargs": {"column": check.column}}]


def _column_type(check: Check, p: c.ColumnType) -> list[dict]:
    if p.exact:
        return [{"type": "expect_column_values_to_be_of_type", "kwargs": {"column": check.column, "type_": _gx_type(p.spark_type)}}]
    return [{"type": "expect_column_values_to_be_in_type_list",
             "kwargs": {"column": check.column, "type_list": sorted({_gx_type(t) for t in p.compatible})}}]


def _gx_type(spark_type: str) -> str:
    return GX_SPARK_TYPES.get(spark_type.split("(")[0].split("<")[0], spark_type)


def _sql(check: Check, p: c.SqlMetric) -> list[dict]:
    return [_scalar(p.query.replace(f"`{TABLE_MARKER}`", BATCH).replace(TABLE_MARKER, BATCH), check.threshold)]


def _freshness(check: Check, p: c.Freshness) -> list[dict]:
    # the cut-off (run start minus the allowed age) is a suite parameter, so the suite file is static
    return [{"type": "expect_column_max_to_be_between",
             "kwargs": {"column": check.column, "min_value": {"$PARAMETER": freshness_parameter(check)}}}]


def _latency(check: Check, p: c.Latency) -> list[dict]:
    processed, source = (quote_identifier(x) for x in check.columns)
    seconds = number_text(p.max_latency.total_seconds())
    return [_rows(f"SELECT * FROM {BATCH} WHERE {epoch_seconds(processed)} - {epoch_seconds(source)} > {seconds}")]


def _retention(check: Check, p: c.Retention) -> list[dict]:
    seconds = number_text(p.period.total_seconds())
    return [_rows(f"SELECT * FROM {BATCH} WHERE {epoch_seconds(_col(check))} < {epoch_seconds('current_timestamp()')} - {seconds}")]


def epoch_seconds(expression: str) -> str:
    """Seconds since the epoch of a timestamp, date or ISO string column (a plain cast to DOUBLE is null for dates)."""
    return f"CAST(CAST({expression} AS TIMESTAMP) AS DOUBLE)"


def foreign_key_query(check: Check, p: c.ForeignKey, contract_id: str, table: str) -> str:
    """Rows of `table` whose non-null key has no match in the referenced model's view."""
    target = view_name(contract_id, p.to_model)
    on = " AND ".join(f"c.{quote_identifier(a)} = p.{quote_identifier(b)}" for a, b in zip(check.columns, p.to_columns))
    not_null = " AND ".join(f"c.{quote_identifier(a)} IS NOT NULL" for a in check.columns)
    return f"SELECT c.* FROM {table} AS c LEFT ANTI JOIN {target} AS p ON {on} WHERE {not_null}"


def _custom(check: Check, p: c.CustomGx) -> list[dict]:
    return [{"type": p.expectation["type"], "kwargs": dict(p.expectation["kwargs"]), "meta": dict(p.expectation.get("meta", {}))}]


def _rows(query: str) -> dict:
    # GX fills the query with str.format: every brace but the `{batch}` placeholder is doubled, so
    # SQL with its own braces (a regex quantifier `[0-9]{5}`, a JSON literal) reaches Spark as written
    escaped = query.replace("{", "{{").replace("}", "}}").replace("{{batch}}", BATCH)
    return {"type": "unexpected_rows_expectation", "kwargs": {"unexpected_rows_query": escaped}}


def _scalar(query: str, t: Threshold) -> dict:
    """A scalar metric as a query that returns its value only when the threshold fails (or it is null)."""
    return _rows(f"SELECT v FROM (SELECT ({query.strip().rstrip(';')}) AS v) AS metric WHERE v IS NULL OR NOT ({sql_condition('v', t)})")


def sql_condition(value: str, t: Threshold) -> str:
    """The threshold as a Spark SQL condition on `value` (the one SQL form of Threshold.holds)."""
    if t.operator in ("between", "not_between"):
        low = f"{value} {'>=' if t.low_inclusive else '>'} {t.low}"
        high = f"{value} {'<=' if t.high_inclusive else '<'} {t.high}"
        inside = f"({low} AND {high})"
        return inside if t.operator == "between" else f"NOT {inside}"
    return f"{value} {'<>' if t.operator == '!=' else t.operator} {t.value}"


def number_text(value) -> str:
    """A number as exact SQL / SodaCL text without an exponent: `5`, `0.5`, `31536000.0`, `0.00001`
    (`:g` alone keeps 6 digits, and SodaCL takes no `1e-05`)."""
    if isinstance(value, float):
        text = f"{value:g}"
        return text if "e" not in text and float(text) == value else format(Decimal(repr(value)), "f")
    return str(value)


TRANSLATIONS: dict[type, Callable[[Check, object], list[dict]]] = {
    c.NotNull: _not_null,
    c.Unique: _unique,
    c.Regex: _regex,
    c.InSet: _in_set,
    c.LengthBetween: _length,
    c.ValueBetween: _between,
    c.RowCount: _row_count,
    c.ColumnExists: _exists,
    c.ColumnType: _column_type,
    c.SqlMetric: _sql,
    c.Freshness: _freshness,
    c.Latency: _latency,
    c.Retention: _retention,
    c.CustomGx: _custom,
}


def translate_check(check: Check, contract_id: str) -> list[dict] | None:
    """The expectations of one check, or None when GX does not run this kind."""
    if isinstance(check.params, c.ForeignKey):
        made = [_rows(foreign_key_query(check, check.params, contract_id, BATCH))]
    elif type(check.params) in TRANSLATIONS:
        made = TRANSLATIONS[type(check.params)](check, check.params)
    else:
        return None
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


def build_suites(plan: CheckPlan, contract_meta: dict) -> dict[str, dict]:
    """model name -> suite JSON (GX 1.x `ExpectationSuite(**suite)` loads it)."""
    suites = {}
    for model in plan.models:
        expectations = []
        for check in plan.for_model(model):
            expectations += translate_check(check, plan.contract_id) or []
        suites[model] = {
            "name": f"{plan.contract_id}.{model}",
            "expectations": expectations,
            "meta": {"dc_bridge": {**contract_meta, "model": model, "view": view_name(plan.contract_id, model)}},
            "notes": _suite_notes(contract_meta, model),
        }
    return suites
