"""docs/lint-codes.md follows the code table in dc_bridge/contract/findings.py, so the two cannot drift apart."""

import re
from pathlib import Path

import pytest

from dc_bridge.contract.findings import CODES

LINT_CODES = Path(__file__).resolve().parent.parent / "docs" / "lint-codes.md"


def sections() -> dict[str, str]:
    """`## DCBnnn` heading -> the text up to the next `## ` heading."""
    text = LINT_CODES.read_text(encoding="utf-8")
    found: dict[str, str] = {}
    for match in re.finditer(r"^## (DCB\d{3})\n(.*?)(?=^## |\Z)", text, flags=re.MULTILINE | re.DOTALL):
        code, body = match.groups()
        assert code not in found, f"{code} has two sections"
        found[code] = body
    return found


@pytest.mark.parametrize("code", sorted(CODES))
def test_every_code_has_a_section_with_its_severity_title_and_hint(code):
    body = sections().get(code)
    assert body is not None, f"docs/lint-codes.md has no `## {code}` heading"
    entry = CODES[code]
    # the first line of the section is `**<severity>** · <title>`; the fix hint follows verbatim
    first = body.strip().splitlines()[0]
    assert first == f"**{entry.severity}** · {entry.title}", f"{code}: found {first!r}"
    assert f"Fix: {entry.hint}\n" in body, f"{code}: the fix hint differs from dc_bridge/contract/findings.py"


def test_sections_are_in_code_order():
    assert list(sections()) == sorted(sections())


def test_no_code_is_named_that_the_table_does_not_have():
    named = set(re.findall(r"\bDCB\d{3}\b", LINT_CODES.read_text(encoding="utf-8")))
    assert named - set(CODES) == set()


ROOT = LINT_CODES.parent.parent


def test_the_readme_lists_every_docs_page():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"\]\((docs/[\w.-]+\.md)\)", readme))
    pages = {f"docs/{page.name}" for page in (ROOT / "docs").glob("*.md")}
    assert pages - listed == set(), "README.md's Documentation list leaves these out"


def test_no_file_of_the_project_cites_the_design_notes_outside_it():
    """The design notes live outside the repository: what a maintainer needs of them is in docs/."""
    import subprocess

    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    outside = re.compile("DESIGN" + r"(?:\.md| section)|\.\./" + "shared/|shared/(?:seeds|STYLE)")
    citing = [name for name in tracked if (ROOT / name).is_file() and (ROOT / name).suffix in (".py", ".md", ".yaml", ".toml", ".txt", ".j2")
              and outside.search((ROOT / name).read_text(encoding="utf-8", errors="replace"))]
    assert citing == []
