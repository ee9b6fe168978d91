"""Lint, part two: the semantic rules that decide whether a normalised contract can run (keys, names, constraints,
limits, quality rules and their SQL, custom engine checks, patterns, service levels)."""

from __future__ import annotations

import difflib
import functools
import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any, Iterable

import sqlglot
import yaml
from sqlglot import exp

from dc_bridge.contract.lint.gx_catalog import EXPECTATION_TYPES, gx_name
from dc_bridge.contract.lint.java_regex import RegexCompiler, java_regex_errors
from dc_bridge.contract.limits import (
    LENGTH_RANGE, MAX_PRECISION, NUMBER_RANGE, PRECISION_RANGE, length_problem, number_problem, shown,
)
from dc_bridge.contract.model import Contract, Field, Model, QualityRule, Source, walk_fields
from dc_bridge.contract.types import (
    LOGICAL_KINDS, NUMERIC_TYPES, SPARK_TYPES, STRING_TYPES, TEMPORAL_TYPES, contradicting_logical, declared_spark_type,
    spark_physical_type,
)
from dc_bridge.contract.findings import Finding
from dc_bridge.contract.formats import format_regex
from dc_bridge.contract.lint.schema import shortened
from dc_bridge.contract.sql import (
    FIELD_STAND_IN, TABLE_MARKER, TOO_DEEP, SqlProblem, allowed_tables_text, check_expression, check_read_only, custom_placeholders,
    model_tables, substitute, unknown_placeholders, view_name, view_tables,
)

# (standard, version or version prefix) -> bundled official schema; the packages carry the newest ones. ODCS 3.0's
def semantic_findings(contract: Contract, regex_compiler: RegexCompiler | None = java_regex_errors) -> list[Finding]:
    """The rules over a normalised contract; `regex_compiler` judges its patterns as Java does (java_regex.py),
    None leaves them out (a run judges them apart, `pattern_findings`, once the rest found nothing that stops it)."""
    findings: list[Finding] = []
    options = _options(contract)
    views = view_tables(contract)
    for model in contract.models:
        findings += _key_findings(contract, model)
        findings += _name_findings(model)
        rules = model.quality_rules()
        # what the model's quality SQL may read (only built where there is SQL: it lists every model)
        tables = model_tables(contract, model) if any(rule.type == "sql" or (rule.type == "custom" and rule.engine in ("soda", "gx"))
                                                      for _, _, rule in rules) else ()
        for field in walk_fields(model.fields):
            findings += _constraint_findings(field, options)
            findings += _type_findings(field, contract.format)
        allowed = allowed_tables_text(contract, model) if tables else None
        for _, field, rule in rules:
            said = _rule_findings(rule, field, tables, allowed, views)
            findings += said
            if rule.type == "sql" and rule.query and not said:
                findings += _column_findings(contract, model, rule, field is not None, tables)
    if regex_compiler is not None:
        findings += pattern_findings(contract, regex_compiler)
    findings += _service_level_findings(contract)
    return findings


def pattern_findings(contract: Contract, regex_compiler: RegexCompiler) -> list[Finding]:
    """The contract's patterns (fields' and invalidValues rules') as `regex_compiler` judges them, as Java does
    (DCB140, DCB141), and those that backtrack catastrophically (DCB142)."""
    options = _options(contract)
    patterns: list[tuple[str, Source, str]] = []  # (pattern, where, path suffix)
    for model in contract.models:
        patterns += [(field.pattern, field.source, options + "pattern") for field in walk_fields(model.fields) if field.pattern is not None]
        patterns += [(rule.arguments["pattern"], rule.source, "arguments.pattern") for _, _, rule in model.quality_rules()
                     if rule.metric == "invalidValues" and isinstance(rule.arguments.get("pattern"), str)]
    return _regex_findings(patterns, regex_compiler)


def _options(contract: Contract) -> str:
    """Where a field's constraints are written: DCS on the field, ODCS under logicalTypeOptions."""
    return "logicalTypeOptions." if contract.format == "odcs" else ""


# time-based service level kind -> the canonical types whose values are points in time it can measure
# (a string holds them only with a date or date-time format; timeOfAvailability needs a time of day)
_SLA_TIME_TYPES = {
    "freshness": {"date", "timestamp", "timestamp_ntz"}, "latency": {"date", "timestamp", "timestamp_ntz"},
    "retention": {"date", "timestamp", "timestamp_ntz"}, "frequency": {"date", "timestamp", "timestamp_ntz"},
    "timeOfAvailability": {"timestamp", "timestamp_ntz"},
}
_TIME_FORMATS = {"date": "date", "date-time": "timestamp"}


def _service_level_findings(contract: Contract) -> list[Finding]:
    """DCB190: a time-based SLA on a declared column of another type would read its values (1, 2, 'abc')
    as seconds since 1970, or as nothing, and judge that."""
    findings = []
    for level in contract.service_levels:
        allowed = _SLA_TIME_TYPES.get(level.kind)
        model = contract.model(level.model) if allowed and level.model else None
        for name in (level.field, level.source_field) if model else ():
            field = model.field(name) if name else None
            declared = _declared_type(field) if field else None
            if declared is not None and declared not in allowed:
                findings.append(_at(level.source, "DCB190", f"{level.name} is measured on `{level.model}.{name}`, declared `{declared}`, "
                                    "which holds no point in time", expected=" or ".join(sorted(allowed)), found=declared))
    return findings


def _declared_type(field: Field) -> str | None:
    """The canonical type a field declares (its logical type, else its physical type); a string with a date format counts as that."""
    declared = field.logical_type or spark_physical_type(field.physical_type or "")
    return _TIME_FORMATS.get(field.format or "", declared) if declared == "string" else declared


# where each standard writes a field's two types
_TYPE_KEYS = {"odcs": ("logicalType", "physicalType"), "dcs": ("type", "config.sparkType")}


def _type_findings(field: Field, standard: str) -> list[Finding]:
    """DCB113: a physical type of another kind than the logical type (`string` stored as INT64): the type
    check compares the column with both, so it always fails. DCB114: a physical type dc-bridge cannot
    name as a Spark type is not checked; only the logical type is."""
    if not field.physical_type:
        return []
    logical_key, physical_key = _TYPE_KEYS.get(standard, _TYPE_KEYS["odcs"])
    spark = declared_spark_type(field.physical_type)
    if spark is None:
        checked = f"only the {logical_key} `{field.logical_type}` is checked" if field.logical_type else "the column's type is not checked"
        return [_at(field.source, "DCB114", f"{physical_key} `{field.physical_type}` is no Spark type dc-bridge can name: {checked}",
                    physical_key, expected="a Spark type (bigint, decimal(10,2), array<string>, ...)", found=repr(field.physical_type))]
    if contradicting_logical(field.logical_type, field.physical_type):
        return [_at(field.source, "DCB113", f"{logical_key} `{field.logical_type}` and {physical_key} `{field.physical_type}` (Spark `{spark}`) "
                                            "name different kinds of value: no column is both, so its type check always fails",
                    physical_key, expected=f"a {physical_key} of a `{field.logical_type}`: " + ", ".join(LOGICAL_KINDS[field.logical_type]),
                    found=spark)]
    return []


def _at(source: Source, code: str, message: str, suffix: str = "", **details) -> Finding:
    path = f"{source.path}.{suffix}" if suffix else source.path
    return Finding(code, source.file, path, message, line=source.line, **details)


def _name_findings(model: Model) -> list[Finding]:
    """DCB173: `${` in a name. Names are quoted, never spliced, but Spark fills in `${...}` from its
    configuration, the environment and JVM system properties before it parses SQL, inside quoted
    names too, on every session that has not turned that off (a caller's, a cluster's)."""
    named = [(model.source, "model", model.name), (model.source, "physical name", model.physical_name)]
    named += [(f.source, "field", f.name) for f in walk_fields(model.fields)]
    named += [(f.source, "physical name", f.physical_name) for f in walk_fields(model.fields)]
    return [_at(source, "DCB173", f"the {what} `{name}` holds `${{`, which Spark would fill in from its configuration, "
                                  "the environment or system properties before running SQL",
                expected="a name without `${`", found=repr(name))
            for source, what, name in named if name and "${" in name]


def _key_findings(contract: Contract, model: Model) -> list[Finding]:
    findings = []
    names = {f.name for f in model.fields}
    for column in model.primary_key:
        if column not in names:
            findings.append(_at(model.source, "DCB125", f"primary key column `{column}` is not a field of `{model.name}`", "primaryKey",
                                expected="a field of the model", found=repr(column)))
    for key in model.foreign_keys:
        target = contract.model(key.to_model)
        missing = [c for c in key.columns if c not in names]
        if target is None:
            missing_target = f"model `{key.to_model}`"
        else:
            absent = [c for c in key.to_columns if target.field(c) is None]
            missing_target = f"field(s) {', '.join(f'`{key.to_model}.{c}`' for c in absent)}" if absent else None
        if missing or missing_target:
            what = missing_target or f"field(s) {', '.join(missing)} of `{model.name}`"
            named = f" `{key.id}`" if key.id else ""
            findings.append(_at(key.source, "DCB125", f"the foreign key{named} points at {what}, which does not exist",
                                expected="an existing model.field", found=f"{key.to_model}.{','.join(key.to_columns)}"))
    return findings


def _constraint_findings(field: Field, options: str = "") -> list[Finding]:
    findings = []
    for low_name, high_name, low, high in (
        ("minLength", "maxLength", field.min_length, field.max_length),
        ("minimum", "maximum", field.minimum, field.maximum),
        ("exclusiveMinimum", "exclusiveMaximum", field.exclusive_minimum, field.exclusive_maximum),
    ):
        pair = _ordered(low, high)
        if pair is not None and pair[0] > pair[1]:
            findings.append(_at(field.source, "DCB164", f"`{low_name}` {low} is larger than `{high_name}` {high}; no value can satisfy both",
                                options + low_name, expected=f"{low_name} <= {high_name}", found=f"{low} > {high}"))
    findings += _limit_findings(field, options)
    logical = field.logical_type
    if logical in NUMERIC_TYPES:
        # a bound that is no number compares as NULL in Spark SQL: no value would ever be outside it
        for name, bound in (("minimum", field.minimum), ("maximum", field.maximum),
                            ("exclusiveMinimum", field.exclusive_minimum), ("exclusiveMaximum", field.exclusive_maximum)):
            if bound is not None and not _is_number(bound):
                findings.append(_at(field.source, "DCB101", f"`{name}` of a `{logical}` field must be a number",
                                    options + name, expected="a number", found=shortened(bound)))
    if logical is not None:
        if (field.pattern or field.min_length is not None or field.max_length is not None or field.format) and logical not in STRING_TYPES:
            findings.append(_at(field.source, "DCB165", f"string constraints on a `{logical}` field are checked on its text form",
                                expected="a string field", found=logical))
        if any(v is not None for v in (field.minimum, field.maximum, field.exclusive_minimum, field.exclusive_maximum)) \
                and logical not in NUMERIC_TYPES | TEMPORAL_TYPES:
            findings.append(_at(field.source, "DCB165", f"a numeric range on a `{logical}` field", expected="a number or date field",
                                found=logical))
    if field.format is not None and format_regex(field.format) is None:
        findings.append(_at(field.source, "DCB111", f"format `{field.format}` is not one dc-bridge can check; it is skipped",
                            options + "format", expected="email, uri, uuid, date, date-time, ipv4, ipv6, hostname", found=repr(field.format)))
    return findings


_DECIMAL_TYPE = re.compile(r"^\s*(?:decimal|numeric|number)\s*\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\)\s*$", re.IGNORECASE)


def _limit_findings(field: Field, options: str = "") -> list[Finding]:
    """DCB151 for a bound, length or decimal precision no engine can run (contract/limits.py)."""
    findings = []
    for name, bound in (("minimum", field.minimum), ("maximum", field.maximum),
                        ("exclusiveMinimum", field.exclusive_minimum), ("exclusiveMaximum", field.exclusive_maximum)):
        problem = None if bound is None else number_problem(bound)
        if problem:
            findings.append(_at(field.source, "DCB151", f"`{name}: {shown(bound)}` {problem}: no engine can compare a value with it", options + name,
                                expected=NUMBER_RANGE, found=shown(bound)))
    for name, length in (("minLength", field.min_length), ("maxLength", field.max_length)):
        problem = None if length is None else length_problem(length)
        if problem:
            findings.append(_at(field.source, "DCB151", f"`{name}: {shown(length)}` {problem}: no engine can compare a length with it", options + name,
                                expected=LENGTH_RANGE, found=shown(length)))
    declared = _DECIMAL_TYPE.match(field.physical_type or "")
    decimals = []
    if SPARK_TYPES.get(field.logical_type or "", ("",))[0] == "decimal":  # as runner/data.py reads a decimal's precision
        decimals.append(("precision", "scale", field.precision, field.scale, options))
    if declared:
        decimals.append(("physicalType", "physicalType", _whole(declared[1]), _whole(declared[2]), ""))
    for precision_key, scale_key, precision, scale, prefix in decimals:
        bad_precision = precision is not None and not 1 <= precision <= MAX_PRECISION
        bad_scale = scale is not None and not 0 <= scale <= (MAX_PRECISION if precision is None or bad_precision else precision)
        if bad_precision or bad_scale:
            written = field.physical_type if precision_key == "physicalType" else \
                ", ".join(f"{k} {v}" for k, v in (("precision", precision), ("scale", scale)) if v is not None)
            findings.append(_at(field.source, "DCB151", f"`{shown(written)}` is no Spark decimal type: no engine can read or check it",
                                prefix + (precision_key if bad_precision else scale_key), expected=PRECISION_RANGE, found=shown(written)))
    return findings


def _whole(digits: str | None) -> int | None:
    """A precision as written; digits beyond any precision are not converted (Python refuses 4,300 of them)."""
    if digits is None:
        return None
    return int(digits) if len(digits) <= 9 else 10**9


def _is_number(value: Any) -> bool:
    """A number, or text that is one (`"0.01"`, written in quotes to keep a decimal's digits)."""
    if isinstance(value, bool):
        return False
    if isinstance(value, (int, float)):
        return True
    try:
        float(str(value))
    except ValueError:
        return False
    return True


def _ordered(a: Any, b: Any) -> tuple[Any, Any] | None:
    """Two bounds as values that compare as the engines compare them, or None when they do not compare:
    numbers (also quoted ones, `"5"` < `"10"`) as exact decimals, other text (dates) as text."""
    if a is None or b is None:
        return None
    numbers = _exact(a), _exact(b)
    if None not in numbers:
        return numbers
    if isinstance(a, str) and isinstance(b, str) and not _is_number(a) and not _is_number(b):
        return a, b
    return None


def _exact(value: Any) -> Decimal | None:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return None
    try:
        number = Decimal(value.strip() if isinstance(value, str) else repr(value) if isinstance(value, float) else value)
    except (InvalidOperation, ValueError):
        return None
    return number if number.is_finite() else None


def _rule_findings(rule: QualityRule, field: Field | None, tables: tuple[tuple[str, str], ...] = (), allowed: str | None = None,
                   views: frozenset[str] = frozenset()) -> list[Finding]:
    findings = []
    if rule.type == "sql" and rule.query:
        for placeholder in unknown_placeholders(rule.query):
            findings.append(_at(rule.source, "DCB172", f"unknown placeholder {placeholder} in the query", "query",
                                expected="{model} {table} {field} {column} {object} {property} (optionally with $)", found=placeholder))
        problem = None if findings else _sql_problem(rule.query, field is not None, tables, allowed)
        if problem is not None:
            findings.append(_at(rule.source, problem.code, str(problem) + _table_meant(str(problem), tables), "query",
                                expected="one read-only SELECT",
                                found=rule.query.strip().splitlines()[0][:80] if rule.query.strip() else "empty"))
    if rule.type == "custom":
        # a Soda or GX check's queries may name the contract's models as its team does (the plan binds them:
        # CustomSoda.tables, CustomGx.tables)
        findings += _custom_findings(rule, views, frozenset(name for name, _ in tables))
    if field is None and rule.metric in ("nullValues", "missingValues", "invalidValues"):
        findings.append(_at(rule.source, "DCB102", f"{rule.metric} counts values of one field; this rule is on the model",
                            expected="the rule under the property it checks", found="a model-level rule",
                            hint="Move the rule into the `quality` list of the property it is about."))
    # the standard does not require them: the one rule cannot run (`not_executable`), as an SLA without a value
    if rule.metric == "invalidValues" and not ({"validValues", "pattern"} & set(rule.arguments)):
        findings.append(_at(rule.source, "DCB106", "invalidValues needs `arguments.validValues` or `arguments.pattern`; the rule is not run", "arguments",
                            expected="validValues: [...] or pattern: '...'", found=", ".join(rule.arguments) or "no arguments"))
    return findings


_NOT_ALLOWED = re.compile(r"the SQL reads `([^`]+)`, which is not a table it may read")


def _table_meant(message: str, tables: tuple[tuple[str, str], ...]) -> str:
    """"; did you mean `orders`?" for a table the query may not read whose name is close to one it may."""
    refused = _NOT_ALLOWED.search(message)
    names = [name for name, _ in tables if not name.startswith("dcb_")]
    close = difflib.get_close_matches(refused[1].lower(), names, n=1, cutoff=0.6) if refused else []
    return f"; did you mean `{close[0]}`?" if close else ""


def _declared_columns(model: Model) -> set[str]:
    """The top-level columns a model declares, lower case (Spark resolves names ignoring case): each field's
    physical name and its name."""
    return {name.lower() for f in model.fields for name in (f.name, f.physical_name) if name}


@dataclass(frozen=True)
class _QueryNames:
    """What a quality query names, read once per text (contracts repeat one query on many fields)."""
    # each table or alias it reads from (lower case) -> the table's name, or None for its own rows (a CTE's,
    # a subquery's, an UNNEST's)
    sources: dict[str, str | None]
    own: frozenset[str]  # names it defines itself: aliases, CTE column lists, lambda variables
    columns: tuple[tuple[str, ...], ...]  # each column reference, as its parts (`o.order_id`: ("o", "order_id"))


@functools.lru_cache(maxsize=4096)
def _query_names(text: str) -> _QueryNames | None:
    try:
        tree = sqlglot.parse_one(text, read="spark")
    except Exception:  # `_sql_problem` has read it already; a text sqlglot cannot read again names nothing here
        return None
    sources: dict[str, str | None] = {}
    for table in tree.find_all(exp.Table):
        name = ".".join(part.name for part in table.parts).lower()
        sources.setdefault(name, name)
        if table.alias:
            sources[table.alias.lower()] = name
    for alias in tree.find_all(exp.TableAlias):
        if alias.name and not isinstance(alias.parent, exp.Table):
            sources.setdefault(alias.name.lower(), None)
    own = {node.alias.lower() for node in tree.find_all(exp.Alias) if node.alias}
    own |= {column.name.lower() for alias in tree.find_all(exp.TableAlias) for column in alias.columns}
    own |= {variable.name.lower() for lam in tree.find_all(exp.Lambda) for variable in lam.expressions
            if isinstance(variable, exp.Identifier)}
    columns = tuple(dict.fromkeys(tuple(part.name for part in column.parts) for column in tree.find_all(exp.Column)))
    return _QueryNames(sources, frozenset(own | {FIELD_STAND_IN.lower()}), columns)


@functools.lru_cache(maxsize=64)
def _targets(tables: tuple[tuple[str, str], ...]) -> dict[str, str]:
    return dict(tables)


def _column_findings(contract: Contract, model: Model, rule: QualityRule, has_field: bool,
                     tables: tuple[tuple[str, str], ...]) -> list[Finding]:
    """DCB175: a column the query names that no model it reads declares, with a "did you mean". A warning: a
    contract need not declare every column of the data, and the column may be there; if it is not, Spark fails
    the check when it runs. Names the query itself defines (aliases, CTEs, lambda variables) are its own, and a
    column read through a CTE or subquery is left to Spark."""
    names = _query_names(substitute(rule.query, table=TABLE_MARKER, column=FIELD_STAND_IN if has_field else None))
    if names is None:
        return []
    targets = _targets(tables)
    views = {view_name(contract.id, m.name): m for m in contract.models} if any(
        targets.get(table, TABLE_MARKER) != TABLE_MARKER for table in names.sources.values() if table) else {}
    read: dict[str, Model | None] = {}  # table or alias -> the model it reads (None: the query's own rows)
    for alias, table in names.sources.items():
        target = targets.get(table, TABLE_MARKER if table == TABLE_MARKER else None) if table else None
        read[alias] = model if target == TABLE_MARKER else views.get(target) if target else None
    models_read = list({m.name: m for m in read.values() if m is not None}.values())
    unknown: dict[str, list[Model]] = {}  # column as written -> the models it could be a column of
    for parts in names.columns:
        at = next((i for i, part in enumerate(parts[:-1]) if part.lower() in read), None)
        if at is None:  # unqualified, or `struct.field` of a column
            name, among = parts[0], models_read
        elif read[parts[at].lower()] is None:
            continue  # a CTE's or a subquery's column: what it holds is the query's own business
        else:
            name, among = parts[at + 1], [read[parts[at].lower()]]
        if among and name and name.lower() not in names.own and not any(name.lower() in _declared_columns(m) for m in among):
            unknown.setdefault(name, []).extend(among)
    findings = []
    for name, among in unknown.items():
        shown = list(dict.fromkeys(f"`{m.name}`" for m in among))
        close = difflib.get_close_matches(name.lower(), sorted(set().union(*(_declared_columns(m) for m in among))), n=1, cutoff=0.6)
        meant = f"; did you mean `{close[0]}`?" if close else ""
        which = f"which {shown[0]} does not declare" if len(shown) == 1 else f"which none of {', '.join(shown)} declares"
        findings.append(_at(rule.source, "DCB175", f"the query names the column `{name}`, {which}{meant}", "query",
                            expected=f"`{close[0]}`" if close else f"a column of {' or '.join(shown)}", found=f"`{name}`"))
    return findings


@functools.lru_cache(maxsize=4096)
def _sql_problem(query: str, has_field: bool, tables: tuple[tuple[str, str], ...] = (), allowed: str | None = None) -> SqlProblem | None:
    """Contracts repeat the same query on many fields and models: each text is parsed once (contract/sql.py
    caches the parse, here with the plan's stand-ins so the plan reuses it), each model's tables are checked."""
    try:
        check_read_only(substitute(query, table=TABLE_MARKER, column=FIELD_STAND_IN if has_field else None),
                        [name for name, _ in tables], allowed=allowed)
    except SqlProblem as problem:
        return problem
    except RecursionError:  # contract/sql.py refuses deep SQL itself; should a path of the parser still recurse out
        return SqlProblem("DCB171", TOO_DEEP)
    return None


def _custom_findings(rule: QualityRule, views: frozenset[str] = frozenset(), names: frozenset[str] = frozenset()) -> list[Finding]:
    """`names`: the models' names a query of the check may read besides the views (a Soda check's, which the plan binds)."""
    if rule.engine not in ("gx", "soda"):
        return [_at(rule.source, "DCB180", f"engine `{rule.engine}` is not one dc-bridge runs", "engine",
                    expected="great-expectations or soda", found=repr(rule.engine))]
    return _custom_shape_findings(rule) or _custom_sql_findings(rule, views, names)


# SQL a custom check hands to Spark: GX `unexpected_rows_query`, Soda `fail query`, `<metric> query`
# (keys ending in "query"), and SQL expressions: Soda `<metric> expression`, `fail condition`,
# `filter`, GX `row_condition` (with `condition_parser: spark`) and its `pass_through_filter`
_SQL_EXPRESSION_KEYS = ("expression", "condition", "filter")
# GX's own row-condition grammar (`col("x") > 5`): GX turns it into Spark columns itself, never into SQL
_GX_CONDITION_PARSERS = {"great_expectations", "great_expectations__experimental__"}


def _custom_sql_findings(rule: QualityRule, views: frozenset[str] = frozenset(), names: frozenset[str] = frozenset()) -> list[Finding]:
    """The SQL inside a custom check runs verbatim in Spark, so the rules of quality SQL apply, and it may
    read only what is the run's own data when it runs: GX's `{batch}` and the models' views, and in a query (not
    an expression: the translations bind queries only, engines/soda/translate.py `bind_soda_line`, engines/gx/translate.py
    `bind_gx_query`) `names`."""
    body = rule.implementation
    if isinstance(body, str):
        try:
            body = yaml.safe_load(body)
        except yaml.YAMLError:
            return []
    allowed = ("its model as {batch} (GX), " + ("the contract's models by name (in a query), " if names else "")
               + "or the models' views " + ", ".join(sorted(views)[:6]) + (", ..." if len(views) > 6 else ""))
    findings = []
    for key, text, parent in _string_values(body):
        name = key.lower().replace("_", " ")
        readable = views
        if name.endswith("query"):
            check, readable = check_read_only, views | names
        elif name.endswith(_SQL_EXPRESSION_KEYS):
            if key == "row_condition" and str(parent.get("condition_parser", "")).lower() in _GX_CONDITION_PARSERS:
                continue  # GX's own grammar; `condition_parser: spark` hands the text to Spark as SQL
            check = check_expression
        else:
            continue
        try:
            check(custom_placeholders(text), readable, allowed=allowed)
        except SqlProblem as problem:
            findings.append(_at(rule.source, problem.code, f"`{key}` of the custom check: {problem}", "implementation",
                                expected="one read-only SELECT" if check is check_read_only else "one SQL expression",
                                found=shortened(text)))
    return findings


def _string_values(node: Any, key: str = "", parent: dict | None = None) -> Iterable[tuple[str, str, dict]]:
    """(key, text, the mapping it is in) for every string value in a nested mapping/list, with the key it is written under."""
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _string_values(v, str(k), node)
    elif isinstance(node, list):
        for item in node:
            yield from _string_values(item, key, parent)
    elif isinstance(node, str) and key:
        yield key, node, parent if parent is not None else {}


def _custom_shape_findings(rule: QualityRule) -> list[Finding]:
    body = rule.implementation
    if rule.engine == "soda":
        if isinstance(body, str):
            try:
                yaml.safe_load(body)
            except yaml.YAMLError as exc:
                return [_at(rule.source, "DCB184", f"the SodaCL text is not valid YAML: {getattr(exc, 'problem', None) or exc}",
                            "implementation", expected="SodaCL (YAML)", found=shortened(body))]
        elif not isinstance(body, (dict, list)):
            return [_at(rule.source, "DCB184", "a Soda check must be a mapping, a list or SodaCL text", expected="mapping or text",
                        found=type(body).__name__)]
        return []
    if not isinstance(body, dict):
        return [_at(rule.source, "DCB181", "a GX check must be a mapping with `type` and `kwargs`", expected="a mapping", found=shortened(body))]
    findings = []
    if "expectation_type" in body and "type" not in body:
        findings.append(_at(rule.source, "DCB185", "`expectation_type` is the GX 0.x spelling", expected="type", found="expectation_type"))
    name = body.get("type") or body.get("expectation_type")
    if not isinstance(name, str) or gx_name(name) not in EXPECTATION_TYPES:
        findings.append(_at(rule.source, "DCB181", f"`{name}` is not a GX 1.x expectation type", expected="e.g. expect_column_values_to_not_be_null",
                            found=repr(name)))
    kwargs = body.get("kwargs")
    if isinstance(kwargs, dict):
        camel = [k for k in kwargs if isinstance(k, str) and gx_name(k) != k]
        if camel:
            findings.append(_at(rule.source, "DCB182", f"GX kwargs {', '.join(camel)} are camelCase", expected="snake_case",
                                found=", ".join(camel)))
    return findings


# ---------------------------------------------------------------------------------------------
# regular expressions, compiled by Java as Spark will


def _regex_findings(patterns: list[tuple[str, Source, str]], regex_compiler: RegexCompiler) -> list[Finding]:
    if not patterns:
        return []
    distinct = sorted({p for p, _, _ in patterns})
    compiled = regex_compiler(distinct)
    errors = None if compiled is None else [dict(zip(distinct, compiled))[p] for p, _, _ in patterns]
    return _catastrophic_findings(patterns, errors) + _compile_findings(patterns, errors)


def _catastrophic_findings(patterns: list[tuple[str, Source, str]], errors: list[str | None] | None) -> list[Finding]:
    """DCB142 for patterns that compile but can backtrack exponentially or polynomially (see contract/lint/redos.py)."""
    from dc_bridge.contract.lint.redos import catastrophic_backtracking  # here: `import lint` stays fast

    found = []
    for index, (pattern, source, suffix) in enumerate(patterns):
        problem = None if errors is not None and errors[index] else catastrophic_backtracking(pattern)
        if problem:
            found.append(_at(source, "DCB142", problem.message, suffix, expected=problem.expected, found=repr(pattern)))
    return found


def _compile_findings(patterns: list[tuple[str, Source, str]], errors: list[str | None] | None) -> list[Finding]:
    if errors is None:
        import re

        findings = [_at(patterns[0][1], "DCB141", "Java was not found; patterns were checked with Python's re only")]
        for pattern, source, suffix in patterns:
            try:
                re.compile(pattern)
            except re.error as exc:
                findings.append(_at(source, "DCB140", f"the pattern does not compile: {exc}", suffix, expected="a valid regular expression", found=repr(pattern)))
        return findings
    return [
        _at(source, "DCB140", f"Java rejects the pattern: {error}", suffix, expected="a pattern java.util.regex compiles", found=repr(pattern))
        for (pattern, source, suffix), error in zip(patterns, errors) if error
    ]
