"""The text of the compiled files: GX suites as JSON, SodaCL documents as YAML, each written byte for byte
as the general writer would write it, only faster.

`indented_json` writes what `json.dumps(value, indent=2, ensure_ascii=False)` writes; `block_yaml` what
PyYAML's SafeRepresenter writes in block style with multi-line text as `|` blocks (so SodaCL reads like
hand-written SodaCL). tests/test_compile_text.py holds both to those writers on thousands of random values.

Why not the general writers themselves: rendering is a large share of compiling a big contract, and
docs/benchmarks.md holds lint plus compile of a 200-model contract under 1 s. Measured by bench/compiled_text.py
on bench/lint_speed.py's 200-model contract (2,000 checks), CPU seconds in one process, these writers and the
general ones swapped in and out twice in turn, the best time of each: the 200 GX suites 0.120 s with
`json.dumps`, 0.062 s here (1.95x); the 200 SodaCL documents 0.101 s with the general representer, 0.083 s
here (1.22x); lint + compile + rendering 1.12 s with both general writers, 1.02 s with these (1.10x).
"""

from __future__ import annotations

import json
import math
from json.encoder import encode_basestring  # C; the string encoder of ensure_ascii=False
from typing import Any

import yaml


def indented_json(value: object) -> str:
    """`json.dumps(value, indent=2, ensure_ascii=False)` and a final line break. With `indent`, json encodes in
    Python, a generator per value; `_json` writes the same bytes in half the time."""
    try:
        return _json(value, "\n") + "\n"
    except _NotJson:  # a type JSON has no form for (bytes in a custom expectation): json's own error, or its text
        return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


class _NotJson(Exception):
    """A value `_json` leaves to `json.dumps`."""


def _json(value: object, newline: str) -> str:
    """`value` as json.dumps(indent=2, ensure_ascii=False) writes it; `newline`: a line break and the indent of
    `value`'s own line."""
    if isinstance(value, str):
        return encode_basestring(value)
    if isinstance(value, dict):
        if not value:
            return "{}"
        inner = newline + "  "
        return "{" + inner + ("," + inner).join([
            (encode_basestring(key) if key.__class__ is str else _json_key(key)) + ": "
            + (encode_basestring(item) if item.__class__ is str else _json(item, inner)) for key, item in value.items()]) + newline + "}"
    if isinstance(value, (list, tuple)):
        if not value:
            return "[]"
        inner = newline + "  "
        return "[" + inner + ("," + inner).join([encode_basestring(item) if item.__class__ is str else _json(item, inner)
                                                 for item in value]) + newline + "]"
    return _json_scalar(value)


def _json_key(key: object) -> str:
    # json writes a key that is no string as the string of its JSON form (`1` -> `"1"`, `None` -> `"null"`); text
    # is written by the callers themselves, a call fewer per key
    return encode_basestring(key if isinstance(key, str) else _json_scalar(key))


def _json_scalar(value: object) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        if math.isfinite(value):
            return float.__repr__(value)
        return "NaN" if value != value else "Infinity" if value > 0 else "-Infinity"
    raise _NotJson


class BlockDumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):
    """Block style, multi-line strings as `|` blocks, as hand-written YAML is."""

    def represent_data(self, data: Any) -> yaml.Node:
        # text, mappings and lists, nearly all of a document, as SafeRepresenter represents them (block style,
        # a mapping or list met twice is one node: an alias) without its dispatch on the type's MRO per value
        kind = data.__class__
        if kind is str:
            return _text_node(data)
        if kind is not dict and kind is not list:
            return super().represent_data(data)
        node = self.represented_objects.get(id(data))
        if node is None:
            self.object_keeper.append(data)
            represent = self.represent_data
            if kind is dict:
                node = self.represented_objects[id(data)] = yaml.MappingNode("tag:yaml.org,2002:map", [], flow_style=False)
                node.value = [(_text_node(key) if key.__class__ is str else represent(key),
                               _text_node(value) if value.__class__ is str else represent(value)) for key, value in data.items()]
            else:
                node = self.represented_objects[id(data)] = yaml.SequenceNode("tag:yaml.org,2002:seq", [], flow_style=False)
                node.value = [_text_node(item) if item.__class__ is str else represent(item) for item in data]
        return node


def _text_node(text: str) -> yaml.ScalarNode:
    return yaml.ScalarNode("tag:yaml.org,2002:str", text, style="|" if "\n" in text else None)


def block_yaml(document: Any) -> str:
    """`document` as YAML in block style, mappings in their own order, text as written (no `\\u` escapes) and
    multi-line text as `|` blocks."""
    return yaml.dump(document, Dumper=BlockDumper, sort_keys=False, allow_unicode=True, width=10_000)
