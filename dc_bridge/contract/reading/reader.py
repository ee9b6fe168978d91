"""Typed access to a parsed document that turns every wrong value into a finding, not an exception.

The DCS and ODCS normalisers read values only through `Reader`, so a wrong type anywhere becomes a
DCB101 finding with the file, path, line, what was expected and what was found.
"""

from __future__ import annotations

from typing import Any

from dc_bridge.contract.reading.document import Document, format_path
from dc_bridge.contract.model import Source
from dc_bridge.contract.findings import Finding
from dc_bridge.contract.types import NUMERIC_TYPES, STRING_TYPES

# expected-type name -> (python types, phrase for messages); bool is excluded from numbers on purpose
_KINDS: dict[str, tuple[tuple[type, ...], str]] = {
    "string": ((str,), "a string"),
    "boolean": ((bool,), "true or false"),
    "integer": ((int,), "an integer"),
    "number": ((int, float), "a number"),
    "list": ((list,), "a list"),
    "mapping": ((dict,), "a mapping"),
    "scalar": ((str, int, float, bool), "a string or number"),
    # a field's minimum/maximum: a number, or text (a date, or a decimal quoted to keep its digits); never a boolean
    "bound": ((str, int, float), "a number (or a date for a date field)"),
}


def plain_text(container: Any, key: Any) -> str | None:
    """The text of an unquoted YAML scalar that YAML read as something other than text (`NO` -> false), or None."""
    texts = getattr(container, "plain_texts", None)
    return texts.get(key) if texts else None


def _yaml11_number(value: Any, text: str | None) -> bool:
    """An integer YAML 1.1 read from octal (`010` is 8) or base 60 (`1:20` is 80): never what was meant."""
    if not isinstance(value, int) or isinstance(value, bool) or text is None:
        return False
    digits = text.lstrip("+-")
    return ":" in digits or (len(digits) > 1 and digits[0] == "0" and digits[1:2].isdigit())


def describe_type(value: Any, text: str | None) -> str:
    """What YAML made of a plain scalar, naming the YAML 1.1 rule where one applies."""
    if isinstance(value, bool):
        spelled = (text or "").lower()
        rule = " (YAML 1.1 reads yes/no/on/off as booleans)" if spelled not in ("true", "false") else ""
        return f"the boolean {str(value).lower()}{rule}"
    if isinstance(value, int) and text is not None:
        digits = text.lstrip("+-")
        if ":" in digits:
            return f"the number {value} (YAML 1.1 reads a:b as base 60)"
        if len(digits) > 1 and digits[0] == "0" and digits[1:2].isdigit():
            return f"the number {value} (YAML 1.1 reads a leading 0 as octal)"
    if isinstance(value, (int, float)):
        return f"the number {value}"
    return describe(value)


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

    def values(self, node: dict, table: dict[str, tuple[str, str]], path: tuple) -> dict[str, Any]:
        """Each key of `table` (key -> (attribute, kind)) that `node` holds, read as `get` reads it, by attribute."""
        found = {}
        for key, (attribute, kind) in table.items():
            value = self.get(node, key, path, kind)
            if value is not None:
                found[attribute] = value
        return found

    def get(self, node: dict, key: str, path: tuple, kind: str, default: Any = None) -> Any:
        """`node[key]` if it has the expected kind; otherwise report DCB101 and return the default."""
        if not isinstance(node, dict) or key not in node or node[key] is None:
            return default
        value = node[key]
        if is_kind(value, kind):
            if _yaml11_number(value, plain_text(node, key)):
                self.report("DCB105", path + (key,), f"YAML reads `{key}: {plain_text(node, key)}` as {describe_type(value, plain_text(node, key))}",
                            expected="a number written in decimal (or quoted text)", found=describe(value))
                return default
            return value
        phrase = _KINDS[kind][1]
        hint = None
        if kind in ("number", "integer") and isinstance(value, str) and _looks_numeric(value):
            # `"10"` and `6,500,000,000` are text to YAML; never guessed into a number (docs/contracts.md)
            hint = f"Write the number without quotes, commas or underscores: `{key}: {_plain_number(value)}`."
        self.report("DCB101", path + (key,), f"`{key}` must be {phrase}", expected=phrase, found=describe(value), hint=hint)
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

    def value_list(self, node: dict, key: str, path: tuple, *, logical_type: str | None, allow_empty: bool = False,
                   objects: bool = False) -> tuple | None:
        """A list of allowed (or missing) values, read strictly: `enum`, `validValues`, `missingValues`.

        Never coerced: a text is not a list of its characters, a boolean or number YAML made of an unquoted
        word is not text (DCB105), a mapping or list is no value. A null item means only "null is allowed",
        which it always is for these constraints, so it is left out. With `objects`, items may be ODCS 3.2
        enum objects `{value: ...}`. Any problem is reported and the whole list refused (None)."""
        if not isinstance(node, dict) or key not in node or node[key] is None:
            return None
        raw = node[key]
        if not isinstance(raw, list):
            hint = f"Write a list: `{key}: [{raw}]`." if isinstance(raw, str) else None
            self.report("DCB101", path + (key,), f"`{key}` must be a list of values" +
                        ("; a text is not read as a list of its characters" if isinstance(raw, str) else ""),
                        expected="a list, e.g. [a, b]", found=describe(raw), hint=hint)
            return None
        items: list[tuple[Any, str | None, tuple]] = []
        ok = True
        for index, item in enumerate(raw):
            item_path = path + (key, index)
            text = plain_text(raw, index)
            if objects and isinstance(item, dict):
                if "value" not in item or isinstance(item["value"], (dict, list)):
                    self.report("DCB101", item_path, f"an item of `{key}` written as a mapping needs a plain `value`",
                                expected="{value: ...} with a string or number", found=describe(item.get("value")) if "value" in item else "no `value`")
                    ok = False
                    continue
                item, text, item_path = item["value"], plain_text(item, "value"), item_path + ("value",)
            if isinstance(item, (dict, list)):
                self.report("DCB101", item_path, f"each item of `{key}` must be a single value", expected="a string or number",
                            found=describe(item))
                ok = False
                continue
            if item is not None:
                items.append((item, text, item_path))
        strings = logical_type in STRING_TYPES or (logical_type is None and any(isinstance(v, str) for v, _, _ in items))
        for value, text, item_path in items:
            if strings and not isinstance(value, str):
                self.report("DCB105", item_path, f"YAML reads `{text if text is not None else value}` in `{key}` as {describe_type(value, text)}, "
                            "not as text", expected=f"the text '{text if text is not None else value}' (quoted)", found=describe(value))
                ok = False
            elif _yaml11_number(value, text):
                self.report("DCB105", item_path, f"YAML reads `{text}` in `{key}` as {describe_type(value, text)}",
                            expected="a number written in decimal (or quoted text)", found=describe(value))
                ok = False
            elif logical_type in NUMERIC_TYPES and isinstance(value, bool):
                self.report("DCB105" if (text or "").lower() not in ("true", "false") else "DCB101", item_path, f"YAML reads `{text if text is not None else value}` in `{key}` of a `{logical_type}` field as "
                            f"{describe_type(value, text)}", expected="a number", found=describe(value))
                ok = False
        if ok and not items and not allow_empty:
            nulls = " (a null item only allows nulls, which every value check does)" if raw else ""
            self.report("DCB101", path + (key,), f"`{key}` lists no value{nulls}: no value could ever satisfy it",
                        expected="at least one value", found="an empty list" if not raw else "only null",
                        hint="List the allowed values, or remove the key; to forbid every value but null, say so with an sql rule.")
            return None
        return tuple(v for v, _, _ in items) if ok else None

    def require(self, node: dict, key: str, path: tuple, kind: str, what: str) -> Any:
        if not isinstance(node, dict) or node.get(key) is None:
            self.report("DCB102", path, f"{what} has no `{key}`", expected=f"`{key}`", found="nothing")
            return None
        return self.get(node, key, path, kind)


def _plain_number(text: str) -> str:
    return text.replace(",", "").replace("_", "").strip()


def _looks_numeric(text: str) -> bool:
    try:
        float(_plain_number(text))
    except ValueError:
        return False
    return True
