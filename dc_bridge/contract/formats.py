"""One regular expression per string format, shared by lint, both engines and the reference tests.

Defined once so that GX and Soda test the same thing. Written for java.util.regex (what Spark
evaluates) and kept within the syntax Python's `re` shares, so tests can evaluate them too.
The checks are structural (a well-formed value), not full RFC validation: an email must have a
local part, one `@` and a dotted domain; a date must have a real month and day range.
"""

from __future__ import annotations

_OCTET = r"(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"
_H16 = r"[0-9A-Fa-f]{1,4}"

FORMATS: dict[str, str] = {
    "email": r"^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$",
    "uri": r"^[A-Za-z][A-Za-z0-9+.-]*:[^\s]*$",
    "uuid": r"^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$",
    "date": r"^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$",
    "date-time": r"^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])[Tt ]([01][0-9]|2[0-3]):[0-5][0-9]:([0-5][0-9]|60)(\.[0-9]+)?([Zz]|[+-]([01][0-9]|2[0-3]):?[0-5][0-9])?$",
    "ipv4": rf"^{_OCTET}(\.{_OCTET}){{3}}$",
    # full and compressed forms (RFC 4291 section 2.2), without embedded IPv4
    "ipv6": (
        rf"^(({_H16}:){{7}}{_H16}|({_H16}:){{1,7}}:|({_H16}:){{1,6}}:{_H16}|({_H16}:){{1,5}}(:{_H16}){{1,2}}"
        rf"|({_H16}:){{1,4}}(:{_H16}){{1,3}}|({_H16}:){{1,3}}(:{_H16}){{1,4}}|({_H16}:){{1,2}}(:{_H16}){{1,5}}"
        rf"|{_H16}:(:{_H16}){{1,6}}|:((:{_H16}){{1,7}}|:))$"
    ),
    "hostname": r"^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$",
}
# spellings used in the wild for the same formats
FORMAT_ALIASES = {"datetime": "date-time", "date_time": "date-time", "url": "uri"}


def format_regex(name: str) -> str | None:
    key = name.lower()
    return FORMATS.get(FORMAT_ALIASES.get(key, key))
