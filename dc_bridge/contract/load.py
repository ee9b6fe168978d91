"""Load a contract file: read it (and every file it references), detect the standard, normalise.

`load_contract` never raises for bad input: it returns the findings, and a `Contract` only when no
finding stops one from being built.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dc_bridge.contract.document import MAX_NESTING, Document, format_path, read_document
from dc_bridge.contract.model import Contract
from dc_bridge.contract.findings import FatalFinding, Finding

DCS_VERSIONS = re.compile(r"^1\.[0-2]\.\d+$")
ODCS_VERSIONS = re.compile(r"^v?3\.[0-2]\.\d+$")


@dataclass
class LoadResult:
    file: str
    contract: Contract | None
    findings: list[Finding]
    # "dcs", "odcs", "library" (a shared quality-rule file) or None when unknown
    kind: str | None = None
    documents: list[Document] = field(default_factory=list)

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.level == "error"]


class Workspace:
    """The files one load touches: read once, cached, with cycle detection for `$ref` and `imports`."""

    def __init__(self, findings: list[Finding]):
        self.findings = findings
        self.documents: dict[str, Document | None] = {}
        self._stack: list[str] = []
        self._cycles: set[frozenset[str]] = set()  # each cycle is reported once, wherever it is entered again

    def document(self, file: str, *, referenced_from: tuple[str, str, int | None] | None = None) -> Document | None:
        key = str(Path(file).resolve())
        if key not in self.documents:
            try:
                self.documents[key] = read_document(file)
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


def detect_format(document: Document, findings: list[Finding]) -> tuple[str, str] | None:
    """("dcs" | "odcs" | "library", spec version) or None with a finding."""
    data, file = document.data, document.file
    if data is None or (isinstance(data, str) and not data.strip()):
        findings.append(Finding("DCB004", file, "", f"{file} is empty", expected="a contract mapping", found="an empty file"))
        return None
    if not isinstance(data, dict):
        found = "a list" if isinstance(data, list) else f"a {type(data).__name__} value"
        findings.append(Finding("DCB004", file, "", f"{file} holds {found}, not a contract mapping", line=getattr(data, "line", 1),
                                expected="a mapping with dataContractSpecification or apiVersion", found=found))
        return None
    if "dataContractSpecification" in data:
        version = str(data["dataContractSpecification"])
        if not DCS_VERSIONS.match(version):
            findings.append(Finding("DCB005", file, "dataContractSpecification", f"DCS version {version} is not supported",
                                    line=document.line_of(("dataContractSpecification",)), expected="1.0.x, 1.1.x or 1.2.x", found=version))
            return None
        return "dcs", version
    if "apiVersion" in data or data.get("kind") == "DataContract":
        version = str(data.get("apiVersion", ""))
        if not ODCS_VERSIONS.match(version):
            findings.append(Finding("DCB005", file, "apiVersion", f"ODCS apiVersion {version or '(missing)'} is not supported",
                                    line=document.line_of(("apiVersion",)), expected="v3.0.x, v3.1.x or v3.2.x", found=version or "nothing"))
            return None
        if "schema" not in data and isinstance(data.get("quality"), list):
            return "library", version
        return "odcs", version
    findings.append(Finding("DCB004", file, "", f"{file} is neither a DCS nor an ODCS contract",
                            line=getattr(data, "line", 1), expected="`dataContractSpecification:` (DCS) or `apiVersion:` + `kind: DataContract` (ODCS)",
                            found="keys " + ", ".join(map(str, list(data)[:5]))))
    return None


def load_contract(path: str | Path) -> LoadResult:
    """Load and normalise one contract file."""
    from dc_bridge.contract import dcs, odcs  # the normalisers import this module's helpers

    file = str(path)
    findings: list[Finding] = []
    workspace = Workspace(findings)
    document = workspace.document(file)
    if document is None:
        return LoadResult(file, None, findings)
    detected = detect_format(document, findings)
    if detected is None:
        return LoadResult(file, None, findings, documents=[document])
    kind, version = detected
    normalise = {"dcs": dcs.read_contract, "odcs": odcs.read_contract, "library": odcs.read_library}[kind]
    workspace.enter(str(Path(file).resolve()) + "#", Finding("DCB122", file, "", ""))
    contract = normalise(document, version, workspace)
    documents = [d for d in workspace.documents.values() if d is not None]
    return LoadResult(file, contract, findings, kind=kind, documents=documents)


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


__all__ = ["LoadResult", "Workspace", "load_contract", "split_reference", "navigate_pointer", "format_path"]
