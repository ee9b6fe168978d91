"""The console examples of the docs, read and compared for tests/test_docs_examples.py.

A doc's example is a ```console block: each `$ ` line is a command (a line ending in ` \\` goes on
to the next), the lines after it up to the next `$ ` are what the command prints. Other fenced
blocks the examples need are files:

- a block right after a line that ends with a file name in backticks and a colon
  (`` `contract.yaml`: ``, `` A team's own scan, `/tmp/docrun/run_scan.py`: ``) is written to that
  file before the examples after it run (an excerpt says so otherwise: `` (from `orders.yaml`): ``);
- a ```diff block with `--- OLD` / `+++ NEW` headers writes NEW: OLD with the diff applied.

`<!-- not run: REASON -->` on the line before a ```console block keeps it out of the run (a service
nobody has on a laptop); the reason is the docs' promise that nothing else is skipped.

Placeholders, the only difference allowed between a doc and the real output:

- a line that is `...` alone stands for any number of lines, none included;
- `...` inside a line stands for any text within that line (times, durations, absolute paths, run ids).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ELLIPSIS = "..."

_FENCE = re.compile(r"^```(\w*)\s*$")
_FILE_INTRO = re.compile(r"`([\w./-]+\.(?:yaml|yml|json|jsonl|csv|py|toml|txt))`(?: \(linted\))?:\s*$")
_NOT_RUN = re.compile(r"^<!-- not run: (.+?) -->$")


def doc_files() -> list[Path]:
    """README.md, docs/*.md and contracts/README.md: every page a user reads examples on."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "contracts" / "README.md"]


@dataclass
class Step:
    """One `$ ` command of an example and the output the doc shows under it (lines 1-based)."""
    command: str
    expected: list[str]
    line: int
    output_line: int  # the first line of the shown output (where a refresh writes it)


@dataclass
class Example:
    """A ```console block."""
    doc: Path
    line: int
    steps: list[Step] = field(default_factory=list)
    not_run: str | None = None


@dataclass
class DocFile:
    """A fenced block an example needs, written before the examples after it run."""
    doc: Path
    line: int
    name: str
    text: str
    patch_of: str | None = None  # a diff: the file it applies to; `name` is what it writes


def read(doc: Path) -> list[Example | DocFile]:
    """A doc's examples and files, in the order the doc shows them."""
    lines = doc.read_text(encoding="utf-8").split("\n")
    items: list[Example | DocFile] = []
    i = 0
    while i < len(lines):
        fence = _FENCE.match(lines[i])
        if not fence:
            i += 1
            continue
        end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
        body = lines[i + 1:end]
        before = next((lines[j] for j in range(i - 1, -1, -1) if lines[j].strip()), "")
        if fence.group(1) == "console":
            items.append(_example(doc, i + 1, body, _NOT_RUN.match(before)))
        elif fence.group(1) == "diff" and len(body) > 2 and body[0].startswith("--- ") and body[1].startswith("+++ "):
            items.append(DocFile(doc, i + 1, body[1][4:].strip(), "\n".join(body) + "\n", patch_of=body[0][4:].strip()))
        elif (intro := _FILE_INTRO.search(before)):
            items.append(DocFile(doc, i + 1, intro.group(1), "\n".join(body) + "\n"))
        i = end + 1
    return items


def _example(doc: Path, fence_line: int, body: list[str], not_run) -> Example:
    example = Example(doc, fence_line, not_run=not_run.group(1) if not_run else None)
    k = 0
    while k < len(body):
        if not body[k].startswith("$ "):
            raise ValueError(f"{doc.name}:{fence_line + 1 + k}: a console block's output must follow a `$ ` command")
        start = k
        command = body[k][2:]
        while command.endswith("\\") and k + 1 < len(body):
            k += 1
            command = command[:-1] + body[k].strip()
        k += 1
        output_start = k
        while k < len(body) and not body[k].startswith("$ "):
            k += 1
        example.steps.append(Step(command.strip(), body[output_start:k], fence_line + 1 + start, fence_line + 1 + output_start))
    return example


def _line_matches(pattern: str, line: str) -> bool:
    if ELLIPSIS not in pattern:
        return pattern == line
    parts = [re.escape(p) for p in pattern.split(ELLIPSIS)]
    return re.fullmatch(".*?".join(parts), line) is not None


def matches(pattern: list[str], actual: list[str]) -> bool:
    """Whether `actual` is what `pattern` shows, placeholders allowed."""
    return _alignment(pattern, actual)[0] == 0


def refreshed(pattern: list[str], actual: list[str]) -> list[str]:
    """The output to show for `actual`, keeping the doc's placeholders: lines that still match stay as
    the doc wrote them (with their `...`), a `...` line keeps standing for the lines it covers, and
    everything else is the real output."""
    return _alignment(pattern, actual)[1]


# an edit that drops a line the doc shows costs a little more than changing it, so a changed line
# is shown changed rather than swallowed by a neighbouring `...`
_CHANGE, _ADD, _DROP = 1.0, 1.0, 1.01


def _alignment(pattern: list[str], actual: list[str]) -> tuple[float, list[str]]:
    """(cost, refreshed lines) of the cheapest alignment of the doc's lines with the real ones."""
    n, m = len(pattern), len(actual)
    inf = float("inf")
    cost = [[inf] * (m + 1) for _ in range(n + 1)]
    move = [[None] * (m + 1) for _ in range(n + 1)]
    cost[0][0] = 0.0
    for i in range(n + 1):
        for j in range(m + 1):
            here = cost[i][j]
            if here == inf:
                continue
            options = []
            if i < n and pattern[i] == ELLIPSIS:
                options.append((i + 1, j, 0.0, "skip"))  # `...` covers no (more) lines
                if j < m:
                    options.append((i, j + 1, 0.0, "cover"))
            elif i < n:
                if j < m:
                    same = _line_matches(pattern[i], actual[j])
                    options.append((i + 1, j + 1, 0.0 if same else _CHANGE, "keep" if same else "change"))
                options.append((i + 1, j, _DROP, "drop"))
            if j < m:
                options.append((i, j + 1, _ADD, "add"))
            for ni, nj, step, name in options:
                if here + step < cost[ni][nj]:
                    cost[ni][nj] = here + step
                    move[ni][nj] = (i, j, name)
    out: list[str] = []
    i, j = n, m
    while (i, j) != (0, 0):
        pi, pj, name = move[i][j]
        if name == "keep":
            out.append(pattern[pi])
        elif name in ("change", "add"):
            out.append(actual[pj])
        elif name == "skip":
            out.append(ELLIPSIS)
        # "cover" lines are the `...` line's, emitted once by its "skip"; "drop" emits nothing
        i, j = pi, pj
    return cost[n][m], out[::-1]


def rewrite(doc: Path, refreshed_steps: dict[int, tuple[int, list[str]]]) -> None:
    """Replace the shown output of steps (by the line of their output: (lines shown now, new lines))."""
    lines = doc.read_text(encoding="utf-8").split("\n")
    for start in sorted(refreshed_steps, reverse=True):
        count, new = refreshed_steps[start]
        lines[start - 1:start - 1 + count] = new
    doc.write_text("\n".join(lines), encoding="utf-8")
