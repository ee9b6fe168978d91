"""Patterns that can backtrack catastrophically (ReDoS), found by looking at their shape.

Spark evaluates `rlike` with java.util.regex, a backtracking engine. A group that repeats without
bound and whose body can itself repeat without bound (`((a+)+)+$`, `(\\w+\\s?)+$`, `(.*a){30}`) can
take exponential time on a row that almost matches, and a Java regex match cannot be interrupted:
the Spark task runs until the match gives up, whatever the engine timeout says.

Java 9 and later memoise some simple shapes (`(a+)+$` is fast on Java 17) but not deeper nesting
or counted repetition, and the contract may be run by other tools too, so every nested quantifier
is reported (DCB142, a warning: the pattern may be fine on the data it meets).

The scan is a small state machine over the pattern text, not a regex parser: escapes, character
classes and `\\Q...\\E` are skipped; atomic groups `(?>...)` and possessive quantifiers (`++`,
`*+`, `{n,}+`), which never backtrack into their body, are not reported.
"""

from __future__ import annotations

import re

# a counted repetition this large of a body that repeats without bound is as bad as `+`
_COUNT_LIMIT = 10
_COUNTED = re.compile(r"\{(\d+)(,(\d*))?\}")


def nested_quantifier(pattern: str) -> str | None:
    """A description of the first nested unbounded quantifier in `pattern`, or None."""
    # each open group: [start index, body repeats without bound, atomic]
    stack: list[list] = [[0, False, False]]
    last_group: list | None = None  # the group that just closed, if a quantifier may follow it
    i, n = 0, len(pattern)
    while i < n:
        char = pattern[i]
        if char == "\\":
            if pattern.startswith("\\Q", i):
                end = pattern.find("\\E", i + 2)
                i = n if end < 0 else end + 2
            else:
                i += 2
            last_group = None
            continue
        if char == "[":
            i = _skip_class(pattern, i)
            last_group = None
            continue
        if char == "(":
            stack.append([i, False, pattern.startswith("(?>", i)])
            i += 1
            last_group = None
            continue
        if char == ")" and len(stack) > 1:
            group = stack.pop()
            stack[-1][1] = stack[-1][1] or group[1]  # an inner unbounded repeat is inside the parent too
            last_group = group
            i += 1
            continue
        quantifier = _quantifier(pattern, i)
        if quantifier is not None:
            length, unbounded, count = quantifier
            possessive = pattern.startswith("+", i + length)
            repeats = unbounded or (count is not None and count >= _COUNT_LIMIT)
            if last_group is not None and last_group[1] and repeats and not last_group[2] and not possessive:
                body = pattern[last_group[0]:i + length]
                return f"`{body}` repeats a group that itself repeats without bound"
            if unbounded and not possessive:
                stack[-1][1] = True
            i += length + (1 if i + length < n and pattern[i + length] in "+?" else 0)
            last_group = None
            continue
        last_group = None
        i += 1
    return None


def _quantifier(pattern: str, i: int) -> tuple[int, bool, int | None] | None:
    """(length, unbounded, largest count) of the quantifier at `i`, or None when there is none."""
    char = pattern[i]
    if char in "*+":
        return 1, True, None
    if char == "?":
        return 1, False, 1
    if char == "{":
        match = _COUNTED.match(pattern, i)
        if match is None:
            return None
        low, comma, high = match.group(1), match.group(2), match.group(3)
        if comma and not high:
            return len(match.group(0)), True, None
        return len(match.group(0)), False, int(high or low)
    return None


def _skip_class(pattern: str, i: int) -> int:
    """Index after the character class starting at `i` (Java allows nested classes: `[a-z&&[^b]]`)."""
    depth, j, n = 0, i, len(pattern)
    while j < n:
        char = pattern[j]
        if char == "\\":
            j += 2
            continue
        if char == "[":
            depth += 1
            j += 1
            # a `]` right after `[` or `[^` is a literal
            if pattern.startswith("^", j):
                j += 1
            if pattern.startswith("]", j):
                j += 1
            continue
        if char == "]":
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    return n
