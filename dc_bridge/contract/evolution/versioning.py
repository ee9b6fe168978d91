"""Semantic-version rules for contract changes, and reading the old version from a file or git.

A breaking change needs a MAJOR bump, a non-breaking one at least MINOR, a patch change at least
PATCH (seed 003, FR-019). A larger bump than needed is fine; a version that goes backwards is not.
Versions are parsed and ordered by the `semver` package as SemVer 2.0.0 says: a pre-release comes
before its release (1.0.0-alpha < 1.0.0-alpha.1 < 1.0.0-beta < 1.0.0) and build metadata
(`+build.5`) takes no part in the order. A pre-release is the way to its release: going from it to a
later pre-release of the same version, or to the release, is the bump that release makes
(1.1.0-rc.1 -> 1.1.0 is MINOR, 2.0.0-rc.1 -> 2.0.0 is MAJOR), so a breaking change still needs a new
MAJOR number however many pre-releases came before.

The old version may be a file or `REV:PATH` (`main:contracts/orders.yaml`), read with `git show`.
Files the contract references (`$ref`, ODCS `imports`) are read from the same revision, so the old
contract is built exactly as it was; findings name them `REV:PATH` too.
"""

from __future__ import annotations

import os
import posixpath
import re
import subprocess
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import semver
import yaml

from dc_bridge.contract.evolution.diff import BUMP_ORDER, Change, required_bump
from dc_bridge.contract.reading.document import format_path
from dc_bridge.contract.reading.load import LoadResult, load_contract
from dc_bridge.contract.reading.workspace import navigate_pointer
from dc_bridge.contract.findings import Finding

# where each standard writes the contract's version
VERSION_PATHS: dict[str, tuple[str, ...]] = {"dcs": ("info", "version"), "odcs": ("version",)}
# a contract and what it references are a handful of files; more means a reference loop in git
MAX_GIT_FILES = 200


class SemVer(semver.Version):
    """A contract's version: `semver.Version`, ordered by SemVer 2.0.0 precedence, with the parsing and
    the bumps of a contract's version."""

    @classmethod
    def parse(cls, text: str) -> SemVer | None:  # type: ignore[override]
        """The version `text` writes, or None when it is no semantic version (`1.0`, `01.0.0`, `latest`): a
        contract's version is the user's text, and DCB231 says what is wrong with it. A leading `v` (`v1.2.0`,
        as git tags write it) is allowed."""
        text = text.strip()
        try:
            return super().parse(text[1:] if text.startswith("v") else text)
        except ValueError:
            return None

    def bumped(self, level: str) -> SemVer:
        """The smallest release with a `level` bump: 1.4.2 -> major 2.0.0, minor 1.5.0, patch 1.4.3; a
        pre-release's own release when the bump it makes is enough (1.5.0-rc.1 -> minor or patch 1.5.0)."""
        if level == "none":
            return self
        if self.prerelease and BUMP_ORDER.index(level) <= BUMP_ORDER.index(release_bump(self)):
            return self.finalize_version()
        return {"major": self.bump_major, "minor": self.bump_minor, "patch": self.bump_patch}[level]()


def release_bump(version: SemVer) -> str:
    """The bump a version's release makes: `major` for X.0.0, `minor` for X.Y.0, else `patch`."""
    return "major" if version.minor == version.patch == 0 else "minor" if version.patch == 0 else "patch"


def bump_level(old: SemVer, new: SemVer) -> str:
    """`major`, `minor`, `patch`, `none`, or `backwards` when new comes before old (1.1.0 -> 1.1.0-rc.1 too).
    The first of MAJOR.MINOR.PATCH that differs decides; with the three equal, a pre-release followed by a
    later one or by its release is that release's bump (`release_bump`), and build metadata is no bump."""
    if new < old:
        return "backwards"
    for level in ("major", "minor", "patch"):
        if getattr(new, level) != getattr(old, level):
            return level
    return release_bump(old) if old.prerelease and new > old else "none"


def version_source(result: LoadResult) -> tuple[str, str, int | None, bool]:
    """(file, path, line, written) of the contract's version; `written` is False when the key is missing."""
    path = VERSION_PATHS[result.contract.format]
    document = result.documents[0] if result.documents else None
    written = document is not None and navigate_pointer(document.data, "/" + "/".join(path)) is not None
    return result.file, format_path(path), document.line_of(path) if document else None, written


def check_version(old: LoadResult, new: LoadResult, changes: Sequence[Change]) -> list[Finding]:
    """The findings that make `check-version` fail: none when the new version bumps enough."""
    findings = []
    versions = []
    for result in (old, new):
        file, path, line, written = version_source(result)
        parsed = SemVer.parse(result.contract.version) if written else None
        if parsed is None:
            found = result.contract.version if written else "no version"
            findings.append(Finding("DCB231", file, path, f"{found} is not a semantic version (MAJOR.MINOR.PATCH)", line=line,
                                    expected="MAJOR.MINOR.PATCH, e.g. 1.4.0",
                                    found=found))
        versions.append(parsed)
    if findings:
        return findings
    old_version, new_version = versions
    required, actual = required_bump(changes), bump_level(old_version, new_version)
    file, path, line, _ = version_source(new)
    if actual == "backwards":
        return [Finding("DCB230", file, path, f"version {old_version} -> {new_version} goes backwards", line=line,
                        expected=f"{old_version.bumped(required)} or later", found=str(new_version))]
    if BUMP_ORDER.index(actual) >= BUMP_ORDER.index(required):
        return []
    # the changes at the required level are the ones that force it; name them so the user can judge
    forcing = [c for c in changes if c.bump == required]
    bump = "the same version" if actual == "none" else f"a {actual.upper()} bump"
    named = "; ".join(c.message for c in forcing[:5]) + (f"; and {len(forcing) - 5} more" if len(forcing) > 5 else "")
    message = (f"version {old_version} -> {new_version} is {bump}, but {len(forcing)} {forcing[0].kind} change(s) "
               f"need a {required.upper()} bump: {named}")
    return [Finding("DCB230", file, path, message, line=line, expected=f"{old_version.bumped(required)} or later", found=str(new_version))]


# ---------------------------------------------------------------------------------------------
# reading a version: a file, or REV:PATH from git


@dataclass
class Version:
    """One side of a comparison: the load result and how its files are shown to the user."""

    spec: str
    result: LoadResult
    # file as read -> as shown (a git revision is read from a temporary copy)
    labels: dict[str, str] = field(default_factory=dict)
    problems: list[Finding] = field(default_factory=list)

    @property
    def label(self) -> str:
        return self.labels.get(self.result.file, self.result.file)

    def shown(self, findings: Iterable[Finding]) -> list[Finding]:
        """Findings with temporary files named as the user named them (`main:contracts/orders.yaml`)."""
        return [replace(f, file=self.labels.get(f.file, f.file)) for f in findings]


class GitError(Exception):
    """git could not produce the file; the message is git's own first line."""


def load_version(spec: str, cwd: str | Path | None = None, variables: Mapping[str, str] | None = None) -> Version:
    """Load `spec`: a contract file, or `REV:PATH` read from git when no such file exists; `variables`
    as for `load_contract`."""
    if Path(spec).exists() or ":" not in spec or re.match(r"^[A-Za-z]:[\\/]", spec):
        return Version(spec, load_contract(spec, variables))
    rev, _, path = spec.partition(":")
    with tempfile.TemporaryDirectory(prefix="dc-bridge-git-") as temp:
        try:
            main_file, shown = materialise(rev, path, Path(cwd or os.getcwd()), Path(temp))
        except GitError as exc:
            finding = Finding("DCB232", spec, "", f"cannot read {path} at revision {rev}: {exc}",
                              expected="REV:PATH of a contract committed at REV", found=str(exc))
            return Version(spec, LoadResult(spec, None, [finding]), problems=[finding])
        result = load_contract(str(main_file), variables)
        labels = {str(main_file): spec}
        for document in result.documents:
            relative = posixpath.normpath(Path(os.path.relpath(document.file, temp)).as_posix())
            labels.setdefault(document.file, f"{rev}:{relative}")
        for finding in result.findings:
            if finding.file.startswith(temp):
                relative = posixpath.normpath(Path(os.path.relpath(finding.file, temp)).as_posix())
                labels.setdefault(finding.file, f"{rev}:{relative}")
    version = Version(spec, result, labels)
    version.result.findings[:] = version.shown(result.findings)
    return version


def materialise(rev: str, path: str, cwd: Path, dest: Path) -> tuple[Path, str]:
    """Write `path` at `rev`, and the files it references at the same revision, under `dest`.
    `path` is relative to the repository root, or to `cwd` when it starts with ./ or ../ (as in git)."""
    top = Path(_git(["rev-parse", "--show-toplevel"], cwd).decode().strip())
    prefix = _git(["rev-parse", "--show-prefix"], cwd).decode().strip()
    main = posixpath.normpath(prefix + path if path.startswith(("./", "../")) else path)
    if main.startswith("../"):
        raise GitError(f"{path} is outside the repository {top}")
    pending, seen = [main], set()
    while pending and len(seen) < MAX_GIT_FILES:
        current = pending.pop()
        if current in seen:
            continue
        seen.add(current)
        try:
            content = _git(["show", f"{rev}:{current}"], top)
        except GitError:
            if current == main:
                raise
            continue  # a referenced file missing at that revision: the loader reports it where it is referenced
        target = dest / current
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
        base = posixpath.dirname(current)
        for reference in referenced_files(content):
            resolved = posixpath.normpath(posixpath.join(base, reference))
            if not resolved.startswith("../"):
                pending.append(resolved)
    return dest / main, f"{rev}:{main}"


def referenced_files(content: bytes) -> list[str]:
    """Relative files a contract names in `$ref` and ODCS `imports` (`other.yaml#...`)."""
    try:
        data = yaml.safe_load(content)
    except yaml.YAMLError:
        return []
    found: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            reference = node.get("$ref") if isinstance(node.get("$ref"), str) else \
                node.get("to") if node.get("type") == "imports" and isinstance(node.get("to"), str) else None
            if reference and not reference.startswith(("http://", "https://")):
                file = reference.partition("#")[0]
                if file:
                    found.append(file)
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(data)
    return found


def _git(args: list[str], cwd: Path) -> bytes:
    try:
        completed = subprocess.run(["git", *args], cwd=cwd, capture_output=True, timeout=60)
    except FileNotFoundError:
        raise GitError("git is not installed") from None
    if completed.returncode != 0:
        lines = completed.stderr.decode(errors="replace").strip().splitlines()
        raise GitError(lines[0] if lines else f"git {' '.join(args)} failed")
    return completed.stdout
