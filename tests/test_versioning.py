"""Semantic versions as SemVer 2.0.0 orders them (parsed and compared by the `semver` package), and the bump
`check-version` reads from two versions, pre-releases included (docs/evolution.md, "dc-bridge check-version").

The precedence examples are quoted from the Semantic Versioning 2.0.0 specification, items 10 and 11
(https://semver.org/spec/v2.0.0.html), by Tom Preston-Werner, licensed under Creative Commons
Attribution 3.0 (https://creativecommons.org/licenses/by/3.0/).
"""

from __future__ import annotations

from itertools import combinations

import pytest

from dc_bridge.contract.evolution.versioning import SemVer, bump_level

# SemVer 2.0.0, item 11: each list in ascending precedence
SPEC_ORDERS = [
    # 11.2: "Example: 1.0.0 < 2.0.0 < 2.1.0 < 2.1.1."
    ["1.0.0", "2.0.0", "2.1.0", "2.1.1"],
    # 11.3: "Example: 1.0.0-alpha < 1.0.0."
    ["1.0.0-alpha", "1.0.0"],
    # 11.4: "Example: 1.0.0-alpha < 1.0.0-alpha.1 < 1.0.0-alpha.beta < 1.0.0-beta < 1.0.0-beta.2 < 1.0.0-beta.11 <
    # 1.0.0-rc.1 < 1.0.0."
    ["1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2", "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0"],
]
# SemVer 2.0.0, item 10: "Examples: 1.0.0-alpha+001, 1.0.0+20130313144700, 1.0.0-beta+exp.sha.5114f85,
# 1.0.0+21AF26D3----117B344092BD." ... "Build metadata MUST be ignored when determining version precedence."
SPEC_BUILDS = ["1.0.0-alpha+001", "1.0.0+20130313144700", "1.0.0-beta+exp.sha.5114f85", "1.0.0+21AF26D3----117B344092BD"]


@pytest.mark.parametrize("order", SPEC_ORDERS, ids=["11.2", "11.3", "11.4"])
def test_precedence_is_the_specification_s(order):
    versions = [SemVer.parse(text) for text in order]
    for lower, higher in combinations(versions, 2):
        assert lower < higher and not higher < lower, (str(lower), str(higher))
    assert [str(v) for v in sorted(reversed(versions))] == order


@pytest.mark.parametrize("text", SPEC_BUILDS)
def test_build_metadata_takes_no_part_in_precedence(text):
    version = SemVer.parse(text)
    without = SemVer.parse(text.partition("+")[0])
    assert version is not None and str(version) == text
    assert version == without and not version < without and not without < version
    assert bump_level(without, version) == "none"


# (old, new, bump): a pre-release and its later pre-releases and release make the bump of that release
@pytest.mark.parametrize(("old", "new", "level"), [
    ("1.1.0-rc.1", "1.1.0", "minor"), ("1.1.0-rc.1", "1.1.0-rc.2", "minor"), ("2.0.0-rc.1", "2.0.0", "major"),
    ("1.0.1-beta", "1.0.1", "patch"), ("1.0.0-alpha", "1.0.0-alpha.1", "major"), ("1.0.0", "1.1.0-rc.1", "minor"),
    ("1.1.0-rc.1", "2.0.0", "major"), ("1.1.0", "1.1.0-rc.1", "backwards"), ("1.1.0-rc.2", "1.1.0-rc.1", "backwards"),
    ("1.0.0-beta.11", "1.0.0-beta.2", "backwards"), ("1.1.0-rc.1+a", "1.1.0-rc.1+b", "none"), ("1.1.0+a", "1.1.0", "none"),
])
def test_bump_level_with_pre_releases(old, new, level):
    assert bump_level(SemVer.parse(old), SemVer.parse(new)) == level


# (old version, bump needed, the smallest version that makes it): what DCB230 names as expected
@pytest.mark.parametrize(("old", "level", "smallest"), [
    ("1.4.2", "major", "2.0.0"), ("1.4.2", "minor", "1.5.0"), ("1.4.2", "patch", "1.4.3"), ("1.4.2", "none", "1.4.2"),
    ("1.5.0-rc.1", "minor", "1.5.0"), ("1.5.0-rc.1", "patch", "1.5.0"), ("1.5.0-rc.1", "major", "2.0.0"),
    ("2.0.0-rc.1", "major", "2.0.0"), ("1.4.3-rc.1", "minor", "1.5.0"), ("1.4.2+build.5", "patch", "1.4.3"),
])
def test_bumped_is_the_smallest_version_that_bumps_enough(old, level, smallest):
    version = SemVer.parse(old)
    bumped = version.bumped(level)
    assert str(bumped) == smallest
    assert bump_level(version, bumped) in {"none": ("none",), "patch": ("patch", "minor", "major"),
                                           "minor": ("minor", "major"), "major": ("major",)}[level]


@pytest.mark.parametrize(("text", "shown"), [("v1.2.0", "1.2.0"), (" 1.2.0 ", "1.2.0"), ("2.0.0-rc.1+b.7", "2.0.0-rc.1+b.7")])
def test_parse_keeps_what_the_version_says(text, shown):
    assert str(SemVer.parse(text)) == shown


@pytest.mark.parametrize("text", ["1.0.0-", "1.0.0-01", "1.0.0+", "1.0.0-rc..1", "V1.0.0", "1.0.0 rc"])
def test_not_a_semantic_version_with_pre_release_or_build(text):
    assert SemVer.parse(text) is None
