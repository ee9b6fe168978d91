"""Contract -> CheckPlan: every executable element of the contract becomes a check.

Pure functions, no Spark. Field constraints come from tables (contract attribute -> check); quality
rules and service levels each have one small function. Elements that cannot run become
`NotExecutable` checks with the reason, so the verdict and `compile --explain` account for them.
"""

from __future__ import annotations

import functools
import re
from dataclasses import replace
from typing import Callable, Iterable

from dc_bridge.plan import checks as c
from dc_bridge.plan.checks import Check, CheckPlan, kind_of
from dc_bridge.contract.model import Contract, Field, Model, QualityRule, ServiceLevel, Threshold
from dc_bridge.contract.formats import format_regex
from dc_bridge.contract.reading.quality import LIBRARY_METRICS
from dc_bridge.contract.sql import (
    FIELD_STAND_IN, TABLE_MARKER, SqlProblem, check_read_only, epoch_seconds, model_tables, quote_identifier, retarget, sql_literal,
    substitute,
)
from dc_bridge.contract.evolution.algebra import field_type
from dc_bridge.contract.limits import every_digit_whole
from dc_bridge.contract.types import DECIMAL_TYPE, SPARK_TYPES, contradicting_logical, declared_spark_type
from dc_bridge.plan.sensitive import is_sensitive, mark_sensitive


def build_plan(contract: Contract) -> CheckPlan:
    planned: list[Check] = []
    for model in contract.models:
        planned += model_checks(contract, model)
    planned += service_level_checks(contract)
    checks = tuple(_unique_ids(planned))
    plan = CheckPlan(contract_id=contract.id, contract_version=contract.version, checks=checks,
                     models=tuple(m.name for m in contract.models), objectives=quality_objectives(contract, checks))
    return mark_sensitive(plan, contract)


def model_checks(contract: Contract, model: Model) -> list[Check]:
    result: list[Check] = []
    # the tables its quality SQL may read, and what each becomes (built where there is SQL: it lists every model)
    tables = model_tables(contract, model) if any(_names_tables(rule) for _, _, rule in model.quality_rules()) else ()
    for field, column in _columns(model.fields):
        if field.computed:
            result.append(Check(f"{model.name}.{column}.{field.semantic_type}", model.name, (), c.NotExecutable(
                f"a {field.semantic_type} (ODCS semanticType) is computed by its transformLogic, not a column of the data"),
                field.source, threshold=None))
            continue
        result += field_checks(model, field, column, tables)
    result += _primary_key_checks(model)
    for key in model.foreign_keys:
        columns = column_names(model, key.columns)
        target = contract.model(key.to_model)
        to_columns = column_names(target, key.to_columns) if target is not None else key.to_columns
        # ODCS 3.2 relationship ids are unique within their list only, so the model prefixes one
        check_id = f"{model.name}.{key.id}" if key.id else f"{model.name}.{'_'.join(columns)}.foreign_key"
        result.append(Check(check_id, model.name, columns,
                            c.ForeignKey(key.to_model, to_columns), key.source, description=key.description))
    for index, rule in enumerate(model.quality):
        result.append(quality_check(model, None, None, rule, f"{model.name}.quality[{index}]", tables))
    return result


def column_names(model: Model, names: Iterable[str]) -> tuple[str, ...]:
    """Property names (as keys, relationships, arguments and SLA elements name them) -> the columns
    the data has: an ODCS `physicalName` is the column, exactly as for the field's own checks."""
    columns = {f.name: f.physical_name or f.name for f in model.fields}
    return tuple(columns.get(name, name) for name in names)


def _columns(fields: tuple[Field, ...]) -> Iterable[tuple[Field, str]]:
    """Top-level fields with their Spark column name (a name may itself contain dots: `D.O.B`).
    Nested struct fields, array items and map values are reported as not executable for now."""
    for field in fields:
        yield field, field.physical_name or field.name


# field attribute -> (id suffix, builder of params, or None to skip); each entry is one constraint
def _constraint_params(field: Field) -> list[tuple[str, c.Params]]:
    found: list[tuple[str, c.Params]] = []
    if field.required:
        found.append(("required", c.NotNull()))
    if field.unique:
        found.append(("unique", c.Unique()))
    if field.pattern is not None:
        found.append(("pattern", c.Regex(field.pattern)))
    if field.format is not None:
        regex = format_regex(field.format)
        found.append(("format", c.Regex(regex, format=field.format) if regex else
                      c.NotExecutable(f"format `{field.format}` has no regex in dc-bridge")))
    if field.enum is not None:
        found.append(("enum", _in_set(field.enum, "enum")))
    if field.min_length is not None or field.max_length is not None:
        found.append(("length", c.LengthBetween(field.min_length, field.max_length)))
    low, strict_low = (field.exclusive_minimum, True) if field.exclusive_minimum is not None else (field.minimum, False)
    high, strict_high = (field.exclusive_maximum, True) if field.exclusive_maximum is not None else (field.maximum, False)
    if low is not None or high is not None:
        found.append(("range", c.ValueBetween(low, high, strict_low, strict_high, exact_only=_wide_decimal(field))))
    return found


def _wide_decimal(field: Field) -> bool:
    """The contract declares the column a decimal of 38 integer digits (`ValueBetween.exact_only`): known
    without data, so SodaCL and suites compiled with no data count its range exactly too."""
    declared = DECIMAL_TYPE.match(field_type(field) or "")
    return bool(declared) and every_digit_whole(int(declared[1]), int(declared[2]))


def field_checks(model: Model, field: Field, column: str, tables: tuple[tuple[str, str], ...] = ()) -> list[Check]:
    base = f"{model.name}.{column}"
    sensitive = is_sensitive(field)
    made = [Check(f"{base}.exists", model.name, (column,), c.ColumnExists(), field.source, threshold=None, sensitive=sensitive)]
    column_type = _column_type(field)
    if column_type is not None:
        made.append(Check(f"{base}.type", model.name, (column,), column_type, field.source, threshold=None, sensitive=sensitive))
    for suffix, params in _constraint_params(field):
        made.append(Check(f"{base}.{suffix}", model.name, (column,), params, field.source, sensitive=sensitive,
                          description=field.description if suffix == "format" else None))
    for index, rule in enumerate(field.quality):
        made.append(replace(quality_check(model, field, column, rule, f"{base}.quality[{index}]", tables), sensitive=sensitive))
    for child_name, child in _nested(field):
        if child_name in _MAP_ELEMENTS:
            made += _map_element_checks(model, child_name, child, column, sensitive)
        elif _constraint_params(child) or child.quality:
            made.append(Check(f"{base}.{child_name}", model.name, (column,),
                              c.NotExecutable(f"constraints on nested fields ({child_name}) are not checked yet"), child.source, threshold=None))
    return made


# a map's key or value element -> the Spark function that lists them in a row
_MAP_ELEMENTS = {"keys": "map_keys", "values": "map_values"}
_ELEMENT = "dcb_element"


def _map_element_checks(model: Model, step: str, element: Field, column: str, sensitive: bool) -> list[Check]:
    """Constraints on a map's keys or values: each one query counting the rows with a key or value that
    violates it (`forall` over `map_keys` / `map_values`), the same SQL in every engine; what has no
    per-element condition is NotExecutable with the reason."""
    base = f"{model.name}.{column}.{step}"
    made = []
    for suffix, params in _constraint_params(element):
        condition = _ELEMENT_CONDITIONS.get(type(params))
        if condition is None:
            reason = params.reason if isinstance(params, c.NotExecutable) else f"`{suffix}` on a map's {step} has no per-element check"
            made.append(Check(f"{base}.{suffix}", model.name, (column,), c.NotExecutable(reason), element.source, threshold=None))
            continue
        query = (f"SELECT COUNT(*) FROM {TABLE_MARKER} WHERE NOT "
                 f"forall({_MAP_ELEMENTS[step]}({quote_identifier(column)}), {_ELEMENT} -> {condition(params)})")
        made.append(Check(f"{base}.{suffix}", model.name, (column,), c.SqlMetric(query), element.source, sensitive=sensitive,
                          description=f"every {step[:-1]} of the map: {suffix}"))
    if element.quality:
        made.append(Check(f"{base}.quality", model.name, (column,),
                          c.NotExecutable(f"quality rules on a map's {step} are not checked yet"), element.source, threshold=None))
    return made


def _bounds(params: c.LengthBetween | c.ValueBetween) -> list[str]:
    if isinstance(params, c.LengthBetween):
        value, limits = f"char_length({_ELEMENT})", ((params.min_length, ">="), (params.max_length, "<="))
    else:
        value = _ELEMENT
        limits = ((params.min_value, ">" if params.strict_min else ">="), (params.max_value, "<" if params.strict_max else "<="))
    return [f"{value} {operator} {sql_literal(bound)}" for bound, operator in limits if bound is not None]


# params -> the SQL condition one key or value meets (null keys or values: only `required` is about them)
_ELEMENT_CONDITIONS: dict[type, Callable[..., str]] = {
    c.NotNull: lambda p: f"{_ELEMENT} IS NOT NULL",
    c.Regex: lambda p: f"({_ELEMENT} IS NULL OR {_ELEMENT} RLIKE {sql_literal(p.pattern)})",
    c.InSet: lambda p: f"({_ELEMENT} IS NULL OR {_ELEMENT} IN ({', '.join(map(sql_literal, p.values))}))",
    c.LengthBetween: lambda p: f"({_ELEMENT} IS NULL OR ({' AND '.join(_bounds(p))}))",
    c.ValueBetween: lambda p: f"({_ELEMENT} IS NULL OR ({' AND '.join(_bounds(p))}))",
}


def _nested(field: Field, prefix: str = "") -> Iterable[tuple[str, Field]]:
    """Every nested field at any depth (struct fields, array items, map keys and values), with its path."""
    children = [(f"fields.{f.name}", f) for f in field.fields]
    children += [(name, f) for name, f in (("items", field.items), ("keys", field.keys), ("values", field.values)) if f]
    for name, child in children:
        yield prefix + name, child
        yield from _nested(child, f"{prefix}{name}.")


def _column_type(field: Field) -> c.ColumnType | None:
    """The column's type, and the types of the nested elements the contract types (checked at any depth)."""
    nested = tuple(_nested_types(field, ()))
    if field.physical_type:
        spark = declared_spark_type(field.physical_type)
        if spark is not None:
            # the logical type is checked too: the physical type implies it unless they contradict (lint DCB113),
            # and then the column itself (a path of no steps) must have a type the logical type allows as well
            logical = contradicting_logical(field.logical_type, field.physical_type)
            own = (((), logical),) if logical else ()
            return c.ColumnType(spark, exact=True, nested=own + nested)
    allowed = allowed_spark_types(field)
    if allowed is None:
        return None
    return c.ColumnType(allowed[0], exact=False, compatible=allowed, nested=nested)


def _nested_types(field: Field, path: tuple) -> Iterable[tuple[tuple, tuple[str, ...]]]:
    """(path, allowed types) of every nested element with a type, at any depth."""
    children = [(("field", child.physical_name or child.name), child) for child in field.fields]
    children += [((step,), child) for step, child in (("items", field.items), ("keys", field.keys), ("values", field.values)) if child]
    for step, child in children:
        allowed = allowed_spark_types(child)
        if allowed is not None:
            yield path + (step,), allowed
        logical = contradicting_logical(child.logical_type, child.physical_type)
        if logical:  # both of its types are checked, as on a column (lint DCB113)
            yield path + (step,), logical
        yield from _nested_types(child, path + (step,))


def allowed_spark_types(field: Field) -> tuple[str, ...] | None:
    """The Spark type names a field's value may have (base names, or one exact type); None when the
    contract states no type. A shape without a type (sub-fields, items, keys) needs its container."""
    if field.physical_type:
        spark = declared_spark_type(field.physical_type)
        if spark is not None:
            return (spark,)
    if field.logical_type in SPARK_TYPES:
        return SPARK_TYPES[field.logical_type]
    if field.fields:
        return ("struct",)
    if field.items:
        return ("array",)
    if field.keys or field.values:
        return ("map",)
    return None


def _primary_key_checks(model: Model) -> list[Check]:
    """A primary key is not null and unique; what its fields already state is not checked twice."""
    if not model.primary_key:
        return []
    fields = {f.name: f for f in model.fields}
    source = model.source
    columns = column_names(model, model.primary_key)
    checks = [Check(f"{model.name}.{column}.required", model.name, (column,), c.NotNull(), source)
              for name, column in zip(model.primary_key, columns) if not (name in fields and fields[name].required)]
    if not (len(model.primary_key) == 1 and model.primary_key[0] in fields and fields[model.primary_key[0]].unique):
        checks.append(Check(f"{model.name}.primary_key", model.name, columns, c.Unique(), source,
                            description="primary key: not null and unique"))
    return checks


# ---------------------------------------------------------------------------------------------
# quality rules


def quality_check(model: Model, field: Field | None, column: str | None, rule: QualityRule, path_id: str,
                  tables: tuple[tuple[str, str], ...] = ()) -> Check:
    """`tables`: what the model's quality SQL may read (`sql.model_tables`); by default the model itself only."""
    check_id = rule.id if rule.id and not rule.imported_from else f"{model.name}.{column}.{rule.id}" if rule.id else path_id
    columns = (column,) if column else ()
    params, columns = _RULE_TYPES[rule.type](model, field, column, rule, columns, tables)
    check = Check(check_id, model.name, columns, params, rule.source, threshold=rule.threshold, unit=rule.unit,
                  severity=rule.severity, dimension=rule.dimension, description=rule.description or rule.name)
    # a kind the engine's own success judges has no threshold, whatever the rule wrote
    return check if kind_of(check).judged_by_threshold else replace(check, threshold=None)


def _text_rule(model, field, column, rule, columns, tables=()):
    return c.NotExecutable("a text rule describes quality in words; no engine can run it"), columns


def _sql_rule(model, field, column, rule, columns, tables=()):
    try:
        return c.SqlMetric(normalise_query(rule.query, model, column, tables)), columns
    except SqlProblem as problem:
        return c.NotExecutable(f"the SQL cannot run: {problem}"), columns
    except RecursionError:  # parsing or rewriting SQL nested too deeply for sqlglot (lint reports it: DCB171)
        return c.NotExecutable("the SQL cannot run: it nests too deeply to parse"), columns


def _library_rule(model, field, column, rule, columns, tables=()):
    if rule.metric not in LIBRARY_METRICS:  # an ODCS 3.0 free-form `rule:` name, or an unknown `metric:` (lint: DCB106, DCB163)
        return c.NotExecutable(f"`{rule.metric}` is not a library metric of the standard; dc-bridge runs {', '.join(LIBRARY_METRICS)}"), columns
    args = rule.arguments
    property_names = args.get("properties")
    if rule.metric == "rowCount":
        return c.RowCount(), ()
    if rule.metric == "duplicateValues":
        names = column_names(model, map(str, property_names)) if isinstance(property_names, list) and property_names else columns
        return (c.Unique(), names) if names else (c.NotExecutable("duplicateValues on a model needs arguments.properties"), columns)
    if not columns:
        return c.NotExecutable(f"{rule.metric} on a model needs a field; write it on the property"), columns
    if rule.metric == "nullValues":
        return c.NotNull(), columns
    if rule.metric == "missingValues":
        missing = args.get("missingValues", [])
        if not isinstance(missing, (list, tuple)):  # never a text read as its characters (lint: DCB101)
            return c.NotExecutable("missingValues must be a list of values"), columns
        return c.NotNull(missing_values=tuple(v for v in missing if v is not None)), columns
    if rule.metric == "invalidValues":
        if "validValues" in args and "pattern" in args:  # lint: DCB101; never one of them silently
            return c.NotExecutable("invalidValues with both validValues and pattern: write one rule for each"), columns
        if "validValues" in args:
            return _in_set(args["validValues"], "validValues"), columns
        if isinstance(args.get("pattern"), str):
            return c.Regex(args["pattern"]), columns
    return c.NotExecutable(f"library metric {rule.metric} with arguments {sorted(args)} is not supported"), columns


def _in_set(values, key: str) -> c.Params:
    """The allowed values of `enum` / `validValues`. A null among them allows nulls, which value checks
    never count anyway, so it is left out (`x IN ('a', NULL)` would be NULL, never a violation); no value
    left, or a list that is not one (a text would be its characters), cannot run (lint: DCB101)."""
    if not isinstance(values, (list, tuple)):
        return c.NotExecutable(f"{key} must be a list of values")
    allowed = tuple(v for v in values if v is not None)
    if not allowed or any(isinstance(v, (dict, list, tuple)) for v in allowed):
        return c.NotExecutable(f"{key} lists no value a column could hold" if not allowed else f"{key} lists a value that is not a single value")
    return c.InSet(allowed)


def _names_tables(rule: QualityRule) -> bool:
    """Whether a rule may name tables the plan binds (`model_tables`): an SQL rule, a custom Soda or GX rule."""
    return rule.type == "sql" or (rule.type == "custom" and rule.engine in _CUSTOM_PARAMS)


def _custom_rule(model, field, column, rule, columns, tables=()):
    """The implementation as the contract wrote it: the engine whose syntax it is reads it (its translate.py)."""
    custom = _CUSTOM_PARAMS.get(rule.engine)
    if custom is None:
        return c.NotExecutable(f"engine `{rule.engine}` is not run by dc-bridge"), columns
    return custom(rule.implementation, tables or _own_tables(model)), columns


def _own_tables(model: Model) -> tuple[tuple[str, str], ...]:
    """The model's own names -> TABLE_MARKER: what a query may read when no other model is known."""
    return tuple(sorted({name.lower(): TABLE_MARKER for name in (model.name, model.physical_name) if name}.items()))


# a custom rule's `engine` (contract vocabulary) -> the params of its kind, given the implementation and the tables
# its check may name (a Soda check names datasets; a GX query reads its model as `{batch}` or by its name)
_CUSTOM_PARAMS: dict[str, Callable[..., c.Params]] = {"gx": c.CustomGx, "soda": c.CustomSoda}


_RULE_TYPES: dict[str, Callable] = {"text": _text_rule, "sql": _sql_rule, "library": _library_rule, "custom": _custom_rule}


def normalise_query(query: str, model: Model, column: str | None, tables: tuple[tuple[str, str], ...] = ()) -> str:
    """Fill placeholders, check the query (contract/sql.py: read-only, and reading only what `tables`
    allows), and write each table it reads as what the run has for it.

    Contracts often name the table directly (`FROM orders`); the engines run on their own views, so
    every reference to the model (by name or physical name) becomes TABLE_MARKER, and one to another
    model of the contract becomes that model's run view (`sql.model_tables`). Without `tables`, the
    query may read its own model only.
    """
    tables = tables or _own_tables(model)
    normalised = _normalised_template(query, tables, column is not None)
    return normalised if column is None else normalised.replace(_STAND_IN, quote_identifier(column))


# a contract repeats one query on many fields: it is parsed and rewritten once, with this column
# in the field's place, which the field's own quoted name then replaces in the generated SQL
_STAND_IN = quote_identifier(FIELD_STAND_IN)


@functools.lru_cache(maxsize=4096)
def _normalised_template(query: str, tables: tuple[tuple[str, str], ...], has_column: bool) -> str:
    filled = substitute(query, table=TABLE_MARKER, column=FIELD_STAND_IN if has_column else None)
    check_read_only(filled, [name for name, _ in tables])
    return retarget(filled, dict(tables))


# ---------------------------------------------------------------------------------------------
# service levels

# service level kind -> its params, given the level and its columns (the timestamp first)
_SERVICE_LEVEL_PARAMS: dict[str, Callable[[ServiceLevel, tuple[str, ...]], c.Params]] = {
    "freshness": lambda level, columns: c.Freshness(level.threshold),
    # ODCS latency names one element: without a source timestamp it is the age of the newest row
    "latency": lambda level, columns: c.Latency(level.source_field, level.threshold) if level.source_field else c.Freshness(level.threshold),
    "retention": lambda level, columns: c.Retention(level.threshold),
    "frequency": lambda level, columns: c.Frequency(level.threshold, _longest_gap_query(columns[0])),
    "timeOfAvailability": lambda level, columns: c.SqlMetric(_latest_time_of_day_query(columns[0], level.utc_offset)),
}
# service levels one run's data cannot show, judged over the run history -> (params, the comparison with the SLA's percent)
_HISTORY_SERVICE_LEVELS: dict[str, tuple[c.Params, str]] = {
    "availability": (c.Availability(), ">="),
    "errorRate": (c.ErrorRate(), "<="),
}
# a percent as DCS writes `servicelevels.availability.percentage`
_PERCENT_TEXT = re.compile(r"\s*(\d+(?:\.\d+)?)\s*%\s*")


def service_level_checks(contract: Contract) -> list[Check]:
    """One check per service level: a check of the data, or `not_executable` with the reason."""
    made = []
    for level in contract.service_levels:
        check_id = level.id or f"{level.model or c.CONTRACT_MODEL}.{level.name}"
        if level.kind in _HISTORY_SERVICE_LEVELS:
            made.append(_history_check(level, check_id))
            continue
        builder = _SERVICE_LEVEL_PARAMS.get(level.kind)
        if builder is None:
            reason = f"`{level.name}` is not a service level dc-bridge can judge from the data"
            made.append(Check(check_id, level.model or c.CONTRACT_MODEL, (), c.NotExecutable(reason), level.source, threshold=None,
                              description=level.description))
            continue
        if level.threshold is None or level.model is None or level.field is None:
            missing = "duration" if level.kind != "timeOfAvailability" else "time of day"
            params = c.NotExecutable(f"the {level.kind} service level names no {missing if level.threshold is None else 'timestamp field'}")
            made.append(Check(check_id, level.model or c.CONTRACT_MODEL, (), params, level.source, threshold=None, description=level.description))
            continue
        fields = (level.field, level.source_field) if level.source_field else (level.field,)
        columns = column_names(contract.model(level.model), fields) if contract.model(level.model) else fields
        check = Check(check_id, level.model, columns, builder(level, columns), level.source, dimension="timeliness",
                      description=level.description)
        # a measured age, gap or time of day is judged against the SLA's; a count of late or expired rows allows none
        if kind_of(check).measure in ("seconds", "value"):
            check = replace(check, threshold=Threshold(operator="<=", value=level.threshold.total_seconds()))
        made.append(check)
    return made


def _history_check(level: ServiceLevel, check_id: str) -> Check:
    """An availability or errorRate SLA: its percent, compared with the share the fold measures over
    the run history; a value that is no percent is `not_executable` with the reason, as for a dataQuality SLO."""
    params, operator = _HISTORY_SERVICE_LEVELS[level.kind]
    target = _history_percent(level.raw_value, level.unit)
    if target is None:
        params = c.NotExecutable(f"{level.name} is judged as a percent of runs or checks: write a number from 0 to 100 with "
                                 f"`unit: percent` (found value {level.raw_value!r}, unit {level.unit!r})")
    threshold = Threshold(operator=operator, value=target) if target is not None else None
    return Check(check_id, level.model or c.CONTRACT_MODEL, (), params, level.source, threshold=threshold, unit="percent",
                 description=level.description)


def _history_percent(value, unit: str | None) -> float | None:
    """The percent an availability or errorRate SLA gives: a number with `unit: percent` (or `%`, or no
    unit: ODCS's example writes `value: 99.95, unit: percent`), or DCS's text `99.9%`; None otherwise."""
    if isinstance(value, str) and unit is None:
        found = _PERCENT_TEXT.fullmatch(value)
        value = float(found.group(1)) if found else None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or unit not in (None, "percent", "%"):
        return None
    return float(value) if 0 <= value <= 100 else None


def _latest_time_of_day_query(column: str, utc_offset) -> str:
    """The latest time of day, in seconds after midnight in the SLA's offset from UTC, at which a
    row's timestamp falls: the day's data is all there by then. NULL when no row has one."""
    shifted = f"{epoch_seconds(quote_identifier(column))} + {int(utc_offset.total_seconds())}"
    return f"SELECT MAX(pmod({shifted}, 86400)) FROM {TABLE_MARKER} WHERE {quote_identifier(column)} IS NOT NULL"


def quality_objectives(contract: Contract, checks: tuple[Check, ...]) -> tuple[c.Objective, ...]:
    """Each `dataQuality` SLO with the ids of the checks its named rules became (a rule's checks carry its source)."""
    checks_at: dict[tuple[str, str], list[str]] = {}
    for check in checks:
        checks_at.setdefault((check.source.file, check.source.path), []).append(check.id)
    rule_sources = {rule.id: rule.source for _, _, rule in contract.quality_rules() if rule.id}
    made = []
    for objective in contract.quality_objectives:
        check_ids = tuple(check_id for rule_id in objective.rule_ids if rule_id in rule_sources
                          for check_id in checks_at.get((rule_sources[rule_id].file, rule_sources[rule_id].path), ()))
        problem = None
        if objective.value is None:
            problem = "no `value`: a dataQuality SLO is judged against the percent of passing evaluations it states (e.g. `value: 99`)"
        elif objective.unit not in (None, "percent", "%"):
            problem = f"unit `{objective.unit}`: a dataQuality SLO is judged as a percent of passing evaluations"
        elif not check_ids:
            problem = "it names no quality rule that became a check"
        made.append(c.Objective(objective.id or f"dataQuality@{objective.source.path}", objective.value, check_ids, objective.source,
                                objective.description, problem))
    return tuple(made)


def _longest_gap_query(column: str) -> str:
    """The longest time in seconds between two consecutive updates: distinct non-null values of `column`, in order.
    NULL (fewer than two updates) is no gap to judge, and each engine reports it as such."""
    seconds = epoch_seconds(quote_identifier(column))
    return (f"SELECT MAX(t - previous) FROM (SELECT t, LAG(t) OVER (ORDER BY t) AS previous FROM "
            f"(SELECT DISTINCT {seconds} AS t FROM {TABLE_MARKER} WHERE {quote_identifier(column)} IS NOT NULL) AS updates) AS gaps")


# ---------------------------------------------------------------------------------------------


def _unique_ids(planned: list[Check]) -> list[Check]:
    """Ids are the join key between engines; a repeated id gets a numeric suffix, deterministically."""
    counts: dict[str, int] = {}
    result = []
    for check in planned:
        n = counts.get(check.id, 0)
        counts[check.id] = n + 1
        result.append(check if n == 0 else replace(check, id=f"{check.id}~{n + 1}"))
    return result

