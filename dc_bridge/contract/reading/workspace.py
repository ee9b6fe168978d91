"""The files one contract load reads, and the references (`$ref`, ODCS `imports`) between them.

The normalisers (dcs.py, odcs.py) resolve references through it; load.py starts one per load.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from dc_bridge.contract.reading import variables
from dc_bridge.contract.reading.document import MAX_NESTING, Document, format_path, read_document
from dc_bridge.contract.findings import FatalFinding, Finding


class Workspace:
    """The files one load touches: read once, cached, with cycle detection for `$ref` and `imports`."""

    def __init__(self, findings: list[Finding], variables: Mapping[str, str] | None = None, given: Document | None = None):
        self.findings = findings
        # a file's Document its writer made as it wrote the file (importing/written.py): read as if read from it
        self._given = {str(Path(given.file).resolve()): given} if given is not None else {}
        # the caller's values of ODCS 3.2 `${NAME}` variables, for every file of the load (variables.py)
        self.variables: Mapping[str, str] = dict(variables or {})
        self.documents: dict[str, Document | None] = {}
        # where each `$ref` or import led: (document, path of the node, what it is read as: `field`
        # (DCS), `quality`, `properties`, `schema` (ODCS)); lint checks the keys of those in other files
        self.definitions: list[tuple[Document, tuple, str]] = []
        self._stack: list[str] = []
        self._cycles: set[frozenset[str]] = set()  # each cycle is reported once, wherever it is entered again

    def document(self, file: str, *, referenced_from: tuple[str, str, int | None] | None = None) -> Document | None:
        key = str(Path(file).resolve())
        if key not in self.documents:
            try:
                self.documents[key] = self._given.pop(key, None) or read_document(file)
            except FatalFinding as fatal:
                finding = fatal.finding
                if referenced_from and finding.code == "DCB001":
                    ref_file, ref_path, ref_line = referenced_from
                    finding = Finding("DCB121", ref_file, ref_path, f"referenced file {file} does not exist",
                                      line=ref_line, expected="an existing file", found=file)
                self.findings.append(finding)
                self.documents[key] = None
            else:
                document = self.documents[key]
                if variables.applies(document.data):
                    variables.resolve(document, self.findings, self.variables)
                for key_name, line in document.duplicate_keys:
                    path = format_path(document.path_of_key(key_name, line))
                    self.findings.append(Finding("DCB003", file, path, f"key `{key_name}` appears twice in the same mapping",
                                                 line=line, expected="unique keys", found=f"a second `{key_name}`"))
        return self.documents[key]

    def enter(self, target: str, where: Finding) -> bool:
        """Push `target` (file#fragment) on the resolution stack; report a cycle and refuse if it is there."""
        if len(self._stack) > MAX_NESTING:  # a chain of thousands of `$ref`s would exhaust Python's stack
            if not any(f.code == "DCB006" and f.file == where.file for f in self.findings):
                self.findings.append(Finding("DCB006", where.file, where.path, f"references nest deeper than {MAX_NESTING} levels",
                                             line=where.line, expected=f"at most {MAX_NESTING} nested references",
                                             found=" -> ".join(self._stack[-3:]) + " -> ..."))
            return False
        if target in self._stack:
            cycle = self._stack[self._stack.index(target):] + [target]
            if frozenset(cycle) in self._cycles:
                return False
            self._cycles.add(frozenset(cycle))
            self.findings.append(Finding("DCB122", where.file, where.path, "cycle: " + " -> ".join(cycle), line=where.line,
                                         expected="no cycle", found=" -> ".join(cycle)))
            return False
        self._stack.append(target)
        return True

    def leave(self) -> None:
        self._stack.pop()


def split_reference(reference: str, base_file: str) -> tuple[str, str]:
    """`other.yaml#fragment` -> (path of other.yaml relative to the referencing file, fragment)."""
    file_part, _, fragment = reference.partition("#")
    file = str(Path(base_file).parent / file_part) if file_part else base_file
    return file, fragment


def navigate_pointer(data: Any, pointer: str) -> tuple[Any, tuple] | None:
    """Follow a JSON pointer (`/definitions/order_id`); None when it leads nowhere."""
    node, path = data, ()
    for raw in [p for p in pointer.split("/") if p]:
        step: Any = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, list) and step.isdigit():
            step = int(step)
        if isinstance(node, dict) and step in node or isinstance(node, list) and isinstance(step, int) and step < len(node):
            node, path = node[step], path + (step,)
        else:
            return None
    return node, path
