"""GX suites read into carried checks: `gx:PATH` is a suite's JSON (GX 1.x `type` or pre-1.0 `expectation_type`),
a GX project (its `expectations/` folder) or a folder of suites, or a checkpoint (the suites its validation
definitions name, each on its data asset).

`MAPPINGS` has one row per expectation type with a contract form: the kwargs it knows and the form it becomes
(a field property, an ODCS library metric, a SQL rule), the inverse of engines/gx/translate.py where both exist
(tests/test_import_gx_roundtrip.py holds them so). `mostly` becomes a threshold on the share GX judges: of all rows
for not_null (a percent of the contract's nullValues), of the column's non-null values for the other column maps (a
SQL rule: a contract's percent counts nulls too, GX's mostly does not); a Spark
`row_condition` becomes a SQL rule counting the violating rows among those it selects, where the row knows its
violation. Any other expectation, or one with a kwarg its row does not know, is an ODCS `type: custom` rule for
GX with the expectation itself as the implementation: GX still judges it. An expectation type GX does not ship
(a plugin's) is custom too, with the reason: the run's GX reports it when it cannot build it.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from dc_bridge.contract.lint.gx_catalog import EXPECTATION_TYPES
from dc_bridge.contract.sql import quote_identifier, sql_literal
from dc_bridge.contract.types import SPARK_TYPES
from dc_bridge.engines.gx import GX_SPARK_TYPES, SEVERITY
from dc_bridge.importing.model import Carried, ImportInputError, SourceCheck

# the keys of an expectation beside its kwargs: kept (meta, notes, severity, description, id) or shown only
EXPECTATION_KEYS = frozenset({"type", "expectation_type", "kwargs", "meta", "notes", "severity", "id", "ge_cloud_id",
                              "description", "rendered_content", "expectation_context"})
# kwargs that change how GX reports a result, never whether it passes or how many rows fail
REPORTING_KWARGS = frozenset({"result_format", "catch_exceptions", "include_config", "batch_id"})
GX_SEVERITIES = {gx: contract for contract, gx in SEVERITY.items()}
# GX's class name of a Spark type -> the physical type a contract writes (GX_SPARK_TYPES read backwards; a
# class several Spark types share, such as StringType, names the first); DecimalType and the nested types have
# parameters GX does not compare: those stay custom
SPARK_OF_GX = {gx: spark for spark, gx in reversed(GX_SPARK_TYPES.items()) if gx not in ("DecimalType", "ArrayType", "MapType", "StructType")}
# the sorted GX class names translate.py lists for a field of each ODCS logical type -> that type
LOGICAL_OF_GX_LIST = {tuple(sorted({GX_SPARK_TYPES[t] for t in SPARK_TYPES[logical]})): logical
                      for logical in reversed(("string", "integer", "number", "boolean", "date", "timestamp"))}


@dataclass(frozen=True)
class Form:
    """What an expectation becomes: properties of its column's field and/or one quality rule (on the field when
    `on_field`, else on the model)."""
    properties: dict[str, Any]
    rule: dict[str, Any] | None = None
    on_field: bool = True


class NoForm(Exception):
    """This expectation's kwargs have no contract form (the reason): it is carried as a custom rule."""


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _percent(mostly: Any) -> float:
    if not _number(mostly) or not 0 <= mostly <= 1:
        raise NoForm(f"mostly {mostly!r} is not a fraction between 0 and 1")
    return round((1 - mostly) * 100, 10)


def _limits(kw: dict) -> list[tuple[str, Any]]:
    """min_value/max_value/strict_min/strict_max as (operator, bound) pairs; a bound of None is open."""
    low, high = kw.get("min_value"), kw.get("max_value")
    if low is None and high is None:
        raise NoForm("neither min_value nor max_value is given")
    for value in (low, high):
        if value is not None and not _number(value):
            raise NoForm(f"the bound {value!r} is not a number")
    return ([(">" if kw.get("strict_min") else ">=", low)] if low is not None else []) + \
        ([("<" if kw.get("strict_max") else "<=", high)] if high is not None else [])


THRESHOLD_OF = {">": "mustBeGreaterThan", ">=": "mustBeGreaterOrEqualTo", "<": "mustBeLessThan", "<=": "mustBeLessOrEqualTo"}


def _bounds(kw: dict, *, integer: bool = False) -> dict[str, Any]:
    """The bounds as one ODCS threshold key. Two bounds are `mustBeBetween`, which ODCS makes exclusive: an
    inclusive bound is moved one out where the metric is a whole number (`integer`), else it has no form."""
    limits = _limits(kw)
    if len(limits) == 1:
        operator, value = limits[0]
        return {THRESHOLD_OF[operator]: value}
    (low_op, low), (high_op, high) = limits
    if low_op == ">" and high_op == "<":
        return {"mustBeBetween": [low, high]}
    if not integer or not all(float(v).is_integer() for v in (low, high)):
        raise NoForm("two bounds, one of them inclusive, on a number: ODCS mustBeBetween excludes its bounds")
    return {"mustBeBetween": [int(low) - (low_op == ">="), int(high) + (high_op == "<=")]}


# --- the forms, one per row ---------------------------------------------------------------------

def _not_null(kw: dict) -> Form:
    if "mostly" in kw and kw["mostly"] != 1:  # nulls are what it counts: GX's share is of all rows, as a contract's percent
        return Form({}, {"type": "library", "metric": "nullValues", "unit": "percent", "mustBeLessOrEqualTo": _percent(kw["mostly"])})
    return Form({"required": True})


def _mostly_of_values(kw: dict, violation: str, source: str = "{model}") -> Form:
    """`mostly` of a column map expectation as GX judges it: the share of the column's non-null values that
    violate, at most 1 - mostly (a contract's percent counts every row, nulls too; an all-null column passes)."""
    column = quote_identifier(kw["column"])
    share = f"COALESCE(100.0 * COUNT_IF({violation}) / NULLIF(COUNT({column}), 0), 0)"
    return Form({}, {"type": "sql", "query": f"SELECT {share} FROM {source}", "mustBeLessOrEqualTo": _percent(kw["mostly"])})


def _with_mostly(kind: str, form: Callable[[dict], Form]) -> Callable[[dict], Form]:
    """`form`, or GX's share of violating non-null values when mostly is below 1."""
    def chosen(kw: dict) -> Form:
        if kw.get("mostly", 1) != 1:
            return _mostly_of_values(kw, VIOLATIONS[kind](kw))
        return form(kw)
    return chosen


def _unique(kw: dict) -> Form:
    if "mostly" in kw and kw["mostly"] != 1:
        column = quote_identifier(kw["column"])
        counted = f"(SELECT {column}, COUNT(*) OVER (PARTITION BY {column}) AS n FROM {{model}}) AS counted"
        return _mostly_of_values(kw, f"{column} IS NOT NULL AND n > 1", counted)
    return Form({"unique": True})


def _compound_unique(kw: dict) -> Form:
    # dc-bridge's key leaves out a row with any value missing; GX's default leaves out only all missing
    if kw.get("ignore_row_if") != "any_value_is_missing":
        raise NoForm(f"ignore_row_if {kw.get('ignore_row_if', 'all_values_are_missing')!r}: a contract's key ignores rows with "
                     f"any value missing (any_value_is_missing)")
    if kw.get("mostly", 1) != 1:
        raise NoForm("mostly on a compound key has no contract form")
    columns = kw.get("column_list")
    if not isinstance(columns, list) or not columns or not all(isinstance(c, str) for c in columns):
        raise NoForm("column_list is not a list of column names")
    return Form({}, {"type": "library", "metric": "duplicateValues", "arguments": {"properties": list(columns)}, "mustBe": 0}, on_field=False)


def _regex(kw: dict) -> Form:
    if not isinstance(kw.get("regex"), str):
        raise NoForm("regex is not a text")
    return Form({}, {"type": "library", "metric": "invalidValues", "arguments": {"pattern": kw["regex"]}, "mustBe": 0})


def _in_set(kw: dict) -> Form:
    values = kw.get("value_set")
    if not isinstance(values, list) or not values or not all(isinstance(v, (str, int, float, bool)) for v in values):
        raise NoForm("value_set is not a list of plain values")
    return Form({}, {"type": "library", "metric": "invalidValues", "arguments": {"validValues": list(values)}, "mustBe": 0})


def _length(kw: dict) -> Form:
    limits = _limits(kw)
    if not all(float(value).is_integer() for _, value in limits):
        raise NoForm("a length bound is not a whole number")
    # lengths are whole numbers: a strict bound is the next one in
    names = {">": ("minLength", 1), ">=": ("minLength", 0), "<": ("maxLength", -1), "<=": ("maxLength", 0)}
    return Form({"logicalTypeOptions": {names[op][0]: int(value) + names[op][1] for op, value in limits}})


def _length_equal(kw: dict) -> Form:
    return _length({"min_value": kw.get("value"), "max_value": kw.get("value")})


def _between(kw: dict) -> Form:
    names = {">": "exclusiveMinimum", ">=": "minimum", "<": "exclusiveMaximum", "<=": "maximum"}
    return Form({"logicalTypeOptions": {names[op]: value for op, value in _limits(kw)}})


def _row_count_between(kw: dict) -> Form:
    return Form({}, {"type": "library", "metric": "rowCount", **_bounds(kw, integer=True)}, on_field=False)


def _row_count_equal(kw: dict) -> Form:
    if not _number(kw.get("value")):
        raise NoForm("value is not a number")
    return Form({}, {"type": "library", "metric": "rowCount", "mustBe": kw["value"]}, on_field=False)


def _exists(kw: dict) -> Form:
    return Form({})


def _of_type(kw: dict) -> Form:
    spark = SPARK_OF_GX.get(kw.get("type_"))
    if spark is None:
        raise NoForm(f"type_ {kw.get('type_')!r} is not a Spark type class a contract's physicalType names exactly")
    return Form({"physicalType": spark})


def _in_type_list(kw: dict) -> Form:
    listed = kw.get("type_list")
    logical = LOGICAL_OF_GX_LIST.get(tuple(sorted(listed))) if isinstance(listed, list) and all(isinstance(t, str) for t in listed) else None
    if logical is None:
        raise NoForm(f"type_list {listed!r} is not the list of an ODCS logical type")
    return Form({"logicalType": logical})


def _aggregate(function: str, integer: bool = False) -> Callable[[dict], Form]:
    """A SQL rule of one aggregate of the column; `integer`: the aggregate is a whole number (a count)."""
    def form(kw: dict) -> Form:
        query = f"SELECT {function.format(quote_identifier(kw['column']))} FROM {{model}}"
        return Form({}, {"type": "sql", "query": query, **_bounds(kw, integer=integer)})
    return form


def _unexpected_rows(kw: dict) -> Form:
    query = kw.get("unexpected_rows_query")
    if not isinstance(query, str):
        raise NoForm("unexpected_rows_query is not a text")
    # GX fills the query with str.format: `{batch}` is the table, a doubled brace a brace
    filled = query.replace("{batch}", "\0").replace("{{", "{").replace("}}", "}").replace("\0", "{model}")
    return Form({}, {"type": "sql", "query": f"SELECT COUNT(*) FROM ({filled.strip().rstrip(';')}) AS unexpected_rows",
                     "mustBe": 0}, on_field=False)


def _sql_count(condition: Callable[[dict], str]) -> Callable[[dict], Form]:
    """A SQL rule counting the rows that meet the violation `condition`: none allowed (mostly has no count form)."""
    def form(kw: dict) -> Form:
        if "mostly" in kw and kw["mostly"] != 1:
            raise NoForm("mostly has no contract form for this expectation")
        return Form({}, {"type": "sql", "query": f"SELECT COUNT(*) FROM {{model}} WHERE {condition(kw)}", "mustBe": 0})
    return form


# --- violations: the SQL condition of a row the expectation counts, for a row_condition's scoped rule ---

def _col(kw: dict) -> str:
    return quote_identifier(kw["column"])


def _between_violation(kw: dict, expression: str) -> str:
    broken = {">": "<=", ">=": "<", "<": ">=", "<=": ">"}
    parts = [f"{expression} {broken[op]} {sql_literal(value)}" for op, value in _limits(kw)]
    return f"{expression} IS NOT NULL AND ({' OR '.join(parts)})"


def _in_list(values: Any) -> str:
    if not isinstance(values, list) or not values or not all(isinstance(v, (str, int, float, bool)) for v in values):
        raise NoForm("value_set is not a list of plain values")
    return ", ".join(sql_literal(v) for v in values)


VIOLATIONS: dict[str, Callable[[dict], str]] = {
    "expect_column_values_to_not_be_null": lambda kw: f"{_col(kw)} IS NULL",
    "expect_column_values_to_be_null": lambda kw: f"{_col(kw)} IS NOT NULL",
    "expect_column_values_to_match_regex": lambda kw: f"{_col(kw)} IS NOT NULL AND NOT ({_col(kw)} RLIKE {sql_literal(kw['regex'])})",
    "expect_column_values_to_not_match_regex": lambda kw: f"{_col(kw)} IS NOT NULL AND {_col(kw)} RLIKE {sql_literal(kw['regex'])}",
    "expect_column_values_to_be_in_set": lambda kw: f"{_col(kw)} IS NOT NULL AND {_col(kw)} NOT IN ({_in_list(kw.get('value_set'))})",
    "expect_column_values_to_not_be_in_set": lambda kw: f"{_col(kw)} IN ({_in_list(kw.get('value_set'))})",
    "expect_column_values_to_be_between": lambda kw: _between_violation(kw, _col(kw)),
    "expect_column_value_lengths_to_be_between": lambda kw: _between_violation(kw, f"length({_col(kw)})"),
}


# a field property with severity: the library rule that checks the same
PROPERTY_RULES = {'{"required": true}': {"type": "library", "metric": "nullValues", "mustBe": 0},
                  '{"unique": true}': {"type": "library", "metric": "duplicateValues", "mustBe": 0}}


@dataclass(frozen=True)
class Mapping:
    """One expectation type's row: the kwargs it reads (beside REPORTING_KWARGS) and its form."""
    kwargs: frozenset[str]
    form: Callable[[dict], Form]


def _row(*kwargs: str, form: Callable[[dict], Form]) -> Mapping:
    return Mapping(frozenset(kwargs), form)


BOUNDS = ("min_value", "max_value", "strict_min", "strict_max")
# expectation type -> its row; every other type is carried as a custom GX rule
MAPPINGS: dict[str, Mapping] = {
    "expect_column_values_to_not_be_null": _row("column", "mostly", form=_not_null),
    "expect_column_values_to_be_unique": _row("column", "mostly", form=_unique),
    "expect_compound_columns_to_be_unique": _row("column_list", "ignore_row_if", "mostly", form=_compound_unique),
    "expect_column_values_to_match_regex": _row("column", "regex", "mostly", form=_with_mostly("expect_column_values_to_match_regex", _regex)),
    "expect_column_values_to_be_in_set": _row("column", "value_set", "mostly", form=_with_mostly("expect_column_values_to_be_in_set", _in_set)),
    "expect_column_value_lengths_to_be_between": _row("column", *BOUNDS, "mostly",
                                                      form=_with_mostly("expect_column_value_lengths_to_be_between", _length)),
    "expect_column_value_lengths_to_equal": _row("column", "value", form=_length_equal),
    "expect_column_values_to_be_between": _row("column", *BOUNDS, "mostly", form=_with_mostly("expect_column_values_to_be_between", _between)),
    "expect_table_row_count_to_be_between": _row(*BOUNDS, form=_row_count_between),
    "expect_table_row_count_to_equal": _row("value", form=_row_count_equal),
    "expect_column_to_exist": _row("column", form=_exists),
    "expect_column_values_to_be_of_type": _row("column", "type_", form=_of_type),
    "expect_column_values_to_be_in_type_list": _row("column", "type_list", form=_in_type_list),
    "expect_column_max_to_be_between": _row("column", *BOUNDS, form=_aggregate("MAX({})")),
    "expect_column_min_to_be_between": _row("column", *BOUNDS, form=_aggregate("MIN({})")),
    "expect_column_mean_to_be_between": _row("column", *BOUNDS, form=_aggregate("AVG({})")),
    "expect_column_sum_to_be_between": _row("column", *BOUNDS, form=_aggregate("SUM({})")),
    "expect_column_stdev_to_be_between": _row("column", *BOUNDS, form=_aggregate("STDDEV_SAMP({})")),
    "expect_column_unique_value_count_to_be_between": _row("column", *BOUNDS, form=_aggregate("COUNT(DISTINCT {})", integer=True)),
    "expect_column_values_to_be_null": _row("column", "mostly", form=_sql_count(VIOLATIONS["expect_column_values_to_be_null"])),
    "expect_column_values_to_not_match_regex": _row("column", "regex", "mostly", form=_with_mostly(
        "expect_column_values_to_not_match_regex", _sql_count(VIOLATIONS["expect_column_values_to_not_match_regex"]))),
    "expect_column_values_to_not_be_in_set": _row("column", "value_set", "mostly", form=_with_mostly(
        "expect_column_values_to_not_be_in_set", _sql_count(VIOLATIONS["expect_column_values_to_not_be_in_set"]))),
    "unexpected_rows_expectation": _row("unexpected_rows_query", form=_unexpected_rows),
}


# --- one expectation ---------------------------------------------------------------------------

def expectation_text(kind: str, kwargs: dict) -> str:
    """The expectation in one line, as the report shows it: `type(key=value, ...)`, values as JSON."""
    shown = ", ".join(f"{key}={json.dumps(value, ensure_ascii=False, default=str)}" for key, value in kwargs.items())
    return f"{kind}({shown})".replace("\n", " ")


def carry(expectation: Any, *, file: str, location: str, dataset: str, views: dict[str, str] | None = None) -> Carried:
    """One expectation (a GX 1.x or pre-1.0 mapping) as what it becomes. `views`: the temp view names of the
    models of suites dc-bridge compiled (their `meta.dc_bridge.view`) -> the model, so a query that reads another
    model's view (a foreign key's) reads that model by name."""
    if not isinstance(expectation, dict):
        check = SourceCheck("gx", file, location, dataset, json.dumps(expectation, default=str)[:200])
        return Carried(check, "refused", dataset, reason="an expectation is a mapping with `type` and `kwargs`")
    kind = expectation.get("type", expectation.get("expectation_type"))
    kwargs = expectation.get("kwargs", {})
    check = SourceCheck("gx", file, location, dataset, expectation_text(str(kind), kwargs if isinstance(kwargs, dict) else {}))
    if not isinstance(kind, str) or not kind:
        return Carried(check, "refused", dataset, reason="the expectation names no type (`type`, or pre-1.0 `expectation_type`)")
    if not isinstance(kwargs, dict):
        return Carried(check, "refused", dataset, reason="`kwargs` is not a mapping")
    column = _field_name(kind, kwargs.get("column")) if isinstance(kwargs.get("column"), str) else None
    extras = _kept(expectation)
    unknown_keys = sorted(set(expectation) - EXPECTATION_KEYS)
    try:
        if unknown_keys:
            raise NoForm(f"the expectation has key(s) {', '.join(unknown_keys)} the mapping does not know")
        form = _form(kind, _bound(kwargs, views or {}))
    except NoForm as exc:
        return _custom(check, kind, kwargs, expectation, column, extras, str(exc))
    if form.on_field and column is None:
        return _custom(check, kind, kwargs, expectation, None, extras, "the expectation names no column")
    if form.rule is None and extras.get("severity", "error") != "error":
        # a field property is checked at severity error: the rule form of the property keeps the expectation's
        as_rule = PROPERTY_RULES.get(json.dumps(form.properties, sort_keys=True))
        if as_rule is None:
            return _custom(check, kind, kwargs, expectation, column, extras,
                           f"severity {expectation.get('severity')}: the field property it maps to is checked at severity error")
        form = Form({}, dict(as_rule))
    rule = {**form.rule, **extras} if form.rule is not None else None
    lost = sorted(key for key in extras if key != "severity") if rule is None else []
    reason = f"a field property: the expectation's {' and '.join(lost)} are in this report only" if lost else ""
    return Carried(check, "mapped", dataset, column if form.on_field else None, form.properties, rule, reason)


def _bound(kwargs: dict, views: dict[str, str]) -> dict:
    query = kwargs.get("unexpected_rows_query")
    if not isinstance(query, str) or not views:
        return kwargs
    for view, model in views.items():
        query = query.replace(view, quote_identifier(model))
    return {**kwargs, "unexpected_rows_query": query}


# the table-level expectations that name a column with a dot in backticks, as GX lists it (engines/columns.py gx_listed_name)
LISTED_NAMES = frozenset({"expect_column_to_exist", "expect_column_values_to_be_of_type", "expect_column_values_to_be_in_type_list"})


def _field_name(kind: str, column: str) -> str:
    """The field an expectation's column is: GX's listed `` `a.b` `` is the top-level column `a.b`."""
    listed = kind in LISTED_NAMES and len(column) > 2 and column[0] == column[-1] == "`" and "." in column
    return column[1:-1] if listed else column


def _form(kind: str, kwargs: dict) -> Form:
    mapping = MAPPINGS.get(kind)
    if mapping is None:
        raise NoForm("no contract form" if kind in EXPECTATION_TYPES else
                     f"`{kind}` is not an expectation type GX ships (a plugin's?): GX reports it if it cannot build it")
    given = {k: v for k, v in kwargs.items() if k not in REPORTING_KWARGS}
    condition = given.pop("row_condition", None)
    parser = given.pop("condition_parser", None)
    unknown = sorted(set(given) - mapping.kwargs)
    if unknown:
        raise NoForm(f"kwarg(s) {', '.join(unknown)} the {kind} row does not know")
    if any(isinstance(v, dict) for v in given.values()):
        raise NoForm("a kwarg is a suite parameter ($PARAMETER) or a mapping, known only when GX runs")
    if "column" in mapping.kwargs and not isinstance(given.get("column"), str):
        raise NoForm("column is not a column name")
    if condition is None:
        return mapping.form(given)
    if parser != "spark" or not isinstance(condition, str):
        raise NoForm(f"row_condition with condition_parser {parser!r}: only a Spark SQL condition (spark) is scoped by dc-bridge")
    violation = VIOLATIONS.get(kind)
    if violation is None or given.get("mostly", 1) != 1:
        raise NoForm("this expectation with a row_condition has no scoped contract form")
    return Form({}, {"type": "sql", "query": f"SELECT COUNT(*) FROM {{model}} WHERE ({condition}) AND ({violation(given)})", "mustBe": 0})


def _kept(expectation: dict) -> dict[str, Any]:
    """meta, notes, id and description as the rule's description and customProperties; severity as its severity."""
    kept: dict[str, Any] = {}
    severity = expectation.get("severity")
    if severity is not None:
        kept["severity"] = GX_SEVERITIES.get(severity, severity)
    if isinstance(expectation.get("description"), str):
        kept["description"] = expectation["description"]
    custom = [{"property": name, "value": expectation[key]} for key, name in (("meta", "gxMeta"), ("notes", "gxNotes"), ("id", "gxId"))
              if expectation.get(key) not in (None, {}, [], "")]
    if custom:
        kept["customProperties"] = custom
    return kept


def _custom(check: SourceCheck, kind: str, kwargs: dict, expectation: dict, column: str | None, extras: dict, reason: str) -> Carried:
    """The expectation itself as a custom GX rule, on its column's field when it names one."""
    implementation = {"type": kind, "kwargs": kwargs}
    if isinstance(expectation.get("meta"), dict) and expectation["meta"]:
        implementation["meta"] = expectation["meta"]
    rule = {"type": "custom", "engine": "great-expectations", "implementation": implementation, **extras}
    if rule.get("severity") not in (None, *SEVERITY):
        return Carried(check, "refused", check.dataset, column, reason=f"severity {rule['severity']!r} is not critical, warning or info")
    return Carried(check, "custom", check.dataset, column, rule=rule, reason=reason)


# --- files ---------------------------------------------------------------------------------------

def read(path: str) -> list[Carried]:
    """Every expectation of the suites `path` holds or names, in file order."""
    target = Path(path)
    if target.is_dir():
        folder = target / "expectations" if (target / "expectations").is_dir() else target
        files = sorted(p for p in folder.rglob("*.json") if p.is_file())
        if not files:
            raise ImportInputError(f"{path}: no suite (*.json) in this folder; give a GX suite's JSON, a GX project "
                                   f"folder (with expectations/) or a checkpoint")
        suites = [(_load(file), str(file)) for file in files]
        views = dict(item for suite, _ in suites for item in _view(suite))
        return [item for suite, file in suites for item in read_suite(suite, file, views=views)]
    document = _load(target)
    if isinstance(document, dict) and "validation_definitions" in document:
        return _checkpoint(document, target)
    return read_suite(document, path, views=dict(_view(document)))


def _view(suite: Any) -> list[tuple[str, str]]:
    """(view, model) of a suite dc-bridge compiled, from its meta; none for another suite."""
    own = suite.get("meta", {}).get("dc_bridge") if isinstance(suite, dict) and isinstance(suite.get("meta"), dict) else None
    if isinstance(own, dict) and isinstance(own.get("view"), str) and isinstance(own.get("model"), str):
        return [(own["view"], own["model"])]
    return []


def _load(file: Path) -> Any:
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ImportInputError(f"{file}: no such file; give a GX suite's JSON, a GX project folder or a checkpoint") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ImportInputError(f"{file}: cannot be read ({getattr(exc, 'strerror', None) or exc})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ImportInputError(f"{file}: not JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); a GX suite is the JSON "
                               f"GX writes (gx/expectations/NAME.json)") from None


def read_suite(suite: Any, file: str, dataset: str | None = None, views: dict[str, str] | None = None) -> list[Carried]:
    """One suite's expectations; `dataset`: the data asset a checkpoint validates it on, else the suite's model
    (`meta.dc_bridge.model`, as dc-bridge compiles it) or its name."""
    if not isinstance(suite, dict) or not isinstance(suite.get("expectations"), list):
        raise ImportInputError(f"{file}: not a GX expectation suite (a mapping with an `expectations` list"
                               f"{'; found keys ' + ', '.join(map(str, list(suite)[:8])) if isinstance(suite, dict) else ''})")
    name = suite.get("name", suite.get("expectation_suite_name"))
    meta = suite.get("meta") if isinstance(suite.get("meta"), dict) else {}
    own = meta.get("dc_bridge", {}).get("model") if isinstance(meta.get("dc_bridge"), dict) else None
    dataset = dataset or own or (name if isinstance(name, str) and name else Path(file).stem)
    return [carry(expectation, file=file, location=f"expectations[{index}]", dataset=dataset, views=views)
            for index, expectation in enumerate(suite["expectations"])]


def _checkpoint(checkpoint: dict, file: Path) -> list[Carried]:
    """A GX 1.x checkpoint: each validation definition (validation_definitions/NAME.json in its project) and the
    suite it names (expectations/), read on the definition's data asset."""
    project = file.parent.parent
    definitions = checkpoint.get("validation_definitions")
    if not isinstance(definitions, list):
        raise ImportInputError(f"{file}: `validation_definitions` is not a list")
    carried = []
    for index, reference in enumerate(definitions):
        name = reference.get("name") if isinstance(reference, dict) else None
        definition = _named(project / "validation_definitions", name, f"{file} validation_definitions[{index}]")
        suite_name = (definition.get("suite") or {}).get("name") if isinstance(definition.get("suite"), dict) else None
        asset = ((definition.get("data") or {}).get("asset") or {}).get("name") if isinstance(definition.get("data"), dict) else None
        suite_file, suite = _named_file(project / "expectations", suite_name, f"validation definition {name}")
        carried += read_suite(suite, str(suite_file), dataset=asset if isinstance(asset, str) else None)
    return carried


def _named(folder: Path, name: Any, where: str) -> dict:
    return _named_file(folder, name, where)[1]


def _named_file(folder: Path, name: Any, where: str) -> tuple[Path, dict]:
    """The JSON file in `folder` whose `name` is `name` (GX names the file after it, but not always alike)."""
    if not isinstance(name, str):
        raise ImportInputError(f"{where}: names no {folder.name} entry by `name`")
    candidates = [folder / f"{name}.json"] + (sorted(folder.glob("*.json")) if folder.is_dir() else [])
    for candidate in candidates:
        if candidate.is_file():
            document = _load(candidate)
            if isinstance(document, dict) and document.get("name", document.get("expectation_suite_name")) == name:
                return candidate, document
    raise ImportInputError(f"{where}: `{name}` is not in {folder}; a checkpoint is read inside its GX project "
                           f"(checkpoints/, validation_definitions/, expectations/ side by side)")
