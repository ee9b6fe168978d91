"""`run --output oors`: the run's results in Bitol's Open Observability Results Standard (OORS), the
results format of the ODCS authors (docs/reports.md, "OORS").

Follows the newest definition reachable: the Bitol TSC's RFC 0018 (bitol-io/tsc, `rfcs/0018-oors.md`,
changed 2026-06-29: `apiVersion` v0.1.0, result status `pass|fail|warn|error|skip`, severity independent
of status). The RFC publishes no JSON schema; tests/schemas/oors holds one written from its tables. One
field goes beyond the RFC's tables: `relatesTo`, which the RFC's own example shows as the link from a
result to the contract element it checks; without it a result could not be traced to its rule.

One message per contract: each check and each dataQuality SLO is a result whose `relatesTo` names the
contract element it checks as a path of names (`schema/orders/properties/amount/quality/amount_positive`),
resolved from the element's place in the contract file. Each monitor is a `metric` result of its model's
data, its band the threshold (`mustBeBetween`), its status the check outcome it weighs as (report/monitors.py).
"""

from __future__ import annotations

import json
import re
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import yaml

from dc_bridge.contract.model import Threshold
from dc_bridge.monitors import MonitorVerdict
from dc_bridge.report.escaping import json_text
from dc_bridge.report.monitors import weighs_as
from dc_bridge.verdict import CheckVerdict, ObjectiveVerdict, Verdict

OORS_VERSION = "v0.1.0"
# dc-bridge outcome -> RFC 0018 status: `error` is no verdict (never a failure); `skip` a check not run, here
# because its precondition is unmet (a form dc-bridge cannot execute, a model not evaluated)
STATUS = {"passed": "pass", "warning": "warn", "failed": "fail", "error": "error", "not_executable": "skip", "skipped": "skip"}
# a monitor's level -> its result's severity, in the words the contract's checks use: a strict anomaly fails the verdict
MONITOR_SEVERITY = {"strict": "error", "warn": "warning", "off": "info"}
# a threshold's operator -> the ODCS key OORS thresholds are written with (`between`'s bounds: below)
_OPERATORS = {"=": "mustBe", "!=": "mustNotBe", ">": "mustBeGreaterThan", ">=": "mustBeGreaterOrEqualTo",
              "<": "mustBeLessThan", "<=": "mustBeLessOrEqualTo"}
# one step of a check's source path (`schema[2].properties[4]`, `models.orders.fields.id`): a key, or a list index
PATH_STEP = re.compile(r"([^.\[\]]+)|\[(\d+)\]")
# the contract format (a key at its top) -> the standard OORS names in `contract.standard`
_STANDARDS = {"apiVersion": "ODCS", "dataContractSpecification": "DCS"}


def as_oors(verdicts: Verdict | list[Verdict]) -> str:
    """One contract's message as an object; several contracts' as a list of messages, in the order run."""
    data = [message(v) for v in verdicts] if isinstance(verdicts, list) else message(verdicts)
    return json_text(json.dumps(data, indent=2, ensure_ascii=False))


def message(verdict: Verdict) -> dict[str, Any]:
    """The verdict as one OORS message."""
    document = _contract_document(verdict.contract_file)
    started = datetime.fromisoformat(verdict.started_at) if verdict.started_at else None
    observed_at = started + timedelta(seconds=verdict.seconds or 0) if started else datetime.now(timezone.utc)
    results = [_check_result(c, verdict, document) for c in verdict.checks()]
    results += [_objective_result(o, document) for o in verdict.objectives]
    results += [_monitor_result(m, verdict) for m in verdict.monitors]
    if verdict.lifecycle is not None:  # the registry's state of the version: a note, or past its sunset its level's outcome
        results.append({"id": "lifecycle", "type": "check", "name": f"lifecycle {verdict.lifecycle.state}",
                        "status": STATUS[verdict.lifecycle.weighs_as], "severity": "info" if verdict.lifecycle.weighs_as == "passed"
                        else MONITOR_SEVERITY[verdict.lifecycle.level], "message": verdict.lifecycle.message})
    if verdict.error:  # a contract not checked: one result saying why
        results.append({"id": "contract", "type": "check", "name": "contract checked", "status": "error", "message": verdict.error})
    out: dict[str, Any] = {
        "apiVersion": OORS_VERSION, "kind": "ObservabilityResults", "id": str(uuid.uuid4()),
        "observedAt": _time(observed_at),
        "source": {"process": "dc-bridge run", "vendor": "dc-bridge"},
        "results": results,
    }
    contract = {key: value for key, value in (("contractID", verdict.contract_id), ("standard", _standard(document)),
                                              ("version", verdict.contract_version)) if value}
    if "contractID" in contract:  # a contract file that could not be read names none
        out["contract"] = contract
    return out


def _time(at: datetime) -> str:
    return at.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")


def _contract_document(file: str) -> Any:
    """The contract file as YAML data, to name the elements `relatesTo` points at; None when unreadable."""
    try:
        return yaml.safe_load(Path(file).read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError, ValueError):
        return None


def _standard(document: Any) -> str | None:
    return next((name for key, name in _STANDARDS.items() if isinstance(document, dict) and key in document), None)


def relates_to(path: str, document: Any) -> str:
    """A source path (`schema[2].properties[4].quality[0]`) as OORS's path of names
    (`schema/products/properties/unit_price/quality/price_positive`): a list element by its `id`, else
    its `name`, else its index; a mapping's key as it is. Each step is escaped as a JSON Pointer's
    (RFC 6901: `~` as `~0`, `/` as `~1`), so a name holding `/` stays one step."""
    steps, node = [], document
    tokens = PATH_STEP.findall(path)
    i = 0
    while i < len(tokens):
        key, index = tokens[i]
        if key:
            # a key that holds dots (a DCS field `e.mail`) was split with the path: the longest run of keys the node has
            run = next((j for j in range(len(tokens), i, -1) if all(k for k, _ in tokens[i:j])
                        and isinstance(node, dict) and ".".join(k for k, _ in tokens[i:j]) in node), i + 1)
            key = ".".join(k for k, _ in tokens[i:run])
            steps.append(key)
            node = node.get(key) if isinstance(node, dict) else None
            i = run
            continue
        item = node[int(index)] if isinstance(node, list) and int(index) < len(node) else None
        named = item.get("id") or item.get("name") if isinstance(item, dict) else None
        steps.append(str(named) if isinstance(named, (str, int)) else index)
        node = item
        i += 1
    return "/".join(step.replace("~", "~0").replace("/", "~1") for step in steps)


def _threshold(threshold: Threshold | None) -> dict[str, Any] | None:
    if threshold is None:
        return None
    if threshold.operator == "between":
        low = "mustBeGreaterOrEqualTo" if threshold.low_inclusive else "mustBeGreaterThan"
        high = "mustBeLessOrEqualTo" if threshold.high_inclusive else "mustBeLessThan"
        return {low: threshold.low, high: threshold.high}
    if threshold.operator == "not_between":
        return {"mustNotBeBetween": [threshold.low, threshold.high]}
    return {_OPERATORS[threshold.operator]: threshold.value}


def _target(model: str, verdict: Verdict) -> dict[str, Any] | None:
    """The data of the model a check or monitor observed; None for the contract's own checks (its SLAs), of no one dataset."""
    source = verdict.data_sources.get(model)
    if source is None:
        return None
    table = source == "dataframe" or source.startswith("table:")
    target: dict[str, Any] = {"resourceType": "table" if table else "dataset",
                              "resourceIdentifier": source[len("table:"):] if source.startswith("table:")
                              else model if source == "dataframe" else source}
    return target


def _sliced(check: CheckVerdict, verdict: Verdict) -> str | None:
    """The `--where` slice a check judged, said in its message: the RFC's target names a resource, not a filter."""
    return verdict.where if verdict.where and check.model not in verdict.where_not_applied else None


def _check_result(check: CheckVerdict, verdict: Verdict, document: Any) -> dict[str, Any]:
    result: dict[str, Any] = {"id": check.check_id, "type": "check", "name": check.description or check.check_id,
                              "status": STATUS[check.outcome], "relatesTo": relates_to(check.source.get("path") or "", document),
                              "severity": check.severity}
    target = _target(check.model, verdict)
    if target is not None:
        result["target"] = target
    if check.observed is not None:
        measure: dict[str, Any] = {"metric": check.kind, "value": check.observed, **({"unit": check.unit} if check.unit else {})}
        threshold = _threshold(check.threshold)
        if threshold:
            measure["threshold"] = threshold
        result["measure"] = measure
    message = " ".join(part for part in (check.reason, _sliced(check, verdict) and f"(judged on the rows where {verdict.where})") if part)
    if message:
        result["message"] = message
    return result


def _objective_result(objective: ObjectiveVerdict, document: Any) -> dict[str, Any]:
    result: dict[str, Any] = {"id": objective.objective_id, "type": "metric", "name": objective.description or objective.objective_id,
                              "status": STATUS[objective.outcome], "relatesTo": relates_to(objective.source.get("path") or "", document)}
    if objective.value is not None:
        result["measure"] = {"metric": "passingEvaluations", "value": objective.value, "unit": "percent",
                             **({"threshold": {"mustBeGreaterOrEqualTo": objective.target}} if objective.target is not None else {})}
    if objective.reason:
        result["message"] = objective.reason
    return result


def _monitor_result(monitor: MonitorVerdict, verdict: Verdict) -> dict[str, Any]:
    result: dict[str, Any] = {"id": monitor.monitor_id, "type": "metric", "name": f"monitor {monitor.monitor_id}",
                              "status": STATUS[weighs_as(monitor)], "severity": MONITOR_SEVERITY[monitor.severity],
                              "message": monitor.sentence}
    target = _target(monitor.model, verdict)
    if target is not None:
        result["target"] = target
    if monitor.observed is not None:
        bounds = {key: bound for key, bound in (("mustBeGreaterOrEqualTo", monitor.lower), ("mustBeLessOrEqualTo", monitor.upper))
                  if bound is not None}
        threshold = {"mustBeBetween": [monitor.lower, monitor.upper]} if len(bounds) == 2 else bounds
        result["measure"] = {"metric": monitor.metric, "value": monitor.observed, "unit": monitor.unit,
                             **({"threshold": threshold} if threshold else {})}
    return result
