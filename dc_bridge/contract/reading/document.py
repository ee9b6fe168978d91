"""Reading YAML contract files with line numbers, duplicate-key detection and a size limit.

PyYAML's plain loader forgets where a value was written and silently keeps the last of two equal
keys; both would make lint messages useless, so this loader records the line of every mapping key
and list item and reports duplicate keys.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from dc_bridge.contract.findings import FatalFinding, Finding

# A contract is text written by people; anything this large is a mistake or an attack.
MAX_CONTRACT_BYTES = int(os.environ.get("DC_BRIDGE_MAX_CONTRACT_BYTES", 10 * 1024 * 1024))
# Small files can be large too: deep nesting crashes the YAML composer (libyaml recurses in C) and
# aliases (`&a` ... `*a`) can expand a few lines into billions of values for every later step.
MAX_NESTING = 100
MAX_ALIAS_EXPANSION = 10  # expanded values per value written, beyond a floor of ALIAS_FLOOR
ALIAS_FLOOR = 100_000


class YamlMap(dict):
    """A mapping that remembers the line of each key (`key_lines`) and of itself (`line`), and the text of
    each unquoted value YAML read as something other than text (`plain_texts`: `NO` was read as false)."""

    line: int | None = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.key_lines: dict[Any, int] = {}
        self.plain_texts: dict[Any, str] = {}


class YamlList(list):
    """A list that remembers the line of each item (`item_lines`) and of itself (`line`), and the text of
    each unquoted item YAML read as something other than text (`plain_texts`, by index)."""

    line: int | None = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.item_lines: list[int] = []
        self.plain_texts: dict[int, str] = {}


def _plain_text(node: yaml.Node, value: Any) -> str | None:
    """The written text of a plain (unquoted) scalar that YAML resolved to a non-string, else None."""
    if value.__class__ is str:
        return None
    if isinstance(node, yaml.ScalarNode) and not node.style and not isinstance(value, str) and isinstance(node.value, str):
        return node.value
    return None


_STR_TAG = "tag:yaml.org,2002:str"
# keys that make SafeConstructor rewrite a mapping first (`<<: *defaults`, and the `=` value key)
_MERGE_TAGS = frozenset({"tag:yaml.org,2002:merge", "tag:yaml.org,2002:value"})


class _LineLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # libyaml when present: 10x faster
    """SafeLoader that builds YamlMap/YamlList and records duplicate keys instead of hiding them."""

    def __init__(self, stream):
        super().__init__(stream)  # type: ignore[arg-type]
        self.duplicate_keys: list[tuple[Any, int]] = []
        self.plain_tags: dict[str, str] = {}

    def resolve(self, kind, value, implicit):
        # the tag of a plain scalar depends on its text alone (no path resolvers): a contract repeats the same
        # few texts (`type`, `string`, `true`) thousands of times, and each resolution tries several regexes
        if kind is not yaml.ScalarNode or not implicit[0]:
            return super().resolve(kind, value, implicit)
        tag = self.plain_tags.get(value)
        if tag is None:
            tag = self.plain_tags[value] = super().resolve(kind, value, implicit)
        return tag

    def constructed(self, node: yaml.Node) -> Any:
        # most values are text: taken as SafeConstructor would, without its five calls per value
        if node.tag == _STR_TAG and node.__class__ is yaml.ScalarNode:
            return node.value
        return self.construct_object(node, deep=True)

    def construct_line_mapping(self, node: yaml.MappingNode) -> YamlMap:
        if not _MERGE_TAGS.isdisjoint([key_node.tag for key_node, _ in node.value]):
            self.flatten_mapping(node)
        mapping = YamlMap()
        mapping.line = node.start_mark.line + 1
        key_lines, plain_texts = mapping.key_lines, mapping.plain_texts
        for key_node, value_node in node.value:
            key = self.constructed(key_node)
            if key.__class__ is not str and not isinstance(key, (str, int, float, bool)) and key is not None:
                raise yaml.constructor.ConstructorError(
                    None, None, "found a key that is not a plain value", key_node.start_mark
                )
            if key in mapping:
                self.duplicate_keys.append((key, key_node.start_mark.line + 1))
            mapping[key] = value = self.constructed(value_node)
            key_lines[key] = key_node.start_mark.line + 1
            text = _plain_text(value_node, value)
            if text is not None:
                plain_texts[key] = text
            elif plain_texts:
                plain_texts.pop(key, None)
        return mapping

    def construct_line_sequence(self, node: yaml.SequenceNode) -> YamlList:
        items = YamlList([self.constructed(child) for child in node.value])
        items.line = node.start_mark.line + 1
        items.item_lines = [child.start_mark.line + 1 for child in node.value]
        for index, child in enumerate(node.value):
            text = _plain_text(child, items[index])
            if text is not None:
                items.plain_texts[index] = text
        return items


class _NumberTooLong(yaml.YAMLError):
    """An integer with more digits than Python converts (`sys.get_int_max_str_digits()`, 4,300)."""

    def __init__(self, digits: int, mark):
        super().__init__(f"an integer of {digits:,} digits")
        self.digits, self.problem_mark = digits, mark


def _construct_int(loader: _LineLoader, node: yaml.ScalarNode) -> int:
    try:
        return loader.construct_yaml_int(node)
    except ValueError:  # PyYAML's int() refuses it (and any later str() would too)
        raise _NumberTooLong(len(str(node.value)), node.start_mark) from None


_LineLoader.add_constructor("tag:yaml.org,2002:int", _construct_int)
_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _LineLoader.construct_line_mapping)
_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _LineLoader.construct_line_sequence)
# Dates stay strings: both standards' JSON schemas type them as strings, and `2024-01-01` in an
# `examples` list must not turn into a Python date.
_LineLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
# A number with an exponent but no dot or no exponent sign (`1e37`, `1.5e9`) is a number in YAML 1.2 and
# JSON, but text to YAML 1.1; a threshold written that way is meant as the number, never as text.
_EXPONENT = re.compile(r"^[-+]?[0-9][0-9_]*(?:\.[0-9_]*)?[eE][-+]?[0-9]+$")
for _first in "-+0123456789":
    _LineLoader.yaml_implicit_resolvers.setdefault(_first, []).append(("tag:yaml.org,2002:float", _EXPONENT))


@dataclass
class Document:
    """A parsed YAML file: its data plus what the loader noticed about it."""

    file: str
    data: Any
    duplicate_keys: list[tuple[Any, int]] = field(default_factory=list)

    def line_of(self, path: tuple) -> int | None:
        """Line of the element at `path` (keys and list indexes), or of its nearest parent."""
        node, line = self.data, getattr(self.data, "line", None)
        for step in path:
            if isinstance(node, YamlMap) and step in node:
                line = node.key_lines.get(step, line)
                node = node[step]
            elif isinstance(node, YamlList) and isinstance(step, int) and 0 <= step < len(node):
                line = node.item_lines[step]
                node = node[step]
            else:
                break
        return line

    def path_of_key(self, key: Any, line: int) -> tuple:
        """Path of the mapping key `key` written at `line` (a duplicate key: YAML keeps the last), or ()."""
        pending: list[tuple[tuple, Any]] = [((), self.data)]
        while pending:
            path, node = pending.pop()
            if isinstance(node, YamlMap):
                if key in node and node.key_lines.get(key) == line:
                    return path + (key,)
                pending.extend((path + (k,), v) for k, v in node.items())
            elif isinstance(node, YamlList):
                pending.extend((path + (i,), v) for i, v in enumerate(node))
        return ()


def format_path(path: tuple) -> str:
    """`("models", "orders", "quality", 2)` -> `models.orders.quality[2]`."""
    text = ""
    for step in path:
        if isinstance(step, int):
            text += f"[{step}]"
        else:
            text += f".{step}" if text else str(step)
    return text


def read_document(path: str | Path) -> Document:
    """Read and parse one YAML file. Raises FatalFinding when the file cannot be read or parsed."""
    file = str(path)
    try:
        size = os.path.getsize(file)
        if size > MAX_CONTRACT_BYTES:
            raise FatalFinding(
                Finding(
                    "DCB006",
                    file,
                    "",
                    f"{file} is {size:,} bytes; contracts are limited to {MAX_CONTRACT_BYTES:,} bytes",
                    expected=f"at most {MAX_CONTRACT_BYTES:,} bytes",
                    found=f"{size:,} bytes",
                )
            )
        with open(file, encoding="utf-8") as handle:
            text = handle.read()
    except FatalFinding:
        raise
    except FileNotFoundError:
        raise FatalFinding(Finding("DCB001", file, "", f"{file} does not exist", expected="a contract file", found="no such file"))
    except IsADirectoryError:
        raise FatalFinding(Finding("DCB001", file, "", f"{file} is a directory", expected="a contract file", found="a directory"))
    except UnicodeDecodeError as exc:
        raise FatalFinding(
            Finding("DCB001", file, "", f"{file} is not UTF-8 text ({exc.reason} at byte {exc.start})", expected="UTF-8 text", found="binary or another encoding")
        )
    except OSError as exc:
        raise FatalFinding(Finding("DCB001", file, "", f"{file} cannot be read: {exc.strerror}"))
    return parse_document(text, file)


_OPENING = frozenset({yaml.MappingStartEvent, yaml.SequenceStartEvent})
_CLOSING = frozenset({yaml.MappingEndEvent, yaml.SequenceEndEvent})


def _shape_problem(text: str) -> tuple[str, int | None] | None:
    """(problem, line) when the YAML nests deeper than MAX_NESTING or its aliases expand it beyond
    the limit; None otherwise (also for YAML that does not parse: the parser reports that).
    Reads parser events only, so neither check builds (or expands) anything."""
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)(text)
    written = 0
    sizes: dict[str, int] = {}  # anchor -> expanded size of the node it names
    open_nodes: list[list] = [[None, 0]]  # [anchor, expanded size so far]; the first is the stream
    try:
        # one call per event (the parser gives None after the stream's end), dispatched on the exact class: the
        # parser makes no subclasses, and isinstance chains cost a third of this walk over a large contract
        for event in iter(loader.get_event, None):
            kind = event.__class__
            if kind is yaml.ScalarEvent:
                written += 1
                if event.anchor is not None:
                    sizes[event.anchor] = 1
                open_nodes[-1][1] += 1
            elif kind in _OPENING:
                if len(open_nodes) > MAX_NESTING:
                    return f"it nests deeper than {MAX_NESTING} levels", event.start_mark.line + 1
                written += 1
                open_nodes.append([event.anchor, 1])
            elif kind in _CLOSING:
                anchor, size = open_nodes.pop()
                if anchor is not None:
                    sizes[anchor] = size
                open_nodes[-1][1] += size
            elif kind is yaml.AliasEvent:
                open_nodes[-1][1] += sizes.get(event.anchor, 1)
    except yaml.YAMLError as exc:
        # libyaml 0.2.5's own depth limit (PyYAML 6.0.3+ wheels) stops the parser before ours does: the same refusal
        if "maximum nesting depth" in str(getattr(exc, "problem", "")):
            mark = getattr(exc, "problem_mark", None)
            return f"it nests deeper than {MAX_NESTING} levels", mark.line + 1 if mark else None
        return None
    finally:
        loader.dispose()
    expanded = open_nodes[0][1]
    if expanded > ALIAS_FLOOR + MAX_ALIAS_EXPANSION * written:
        return f"its aliases expand {written:,} written values to {expanded:,}", None
    return None


def parse_document(text: str, file: str) -> Document:
    shape = _shape_problem(text)
    if shape is not None:
        problem, line = shape
        raise FatalFinding(Finding("DCB006", file, "", f"{file} is too large once read: {problem}", line=line,
                                   expected=f"at most {MAX_NESTING} levels of nesting and no alias bombs", found=problem))
    loader = _LineLoader(text)
    try:
        data = loader.get_single_data()
    except _NumberTooLong as exc:
        raise FatalFinding(Finding("DCB151", file, "", f"{file} holds {exc}, too long to read as a number",
                                   line=exc.problem_mark.line + 1, expected="a number of at most 38 digits",
                                   found=f"{exc.digits:,} digits")) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark else None
        problem = getattr(exc, "problem", None) or str(exc)
        # libyaml does not name the character it stopped at; look at it
        lines = text.splitlines()
        at_tab = mark is not None and mark.line < len(lines) and lines[mark.line][mark.column:mark.column + 1] == "\t"
        if at_tab or "\t" in text and problem and "tab" in problem.lower() or "'\\t'" in str(exc):
            problem = "a tab character where YAML needs spaces for indentation"
        raise FatalFinding(
            Finding("DCB002", file, "", f"{file} is not valid YAML: {problem}", line=line, expected="valid YAML", found=problem)
        )
    finally:
        loader.dispose()
    return Document(file=file, data=data, duplicate_keys=loader.duplicate_keys)
