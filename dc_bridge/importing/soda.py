"""SodaCL check files (Soda Core v3) -> `Carried` items: the reader of `dc-bridge import soda:PATH`.

A check file is YAML whose sections are `checks for DATASET` (also `checks for DATASET [partition]` with its
`filter DATASET [partition]: where: ...`) and `for each dataset T` (its `datasets` listed by name). Each check
item (`- row_count > 0`, `- missing_count(email) = 0: {missing values: [N/A]}`) is read into its check line's
parts (metric, columns, threshold) and its configuration, then `METRICS`, one row per SodaCL metric, says what
it becomes: a field property, an ODCS library metric with its threshold, an SQL rule, or the check itself as a
`type: custom`, `engine: soda` rule (Soda still evaluates it, the verdict carries it) with the reason; a check
no run could evaluate (Soda Cloud's history, unresolvable variables) is refused with the reason. A row carries
only the configuration keys it knows; any other key makes the check custom, never a key silently ignored.
docs/importing-soda.md is the table in words, with each row's fidelity against a plain Soda scan.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field as dataclass_field
from pathlib import Path
from typing import Any, Callable

import yaml

from dc_bridge.contract.sql import quote_identifier
from dc_bridge.importing.model import Carried, ImportInputError, SourceCheck

# ---------------------------------------------------------------------------------------------
# the check line's grammar (the part of SodaCL's ANTLR grammar a check line of these metrics uses)

_NUMBER = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"
_COMPARE = re.compile(rf"^(?P<op>=|!=|<>|<=|>=|<|>)\s*(?P<value>{_NUMBER})\s*(?P<percent>%)?$")
_BETWEEN = re.compile(rf"^(?P<not>not\s+)?between\s+(?P<left>[\[(])?\s*(?P<low>{_NUMBER})\s+and\s+(?P<high>{_NUMBER})\s*"
                      rf"(?P<right>[\])])?\s*(?P<percent>%)?$")
# `metric`, `metric(args)`, each with an optional threshold after it
_CALL = re.compile(r"^(?P<metric>[A-Za-z_][A-Za-z0-9_]*)\s*(?:\((?P<args>[^()]*)\))?\s*(?P<threshold>.*)$", re.S)
# `values in (a, b) must exist in other (c, d)`: the reference check
_REFERENCE = re.compile(r"^values\s+in\s*\((?P<columns>[^()]+)\)\s+must\s+(?P<not>not\s+)?exist\s+in\s+(?P<other>.+?)\s*"
                        r"\((?P<other_columns>[^()]+)\)\s*(?P<rest>.*)$", re.S)
# check lines whose meaning needs what a dc-bridge run does not keep (Soda Cloud's stored measurements,
# a reference distribution file) -> why no run could evaluate them
_NEEDS_HISTORY = (
    (re.compile(r"^change\b"), "a change-over-time check compares with the metric's earlier values, which Soda Cloud "
                               "stores; a dc-bridge run keeps none, so no run of the contract could evaluate it"),
    (re.compile(r"^anomaly\s+(score|detection)\b"), "an anomaly check learns from the metric's history in Soda Cloud; a "
                                                    "dc-bridge run keeps none (dc-bridge's own monitors watch a "
                                                    "contract's series: docs/monitoring.md)"),
    (re.compile(r"^distribution_difference\b"), "a distribution check compares with a reference distribution file "
                                                "that `soda update-dro` writes; the contract carries no such file"),
)
# check lines of Soda's own that have no contract form: carried as Soda's check, with the reason
_SODA_ONLY = (
    (re.compile(r"^group\s+(by|evolution)\b"), "a group-by check judges each group of rows on its own; a contract rule "
                                                "judges the model as one"),
    (re.compile(r"^for\s+each\s+column\b"), "a check of each column by name pattern has no contract form"),
    (re.compile(r"\bsame\s+as\b"), "a cross-dataset comparison of two datasets' metrics has no contract form"),
)

# `${NAME}` (Jinja) variables Soda fills in from the scan's variables or the environment; NOW is the one a
# dc-bridge run sets (the run's clock), so it stays
_VARIABLE = re.compile(r"\$\{\s*([^}]*?)\s*\}")
_RUN_VARIABLES = {"NOW"}
VARIABLE_REASON = ("`${{{name}}}` is a Soda variable, filled in from the scan's variables or the environment when Soda "
                   "runs; the import cannot know its value, and a contract's rule must say what it checks: write the "
                   "value into the check file (or render it) and import again")

# configuration keys every row carries: the check's name and identity, its Soda Cloud attributes, and the
# failed-row samples (which change no outcome)
_COMMON_KEYS = frozenset({"name", "identity", "attributes", "samples limit", "samples columns"})
_MISSING_KEYS = frozenset({"missing values", "missing format", "missing regex"})
_VALID_KEYS = frozenset({"valid values", "valid format", "valid regex", "valid min", "valid max", "valid length",
                         "valid min length", "valid max length", "invalid values", "invalid format", "invalid regex"})


@dataclass(frozen=True)
class Threshold:
    """A SodaCL threshold: `op value` (op one of = != < <= > >=), or between low and high with each bound's inclusion."""
    op: str
    value: float | int | None = None
    low: float | int | None = None
    high: float | int | None = None
    low_inclusive: bool = True
    high_inclusive: bool = True
    percent: bool = False


@dataclass(frozen=True)
class Check:
    """One check item as read: its line's parts and its configuration."""
    dataset: str
    line: str
    config: dict
    metric: str
    columns: tuple[str, ...] = ()
    threshold: Threshold | None = None      # the threshold that must hold (a `fail: when` condition negated)
    severity: str = "error"                 # `warning` when only a `warn` level is written
    filter: str | None = None               # a partition's `where`, and a check's own `filter`, as one condition


@dataclass(frozen=True)
class Form:
    """What a row makes of a check: properties of `field`, or a rule (on `field`, or the model when None)."""
    field: str | None = None
    properties: dict = dataclass_field(default_factory=dict)
    rule: dict | None = None
    reason: str = ""


@dataclass(frozen=True)
class Row:
    """One SodaCL metric of the mapping table: the configuration keys it carries, what it becomes, and the
    kind of engines/soda/translate.py it is the inverse of (tests/test_import_soda.py holds the two together)."""
    keys: frozenset[str]
    form: Callable[[Check], "Form | str"]   # a Form, or the reason the check has no contract form (custom)
    inverse_of: str | None = None


# ---------------------------------------------------------------------------------------------
# reading the file


def read(path: str) -> list[Carried]:
    """Every check of the SodaCL file at `path`, each one Carried. ImportInputError when the file cannot be
    read, is not YAML, or holds no SodaCL section."""
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ImportInputError(f"{path}: cannot be read ({exc}); a Soda source is a SodaCL check file (YAML)") from None
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise ImportInputError(f"{path}: is not YAML{where} ({getattr(exc, 'problem', None) or exc}); a Soda source is a "
                               f"SodaCL check file such as `checks for orders:` followed by a list of checks") from None
    if not isinstance(document, dict) or not any(isinstance(k, str) and _section(k)[0] in _CHECK_SECTIONS for k in document):
        found = type(document).__name__ if not isinstance(document, dict) else "sections " + ", ".join(map(repr, list(document)[:5]))
        raise ImportInputError(f"{path}: is not SodaCL: expected a mapping with `checks for DATASET:` (or `for each dataset T:`) "
                               f"sections, found {found}; check the file, or import it with the reader of its own tool")
    partitions = _partitions(document)
    carried: list[Carried] = []
    for header, body in document.items():
        carried += _read_section(str(path), str(header), body, partitions)
    return carried


_CHECKS_FOR = re.compile(r"^checks\s+for\s+(?P<dataset>.+?)(?:\s*\[(?P<partition>[^\]]*)\])?\s*$", re.S)
_FILTER = re.compile(r"^filter\s+(?P<dataset>.+?)\s*\[(?P<partition>[^\]]*)\]\s*$", re.S)
_FOR_EACH = re.compile(r"^for\s+each\s+(?:dataset|table)\s+(?P<alias>\S+)\s*$")
# sections that are no checks: profiling, discovery, samples, Soda Cloud monitoring, data-source checks, variables
_NOT_CHECKS = {
    "variables": "scan variables are Soda's, filled into checks when it runs",
    "automated monitoring": "automated monitoring runs in Soda Cloud, on its own stored history",
    "profile columns": "column profiling sends profiles to Soda Cloud; it checks nothing",
    "discover datasets": "dataset discovery sends metadata to Soda Cloud; it checks nothing",
    "discover tables": "dataset discovery sends metadata to Soda Cloud; it checks nothing",
    "sample datasets": "dataset samples are sent to Soda Cloud; they check nothing",
    "sample tables": "dataset samples are sent to Soda Cloud; they check nothing",
    "checks": "data-source checks name no dataset: a contract's rules belong to a model; write them under `checks for DATASET`",
}
_CHECK_SECTIONS = {"checks for", "for each"}


def _section(header: str) -> tuple[str, re.Match | None]:
    """The kind of a section header and its parts."""
    for kind, pattern in (("checks for", _CHECKS_FOR), ("filter", _FILTER), ("for each", _FOR_EACH)):
        match = pattern.match(header.strip())
        if match:
            return kind, match
    for name in _NOT_CHECKS:
        if header.strip() == name or header.strip().startswith(name + " "):
            return name, None
    return "unknown", None


def _partitions(document: dict) -> dict[tuple[str, str], str]:
    """(dataset, partition) -> its `where`, from every `filter DATASET [partition]` section."""
    out = {}
    for header, body in document.items():
        kind, match = _section(str(header))
        if kind == "filter" and isinstance(body, dict) and isinstance(body.get("where"), str):
            out[(dataset_name(match["dataset"]), match["partition"].strip())] = body["where"].strip()
    return out


def _read_section(file: str, header: str, body: Any, partitions: dict) -> list[Carried]:
    kind, match = _section(header)
    if kind == "filter":
        return []  # a partition's definition: carried with the checks of `checks for DATASET [partition]`
    if kind == "checks for":
        dataset, partition = dataset_name(match["dataset"]), (match["partition"] or "").strip() or None
        where = partitions.get((dataset, partition)) if partition else None
        if partition and where is None:
            return [_refused(SourceCheck("soda", file, header, dataset, header), dataset,
                             f"partition [{partition}] has no `filter {match['dataset']} [{partition}]:` section with a "
                             f"`where`; add it, or import the checks without the partition")]
        return _read_checks(file, header, dataset, body, where, partition)
    if kind == "for each":
        return _read_for_each(file, header, body)
    check = SourceCheck("soda", file, header, "", header)
    if kind in _NOT_CHECKS:
        return [_refused(check, "", f"section `{header}`: {_NOT_CHECKS[kind]}")]
    return [_refused(check, "", f"section `{header}` is no SodaCL section dc-bridge knows (expected `checks for DATASET`, "
                                f"`filter DATASET [partition]`, `for each dataset T`)")]


def _read_for_each(file: str, header: str, body: Any) -> list[Carried]:
    """`for each dataset T: {datasets: [...], checks: [...]}`: the checks once per dataset listed by name.
    A name pattern (`%`, `include`/`exclude`) is resolved by Soda against the data source's tables, which
    the import does not see: refused."""
    check = SourceCheck("soda", file, header, "", header)
    if not isinstance(body, dict) or not isinstance(body.get("datasets"), list) or not isinstance(body.get("checks"), list):
        return [_refused(check, "", f"`{header}` must hold `datasets:` (a list of names) and `checks:` (a list of checks)")]
    unknown = sorted(set(body) - {"datasets", "checks"})
    if unknown:
        return [_refused(check, "", f"`{header}` has keys dc-bridge does not know: {', '.join(unknown)}")]
    patterns = [d for d in body["datasets"] if not isinstance(d, str) or "%" in d or "*" in d or d.split()[0] in ("include", "exclude")]
    if patterns:
        return [_refused(check, "", f"`{header}` selects datasets by pattern ({', '.join(map(str, patterns))}), which Soda "
                                    f"resolves against the data source's tables at scan time; list the datasets by name")]
    carried = []
    for dataset in body["datasets"]:
        carried += _read_checks(file, f"{header}: {dataset}", dataset_name(dataset), body["checks"], None, None)
    return carried


def dataset_name(written: str) -> str:
    """A dataset name as the model's name: SodaCL quotes a name with spaces or dots (`"order lines"`) for its SQL."""
    name = written.strip()
    for quote in ('"', "`", "'"):
        if len(name) >= 2 and name[0] == name[-1] == quote:
            return name[1:-1]
    return name


def _read_checks(file: str, header: str, dataset: str, items: Any, where: str | None, partition: str | None) -> list[Carried]:
    if not isinstance(items, list):
        return [_refused(SourceCheck("soda", file, header, dataset, header), dataset,
                         f"`{header}` must hold a list of checks, found {type(items).__name__}")]
    return [carry(SourceCheck("soda", file, f"{header}[{index}]", dataset, _one_line(item)), item, where, partition)
            for index, item in enumerate(items)]


def _one_line(item: Any) -> str:
    if isinstance(item, dict) and len(item) == 1:
        line, config = next(iter(item.items()))
        return f"{line}: {yaml.safe_dump(config, default_flow_style=True, width=10_000).strip()}" if config else str(line)
    return str(item)


# ---------------------------------------------------------------------------------------------
# one check


def carry(source: SourceCheck, item: Any, where: str | None = None, partition: str | None = None) -> Carried:
    """What one check item becomes (`where`: its partition's filter)."""
    dataset = source.dataset
    if isinstance(item, str):
        line, config = item, {}
    elif isinstance(item, dict) and len(item) == 1 and isinstance(next(iter(item.values())), (dict, type(None))):
        line, config = next(iter(item.items()))
        line, config = str(line), dict(config or {})
    else:
        return _refused(source, dataset, "a check is a check line, or a mapping of one check line to its configuration")
    unresolved = sorted({name for name in _VARIABLE.findall(yaml.safe_dump(item, width=10_000)) + _VARIABLE.findall(dataset)
                         if name not in _RUN_VARIABLES})
    if unresolved:
        return _refused(source, dataset, VARIABLE_REASON.format(name=unresolved[0]))
    line = " ".join(line.split())
    for pattern, reason in _NEEDS_HISTORY:
        if pattern.search(line):
            return _refused(source, dataset, reason)
    check_filter = config.get("filter")
    combined = " AND ".join(f"({c})" for c in (where, check_filter) if isinstance(c, str) and c.strip()) or None
    problem = _partition_problem(line, partition)
    if problem:
        return _refused(source, dataset, problem)
    implementation = _implementation(line, config, combined, partition)
    for pattern, reason in _SODA_ONLY:
        if pattern.search(line):
            return _custom(source, dataset, implementation, reason)
    parsed = _parse(dataset, line, config, combined)
    if isinstance(parsed, str):
        return _custom(source, dataset, implementation, parsed)
    row = METRICS.get(parsed.metric) or (_USER_DEFINED if _user_defined(parsed) else None)
    if row is None:
        return _refused(source, dataset, f"`{parsed.metric}` is neither a SodaCL metric nor a user-defined one (no "
                                         f"`{parsed.metric} query` or `{parsed.metric} expression` in its configuration)")
    unknown = sorted(set(config) - row.keys - _COMMON_KEYS - {"fail", "warn", "filter"} - _own_keys(parsed))
    if unknown:
        return _custom(source, dataset, implementation, f"configuration {', '.join(map(repr, unknown))} has no contract form "
                                                        f"for `{parsed.metric}`")
    if parsed.filter is not None:
        return _custom(source, dataset, implementation, "a filtered check (a partition's `where`, or `filter`) is a rule over "
                                                        "part of the rows, which a contract's library rule cannot scope")
    made = row.form(parsed)
    if isinstance(made, str):
        return _custom(source, dataset, implementation, made)
    if made.rule is None and (parsed.severity != "error" or _metadata(config)):
        return _custom(source, dataset, implementation, "a field property carries no name, severity or attributes")
    rule = None if made.rule is None else {**made.rule, **_metadata(config), **({"severity": parsed.severity} if parsed.severity != "error" else {})}
    return Carried(source, "mapped", dataset, made.field, dict(made.properties), rule, made.reason)


def _own_keys(check: Check) -> set[str]:
    """A user-defined metric's own keys (`avg_surface query`, `avg_surface expression`)."""
    return {f"{check.metric} query", f"{check.metric} expression"}


def _user_defined(check: Check) -> bool:
    return any(key in check.config for key in _own_keys(check))


def _metadata(config: dict) -> dict:
    """The rule keys a check's name, identity and attributes become."""
    out: dict[str, Any] = {}
    if isinstance(config.get("name"), str):
        out["name"] = config["name"]
    custom = [{"property": f"soda.{key}", "value": config[key]} for key in ("identity", "attributes") if key in config]
    if custom:
        out["customProperties"] = custom
    return out


def _partition_problem(line: str, partition: str | None) -> str | None:
    """Why a check of partition `partition` cannot be carried (Soda takes no `filter` on its type), or None."""
    if partition is None or _FILTERABLE.match(line):
        return None
    return (f"a check of this type in partition [{partition}] cannot carry the partition: Soda takes a `filter` on "
            f"metric, missing, validity, duplicate, row count and freshness checks only")


def _implementation(line: str, config: dict, combined_filter: str | None, partition: str | None) -> str:
    """The check as a custom Soda rule's implementation (YAML text): the check item as written, with a partition's
    `where` as the check's own `filter` (a custom rule's SodaCL holds no section of its own)."""
    if partition is not None:
        config = {**config, "filter": combined_filter}
    return yaml.safe_dump([{line: config} if config else line], sort_keys=False, allow_unicode=True, width=10_000)


# the check types Soda's parser reads an in-check `filter` for (metric checks and freshness)
_FILTERABLE = re.compile(r"^(?!values\s+in\b|schema\b|failed\s+rows\b|group\b)[A-Za-z_][A-Za-z0-9_]*\s*(\(|$|[=<>!]|between|not\s)")


def _custom(source: SourceCheck, dataset: str, implementation: str, reason: str) -> Carried:
    return Carried(source, "custom", dataset, None, {}, {"type": "custom", "engine": "soda", "implementation": implementation},
                   reason)


def _refused(source: SourceCheck, dataset: str, reason: str) -> Carried:
    return Carried(source, "refused", dataset, reason=reason)


# check lines that are no `metric(columns) threshold`, named as METRICS names them
_SPECIAL = ((re.compile(r"^failed rows$"), "failed rows"), (re.compile(r"^schema$"), "schema"), (_REFERENCE, "reference"))
# metrics whose threshold is no number (freshness: a duration) or lies in their levels (schema, reference): Soda's own
_OWN_THRESHOLDS = {"freshness", "schema", "reference"}


def _parse(dataset: str, line: str, config: dict, combined_filter: str | None) -> Check | str:
    """The check line's parts and the threshold that must hold, or why it has no contract form."""
    special = next((name for pattern, name in _SPECIAL if pattern.match(line)), None)
    match = None if special else _CALL.match(line)
    if special is None and match is None:
        return f"check line `{line}` is not of the form `metric(columns) threshold`"
    metric = special or match["metric"]
    args, written = (None, "") if special else (match["args"], match["threshold"].strip())
    columns = tuple(dataset_name(c) for c in args.split(",")) if args and args.strip() else ()
    if metric in _OWN_THRESHOLDS:
        return Check(dataset, line, config, metric, columns, None, "error", combined_filter)
    levels = {level: config[level] for level in ("fail", "warn") if level in config}
    if written and levels:
        return "a check with a threshold in its line and a `fail`/`warn` level has no one contract threshold"
    if len(levels) == 2:
        return "a check with both a `warn` and a `fail` level is two thresholds in one check; a contract rule has one"
    severity, threshold = "error", None
    if written:
        threshold = parse_threshold(written)
        if threshold is None:
            return f"threshold `{written}` is not one dc-bridge reads (= != < <= > >= between)"
    elif levels:
        level, condition = next(iter(levels.items()))
        severity = "warning" if level == "warn" else "error"
        if not isinstance(condition, str) or not condition.strip().startswith("when "):
            return f"its `{level}` level is not `when <threshold>`"
        failing = parse_threshold(condition.strip()[5:].strip())
        threshold = negate(failing) if failing is not None else None
        if threshold is None:
            return f"its `{level}` condition `{condition}` has no contract threshold that holds exactly when it does not"
    return Check(dataset, line, config, metric, columns, threshold, severity, combined_filter)


def parse_threshold(text: str) -> Threshold | None:
    """A SodaCL threshold (`< 5`, `>= 1 %`, `between 1 and 10`, `not between (0 and 5]`), or None."""
    text = " ".join(text.split())
    compare = _COMPARE.match(text)
    if compare:
        op = "!=" if compare["op"] == "<>" else compare["op"]
        return Threshold(op, _number(compare["value"]), percent=bool(compare["percent"]))
    between = _BETWEEN.match(text)
    if between:
        return Threshold("not between" if between["not"] else "between", low=_number(between["low"]), high=_number(between["high"]),
                         low_inclusive=between["left"] != "(", high_inclusive=between["right"] != ")",
                         percent=bool(between["percent"]))
    return None


def _number(text: str) -> int | float:
    value = float(text)
    return int(value) if value.is_integer() and not re.search(r"[.eE]", text) else value


_NEGATED = {"=": "!=", "!=": "=", "<": ">=", ">=": "<", ">": "<=", "<=": ">"}


def negate(threshold: Threshold) -> Threshold | None:
    """The threshold that holds exactly when `threshold` does not (a `fail: when` condition -> what must hold)."""
    if threshold.op in _NEGATED:
        return Threshold(_NEGATED[threshold.op], threshold.value, percent=threshold.percent)
    flipped = "between" if threshold.op == "not between" else "not between"
    return Threshold(flipped, low=threshold.low, high=threshold.high, low_inclusive=threshold.low_inclusive,
                     high_inclusive=threshold.high_inclusive, percent=threshold.percent)


# ODCS threshold keys of one comparison
_ODCS_KEYS = {"=": "mustBe", "!=": "mustNotBe", ">": "mustBeGreaterThan", ">=": "mustBeGreaterOrEqualTo",
              "<": "mustBeLessThan", "<=": "mustBeLessOrEqualTo"}


def odcs_threshold(threshold: Threshold, whole: bool = False) -> dict | str:
    """The ODCS threshold keys of a SodaCL threshold, or why there is none. ODCS `mustBeBetween` excludes its
    bounds: an inclusive between of a count (`whole`) is `mustBeBetween` widened by one, any other the pair of its
    two comparisons; only a not-between of two excluded bounds (`not between (1 and 5)`: at most 1 or at least 5)
    is `mustNotBeBetween`."""
    if threshold.op in _ODCS_KEYS:
        return {_ODCS_KEYS[threshold.op]: threshold.value}
    if whole and all(isinstance(b, int) for b in (threshold.low, threshold.high)):
        # a count is a whole number: an included bound is ODCS's excluded one a step further out, one standard key
        bounds = [threshold.low - (1 if threshold.low_inclusive else 0), threshold.high + (1 if threshold.high_inclusive else 0)]
        return {"mustBeBetween" if threshold.op == "between" else "mustNotBeBetween": bounds}
    if threshold.op == "between":
        # both comparisons: dc-bridge reads the pair as one range; the standard's schema wants one key (DCB100)
        return {_ODCS_KEYS[">=" if threshold.low_inclusive else ">"]: threshold.low,
                _ODCS_KEYS["<=" if threshold.high_inclusive else "<"]: threshold.high}
    if not threshold.low_inclusive and not threshold.high_inclusive:
        return {"mustNotBeBetween": [threshold.low, threshold.high]}
    return "a not-between with an included bound has no ODCS threshold (ODCS `mustNotBeBetween` excludes both bounds)"


def _zero(threshold: Threshold | None) -> bool:
    """Whether the threshold says `none at all` (= 0, < 1 of a count, <= 0)."""
    return threshold is not None and ((threshold.op in ("=", "<=") and threshold.value == 0) or (threshold.op == "<" and threshold.value == 1 and not threshold.percent))


# ---------------------------------------------------------------------------------------------
# the mapping table, one row per SodaCL metric


def _one_column(check: Check) -> str | None:
    return check.columns[0] if len(check.columns) == 1 else None


def _unit(check: Check) -> dict | str:
    """The rule's unit: a `_percent` metric counts percent of all rows; a `%` on a `_count` metric is no SodaCL."""
    percent = check.metric.endswith("_percent")
    if check.threshold is not None and check.threshold.percent and not percent:
        return f"a `%` threshold on `{check.metric}`, a count"
    return {"unit": "percent"} if percent else {}


def _library(check: Check, metric: str, arguments: dict | None = None, field: str | None = None) -> Form | str:
    """An ODCS library rule with the check's threshold."""
    if check.threshold is None:
        return f"`{check.metric}` without a threshold"
    keys, unit = odcs_threshold(check.threshold, whole=not check.metric.endswith("_percent")), _unit(check)
    if isinstance(keys, str) or isinstance(unit, str):
        return keys if isinstance(keys, str) else unit
    rule = {"type": "library", "metric": metric, **({"arguments": arguments} if arguments else {}), **unit, **keys}
    return Form(field=field, rule=rule)


def _sql(check: Check, query: str, field: str | None = None, reason: str = "") -> Form | str:
    """An ODCS SQL rule: `query` gives one number, judged by the check's threshold."""
    if check.threshold is None:
        return f"`{check.metric}` without a threshold"
    keys = odcs_threshold(check.threshold, whole=check.metric.endswith("_count") or check.metric == "failed rows")
    if isinstance(keys, str):
        return keys
    if check.threshold.percent and not check.metric.endswith("_percent"):
        return f"a `%` threshold on `{check.metric}`"
    return Form(field=field, rule={"type": "sql", "query": query, **keys}, reason=reason)


def _count_sql(check: Check, condition: str) -> str:
    """The query of the rows matching `condition`, or their percent of all rows for a `_percent` metric (as Soda
    divides: by every row, nulls included; 0 of no rows)."""
    if check.metric.endswith("_percent"):
        return f"SELECT COALESCE(CAST(100 AS DOUBLE) * COUNT_IF({condition}) / NULLIF(COUNT(*), 0), 0) FROM {{model}}"
    return f"SELECT COUNT_IF({condition}) FROM {{model}}"


def _missing(check: Check) -> Form | str:
    column = _one_column(check)
    if column is None:
        return f"`{check.metric}` takes one column"
    keys = set(check.config) & (_MISSING_KEYS | _VALID_KEYS)
    if not keys:
        if check.metric == "missing_count" and _zero(check.threshold) and check.severity == "error" and not _metadata(check.config):
            return Form(field=column, properties={"required": True})
        return _library(check, "nullValues", field=column)
    if keys == {"missing values"} and isinstance(check.config["missing values"], list):
        values = check.config["missing values"]
        if any(isinstance(v, (dict, list)) for v in values):
            return "`missing values` lists a value that is not a single value"
        return _library(check, "missingValues", {"missingValues": values}, field=column)
    return (f"{', '.join(sorted(keys))}: Soda's own notion of missing (a named format, a regex, or valid values "
            f"next to missing ones) has no library metric")


def _invalid(check: Check) -> Form | str:
    column = _one_column(check)
    if column is None:
        return f"`{check.metric}` takes one column"
    keys = set(check.config) & (_MISSING_KEYS | _VALID_KEYS)
    if not keys:
        return f"`{check.metric}` without a `valid ...` key: Soda counts nothing as invalid"
    if len(keys) == 1 and keys <= {"valid values", "valid regex"}:
        key = next(iter(keys))
        value = check.config[key]
        if key == "valid values" and isinstance(value, list) and not any(isinstance(v, (dict, list)) for v in value):
            return _library(check, "invalidValues", {"validValues": value}, field=column)
        if key == "valid regex" and isinstance(value, str):
            return _library(check, "invalidValues", {"pattern": value}, field=column,)
        return f"`{key}` of an unexpected shape"
    bounds, problem = _bounds_condition(check, column, keys)
    if bounds is None:
        return problem
    return _sql(check, _count_sql(check, bounds), field=column,
                reason="Soda's `valid min`/`valid max`/lengths as an SQL rule: the imported field has no logical type "
                       "to carry minimum/maximum/minLength/maxLength on")


# valid-range key -> the condition a non-missing value breaks it with (Soda: a value is invalid when below min,
# above max, or of another length; missing values are never invalid)
_BOUND_CONDITIONS = {
    "valid min": "{c} < {v}", "valid max": "{c} > {v}",
    "valid length": "LENGTH({c}) <> {v}", "valid min length": "LENGTH({c}) < {v}", "valid max length": "LENGTH({c}) > {v}",
}


def _bounds_condition(check: Check, column: str, keys: set[str]) -> tuple[str | None, str]:
    """(`col IS NOT NULL AND (<any bound broken>)`, ""), or (None, why the keys have no SQL form here)."""
    other = sorted(keys - set(_BOUND_CONDITIONS))
    if other:
        return None, (f"{', '.join(other)}: Soda's named formats, invalid values and mixes of missing and valid keys are its "
                f"own definitions, with no library metric")
    quoted, parts = quote_identifier(column), []
    for key in sorted(keys):
        value = check.config[key]
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return None, f"`{key}: {value!r}` is not a number"
        parts.append(_BOUND_CONDITIONS[key].format(c=quoted, v=repr(value)))
    return f"{quoted} IS NOT NULL AND ({' OR '.join(parts)})", ""


def _duplicates(check: Check) -> Form | str:
    if not check.columns:
        return f"`{check.metric}` names no column"
    if not _zero(check.threshold):
        return (f"Soda's `{check.metric}` counts distinct duplicated values (one per value that repeats), a contract's "
                f"duplicates count rows: only `= 0` means the same")
    reason = "counts differ, outcomes agree: Soda counts distinct duplicated values, the contract the rows that hold them"
    if len(check.columns) > 1:
        return Form(rule={"type": "library", "metric": "duplicateValues", "arguments": {"properties": list(check.columns)},
                          "mustBe": 0}, reason=reason)
    if check.severity == "error" and not _metadata(check.config):
        return Form(field=check.columns[0], properties={"unique": True}, reason=reason)
    return Form(field=check.columns[0], rule={"type": "library", "metric": "duplicateValues", "mustBe": 0}, reason=reason)


def _row_count(check: Check) -> Form | str:
    if check.columns:
        return "`row_count(column)` (Soda's non-null count of a column) has no library metric"
    return _library(check, "rowCount")


# aggregate metric -> its Spark SQL over `{c}` (as Soda's Spark data source writes them: data_source.py)
_AGGREGATES = {
    "min": "MIN({c})", "max": "MAX({c})", "avg": "AVG({c})", "sum": "SUM({c})",
    "stddev": "STDDEV({c})", "stddev_pop": "STDDEV_POP({c})", "stddev_samp": "STDDEV_SAMP({c})",
    "variance": "VARIANCE({c})", "var_pop": "VAR_POP({c})", "var_samp": "VAR_SAMP({c})",
    "min_length": "MIN(LENGTH({c}))", "max_length": "MAX(LENGTH({c}))", "avg_length": "AVG(LENGTH({c}))",
}


def _aggregate(check: Check) -> Form | str:
    column = _one_column(check)
    if column is None:
        return f"`{check.metric}` takes one column"
    return _sql(check, f"SELECT {_AGGREGATES[check.metric].format(c=quote_identifier(column))} FROM {{model}}", field=column)


def _failed_rows(check: Check) -> Form | str:
    condition, query = check.config.get("fail condition"), check.config.get("fail query")
    if isinstance(condition, str) == isinstance(query, str):
        return "`failed rows` needs exactly one of `fail condition` and `fail query`"
    counted = (f"SELECT COUNT(*) FROM {{model}} WHERE {condition.strip()}" if isinstance(condition, str)
               else f"SELECT COUNT(*) FROM ({query.strip().rstrip(';')}) AS failed_rows")
    # Soda fails a failed-rows check on any row, unless its `fail`/`warn` level says otherwise
    threshold = check.threshold or Threshold("=", 0)
    return _sql(Check(check.dataset, check.line, check.config, check.metric, (), threshold, check.severity), counted)


def _user_metric(check: Check) -> Form | str:
    query, expression = check.config.get(f"{check.metric} query"), check.config.get(f"{check.metric} expression")
    if isinstance(query, str) and expression is None:
        return _sql(check, query.strip().rstrip(";"))
    if isinstance(expression, str) and query is None:
        return _sql(check, f"SELECT {expression.strip()} FROM {{model}}")
    return f"`{check.metric}` needs exactly one of `{check.metric} query` and `{check.metric} expression`"


def _soda_only(reason: str) -> Callable[[Check], str]:
    return lambda check: reason


METRICS: dict[str, Row] = {
    "missing_count": Row(_MISSING_KEYS | _VALID_KEYS, _missing, "not_null"),
    "missing_percent": Row(_MISSING_KEYS | _VALID_KEYS, _missing, "not_null"),
    "invalid_count": Row(_MISSING_KEYS | _VALID_KEYS, _invalid, "in_set, regex, value_between, length_between"),
    "invalid_percent": Row(_MISSING_KEYS | _VALID_KEYS, _invalid, "in_set, regex, value_between, length_between"),
    "duplicate_count": Row(frozenset(), _duplicates, "unique, unique_combination"),
    "duplicate_percent": Row(frozenset(), _duplicates, "unique, unique_combination"),
    "row_count": Row(frozenset(), _row_count, "row_count"),
    **{name: Row(frozenset(), _aggregate, "sql_metric") for name in _AGGREGATES},
    "failed rows": Row(frozenset({"fail condition", "fail query"}), _failed_rows, "sql_metric"),
    "freshness": Row(frozenset(), _soda_only("a contract's freshness is a service level of the model (slaProperties), "
                                             "not a quality rule; Soda's check, with its own clock, stays Soda's"), "freshness"),
    "schema": Row(frozenset(), _soda_only("Soda's schema check judges several columns, types, indexes and forbidden "
                                          "columns as one check with warn and fail levels; a contract checks each "
                                          "field on its own"), "column_exists, column_type"),
    "reference": Row(frozenset(), _soda_only("a reference check is carried as Soda's check, its other dataset bound to "
                                             "that model's view by the plan (docs/importing-soda.md)"), "foreign_key"),
    "percentile": Row(frozenset(), _soda_only("Soda's `percentile` is an approximate percentile whose accuracy is its own"), None),
    "valid_count": Row(_MISSING_KEYS | _VALID_KEYS, _soda_only("`valid_count` counts the rows that pass, which no library "
                                                               "metric counts"), None),
    "distinct": Row(frozenset(), _soda_only("`distinct` has no library metric"), None),
}
# a user-defined metric (`<name> query:` or `<name> expression:`)
_USER_DEFINED = Row(frozenset(), _user_metric, "sql_metric")
