"""Text from contracts and data, made safe for what a report writes it into.

Model and column names, check ids, descriptions, reasons and sample values are the user's text: any
of them may hold rich markup (`[bold]`, `[/x]`), a terminal escape sequence (`\\x1b[2J`) or a character
XML 1.0 forbids (`\\x01`). A report never interprets such text and never writes a character its
format cannot carry: each one is written visibly instead (`\\x01`), so the reader still sees where it was.
The console report gives rich only `Text` objects built from `console_text`, never markup to parse;
JUnit writes every attribute and text through `xml_text`; the HTML report escapes with `html.escape`
after `page_text` (both rules); JSON escapes a lone surrogate (`json_text`), the one character it
would write that UTF-8 cannot encode.
"""

from __future__ import annotations

import functools
import re
from typing import Any


@functools.cache
def _not_xml() -> re.Pattern:
    """What XML 1.0 allows (https://www.w3.org/TR/xml/#charsets) negated: everything else cannot be written, not
    even escaped. Compiled on first use: its ranges take milliseconds to compile, which every command would pay."""
    return re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")

# what a terminal would act on rather than show: C0 and C1 controls (ESC starts an escape sequence,
# CSI is one by itself) and DEL; tab and newline stay. Lone surrogates cannot be encoded at all.
_NOT_SHOWN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")


def _visible(match: re.Match) -> str:
    code = ord(match.group(0))
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def xml_text(value: Any) -> str:
    """`value` as text XML 1.0 can hold: each character it forbids written as `\\xNN` / `\\uNNNN`."""
    return _not_xml().sub(_visible, "" if value is None else str(value))


def console_text(value: Any) -> str:
    """`value` as text a terminal shows rather than acts on; wrap it in rich's `Text`, which parses no markup."""
    return _NOT_SHOWN.sub(_visible, "" if value is None else str(value))


def page_text(value: Any) -> str:
    """`value` as text for an HTML page: neither a character XML forbids nor a control character."""
    return console_text(xml_text(value))


_SURROGATE = re.compile("[\ud800-\udfff]")


def json_text(text: str) -> str:
    """JSON written with `ensure_ascii=False`, with each lone surrogate as its `\\uNNNN` escape: the same
    JSON value, and text a UTF-8 file can hold (a surrogate only ever stands inside a JSON string)."""
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text)
