"""The verdict as one self-contained HTML page: `dc-bridge run --output html --output-file report.html`.

One file, nothing fetched: inline CSS, no scripts, no fonts or images from anywhere, and a
Content-Security-Policy that would block any request the page tried. The only links are to Data Docs
pages on disk, where `--data-docs` built them. Problems come first: the summary per model, then each
model's checks, worst outcome first, with expected vs observed, each engine's own result side by
side and disagreements between engines marked. Print CSS puts it on landscape pages with the colours kept.

The page is Jinja2 templates with autoescape (report/templates: `page.html.j2`, the macros of
`parts.html.j2`, `report.css`); every value they write goes through `escape`, the environment's
`finalize`. The helpers below answer what the templates ask: numbers and durations as text, whether
engines disagree, the order of the checks. Which numbers are seconds is the kind registry's answer.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import replace
from functools import cache
from html import escape as html_escape
from pathlib import Path
from typing import Any, Mapping
from urllib.parse import quote

from jinja2 import Environment, PackageLoader, StrictUndefined
from jinja2.ext import Extension
from markupsafe import Markup

from dc_bridge.contract.thresholds import render
from dc_bridge.outcomes import ALL, WORST_FIRST
from dc_bridge.plan.checks import KINDS
from dc_bridge.monitors import MonitorVerdict
from dc_bridge.report.escaping import page_text
from dc_bridge.report.monitors import band_text, counts_text, in_order, number_text, weighs_as
from dc_bridge.verdict import EXPECTED, CheckVerdict, Verdict, engines_agree


def escape(text: Any) -> Markup:
    """Any text of the page: HTML-escaped (quotes too, for attributes), with control characters and
    what no HTML or XML document may hold (`\\x01`, a lone surrogate) written visibly (report/escaping.py).
    Markup (what a template macro wrote, or text escaped here before) is kept as it is."""
    if isinstance(text, Markup):
        return text
    return Markup(html_escape(page_text(text), quote=True))


# problems first within a model
_ORDER = {outcome: rank for rank, outcome in enumerate(WORST_FIRST)}
_LABEL = {"not_executable": "not run"}
# seconds -> the largest units that say it (freshness ages, frequency gaps)
_UNITS = (("d", 86400), ("h", 3600), ("min", 60), ("s", 1))


class _LineContinuation(Extension):
    """A template line that ends in a backslash goes on with the next one: the line break and the next
    line's indentation are not written, so a line of the page can be read one element per line."""

    def preprocess(self, source: str, name: str | None, filename: str | None = None) -> str:
        return re.sub(r"\\\n[ \t]*", "", source)


@cache
def _templates() -> Environment:
    environment = Environment(loader=PackageLoader("dc_bridge.report", "templates"), autoescape=True, finalize=escape,
                              undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
                              extensions=[_LineContinuation])
    environment.globals.update(
        ALL=ALL, label=lambda outcome: _LABEL.get(outcome, outcome), anchor=_anchor, worst_first=_worst_first,
        disagreement_of=_disagreement, about=_about, expected=_expected, in_seconds=_in_seconds,
        duration_text=_duration_text, number_text=_number_text, why_lines=_why_lines,
        monitors_in_order=in_order, monitor_counts=counts_text, weighs_as=weighs_as, monitor_value=_monitor_value, monitor_band=_monitor_band)
    return environment


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
    title = f"{verdict.contract_id} {verdict.contract_version}: {verdict.outcome}"
    return _templates().get_template("page.html.j2").render(many=False, title=title, verdict=verdict, data_docs=data_docs or {},
                                                            data_docs_index=data_docs_index, versions=verdict.versions)


def as_html_many(verdicts: list[Verdict]) -> str:
    """The verdicts of several contracts checked in one run: a table of contracts, then each contract's report."""
    return _templates().get_template("page.html.j2").render(
        many=True, title=f"{len(verdicts)} contracts", verdicts=verdicts, versions=verdicts[0].versions if verdicts else {})


def _anchor(name: str, prefix: str = "") -> str:
    """A model's id in the page, one per name: a character other than a letter or digit is written as
    `-<hex>-`, so names that differ only in punctuation (`a b`, `a-b`, `a_b`) get different ids."""
    return prefix + "model-" + "".join(ch if ch.isalnum() else f"-{ord(ch):x}-" for ch in name)


def _worst_first(checks: list[CheckVerdict]) -> list[CheckVerdict]:
    return sorted(checks, key=lambda check: _ORDER.get(check.outcome, len(_ORDER)))


def _about(check: CheckVerdict) -> str:
    """`regex · email · warning`: the kind, the columns and a severity other than error."""
    return " · ".join(x for x in (check.kind, ", ".join(check.columns), check.severity if check.severity != "error" else "") if x)


def _why_lines(check: CheckVerdict, disagreement: str | None) -> list[tuple[str, str]]:
    """The lines of the row's "why", in order, each as (how it is shown: `flag`, `mono` samples or `text`, its text)."""
    lines = [("flag", f"disagreement: the engines {disagreement}")] if disagreement else []
    lines += [("text", check.reason)] if check.reason else []
    if check.duplicated_values is not None:
        lines.append(("text", f"{check.duplicated_values} distinct value(s) repeat"))
    if check.samples:
        lines.append(("mono", ", ".join(repr(v) for v in check.samples)))
    elif check.samples_note:
        lines.append(("text", f"samples {check.samples_note}"))
    return lines


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


def _in_seconds(check: CheckVerdict) -> bool:
    """Whether the check's number and threshold are seconds (plan/checks.py `Kind.in_seconds`)."""
    kind = KINDS.get(check.kind)  # a verdict folded from results made elsewhere may name a kind this version lacks
    return kind is not None and kind.in_seconds


def _number_text(value: float, check: CheckVerdict) -> str:
    """A count or value: `1,204`, `0.5`, `12.5%`."""
    text = f"{int(value):,}" if float(value).is_integer() else f"{value:,.4f}".rstrip("0").rstrip(".")
    return text + ("%" if check.unit == "percent" else "")


def _duration_text(seconds: float) -> str:
    """Seconds as `1d 2h`, their two largest units."""
    if not math.isfinite(seconds):  # no engine measures one, but a hand-made or folded verdict may hold it
        return str(seconds)
    left, parts = abs(seconds), []
    for unit, size in _UNITS:
        if left >= size and len(parts) < 2:
            parts.append(f"{int(left // size)}{unit}")
            left %= size
    return ("-" if seconds < 0 else "") + (" ".join(parts) or "0s")


def _monitor_value(value: float | None, monitor: MonitorVerdict) -> str:
    """A monitor's number: a duration in days and hours when its unit is seconds, else a count or value."""
    if value is None:
        return ""
    return _duration_text(value) if monitor.unit == "seconds" else number_text(value)


def _monitor_band(monitor: MonitorVerdict) -> str:
    return band_text(monitor, lambda bound: _monitor_value(bound, monitor))


# the verdict's `expected` text with seconds in days and hours: `<= 1d 2h`
_DURATION = replace(EXPECTED, number=_duration_text)


def _expected(check: CheckVerdict) -> Markup:
    """The threshold as the fold wrote it, escaped; a threshold in seconds (an age, a gap) written anew, in days and hours."""
    if _in_seconds(check) and check.threshold is not None:
        return escape(render(check.threshold, _DURATION, check.unit))
    return escape(check.expected or "")
