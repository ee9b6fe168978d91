"""docs/architecture.md names every module of dc_bridge, and every module or folder it names exists.

The rule for naming: a module is named when the page holds its path under dc_bridge/, or a tail of that
path (`reading/load.py`, `gx/run.py`) that no other module shares, so a bare `run.py` names none of the
three. An `__init__.py` that is only a docstring is its folder, described as a whole (`plan/`), and need
not be named; one with code (`cli/__init__.py`, `gx/__init__.py`) must be. Paths outside the package
(tests/, docs/, bench/, the compiled-file folders) are not checked. No Spark.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "dc_bridge"
DOC = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")

# folders that are not dc_bridge's: other parts of the repository and the compile output
_OUTSIDE = ("tests/", "docs/", "bench/", "contracts/", "expectation_suites/", "soda_checks/", "report.html")
# path-like text: folders ending in `/`, optionally a module file; `<name>` placeholders are skipped
_PATH = re.compile(r"(?<![\w./<>-])((?:[A-Za-z_][\w]*/)+(?:[A-Za-z_]\w*\.(?:py|java))?)(?![\w<>])|(?<![\w./<>-])([A-Za-z_]\w*\.py)\b")


def _modules() -> list[str]:
    return sorted(p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.py"))


def _only_docstring(path: str) -> bool:
    body = ast.parse((PACKAGE / path).read_text(encoding="utf-8")).body
    return all(isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) for node in body)


def _references() -> set[str]:
    found = set()
    for folder_or_module, module in _PATH.findall(DOC):
        text = (folder_or_module or module).removeprefix("dc_bridge/")
        if text and not text.startswith(_OUTSIDE):
            found.add(text)
    return found


def _tails(path: str) -> list[str]:
    parts = path.split("/")
    return ["/".join(parts[i:]) for i in range(len(parts))]


def test_every_module_is_named_in_the_architecture_page():
    modules = _modules()
    refs = _references()
    owners: dict[str, list[str]] = {}
    for module in modules:
        for tail in _tails(module):
            owners.setdefault(tail, []).append(module)
    # `dc_bridge/__init__.py` is exactly that file; any other text names the one module it is the tail of
    named = {ref for ref in refs if ref in modules and f"dc_bridge/{ref}" in DOC}
    named |= {owners[ref][0] for ref in refs if len(owners.get(ref, [])) == 1}
    wanted = [m for m in modules if not (m.endswith("__init__.py") and "/" in m and _only_docstring(m))]
    missing = [m for m in wanted if m not in named]
    assert missing == [], f"modules docs/architecture.md does not name (add a row): {missing}"


def test_every_path_the_architecture_page_names_exists():
    files = {p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*") if p.is_file()}
    folders = {p.relative_to(PACKAGE).as_posix() + "/" for p in PACKAGE.rglob("*") if p.is_dir()}
    stale = [ref for ref in sorted(_references())
             if not any(t == ref or t.endswith("/" + ref) or ("/" + t).endswith("/" + ref) for t in (folders if ref.endswith("/") else files))]
    assert stale == [], f"docs/architecture.md names what dc_bridge/ does not hold: {stale}"
