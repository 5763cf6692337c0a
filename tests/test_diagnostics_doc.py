"""docs/diagnostics.md is executable: every code has a section, and every example does what it says.

Each `## E0101: title` section holds a bad example and, after a line `Fixed:`, the fixed one.
`card` examples are written as a card file into a pack that uses the coma-ward ruleset;
`yaml` examples are a whole pack.yaml, checked together with one valid card file. The bad
example must report the section's code; the fixed one must report neither that code nor
any error (warnings of other codes are allowed). `text` examples are prose, never run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from compiler.check import check_paths
from dsl.spans import Diagnostic

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "diagnostics.md"
SOURCE_DIRS = ("dsl", "compiler")

CODE_RE = re.compile(r'"([EW][0-9]{4})"')
"""The same pattern as `grep -rnoE '"[EW][0-9]{4}"' dsl compiler`."""

HEADING_RE = re.compile(r"^## (.*)$", re.MULTILINE)
CODE_HEADING_RE = re.compile(r"^([EW][0-9]{4}): (\S.*)$")
FENCE_RE = re.compile(r"^```([\w-]*)[ \t]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
FIXED_RE = re.compile(r"^\**Fixed\b.*:\**\s*$")

RUN_KINDS = ("card", "yaml")
"""Info strings of the examples the test runs; others (`text`, `json`) are only read."""

PACK_YAML = """\
pack: doc-example
title: Documentation example
version: 0.1.0
ruleset: coma-ward
"""

VALID_CARD = """\
room "Linen Cupboard" {
    number 8
    when revealed {
        say "Clean sheets, folded with terrible care."
        draw item
    }
}
"""


@dataclass(frozen=True)
class Example:
    """One fenced block of a section."""

    info: str
    text: str
    fixed: bool


@dataclass
class Section:
    """One `## CODE: title` section of the document."""

    code: str
    title: str
    body: str
    examples: list[Example] = field(default_factory=list)

    def first(self, fixed: bool) -> Example | None:
        """The first runnable bad (or fixed) example, if any."""
        return next(
            (e for e in self.examples if e.fixed is fixed and e.info in RUN_KINDS),
            None,
        )


def parse_doc(text: str) -> list[Section]:
    """Split the document into code sections and their fenced examples."""
    headings = list(HEADING_RE.finditer(text))
    sections: list[Section] = []
    for index, heading in enumerate(headings):
        found = CODE_HEADING_RE.match(heading.group(1).strip())
        if found is None:
            continue
        end = headings[index + 1].start() if index + 1 < len(headings) else len(text)
        body = text[heading.end() : end]
        section = Section(found.group(1), found.group(2).strip(), body)
        previous_end = 0
        for fence in FENCE_RE.finditer(body):
            before = body[previous_end : fence.start()].strip().splitlines()
            label = before[-1].strip() if before else ""
            section.examples.append(
                Example(fence.group(1), fence.group(2), bool(FIXED_RE.match(label)))
            )
            previous_end = fence.end()
        sections.append(section)
    return sections


def source_codes() -> set[str]:
    """Every diagnostic code written as a string literal in dsl/ and compiler/."""
    codes: set[str] = set()
    for folder in SOURCE_DIRS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            codes.update(CODE_RE.findall(path.read_text(encoding="utf-8")))
    return codes


SECTIONS = parse_doc(DOC.read_text(encoding="utf-8"))
BY_CODE = {s.code: s for s in SECTIONS}
SOURCE_CODES = source_codes()
RUNNABLE = [s for s in SECTIONS if s.first(fixed=False) is not None]


def number(code: str) -> tuple[int, str]:
    """Sort key: the number of a code, then its letter (warnings sit in their group)."""
    return int(code[1:]), code[0]


SOURCE_ORDER: list[str] = sorted(SOURCE_CODES, key=number)


def check_example(tmp_path: Path, example: Example) -> list[Diagnostic]:
    """Check an example in a fresh pack folder; return every diagnostic reported."""
    folder = tmp_path / "pack"
    folder.mkdir()
    if example.info == "card":
        (folder / "pack.yaml").write_text(PACK_YAML, encoding="utf-8")
        (folder / "example.card").write_text(example.text, encoding="utf-8")
    else:
        (folder / "pack.yaml").write_text(example.text, encoding="utf-8")
        (folder / "example.card").write_text(VALID_CARD, encoding="utf-8")
    return check_paths([folder], use_cache=False).diagnostics


def shown(diagnostics: list[Diagnostic]) -> str:
    """Diagnostics as lines, for assertion messages."""
    return (
        "\n".join(
            f"{d.span.line}:{d.span.column} {d.severity}[{d.code}] {d.message}" for d in diagnostics
        )
        or "(no diagnostics)"
    )


# ---------------------------------------------------------------- the document's shape


def test_document_has_sections() -> None:
    assert SECTIONS, f"{DOC} has no `## CODE: title` sections"
    assert len(RUNNABLE) >= 40, "most codes should have a runnable example"


def test_sections_are_unique_and_ordered() -> None:
    codes = [s.code for s in SECTIONS]
    duplicates = sorted({c for c in codes if codes.count(c) > 1})
    assert not duplicates, f"codes with more than one section: {duplicates}"
    assert codes == sorted(codes, key=number), "sections must be ordered by code number"


@pytest.mark.parametrize("code", SOURCE_ORDER)
def test_source_code_is_documented(code: str) -> None:
    assert code in BY_CODE, f"{code} is raised in {'/'.join(SOURCE_DIRS)} but has no section"


@pytest.mark.parametrize("code", [s.code for s in SECTIONS])
def test_documented_code_exists_in_source(code: str) -> None:
    assert code in SOURCE_CODES, f"{code} has a section but is raised nowhere in the source"


@pytest.mark.parametrize("code", [s.code for s in SECTIONS])
def test_section_has_description_and_example(code: str) -> None:
    section = BY_CODE[code]
    prose = FENCE_RE.sub("", section.body).strip()
    assert section.title, f"{code} has no title"
    assert "fires" in prose.lower(), f"{code} should say when it fires"
    assert section.examples, f"{code} has no example"
    bad = section.first(fixed=False)
    if bad is not None:
        fixed = section.first(fixed=True)
        assert fixed is not None, f"{code} has a bad {bad.info} example but no `Fixed:` one"
        assert fixed.info == bad.info, f"{code}: the fixed example is {fixed.info}, not {bad.info}"
        assert fixed.text != bad.text, f"{code}: the fixed example is the bad one"


# ---------------------------------------------------------------- the examples run


@pytest.mark.parametrize("code", [s.code for s in RUNNABLE])
def test_bad_example_reports_its_code(code: str, tmp_path: Path) -> None:
    example = BY_CODE[code].first(fixed=False)
    assert example is not None
    diagnostics = check_example(tmp_path, example)
    found = [d for d in diagnostics if d.code == code]
    assert found, f"the bad example of {code} does not report it:\n{shown(diagnostics)}"
    severity = "warning" if code.startswith("W") else "error"
    assert all(d.severity == severity for d in found), shown(found)


@pytest.mark.parametrize("code", [s.code for s in RUNNABLE])
def test_fixed_example_is_clean(code: str, tmp_path: Path) -> None:
    example = BY_CODE[code].first(fixed=True)
    assert example is not None, f"{code} has no `Fixed:` example"
    diagnostics = check_example(tmp_path, example)
    same = [d for d in diagnostics if d.code == code]
    errors = [d for d in diagnostics if d.is_error]
    assert not same, f"the fixed example of {code} still reports it:\n{shown(same)}"
    assert not errors, f"the fixed example of {code} has errors:\n{shown(errors)}"


def test_valid_card_is_clean(tmp_path: Path) -> None:
    """The card that accompanies the pack.yaml examples must itself check clean, but for what
    a whole game needs besides it (W0324: one room is no game)."""
    diagnostics = check_example(tmp_path, Example("yaml", PACK_YAML, fixed=True))
    assert {d.code for d in diagnostics} == {"W0324"}, shown(diagnostics)
