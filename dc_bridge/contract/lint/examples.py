"""Lint, part three: the example values a contract documents, checked against the rules it states for them.

A contract that shows an example its own checks would reject misleads every reader of it. Read here:
DCS `examples` (and the deprecated `example`) of fields and of the `definitions` a field takes through
`$ref`, DCS model `examples` (rows: CSV text with a header line, as the standard's own example writes
them, or mappings), and ODCS `examples` of properties (ODCS has no model-level examples). Each value is
held to the per-value rules of its field: type, required, pattern, format, enum, minLength/maxLength and
the range; an example of an array or object field also to its items' and nested fields' rules; model rows
also to `unique` and the primary key across the rows of one example. What needs the data as a whole
(quality rules, SQL, foreign keys) is not judged on a handful of rows. Pure Python, no Spark, so lint
stays a second or two and runs in a pre-commit hook; docs/lint-codes.md (DCB166) says why not a run.

Patterns are Java's (Spark's `rlike`: a match anywhere in the value). One is matched here with Python's
`re` only where the two read it alike (`python_form`): a whitelist of the syntax both share, compiled
with `re.ASCII` (Java's `\\d`, `\\w`, `\\s` and case folding are ASCII unless a flag says otherwise);
on a value without the line terminators only Java knows (`\\r`, U+0085, U+2028, U+2029: they change `.`
and `$`); and, when the pattern uses a class whose reach beyond ASCII differs (`\\w`, `\\b`, `(?i)`, ...),
on ASCII text only. Anything else is DCB167 (not checked), never a guess that could be a false finding.
"""

from __future__ import annotations

import csv
import functools
import io
import os
import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, timezone
from decimal import Decimal, InvalidOperation
from typing import Any, Callable, Iterator

from dc_bridge.contract.findings import Finding
from dc_bridge.contract.formats import format_regex
from dc_bridge.contract.model import Contract, Field, Model, Source
from dc_bridge.contract.reading.document import Document, format_path
from dc_bridge.contract.reading.load import LoadResult
from dc_bridge.contract.reading.workspace import navigate_pointer, split_reference
from dc_bridge.contract.types import STRING_TYPES

__all__ = ["example_findings", "python_form"]


def example_findings(result: LoadResult) -> list[Finding]:
    """DCB166 for each example that breaks a rule of its field or model; DCB167 for one that cannot be judged here."""
    contract = result.contract
    if contract is None or result.kind not in ("dcs", "odcs"):
        return []
    documents = {os.path.normpath(d.file): d for d in result.documents}
    written_keys: _KeyIndex = {}
    findings: list[Finding] = []
    for model in contract.models:
        keys = {id(field) for field in model.fields if field.name in model.primary_key}  # a key column must hold a value
        for name, field in _named_fields(model.name, model.fields):
            required = field.required or id(field) in keys
            for example in _field_examples(field, documents, written_keys):
                findings += _judged(name, field, example, required)
        findings += _row_findings(contract, model, documents, written_keys)
    return findings


@dataclass(frozen=True)
class _Example:
    """One example value, the text it was written as, and where."""

    value: Any
    text: str | None
    file: str
    path: str
    line: int | None
    label: str

    def finding(self, code: str, message: str, **details) -> Finding:
        return Finding(code, self.file, self.path, f"{self.label} {message}", line=self.line, **details)


class _NotOfType(ValueError):
    """The value cannot be one of the field's type."""


# ---- the field's type: each logical type's reading of an example value (YAML's, or a CSV cell's text)

_INTEGER = re.compile(r"^[+-]?[0-9]+$")
_DATE = re.compile(r"^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})(?:[Tt ].*)?$")  # a timestamp's text casts to its date
_TIMESTAMP = re.compile(r"^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})(?:[Tt ]([0-9]{1,2}):([0-9]{2})(?::([0-9]{2})(?:\.([0-9]{1,9}))?)?)?"
                        r"\s*(Z|z|UTC|[+-][0-9]{2}(?::?[0-9]{2})?)?$")
_TIME = re.compile(r"^([01]?[0-9]|2[0-3]):([0-5][0-9])(?::([0-5][0-9])(?:\.([0-9]{1,9}))?)?$")
# what Spark's cast of a string to boolean takes
_BOOLEANS = {"true": True, "t": True, "yes": True, "y": True, "1": True, "false": False, "f": False, "no": False, "n": False, "0": False}


def _integer(bits: int) -> Callable[[Any], int]:
    def read(value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, (int, str)) or isinstance(value, str) and not _INTEGER.match(value.strip()):
            raise _NotOfType
        try:
            number = int(value)
        except ValueError:  # more digits than Python converts (4,300): no integer column holds it either
            raise _NotOfType from None
        if not -(2 ** (bits - 1)) <= number < 2 ** (bits - 1):
            raise _NotOfType
        return number
    return read


def _number(finite: bool) -> Callable[[Any], Decimal]:
    def read(value: Any) -> Decimal:
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise _NotOfType
        try:
            number = Decimal(value.strip()) if isinstance(value, str) else Decimal(str(value))
        except InvalidOperation:
            raise _NotOfType from None
        if finite and not number.is_finite():
            raise _NotOfType
        return number
    return read


def _boolean(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in _BOOLEANS:
        return _BOOLEANS[value.strip().lower()]
    raise _NotOfType


def _date(value: Any) -> date:
    match = _DATE.match(value.strip()) if isinstance(value, str) else None
    if match is None:
        raise _NotOfType
    try:
        return date(*(int(part) for part in match.groups()[:3]))
    except ValueError:
        raise _NotOfType from None


def _timestamp(value: Any) -> datetime:
    """A point in time in UTC (a value without an offset is read as UTC, as a session in UTC reads it)."""
    match = _TIMESTAMP.match(value.strip()) if isinstance(value, str) else None
    if match is None:
        raise _NotOfType
    year, month, day, hour, minute, second, fraction, offset = match.groups()
    try:
        moment = datetime(int(year), int(month), int(day), int(hour or 0), int(minute or 0), int(second or 0),
                          int((fraction or "0")[:6].ljust(6, "0")), tzinfo=timezone.utc)
    except ValueError:
        raise _NotOfType from None
    if offset and offset[0] in "+-":
        digits = offset[1:].replace(":", "")
        shift = timedelta(hours=int(digits[:2]), minutes=int(digits[2:] or 0))
        moment -= shift if offset[0] == "+" else -shift
    return moment


def _time(value: Any) -> time:
    match = _TIME.match(value.strip()) if isinstance(value, str) else None
    if match is None:
        raise _NotOfType
    hour, minute, second, fraction = match.groups()
    return time(int(hour), int(minute), int(second or 0), int((fraction or "0")[:6].ljust(6, "0")))


def _of(*kinds: type) -> Callable[[Any], Any]:
    def read(value: Any) -> Any:
        if isinstance(value, bool) and bool not in kinds or not isinstance(value, kinds):
            raise _NotOfType
        return value
    return read


# canonical logical type (contract/types.py) -> its reading of an example; a type without an entry is not checked
_TYPES: dict[str, Callable[[Any], Any]] = {
    "string": _of(str, int, float, bool),  # a number or flag YAML read is its written text
    "integer": _integer(32), "long": _integer(64),
    "number": _number(finite=False), "float": _number(finite=False), "double": _number(finite=False),
    "decimal": _number(finite=True),
    "boolean": _boolean,
    "date": _date, "timestamp": _timestamp, "timestamp_ntz": _timestamp, "time": _time,
    "array": _of(list), "object": _of(dict), "map": _of(dict), "bytes": _of(str),
}


def _typed(field: Field, value: Any) -> Any:
    """The value as the field's type reads it (raises _NotOfType); untyped fields take numbers as numbers."""
    read = _TYPES.get(field.logical_type or "")
    if read is not None:
        return read(value)
    return _number(finite=False)(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else value


# ---- patterns: Java's, matched with Python's re only where both read them alike

# escapes both read alike
_SAME_ESCAPES = frozenset("tnrf")
# classes both read alike on ASCII text only (with re.ASCII); beyond it Java's flags and Python's defaults differ
_CLASS_ESCAPES = frozenset("dDwWsS")
_QUANTIFIER = re.compile(r"\{[0-9]+(?:,[0-9]*)?\}")
_HEX_DIGITS = {"x": 2, "u": 4}  # the hex digits of \xhh and \uhhhh
_GROUPS = ("(?:", "(?=", "(?!", "(?<=", "(?<!")  # `(?<name>`, `(?>`, flags other than a leading (?i): no
# line terminators Java's `.` and `$` know and Python's do not
_JAVA_TERMINATORS = frozenset("\r\u0085\u2028\u2029")


@functools.lru_cache(maxsize=512)
def python_form(pattern: str) -> tuple[re.Pattern, bool] | None:
    """(the pattern compiled by Python's re, whether it holds for ASCII text only), or None when the pattern
    uses syntax Java and Python read differently (`\\p{L}`, `\\Q...\\E`, `\\z`, `[a-z&&[^x]]`, possessive
    and atomic groups, named groups, back references, ...)."""
    flags, ascii_only, i, in_class = re.ASCII, False, 0, False
    if pattern.startswith("(?i)"):
        flags, ascii_only, i = flags | re.IGNORECASE, True, 4
    n = len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\":
            e = pattern[i + 1:i + 2]
            if e in _HEX_DIGITS:
                digits = pattern[i + 2:i + 2 + _HEX_DIGITS[e]]
                if len(digits) != _HEX_DIGITS[e] or not all(d in "0123456789abcdefABCDEF" for d in digits):
                    return None
                i += 2 + len(digits)
                continue
            if e in _CLASS_ESCAPES or e in ("b", "B") and not in_class:
                ascii_only = True
            elif not (e in _SAME_ESCAPES or e and e.isascii() and not e.isalnum()):
                return None
            i += 2
        elif in_class:
            if c == "[" or pattern[i:i + 2] in ("&&", "--", "~~", "||"):
                return None
            in_class = c != "]"
            i += 1
        elif c == "[":
            i += 1 + pattern.startswith("^", i + 1)
            if pattern.startswith("]", i):
                return None
            in_class = True
        elif c == "(":
            opener = next((g for g in _GROUPS if pattern.startswith(g, i)), None)
            if opener is None and pattern.startswith("(?", i):
                return None
            i += len(opener or "(")
        elif c in "*+?{":
            quantifier = _QUANTIFIER.match(pattern, i) if c == "{" else None
            if c == "{" and quantifier is None:
                return None
            i = quantifier.end() if quantifier else i + 1
            if pattern.startswith("+", i):  # possessive: Python 3.11+ only
                return None
            i += pattern.startswith("?", i)
        elif c in "}]":
            return None
        else:
            i += 1
    if in_class:
        return None
    try:
        return re.compile(pattern, flags), ascii_only
    except (re.error, OverflowError, RecursionError):
        return None


@dataclass(frozen=True)
class _Unjudged:
    """A rule this module cannot judge a value by, and why."""

    reason: str


def _java_find(pattern: str, text: str) -> bool | _Unjudged:
    """Whether Java's regex finds the pattern in the text, or why Python cannot say for sure."""
    from dc_bridge.contract.lint.redos import catastrophic_backtracking  # here: `import lint` stays fast (as rules.py)

    form = python_form(pattern)
    if form is None:
        return _Unjudged("Java and Python read this pattern differently")
    if catastrophic_backtracking(pattern) is not None:
        return _Unjudged("the pattern can backtrack catastrophically (DCB142), so lint does not run it")
    if not _JAVA_TERMINATORS.isdisjoint(text):
        return _Unjudged("the value holds a line terminator (\\r, U+0085, U+2028, U+2029) that Java's `.` and `$` read otherwise than Python's")
    if form[1] and not text.isascii():
        return _Unjudged("the pattern's \\d, \\w, \\s, \\b or (?i) reach beyond ASCII otherwise in Java than in Python, and the value is not ASCII")
    return form[0].search(text) is not None


# ---- the per-value rules of a field

@dataclass(frozen=True)
class _Value:
    typed: Any
    text: str  # the text form the string rules see


@dataclass(frozen=True)
class _Rule:
    """A per-value rule: how the contract writes it for a field (None: the field has no such rule) and
    whether a value keeps it, or why that cannot be told here."""

    written: Callable[[Field], str | None]
    holds: Callable[[Field, _Value], bool | _Unjudged]


def _stringy(field: Field) -> bool:
    """String rules are judged on text: a string field, or one without a type (elsewhere DCB165 warns)."""
    return field.logical_type in STRING_TYPES or field.logical_type is None


def _within(field: Field, value: _Value, bound: Any, keeps: Callable[[Any, Any], bool]) -> bool:
    """A range bound kept; a bound or value the field's type cannot compare is other codes' business (DCB101, DCB165)."""
    try:
        limit = _typed(field, bound)
        return keeps(value.typed, limit)
    except (_NotOfType, TypeError, InvalidOperation):
        return True


def _member(field: Field, value: _Value) -> bool:
    for member in field.enum or ():
        if member == value.typed or str(member) == value.text:
            return True
        try:
            if _typed(field, member) == value.typed:
                return True
        except _NotOfType:
            pass
    return False


_RULES: tuple[_Rule, ...] = (
    _Rule(lambda f: f"pattern `{f.pattern}`" if f.pattern is not None and _stringy(f) else None,
          lambda f, v: _java_find(f.pattern, v.text)),
    _Rule(lambda f: f"format `{f.format}`" if f.format and format_regex(f.format) and _stringy(f) else None,
          lambda f, v: _java_find(format_regex(f.format), v.text)),
    _Rule(lambda f: "enum [" + ", ".join(str(m) for m in f.enum) + "]" if f.enum else None, _member),
    _Rule(lambda f: f"minLength {f.min_length}" if f.min_length is not None and _stringy(f) else None,
          lambda f, v: len(v.text) >= f.min_length),
    _Rule(lambda f: f"maxLength {f.max_length}" if f.max_length is not None and _stringy(f) else None,
          lambda f, v: len(v.text) <= f.max_length),
    _Rule(lambda f: f"minimum {f.minimum}" if f.minimum is not None else None,
          lambda f, v: _within(f, v, f.minimum, lambda a, b: a >= b)),
    _Rule(lambda f: f"maximum {f.maximum}" if f.maximum is not None else None,
          lambda f, v: _within(f, v, f.maximum, lambda a, b: a <= b)),
    _Rule(lambda f: f"exclusiveMinimum {f.exclusive_minimum}" if f.exclusive_minimum is not None else None,
          lambda f, v: _within(f, v, f.exclusive_minimum, lambda a, b: a > b)),
    _Rule(lambda f: f"exclusiveMaximum {f.exclusive_maximum}" if f.exclusive_maximum is not None else None,
          lambda f, v: _within(f, v, f.exclusive_maximum, lambda a, b: a < b)),
)


def _text(value: Any, written: str | None) -> str:
    if isinstance(value, str):
        return value
    if written is not None:
        return written
    return {True: "true", False: "false"}.get(value, str(value)) if isinstance(value, bool) else str(value)


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _judged(name: str, field: Field, example: _Example, required: bool) -> list[Finding]:
    """The findings of one example of one field (and, for an array or object, of its items and nested fields)."""
    value = example.value
    if value is None:
        return [example.finding("DCB166", f"null breaks `{name}`'s required", expected="a value", found="null")] if required else []
    try:
        typed = _typed(field, value)
    except _NotOfType:
        return [example.finding("DCB166", f"{_shown(value)} is no `{field.logical_type}` value, the type of `{name}`",
                                expected=f"a {field.logical_type} value", found=_shown(value))]
    findings = []
    checked = _Value(typed, _text(value, example.text))
    if not isinstance(typed, (list, dict)):
        for rule in _RULES:
            written = rule.written(field)
            kept = rule.holds(field, checked) if written else True
            if kept is False:
                findings.append(example.finding("DCB166", f"{_shown(value)} breaks `{name}`'s {written}",
                                                expected=f"a value that keeps {written}", found=_shown(value)))
            elif isinstance(kept, _Unjudged):
                findings.append(example.finding("DCB167", f"{_shown(value)} was not checked against `{name}`'s {written}: {kept.reason}",
                                                expected="a rule lint can judge without Java", found=_shown(value)))
    for part, child, inner in _parts(field, typed):
        findings += _judged(f"{name}{part}", child, _Example(inner, None, example.file, example.path, example.line, example.label),
                            child.required)
    return findings


def _parts(field: Field, value: Any) -> Iterator[tuple[str, Field, Any]]:
    """The elements of an array example and the nested fields of an object example, with their fields."""
    if isinstance(value, list) and field.items is not None:
        yield from ((f"[{i}]", field.items, item) for i, item in enumerate(value))
    elif isinstance(value, dict):
        yield from ((f".{child.name}", child, value[child.name]) for child in field.fields if child.name in value)


# ---- where examples are written

def _named_fields(prefix: str, fields: tuple[Field, ...]) -> Iterator[tuple[str, Field]]:
    """Every field with the name messages give it (`orders.address.city`, `orders.tags[]`)."""
    for field in fields:
        yield from _named(f"{prefix}.{field.name}", field)


def _named(name: str, field: Field) -> Iterator[tuple[str, Field]]:
    yield name, field
    yield from _named_fields(name, field.fields)
    for part, child in (("[]", field.items), ("{key}", field.keys), ("{value}", field.values)):
        if child is not None:
            yield from _named(name + part, child)


_MISSING = object()
# id of a written mapping -> its keys by their text (the first key of a text, as the mapping lists them)
_KeyIndex = dict[int, dict[str, Any]]


def _node_at(documents: dict[str, Document], source: Source, keys: _KeyIndex) -> tuple[Document, Any] | None:
    """The written node of an element of the model, found by its source's file and path; `keys` indexes the
    mappings passed on the way, once each (a model's fields are looked up in one `models` mapping of 200 keys)."""
    document = documents.get(os.path.normpath(source.file))
    if document is None:
        return None
    node, rest = document.data, source.path
    while rest:
        if rest.startswith("["):
            end = rest.find("]")
            index = rest[1:end]
            if end < 0 or not index.isdigit() or not isinstance(node, list) or int(index) >= len(node):
                return None
            node, rest = node[int(index)], rest[end + 1:]
            continue
        rest = rest[1:] if rest.startswith(".") else rest
        if not isinstance(node, dict):
            return None
        by_text = keys.get(id(node))
        if by_text is None:
            by_text = keys[id(node)] = {}
            for k in node:
                by_text.setdefault(str(k), k)
        # the longest key the path goes on with: a name may hold a dot
        ends = [len(rest)] + [at for at in range(len(rest) - 1, -1, -1) if rest[at] in ".["]
        key = next((by_text[rest[:end]] for end in ends if rest[:end] in by_text), _MISSING)
        if key is _MISSING:
            return None
        node, rest = node[key], rest[len(str(key)):]
    return document, node


def _field_examples(field: Field, documents: dict[str, Document], keys: _KeyIndex) -> Iterator[_Example]:
    found = _node_at(documents, field.source, keys)
    if found is not None:
        yield from _examples_of(documents, *found, field.source.path, frozenset())


def _examples_of(documents: dict[str, Document], document: Document, node: Any, path: str, seen: frozenset) -> Iterator[_Example]:
    """A field's `examples` (and DCS's deprecated `example`), else those of the definition its `$ref` names,
    as the reader merges them: the field's own keys win. A loop, not recursion: a `$ref` chain may be long."""
    seen = set(seen)
    while isinstance(node, dict):
        examples = node.get("examples")
        if isinstance(examples, list):
            lines = getattr(examples, "item_lines", [])
            for index, value in enumerate(examples):
                yield _Example(value, getattr(examples, "plain_texts", {}).get(index), document.file, f"{path}.examples[{index}]",
                               lines[index] if index < len(lines) else None, "example")
        if "example" in node:
            yield _Example(node["example"], getattr(node, "plain_texts", {}).get("example"), document.file, f"{path}.example",
                           getattr(node, "key_lines", {}).get("example"), "example")
        ref = node.get("$ref")
        if "examples" in node or "example" in node or not isinstance(ref, str) or ref.startswith(("http://", "https://")):
            return
        file, pointer = split_reference(ref, document.file)
        target = documents.get(os.path.normpath(file))
        found = navigate_pointer(target.data, pointer) if target is not None else None
        if found is None or (target.file, pointer) in seen:  # a cycle is the loader's DCB122
            return
        seen.add((target.file, pointer))
        document, node, path = target, found[0], format_path(found[1])


# ---- model examples: rows

_Row = tuple[int | None, dict[str, tuple[Any, str | None]]]  # (line, column -> (value, written text))


def _row_findings(contract: Contract, model: Model, documents: dict[str, Document], keys: _KeyIndex) -> list[Finding]:
    """DCS model `examples`: each one a small table, its rows held to the fields' rules, `unique` and the primary key."""
    found = _node_at(documents, model.source, keys) if contract.format == "dcs" else None
    examples = found[1].get("examples") if found is not None and isinstance(found[1], dict) else None
    if not isinstance(examples, list):
        return []
    document, path = found[0], model.source.path
    lines = getattr(examples, "item_lines", [])
    findings: list[Finding] = []
    for index, item in enumerate(examples):
        line = lines[index] if index < len(lines) else None
        rows = _rows(item, document.file, line)
        if rows is None:
            findings.append(Finding("DCB167", document.file, f"{path}.examples[{index}]",
                                    f"example {index + 1} of model `{model.name}` is neither CSV text nor a mapping of one row; it was not checked",
                                    line=line, expected="CSV text with a header line, or a mapping of field names to values", found=_shown(item)))
            continue
        findings += _table_findings(model, index, rows, document.file, f"{path}.examples[{index}]")
    return findings


def _rows(item: Any, file: str, line: int | None) -> list[_Row] | None:
    """The rows of one model example: a mapping is one row; text is CSV whose first line names the columns
    (an empty cell is null, as Spark reads CSV). None for anything else."""
    if isinstance(item, dict):
        return [(getattr(item, "line", None) or line, {str(k): (v, getattr(item, "plain_texts", {}).get(k)) for k, v in item.items()})]
    if not isinstance(item, str):
        return None
    start = _first_text_line(file, line)
    reader = csv.reader(io.StringIO(item))
    rows: list[_Row] = []
    header: list[str] | None = None
    read = 0
    try:
        for cells in reader:
            first, read = read + 1, reader.line_num  # the text's line this record starts on
            if not any(cell.strip() for cell in cells):
                continue
            if header is None:
                header = [cell.strip() for cell in cells]
                continue
            rows.append((start + first - 1 if start else line, {h: (None if c == "" else c, None) for h, c in zip(header, cells)}))
    except csv.Error:
        return None
    return rows


def _first_text_line(file: str, line: int | None) -> int | None:
    """The file line a model example's text starts on: the next one for a block scalar (`- |`), else its own."""
    if line is None:
        return None
    try:
        with open(file, encoding="utf-8") as handle:
            written = next((text for number, text in enumerate(handle, 1) if number == line), "")
    except OSError:  # a version read from git (`main:contracts/x.yaml`) is no file here
        return None
    return line + 1 if written.strip().lstrip("-").strip()[:1] in ("|", ">") else line


def _table_findings(model: Model, index: int, rows: list[_Row], file: str, path: str) -> list[Finding]:
    by_column = {name: field for field in model.fields for name in (field.physical_name, field.name) if name}
    key_fields = [model.field(name) for name in model.primary_key]
    # the primary key's uniqueness is a check of its own unless its one field already says unique (plan/build.py)
    own_key = key_fields and None not in key_fields and not (len(key_fields) == 1 and key_fields[0].unique)
    uniques: list[tuple[str, list[Field]]] = [(f"`{model.name}.{f.name}` is unique", [f]) for f in model.fields if f.unique]
    uniques += [(f"the primary key ({', '.join(model.primary_key)}) of `{model.name}` is unique", key_fields)] if own_key else []
    findings: list[Finding] = []
    first_seen: dict[tuple[str, tuple], int] = {}
    for number, (line, row) in enumerate(rows, 1):
        label = f"example {index + 1}, row {number}:"
        for column, (value, text) in row.items():
            field = by_column.get(column)
            if field is not None:
                required = field.required or field.name in model.primary_key
                findings += _judged(f"{model.name}.{field.name}", field, _Example(value, text, file, path, line, label), required)
        for rule, fields in uniques:
            cells = [_cell(row, field) for field in fields]
            if any(cell is None for cell in cells):
                continue  # absent or null: not a repeat (a null key is `required`'s finding)
            earlier = first_seen.setdefault((rule, tuple(_comparable(f, c) for f, c in zip(fields, cells))), number)
            if earlier != number:
                shown = ", ".join(_shown(c[0]) for c in cells)
                findings.append(Finding("DCB166", file, path, f"{label} {shown} repeats row {earlier}, but {rule}", line=line,
                                        expected="a value no other row of the example has", found=shown))
    return findings


def _cell(row: dict[str, tuple[Any, str | None]], field: Field) -> tuple[Any, str | None] | None:
    cell = row.get(field.name) or (row.get(field.physical_name) if field.physical_name else None)
    return cell if cell is not None and cell[0] is not None else None


def _comparable(field: Field, cell: tuple[Any, str | None]) -> Any:
    try:
        return repr(_typed(field, cell[0]))
    except _NotOfType:
        return repr(cell[0])
