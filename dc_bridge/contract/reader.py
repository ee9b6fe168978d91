"""Typed access to a parsed document that turns every wrong value into a finding, not an exception.

The DCS and ODCS normalisers read values only through `Reader`, so a wrong type anywhere becomes a
DCB101 finding with the file, path, line, what was expected and what was found.
"""

from __future__ import annotations

from typing import Any

from dc_bridge.contract.document import Document, format_path
from dc_bridge.contract.model import Source
from dc_bridge.contract.findings import Finding

# expected-type name -> (python types, phrase for messages); bool is excluded from numbers on purpose
_KINDS: dict[str, tuple[tuple[type, ...], str]] = {
    "string": ((str,), "a string"),
    "boolean": ((bool,), "true or false"),
    "integer": ((int,), "an integer"),
    "number": ((int, float), "a number"),
    "list": ((list,), "a list"),
    "mapping": ((dict,), "a mapping"),
    "scalar": ((str, int, float, bool), "a string or number"),
}


def describe(value: Any) -> str:
    """A short phrase for a found value, for `found:` in messages."""
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    text = repr(value) if isinstance(value, str) else str(value)
    return (text[:60] + "...") if len(text) > 60 else text


def is_kind(value: Any, kind: str) -> bool:
    types, _ = _KINDS[kind]
    if isinstance(value, bool) and bool not in types:
        return False
    return isinstance(value, types)


class Reader:
    """Reads one document; collects findings."""

    def __init__(self, document: Document, findings: list[Finding]):
        self.document = document
        self.findings = findings

    @property
    def file(self) -> str:
        return self.document.file

    def source(self, path: tuple) -> Source:
        return Source(file=self.file, path=format_path(path), line=self.document.line_of(path))

    def report(self, code: str, path: tuple, message: str, *, expected: str | None = None, found: str | None = None,
               hint: str | None = None, severity: str | None = None) -> None:
        self.findings.append(
            Finding(code, self.file, format_path(path), message, line=self.document.line_of(path),
                    expected=expected, found=found, hint=hint, severity=severity)
        )

    def get(self, node: dict, key: str, path: tuple, kind: str, default: Any = None) -> Any:
        """`node[key]` if it has the expected kind; otherwise report DCB101 and return the default."""
        if not isinstance(node, dict) or key not in node or node[key] is None:
            return default
        value = node[key]
        if kind == "number" and isinstance(value, str):
            # `6,500,000,000` and `"10"` are common; accept what is plainly a number, report the rest
            try:
                return _to_number(value)
            except ValueError:
                pass
        if is_kind(value, kind):
            return value
        phrase = _KINDS[kind][1]
        self.report("DCB101", path + (key,), f"`{key}` must be {phrase}", expected=phrase, found=describe(value))
        return default

    def mapping(self, node: dict, key: str, path: tuple) -> dict:
        return self.get(node, key, path, "mapping", {})

    def items(self, node: dict, key: str, path: tuple) -> list[tuple[tuple, dict]]:
        """The mapping items of a list, with their paths; non-mapping items are reported and skipped."""
        result = []
        for index, item in enumerate(self.get(node, key, path, "list", [])):
            item_path = path + (key, index)
            if isinstance(item, dict):
                result.append((item_path, item))
            else:
                self.report("DCB101", item_path, f"each item of `{key}` must be a mapping", expected="a mapping", found=describe(item))
        return result

    def require(self, node: dict, key: str, path: tuple, kind: str, what: str) -> Any:
        if not isinstance(node, dict) or node.get(key) is None:
            self.report("DCB102", path, f"{what} has no `{key}`", expected=f"`{key}`", found="nothing")
            return None
        return self.get(node, key, path, kind)


def _to_number(text: str) -> int | float:
    cleaned = text.replace(",", "").replace("_", "").strip()
    try:
        return int(cleaned)
    except ValueError:
        return float(cleaned)
