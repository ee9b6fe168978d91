"""The imported contract's text and the document lint reads from it, made in one pass over the document.

`dc-bridge import` lints the contract it writes. Reading the text back (contract/reading/document.py) costs more
than the whole import (a second of CPU for 5,000 expectations), only to learn the line of each key and item. The
writer knows them: it hands libyaml's C emitter the events of the document directly (no representer, no
serializer: their Python walk was most of the dump) and counts, as it does, the line each key and item lands on,
by the block layout libyaml writes (a key or item on a new line, but the first key or item of a list item after
its `- `; a nested mapping or list below its key; a `|` block's lines under it). The result is the Document
parse_document would give (YamlMap/YamlList with their lines).

Where the layout is not one this counts exactly (a key libyaml writes as a complex `? ` key, a text YAML breaks
over lines in another style), `written` gives no document and the caller reads the text back.
tests/test_import_written.py compares every line with parse_document's, on the bundled contracts and hostile text.
"""

from __future__ import annotations

import json
import re
from typing import Any

import yaml
from yaml.events import (DocumentEndEvent, DocumentStartEvent, MappingEndEvent, MappingStartEvent, ScalarEvent,
                         SequenceEndEvent, SequenceStartEvent, StreamEndEvent, StreamStartEvent)

from dc_bridge.contract.reading.document import Document, YamlList, YamlMap

_STR = "tag:yaml.org,2002:str"
# no folding: a line of the contract is one scalar however long (libyaml folds plain and quoted text at the width)
WIDTH = 2**30
# libyaml writes a key longer than this (bytes, with margin) as a complex `? ` key
_SIMPLE_KEY = 120
# what libyaml cannot write as a `|` block (not printable, a space before a break or at the end), and the breaks
# YAML knows besides \n: text holding them is written in another style over lines this does not count
_NOT_BLOCK = re.compile("[^\n\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]| \n| $")
_OTHER_BREAKS = re.compile("[\r\x85\u2028\u2029]")
_FLOATS = yaml.representer.SafeRepresenter()
_BLOCK_MAP, _FLOW_MAP = MappingStartEvent(None, None, True, flow_style=False), MappingStartEvent(None, None, True, flow_style=True)
_BLOCK_SEQ, _FLOW_SEQ = SequenceStartEvent(None, None, True, flow_style=False), SequenceStartEvent(None, None, True, flow_style=True)
_MAP_END, _SEQ_END = MappingEndEvent(), SequenceEndEvent()
_CONSTANTS = {None: "null", True: "true", False: "false"}


class _Uncounted(Exception):
    """The layout of a value is not one whose lines are counted here."""


def written(document: dict[str, Any], file: str) -> tuple[str, Document | None]:
    """The contract file's text (YAML in the document's key order, unicode as written, multi-line text as `|`
    blocks) and the Document reading `file` back gives, lines included; None for the document where a value's
    layout is not counted here. The document is copied through JSON first: a value two rules share (an
    expectation's meta) is written twice, never as a YAML anchor and alias."""
    document = json.loads(json.dumps(document, ensure_ascii=False))
    writer = _Writer()
    try:
        data = writer.value(document, inline=True)
    except _Uncounted:
        writer, data = _Writer(count=False), None
        writer.value(document, inline=True)
    events = [StreamStartEvent(encoding=None), DocumentStartEvent(explicit=False), *writer.events,
              DocumentEndEvent(explicit=False), StreamEndEvent()]
    text = yaml.emit(events, Dumper=yaml.CSafeDumper if hasattr(yaml, "CSafeDumper") else yaml.SafeDumper,
                     allow_unicode=True, width=WIDTH)
    return text, None if data is None else Document(file=file, data=data)


class _Writer:
    def __init__(self, count: bool = True):
        self.events: list[Any] = []
        self.line = 1
        self.count = count
        self.resolver = yaml.resolver.Resolver()
        self.scalars: dict[str, ScalarEvent] = {}  # one event per text: a contract repeats its keys thousands of times
        self.plain: str | None = None  # the text of the last value that is not text (plain_texts, as the reading keeps)

    def value(self, value: Any, inline: bool) -> Any:
        """Add the events of `value` (written from the current line: `inline`, after a `- ` or at the start) and
        return it as the reading gives it."""
        kind = value.__class__
        self.plain = None
        if kind is dict or kind is list:
            read = self.mapping(value, inline) if kind is dict else self.sequence(value, inline)
            self.plain = None
            return read
        if kind is str:
            self.events.append(self.text(value))
            if "\n" in value and self.count:
                if _NOT_BLOCK.search(value):
                    raise _Uncounted
                self.line += value.count("\n") + (0 if value.endswith("\n") else 1)  # the `|` block's lines
            return value
        if kind is float:
            written = _FLOATS.represent_float(value).value
        elif kind is int or value is None or kind is bool:
            written = _CONSTANTS[value] if value is None or kind is bool else str(value)
        else:
            raise TypeError(f"a {kind.__name__} is not a JSON value")
        self.events.append(ScalarEvent(None, None, (True, False), written))
        self.plain = written
        return value

    def text(self, text: str) -> ScalarEvent:
        event = self.scalars.get(text)
        if event is None:
            if self.count and _OTHER_BREAKS.search(text):
                raise _Uncounted
            plain = self.resolver.resolve(yaml.ScalarNode, text, (True, False)) == _STR
            event = self.scalars[text] = ScalarEvent(None, None, (plain, True), text, style="|" if "\n" in text else None)
        return event

    def mapping(self, mapping: dict, inline: bool) -> YamlMap:
        read = YamlMap()
        if not mapping:
            self.events += [_FLOW_MAP, _MAP_END]
            read.line = self.line
            return read
        self.events.append(_BLOCK_MAP)
        for index, (key, value) in enumerate(mapping.items()):
            if key.__class__ is not str:
                raise TypeError(f"a key {key!r} is not a text")
            if not (index == 0 and inline):
                self.line += 1
            if index == 0:
                read.line = self.line
            if self.count and ("\n" in key or len(key.encode("utf-8")) > _SIMPLE_KEY):
                raise _Uncounted
            read.key_lines[key] = self.line
            self.events.append(self.text(key))
            nested = value.__class__ in (dict, list) and bool(value)
            if nested:
                self.line += 1
            read[key] = self.value(value, inline=nested)
            if self.plain is not None:
                read.plain_texts[key] = self.plain
        self.events.append(_MAP_END)
        return read

    def sequence(self, items: list, inline: bool) -> YamlList:
        read = YamlList()
        if not items:
            self.events += [_FLOW_SEQ, _SEQ_END]
            read.line = self.line
            return read
        self.events.append(_BLOCK_SEQ)
        for index, item in enumerate(items):
            if not (index == 0 and inline):
                self.line += 1
            if index == 0:
                read.line = self.line
            read.item_lines.append(self.line)
            read.append(self.value(item, inline=True))
            if self.plain is not None:
                read.plain_texts[index] = self.plain
        self.events.append(_SEQ_END)
        return read
