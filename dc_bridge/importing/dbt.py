"""dbt tests carried into contract forms: `dc-bridge import dbt:PATH`.

PATH is a dbt property file (`schema.yml`, any `*.yml` with `models:`, `sources:`, `seeds:`, `snapshots:`), a
folder of them, or a `manifest.json` (`dbt parse`/`compile` writes it; its `metadata.dbt_schema_version` must be one
of MANIFEST_VERSIONS). Each generic test (yml: `tests:`/`data_tests:` on a model, source table or column; manifest:
a test node's `test_metadata`) is one row of TESTS, the mapping table: the contract form it becomes when its
config is plain (a field property, a library metric), and always the SQL of the rows dbt's test returns, so a
`where`, a `row_condition`, `fail_calc`, `limit` or `warn_if`/`error_if` become a SQL rule counting exactly what dbt
counts. A model contract (`config.contract.enforced`) carries each column's `data_type` and every constraint.

Nothing is dropped: a test the table does not hold (a singular test, a package's test nobody mapped), an argument
or config its row does not know, or a value the row cannot write, is refused with the reason. dbt is not an engine
dc-bridge runs, so there is no `type: custom` fallback (lint refuses a custom rule for dbt, DCB180).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from dc_bridge.contract.sql import quote_identifier, sql_literal
from dc_bridge.importing.model import Carried, ImportInputError, SourceCheck

# the manifest schemas whose test nodes this reader knows (dbt 1.5 wrote v9 ... dbt 1.8-1.11 write v12): the
# nodes' `test_metadata`, `column_name`, `attached_node`, `config` are the same in all of them
MANIFEST_VERSIONS = ("v9", "v10", "v11", "v12")
# the top-level keys of a dbt property file; one of the first four holds the tests
PROPERTY_KEYS = frozenset({"version", "models", "sources", "seeds", "snapshots", "macros", "exposures", "metrics",
                           "semantic_models", "saved_queries", "groups", "analyses", "unit_tests", "data_tests",
                           "functions"})
TESTED = ("models", "seeds", "snapshots", "sources")
# a folder's dbt files that are not property files
PROJECT_FILES = frozenset({"dbt_project.yml", "packages.yml", "dependencies.yml", "profiles.yml", "selectors.yml",
                           "package-lock.yml"})
# test config that changes nothing dc-bridge judges (where dbt stores failures, how it is tagged or named)
INERT_CONFIG = frozenset({"tags", "meta", "store_failures", "store_failures_as", "alias", "schema", "database",
                          "description", "name", "group", "docs", "enabled"})
# test config this reader carries into the rule
JUDGING_CONFIG = frozenset({"where", "severity", "warn_if", "error_if", "fail_calc", "limit"})
DEFAULT_CONDITION = "!= 0"
# dbt's `warn_if`/`error_if` name the failing counts; the contract's threshold names the passing ones
NEGATED = {"!=": "mustBe", "<>": "mustBe", "=": "mustNotBe", "==": "mustNotBe", ">": "mustBeLessOrEqualTo",
           ">=": "mustBeLessThan", "<": "mustBeGreaterOrEqualTo", "<=": "mustBeGreaterThan"}
_CONDITION = re.compile(r"^\s*(!=|<>|==|>=|<=|=|>|<)\s*(-?\d+(?:\.\d+)?)\s*$")
_REF = re.compile(r"""^\s*(ref|source)\s*\(\s*(['"])(.*?)\2\s*(?:,\s*(['"])(.*?)\4\s*)?(?:,\s*v(?:ersion)?\s*=\s*[^)]*)?\)\s*$""")


class Refused(Exception):
    """This test cannot be carried: the message is the report's reason."""


@dataclass(frozen=True)
class Test:
    """One dbt generic test as read from a property file or a manifest."""
    check: SourceCheck
    model: str
    column: str | None
    name: str                      # `not_null`, `dbt_utils.expression_is_true`
    args: dict[str, Any]
    config: dict[str, Any]


@dataclass(frozen=True)
class Form:
    """A contract form of a test with a plain config: field `properties`, or a library `rule` (no threshold
    unless `judged`: a rule that carries its own, such as a row count's range)."""
    properties: dict[str, Any] | None = None
    rule: dict[str, Any] | None = None
    judged: bool = False


@dataclass(frozen=True)
class Row:
    """One test of the mapping table. `failing(args, column, relation)` is the Spark SQL of the rows dbt's test
    returns (its failures are their count, or `fail_calc` over them); `form(args, column)` its contract form, or
    None; `alike`: the form counts what dbt counts (so a threshold on dbt's count carries to it)."""
    known: frozenset[str]
    required: frozenset[str]
    failing: Callable[[dict, str | None, str], str]
    form: Callable[[dict, str | None], Form | None] = lambda args, column: None
    alike: bool = True
    column: bool = True
    fail_calc: str = "count(*)"
    note: str = ""                 # a documented difference between the form and dbt


def _values(args: dict, key: str, quote_key: str) -> str:
    values = args[key]
    if not isinstance(values, list) or not values:
        raise Refused(f"`{key}` must be a non-empty list of values; found {values!r}")
    if args.get(quote_key, True) is False:
        return ", ".join(str(v) for v in values)  # dbt writes them as SQL expressions
    return ", ".join(sql_literal(v if isinstance(v, (bool, int, float)) else str(v)) for v in values)


def _plain_values(args: dict, key: str, quote_key: str) -> list | None:
    """The values as data for a contract's list, or None when dbt reads them as SQL (`quote: false`)."""
    values = args[key]
    if args.get(quote_key, True) is False or not isinstance(values, list) or not values:
        return None
    return [str(v) if not isinstance(v, (bool, int, float)) else v for v in values]


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _sql_value(value: Any) -> str:
    """A bound dbt inserts into its SQL as written (a number, or an SQL expression such as `'2020-01-01'`)."""
    if isinstance(value, bool) or value is None:
        raise Refused(f"the bound {value!r} is no number or SQL expression")
    return str(value)


def _range_sql(column: str, args: dict, low: str, high: str, inclusive: bool) -> str:
    """dbt's `1 = 2 or not col >= min or not col <= max`: a null value is counted by neither."""
    parts = ["1 = 2"]
    if args.get(low) is not None:
        parts.append(f"NOT {column} >{'=' if inclusive else ''} {_sql_value(args[low])}")
    if args.get(high) is not None:
        parts.append(f"NOT {column} <{'=' if inclusive else ''} {_sql_value(args[high])}")
    if len(parts) == 1:
        raise Refused(f"neither `{low}` nor `{high}` is given")
    return " OR ".join(parts)


def _range_form(args: dict, low: str, high: str, inclusive: bool) -> Form | None:
    bounds = {k: args.get(k) for k in (low, high) if args.get(k) is not None}
    if not bounds or not all(_number(v) for v in bounds.values()):
        return None  # an SQL expression (a date literal, `current_date`) is no contract bound
    names = ({low: "minimum", high: "maximum"} if inclusive else {low: "exclusiveMinimum", high: "exclusiveMaximum"})
    return Form(properties={"logicalTypeOptions": {names[k]: v for k, v in bounds.items()}})


def _length_form(args: dict) -> Form | None:
    if args.get("strictly") or not all(_number(args.get(k)) or args.get(k) is None for k in ("min_value", "max_value")):
        return None
    options = {name: args[k] for k, name in (("min_value", "minLength"), ("max_value", "maxLength")) if args.get(k) is not None}
    return Form(properties={"logicalTypeOptions": options}) if options else None


def _row_count_form(args: dict) -> Form | None:
    bounds = {k: args.get(k) for k in ("min_value", "max_value") if args.get(k) is not None}
    if not bounds or not all(_number(v) for v in bounds.values()):
        return None
    strict = bool(args.get("strictly"))
    if len(bounds) == 2:
        # ODCS has one key for two bounds, `mustBeBetween`, and it excludes them: a count is whole, so an
        # inclusive range widens by one on each side
        low, high = bounds["min_value"], bounds["max_value"]
        if not strict and not (isinstance(low, int) and isinstance(high, int)):
            return None
        return Form(rule={"metric": "rowCount", "mustBeBetween": [low, high] if strict else [low - 1, high + 1]}, judged=True)
    keys = {"min_value": "mustBeGreaterThan" if strict else "mustBeGreaterOrEqualTo",
            "max_value": "mustBeLessThan" if strict else "mustBeLessOrEqualTo"}
    return Form(rule={"metric": "rowCount", **{keys[k]: v for k, v in bounds.items()}}, judged=True)


def _target(args: dict, key: str) -> str:
    """The model a `ref('x')` / `source('s', 't')` names: a ref's model, a source's table."""
    match = _REF.match(str(args[key]))
    if not match:
        raise Refused(f"`{key}: {args[key]}` is no ref('model') or source('source', 'table')")
    kind, first, second = match.group(1), match.group(3), match.group(5)
    if kind == "source":
        if second is None:
            raise Refused(f"`{key}: {args[key]}` names a source without its table")
        return second
    return second if second is not None else first  # ref('package', 'model')


def _foreign_key_form(args: dict, column: str | None) -> Form | None:
    target, to_field = _target(args, "to"), str(args["field"])
    if "." in target or "." in to_field:
        return None  # ODCS's `model.field` shorthand cannot name a part with a dot: the SQL rule carries it
    return Form(properties={"relationships": [{"type": "foreignKey", "to": f"{target}.{to_field}"}]})


def _q(name: str) -> str:
    return quote_identifier(name)


def _regex(args: dict) -> str:
    if args.get("flags"):
        raise Refused(f"regex flags {args['flags']!r} have no Spark form here")
    return sql_literal(str(args["regex"]))


def _filtered(relation: str, args: dict) -> str:
    """dbt-expectations' `row_condition`, a filter of the rows like `where`."""
    condition = args.get("row_condition")
    return f"(SELECT * FROM {relation} WHERE {condition}) AS dbt_rows" if condition else relation


EXPECTATION = frozenset({"row_condition"})


def _no_rows(args: dict, column: str | None, relation: str) -> str:
    """A test of the table's shape (a column's existence, its type): no rows to count, so no SQL form."""
    return ""

TESTS: dict[str, Row] = {
    # dbt's generic tests
    "not_null": Row(frozenset(), frozenset(),
                    lambda a, c, r: f"SELECT {c} FROM {r} WHERE {c} IS NULL",
                    lambda a, c: Form(properties={"required": True}, rule={"metric": "nullValues"})),
    # dbt returns one row per duplicated value; the contract counts the rows that hold one: alike only at zero
    "unique": Row(frozenset(), frozenset(),
                  lambda a, c, r: f"SELECT {c} AS unique_field, COUNT(*) AS n_records FROM {r} WHERE {c} IS NOT NULL "
                                  f"GROUP BY {c} HAVING COUNT(*) > 1",
                  lambda a, c: Form(properties={"unique": True}, rule={"metric": "duplicateValues"}), alike=False,
                  note="dbt counts duplicated values, the contract the rows holding them (the run's `duplicated_values` is dbt's count)"),
    "accepted_values": Row(frozenset({"values", "quote"}), frozenset({"values"}),
                           lambda a, c, r: f"SELECT {c} AS value_field, COUNT(*) AS n_records FROM {r} "
                                           f"WHERE {c} NOT IN ({_values(a, 'values', 'quote')}) GROUP BY {c}",
                           lambda a, c: (Form(rule={"metric": "invalidValues", "arguments": {"validValues": v}})
                                         if (v := _plain_values(a, "values", "quote")) else None), alike=False,
                           note="dbt counts distinct values not accepted, the contract the rows holding them"),
    "relationships": Row(frozenset({"to", "field"}), frozenset({"to", "field"}),
                         lambda a, c, r: f"SELECT child.from_field FROM (SELECT {c} AS from_field FROM {r} WHERE {c} IS NOT NULL) "
                                         f"AS child LEFT JOIN (SELECT {_q(str(a['field']))} AS to_field FROM "
                                         f"{_q(_target(a, 'to'))}) AS parent ON child.from_field = parent.to_field "
                                         f"WHERE parent.to_field IS NULL",
                         _foreign_key_form),
    # dbt-utils
    "dbt_utils.expression_is_true": Row(frozenset({"expression"}), frozenset({"expression"}),
                                        lambda a, c, r: f"SELECT * FROM {r} WHERE NOT ({(c + ' ') if c else ''}{a['expression']})",
                                        column=False),
    "dbt_utils.accepted_range": Row(frozenset({"min_value", "max_value", "inclusive"}), frozenset(),
                                    lambda a, c, r: f"SELECT * FROM {r} WHERE {_range_sql(c, a, 'min_value', 'max_value', a.get('inclusive', True))}",
                                    lambda a, c: _range_form(a, "min_value", "max_value", a.get("inclusive", True))),
    "dbt_utils.not_null_proportion": Row(frozenset({"at_least", "at_most"}), frozenset({"at_least"}),
                                         lambda a, c, r: f"SELECT * FROM (SELECT SUM(CASE WHEN {c} IS NULL THEN 0 ELSE 1 END) / "
                                                         f"CAST(COUNT(*) AS DOUBLE) AS not_null_proportion FROM {r}) AS p WHERE "
                                                         f"not_null_proportion < {_sql_value(a['at_least'])} OR "
                                                         f"not_null_proportion > {_sql_value(a.get('at_most', 1.0))}"),
    "dbt_utils.unique_combination_of_columns": Row(
        frozenset({"combination_of_columns", "quote_columns"}), frozenset({"combination_of_columns"}),
        lambda a, c, r: (f"SELECT {_columns(a)} FROM {r} GROUP BY {_columns(a)} HAVING COUNT(*) > 1"),
        column=False),
    "dbt_utils.not_accepted_values": Row(frozenset({"values", "quote"}), frozenset({"values"}),
                                         lambda a, c, r: f"SELECT {c} FROM {r} WHERE {c} IN ({_values(a, 'values', 'quote')})"),
    "dbt_utils.not_empty_string": Row(frozenset({"trim_whitespace"}), frozenset(),
                                      lambda a, c, r: f"SELECT {c} FROM {r} WHERE "
                                                      f"{('TRIM(' + c + ')') if a.get('trim_whitespace', True) else c} = ''"),
    "dbt_utils.at_least_one": Row(frozenset(), frozenset(),
                                  lambda a, c, r: f"SELECT COUNT({c}) AS filler_column FROM {r} HAVING COUNT({c}) = 0"),
    "dbt_utils.not_constant": Row(frozenset(), frozenset(),
                                  lambda a, c, r: f"SELECT COUNT(DISTINCT {c}) AS filler_column FROM {r} HAVING COUNT(DISTINCT {c}) = 1"),
    # dbt-utils sets fail_calc to the difference of the two counts
    "dbt_utils.equal_rowcount": Row(frozenset({"compare_model"}), frozenset({"compare_model"}),
                                    lambda a, c, r: f"SELECT ABS((SELECT COUNT(*) FROM {r}) - (SELECT COUNT(*) FROM "
                                                    f"{_q(_target(a, 'compare_model'))})) AS diff_count",
                                    column=False, fail_calc="sum(coalesce(diff_count, 0))"),
    # dbt-expectations: a `row_condition` filters the rows first
    "dbt_expectations.expect_column_to_exist": Row(frozenset(), frozenset(), _no_rows,
                                                   lambda a, c: Form(properties={})),
    "dbt_expectations.expect_column_values_to_not_be_null": Row(
        EXPECTATION, frozenset(), lambda a, c, r: f"SELECT {c} FROM {_filtered(r, a)} WHERE {c} IS NULL",
        lambda a, c: Form(properties={"required": True}, rule={"metric": "nullValues"})),
    "dbt_expectations.expect_column_values_to_be_null": Row(
        EXPECTATION, frozenset(), lambda a, c, r: f"SELECT {c} FROM {_filtered(r, a)} WHERE {c} IS NOT NULL"),
    # dbt-expectations returns one row per duplicated value, as dbt's unique does
    "dbt_expectations.expect_column_values_to_be_unique": Row(
        EXPECTATION, frozenset(), lambda a, c, r: f"SELECT {c}, COUNT(*) AS n_records FROM {_filtered(r, a)} WHERE {c} IS NOT NULL "
                                                  f"GROUP BY {c} HAVING COUNT(*) > 1",
        lambda a, c: Form(properties={"unique": True}, rule={"metric": "duplicateValues"}), alike=False,
        note="dbt-expectations counts duplicated values, the contract the rows holding them"),
    "dbt_expectations.expect_column_values_to_be_between": Row(
        EXPECTATION | {"min_value", "max_value", "strictly"}, frozenset(),
        lambda a, c, r: f"SELECT * FROM {_filtered(r, a)} WHERE {_range_sql(c, a, 'min_value', 'max_value', not a.get('strictly'))}",
        lambda a, c: _range_form(a, "min_value", "max_value", not a.get("strictly"))),
    "dbt_expectations.expect_column_values_to_be_in_set": Row(
        EXPECTATION | {"value_set", "quote_values"}, frozenset({"value_set"}),
        # a null is in no set here (a left join that finds no match): the contract's allowed values never judge a
        # null, so the rule is dbt-expectations' own query
        lambda a, c, r: f"SELECT {c} FROM {_filtered(r, a)} WHERE {c} IS NULL OR {c} NOT IN ({_values(a, 'value_set', 'quote_values')})"),
    "dbt_expectations.expect_column_values_to_not_be_in_set": Row(
        EXPECTATION | {"value_set", "quote_values"}, frozenset({"value_set"}),
        lambda a, c, r: f"SELECT {c} FROM {_filtered(r, a)} WHERE {c} IN ({_values(a, 'value_set', 'quote_values')})"),
    "dbt_expectations.expect_column_values_to_match_regex": Row(
        EXPECTATION | {"regex", "is_raw", "flags"}, frozenset({"regex"}),
        lambda a, c, r: f"SELECT {c} FROM {_filtered(r, a)} WHERE NOT {c} RLIKE {_regex(a)}",
        lambda a, c: None if a.get("flags") else Form(properties={"logicalTypeOptions": {"pattern": str(a["regex"])}})),
    "dbt_expectations.expect_column_values_to_not_match_regex": Row(
        EXPECTATION | {"regex", "is_raw", "flags"}, frozenset({"regex"}),
        lambda a, c, r: f"SELECT {c} FROM {_filtered(r, a)} WHERE {c} RLIKE {_regex(a)}"),
    "dbt_expectations.expect_column_value_lengths_to_be_between": Row(
        EXPECTATION | {"min_value", "max_value", "strictly"}, frozenset(),
        lambda a, c, r: f"SELECT * FROM {_filtered(r, a)} WHERE "
                        f"{_range_sql('LENGTH(' + c + ')', a, 'min_value', 'max_value', not a.get('strictly'))}",
        lambda a, c: _length_form(a)),
    "dbt_expectations.expect_table_row_count_to_be_between": Row(
        EXPECTATION | {"min_value", "max_value", "strictly"}, frozenset(),
        lambda a, c, r: f"SELECT * FROM (SELECT COUNT(*) AS expression FROM {_filtered(r, a)}) AS n WHERE "
                        f"{_range_sql('expression', a, 'min_value', 'max_value', not a.get('strictly'))}",
        lambda a, c: _row_count_form(a), column=False),
    "dbt_expectations.expect_table_row_count_to_equal": Row(
        EXPECTATION | {"value"}, frozenset({"value"}),
        lambda a, c, r: f"SELECT * FROM (SELECT COUNT(*) AS expression FROM {_filtered(r, a)}) AS n WHERE "
                        f"NOT expression = {_sql_value(a['value'])}",
        lambda a, c: Form(rule={"metric": "rowCount", "mustBe": a["value"]}, judged=True) if _number(a["value"]) else None,
        column=False),
    "dbt_expectations.expect_column_values_to_be_of_type": Row(
        frozenset({"column_type"}), frozenset({"column_type"}), _no_rows,
        lambda a, c: Form(properties={"physicalType": str(a["column_type"])})),
}


def _columns(args: dict) -> str:
    columns = args["combination_of_columns"]
    if not isinstance(columns, list) or not columns or not all(isinstance(c, str) for c in columns):
        raise Refused(f"`combination_of_columns` must be a non-empty list of column names; found {columns!r}")
    return ", ".join(_q(c) for c in columns)


# ---------------------------------------------------------------------------------------------
# what a test becomes

def carry(test: Test, taken: dict | None = None) -> Carried:
    """One test through its row of TESTS: mapped, or refused with the reason. `taken`: the field properties the
    tests read before it set, {(model, field, key): value}; a property another test set to another value (two
    ranges on one column, a range and a pattern in one `logicalTypeOptions`) would be one contract key holding
    two values, so this test is carried as its SQL rule instead."""
    taken = {} if taken is None else taken
    try:
        field_name, properties, rule, reason = _carry(test, taken)
    except Refused as exc:
        return Carried(test.check, "refused", test.model, test.column, reason=str(exc))
    return Carried(test.check, "mapped", test.model, field_name, properties=properties, rule=rule, reason=reason)


def _carry(test: Test, taken: dict) -> tuple[str | None, dict, dict | None, str]:
    row = TESTS.get(test.name)
    if row is None:
        raise Refused(f"the dbt test `{test.name}` is not in dc-bridge's mapping table (docs/importing-dbt.md); dbt is not "
                      f"an engine dc-bridge runs, so it cannot be kept as a custom rule (lint DCB180): write it as a "
                      f"contract rule (a `type: sql` rule counting the rows it returns)")
    args = dict(test.args)
    column = test.column if test.column is not None else args.pop("column_name", None)
    args.pop("column_name", None)
    unknown = sorted(set(args) - row.known)
    if unknown:
        raise Refused(f"`{test.name}` has argument(s) {', '.join(unknown)} that its mapping does not know; it knows "
                      f"{', '.join(sorted(row.known)) or 'none'}")
    missing = sorted(row.required - set(args))
    if missing:
        raise Refused(f"`{test.name}` lacks its argument(s) {', '.join(missing)}")
    if row.column and column is None:
        raise Refused(f"`{test.name}` tests a column, and none is named (put it under a column, or give column_name)")
    unknown_config = sorted(set(test.config) - INERT_CONFIG - JUDGING_CONFIG)
    if unknown_config:
        raise Refused(f"config {', '.join(unknown_config)} of `{test.name}` is not known to the import")
    config = test.config
    if config.get("enabled", True) is False:
        raise Refused("the test is disabled in dbt (enabled: false): it checks nothing there")
    severity = str(config.get("severity", "error")).lower()
    if severity not in ("error", "warn"):
        raise Refused(f"severity {config['severity']!r} is neither error nor warn")
    condition = str(config.get("warn_if" if severity == "warn" else "error_if", DEFAULT_CONDITION))
    threshold = _threshold(condition)
    plain_threshold = _normal(condition) == DEFAULT_CONDITION
    fail_calc = str(config.get("fail_calc", row.fail_calc))
    scoped = bool(config.get("where")) or bool(args.get("row_condition"))
    notes = _lost_warning(config, severity)
    limit = config.get("limit")
    if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 0):
        raise Refused(f"limit {limit!r} is no count of rows")
    plain_config = not scoped and limit is None and fail_calc == row.fail_calc
    form = row.form(args, column) if plain_config else None
    if form is not None:
        if form.judged:
            if plain_threshold:
                return column, {}, _with(form.rule, severity, {}), notes
        elif form.properties is not None and severity == "error" and plain_threshold and _free(taken, test.model, column, form.properties):
            taken.update({(test.model, column, key): value for key, value in form.properties.items()})
            return column, form.properties, None, _joined(notes, "" if row.alike else row.note)
        elif form.rule is not None and (row.alike or plain_threshold):
            return column, {}, _with(form.rule, severity, threshold), _joined(notes, "" if row.alike else row.note)
    if row.failing is _no_rows:
        raise Refused(f"`{test.name}` with this config has no contract form (it checks the table's shape, not rows)")
    relation = "{model}"
    if config.get("where"):
        relation = f"(SELECT * FROM {{model}} WHERE {config['where']}) AS dbt_subquery"
    failing = row.failing(args, _q(column) if column is not None else None, relation)
    if limit is not None:
        failing += f" LIMIT {limit}"
    query = f"SELECT {fail_calc} FROM ({failing}) AS dbt_failures"
    rule = _with({"type": "sql", "query": query}, severity, threshold)
    return (column if row.column else None), {}, rule, notes


def _free(taken: dict, model: str, column: str | None, properties: dict) -> bool:
    """No property of `properties` was set on the field to another value."""
    return all(taken.get((model, column, key), value) == value for key, value in properties.items())


def _with(rule: dict, severity: str, threshold: dict) -> dict:
    written = {**rule, **threshold}
    if severity == "warn":
        written["severity"] = "warning"
    return written


def _normal(condition: str) -> str:
    match = _CONDITION.match(condition)
    return f"{match.group(1)} {match.group(2)}".replace("<>", "!=") if match else condition


def _threshold(condition: str) -> dict:
    """dbt's failing condition on its count (`!= 0`, `> 10`) as the contract's threshold on the same count."""
    match = _CONDITION.match(condition)
    if not match:
        raise Refused(f"the condition {condition!r} is no comparison with a number (`> 10`, `!= 0`)")
    number = float(match.group(2)) if "." in match.group(2) else int(match.group(2))
    return {NEGATED[match.group(1)]: number}


def _lost_warning(config: dict, severity: str) -> str:
    """A test of severity error whose warn_if fires before its error_if: dbt warns in between, and a contract rule
    has one severity, so that band is carried as passing."""
    if severity != "error":
        return ""
    error_if, warn_if = _normal(str(config.get("error_if", DEFAULT_CONDITION))), _normal(str(config.get("warn_if", DEFAULT_CONDITION)))
    if error_if == warn_if:
        return ""
    return (f"dbt warns when its count is {warn_if} and fails when {error_if}; the rule carries the error level only, "
            f"so the counts between are passed here where dbt warns")


def _joined(*notes: str) -> str:
    return "; ".join(n for n in notes if n)


# ---------------------------------------------------------------------------------------------
# model contracts: data_type and constraints

CONSTRAINT_PROPERTIES = {"not_null": {"required": True}, "unique": {"unique": True}, "primary_key": {"primaryKey": True}}
CONSTRAINT_KEYS = frozenset({"type", "name", "expression", "columns", "to", "to_columns", "warn_unenforced",
                             "warn_unsupported"})


def constraint(check: SourceCheck, model: str, column: str | None, item: Any) -> Carried:
    """One dbt constraint (a column's, or a model's with `columns`)."""
    try:
        if not isinstance(item, dict) or "type" not in item:
            raise Refused(f"a constraint is a mapping with `type`; found {item!r}")
        unknown = sorted(set(item) - CONSTRAINT_KEYS)
        if unknown:
            raise Refused(f"constraint key(s) {', '.join(unknown)} not known to the import")
        constraint = str(item["type"])
        columns = [column] if column is not None else list(item.get("columns") or [])
        if constraint in CONSTRAINT_PROPERTIES:
            if len(columns) != 1:
                if constraint == "primary_key" and columns:
                    return _composite_key(check, model, columns)
                raise Refused(f"a {constraint} constraint on {len(columns)} columns has no field form here; name one column")
            return Carried(check, "mapped", model, columns[0], properties=dict(CONSTRAINT_PROPERTIES[constraint]))
        if constraint == "check":
            expression = item.get("expression")
            if not expression:
                raise Refused("a check constraint without `expression`")
            rule = {"type": "sql", "query": f"SELECT COUNT(*) FROM {{model}} WHERE NOT ({expression})", "mustBe": 0}
            return Carried(check, "mapped", model, None, rule=rule)
        if constraint == "foreign_key":
            return _foreign_key(check, model, columns, item)
        raise Refused(f"constraint type {constraint!r} has no contract form (known: not_null, unique, primary_key, check, foreign_key)")
    except Refused as exc:
        return Carried(check, "refused", model, column, reason=str(exc))


def _composite_key(check: SourceCheck, model: str, columns: list[str]) -> Carried:
    rule = {"metric": "duplicateValues", "arguments": {"properties": columns}, "mustBe": 0}
    return Carried(check, "mapped", model, None, rule=rule,
                   reason="a composite primary key: its columns' uniqueness together (each column's not null is its own constraint)")


def _foreign_key(check: SourceCheck, model: str, columns: list[str], item: dict) -> Carried:
    to_columns = item.get("to_columns") or []
    if "to" not in item or len(columns) != 1 or len(to_columns) != 1:
        raise Refused("a foreign_key constraint is carried with `to` and one column on each side (`to_columns`); "
                      "an `expression` form names the warehouse's table, which the contract cannot")
    target = _target(item, "to")
    if "." in target or "." in str(to_columns[0]):
        raise Refused("the referenced model or column has a dot, which ODCS's `model.field` reference cannot name")
    return Carried(check, "mapped", model, columns[0],
                   properties={"relationships": [{"type": "foreignKey", "to": f"{target}.{to_columns[0]}"}]})


# ---------------------------------------------------------------------------------------------
# reading property files

def read(path: str) -> list[Carried]:
    """Every test (and enforced contract's type and constraint) of a property file, a folder of them, or a manifest."""
    target = Path(path)
    if target.is_dir():
        files = sorted(p for p in target.rglob("*") if p.suffix in (".yml", ".yaml") and p.is_file()
                       and p.name not in PROJECT_FILES and "dbt_packages" not in p.parts and "target" not in p.relative_to(target).parts)
        if not files:
            raise ImportInputError(f"{path}: a folder with no dbt property file (*.yml); give a schema.yml, a folder "
                                   f"of them, or a manifest.json")
        return _settle([item for file in files for item in _property_file(file)])
    if not target.is_file():
        raise ImportInputError(f"{path}: no such file or folder; give a dbt schema.yml, a folder of them, or a manifest.json")
    if target.suffix == ".json":
        return read_manifest(target)
    return _settle(_property_file(target))


def _load(file: Path, parse: Callable[[str], Any], kind: str) -> Any:
    try:
        text = file.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ImportInputError(f"{file}: not UTF-8 text ({exc.reason} at byte {exc.start}); a dbt {kind} is UTF-8") from None
    except OSError as exc:
        raise ImportInputError(f"{file}: cannot be read ({exc.strerror or exc})") from None
    try:
        return parse(text)
    except (yaml.YAMLError, ValueError) as exc:
        raise ImportInputError(f"{file}: not a dbt {kind}: {str(exc).splitlines()[0]}") from None


def _settle(items: list) -> list[Carried]:
    """Each test carried, in an order of their own content (so a property file and the manifest dbt writes for it,
    which lists tests in another order, give each test the same form when two set one property); the rest as read."""
    taken: dict = {}
    order = sorted((i for i, item in enumerate(items) if isinstance(item, Test)), key=lambda i: _identity(items[i]))
    done = {i: carry(items[i], taken) for i in order}
    return [done.get(i, item) for i, item in enumerate(items)]


def _identity(test: Test) -> str:
    config = {k: v for k, v in test.config.items() if k in JUDGING_CONFIG}
    return _text([test.model, test.column or "", test.name, test.args, config])


def _property_file(file: Path) -> list:
    document = _load(file, yaml.safe_load, "property file (YAML)")
    if not isinstance(document, dict) or not any(key in document for key in TESTED):
        found = sorted(document)[:6] if isinstance(document, dict) else type(document).__name__
        raise ImportInputError(f"{file}: not a dbt property file: expected a mapping with models:, sources:, seeds: or "
                               f"snapshots: (found {found}); give a dbt schema.yml or a manifest.json")
    unknown = sorted(str(k) for k in document if k not in PROPERTY_KEYS)
    if unknown:
        raise ImportInputError(f"{file}: top-level key(s) {', '.join(unknown)} are not dbt's; expected "
                               f"{', '.join(sorted(PROPERTY_KEYS))}")
    carried: list[Carried] = []
    for section in TESTED:
        entries = document.get(section) or []
        if not isinstance(entries, list):
            raise ImportInputError(f"{file}: {section}: expected a list of {section}; found {type(entries).__name__}")
        for i, entry in enumerate(entries):
            where = f"{section}[{i}]"
            if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
                raise ImportInputError(f"{file}: {where}: expected a mapping with a `name`; found {entry!r:.80}")
            if section == "sources":
                tables = entry.get("tables") or []
                if not isinstance(tables, list):
                    raise ImportInputError(f"{file}: {where}.tables: expected a list of tables")
                for j, table in enumerate(tables):
                    if not isinstance(table, dict) or not isinstance(table.get("name"), str):
                        raise ImportInputError(f"{file}: {where}.tables[{j}]: expected a mapping with a `name`")
                    dataset = f"source('{entry['name']}', '{table['name']}')"
                    carried += _node(file, f"{where}.tables[{j}]", table, table["name"], dataset)
            else:
                carried += _node(file, where, entry, entry["name"], entry["name"])
    return carried


def _node(file: Path, where: str, node: dict, model: str, dataset: str) -> list:
    """A model's (or source table's) tests, its columns' tests, and its enforced contract."""
    def check(location: str, text: str) -> SourceCheck:
        return SourceCheck("dbt", str(file), location, dataset, text)

    carried: list = list(_tests(file, where, node, model, None, check))
    enforced = _enforced(node.get("config"))
    columns = node.get("columns") or []
    if not isinstance(columns, list):
        raise ImportInputError(f"{file}: {where}.columns: expected a list of columns; found {type(columns).__name__}")
    for k, col in enumerate(columns):
        at = f"{where}.columns[{k}]"
        if not isinstance(col, dict) or not isinstance(col.get("name"), str):
            raise ImportInputError(f"{file}: {at}: expected a mapping with a `name`; found {col!r:.80}")
        carried += _tests(file, at, col, model, col["name"], check)
        if enforced:
            carried += _contract_column(at, col, model, check)
    if enforced:
        for m, item in enumerate(node.get("constraints") or []):
            carried.append(constraint(check(f"{where}.constraints[{m}]", f"constraint {_text(item)}"), model, None, item))
    return carried


def _enforced(config: Any) -> bool:
    contract = (config or {}).get("contract") if isinstance(config, dict) else None
    return isinstance(contract, dict) and contract.get("enforced") is True


def _contract_column(at: str, col: dict, model: str, check: Callable[[str, str], SourceCheck]) -> list[Carried]:
    carried = []
    if col.get("data_type") is not None:
        carried.append(Carried(check(f"{at}.data_type", f"data_type: {col['data_type']}"), "mapped", model, col["name"],
                               properties={"physicalType": str(col["data_type"])}))
    for m, item in enumerate(col.get("constraints") or []):
        carried.append(constraint(check(f"{at}.constraints[{m}]", f"constraint {_text(item)}"), model, col["name"], item))
    return carried


def _tests(file: Path, where: str, node: dict, model: str, column: str | None,
           check: Callable[[str, str], SourceCheck]) -> Iterator[Test]:
    for key in ("data_tests", "tests"):
        items = node.get(key) or []
        if not isinstance(items, list):
            raise ImportInputError(f"{file}: {where}.{key}: expected a list of tests; found {type(items).__name__}")
        for i, item in enumerate(items):
            location = f"{where}.{key}[{i}]"
            name, args, config = _test_item(file, location, item)
            yield Test(check(location, _text({name: args} if args else name)), model, column, name, args, config)


def _test_item(file: Path, location: str, item: Any) -> tuple[str, dict, dict]:
    """(name, arguments, config) of `- not_null`, `- accepted_values: {values: [...], config: {...}}` (arguments
    beside the config, or under `arguments:` as dbt 1.10 writes them), or `- {test_name: ..., name: ...}`."""
    if isinstance(item, str):
        return item, {}, {}
    if isinstance(item, dict) and "test_name" in item:
        body = {k: v for k, v in item.items() if k != "test_name"}
        return str(item["test_name"]), *_split(file, location, body)
    if isinstance(item, dict) and len(item) == 1:
        name, body = next(iter(item.items()))
        if body is None:
            body = {}
        if not isinstance(body, dict):
            raise ImportInputError(f"{file}: {location}: the test `{name}` takes a mapping of arguments; found {body!r:.80}")
        return str(name), *_split(file, location, body)
    raise ImportInputError(f"{file}: {location}: a test is a name (`- not_null`) or a mapping of one name to its "
                           f"arguments; found {item!r:.80}")


def _split(file: Path, location: str, body: dict) -> tuple[dict, dict]:
    """Arguments and config of a test's mapping: `config:` and the keys dbt reads as config beside the arguments."""
    for key in ("config", "arguments"):
        if not isinstance(body.get(key) or {}, dict):
            raise ImportInputError(f"{file}: {location}.{key}: expected a mapping; found {body[key]!r:.80}")
    config = dict(body.get("config") or {})
    args = dict(body.get("arguments") or {})
    for key, value in body.items():
        if key in ("config", "arguments"):
            continue
        if key in JUDGING_CONFIG or key in INERT_CONFIG:
            config.setdefault(key, value)
        else:
            args[key] = value
    return args, config


def _text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str, sort_keys=True) if not isinstance(value, str) else value


# ---------------------------------------------------------------------------------------------
# reading a manifest

def read_manifest(file: Path) -> list[Carried]:
    manifest = _load(file, json.loads, "manifest.json")
    version = manifest.get("metadata", {}).get("dbt_schema_version") if isinstance(manifest, dict) else None
    if not isinstance(manifest, dict) or not isinstance(manifest.get("nodes"), dict) or not isinstance(version, str):
        raise ImportInputError(f"{file}: not a dbt manifest: expected a JSON object with `metadata.dbt_schema_version` "
                               f"and `nodes` (dbt writes it to target/manifest.json)")
    tail = version.rstrip("/").rsplit("/", 1)[-1].removesuffix(".json")
    if tail not in MANIFEST_VERSIONS:
        raise ImportInputError(f"{file}: a dbt manifest of schema {tail} ({version}); dc-bridge reads "
                               f"{', '.join(MANIFEST_VERSIONS)} (dbt 1.5 to 1.11): regenerate it with such a dbt "
                               f"(`dbt parse`), or import the project's schema.yml files instead")
    nodes, sources = manifest["nodes"], manifest.get("sources") or {}
    carried: list = []
    for key in sorted(nodes):
        node = nodes[key]
        try:
            if node.get("resource_type") == "test":
                carried.append(_manifest_test(file, key, node, nodes, sources))
            elif node.get("resource_type") in ("model", "seed", "snapshot") and _enforced(node.get("config")):
                carried += _manifest_contract(file, key, node)
        except (AttributeError, KeyError, TypeError) as exc:
            raise ImportInputError(f"{file}: nodes.{key}: not a node as dbt writes it ({type(exc).__name__}: {exc}); "
                                   f"regenerate the manifest with dbt (`dbt parse`)") from None
    return _settle(carried)


def _parent(node: dict, nodes: dict, sources: dict) -> tuple[str, str] | None:
    """(model, dataset) of the node a test is attached to."""
    attached = node.get("attached_node") or next(iter((node.get("depends_on") or {}).get("nodes") or []), None)
    if attached in nodes:
        return nodes[attached]["name"], nodes[attached]["name"]
    if attached in sources:
        source = sources[attached]
        return source["name"], f"source('{source.get('source_name')}', '{source['name']}')"
    return None


def _manifest_test(file: Path, key: str, node: dict, nodes: dict, sources: dict) -> Test | Carried:
    location = f"nodes.{key}"
    meta = node.get("test_metadata")
    parent = _parent(node, nodes, sources)
    model, dataset = parent if parent else ("(unknown)", "(unknown)")
    if meta is not None and not isinstance(meta, dict):
        raise TypeError(f"test_metadata is {type(meta).__name__}, not an object")
    if meta is None:
        check = SourceCheck("dbt", str(file), location, dataset, f"singular test {node.get('name')}")
        return Carried(check, "refused", model, reason="a singular test (a SQL file of its own) is warehouse SQL with "
                       "refs and macros, no generic test: write it as a contract `type: sql` rule")
    namespace, name = meta.get("namespace"), str(meta.get("name"))
    full = f"{namespace}.{name}" if namespace else name
    kwargs = {k: v for k, v in (meta.get("kwargs") or {}).items() if k != "model"}
    column = node.get("column_name") or kwargs.pop("column_name", None)
    kwargs.pop("column_name", None)
    check = SourceCheck("dbt", str(file), location, dataset, _text({full: kwargs} if kwargs else full))
    if parent is None:
        return Carried(check, "refused", model, column, reason=f"the test's model ({node.get('attached_node')}) is not in the manifest")
    config = {k: v for k, v in (node.get("config") or {}).items() if k in JUDGING_CONFIG or k == "enabled"}
    for k, default in (("where", None), ("limit", None), ("fail_calc", "count(*)"), ("warn_if", DEFAULT_CONDITION),
                       ("error_if", DEFAULT_CONDITION), ("severity", "ERROR")):
        if config.get(k) is None or (k != "fail_calc" and str(config.get(k)).replace(" ", "") == str(default).replace(" ", "")):
            config.pop(k, None)  # the manifest writes every default; a default is no config
    return Test(check, model, column, full, kwargs, config)


def _manifest_contract(file: Path, key: str, node: dict) -> list[Carried]:
    def check(location: str, text: str) -> SourceCheck:
        return SourceCheck("dbt", str(file), location, node["name"], text)

    carried = []
    for name, col in sorted((node.get("columns") or {}).items()):
        carried += _contract_column(f"nodes.{key}.columns.{name}", {**col, "name": col.get("name", name)}, node["name"], check)
    for m, item in enumerate(node.get("constraints") or []):
        carried.append(constraint(check(f"nodes.{key}.constraints[{m}]", f"constraint {_text(item)}"), node["name"], None, item))
    return carried
