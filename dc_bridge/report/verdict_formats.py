"""The verdict as JSON (schema in docs/verdict.schema.json), JUnit XML (one test case per check, SLO and
monitor), SARIF 2.1.0 (a result per problem, at its contract line) and a console report; each also for
the verdicts of several contracts checked in one run.

Every text that comes from a contract or the data reaches XML through `xml_text` and rich as `Text`
built from `console_text` (report/escaping.py): a column named `[/x]` or holding `\\x01` is shown as
written, never parsed as markup and never makes the XML malformed.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Mapping

from rich import box
from rich.console import Console, Group, RenderableType
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from dc_bridge.monitors import METRICS, MonitorVerdict
from dc_bridge.outcomes import ALL, NOT_EVALUATED, WORST_FIRST
from dc_bridge.report.escaping import console_text, json_text, xml_text
from dc_bridge.report.finding_formats import sarif_location, sarif_log, sarif_result, sarif_rule
from dc_bridge.report.monitors import counts_text, in_order, weighs_as
from dc_bridge.plan.checks import CONTRACT_MODEL
from dc_bridge.verdict import CheckVerdict, ObjectiveVerdict, Verdict

_STYLE = {"passed": "green", "warning": "yellow", "failed": "red", "error": "bold red", "not_executable": "dim", "skipped": "dim"}


def as_json(verdicts: Verdict | list[Verdict]) -> str:
    """One contract's verdict as an object; several contracts' as a list of them, in the order run."""
    data = [v.model_dump(mode="json") for v in verdicts] if isinstance(verdicts, list) else verdicts.model_dump(mode="json")
    return json_text(json.dumps(data, indent=2, ensure_ascii=False))


def as_junit(verdicts: Verdict | list[Verdict]) -> str:
    """One contract: a test suite per model (and one for the SLOs, one for the monitors). Several: a test
    suite per contract, its test cases' class names `<contract id>.<model>` (`.slo`, `.monitors`).
    A monitor's anomaly fails its test case only at `strict`: at `warn` the case passes and says so in its
    output, as a check's warning does; a monitor still learning is skipped."""
    several = isinstance(verdicts, list)
    contracts = verdicts if several else [verdicts]
    name = f"dc-bridge {len(contracts)} contracts" if several else f"dc-bridge {verdicts.contract_id} {verdicts.contract_version}"
    totals = _counts(_sum_counts(contracts, as_cases=True))
    totals.pop("skipped")  # the JUnit schema (junit-10.xsd) has no `skipped` on testsuites; each testsuite has it
    suites = _element(None, "testsuites", name=name, **totals)
    for verdict in contracts:
        if several:
            suite = _element(suites, "testsuite", name=f"{verdict.contract_id} {verdict.contract_version}".strip(),
                             file=verdict.contract_file, **_counts(_sum_counts([verdict], as_cases=True)))
            _properties(suite, verdict, verdict.where_not_applied)
        if verdict.error:  # counted as one error (Verdict.unchecked)
            if not several:
                suite = _element(suites, "testsuite", name="contract", file=verdict.contract_file, **_counts(verdict.counts))
            _element(_element(suite, "testcase", classname=verdict.contract_id, name="contract"),
                     "error", verdict.error, message=verdict.error, type="contract")
        for model in verdict.models:
            if not several:
                suite = _element(suites, "testsuite", name=model.name, **_counts(model.counts))
                _properties(suite, verdict, {k: v for k, v in verdict.where_not_applied.items() if k == model.name})
            for check in model.checks:
                _case(suite, f"{verdict.contract_id}.{model.name}", check)
        if verdict.objectives and not several:
            suite = _element(suites, "testsuite", name="dataQuality SLOs", **_counts(_outcome_counts(verdict.objectives)))
        for objective in verdict.objectives:
            _objective_case(suite, f"{verdict.contract_id}.slo", objective)
        if verdict.monitors and not several:
            suite = _element(suites, "testsuite", name="monitors", **_counts(_monitor_counts(verdict.monitors)))
        for monitor in in_order(verdict.monitors):
            _monitor_case(suite, f"{verdict.contract_id}.monitors", monitor)
        if verdict.lifecycle is not None:
            if not several:
                suite = _element(suites, "testsuite", name="lifecycle", **_counts(_lifecycle_counts(verdict)))
            _lifecycle_case(suite, verdict)
    ET.indent(suites)
    return ET.tostring(suites, encoding="unicode", xml_declaration=True)


# the outcomes code scanning is shown, as SARIF levels; passed, not_executable and skipped raise no alert
_SARIF_LEVEL = {"failed": "error", "error": "error", "warning": "warning"}
_FIX = "Fix the data, or the contract where it expects what the data rightly is not."


def as_sarif(verdicts: Verdict | list[Verdict], model_lines: Mapping[str, Mapping[str, int | None]] | None = None) -> str:
    """The verdict as SARIF 2.1.0 for code scanning: one log, one run of dc-bridge whose results cover every
    contract (code scanning takes one run per tool and category). A result per failed, warning and error
    check and SLO at its contract line, and per anomaly of a monitor at the level it weighs as (strict:
    error, warn: warning), at its check's line for a check's monitor, else at its model's line
    (`model_lines`: contract file -> model -> line), else at the contract file; a contract that could
    not be checked, at its file. A check not run raises no alert: it is a note of the run's invocation
    (`toolExecutionNotifications`), with why."""
    contracts = verdicts if isinstance(verdicts, list) else [verdicts]
    rules: dict[str, dict] = {}
    results, notes = [], []

    def result(rule: dict, level: str, text: str, source: Mapping, logical: str | None) -> None:
        rules.setdefault(rule["id"], rule)
        results.append(sarif_result(rule["id"], level, text, source["file"], source.get("line"), logical))

    for verdict in contracts:
        contract = {"file": verdict.contract_file}
        if verdict.error:
            result(_UNCHECKED, "error", f"{verdict.contract_id}: not checked: {verdict.error}", contract, None)
        for check in verdict.checks():
            if check.outcome in _SARIF_LEVEL:
                result(_check_rule(check.kind), _SARIF_LEVEL[check.outcome], f"{check.check_id} {check_text(check)}", check.source,
                       check.source.get("path"))
            elif check.outcome in NOT_EVALUATED:
                notes.append({"level": "note", "message": {"text": f"{check.check_id} {check.outcome}: {check.reason or 'not run'}"},
                              "locations": [sarif_location(check.source["file"], check.source.get("line"), check.source.get("path"))]})
        for objective in verdict.objectives:
            if objective.outcome in _SARIF_LEVEL:
                result(_SLO, _SARIF_LEVEL[objective.outcome], f"{objective.objective_id} {_explain_objective(objective)}",
                       objective.source, objective.source.get("path"))
        checks = {check.check_id: check.source for check in verdict.checks()}
        lines = (model_lines or {}).get(verdict.contract_file, {})
        for monitor in in_order(verdict.monitors):
            if weighs_as(monitor) in _SARIF_LEVEL:  # an anomaly: `failed` at strict, `warning` at warn
                # a check's monitor at the line that states the check; any other at its model's line of the contract
                where = (checks.get(monitor.subject) if monitor.metric == "check" else None) or {**contract, "line": lines.get(monitor.model)}
                result(_monitor_rule(monitor.metric), _SARIF_LEVEL[weighs_as(monitor)], f"{monitor.monitor_id}: {monitor.sentence}", where,
                       monitor.monitor_id)
        if verdict.lifecycle is not None:  # a deprecated version: a note; past its sunset: its enforcement level's
            result(_LIFECYCLE, _SARIF_LEVEL.get(verdict.lifecycle.weighs_as, "note"),
                   f"{verdict.contract_id} {verdict.contract_version}: {verdict.lifecycle.message}", contract, None)
    # the contracts' files, and any other file a check was written in (a quality-rule library a contract imports)
    files = [v.contract_file for v in contracts] + [c.source["file"] for v in contracts for c in v.checks()]
    invocation = {"executionSuccessful": not any(v.error or v.engine_errors for v in contracts), "toolExecutionNotifications": notes}
    return sarif_log(sorted(rules.values(), key=lambda rule: rule["id"]), results, list(dict.fromkeys(files)), invocation)


def _pascal(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in name.replace("-", "_").split("_"))


def _check_rule(kind: str) -> dict:
    return sarif_rule(f"check/{kind}", f"Check{_pascal(kind)}", f"A {kind} check of the contract did not pass on the data",
                      "The check failed, warned, or could not be judged (an engine's error); the message says what was observed "
                      f"against what the contract expects, and why. {_FIX}", "error", "mapping.md#semantics-check-by-check")


def _monitor_rule(metric: str) -> dict:
    described = METRICS[metric].description if metric in METRICS else metric
    return sarif_rule(f"monitor/{metric}", f"Monitor{_pascal(metric)}", f"A monitor of {described} found an anomaly",
                      "Measured outside the band the contract's earlier runs expect (a monitor at `strict` fails the verdict, at `warn` "
                      "it reports); the message is its sentence.", "warning", "reports.md#monitors-in-every-report")


_SLO = sarif_rule("slo/dataQuality", "DataQualitySlo", "A dataQuality SLO of the contract was not met",
                  f"Too few of its rules' evaluations passed, or it could not be judged; the message names each rule's share. {_FIX}",
                  "error", "mapping.md#data-quality-slos")
_LIFECYCLE = sarif_rule("contract/lifecycle", "ContractLifecycle", "The contract's version is deprecated, sunset or retired",
                        "The registry says where this version is in its life: a deprecated one names its sunset date and "
                        "successor; past the sunset, enforcement.lifecycle decides (warn: a warning, strict: an error).",
                        "note", "catalogs.md#the-contracts-life-dc-bridge-lifecycle")
_UNCHECKED = sarif_rule("contract/unchecked", "ContractUnchecked", "A contract could not be checked",
                        "Its file has errors (dc-bridge lint lists them) or its data could not be read; the message says which.",
                        "error", "reports.md#sarif---output-sarif")


def _sum_counts(verdicts: list[Verdict], as_cases: bool = False) -> dict[str, int]:
    """Checks per outcome; `as_cases`: the dataQuality SLOs and the monitors too (JUnit has a test case for each)."""
    counts = [v.counts for v in verdicts]
    if as_cases:
        counts += [_outcome_counts(v.objectives) for v in verdicts] + [_monitor_counts(v.monitors) for v in verdicts]
        counts += [_lifecycle_counts(v) for v in verdicts]
    return {outcome: sum(c.get(outcome, 0) for c in counts) for outcome in ALL}


def _outcome_counts(objectives: list[ObjectiveVerdict]) -> dict[str, int]:
    return {outcome: sum(o.outcome == outcome for o in objectives) for outcome in ALL}


def _monitor_counts(monitors: list[MonitorVerdict]) -> dict[str, int]:
    """Monitors per the check outcome each weighs as (report/monitors.py)."""
    return {outcome: sum(weighs_as(m) == outcome for m in monitors) for outcome in ALL}


def _counts(counts: dict[str, int]) -> dict[str, int]:
    return dict(tests=sum(counts.values()), failures=counts.get("failed", 0), errors=counts.get("error", 0),
                skipped=counts.get("not_executable", 0) + counts.get("skipped", 0))


def _properties(suite: ET.Element, verdict: Verdict, not_applied: dict[str, str]) -> None:
    """Facts of the run a reader of the suite needs: models checked unfiltered despite --where."""
    if not_applied:
        properties = _element(suite, "properties")
        for model, reason in not_applied.items():
            _element(properties, "property", name=f"where_not_applied.{model}", value=reason)


def _case(suite: ET.Element, classname: str, check: CheckVerdict) -> None:
    case = _element(suite, "testcase", classname=classname, name=check.check_id)
    text = check_text(check)
    if check.outcome == "failed":
        _element(case, "failure", text, message=text, type=check.kind)
    elif check.outcome == "error":
        _element(case, "error", text, message=text, type=check.kind)
    elif check.outcome in NOT_EVALUATED:
        _element(case, "skipped", message=check.reason or check.outcome)
    elif check.outcome == "warning":
        _element(case, "system-out", f"warning: {text}")


def _objective_case(suite: ET.Element, classname: str, objective: ObjectiveVerdict) -> None:
    case = _element(suite, "testcase", classname=classname, name=objective.objective_id)
    text = _explain_objective(objective)
    tag = {"failed": "failure", "error": "error"}.get(objective.outcome)
    if tag:
        _element(case, tag, text, message=text, type="dataQuality")
    elif objective.outcome in NOT_EVALUATED:
        _element(case, "skipped", message=objective.reason or objective.outcome)
    else:
        _element(case, "system-out", text)


def _monitor_case(suite: ET.Element, classname: str, monitor: MonitorVerdict) -> None:
    """strict anomaly: a failure; warn anomaly: passed, the anomaly in its output; learning: skipped; normal: passed, its sentence in its output."""
    case = _element(suite, "testcase", classname=classname, name=monitor.monitor_id)
    text = f"{monitor.outcome} ({monitor.severity}): {monitor.sentence}"
    weight = weighs_as(monitor)
    if weight == "failed":
        _element(case, "failure", text, message=text, type="monitor")
    elif weight == "skipped":
        _element(case, "skipped", message=text)
    else:
        _element(case, "system-out", text)


def _lifecycle_counts(verdict: Verdict) -> dict[str, int]:
    """The lifecycle's one test case: failed past a sunset at strict, else passed (its finding in its output)."""
    if verdict.lifecycle is None:
        return {}
    return {"failed" if verdict.lifecycle.weighs_as == "failed" else "passed": 1}


def _lifecycle_case(suite: ET.Element, verdict: Verdict) -> None:
    lifecycle = verdict.lifecycle
    case = _element(suite, "testcase", classname=f"{verdict.contract_id}.lifecycle", name=lifecycle.state)
    if lifecycle.weighs_as == "failed":
        _element(case, "failure", lifecycle.message, message=lifecycle.message, type="lifecycle")
    else:
        _element(case, "system-out", f"{lifecycle.weighs_as if lifecycle.weighs_as != 'passed' else 'note'}: {lifecycle.message}")


def _explain_objective(objective: ObjectiveVerdict) -> str:
    """`failed: 99.5% of evaluations passed, expected >= 99.9%; rules: a 990/1000, b 1/1; gx 99.5%, soda 99.5%`."""
    value = f"{objective.value:.6g}% of evaluations passed" if objective.value is not None else "not measured"
    parts = [f"{objective.outcome}: {value}, expected {objective.expected or 'no target stated'}"]
    if objective.reason:
        parts.append(objective.reason)
    parts.append("rules: " + ", ".join(f"{r.check_id} {r.passing}/{r.evaluations}" if r.evaluations is not None else f"{r.check_id} {r.outcome}"
                                       for r in objective.rules))
    if objective.engines:
        parts.append(", ".join(f"{engine} {value:.6g}%" for engine, value in sorted(objective.engines.items())))
    return "; ".join(parts)


def _element(parent: ET.Element | None, tag: str, text: str | None = None, **attributes) -> ET.Element:
    """An element whose text and attributes hold only characters XML 1.0 allows (ElementTree escapes
    `<`, `&` and quotes, but writes a control character as it is, which no XML parser reads)."""
    values = {key: xml_text(value) for key, value in attributes.items()}
    element = ET.Element(tag, values) if parent is None else ET.SubElement(parent, tag, values)
    if text is not None:
        element.text = xml_text(text)
    return element


def check_text(check: CheckVerdict) -> str:
    """One check's outcome in one line of plain text, no link: what it checks, observed against expected, the reason,
    the failing values shown (JUnit's message, SARIF's, the console's, a Dagster asset check's `text`)."""
    parts = [f"{check.outcome}: {check.description or check.kind}"]
    if check.observed is not None or check.expected:
        unit = "%" if check.unit == "percent" else ""
        observed = f"{check.observed:g}{unit}" if check.observed is not None else "not measured"
        parts.append(f"observed {observed}, expected {check.expected or '-'}")
    if check.reason:
        parts.append(check.reason)
    if check.duplicated_values is not None:
        parts.append(f"{check.duplicated_values} distinct value(s) repeat")
    if check.samples:
        parts.append("e.g. " + ", ".join(repr(v) for v in check.samples))
    elif check.samples_note:
        parts.append(f"samples {check.samples_note}")
    return "; ".join(parts)


def print_console(verdict: Verdict, console: Console, limit: int = 15) -> None:
    """The summary per model, the worst findings, the checks not run and why, and the verdict. It fits the
    console's width (80 columns without a terminal) without cutting a name (`_summary`). Texts of the contract and the data are `Text` (never markup rich would
    parse: a `[/x]` in a value is shown, not a crash)."""
    if verdict.models or not verdict.error:
        console.print(_summary(verdict, console))
        note = _contract_row_note(verdict)
        if note:
            console.print(Text(note, style="dim"))
    findings = sorted((c for c in verdict.checks() if c.outcome in ("error", "failed", "warning")),
                      key=lambda c: WORST_FIRST.index(c.outcome))
    # one row each: the outcome, then the check id, what was found and where, wrapping under the id
    rows = Table.grid(padding=(0, 1))
    rows.add_column(no_wrap=True)
    rows.add_column(overflow="fold")
    for check in findings[:limit]:
        where = f"{check.source.get('file')}:{check.source.get('line') or ''}"
        rows.add_row(Text(f"{check.outcome:<7}", style=_STYLE[check.outcome]),
                     Text.assemble(console_text(check.check_id), "  ", console_text(check_text(check).split("; ", 1)[-1]), "  ",
                                   (console_text(where), "dim")))
    if findings:
        console.print(rows)
    if len(findings) > limit:
        console.print(f"... and {len(findings) - limit} more; use --output json for all of them")
    _print_not_run(verdict, console, limit)
    for objective in verdict.objectives:
        console.print(Text.assemble(("SLO ", "bold"), (f"{objective.outcome:<14}", _STYLE[objective.outcome]), " ",
                                    console_text(objective.objective_id), "  ", console_text(_explain_objective(objective).split(": ", 1)[-1])))
    _print_monitors(verdict, console, limit)
    drift_errors = [d for d in verdict.drift if d["severity"] == "error"]
    if drift_errors:
        console.print(Text.assemble(("schema drift", "yellow"), f": {len(drift_errors)} difference(s) between the contract and the data, e.g. ",
                                    console_text(drift_errors[0]["message"]), " (dc-bridge drift shows all)"))
    for model, reason in verdict.where_not_applied.items():
        console.print(Text.assemble(("filter not applied", "yellow"), ": ", console_text(f"{model}: {reason}")))
    for engine, error in verdict.engine_errors.items():
        console.print(Text.assemble((f"{engine} failed", "bold red"), ": ", console_text(error)))
    if verdict.error:
        console.print(Text.assemble(("not checked", "bold red"), ": ", console_text(verdict.error)))
    if verdict.lifecycle is not None:
        weight = verdict.lifecycle.weighs_as
        console.print(Text.assemble(("lifecycle", "yellow" if weight == "passed" else _STYLE[weight]), ": ",
                                    console_text(verdict.lifecycle.message)))
    if verdict.reason:  # the outcome is worse than the checks and SLOs above make it (a monitor at strict)
        console.print(Text.assemble((f"{verdict.outcome} because", _STYLE[verdict.outcome]), " ", console_text(verdict.reason)))
    timing = ", ".join(f"{engine} {seconds:.1f}s" for engine, seconds in verdict.engine_seconds.items())
    console.print(Text.assemble("contract verdict: ", (verdict.outcome, _STYLE[verdict.outcome]),
                                f" ({console_text(timing)})" if timing else ""))


# a width no console has: what a table would take if nothing wrapped
_UNBOUNDED = 10_000
# the outcomes a summary counts, by the names its columns and lines show them
_COUNTED = {outcome: {"not_executable": "not run"}.get(outcome, outcome) for outcome in ALL}


def _summary(verdict: Verdict, console: Console) -> RenderableType:
    """One row per model: the table of counts per outcome when it fits the console whole; else a narrower
    one that lists only the counts there are; else, for names wider than that leaves room for, one
    line per model. No name or outcome is cut on the way."""
    title = Text(console_text(f"{verdict.contract_id} {verdict.contract_version}"), overflow="fold")
    table = Table(title=title, title_justify="left")
    table.add_column("model", overflow="fold")
    for outcome in ALL:
        table.add_column(_COUNTED[outcome], justify="right", style=_STYLE[outcome], overflow="fold")
    table.add_column("verdict", overflow="fold")
    for model in verdict.models:
        table.add_row(Text(console_text(model.name)), *(str(model.counts[o]) for o in ALL), Text(model.outcome, style=_STYLE[model.outcome]))
    if _width(console, table).maximum <= console.width:
        return table
    counts = {model.name: Text(", ").join(Text(f"{model.counts[o]} {_COUNTED[o]}", style=_STYLE[o]) for o in ALL if model.counts[o])
              or Text("none") for model in verdict.models}
    narrow = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    # the counts wrap (at their commas), names and outcomes never
    narrow.add_column("model", no_wrap=True)
    narrow.add_column("verdict", no_wrap=True)
    narrow.add_column("checks", overflow="fold")
    for model in verdict.models:
        narrow.add_row(Text(console_text(model.name)), Text(model.outcome, style=_STYLE[model.outcome]), counts[model.name])
    if _width(console, narrow).minimum <= console.width:
        return narrow
    return Group(title, *(Text.assemble("  ", console_text(model.name), ": ", (model.outcome, _STYLE[model.outcome]), " (",
                                        counts[model.name], ")") for model in verdict.models))


def _width(console: Console, renderable) -> Measurement:
    """The widths `renderable` takes, unbounded (rich's own measure stops at the console's width)."""
    return Measurement.get(console, console.options.update_width(_UNBOUNDED), renderable)


def _contract_row_note(verdict: Verdict) -> str | None:
    """What the `(contract)` row is, and why it may read not_executable under a contract that passed."""
    row = next((m for m in verdict.models if m.name == CONTRACT_MODEL), None)
    if row is None:
        return None
    note = f"{CONTRACT_MODEL} is the contract as a whole: its service levels, not one model's checks."
    if row.outcome in NOT_EVALUATED:
        note += f" {row.outcome}: none of them could run (see \"not run\"), which leaves the contract verdict as it is."
    return note


def _print_not_run(verdict: Verdict, console: Console, limit: int) -> None:
    """The checks that were not run (not_executable, skipped) and why, one item each."""
    not_run = [c for c in verdict.checks() if c.outcome in NOT_EVALUATED]
    if not not_run:
        return
    console.print(Text.assemble(("not run", "bold"), f" ({len(not_run)}), left out of the verdict:"))
    # one item each, the id first and whole (ids hold no spaces), the reason wrapping under it
    items = Table.grid(padding=(0, 1))
    items.add_column(no_wrap=True)
    items.add_column(overflow="fold")
    for check in not_run[:limit]:
        why = check.reason or check.outcome
        items.add_row("  -", Text.assemble(console_text(check.check_id), ": ",
                                            console_text(why if check.outcome == "not_executable" else f"{check.outcome}: {why}")))
    console.print(items)
    if len(not_run) > limit:
        console.print(f"... and {len(not_run) - limit} more; use --output json for all of them")


def _print_monitors(verdict: Verdict, console: Console, limit: int) -> None:
    """What the monitors said: each anomaly (strict first) and each monitor still learning, with its
    sentence, then the normal ones as one count. The outcome is a word, its colour only repeats it."""
    if not verdict.monitors:
        return
    shown = in_order(verdict.monitors)
    console.print(Text.assemble(("monitors", "bold"), f" ({counts_text(shown)}):"))
    rows = Table.grid(padding=(0, 1))
    rows.add_column(no_wrap=True)
    rows.add_column(overflow="fold")
    told = [m for m in shown if m.outcome != "normal"]
    for monitor in told[:limit]:
        word = f"{monitor.outcome} ({monitor.severity})" if monitor.outcome == "anomalous" else monitor.outcome
        rows.add_row(Text(f"  {word:<18}", style=_STYLE[weighs_as(monitor)]),
                     Text.assemble(console_text(monitor.monitor_id), "  ", console_text(monitor.sentence)))
    if len(told) > limit:
        rows.add_row("  ...", f"and {len(told) - limit} more; use --output json for all of them")
    normal = len(shown) - len(told)
    if normal:
        rows.add_row(Text(f"  {'normal':<18}", style=_STYLE["passed"]), f"{normal} monitor(s) within the band their history expects")
    console.print(rows)


def print_console_many(verdicts: list[Verdict], console: Console, fail_on: str = "failed", limit: int = 15) -> None:
    """Each contract's report, then one line per contract, the counts and the run's exit code (the
    highest of the contracts')."""
    for verdict in verdicts:
        console.rule(Text(console_text(verdict.contract_file)), align="left")
        print_console(verdict, console, limit)
    console.rule("all contracts", align="left")
    for verdict in verdicts:
        console.print(Text.assemble((f"{verdict.outcome:<14}", _STYLE[verdict.outcome]), " ", console_text(verdict.contract_file)))
    counts = _sum_counts(verdicts)
    code = max(v.exit_code(fail_on) for v in verdicts)
    console.print(f"{len(verdicts)} contracts, checks: " + (", ".join(f"{counts[o]} {o}" for o in ALL if counts[o]) or "none")
                  + f"; exit code {code}")


def print_phases(verdicts: list[Verdict], console: Console, report_seconds: float | None = None) -> None:
    """`run --explain`: each contract's phases in the order they ran, with their seconds (runner/phases.py),
    then the command's own report (`report_seconds`: rendering and writing it, which no verdict can hold)."""
    several = len(verdicts) > 1
    table = Table(title="phases", title_justify="left")
    if several:
        table.add_column("contract", overflow="fold")
    for name in ("phase", "model", "engine"):
        table.add_column(name, overflow="fold")  # wrapped on a narrow console, never cut
    table.add_column("seconds", justify="right")
    for verdict in verdicts:
        for phase in verdict.phases:
            row = [phase.phase, Text(console_text(phase.model or "")), phase.engine or "", f"{phase.seconds:.3f}"]
            table.add_row(*([Text(console_text(phase.contract))] if several else []), *row)
    if report_seconds is not None:
        table.add_row(*([""] if several else []), "report", "", "", f"{report_seconds:.3f}")
    console.print(table)
    total = sum(v.seconds or 0 for v in verdicts)
    console.print(f"{total:.1f}s in {len(verdicts)} contract run(s), "
                  f"{sum(p.seconds for v in verdicts for p in v.phases):.1f}s of it in the phases above")
