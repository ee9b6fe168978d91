"""The verdict as one self-contained HTML page: `dc-bridge run --output html --output-file report.html`.

One file, nothing fetched: inline CSS, no scripts, no fonts or images from anywhere, and a
Content-Security-Policy that would block any request the page tried. The only links are to Data Docs
pages on disk, where `--data-docs` built them. Problems come first: the summary per model, then each
model's checks, worst outcome first, with expected vs observed, each engine's own result side by
side and disagreements between engines marked. Print CSS puts it on landscape pages with the colours kept.
"""

from __future__ import annotations

import math
import os
from dataclasses import replace
from html import escape as html_escape
from pathlib import Path
from typing import Mapping
from urllib.parse import quote

from dc_bridge.contract.thresholds import render
from dc_bridge.outcomes import ALL, WORST_FIRST
from dc_bridge.report.escaping import page_text
from dc_bridge.verdict import EXPECTED, CheckVerdict, ModelVerdict, Verdict, engines_agree


def escape(text) -> str:
    """Any text of the page: HTML-escaped (quotes too, for attributes), with control characters and
    what no HTML or XML document may hold (`\\x01`, a lone surrogate) written visibly (report/escaping.py)."""
    return html_escape(page_text(text), quote=True)


# problems first within a model
_ORDER = {outcome: rank for rank, outcome in enumerate(WORST_FIRST)}
_LABEL = {"not_executable": "not run"}
# seconds -> the largest units that say it (freshness ages)
_UNITS = (("d", 86400), ("h", 3600), ("min", 60), ("s", 1))

CSS = """
:root { --passed:#1a7f37; --warning:#9a6700; --failed:#cf222e; --error:#82071e; --muted:#656d76; --line:#d0d7de; --bg:#f6f8fa; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color:#1f2328;
       margin: 0 auto; padding: 24px; max-width: 1320px; }
h1 { font-size: 22px; margin: 0 0 4px; overflow-wrap: anywhere; }
h2 { font-size: 18px; margin: 28px 0 8px; display: flex; gap: 10px; align-items: center; flex-wrap: wrap; }
code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px; }
.facts { color: var(--muted); margin: 0 0 16px; display: flex; flex-wrap: wrap; gap: 4px 18px; }
table { border-collapse: collapse; width: 100%; }
th, td { border-bottom: 1px solid var(--line); padding: 6px 8px; text-align: left; vertical-align: top; }
th { background: var(--bg); font-weight: 600; position: sticky; top: 0; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 12px; font-weight: 600; color: #fff;
         background: var(--muted); white-space: nowrap; }
.badge.passed { background: var(--passed); } .badge.warning { background: var(--warning); }
.badge.failed { background: var(--failed); } .badge.error { background: var(--error); }
.badge.big { font-size: 15px; padding: 3px 12px; }
tr.failed td:first-child { box-shadow: inset 4px 0 var(--failed); } tr.error td:first-child { box-shadow: inset 4px 0 var(--error); }
tr.warning td:first-child { box-shadow: inset 4px 0 var(--warning); }
tr.disagree { background: #fff8c5; }
.flag { color: var(--error); font-weight: 600; }
.check-id { font-weight: 600; overflow-wrap: anywhere; }
.small { color: var(--muted); font-size: 12.5px; overflow-wrap: anywhere; }
.engine { white-space: nowrap; } .engine .small { white-space: normal; }
td.reason { overflow-wrap: anywhere; max-width: 360px; }
footer { color: var(--muted); margin-top: 32px; font-size: 12px; }
@media (max-width: 900px) { body { padding: 12px; } td.reason { max-width: none; } }
@media print {
  @page { size: A4 landscape; margin: 10mm; }
  body { max-width: none; padding: 0; font-size: 10pt; }
  * { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  th { position: static; }
  tr { break-inside: avoid; }
  h2 { break-after: avoid; }
  a { color: inherit; text-decoration: none; }
}
"""
# nothing may be fetched; styles are inline only (navigating a link to Data Docs is not a fetch)
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"


def file_href(path: str | Path, base_dir: str | Path | None) -> str:
    """A link to a local file: relative to the report's folder when the report is a file (both can be
    moved together), else a file:// URL. Path segments are %-encoded (GX names folders `urn:...`)."""
    path = Path(path)
    if base_dir is None:
        return path.resolve().as_uri()
    relative = os.path.relpath(path.resolve(), Path(base_dir).resolve())
    return quote(Path(relative).as_posix())


def for_run(verdict: Verdict, data_docs_dir: str | None, output_file: str | None) -> str:
    """The page of `dc-bridge run --output html [--data-docs DIR] [--output-file F]`: with links to
    the Data Docs pages that run built, relative to F's folder."""
    if not data_docs_dir:
        return as_html(verdict)
    from dc_bridge.report.data_docs import data_docs_pages

    base = Path(output_file).parent if output_file else None
    pages = data_docs_pages(data_docs_dir, verdict.contract_id, [m.name for m in verdict.models], verdict.started_at)
    index = Path(data_docs_dir) / "index.html"
    return as_html(verdict, {model: file_href(page, base) for model, page in pages.items()},
                   file_href(index, base) if index.exists() else None)


def as_html(verdict: Verdict, data_docs: Mapping[str, str] | None = None, data_docs_index: str | None = None) -> str:
    """`data_docs`: model -> link to its Data Docs validation page; `data_docs_index`: link to the site."""
    data_docs = data_docs or {}
    title = f"{verdict.contract_id} {verdict.contract_version}: {verdict.outcome}"
    return _page(title, [_contract(verdict, data_docs, data_docs_index)], verdict.versions)


def as_html_many(verdicts: list[Verdict]) -> str:
    """The verdicts of several contracts checked in one run: a table of contracts, then each contract's report."""
    rows = "".join(f'<tr><td><a href="#contract-{i}">{escape(v.contract_file)}</a></td><td>{escape(v.contract_id)}</td>'
                   f"<td>{_badge(v.outcome)}</td></tr>" for i, v in enumerate(verdicts))
    overview = (f"<header><h1>{len(verdicts)} contracts</h1></header><section><table><thead><tr><th>contract file</th>"
                f"<th>id</th><th>verdict</th></tr></thead><tbody>{rows}</tbody></table></section>")
    sections = [f'<article id="contract-{i}">{_contract(v, {}, None, prefix=f"c{i}-")}</article>' for i, v in enumerate(verdicts)]
    return _page(f"{len(verdicts)} contracts", [overview, *sections], verdicts[0].versions if verdicts else {})


def _page(title: str, body: list[str], versions: Mapping[str, str]) -> str:
    parts = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(title)}</title><style>{CSS}</style></head><body>",
        *body,
        f"<footer>dc-bridge {escape(versions.get('dc-bridge', ''))} · "
        f"{escape(', '.join(f'{k} {v}' for k, v in versions.items() if k != 'dc-bridge'))}</footer>",
        "</body></html>",
    ]
    return "\n".join(parts) + "\n"


def _contract(verdict: Verdict, data_docs: Mapping[str, str], data_docs_index: str | None, prefix: str = "") -> str:
    return "\n".join([_header(verdict, data_docs_index), _summary(verdict, data_docs, prefix), _objectives(verdict),
                      *(_model(model, verdict.engines, data_docs.get(model.name), prefix) for model in verdict.models)])


def _badge(outcome: str, big: bool = False) -> str:
    return f'<span class="badge {escape(outcome)}{" big" if big else ""}">{escape(_LABEL.get(outcome, outcome))}</span>'


def _header(verdict: Verdict, data_docs_index: str | None) -> str:
    facts = [f"contract file <code>{escape(verdict.contract_file)}</code>", f"engines {escape(', '.join(verdict.engines))}"]
    if verdict.started_at:
        facts.append(f"started {escape(verdict.started_at)}")
    if verdict.seconds is not None:
        timing = ", ".join(f"{escape(e)} {s:.1f}s" for e, s in verdict.engine_seconds.items())
        facts.append(f"took {verdict.seconds:.1f}s" + (f" ({timing})" if timing else ""))
    if verdict.where:
        facts.append(f"filter <code>{escape(verdict.where)}</code>")
    for model, reason in verdict.where_not_applied.items():
        facts.append(f'<span class="flag">{escape(model)}: {escape(reason)}</span>')
    if data_docs_index:
        facts.append(f'<a href="{escape(data_docs_index)}">GX Data Docs</a>')
    for engine, error in verdict.engine_errors.items():
        facts.append(f'<span class="flag">{escape(engine)} failed: {escape(error)}</span>')
    if verdict.error:
        facts.append(f'<span class="flag">not checked: {escape(verdict.error)}</span>')
    counts = " · ".join(f"{verdict.counts.get(o, 0)} {_LABEL.get(o, o)}" for o in ALL)
    return (f"<header><h1>{escape(verdict.contract_id)} <span class=\"small\">version {escape(verdict.contract_version)}</span></h1>"
            f"<p>Contract verdict {_badge(verdict.outcome, big=True)} &nbsp; {counts}</p>"
            f"<p class=\"facts\">{''.join(f'<span>{fact}</span>' for fact in facts)}</p></header>")


def _summary(verdict: Verdict, data_docs: Mapping[str, str], prefix: str = "") -> str:
    head = "".join(f'<th class="num">{_LABEL.get(o, o)}</th>' for o in ALL)
    rows = []
    for model in verdict.models:
        link = f'<a href="{escape(data_docs[model.name])}">Data Docs</a>' if model.name in data_docs else ""
        cells = "".join(f'<td class="num">{model.counts.get(o, 0)}</td>' for o in ALL)
        rows.append(f'<tr><td><a href="#{_anchor(model.name, prefix)}">{escape(model.name)}</a></td>{cells}'
                    f"<td>{_badge(model.outcome)}</td><td>{link}</td></tr>")
    return (f"<section><h2>Summary per model</h2><table><thead><tr><th>model</th>{head}<th>verdict</th><th></th></tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table></section>")


def _objectives(verdict: Verdict) -> str:
    """The dataQuality SLOs: each one's value against its target, per engine, and the rules it aggregates."""
    if not verdict.objectives:
        return ""
    head = "".join(f"<th class=\"num\">{escape(engine)}</th>" for engine in verdict.engines)
    rows = []
    for objective in verdict.objectives:
        value = f"{objective.value:.6g}%" if objective.value is not None else ""
        engines = "".join(f'<td class="num">{f"{objective.engines[e]:.6g}%" if e in objective.engines else "–"}</td>'
                          for e in verdict.engines)
        rules = "<br>".join(f'<span class="mono">{escape(r.check_id)}</span> {_badge(r.outcome)} '
                            + (f"{r.passing:,} of {r.evaluations:,} passed" if r.evaluations is not None else "")
                            for r in objective.rules)
        where = f"{objective.source.get('file') or ''}:{objective.source.get('line') or ''}"
        description = f"<div>{escape(objective.description)}</div>" if objective.description else ""
        rows.append(f'<tr class="{escape(objective.outcome)}"><td>{_badge(objective.outcome)}</td>'
                    f'<td><div class="check-id mono">{escape(objective.objective_id)}</div>{description}'
                    f'<div class="small">dataQuality · {escape(where)}</div></td><td>{escape(objective.expected)}</td>'
                    f'<td class="num">{value}</td>{engines}<td class="small">{rules}</td>'
                    f'<td class="reason">{escape(objective.reason or "")}</td></tr>')
    return ("<section><h2>Data quality SLOs</h2><table><thead><tr><th>outcome</th><th>SLO</th><th>target</th>"
            f"<th class=\"num\">passing evaluations</th>{head}<th>rules</th><th>why</th></tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table></section>")


def _anchor(name: str, prefix: str = "") -> str:
    return prefix + "model-" + "".join(ch if ch.isalnum() else "-" for ch in name)


def _model(model: ModelVerdict, engines: list[str], docs: str | None, prefix: str = "") -> str:
    link = f'<a class="small" href="{escape(docs)}">Data Docs page</a>' if docs else ""
    head = "".join(f"<th>{escape(engine)}</th>" for engine in engines)
    checks = sorted(model.checks, key=lambda check: _ORDER.get(check.outcome, len(_ORDER)))
    rows = "".join(_check_row(check, engines) for check in checks)
    return (f'<section id="{_anchor(model.name, prefix)}"><h2>{escape(model.name)} {_badge(model.outcome)} {link}</h2>'
            f"<table><thead><tr><th>outcome</th><th>check</th><th>expected</th><th class=\"num\">observed</th>{head}"
            f"<th>why</th></tr></thead><tbody>{rows}</tbody></table></section>")


def _check_row(check: CheckVerdict, engines: list[str]) -> str:
    disagreement = _disagreement(check)
    classes = escape(" ".join(c for c in (check.outcome, "disagree" if disagreement else "") if c))
    where = f"{check.source.get('file') or ''}:{check.source.get('line') or ''}"
    about = " · ".join(x for x in (check.kind, ", ".join(check.columns), check.severity if check.severity != "error" else "") if x)
    description = f"<div>{escape(check.description)}</div>" if check.description else ""
    engine_cells = "".join(f'<td class="engine">{_engine_cell(check, engine)}</td>' for engine in engines)
    why = [escape(check.reason)] if check.reason else []
    if disagreement:
        why.insert(0, f'<span class="flag">disagreement: the engines {disagreement}</span>')
    if check.duplicated_values is not None:
        why.append(f"{check.duplicated_values} distinct value(s) repeat")
    if check.samples:
        why.append("e.g. <span class=\"mono\">" + escape(", ".join(repr(v) for v in check.samples)) + "</span>")
    elif check.samples_note:
        why.append(f"samples {escape(check.samples_note)}")
    return (f'<tr class="{classes}"><td>{_badge(check.outcome)}</td>'
            f'<td><div class="check-id mono">{escape(check.check_id)}</div>{description}'
            f'<div class="small">{escape(about)} · {escape(where)}</div></td>'
            f"<td>{_expected(check)}</td><td class=\"num\">{_number(check.observed, check)}</td>"
            f"{engine_cells}<td class=\"reason\">{'<br>'.join(why)}</td></tr>")


def _engine_cell(check: CheckVerdict, engine: str) -> str:
    result = check.engines.get(engine)
    if result is None:
        return '<span class="small">–</span>'
    # an engine's error text is in the row's "why" (the fold's reason), not repeated here
    return f"{_badge(result.outcome)} {_number(result.observed, check)}"


def _disagreement(check: CheckVerdict) -> str | None:
    """How the engines that ran the check disagree: on the number (the fold makes that an error) or
    only on the outcome (a check without a number, e.g. a schema check)."""
    # an engine that could not evaluate the check is an error, shown as such, not a disagreement
    results = [r for r in check.engines.values() if r.outcome != "error"]
    numbers = [r.observed for r in results if r.observed is not None]
    if len(numbers) > 1 and not engines_agree(numbers):
        return "measured different numbers"
    if len({r.outcome for r in results}) > 1:
        return "reached different outcomes"
    return None


def _number(value: float | None, check: CheckVerdict) -> str:
    if value is None:
        return ""
    if check.kind == "freshness":
        return f"{_duration(value)}"
    text = f"{int(value):,}" if float(value).is_integer() else f"{value:,.4f}".rstrip("0").rstrip(".")
    return text + ("%" if check.unit == "percent" else "")


def _duration(seconds: float) -> str:
    """An age as `1d 2h` (its two largest units), with the exact seconds for the reader who checks."""
    return f'{_duration_text(seconds)} <span class="small">({seconds:,.0f} s)</span>'


def _duration_text(seconds: float) -> str:
    if not math.isfinite(seconds):  # no engine measures one, but a hand-made or folded verdict may hold it
        return str(seconds)
    left, parts = abs(seconds), []
    for unit, size in _UNITS:
        if left >= size and len(parts) < 2:
            parts.append(f"{int(left // size)}{unit}")
            left %= size
    return ("-" if seconds < 0 else "") + (" ".join(parts) or "0s")


# the verdict's `expected` text with an age's seconds in days and hours: `<= 1d 2h`
_AGE = replace(EXPECTED, number=_duration_text)


def _expected(check: CheckVerdict) -> str:
    """The threshold as the fold wrote it; a freshness threshold (seconds) written anew, in days and hours."""
    if check.kind == "freshness" and check.threshold is not None:
        return escape(render(check.threshold, _AGE, check.unit))
    return escape(check.expected or "")
