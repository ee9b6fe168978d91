"""ODCS 3.2 variables (RFC 0050): `${NAME}` and `${NAME:-default}` in string values, filled in after
YAML parsing, before anything reads the document.

Values come from the caller (`--var NAME=VALUE`, `dc_bridge.run(vars=...)`), then the environment; an
unset or empty variable takes its default; one with neither is a DCB174 error naming the file, path and
variable, and stays as written (never an empty text). As in POSIX `${NAME:-default}`, an empty value
counts as unset. Keys are never substituted, nor `context` blocks (guidance for AI tools that dc-bridge
never reads, where the standard's own examples name properties as `${name}`). The quality SQL placeholders (`${table}`, `${column}`, ...) and Soda's `${NOW}` keep their
meaning, so those names are not variables. `$${NAME}` is the text `${NAME}` itself. A value is always
text: `port: ${DB_PORT}` reads as the text `5432`, as the standard's `Port` allows.

The caller's values are passed to `load_contract(path, variables=...)`, which keeps them on its result
(`LoadResult.variables`) so that every file read for it (imports, parents) is filled in with the same.
"""

from __future__ import annotations

import os
import re
from typing import Any, Mapping

from dc_bridge.contract.reading.document import Document, format_path
from dc_bridge.contract.findings import Finding
from dc_bridge.contract.sql import PLACEHOLDERS

# `$${` (the literal text), or `${name}` / `${name:-default}`: the default is the text between `:-` and the
# closing `}`, verbatim (ODCS 3.2 docs/variables.md): any character but `}` (`:`, `/`, `$`, `{`, spaces)
_REFERENCE = re.compile(r"\$\$\{|\$\{([^{}]*?)(?::-([^}]*))?\}")
# not variables: the quality SQL placeholders of both standards and Soda's scan variable
_RESERVED = frozenset(PLACEHOLDERS) | {"now"}
_UNREAD = frozenset({"context"})
_VERSIONS = re.compile(r"^v?3\.(?:[2-9]|\d{2,})\.\d+$")


def parse_assignment(text: str) -> tuple[str, str]:
    """`NAME=VALUE` (as `--var` takes it) -> (name, value); ValueError without a name."""
    name, equals, value = text.partition("=")
    if not equals or not name.strip():
        raise ValueError(f"{text!r} is not NAME=VALUE")
    return name.strip(), value


def applies(data: Any) -> bool:
    """Variables are an ODCS 3.2 feature: earlier versions and DCS are read as written."""
    return isinstance(data, dict) and "apiVersion" in data and bool(_VERSIONS.match(str(data.get("apiVersion"))))


def resolve(document: Document, findings: list[Finding], given: Mapping[str, str]) -> None:
    """Fill in every variable of `document` in place (lines and plain texts stay), reporting unresolved ones;
    `given` (the caller's values) wins over the environment."""
    values = {**os.environ, **given}
    _walk(document, document.data, (), values, findings)


def _walk(document: Document, node: Any, path: tuple, values: Mapping[str, str], findings: list[Finding]) -> None:
    entries = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, value in list(entries):
        if isinstance(value, str) and "${" in value:
            node[key] = _fill(document, value, path + (key,), values, findings)
        elif isinstance(value, (dict, list)) and key not in _UNREAD:
            _walk(document, value, path + (key,), values, findings)


def _fill(document: Document, text: str, path: tuple, values: Mapping[str, str], findings: list[Finding]) -> str:
    def one(match: re.Match) -> str:
        if match.group(0) == "$${":
            return "${"
        name, default = match.group(1).strip(), match.group(2)
        if name.lower() in _RESERVED:
            return match.group(0)
        if default is not None and "{" in default:  # meant to hold braces: it ended at the first `}`, the rest is text
            after = text[match.end():]
            findings.append(Finding(
                "DCB176", document.file, format_path(path), f"the default of variable `{name}` ends at its first `}}`: it is "
                f"{default!r}" + (f", and {after!r} after it stays in the value as text" if after else ""), line=document.line_of(path),
                expected="a default without braces", found=repr(text)))
        if values.get(name):
            return values[name]
        if default is not None:
            return default
        findings.append(Finding(
            "DCB174", document.file, format_path(path), f"variable `{name}` is not set (or empty) and has no default", line=document.line_of(path),
            expected=f"--var {name}=VALUE or the environment variable {name}", found=repr(text),
            hint=f"Pass `--var {name}=VALUE` (`vars={{'{name}': ...}}` in dc_bridge.run), set the environment variable "
                 f"{name}, or give a default: `${{{name}:-value}}`; write `$${{{name}}}` for the text itself."))
        return match.group(0)

    return _REFERENCE.sub(one, text)
