"""DCB142: patterns that backtrack catastrophically, found by their shape (dc_bridge/contract/lint/redos.py).

Lint-level only, no Spark. The growth in each table was measured with java.util.regex (Java 17,
`Matcher.find` as Spark's `rlike` calls it) on the value in the comment, doubling its length:
the time grew about 2^k per doubling for N^k. tests/test_reliability.py has the contract-level cases
(paths in DCS and ODCS, `invalidValues`, possessive and atomic forms); tests/test_faults.py runs one
such pattern in Spark with a timeout.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import yaml

from dc_bridge.contract.formats import FORMATS
from dc_bridge.contract.lint import lint_file
from dc_bridge.contract.lint.redos import catastrophic_backtracking

CONTRACTS = Path(__file__).resolve().parent.parent / "contracts"

# a repetition whose body can match the same text in several ways: up to 2^N steps
EXPONENTIAL = [
    r"^((a+)+)+$",
    r"^(a+)+$",  # Java 17 memoises this one: N^2 there
    r"^([a-zA-Z0-9]+\s?)*$",
    r"(.*a){30}",  # counted: 'a' * 32 runs for minutes
    r"(\w+\s?)+$",
    r"^([A-Z]+-?)+$",
    r"^(x+x+)+y$",
    r"^(\d+)*$",
    r"^(a*)*b",
    r"^([a-z]+\.?)*@x$",
    r"^(\s*,?)*$",
    r"^(.*?,){11}P",  # ',' * 32: minutes
    r"^(?:a+){10}$",
    # overlapping alternatives (Java 17 memoises these loops; other backtracking engines do not)
    r"^(a|a)*$",
    r"^(a|aa)+$",
    r"^(\w|\d)+$",
    r"^(a|a?)+$",
]

# k repetitions that can share a run of characters, then something that can fail: N^k steps
POLYNOMIAL = [
    (r"^\d+\d+$", 2),  # '1' * N + 'a'
    (r"^[a-z]*[a-z0-9]*$", 2),  # 'a' * N + '!'
    (r"^\w+\s*\w+$", 2),  # 'a' * N + '!'
    (r"^[^@\s]+@[^@\s]+\.[^@\s]+$", 2),  # 'a@' + '.' * N + '@': an email pattern seen in the wild
    (r"^[0-9]+[0-9]*[0-9]+$", 3),  # '1' * N + 'a'
    (r"^[a-z]+[a-z]+[a-z]+$", 3),
    (r"^\S+\S+\S+!$", 3),
    (r"^(\d+)(\d+)(\d+)x$", 3),  # groups do not hide it
    (r"^(.*)=(.*)=(.*)$", 3),  # '=' * N + '\nx'
    (r"^(?:x|y)*y*y*$", 3),  # an alternation inside the repetition
    (r"^a+?a+?a+?b$", 3),  # lazy is no better
    (r".*.*=", 3),  # 'a' * N: two repetitions, and the search starts again at every character
    (r"^.*.*.*=.*$", 4),  # '=' * N + '\nx': 512 characters take 15 s
    (r"\s*\s*\s*x", 4),  # ' ' * N: three repetitions, and the search
    (r"^a*a*a*a*$", 4),
    (r"^.*a.*a.*a.*a$", 4),
]

# ordinary patterns: the bundled contracts', the tests' and docs', dc-bridge's own formats, common ones
ORDINARY = [
    # contracts/
    r"^[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\.[a-zA-Z]{2,}$", r"^\+?1?\d{10}$", r"^[A-Za-z0-9]{8,14}$",
    # tests/ and docs/
    r"^[A-Z]{2}-\d{3}$", r"[0-9]{3}", r"^x", r"^[a-z]+\\[a-z]+$", r"@shop\.example$", r"^[A-Z]+$", r"^C[0-9]{3}$",
    r"^[a-z]+$", r"^v[0-9]$", r"^[A-Z]{3}-[0-9]{4}$", r"^[A-Z]{3}-\d{4}$", r"^[0-9]{5}$", r"[0-9]+", r"^[ab]{2}$",
    r"'", r"^$", r"b$", r"^ORD-[0-9]+$", r"^[0-9]+$", r"^\p{Lu}+$",
    # never give back what they matched
    r"^(a++)+$", r"^(?>a+)+$", r"^(?:[a-z]++\d*+)+$",
    # dc-bridge's formats (contract/formats.py)
    *FORMATS.values(),
    # common shapes: dates, UUIDs, emails, codes; repetitions separated by a character they cannot match
    r"^\d{4}-\d{2}-\d{2}$",
    r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$",
    r"^[0-9a-f]{8}-[0-9a-f]{4}-[1-5][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$",
    r"^[\w.+-]+@[\w-]+\.[\w.-]+$",
    r"^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$",
    r"^\+?[0-9 ()-]{7,20}$",
    r"^https?://[^\s/$.?#].[^\s]*$",
    r"^[A-Z][a-z]+(?: [A-Z][a-z]+)*$",
    r"^[A-Za-z]+(-[A-Za-z]+)*$",
    r"^[a-z0-9]+(?:-[a-z0-9]+)*$",
    r"^[^,]+(,[^,]+)*$",
    r"^(\d{1,3}\.){3}\d{1,3}$",
    r"^\d+(\.\d+)?$",
    r"^-?\d+(\.\d{1,2})?$",
    r"^[0-9]*\.[0-9]+$",
    r"^ *[a-z]+ *$",
    r"^[a-z]+\d+$",
    r"^\d{5}(-\d{4})?$",
    r"^#[0-9a-fA-F]{6}$",
    r"(?i)^[a-z]+$",
    r"^.*$",
    r"^\s*$",
    r"a.*b",  # one repetition: N^2 only through the search, not reported
    # Java-only syntax
    r"^\Q$1.00\E\d+$",
    r"^[a-z&&[^aeiou]]+$",
    r"^(?<code>[A-Z]{3})-\d+$",
    r"^\p{IsLatin}+\p{Nd}+$",
    "^(?x) [a-z]+ # letters\n \\d+ $",
]


@pytest.mark.parametrize("pattern", EXPONENTIAL)
def test_exponential_pattern_is_reported(pattern: str) -> None:
    found = catastrophic_backtracking(pattern)
    assert found is not None and found.exponential, found


@pytest.mark.parametrize(("pattern", "degree"), POLYNOMIAL, ids=[p for p, _ in POLYNOMIAL])
def test_polynomial_pattern_is_reported_with_its_degree(pattern: str, degree: int) -> None:
    found = catastrophic_backtracking(pattern)
    assert found is not None and found.degree == degree, found


@pytest.mark.parametrize("pattern", ORDINARY)
def test_ordinary_pattern_is_not_reported(pattern: str) -> None:
    assert catastrophic_backtracking(pattern) is None


@pytest.mark.parametrize(("pattern", "words"), [
    (r"^\d+\d+$", ["about N^2 steps", "a 30,000-character value takes ~10^9 steps", "`\\d+` and `\\d+`", "'0'"]),
    (r"^.*.*.*=.*$", ["about N^4 steps", "a 200-character value takes ~10^9 steps (seconds of one Spark task)", "a 10,000-character one ~10^16",
                      "in `.*.*.*=.*$`", "the end of the value can fail"]),
    (r"\s*\s*\s*x", ["about N^4 steps", "`x` can fail", "without `^` the search starts again at every character"]),
    (r"^(a|a)*$", ["exponential", "2^N", "`(a|a)*` repeats alternatives that can match the same text (`a` and `a`)"]),
    (r"^((a+)+)+$", ["exponential", "a 30-character value", "`(a+)+` repeats a group that itself repeats without bound"]),
])
def test_message_says_the_growth_a_slow_length_and_the_part(pattern: str, words: list[str]) -> None:
    message = catastrophic_backtracking(pattern).message
    for word in words:
        assert word in message, message


def test_lint_reports_every_table_pattern_and_no_ordinary_one(tmp_path: Path) -> None:
    """One contract with a field per pattern: DCB142 exactly on the bad ones, with path, pattern and growth."""
    bad = {pattern: "exponential" for pattern in EXPONENTIAL} | {pattern: f"N^{degree} steps" for pattern, degree in POLYNOMIAL}
    fields = {f"f{k}": {"type": "string", "pattern": pattern} for k, pattern in enumerate([*bad, *ORDINARY])}
    contract = {"dataContractSpecification": "1.1.0", "id": "redos", "info": {"title": "ReDoS", "version": "1.0.0"},
                "models": {"m": {"fields": fields}}}
    path = tmp_path / "contract.yaml"
    path.write_text(yaml.safe_dump(contract, allow_unicode=True, sort_keys=False), encoding="utf-8")
    began = time.monotonic()
    findings = [f for f in lint_file(str(path)).findings if f.code == "DCB142"]
    assert time.monotonic() - began < 30
    by_path = {f.path: f for f in findings}
    assert len(by_path) == len(findings), "a pattern reported twice"
    for name, field in fields.items():
        finding = by_path.get(f"models.m.fields.{name}.pattern")
        if field["pattern"] in bad:
            assert finding is not None, f"{field['pattern']!r} not reported"
            assert bad[field["pattern"]] in finding.message and finding.level == "warning", finding.message
            assert finding.found == repr(field["pattern"]) and Path(finding.file) == path
        else:
            assert finding is None, finding.message


@pytest.mark.parametrize("contract", sorted(CONTRACTS.glob("*.yaml")), ids=lambda p: p.name)
def test_bundled_contract_has_no_redos_warning(contract: Path) -> None:
    warned = [f"{f.path}: {f.message}" for f in lint_file(str(contract)).findings if f.code == "DCB142"]
    assert not warned, warned


@pytest.mark.parametrize("pattern", [
    "^" + "a" * 20_000 + "$",
    ".*" + "a" * 5_000 + ".*.*x",
    "^" + "a*" * 2_000 + "$",
    "(" * 3_000 + "a" + ")" * 3_000,
    "(a|b|c|d|e)" * 2_000 + ".*.*x",
    "(?i)^" + "".join(f"[{chr(0x4E00 + k)}-\uffff]" for k in range(3_000)) + "$",
    "^" + "".join(f"[\\p{{L}}{chr(0x4E00 + k)}]" for k in range(3_000)) + "$",
    "^" + "(a+)?" * 300 + "$",
    "[a-", "(", "a{2", "\\", "(?P<x>a)", "[z-a]", "(?<name", "\\p{",
], ids=lambda p: p[:20])
def test_hostile_pattern_is_looked_at_quickly_without_crashing(pattern: str) -> None:
    """Huge, deeply nested or broken patterns: an answer (or None) within the analysis budget."""
    began = time.monotonic()
    catastrophic_backtracking.__wrapped__(pattern)  # not the cache
    assert time.monotonic() - began < 3
