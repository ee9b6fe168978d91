"""Load a contract file: read it (and every file it references), detect the standard, normalise.

`load_contract` never raises for bad input: it returns the findings, and a `Contract` only when no
finding stops one from being built.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from dc_bridge.contract.reading import dcs
from dc_bridge.contract.reading import odcs
from dc_bridge.contract.reading.document import Document
from dc_bridge.contract.model import Contract
from dc_bridge.contract.findings import Finding
from dc_bridge.contract.reading.workspace import Workspace

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
    # the nodes `$ref`s and imports led to: (document, path, what it is read as), for lint's check of their keys
    definitions: list[tuple[Document, tuple, str]] = field(default_factory=list)
    # the caller's variable values the files were read with: a parent contract is read with the same
    variables: Mapping[str, str] = field(default_factory=dict)

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.level == "error"]


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


def load_contract(path: str | Path, variables: Mapping[str, str] | None = None, document: Document | None = None) -> LoadResult:
    """Load and normalise one contract file; `variables`: values of ODCS 3.2 `${NAME}` variables
    (`--var`, `vars=`), before the environment (variables.py). `document`: the file as its writer knows it
    (importing/written.py), read instead of the file."""
    file = str(path)
    findings: list[Finding] = []
    workspace = Workspace(findings, variables, given=document)
    document = workspace.document(file)
    if document is None:
        return LoadResult(file, None, findings, variables=workspace.variables)
    detected = detect_format(document, findings)
    if detected is None:
        return LoadResult(file, None, findings, documents=[document], variables=workspace.variables)
    kind, version = detected
    normalise = {"dcs": dcs.read_contract, "odcs": odcs.read_contract, "library": odcs.read_library}[kind]
    workspace.enter(str(Path(file).resolve()) + "#", Finding("DCB122", file, "", ""))
    contract = normalise(document, version, workspace)
    documents = [d for d in workspace.documents.values() if d is not None]
    return LoadResult(file, contract, findings, kind=kind, documents=documents, definitions=workspace.definitions,
                      variables=workspace.variables)


__all__ = ["LoadResult", "load_contract"]
