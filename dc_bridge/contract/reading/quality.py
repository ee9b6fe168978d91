"""Quality rules and thresholds, read the same way from DCS and ODCS.

The two standards share the quality object almost entirely; where they differ (between-bounds,
operator spellings, where a custom check keeps its body) the difference is a table entry here.
"""

from __future__ import annotations

import difflib
from typing import Any

import yaml

from dc_bridge.contract.limits import NUMBER_RANGE, number_problem, shown
from dc_bridge.contract.model import QualityRule, Threshold
from dc_bridge.contract.reading.reader import Reader, describe

# Both spellings of every operator are accepted in both formats (docs/contracts.md).
THRESHOLD_KEYS: dict[str, str] = {
    "mustBe": "=",
    "mustNotBe": "!=",
    "mustBeGreaterThan": ">",
    "mustBeGreaterThanOrEqualTo": ">=",
    "mustBeGreaterOrEqualTo": ">=",
    "mustBeLessThan": "<",
    "mustBeLessThanOrEqualTo": "<=",
    "mustBeLessOrEqualTo": "<=",
    "mustBeBetween": "between",
    "mustNotBeBetween": "not_between",
}

# ODCS library metrics, and the older `rule:` names mapped onto them.
LIBRARY_METRICS = ("nullValues", "missingValues", "invalidValues", "duplicateValues", "rowCount")
OLD_RULE_NAMES = {
    "nullCheck": "nullValues",
    "duplicateCount": "duplicateValues",
    "validValues": "invalidValues",
    "rowCount": "rowCount",
    "uniqueCheck": "duplicateValues",
}
# Metrics that count bad rows default to "none allowed" when the rule gives no threshold.
DEFAULT_ZERO_METRICS = {"nullValues", "missingValues", "invalidValues", "duplicateValues"}

ENGINE_NAMES = {
    "great-expectations": "gx",
    "greatexpectations": "gx",
    "great_expectations": "gx",
    "gx": "gx",
    "soda": "soda",
    "sodacl": "soda",
}

SEVERITIES = ("error", "warning", "info")
ODCS_DIMENSIONS = ("accuracy", "completeness", "conformity", "consistency", "coverage", "timeliness", "uniqueness")


def read_threshold(reader: Reader, node: dict, path: tuple, *, between_inclusive: bool) -> Threshold | None:
    """The threshold of a quality rule, or None when it has none. Impossible ranges are reported."""
    given = {key: node[key] for key in THRESHOLD_KEYS if node.get(key) is not None}
    if not given:
        return None
    bounds: dict[str, tuple[str, Any]] = {}
    for key, raw in given.items():
        op = THRESHOLD_KEYS[key]
        if op in ("between", "not_between"):
            pair = raw if isinstance(raw, list) else None
            values = [reader.get({"v": v}, "v", path + (key,), "number") for v in pair] if pair is not None and len(pair) == 2 else None
            if values is None or None in values:
                reader.report("DCB101", path + (key,), f"`{key}` must be a list of two numbers, smallest first",
                              expected="[low, high]", found=describe(raw))
                return None
            if not _runnable(reader, path + (key,), key, *values):
                return None
            low, high = values
            if low > high or (low == high and not between_inclusive):
                reader.report("DCB160", path + (key,), f"`{key}: [{low}, {high}]` is an empty range: no value can be between them",
                              expected="low < high", found=f"[{low}, {high}]")
            return Threshold(operator=op, low=low, high=high, low_inclusive=between_inclusive, high_inclusive=between_inclusive) \
                if len(given) == 1 else _ambiguous(reader, path, given)
        value = reader.get(node, key, path, "number")
        if value is None or not _runnable(reader, path + (key,), key, value):
            return None
        bounds[key] = (op, value)
    if len(bounds) == 1:
        op, value = next(iter(bounds.values()))
        return Threshold(operator=op, value=value)
    lower = [(op, v) for op, v in bounds.values() if op in (">", ">=")]
    upper = [(op, v) for op, v in bounds.values() if op in ("<", "<=")]
    if len(bounds) == 2 and len(lower) == 1 and len(upper) == 1:
        (low_op, low), (high_op, high) = lower[0], upper[0]
        if low > high or (low == high and (low_op, high_op) != (">=", "<=")):
            reader.report("DCB160", path, f"no value is {low_op} {low} and {high_op} {high} at the same time",
                          expected="a lower bound below the upper bound", found=f"{low_op} {low} and {high_op} {high}")
        return Threshold(operator="between", low=low, high=high, low_inclusive=low_op == ">=", high_inclusive=high_op == "<=")
    return _ambiguous(reader, path, given)


def _runnable(reader: Reader, path: tuple, key: str, *values: Any) -> bool:
    """Whether every number of a threshold can run in every engine (contract/limits.py); DCB151 if not."""
    for value in values:
        problem = number_problem(value)
        if problem is not None:
            reader.report("DCB151", path, f"`{key}: {shown(value)}` {problem}: no engine can compare a metric with it",
                          expected=NUMBER_RANGE, found=shown(value))
            return False
    return True


def _has_threshold_key(node: dict) -> bool:
    """Whether the rule writes any threshold; a wrong one is reported by read_threshold, not as missing."""
    return any(node.get(key) is not None for key in THRESHOLD_KEYS)


def _ambiguous(reader: Reader, path: tuple, given: dict) -> None:
    reader.report("DCB161", path, f"the rule gives {len(given)} thresholds that do not combine into one range: {', '.join(given)}",
                  expected="one threshold, or one lower and one upper bound", found=", ".join(given))
    return None


# the arguments each library metric reads; any other argument would be ignored
METRIC_ARGUMENTS: dict[str, tuple[str, ...]] = {
    "nullValues": (),
    "missingValues": ("missingValues",),
    "invalidValues": ("validValues", "pattern"),
    "duplicateValues": ("properties",),
    "rowCount": (),
}
_ALL_ARGUMENTS = sorted({name for names in METRIC_ARGUMENTS.values() for name in names})


def read_quality_rule(reader: Reader, node: dict, path: tuple, *, standard: str, imported_from: str | None = None,
                      logical_type: str | None = None) -> QualityRule | None:
    """One quality rule of either standard. `standard` is "dcs" or "odcs"; `logical_type` is the canonical
    type of the field the rule is on (None on a model, or unknown), against which listed values are read."""
    rule_type = reader.get(node, "type", path, "string")
    metric_name = reader.get(node, "metric", path, "string") or reader.get(node, "rule", path, "string")
    if rule_type is None:
        # ODCS defaults to `library`; infer the obvious cases so a forgotten `type` still runs
        rule_type = "library" if metric_name else "sql" if "query" in node else "custom" if "engine" in node else "library" if standard == "odcs" else "text"
    rule_type = rule_type.lower()
    if rule_type in ("great-expectations", "great_expectations", "soda"):
        # DCS 0.9 wrote the engine as the type
        node = {**node, "engine": rule_type}
        rule_type = "custom"
    if rule_type not in ("text", "sql", "library", "custom"):
        reader.report("DCB101", path + ("type",), f"unknown quality type `{rule_type}`",
                      expected="text, sql, library or custom", found=repr(rule_type))
        return None

    severity = (reader.get(node, "severity", path, "string") or "error").lower()
    if severity not in SEVERITIES:
        # the official schemas leave severity open (error, warning and info are their examples): not a conformance error
        reader.report("DCB100", path + ("severity",), f"severity `{severity}` is not error, warning or info; treated as error",
                      expected="error, warning or info", found=repr(severity), severity="warning")
        severity = "error"
    unit = (reader.get(node, "unit", path, "string") or "rows").lower()
    if unit not in ("rows", "percent"):
        reader.report("DCB101", path + ("unit",), f"unit `{unit}` is not rows or percent", expected="rows or percent", found=repr(unit))
        unit = "rows"
    dimension = reader.get(node, "dimension", path, "string")
    if dimension is not None and dimension.lower() not in ODCS_DIMENSIONS:
        reader.report("DCB112", path + ("dimension",), f"dimension `{dimension}` is not an ODCS dimension",
                      expected=", ".join(ODCS_DIMENSIONS), found=repr(dimension))

    fields: dict[str, Any] = dict(
        type=rule_type,
        source=reader.source(path),
        id=reader.get(node, "id", path, "scalar"),
        name=reader.get(node, "name", path, "string"),
        description=reader.get(node, "description", path, "string"),
        dimension=dimension,
        severity=severity,
        unit=unit,
        imported_from=imported_from,
    )
    if fields["id"] is not None:
        fields["id"] = str(fields["id"])
    # ODCS calls mustBeBetween "the equivalent of mustBeGreaterThan and mustBeLessThan": exclusive
    threshold = read_threshold(reader, node, path, between_inclusive=standard == "dcs")
    if threshold is not None and threshold.operator in ("between", "not_between") and standard == "odcs" and \
            any(k in node for k in ("mustBeBetween", "mustNotBeBetween")):
        key = "mustBeBetween" if "mustBeBetween" in node else "mustNotBeBetween"
        reader.report("DCB162", path, f"ODCS {key} excludes its bounds; dc-bridge checks it that way",
                      expected="bounds excluded", found=key)

    if rule_type == "library":
        metric = OLD_RULE_NAMES.get(metric_name, metric_name) if metric_name not in LIBRARY_METRICS else metric_name
        if metric is None:
            reader.report("DCB102", path, "a library quality rule needs `metric`", expected="`metric: nullValues` (or another library metric)", found="no metric")
            return None
        if metric not in LIBRARY_METRICS:
            # kept, as a `not_executable` check (plan/build.py): ODCS 3.0 left `rule:` names open (`countCheck`,
            # `between`), so those are a warning; `metric:` names the standard's closed list, so that is an error
            # of this one rule (a run makes it `error`)
            key = "metric" if "metric" in node else "rule"
            reader.report("DCB163" if key == "metric" else "DCB106", path + (key,),
                          f"unknown library metric `{metric_name}`" + ("" if key == "metric" else "; the rule is not run"),
                          expected=", ".join(LIBRARY_METRICS), found=repr(metric_name))
            fields.update(metric=metric, arguments=dict(reader.mapping(node, "arguments", path)))
            return QualityRule(threshold=threshold, **fields)
        arguments = dict(reader.mapping(node, "arguments", path))
        # ODCS 3.0 `rule: validValues` kept the values beside the rule
        if "validValues" in node and "validValues" not in arguments:
            arguments["validValues"] = node["validValues"]
        arguments = _read_arguments(reader, node, path, metric, arguments, logical_type)
        if arguments is None:
            return None
        if threshold is None and metric in DEFAULT_ZERO_METRICS:
            threshold = Threshold(operator="=", value=0)
        if threshold is None and not _has_threshold_key(node):
            reader.report("DCB161", path, f"metric `{metric}` needs a threshold such as mustBeGreaterThan",
                          expected="one threshold", found="none")
        fields.update(metric=metric, arguments=arguments)
    elif rule_type == "sql":
        query = reader.require(node, "query", path, "string", "an sql quality rule")
        if query is None:
            return None
        if threshold is None and not _has_threshold_key(node):
            reader.report("DCB161", path, "an sql quality rule needs a threshold such as mustBe or mustBeLessThan",
                          expected="one threshold", found="none")
        fields.update(query=query)
    elif rule_type == "custom":
        engine = reader.get(node, "engine", path, "string")
        body_key = "implementation" if "implementation" in node else "specification"
        implementation = node.get(body_key)
        if engine is None:
            reader.report("DCB102", path, "a custom quality rule needs `engine`", expected="engine: great-expectations or soda", found="no engine")
            return None
        if implementation is None:
            reader.report("DCB183", path, "the custom quality rule has no implementation",
                          expected="`implementation` (ODCS) or `specification` (DCS)", found="nothing")
            return None
        if isinstance(implementation, str) and ENGINE_NAMES.get(engine.lower()) == "gx":
            # ODCS allows the implementation as YAML text; GX needs it as a mapping
            try:
                parsed = yaml.safe_load(implementation)
                implementation = parsed if isinstance(parsed, dict) else implementation
            except yaml.YAMLError:
                pass
        fields.update(engine=ENGINE_NAMES.get(engine.lower(), engine), implementation=_plain(implementation))
    return QualityRule(threshold=threshold, **fields)


def _read_arguments(reader: Reader, node: dict, path: tuple, metric: str, arguments: dict, logical_type: str | None) -> dict | None:
    """A library rule's arguments, read strictly: lists are lists of plain values (never a text split into
    characters), a pattern is text, an argument the metric does not read is an error (it would be ignored).
    None when any of it is wrong, so the rule is refused rather than run as something else."""
    given = node.get("arguments") if isinstance(node.get("arguments"), dict) else {}
    where = path + ("arguments",) if given else path
    ok = True
    reads = METRIC_ARGUMENTS[metric]
    for key in arguments:
        if key in reads:
            continue
        known = key in _ALL_ARGUMENTS
        close = known and [key] or [a for a in _ALL_ARGUMENTS if a.lower() == str(key).lower()] or \
            difflib.get_close_matches(str(key), _ALL_ARGUMENTS, n=1, cutoff=0.75)
        if not close:
            continue  # the standard leaves arguments open; one dc-bridge does not know is left to other tools
        if known:
            message = f"{metric} does not read `{key}`; it would be ignored"
            hint = f"{metric} reads {', '.join(f'`{a}`' for a in reads) or 'no arguments'}; move `{key}` to a rule whose metric reads it."
        else:
            message = f"`{key}` is not an argument dc-bridge knows; did you mean `{close[0]}`?"
            hint = f"Write `{close[0]}`; as written, it would be ignored."
        reader.report("DCB104", where + (key,), message, expected=", ".join(reads) or "no arguments", found=repr(key), hint=hint)
        ok = False
    if metric == "invalidValues" and "validValues" in arguments and "pattern" in arguments:
        reader.report("DCB101", where, "invalidValues gives both `validValues` and `pattern`; one rule checks one of them",
                      expected="validValues or pattern", found="both",
                      hint="Split it into two invalidValues rules, one with validValues and one with pattern; "
                           "dc-bridge will not check only one of them.")
        ok = False
    for key, allow_empty in (("validValues", False), ("missingValues", True)):
        if key in arguments:
            holder, at = (given, path + ("arguments",)) if key in given else (node, path)  # ODCS 3.0: beside the rule
            values = reader.value_list(holder, key, at, logical_type=logical_type, allow_empty=allow_empty)
            if values is None:
                ok = False
            else:
                arguments[key] = list(values)
    if "pattern" in arguments and not isinstance(arguments["pattern"], str):
        reader.report("DCB101", where + ("pattern",), "`pattern` must be a regular expression in a string", expected="a string",
                      found=describe(arguments["pattern"]))
        ok = False
    if "properties" in arguments:
        names = arguments["properties"]
        if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
            reader.report("DCB101", where + ("properties",), "`properties` must be a non-empty list of property names",
                          expected="[name, ...]", found=describe(names))
            ok = False
    return arguments if ok else None


def _plain(value: Any) -> Any:
    """Strip the line-tracking containers so implementations serialise as plain JSON."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value
