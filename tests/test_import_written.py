"""The imported contract's writer (importing/written.py) gives lint the document reading its text back gives: the
same data, and the same line of every key and item, as parse_document's, so `dc-bridge import` lints what it wrote
without parsing it again. On every bundled contract and on hostile text; where it cannot count a layout it says so
(None) and the import reads the text back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from dc_bridge.contract.reading.document import YamlList, YamlMap, parse_document
from dc_bridge.importing.written import written

ROOT = Path(__file__).resolve().parent.parent
BUNDLED = sorted((ROOT / "contracts").glob("*.yaml"))


def differences(made, read, path=()) -> list[str]:
    """Where `made` (the writer's) and `read` (parse_document's) differ: data, type, line or plain text."""
    if type(made) is not type(read):
        return [f"{path}: {type(made).__name__} vs {type(read).__name__}"]
    if isinstance(made, YamlMap):
        found = [] if (list(made), made.line, made.key_lines, made.plain_texts) == (list(read), read.line, read.key_lines, read.plain_texts) \
            else [f"{path}: {list(made)} {made.line} {made.key_lines} {made.plain_texts} vs {list(read)} {read.line} {read.key_lines} {read.plain_texts}"]
        return found + [d for key in made if key in read for d in differences(made[key], read[key], path + (key,))]
    if isinstance(made, YamlList):
        found = [] if (len(made), made.line, made.item_lines, made.plain_texts) == (len(read), read.line, read.item_lines, read.plain_texts) \
            else [f"{path}: {made.line} {made.item_lines} vs {read.line} {read.item_lines}"]
        return found + [d for index, (a, b) in enumerate(zip(made, read)) for d in differences(a, b, path + (index,))]
    return [] if made == read else [f"{path}: {made!r} vs {read!r}"]


HOSTILE = {
    "apiVersion": "v3.1.0",
    "name with spaces": "a: colon, # hash, 'quote', \"double\", $dollar, ünïcödé, 日本語, emoji 😀",
    "yes": "no", "null": None, "numbers": [0, -1, 1.5, 1e300, 6500000000, "010", "1:20", "0x1F", ".inf", True, False],
    "empty": {}, "none": [], "nested": [[1, [2, []]], [{}], {"a": [{"b": {"c": "d"}}]}],
    "blocks": ["line one\nline two", "ends with newline\n", "two trailing\n\n", "  leading spaces\nsecond",
               "\nleading break", "a\n\nblank between"],
    "long": "word " * 3000,
    "quotes": ["'", '"', "- dash", "? question", ": colon", "@at", "`tick", "%pct", "!bang", "&amp", "*star", "|pipe", ">gt",
               "{brace}", "[bracket]", "#hash", "", " ", "trailing space "],
}


@pytest.mark.parametrize("path", BUNDLED, ids=[p.name for p in BUNDLED])
def test_the_writer_counts_the_lines_reading_gives(path):
    document = json.loads(json.dumps(yaml.safe_load(path.read_text(encoding="utf-8")), default=str))
    text, made = written(document, str(path))
    read = parse_document(text, str(path))
    assert read.data == document
    if made is not None:  # a layout it cannot count: the import reads the text back
        assert differences(made.data, read.data) == []


def test_hostile_text_is_counted_or_said_uncounted():
    text, made = written(HOSTILE, "hostile.yaml")
    read = parse_document(text, "hostile.yaml")
    assert read.data == HOSTILE
    assert made is not None and differences(made.data, read.data) == []
    # what libyaml writes in another style over lines, the writer does not count: it says so, the text is right
    for uncounted in ({"k": "space before break \nx"}, {"k": "tab\tin block\nx"}, {"k" * 200: 1}, {"k": "line\u2028separator"},
                      {"multi\nline key": 1}):
        text, made = written(uncounted, "u.yaml")
        assert made is None and parse_document(text, "u.yaml").data == uncounted
