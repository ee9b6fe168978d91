"""CheckPlan -> SodaCL (Soda Core v3) per model.

`TRANSLATIONS` maps each params class to one SodaCL check (a one-key mapping: check line ->
configuration). Every check's `name` is its check id, the join key with the other engine. Samples
are off for every check (`samples limit: 0`): they cost a query per failed check and may leak values.

Where Soda's own metric counts differently from docs/mapping.md ("Semantics, check by check"), the check is a user-defined
metric whose query counts what the contract means: duplicates (Soda's `duplicate_count` counts
distinct duplicated values, we count rows), exclusive ranges, latency and retention.
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any, Callable

import yaml

from dc_bridge.plan import checks as c
from dc_bridge.plan.checks import Check
from dc_bridge.contract.thresholds import Syntax, negate, render
from dc_bridge.contract.sql import (TABLE_MARKER, SqlProblem, check_read_only, custom_placeholders, quote_identifier, retarget,
                                   sql_literal, view_name)
from dc_bridge.engines.compiled_text import block_yaml
from dc_bridge.engines.engine import Unsupported, from_history, not_executable, unsupported
from dc_bridge.contract.sql import epoch_seconds
from dc_bridge.engines.queries import (DOUBLE_EXACT, foreign_key_query, missing, not_in_set, number_text, outside_range, plain_literals,
                                      scalar_query)
from dc_bridge.engines.nested_types import nested_type_query


# the name of the Spark data source a scan of the compiled SodaCL uses (run.py; `dc-bridge soda config` tells a user's scan)
DATA_SOURCE = "dc_bridge_spark"
# a threshold in SodaCL (`between (1 and 5]` excludes 1, includes 5); SodaCL takes no exponent (`1e-05`)
SODACL = Syntax(compare="{op} {value}", between="between {left}{low} and {high}{right}", not_between="not {between}",
                number=number_text)


# Soda v3 reads every query it runs, and every check name and identifier holding `$`, as a Jinja template whose
# variables are written `${...}` (soda/common/jinja.py: the environment, then the scan's variables; `{% %}`
# and `{# #}` are Jinja's too): each such sequence of text dc-bridge writes is the Jinja expression that
# gives the sequence back, so Soda reads what the contract wrote (a valid value `${USER}` stays that text)
_JINJA = re.compile(r"\$\{|\{%|\{#")
_INERT = re.compile(r"\$\{'(\$\{|\{%|\{#)'\}")


def soda_inert(text: str) -> str:
    """`text` as Soda's Jinja renders back to `text`: `${` -> `${'${'}`, `{%` -> `${'{%'}`, `{#` -> `${'{#'}`."""
    return _JINJA.sub(lambda m: "${'" + m.group(0) + "'}", text)


def soda_resolved(text: str) -> str:
    """What Soda's Jinja makes of `soda_inert(...)` text (a check name as Soda reports it)."""
    return _INERT.sub(lambda m: m.group(1), text)


# the run's one clock in a query: the variable dc-bridge's run sets (engines/soda/run.py), else Soda's own
# NOW (the scan's start, UTC with its offset), so a plain scan of the compiled SodaCL runs on its own
RUN_CLOCK_VARIABLE = "DC_BRIDGE_NOW"
RUN_CLOCK = f"CAST('${{{RUN_CLOCK_VARIABLE} | default(NOW)}}' AS TIMESTAMP)"


def soda_query(query: str) -> str:
    """A query of dc-bridge's as Soda must be given it: inert (`soda_inert`) but for the run's clock."""
    return RUN_CLOCK.join(soda_inert(part) for part in query.split(RUN_CLOCK))


def _metric_name(check: Check) -> str:
    """User-defined metric names must be identifiers; derived from the id so it stays readable."""
    return "dcb_" + _NOT_ALNUM.sub("_", check.id).strip("_").lower()


# every character but those `str.isalnum` accepts (`\w` is those and `_`): one regex pass, not a loop per character
_NOT_ALNUM = re.compile(r"[\W_]")


def _count_metric(check: Check, table: str, condition: str) -> tuple[str, dict]:
    """A user-defined metric counting the rows that match `condition` (or their percent of all rows)."""
    name = _metric_name(check)
    if check.unit == "percent":
        # the percent of no rows is 0, as in the GX runner (NULL would leave Soda without a value)
        # a double, computed as the other engines compute it (100.0 * count / rows): Spark's decimal
        # division keeps 14 digits (1 of 3 rows: 33.33333333333333, Python 33.333333333333336)
        query = f"SELECT COALESCE(CAST(100 AS DOUBLE) * COUNT_IF({condition}) / NULLIF(COUNT(*), 0), 0) FROM {table}"
    else:
        query = f"SELECT COUNT_IF({condition}) FROM {table}"
    return name, {f"{name} query": query}


def _col(check: Check) -> str:
    return quote_identifier(check.column)


# Spark's ANSI reserved words: unusable as bare column names when `spark.sql.ansi.enforceReservedKeywords` is on
_RESERVED = frozenset("""
    all and any as authorization both case cast check collate column constraint create cross current_date current_time
    current_timestamp current_user distinct else end escape except false fetch filter for foreign from full grant group
    having in inner intersect into is join lateral leading left natural not null offset on only or order outer overlaps
    primary references right select session_user some table then time to trailing union unique unknown user using when
    where with""".split())
_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# one-word tokens of SodaCL's own grammar (soda.sodacl.antlr): `missing_count(d)` does not parse
_SODACL_WORDS = frozenset("with default percent must filter for and between not in warn fail pass change last d h m".split())


def _soda_column(name: str) -> str:
    # Soda puts the column text into its SQL as written; quote whatever is not a plain ASCII identifier
    # (Spark's parser takes no unquoted `größe`), is a reserved word or a word of SodaCL's grammar
    plain = _PLAIN.fullmatch(name) and name.lower() not in _RESERVED | _SODACL_WORDS
    return name if plain else quote_identifier(name)


def _metric(check: Check, name: str, config: dict) -> tuple[str, dict]:
    metric = f"{name}_percent" if check.unit == "percent" else f"{name}_count"
    return f"{metric}({_soda_column(check.column)})", config


def _soda_literal_safe(values) -> bool:
    """Soda v3 writes `valid values` / `missing values` into its SQL as Python writes them: without
    escaping a quote (and a trailing backslash escapes the closing quote), a `{` where Jinja may read
    it, a float as `nan` or `1e-05`: only text without those, booleans and integers within a long go
    as they are; the rest needs a query of our own, with exact, inert literals (engines/queries.py)."""
    return plain_literals(values) and not any(isinstance(v, str) and ("'" in v or v.endswith("\\") or "{" in v) for v in values)


def _not_null(check: Check, p: c.NotNull, table: str, contract_id: str):
    if not _soda_literal_safe(p.missing_values):
        return _count_metric(check, table, missing(_col(check), p.missing_values))
    return _metric(check, "missing", {"missing values": list(p.missing_values)} if p.missing_values else {})


def _duplicated(check: Check, table: str) -> str:
    """One row per key of `check` that more than one row holds (nulls left out), with its count of rows `n`."""
    columns = ", ".join(quote_identifier(col) for col in check.columns)
    return f"SELECT COUNT(*) AS n FROM {table} WHERE {_key_present(check)} GROUP BY {columns} HAVING COUNT(*) > 1"


def _key_present(check: Check) -> str:
    """The rows whose key has no null part: the only ones a uniqueness check compares."""
    return " AND ".join(f"{quote_identifier(col)} IS NOT NULL" for col in check.columns)


# a uniqueness check's number in each unit, from `{rows}`, the count of the rows whose key repeats, and
# `{table}`, the checked view: the percent of no rows is 0, as in the GX runner
_REPEATED = {"rows": "{rows}",
             "percent": "COALESCE(CAST(100 AS DOUBLE) * {rows} / NULLIF((SELECT COUNT(*) FROM {table}), 0), 0)"}


def key_count_query(check: Check, table: str) -> str:
    """Soda's uniqueness metric (`_unique`), in rows or percent: the rows of the keys that repeat, summed
    over the groups of `_duplicated`."""
    number = _REPEATED[check.unit].format(rows="COALESCE(SUM(n), 0)", table=table)
    return f"SELECT {number} FROM ({_duplicated(check, table)}) AS d"


def key_samples_query(check: Check, table: str) -> str:
    """Soda's uniqueness metric (`_unique`, rows or percent) as the bridge's runs send it (engines/soda/run.py):
    the same number first, of the rows whose key repeats, then the repeated keys' count, smallest and
    largest, which the failing-value samples would otherwise count the key again for (runner/samples.py).
    The rows of each key are counted by a window, not `key_count_query`'s grouping: a key the contract
    declares unique is mostly distinct, where a grouping's partial aggregation reduces nothing and
    hashes every key twice while the window sorts each once (docs/benchmarks.md, issue 29: about 5 s
    of Spark CPU against 10 s on 10M keys), the form the native engine counts such a key with too."""
    columns = [quote_identifier(col) for col in check.columns]
    key = columns[0] if len(columns) == 1 else f"struct({', '.join(columns)})"
    counted = f"SELECT {key} AS k, COUNT(*) OVER (PARTITION BY {', '.join(columns)}) AS n FROM {table} WHERE {_key_present(check)}"
    number = _REPEATED[check.unit].format(rows="COUNT(*)", table=table)
    # the distinct repeated keys as each key's n rows adding up n times 1/n (a double, rounded: exact): COUNT(DISTINCT)
    # is a shuffle and a job of its own (engines/spark_conditions.py `duplicates` counts them the same way)
    return f"SELECT {number}, CAST(COALESCE(ROUND(SUM(1D / n)), 0) AS BIGINT), MIN(k), MAX(k) FROM ({counted}) AS w WHERE n > 1"


def _unique(check: Check, p: c.Unique, table: str, contract_id: str):
    name = _metric_name(check)
    return name, {f"{name} query": key_count_query(check, table)}


def _expand_quotes(pattern: str) -> str:
    """The regex with every `\\Q...\\E` quote written out as escaped characters, as Java's own
    Pattern.RemoveQEQuoting does before it parses: inside a quote nothing is an escape, so the quote
    and backslash rewriting below must not reach into it. Letters and non-ASCII characters stay as
    they are, every other character becomes `\\xHH` (a digit too: after a group reference `\\1` a
    plain digit would extend it)."""
    out, i, n = [], 0, len(pattern)
    while i < n:
        if pattern.startswith("\\Q", i):
            end = pattern.find("\\E", i + 2)
            quoted = pattern[i + 2:] if end < 0 else pattern[i + 2:end]
            out.extend(ch if ch.isascii() and ch.isalpha() or not ch.isascii() else f"\\x{ord(ch):02x}" for ch in quoted)
            i = n if end < 0 else end + 2
        elif pattern[i] == "\\" and i + 1 < n:
            out.append(pattern[i:i + 2])
            i += 2
        else:
            out.append(pattern[i])
            i += 1
    return "".join(out)


def soda_regex(pattern: str) -> str | None:
    """The regex as Soda's Spark SQL can carry it, or None when it cannot. Soda writes it into
    `rlike('...')` without escaping quotes and only doubles the backslash of each `\\X` pair, which
    Spark's string literal undoes. Two characters do not survive that: a quote (the email format has
    one) and an escaped backslash (`\\\\`, whose doubled form `\\\\\\` leaves a stray escape on
    the next character). Both become hex escapes (`\\x27`, `\\x5c`), which match the same character
    in Java (Spark), after `\\Q...\\E` quotes are written out (inside them an escape is text). The
    result is then put through what Soda and Spark do to it (`_soda_round_trip`); a pattern that does
    not come back as written (a backslash before a line break, Soda's `${...}` variables) gets None."""
    out, i = [], 0
    expanded = _expand_quotes(pattern)
    while i < len(expanded):
        char = expanded[i]
        if char == "\\" and i + 1 < len(expanded):
            pair = expanded[i:i + 2]
            out.append({"\\'": r"\x27", "\\\\": r"\x5c"}.get(pair, pair))
            i += 2
            continue
        out.append(r"\x27" if char == "'" else r"\x5c" if char == "\\" else char)
        i += 1
    written = "".join(out)
    return written if not _JINJA.search(written) and _soda_round_trip(written) == written else None


def _soda_round_trip(regex: str) -> str | None:
    """What Spark's rlike receives from Soda for `regex`: Soda's `escape_regex` (a backslash before every
    `\\X` pair), then Spark's string literal unescaping; None when the literal would end early."""
    escaped = re.sub(r"(\\.)", r"\\\1", regex)
    out, i = [], 0
    while i < len(escaped):
        char = escaped[i]
        if char == "'":
            return None
        if char == "\\" and i + 1 < len(escaped):
            nxt = escaped[i + 1]
            if nxt in "01234567" or nxt == "u" or nxt == "U":
                return None  # octal and unicode escapes of Spark's literal: not what the regex said
            out.append({"b": "\b", "n": "\n", "r": "\r", "t": "\t", "Z": "\x1a", "%": "\\%", "_": "\\_"}.get(nxt, nxt))
            i += 2
            continue
        out.append(char)
        i += 1
    return "".join(out)


def _regex(check: Check, p: c.Regex, table: str, contract_id: str):
    written = soda_regex(p.pattern)
    if written is None:
        # Soda cannot carry this pattern to Spark as written: the bridge's own count, with the pattern as an exact literal
        return _count_metric(check, table, f"{_col(check)} IS NOT NULL AND NOT {_col(check)} RLIKE {sql_literal(p.pattern)}")
    return _metric(check, "invalid", {"valid regex": written})


def _in_set(check: Check, p: c.InSet, table: str, contract_id: str):
    if not _soda_literal_safe(p.values):
        return _count_metric(check, table, not_in_set(_col(check), p.values))
    return _metric(check, "invalid", {"valid values": list(p.values)})


def _length(check: Check, p: c.LengthBetween, table: str, contract_id: str):
    config = {}
    if p.min_length is not None:
        config["valid min length"] = p.min_length
    if p.max_length is not None:
        config["valid max length"] = p.max_length
    return _metric(check, "invalid", config)


def _between(check: Check, p: c.ValueBetween, table: str, contract_id: str):
    # Soda's `valid min` / `valid max` are inclusive and write a float as Python does (`1e-05` is a
    # double in Spark SQL, so a decimal column is compared as doubles, and Spark's decimal comparison
    # can overflow to NULL): integer bounds are exact there, the rest is the bridge's exact count
    # (engines/queries.py `outside_range`)
    bounds = (p.min_value, p.max_value)
    # Soda reads an integer bound as a float too: only those a double holds exactly go as they are
    if not (p.strict_min or p.strict_max or p.exact_only) and all(v is None or (isinstance(v, int) and not isinstance(v, bool) and v in DOUBLE_EXACT)
                                                  for v in bounds):
        config = {key: value for key, value in (("valid min", p.min_value), ("valid max", p.max_value)) if value is not None}
        return _metric(check, "invalid", config)
    return _count_metric(check, table, outside_range(_col(check), p))


def _row_count(check: Check, p: c.RowCount, table: str, contract_id: str):
    return "row_count", {}


def _exists(check: Check, p: c.ColumnExists, table: str, contract_id: str):
    return "schema", {"fail": {"when required column missing": [check.column]}}


def _column_type(check: Check, p: c.ColumnType, table: str, contract_id: str):
    if p.nested:  # nested element types: a query of the bridge's (engines/nested_types.py), the column's own type included
        name = _metric_name(check)
        query = f"SELECT COUNT(*) FROM ({nested_type_query(check.column, p, table, include_top=True)}) AS wrong_types"
        return [{f"{name} = 0": {"name": soda_inert(check.id), f"{name} query": soda_query(query)}}]
    if not p.exact:  # a set of compatible types (a logical type) is checked in GX and the native engine
        return Unsupported("Soda's schema check takes one exact type")
    return "schema", {"fail": {"when wrong column type": {check.column: p.spark_type}}}


def _sql(check: Check, p: c.SqlMetric | c.Frequency, table: str, contract_id: str):
    # Soda reads a metric as a Python float (and stops the whole scan on text): the query returns a
    # double, or NULL for a value that is no number or that its double would judge differently (engines/queries.py)
    name = _metric_name(check)
    query = p.query.replace(f"`{TABLE_MARKER}`", table).replace(TABLE_MARKER, table)
    return name, {f"{name} query": scalar_query(query, check.threshold) if check.threshold else query}


def _freshness(check: Check, p: c.Freshness, table: str, contract_id: str):
    # Soda judges freshness itself (scan time minus max); its condition is an age, not our threshold
    return f"freshness({_soda_column(check.column)})", {"fail": f"when > {_duration(p.max_age.total_seconds())}"}


def _duration(seconds: float) -> str:
    """Seconds in SodaCL freshness syntax (`1d2h30m`)."""
    seconds = int(round(seconds))
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    text = "".join(f"{v}{u}" for v, u in ((days, "d"), (hours, "h"), (minutes, "m"), (secs, "s")) if v)
    return text or "0s"


def _latency(check: Check, p: c.Latency, table: str, contract_id: str):
    processed, source = (quote_identifier(x) for x in check.columns)
    return _count_metric(check, table, f"{epoch_seconds(processed)} - {epoch_seconds(source)} > {number_text(p.max_latency.total_seconds())}")


def _retention(check: Check, p: c.Retention, table: str, contract_id: str):
    # against the run's one clock (`RUN_CLOCK`), in microseconds: exact, also far from 1970
    seconds, micros = divmod(p.period // timedelta(microseconds=1), 1_000_000)
    period = f"1000000L * {seconds}" + (f" - {micros}" if micros else "")  # a long: 86400 * 1000000 overflows an int
    return _count_metric(check, table, f"unix_micros(CAST({_col(check)} AS TIMESTAMP)) < unix_micros({RUN_CLOCK}) - {period}")


def _foreign_key(check: Check, p: c.ForeignKey, table: str, contract_id: str):
    name = _metric_name(check)
    query = f"SELECT COUNT(*) FROM ({foreign_key_query(check, p, contract_id, table)}) AS orphans"
    return name, {f"{name} query": query}


def _custom(check: Check, p: c.CustomSoda, table: str, contract_id: str) -> list[dict]:
    targets = {name: table if target == TABLE_MARKER else target for name, target in p.tables}
    return [_named(bind_soda_line(line, targets), check) for line in soda_check_lines(p.implementation, check.column)]


# where a SodaCL check line names another dataset: a reference check (`values in (a) must exist in other (b)`) and a
# cross check (`row_count same as other`, optionally `in data_source`)
_NAMED_DATASETS = (re.compile(r"(\bmust\s+(?:not\s+)?exist\s+in\s+)(?P<name>\S+?)(\s*\()"),
                   re.compile(r"(\bsame\s+as\s+)(?P<name>\S+)()"))


def bind_soda_line(line: Any, targets: dict[str, str]) -> Any:
    """A custom Soda check with every dataset it names bound to what the run has for it (`targets`: lower-case name
    -> view; CustomSoda.tables): the dataset a reference or cross check names in its line, and the tables each query
    of its configuration reads (`fail query`, `<metric> query`). A contract's custom check names its datasets as its
    team does (`FROM dim_customer`); Soda runs on dc-bridge's views. A name that is no model is left as written (lint
    refuses it in a query: DCB170). The check is otherwise as written."""
    if isinstance(line, str):
        return _bind_datasets(line, targets)
    if not (isinstance(line, dict) and len(line) == 1):
        return line
    key, config = next(iter(line.items()))
    if isinstance(config, dict):
        config = {name: _bind_query(value, targets) if isinstance(name, str) and name.endswith("query") else value
                  for name, value in config.items()}
    return {_bind_datasets(str(key), targets): config}


def _bind_datasets(line: str, targets: dict[str, str]) -> str:
    for pattern in _NAMED_DATASETS:
        line = pattern.sub(lambda m: m.group(1) + targets.get(_unquoted(m["name"]).lower(), m["name"]) + m.group(3), line)
    return line


def _unquoted(name: str) -> str:
    return name[1:-1] if len(name) >= 2 and name[0] == name[-1] and name[0] in "\"`'" else name


def _bind_query(query: Any, targets: dict[str, str]) -> Any:
    """The query with each table it reads that `targets` names bound to its view; as written when it does not parse
    as one read-only SELECT (Soda then reports its own error, lint its finding)."""
    if not isinstance(query, str) or not targets or custom_placeholders(query) != query:
        return query  # a query with Soda's `${NOW}` or GX-like braces: sqlglot reads no table in it reliably
    try:
        check_read_only(query, list(targets))
        return retarget(query, targets)
    except (SqlProblem, RecursionError):
        return query


def soda_check_lines(implementation, column: str | None) -> tuple:
    """A custom Soda check as SodaCL check lines. Accepts raw SodaCL (text or mapping, with or
    without its `checks for` header) and Soda's data-contract check form (`type: ...`)."""
    body = yaml.safe_load(implementation) if isinstance(implementation, str) else implementation
    if isinstance(body, dict) and "type" in body:
        return (contract_check_to_sodacl(body, column),)
    if isinstance(body, dict):
        headers = [k for k in body if isinstance(k, str) and k.startswith("checks for")]
        if headers:
            return tuple(body[headers[0]] or ())
        return tuple({k: v} for k, v in body.items())
    if isinstance(body, (list, tuple)):  # a tuple: check lines already, as a plan built in code holds them
        return tuple(body)
    return (body,)


_SODA_CONTRACT_OPERATORS = {
    "must_be": "=", "must_not_be": "!=", "must_be_greater_than": ">", "must_be_greater_than_or_equal_to": ">=",
    "must_be_less_than": "<", "must_be_less_than_or_equal_to": "<=",
}
# Soda data-contract check types -> SodaCL metric (column-level metrics take the column list)
_SODA_CONTRACT_METRICS = {
    "no_duplicate_values": ("duplicate_count", "= 0"), "duplicate_count": ("duplicate_count", None),
    "duplicate_percent": ("duplicate_percent", None), "no_missing_values": ("missing_count", "= 0"),
    "missing_count": ("missing_count", None), "missing_percent": ("missing_percent", None),
    "no_invalid_values": ("invalid_count", "= 0"), "invalid_count": ("invalid_count", None),
    "invalid_percent": ("invalid_percent", None), "row_count": ("row_count", None),
}


def contract_check_to_sodacl(body: dict, column: str | None):
    """Soda's data-contract form (`type: duplicate_percent`, `columns`, `must_be_less_than`) -> SodaCL."""
    check_type = str(body["type"])
    metric, fixed = _SODA_CONTRACT_METRICS.get(check_type, (check_type, None))
    columns = body.get("columns") or ([body["column"]] if body.get("column") else [column] if column else [])
    call = metric if metric == "row_count" else f"{metric}({', '.join(columns)})"
    condition = fixed
    for key, op in _SODA_CONTRACT_OPERATORS.items():
        if key in body:
            condition = f"{op} {body[key]}"
    if "must_be_between" in body:
        low, high = body["must_be_between"]
        condition = f"between {low} and {high}"
    config = {k: v for k, v in body.items() if k not in {"type", "columns", "column", "must_be_between", *_SODA_CONTRACT_OPERATORS}}
    return {f"{call} {condition or '= 0'}": config or None}


# kind -> one SodaCL check (check line, configuration), given the check, its params, the model's view
# and the contract id (a foreign key names the other model's view); every kind has an entry (tests/test_kinds.py)
TRANSLATIONS: dict[str, Callable[..., tuple[str, dict] | list[dict] | Unsupported]] = {
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
    # verbatim SodaCL: its own check items, each named by the check id
    "custom_soda": _custom,
    "custom_gx": unsupported("a custom GX check runs in GX only"),
    "availability": from_history,
    "error_rate": from_history,
    "not_executable": not_executable,
}


def translate_check(check: Check, contract_id: str) -> list[dict] | Unsupported:
    """The SodaCL check items of one check, or why Soda does not run it."""
    table = view_name(contract_id, check.model)
    made = TRANSLATIONS[check.kind](check, check.params, table, contract_id)
    if isinstance(made, Unsupported):
        return made
    if isinstance(made, list):  # the items of a custom check (the user's SodaCL, as written) or of a nested type query
        return made
    metric, config = made
    config = {"name": soda_inert(check.id), **{key: soda_query(value) if key.endswith(" query") else value for key, value in config.items()}}
    line = metric
    if metric.startswith(("missing_", "invalid_")):
        config["samples limit"] = 0
    if check.severity != "error":
        # warning/info: a violation warns instead of failing; Soda's `warn` names the bad values
        config["warn"] = config.pop("fail", None) or f"when {render(negate(check.threshold), SODACL)}"
    elif "fail" not in config and metric != "schema":
        line = f"{metric} {render(check.threshold, SODACL)}"
    return [{line: config}]


def _named(line: Any, check: Check) -> dict:
    """Give a verbatim Soda check the check id as its name, so its result joins."""
    if isinstance(line, str):
        return {line: {"name": soda_inert(check.id)}}
    if isinstance(line, dict) and len(line) == 1:
        key, config = next(iter(line.items()))
        # the check id wins over a name written in the check: it is the join key of the results
        return {key: {**(config if isinstance(config, dict) else {}), "name": soda_inert(check.id)}}
    return line


def assemble_document(contract_id: str, model: str, translated: list[list[dict]], contract_meta: dict) -> dict:
    """One model's SodaCL document (`{"checks for <view>": [...]}`) from its checks' items."""
    return {f"checks for {view_name(contract_id, model)}": [item for items in translated for item in items]}


def sodacl_text(document: dict, contract_meta: dict) -> str:
    """The SodaCL file's exact text, with a header naming the contract it was compiled from."""
    header = (f"# Compiled by dc-bridge from {contract_meta['contract_file']} "
              f"({contract_meta['contract_id']} {contract_meta['contract_version']}). Do not edit.\n")
    return header + block_yaml(document)
