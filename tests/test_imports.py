"""The package's import graph has no cycle and only imports downwards through the pipeline's layers.

Every module is read with `ast` (nothing is imported, no Spark): each `import` and `from ... import`,
at module level or inside a function, is an edge to the dc_bridge module it names.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "dc_bridge"

# lowest first; a module may import from its own layer or a lower one
LAYERS: list[set[str]] = [
    {"dc_bridge.outcomes", "dc_bridge.config", "dc_bridge.paths", "dc_bridge.extras", "dc_bridge.deadline", "dc_bridge.contract"},
    {"dc_bridge.plan"},
    {"dc_bridge.engines"},
    {"dc_bridge.compiler"},
    # monitors are pure (no engine, no store): the verdict carries what they said
    {"dc_bridge.monitors"},
    {"dc_bridge.verdict"},
    {"dc_bridge.report"},
    # the history store reads runner/history.py's records; the runner will write through it (same layer, no cycle)
    {"dc_bridge.runner", "dc_bridge.history"},
    {"dc_bridge.catalog", "dc_bridge.generate"},
    # import reads other tools' checks into the contract model and lays them out as init's generation does
    {"dc_bridge.enforce", "dc_bridge.importing"},
    # dc_bridge.airflow and dc_bridge.dagster: integrations with an orchestrator, importable by their own short names
    # (the `airflow` and `dagster` extras); dc_bridge.dagster is the public name of integrations/dagster.py
    {"dc_bridge.integrations", "dc_bridge.airflow", "dc_bridge.dagster"},
    {"dc_bridge.cli"},
]
# the package root holds only `__version__` and lazy `__getattr__` imports: anyone may import it, it
# may import anything inside a function
ROOT = "dc_bridge"


def module_name(file: Path) -> str:
    parts = file.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES: dict[str, Path] = {module_name(f): f for f in sorted(PACKAGE.rglob("*.py"))}


def imported_modules(name: str, node: ast.Import | ast.ImportFrom) -> list[str]:
    """The dc_bridge modules one import statement of module `name` loads."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names if alias.name in MODULES]
    base = node.module or ""
    if node.level:  # relative: resolved against the importing module's package
        package = name if MODULES[name].name == "__init__.py" else name.rpartition(".")[0]
        anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
        base = ".".join(anchor + ([base] if base else []))
    if base not in MODULES:
        return []
    # `from package import module` names a module; `from module import name` names the module itself
    return sorted({f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base for alias in node.names})


@cache  # parsed once for all the tests below
def graph() -> tuple[dict[str, set[str]], list[tuple[str, str, int]]]:
    """Module -> the modules it imports, and the root's imports that run at module level."""
    edges: dict[str, set[str]] = {name: set() for name in MODULES}
    eager_root_imports: list[tuple[str, str, int]] = []
    for name, file in MODULES.items():
        tree = ast.parse(file.read_text(encoding="utf-8"), filename=str(file))
        module_level = {id(statement) for statement in tree.body}
        for node in ast.walk(tree):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            for target in imported_modules(name, node):
                if name == ROOT:
                    if id(node) in module_level:
                        eager_root_imports.append((name, target, node.lineno))
                    continue  # the root's lazy imports are not edges: they run after every module is loaded
                if target != name:
                    edges[name].add(target)
    return edges, eager_root_imports


def layer(name: str) -> int | None:
    for index, members in enumerate(LAYERS):
        if any(name == m or name.startswith(m + ".") for m in members):
            return index
    return None


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """One cycle (as a path that returns to its start) per strongly connected component (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(edges[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(component)

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return [shortest_cycle(min(component), component, edges) for component in components]


def shortest_cycle(start: str, component: set[str], edges: dict[str, set[str]]) -> list[str]:
    """Breadth-first from `start` back to itself, staying inside its component."""
    previous: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for target in sorted(edges[node] & component):
                if target == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(previous[path[-1]])
                    return path[::-1] + [start]
                if target not in previous:
                    previous[target] = node
                    following.append(target)
        frontier = following
    raise AssertionError(f"{start} is in a component without a cycle")


def test_every_module_belongs_to_a_layer():
    assert [name for name in MODULES if name != ROOT and layer(name) is None] == []


def test_the_package_root_imports_only_lazily():
    assert graph()[1] == []


def test_no_import_cycle():
    found = cycles(graph()[0])
    assert found == [], "import cycles:\n" + "\n".join(" -> ".join(cycle) for cycle in found)


def test_no_import_from_a_higher_layer():
    upward = sorted(f"{name} -> {target}" for name, targets in graph()[0].items() for target in targets
                    if target != ROOT and None not in (layer(name), layer(target)) and layer(target) > layer(name))
    assert upward == [], "imports from a higher layer:\n" + "\n".join(upward)


def test_imports_are_resolved_as_python_resolves_them():
    def targets(name: str, source: str) -> list[str]:
        return [target for node in ast.walk(ast.parse(source)) if isinstance(node, (ast.Import, ast.ImportFrom))
                for target in imported_modules(name, node)]

    assert targets("dc_bridge.contract.reading.load", "from . import dcs\nfrom ..model import Contract\nfrom ... import outcomes") == [
        "dc_bridge.contract.reading.dcs", "dc_bridge.contract.model", "dc_bridge.outcomes"]
    assert targets("dc_bridge.contract", "from .types import SPARK_TYPES") == ["dc_bridge.contract.types"]
    assert targets("dc_bridge.runner.pipeline", "def f():\n    import dc_bridge.report.html\n    from dc_bridge.plan import checks, build\n"
                   "    import json\n    from dc_bridge import __version__") == [
        "dc_bridge.report.html", "dc_bridge.plan.build", "dc_bridge.plan.checks", "dc_bridge"]


def namespaces_read(name: str, node: ast.ImportFrom) -> list[str]:
    """The package whose `__init__` a `from package import x` runs and reads `x` from: an edge beside
    the submodule `x` itself (`from dc_bridge.cli import outputs` runs cli/__init__.py first)."""
    if not isinstance(node, ast.ImportFrom):
        return []
    targets = imported_modules(name, ast.ImportFrom(module=node.module, names=[ast.alias(name="_")], level=node.level))
    return [target for target in targets if MODULES[target].name == "__init__.py" and target != ROOT]


@cache
def full_graph() -> dict[str, set[str]]:
    """`graph()` plus, for every `from package import ...`, the package itself: a package whose
    `__init__` imports a module that imports from that package again is a cycle too."""
    edges = {name: set(targets) for name, targets in graph()[0].items()}
    for name, file in MODULES.items():
        if name == ROOT:
            continue
        for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"), filename=str(file))):
            if isinstance(node, ast.ImportFrom):
                edges[name].update(target for target in namespaces_read(name, node) if target != name)
    return edges


def test_no_import_cycle_through_a_package_namespace():
    found = cycles(full_graph())
    assert found == [], "import cycles:\n" + "\n".join(" -> ".join(cycle) for cycle in found)


# the engines, each a folder that the rest of dc_bridge enters only through its package (`ENGINE` and
# what its __init__.py exports)
ENGINE_FOLDERS = sorted(name for name in MODULES if name.startswith("dc_bridge.engines.") and MODULES[name].name == "__init__.py")


def test_an_engine_is_entered_only_through_its_package():
    assert {"dc_bridge.engines.gx", "dc_bridge.engines.soda", "dc_bridge.engines.native"} <= set(ENGINE_FOLDERS)
    inside = sorted(f"{name} -> {target}" for name, targets in full_graph().items() for target in targets
                    for folder in ENGINE_FOLDERS
                    if target.startswith(folder + ".") and not (name == folder or name.startswith(folder + ".")))
    assert inside == [], "imports of an engine's modules from outside its folder (import its package's exports):\n" + "\n".join(inside)


def test_namespace_edges_name_the_package_a_from_import_runs():
    def targets(name: str, source: str) -> list[str]:
        return [target for node in ast.walk(ast.parse(source)) for target in namespaces_read(name, node)]

    assert targets("dc_bridge.cli.evolution", "from dc_bridge.cli import outputs") == ["dc_bridge.cli"]
    assert targets("dc_bridge.cli.evolution", "from dc_bridge.cli.outputs import write_text") == []
    assert targets("dc_bridge.engines.registry", "from dc_bridge.engines import gx") == ["dc_bridge.engines"]
    assert targets("dc_bridge.contract.reading.load", "from . import dcs\nfrom dc_bridge import __version__") == ["dc_bridge.contract.reading"]
