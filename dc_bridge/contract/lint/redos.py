"""Patterns that can backtrack catastrophically (ReDoS), found by looking at their shape.

Spark evaluates `rlike` with java.util.regex, a backtracking engine, as a search: the match is tried
from every start position unless the pattern begins with `^`. On a value that almost matches it
tries every way the pattern could match before giving up, and two shapes make that number explode:

- **exponential**: a repetition whose body can match the same text in more than one way, so each
  iteration multiplies the ways to try: nested repetition (`((a+)+)+$`, `(\\w+\\s?)+$`,
  `(.*a){30}`) or alternatives that overlap (`(a|a)*`, `(\\w|\\d)+`).
- **polynomial**: k repetitions that can all match the same characters, followed by something that
  can fail (`^\\d+\\d+$`, `^.*.*.*=.*$`, `\\s*\\s*\\s*x`): a run of N such characters is split
  among them in about N^k ways; without `^` the search adds a factor N (it starts again at every
  character). One repetition alone is not reported (every unanchored `a.*b` is N^2 that way).

A Java regex match cannot be interrupted: the Spark task runs until the match gives up, whatever
the engine timeout says. Java 9 and later memoise some single-level loops (on Java 17 `(a+)+$`
grows about N^2, and `(a|a)*$` stays linear until a long value overflows the stack) but not deeper
nesting, counted or adjacent repetition, and the contract may be run by other tools too, so every
such shape is reported (DCB142, a warning: the pattern may be fine on the data it meets).

How: the pattern is parsed in Java's syntax (classes with `&&` and nesting, `\\p{...}`, `\\Q...\\E`,
inline flags, named, atomic and lookaround groups, possessive quantifiers) into a small tree.
Character classes become sets over a sample alphabet (ASCII, a few non-ASCII letters, digits and
spaces, and every character the pattern names), so "can match the same character" is a bitwise
and. From each unbounded repetition the analysis walks forward through whatever can follow it,
keeping the set of characters that every repetition on the way can match, and records where an
item can fail on one of them (the approach of the `regexploit` tool, which reports only cubic and
worse, cannot parse Java-only syntax and is unmaintained). Exponential: the same walk over two
consecutive iterations of a repetition's body, plus overlapping alternatives inside it. Possessive
quantifiers (`a++`) and atomic groups (`(?>...)`) never give back what they matched and end a walk.
The analysis is bounded (`_BUDGET` per pattern); a pattern it cannot parse, or not within the
budget (thousands of repetitions, nesting deeper than Python's recursion limit), is not reported.
"""

from __future__ import annotations

import bisect
import functools
import re
import unicodedata
from typing import Callable, Iterator

Pred = Callable[[str], bool]
# a character class, built as the parser reads it and turned into a set once the alphabet is known:
# ("lit", chars) | ("span", low, high, case_insensitive) | ("fn", predicate) | ("or", classes) | ("and", classes) | ("not", class)
Cls = tuple

# a counted repetition this large of a body that can match the same text twice is as bad as `+`
_COUNT_LIMIT = 10
# work per pattern, in units of about 10-40 microseconds (a walk step; a character set of 16
# characters): real patterns need under 200; a hostile one stops here, a fraction of a second in
_BUDGET = 5_000
# 10^_SLOW backtracking steps keep one Spark task busy for seconds (measured on Java 17:
# 1-5 x 10^8 steps a second; `^.*.*.*=.*$` on 4,000 characters, ~10^10 steps, took 107 s in Spark)
_SLOW = 9
_LINE_TERMINATORS = "\n\r\u0085\u2028\u2029"
# besides ASCII: Latin-1 and other letters of both cases, a non-ASCII digit, spaces, symbols
_SAMPLES = "".join(map(chr, range(128))) + (
    "\u0085\u00a0\u00ab\u00ad\u00b2\u00c9\u00df\u00e9\u0100\u0101\u0300\u03a9\u03c9\u0416\u0436"
    "\u0660\u1680\u2000\u2028\u2029\u202f\u20ac\u3000\u4e2d\U0001f600"
)
_QUANTIFIER = re.compile(r"\{(\d+)(,(\d*))?\}")
_FLAGS = re.compile(r"\(\?([idmsuxUc]*)(?:-([idmsuxUc]*))?([:)])")


class Backtracking:
    """What makes a pattern slow: `degree` k for about N^k steps on an N-character value, None for exponential."""

    __slots__ = ("degree", "culprit", "why")

    def __init__(self, degree: int | None, culprit: str, why: str) -> None:
        self.degree = degree
        self.culprit = culprit  # the part of the pattern, e.g. `(a+)+` or `.*.*.*=.*$`
        self.why = why

    def __repr__(self) -> str:
        return f"Backtracking({self.degree!r}, {self.culprit!r})"

    @property
    def exponential(self) -> bool:
        return self.degree is None

    @property
    def growth(self) -> str:
        """How the steps grow, with a length at which one value gets slow."""
        if self.degree is None:
            return ("up to about 2^N steps for an N-character value: a 30-character value can take ~10^9 steps "
                    "(seconds of one Spark task), a 60-character one ~10^18")
        slow = _round(10 ** (_SLOW / self.degree))
        text = (f"about N^{self.degree} steps for an N-character value: a {slow:,}-character value takes ~10^{_SLOW} steps "
                "(seconds of one Spark task)")
        if slow < 10_000:
            text += f", a 10,000-character one ~10^{4 * self.degree}"
        return text

    @property
    def message(self) -> str:
        kind = "exponential" if self.degree is None else "polynomial"
        return f"the pattern can take {kind} time on some values ({self.growth}): {self.why}"

    @property
    def expected(self) -> str:
        if self.degree is None:
            return "no repetition of a part that can match the same text in several ways"
        return "no repetitions in a row that can match the same characters"


@functools.lru_cache(maxsize=1024)
def catastrophic_backtracking(pattern: str) -> Backtracking | None:
    """The worst backtracking `pattern` can do on a hostile value, or None when it stays linear-ish."""
    try:
        parser = _Parser(pattern)
        root = parser.parse()
    except (_Unparsable, RecursionError, ValueError, IndexError):
        return None
    try:
        return _Analysis(pattern, parser).worst(root)
    except (RecursionError, _OutOfBudget):  # nested too deep, or too large to look at within the budget
        return None


def _round(value: float) -> int:
    """1 significant digit: 31,623 -> 30,000, 177.8 -> 200."""
    if value < 10:
        return 10
    scale = 10 ** (len(str(int(value))) - 1)
    return int(round(value / scale) * scale)


# ---------------------------------------------------------------------------------------------
# the tree


class _Unparsable(Exception):
    pass


class _OutOfBudget(Exception):
    pass


# plain classes, not dataclasses: lint imports this module, and dataclasses cost import time


class _Node:
    __slots__ = ("start", "end")

    def __init__(self, start: int, end: int) -> None:
        self.start, self.end = start, end


class _Chars(_Node):
    __slots__ = ("cls", "mask")

    def __init__(self, start: int, end: int, cls: Cls) -> None:
        super().__init__(start, end)
        self.cls, self.mask = cls, 0


class _Seq(_Node):
    __slots__ = ("items",)

    def __init__(self, start: int, end: int, items: list) -> None:
        super().__init__(start, end)
        self.items = items


class _Alt(_Node):
    __slots__ = ("branches",)

    def __init__(self, start: int, end: int, branches: list) -> None:
        super().__init__(start, end)
        self.branches = branches  # of _Seq


class _Group(_Node):
    __slots__ = ("body", "kind")

    def __init__(self, start: int, end: int, body: _Node, kind: str) -> None:
        super().__init__(start, end)
        self.body, self.kind = body, kind  # kind: "group", "atomic" or "look"


class _Repeat(_Node):
    __slots__ = ("body", "low", "high", "possessive")

    def __init__(self, start: int, end: int, body: _Node, low: int, high: int | None, possessive: bool) -> None:
        super().__init__(start, end)
        self.body, self.low, self.high, self.possessive = body, low, high, possessive  # high None: without bound


class _Anchor(_Node):
    __slots__ = ("kind",)

    def __init__(self, start: int, end: int, kind: str) -> None:
        super().__init__(start, end)
        self.kind = kind  # "^", "$", "A", "z", "Z", "G", "b", "B"; "m^" / "m$" in multiline mode


class _Backref(_Node):
    __slots__ = ()


# ---------------------------------------------------------------------------------------------
# the parser: java.util.regex syntax


def _any(_: str) -> bool:
    return True


def _NOT_NEWLINE(ch: str) -> bool:  # noqa: N802 (`.` in UNIX_LINES mode)
    return ch != "\n"


def _NOT_LINE_TERMINATOR(ch: str) -> bool:  # noqa: N802 (`.`)
    return ch not in _LINE_TERMINATORS


_ANY: Cls = ("fn", _any)


_ASCII_CLASSES: dict[str, Pred] = {
    "d": lambda ch: "0" <= ch <= "9",
    "w": lambda ch: ch.isascii() and (ch.isalnum() or ch == "_"),
    "s": lambda ch: ch in " \t\n\x0b\f\r",
    "h": lambda ch: ch in " \t\xa0\u1680\u180e\u202f\u205f\u3000" or "\u2000" <= ch <= "\u200a",
    "v": lambda ch: ch in "\n\x0b\f\r\x85\u2028\u2029",
}
_PUNCT = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"
_POSIX: dict[str, Pred] = {
    "Lower": lambda ch: "a" <= ch <= "z",
    "Upper": lambda ch: "A" <= ch <= "Z",
    "ASCII": lambda ch: ch.isascii(),
    "Alpha": lambda ch: ch.isascii() and ch.isalpha(),
    "Digit": lambda ch: "0" <= ch <= "9",
    "Alnum": lambda ch: ch.isascii() and ch.isalnum(),
    "Punct": lambda ch: ch in _PUNCT,
    "Graph": lambda ch: ch.isascii() and (ch.isalnum() or ch in _PUNCT),
    "Print": lambda ch: ch.isascii() and (ch.isalnum() or ch in _PUNCT or ch == " "),
    "Blank": lambda ch: ch in " \t",
    "Cntrl": lambda ch: ord(ch) < 32 or ch == "\x7f",
    "XDigit": lambda ch: ch in "0123456789abcdefABCDEF",
    "Space": lambda ch: ch in " \t\n\x0b\f\r",
}
_UNICODE: dict[str, Pred] = {
    "alphabetic": str.isalpha, "letter": str.isalpha, "lowercase": str.islower, "uppercase": str.isupper,
    "whitespace": str.isspace, "white_space": str.isspace, "digit": lambda ch: unicodedata.category(ch) == "Nd",
    "punctuation": lambda ch: unicodedata.category(ch).startswith("P"), "control": lambda ch: unicodedata.category(ch) == "Cc",
    "hexdigit": lambda ch: ch in "0123456789abcdefABCDEF", "hex_digit": lambda ch: ch in "0123456789abcdefABCDEF",
    "javalowercase": str.islower, "javauppercase": str.isupper, "javawhitespace": str.isspace, "javaletter": str.isalpha,
    "javadigit": lambda ch: unicodedata.category(ch) == "Nd", "javaletterordigit": str.isalnum, "javaalphabetic": str.isalpha,
}


def _property(name: str) -> Pred:
    """`\\p{name}`: general categories, POSIX and binary properties; scripts by character name; anything else: every character."""
    if name in _POSIX:
        return _POSIX[name]
    bare = re.sub(r"^(Is|general_category=|gc=)", "", name)
    if bare == "LC" or bare == "L&":
        return lambda ch: unicodedata.category(ch) in ("Lu", "Ll", "Lt")
    if re.fullmatch(r"[LMNPSZC][a-z]?", bare):
        return lambda ch: unicodedata.category(ch).startswith(bare)
    if bare.lower() in _UNICODE:
        return _UNICODE[bare.lower()]
    script = re.sub(r"^(Is|In|sc=|script=|blk=|block=)", "", name).replace("_", " ").upper()
    by_name: Pred = lambda ch: unicodedata.name(ch, "").startswith(script)  # noqa: E731
    return by_name if any(by_name(ch) for ch in _SAMPLES) else _any


class _Parser:
    def __init__(self, pattern: str) -> None:
        self.s, self.n, self.i = pattern, len(pattern), 0
        self.named: set[str] = set()  # characters the pattern names: they join the sample alphabet
        self.classes: list[_Chars] = []

    def parse(self) -> _Node:
        node = self.alternation(set())
        if self.i != self.n:  # an unbalanced `)`
            raise _Unparsable
        return node

    def alternation(self, flags: set[str]) -> _Node:
        start, flags, branches = self.i, set(flags), []  # `(?i)` holds to the end of the group, across `|`
        while True:
            branches.append(self.sequence(flags))
            if self.i < self.n and self.s[self.i] == "|":
                self.i += 1
                continue
            break
        return branches[0] if len(branches) == 1 else _Alt(start, self.i, branches)

    def sequence(self, flags: set[str]) -> _Seq:
        start, items = self.i, []
        while True:
            self.skip_comments(flags)
            if self.i >= self.n or self.s[self.i] in "|)":
                break
            atom = self.atom(flags)
            if atom is not None:
                items.append(self.quantified(atom, flags))
        return _Seq(start, self.i, items)

    def skip_comments(self, flags: set[str]) -> None:
        if "x" not in flags:
            return
        while self.i < self.n:
            if self.s[self.i] in " \t\n\r\f\x0b":
                self.i += 1
            elif self.s[self.i] == "#":
                end = self.s.find("\n", self.i)
                self.i = self.n if end < 0 else end + 1
            else:
                return

    def atom(self, flags: set[str]) -> _Node | None:
        s, i = self.s, self.i
        char = s[i]
        if char == "(":
            return self.group(flags)
        if char == "[":
            pred, self.i = self.char_class(i + 1, flags)
            return self.chars(i, pred)
        if char == ".":
            self.i += 1
            return self.chars(i, ("fn", _any if "s" in flags else _NOT_NEWLINE if "d" in flags else _NOT_LINE_TERMINATOR))
        if char in "^$":
            self.i += 1
            return _Anchor(i, self.i, ("m" if "m" in flags else "") + char)
        if char == "\\":
            return self.escape(flags)
        if char in "*+?" or (char == "{" and _QUANTIFIER.match(s, i)):
            raise _Unparsable  # a quantifier with nothing to repeat: Java rejects it
        self.i += 1
        return self.chars(i, self.literal(char, flags))

    def group(self, flags: set[str]) -> _Node | None:
        s, start = self.s, self.i
        kind, inner = "group", flags
        if s.startswith("(?", start):
            if s.startswith("(?:", start):
                body_at = start + 3
            elif s.startswith("(?>", start):
                kind, body_at = "atomic", start + 3
            elif s.startswith(("(?=", "(?!"), start):
                kind, body_at = "look", start + 3
            elif s.startswith(("(?<=", "(?<!"), start):
                kind, body_at = "look", start + 4
            elif s.startswith("(?<", start):
                close = s.find(">", start)
                if close < 0:
                    raise _Unparsable
                body_at = close + 1
            else:
                match = _FLAGS.match(s, start)
                if match is None:
                    raise _Unparsable
                target = flags if match.group(3) == ")" else set(flags)
                target |= set(match.group(1))
                target -= set(match.group(2) or "")
                self.i = match.end()
                if match.group(3) == ")":
                    return None  # `(?i)`: the flags change for the rest of the group
                inner, body_at = target, match.end()
        else:
            body_at = start + 1
        self.i = body_at
        body = self.alternation(inner)
        if self.i >= self.n or s[self.i] != ")":
            raise _Unparsable
        self.i += 1
        return _Group(start, self.i, body, kind)

    def quantified(self, atom: _Node, flags: set[str]) -> _Node:
        s = self.s
        while True:
            self.skip_comments(flags)
            if self.i >= self.n:
                return atom
            char = s[self.i]
            if char in "*+?":
                low, high, length = {"*": (0, None, 1), "+": (1, None, 1), "?": (0, 1, 1)}[char]
            elif char == "{" and (match := _QUANTIFIER.match(s, self.i)):
                low = int(match.group(1))
                high = None if match.group(2) and not match.group(3) else int(match.group(3) or low)
                length = len(match.group(0))
            else:
                return atom
            self.i += length
            possessive = self.i < self.n and s[self.i] == "+"
            if self.i < self.n and s[self.i] in "+?":
                self.i += 1
            atom = _Repeat(atom.start, self.i, atom, low, high, possessive)

    def escape(self, flags: set[str]) -> _Node:
        s, i = self.s, self.i
        if i + 1 >= self.n:
            raise _Unparsable
        char = s[i + 1]
        if char == "Q":
            end = s.find("\\E", i + 2)
            text = s[i + 2:] if end < 0 else s[i + 2:end]
            self.i = self.n if end < 0 else end + 2
            items = [self.chars(i, self.literal(c, flags)) for c in text]
            return _Seq(i, self.i, items)
        if char in "bBAGzZ":
            self.i = i + 2
            if char == "b" and s.startswith("{g}", self.i):
                self.i += 3
            return _Anchor(i, self.i, char)
        if char.isdigit() and char != "0":
            self.i = i + 2
            return _Backref(i, self.i)
        if char == "k" and s.startswith("<", i + 2):
            close = s.find(">", i)
            if close < 0:
                raise _Unparsable
            self.i = close + 1
            return _Backref(i, self.i)
        if char == "R":
            self.i = i + 2
            return self.chars(i, ("fn", _ASCII_CLASSES["v"]))
        if char == "X":
            self.i = i + 2
            return self.chars(i, _ANY)
        cls, self.i, _ = self.class_escape(i, flags)
        return self.chars(i, cls)

    def class_escape(self, i: int, flags: set[str]) -> tuple[Cls, int, str | None]:
        """The escape at `i` (a backslash): (class, index after it, the character when it is one)."""
        s = self.s
        if i + 1 >= self.n:
            raise _Unparsable
        char = s[i + 1]
        lower = char.lower()
        if lower in _ASCII_CLASSES:
            cls: Cls = ("fn", _ASCII_CLASSES[lower])
            return (cls if char == lower else ("not", cls)), i + 2, None
        if char in "pP":
            if s.startswith("{", i + 2):
                close = s.find("}", i + 2)
                if close < 0:
                    raise _Unparsable
                name, after = s[i + 3:close], close + 1
            elif i + 2 < self.n:
                name, after = s[i + 2], i + 3
            else:
                raise _Unparsable
            cls = ("fn", _property(name))
            return (cls if char == "p" else ("not", cls)), after, None
        literal, after = self.escaped_char(i)
        return self.literal(literal, flags), after, literal

    def escaped_char(self, i: int) -> tuple[str, int]:
        s = self.s
        char = s[i + 1]
        simple = {"t": "\t", "n": "\n", "r": "\r", "f": "\f", "a": "\x07", "e": "\x1b"}
        if char in simple:
            return simple[char], i + 2
        if char == "0":
            match = re.compile(r"[0-3][0-7]{2}|[0-7]{1,2}").match(s, i + 2)
            if match is None:
                raise _Unparsable
            return chr(int(match.group(0), 8)), match.end()
        if char == "x":
            if s.startswith("{", i + 2):
                close = s.find("}", i + 2)
                if close < 0:
                    raise _Unparsable
                return chr(int(s[i + 3:close], 16)), close + 1
            return chr(int(s[i + 2:i + 4], 16)), i + 4
        if char == "u":
            return chr(int(s[i + 2:i + 6], 16)), i + 6
        if char == "c":
            if i + 2 >= self.n:
                raise _Unparsable
            return chr(ord(s[i + 2]) ^ 64), i + 3
        if char == "N" and s.startswith("{", i + 2):
            close = s.find("}", i + 2)
            if close < 0:
                raise _Unparsable
            try:
                return unicodedata.lookup(s[i + 3:close]), close + 1
            except KeyError as exc:
                raise _Unparsable from exc
        return char, i + 2

    def char_class(self, i: int, flags: set[str]) -> tuple[Cls, int]:
        """The class whose `[` is just before `i`: (class, index after its `]`)."""
        s, n = self.s, self.n
        negate = i < n and s[i] == "^"
        i += negate
        operands: list[Cls] = []  # joined by `&&`
        union: list[Cls] = []
        first = True
        while True:
            if i >= n:
                raise _Unparsable
            char = s[i]
            if "x" in flags and char in " \t\n\r\f\x0b":
                i += 1
                continue
            if char == "]" and not first:
                i += 1
                break
            first = False
            if char == "[":
                cls, i = self.char_class(i + 1, flags)
                union.append(cls)
                continue
            if s.startswith("&&", i):
                operands.append(("or", tuple(union)))
                union, i = [], i + 2
                continue
            if char == "\\":
                cls, i, literal = self.class_escape(i, flags)
                if literal is None:
                    union.append(cls)
                    continue
            else:
                literal, i = char, i + 1
            if i + 1 < n and s[i] == "-" and s[i + 1] not in "][":
                if s[i + 1] == "\\":
                    _, after, high = self.class_escape(i + 1, flags)
                    if high is None:
                        raise _Unparsable
                else:
                    high, after = s[i + 1], i + 2
                union.append(self.span(literal, high, flags))
                i = after
            else:
                union.append(self.literal(literal, flags))
        operands.append(("or", tuple(union)))
        cls = operands[0] if len(operands) == 1 else ("and", tuple(operands))
        return (("not", cls) if negate else cls), i

    def literal(self, char: str, flags: set[str]) -> Cls:
        forms = frozenset({char, char.lower(), char.upper()} if "i" in flags else {char})
        self.named |= forms
        return ("lit", forms)

    def span(self, low: str, high: str, flags: set[str]) -> Cls:
        if low > high:
            raise _Unparsable
        self.named |= {low, high}
        return ("span", low, high, "i" in flags)

    def chars(self, start: int, cls: Cls) -> _Chars:
        node = _Chars(start, self.i, cls)
        self.classes.append(node)
        return node


# ---------------------------------------------------------------------------------------------
# the analysis

# the search's own loop over start positions, which acts like a leading `.*?` in an unanchored pattern
_SEARCH = object()


class _Analysis:
    def __init__(self, pattern: str, parser: _Parser) -> None:
        self.pattern = pattern
        self.alphabet = sorted(set(_SAMPLES) | parser.named)
        self.index = {ch: k for k, ch in enumerate(self.alphabet)}
        self.all = (1 << len(self.alphabet)) - 1
        self._masks: dict[Cls, int] = {}
        self.budget = _BUDGET
        for node in parser.classes:
            node.mask = self.mask(node.cls)
        self._min: dict[int, int] = {}
        self._run: dict[int, int] = {}
        self._first: dict[int, int] = {}
        self._again: dict[int, _Repeat | None] = {}
        self._one: dict[int, list] = {}

    def mask(self, cls: Cls) -> int:
        """The set of alphabet characters in `cls`, as bits (cheap for literals and ranges, however many)."""
        if cls not in self._masks:
            kind = cls[0]
            if kind == "lit":
                value = 0
                for ch in cls[1]:
                    value |= 1 << self.index[ch]
            elif kind == "span":
                _, low, high, fold = cls
                value = (1 << bisect.bisect_right(self.alphabet, high)) - (1 << bisect.bisect_left(self.alphabet, low))
                if fold:  # the other case of every character in the range
                    inside = self.alphabet[bisect.bisect_left(self.alphabet, low):bisect.bisect_right(self.alphabet, high)]
                    self.spend(1 + len(inside) // 2)
                    for ch in inside:
                        for other in {ch.lower(), ch.upper()}:
                            if other in self.index:
                                value |= 1 << self.index[other]
            elif kind == "fn":
                value = self.scan(cls[1])
            elif kind == "or":
                value = 0
                for part in cls[1]:
                    value |= self.mask(part)
            elif kind == "and":
                value = self.all
                for part in cls[1]:
                    value &= self.mask(part)
            else:
                value = self.all & ~self.mask(cls[1])
            self._masks[cls] = value
        return self._masks[cls]

    def scan(self, pred: Pred) -> int:
        self.spend(1 + len(self.alphabet) // 16)
        value = 0
        for k, ch in enumerate(self.alphabet):
            if pred(ch):
                value |= 1 << k
        return value

    # -- properties of a node

    def min_len(self, node: _Node) -> int:
        key = id(node)
        if key not in self._min:
            if isinstance(node, _Chars):
                value = 1
            elif isinstance(node, _Seq):
                value = sum(self.min_len(item) for item in node.items)
            elif isinstance(node, _Alt):
                value = min(self.min_len(b) for b in node.branches)
            elif isinstance(node, _Group):
                value = 0 if node.kind == "look" else self.min_len(node.body)
            elif isinstance(node, _Repeat):
                value = node.low * self.min_len(node.body)
            else:
                value = 0
            self._min[key] = value
        return self._min[key]

    def run_class(self, node: _Node) -> int:
        """The characters c such that the node matches runs of c (`(\\d+)` -> digits; `ab` -> none)."""
        key = id(node)
        if key not in self._run:
            if isinstance(node, _Chars):
                value = node.mask
            elif isinstance(node, _Seq):
                parts = [item for item in node.items if self.min_len(item) > 0 or _unbounded(item)]
                if parts:
                    value = self.all
                    for item in parts:
                        value &= self.run_class(item)
                else:  # only optional parts (`a?`, `a?b?`): any one of them alone
                    value = 0
                    for item in node.items:
                        value |= self.run_class(item)
            elif isinstance(node, _Alt):
                value = 0
                for branch in node.branches:
                    value |= self.run_class(branch)
            elif isinstance(node, _Group):
                value = 0 if node.kind == "look" else self.run_class(node.body)
            elif isinstance(node, _Repeat):
                value = 0 if node.high == 0 else self.run_class(node.body)
            else:
                value = 0
            self._run[key] = value
        return self._run[key]

    def first(self, node: _Node) -> int:
        """The characters a non-empty match of the node can start with."""
        key = id(node)
        if key not in self._first:
            if isinstance(node, _Chars):
                value = node.mask
            elif isinstance(node, _Seq):
                value = 0
                for item in node.items:
                    value |= self.first(item)
                    if self.min_len(item) > 0:
                        break
            elif isinstance(node, _Alt):
                value = 0
                for branch in node.branches:
                    value |= self.first(branch)
            elif isinstance(node, _Group):
                value = 0 if node.kind == "look" else self.first(node.body)
            elif isinstance(node, _Repeat):
                value = 0 if node.high == 0 else self.first(node.body)
            elif isinstance(node, _Backref):
                value = self.all
            else:
                value = 0
            self._first[key] = value
        return self._first[key]

    def is_star(self, node: _Node) -> bool:
        """An unbounded repetition that gives back what it matched, one character at a time."""
        return isinstance(node, _Repeat) and node.high is None and not node.possessive and self.run_class(node) != 0

    def again(self, node: _Repeat) -> _Repeat | None:
        """What may follow one iteration of `node`'s body: more iterations, if there can be more."""
        key = id(node)
        if key not in self._again:
            more = None if node.high is None else node.high - 1
            self._again[key] = None if more == 0 else _Repeat(node.start, node.end, node.body, 0, more, node.possessive)
        return self._again[key]

    def one(self, node: _Node) -> list:
        """`[node]`, the same list each time: walk states are told apart by the identity of their lists."""
        return self._one.setdefault(id(node), [node])

    def text(self, node: _Node) -> str:
        return self.pattern[node.start:node.end]

    def example(self, mask: int) -> str:
        chars = [ch for k, ch in enumerate(self.alphabet) if mask >> k & 1]
        for good in (str.isalnum, lambda ch: ch == " ", str.isprintable):
            for ch in chars:
                if ch.isascii() and good(ch):
                    return ch
        return chars[0] if chars else "?"

    # -- walking

    def spend(self, cost: int = 1) -> None:
        self.budget -= cost
        if self.budget < 0:
            raise _OutOfBudget

    def tree(self, node: _Node, after: tuple) -> Iterator[tuple[_Node, tuple]]:
        """Every node under `node`, with what can follow it (a stack of (items, index) frames, innermost last)."""
        yield node, after
        if isinstance(node, _Seq):
            for index, item in enumerate(node.items):
                yield from self.tree(item, after + ((node.items, index + 1),))
        elif isinstance(node, _Alt):
            for branch in node.branches:
                yield from self.tree(branch, after)
        elif isinstance(node, _Group):
            # nothing after an atomic group or a lookaround can make it try again
            yield from self.tree(node.body, after if node.kind == "group" else ())
        elif isinstance(node, _Repeat):
            again = self.again(node)
            inner = () if node.possessive else after + (((self.one(again), 0),) if again else ())
            yield from self.tree(node.body, inner)

    def steps(self, stack: tuple) -> Iterator[tuple[_Node | None, tuple]]:
        """Each item that can come next, with the stack after it; None where the walked text ends."""
        self.spend()
        if not stack:
            yield None, ()
            return
        items, index = stack[-1]
        if index >= len(items):
            yield from self.steps(stack[:-1])
            return
        node = items[index]
        rest = stack[:-1] + ((items, index + 1),)
        if isinstance(node, _Seq):
            yield from self.steps(rest + ((node.items, 0),))
        elif isinstance(node, _Alt):
            for branch in node.branches:
                yield from self.steps(rest + ((branch.items, 0),))
        elif isinstance(node, _Group) and node.kind == "group":
            yield from self.steps(rest + ((self.one(node.body), 0),))
        elif isinstance(node, _Repeat) and not node.possessive and not self.is_star(node) and _has_star(node.body):
            # a repetition of a part with repetitions inside (`(\d+,)*`, `(\s*x)?`): skip it or go through once
            if node.low == 0:
                yield from self.steps(rest)
            yield from self.steps(rest + ((self.one(node.body), 0),))
        else:
            yield node, rest

    def walk(self, stack: tuple, chars: int, stars: tuple, found: list, ambiguous: bool = False) -> None:
        """From a run of `stars` that can all match `chars`, walk on. Polynomial: append (stars, chars, killer)
        where an item can fail on one of `chars`. Ambiguous: append as soon as two stars can share a run."""
        todo = [(stack, chars, stars)]
        seen: set = set()
        while todo:
            stack, chars, stars = todo.pop()
            key = (tuple((id(items), index) for items, index in stack), chars, len(stars))
            if key in seen:
                continue
            seen.add(key)
            for node, rest in self.steps(stack):
                if node is None:
                    continue  # the walked text ends: the match succeeds here, nothing backtracks
                if isinstance(node, _Anchor):
                    if node.kind in ("$", "m$", "z", "Z") and not ambiguous:
                        absorbed = 0
                        for star in stars:
                            absorbed |= 0 if star is _SEARCH else self.first(star)
                        if self.all & ~absorbed:  # a character none of the stars takes, then more: `$` fails
                            found.append((stars, chars, node))
                    elif node.kind not in ("$", "m$", "z", "Z"):
                        todo.append((rest, chars, stars))  # other assertions take no characters
                    continue
                if isinstance(node, _Group) and node.kind == "look":
                    todo.append((rest, chars, stars))
                    continue
                if isinstance(node, _Backref):
                    continue
                mandatory = self.min_len(node) > 0
                if self.is_star(node):
                    run = self.run_class(node)
                    if mandatory and chars & ~self.first(node) and not ambiguous:
                        found.append((stars, chars, node))
                    if chars & run:
                        longer = stars + (node,)
                        if ambiguous and len(longer) >= 2:
                            found.append((longer, chars & run, None))
                            return
                        todo.append((rest, chars & run, longer))
                    if not mandatory and chars & run != chars:
                        todo.append((rest, chars, stars))
                    continue
                # a character, a bounded repetition, an atomic group or a possessive repetition
                gives_nothing_back = isinstance(node, _Group) or (isinstance(node, _Repeat) and node.possessive)
                if not mandatory:
                    if not (gives_nothing_back and chars & self.first(node)):
                        todo.append((rest, chars, stars))
                    continue
                if chars & ~self.first(node) and not ambiguous:
                    found.append((stars, chars, node))
                run = self.run_class(node)
                if chars & run and not (gives_nothing_back and _has_star(node)):
                    todo.append((rest, chars & run, stars))

    # -- the verdict

    def worst(self, root: _Node) -> Backtracking | None:
        try:
            exponential = self.exponential(root)
            if exponential is not None:
                return exponential
        except _OutOfBudget:
            return None
        found: list = []
        try:
            if not self.anchored(root):
                self.walk(((self.one(root), 0),), self.all, (_SEARCH,), found)
            for node, after in self.tree(root, ()):
                if self.is_star(node):
                    self.walk(after, self.run_class(node), (node,), found)
        except _OutOfBudget:
            pass
        candidates = [f for f in found if sum(star is not _SEARCH for star in f[0]) >= 2]
        if not candidates:
            return None
        stars, chars, killer = max(candidates, key=lambda f: (len(f[0]), -f[0][-1].start if f[0][-1] is not _SEARCH else 0))
        return self.polynomial(stars, chars, killer)

    def anchored(self, root: _Node) -> bool:
        """Whether every match starts with `^` or `\\A` (then the search does not try other starts)."""
        return all(isinstance(node, _Anchor) and node.kind in ("^", "A", "G") for node, _ in self.steps(((self.one(root), 0),)))

    def exponential(self, root: _Node) -> Backtracking | None:
        for node in _postorder(root):  # the innermost first: `((a+)+)+` is reported as `(a+)+`
            if not isinstance(node, _Repeat) or node.possessive or (node.high is not None and node.high < _COUNT_LIMIT):
                continue
            # two consecutive iterations: can two repetitions split one run of characters between them?
            twice = ((self.one(node.body), 0),)
            for inner, after in self.tree(node.body, twice):
                if inner is not node.body and self.is_star(inner):
                    found: list = []
                    self.walk(after, self.run_class(inner), (inner,), found, ambiguous=True)
                    if found:
                        return Backtracking(None, self.text(node), f"`{self.text(node)}` repeats a group that itself repeats without bound "
                                            f"(a run of {self.example(found[0][1])!r} can be split between iterations in many ways)")
            for alternation in _alternations(node.body):
                pair = self.overlapping(alternation)
                if pair:
                    return Backtracking(None, self.text(node), f"`{self.text(node)}` repeats alternatives that can match the same text "
                                        f"(`{pair[0]}` and `{pair[1]}`)")
        return None

    def overlapping(self, alternation: _Alt) -> tuple[str, str] | None:
        """Two alternatives that can match the same text: both runs of one character, or the same length and the same characters."""
        shapes = [(branch, self.run_class(branch), _fixed(branch)) for branch in alternation.branches]
        for k, (one, run_one, fixed_one) in enumerate(shapes):
            for two, run_two, fixed_two in shapes[k + 1:]:
                same_run = run_one & run_two
                same_text = (fixed_one and fixed_two and len(fixed_one) == len(fixed_two)
                             and all(a.mask & b.mask for a, b in zip(fixed_one, fixed_two)))
                if same_run or same_text:
                    return self.text(one), self.text(two)
        return None

    def polynomial(self, stars: tuple, chars: int, killer: _Node) -> Backtracking:
        real = [star for star in stars if star is not _SEARCH]
        names = [f"`{self.text(star)}`" for star in real]
        listed = ", ".join(names[:-1]) + " and " + names[-1]
        culprit = self.pattern[real[0].start:killer.end]
        end = "the end of the value" if isinstance(killer, _Anchor) else f"`{self.text(killer)}`"
        why = (f"in `{culprit}`, {listed} can all match a run of {self.example(chars)!r} and {end} can fail after it, "
               f"so every way of splitting the run among the {len(real)} repetitions is tried")
        if stars[0] is _SEARCH:
            why += "; without `^` the search starts again at every character, one more factor N"
        return Backtracking(len(stars), culprit, why)


def _unbounded(node: _Node) -> bool:
    return isinstance(node, _Repeat) and node.high is None


def _has_star(node: _Node) -> bool:
    if isinstance(node, _Repeat):
        return node.high is None or _has_star(node.body)
    if isinstance(node, _Seq):
        return any(_has_star(item) for item in node.items)
    if isinstance(node, _Alt):
        return any(_has_star(branch) for branch in node.branches)
    if isinstance(node, _Group):
        return _has_star(node.body)
    return False


def _postorder(node: _Node) -> Iterator[_Node]:
    """Every node under `node`, children before their parent, left to right."""
    if isinstance(node, _Seq):
        for item in node.items:
            yield from _postorder(item)
    elif isinstance(node, _Alt):
        for branch in node.branches:
            yield from _postorder(branch)
    elif isinstance(node, (_Group, _Repeat)):
        yield from _postorder(node.body)
    yield node


def _alternations(node: _Node) -> Iterator[_Alt]:
    """The alternations under `node` that backtracking can return to (not inside atomic groups or lookarounds)."""
    if isinstance(node, _Alt):
        yield node
        for branch in node.branches:
            yield from _alternations(branch)
    elif isinstance(node, _Seq):
        for item in node.items:
            yield from _alternations(item)
    elif isinstance(node, _Group) and node.kind == "group":
        yield from _alternations(node.body)
    elif isinstance(node, _Repeat) and not node.possessive:
        yield from _alternations(node.body)


def _fixed(node: _Node) -> list[_Chars] | None:
    """The characters of an alternative that is a fixed string of single characters (`ab`, `a[bc]`), else None."""
    if isinstance(node, _Chars):
        return [node]
    if isinstance(node, _Group) and node.kind == "group":
        return _fixed(node.body)
    if isinstance(node, _Seq):
        out: list[_Chars] = []
        for item in node.items:
            part = _fixed(item)
            if part is None:
                return None
            out += part
        return out
    return None
