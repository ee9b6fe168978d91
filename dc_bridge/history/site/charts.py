"""A check's observed value over the runs of the window, drawn by matplotlib as SVG text to inline in
a page: no file, no font or script fetched when the page opens (text stays text, `svg.fonttype`
none; no metadata, whose RDF names URLs; no XML namespace declarations, which HTML's parser does not need)."""

from __future__ import annotations

import io
import re

# the SVG header and namespace declarations matplotlib writes: a standalone file needs them, an inline one does not
_STANDALONE = re.compile(r'<\?xml[^>]*>\s*|<!DOCTYPE[^>]*>\s*|\s+xmlns(:\w+)?="[^"]*"')
# outcome -> marker colour; failures also get a different marker shape, so colour is not the only sign
_MARKERS = {"passed": ("#2e7d32", "o"), "warning": ("#ef6c00", "s"), "failed": ("#c62828", "X"), "error": ("#6a1b9a", "X")}


def _as_text(title: str) -> str:
    """A title matplotlib draws as written: a pair of `$` would start its math mode (a column `pri$ce$`)."""
    return title.replace("$", r"\$")


def observed_svg(title: str, points: list[tuple[str, float, str]]) -> str:
    """An inline SVG line chart of (run time, observed, outcome), oldest first."""
    from matplotlib import rc_context
    from matplotlib.figure import Figure

    # one font named (DejaVu Sans ships with matplotlib), not matplotlib's list of fallbacks on every label
    with rc_context({"svg.fonttype": "none", "svg.hashsalt": "dc-bridge", "font.size": 7, "font.sans-serif": ["DejaVu Sans"]}):
        figure = Figure(figsize=(4.2, 1.3), dpi=72)
        axes = figure.subplots()
        positions = list(range(len(points)))
        axes.plot(positions, [value for _, value, _ in points], color="#607d8b", linewidth=1)
        for outcome, (colour, marker) in _MARKERS.items():
            chosen = [(x, value) for x, (_, value, seen) in zip(positions, points) if seen == outcome]
            if chosen:
                axes.scatter(*zip(*chosen), color=colour, marker=marker, s=14, zorder=3, label=outcome)
        axes.set_title(_as_text(title), fontsize=7, loc="left")
        axes.set_xticks([positions[0], positions[-1]], [points[0][0][:10], points[-1][0][:10]])
        axes.spines[["top", "right"]].set_visible(False)
        figure.tight_layout(pad=0.3, rect=(0.025, 0, 1, 1))  # room for tick labels in a browser font wider than DejaVu
        buffer = io.StringIO()
        figure.savefig(buffer, format="svg", metadata={"Creator": None, "Date": None, "Format": None, "Type": None})
    return _STANDALONE.sub("", buffer.getvalue())
