"""Characters a card prints that no font has: they would print as empty boxes (W0706).

A face's fonts are the shipped DejaVu families; where they lack a character, WeasyPrint asks
fontconfig for an installed font that has it (the stacks end in a generic family), so that
font is the fallback. A character neither has is warned of at the first place the card
writes it.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import unicodedata
from functools import cache
from pathlib import Path

from compiler.ir import Card
from compiler.printing.layout import FONTS, SHIPPED_FONTS
from dsl.spans import Diagnostic, Span

EVERY_FACE_HAS_BELOW = 0x0250
"""Latin, Latin-1 and Latin Extended-A and -B: every shipped face has them, no font is read."""
_BEYOND_EVERY_FACE = re.compile(f"[^\\x00-\\u{EVERY_FACE_HAS_BELOW - 1:04x}]")
"""A character at or above it: found by one regex pass, not a Python test of each character."""

FALLBACK_SECONDS = 5.0
"""How long asking fontconfig for one character may take before it counts as not found."""


COVERAGE = FONTS / "coverage.txt"
"""The code points the shipped faces cover, as ranges a line: reading the fonts' tables with
fontTools took a quarter of a second of every check, so `make fonts` writes them down once and a
test holds the file to the fonts."""


@cache
def shipped_coverage() -> frozenset[int]:
    """Every code point some shipped face has a glyph for."""
    covered: set[int] = set()
    for line in COVERAGE.read_text(encoding="ascii").splitlines():
        if line and not line.startswith("#"):
            first, _, last = line.partition("-")
            covered.update(range(int(first, 16), int(last or first, 16) + 1))
    return frozenset(covered)


def read_font_coverage() -> frozenset[int]:
    """Every code point some shipped face has a glyph for, read from the fonts themselves."""
    from fontTools.ttLib import TTFont

    covered: set[int] = set()
    for file in dict.fromkeys(file for _, file, _, _ in SHIPPED_FONTS):
        covered |= set(TTFont(FONTS / file, lazy=True)["cmap"].getBestCmap())
    return frozenset(covered)


def coverage_text(covered: frozenset[int]) -> str:
    """The coverage file's text: a header, then one range of code points a line."""
    lines = ["# Code points the shipped fonts cover; written by `make fonts`, do not edit."]
    points = sorted(covered)
    start = previous = points[0]
    for point in [*points[1:], -1]:
        if point != previous + 1:
            lines.append(f"{start:04x}" if start == previous else f"{start:04x}-{previous:04x}")
            start = point
        previous = point
    return "\n".join(lines) + "\n"


def write_coverage(target: Path = COVERAGE) -> None:
    """Write the coverage file from the fonts (`make fonts`)."""
    target.write_text(coverage_text(read_font_coverage()), encoding="ascii")


@cache
def installed_font_has(codepoint: int) -> bool:
    """Whether fontconfig knows an installed font with that character (no fontconfig: no)."""
    fc_list = shutil.which("fc-list")
    if fc_list is None:
        return False
    try:
        found = subprocess.run(
            [fc_list, f":charset={codepoint:x}", "family"],
            capture_output=True,
            text=True,
            timeout=FALLBACK_SECONDS,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return bool(found.stdout.strip())


def missing(text: str) -> list[str]:
    """The characters, in order, that neither a shipped nor an installed font can print."""
    wanted = dict.fromkeys(c for c in _BEYOND_EVERY_FACE.findall(text) if _printable(c))
    if not wanted:
        return []
    covered = shipped_coverage()
    return [c for c in wanted if ord(c) not in covered and not installed_font_has(ord(c))]


def _printable(character: str) -> bool:
    # Marks that shape no glyph of their own (joiners, variation selectors) print nothing.
    return unicodedata.category(character) not in ("Cc", "Cf", "Zs", "Zl", "Zp", "Mn")


def glyph_warnings(card: Card, printed: str, source: str) -> list[Diagnostic]:
    """W0706 when a card prints characters no font has: one warning a card, at the first
    place its source writes one of them (or its header, if the source spells it otherwise)."""
    lacking = missing(printed)
    if not lacking:
        return []
    lines = source.splitlines()
    at = card["at"]
    assert isinstance(at, list)
    line, column = at[0], at[1]
    places = (
        (number, lines[number - 1].find(character))
        for character in lacking
        for number in range(at[0], min(at[2], len(lines)) + 1)
    )
    line, index = next(((n, i) for n, i in places if i >= 0), (line, column - 1))
    shown = ", ".join(f"{c!r} (U+{ord(c):04X} {_named(c)})" for c in lacking[:MAX_LISTED])
    more = f" and {len(lacking) - MAX_LISTED} more" if len(lacking) > MAX_LISTED else ""
    return [
        Diagnostic(
            "W0706",
            "warning",
            f"no glyph in the shipped fonts or any installed font for {shown}{more}: "
            "they print as empty boxes",
            Span(str(card["file"]), line, index + 1, line, index + 2),
            "write them as words, or install a font that has them (fontconfig finds it)",
        )
    ]


def _named(character: str) -> str:
    """The character's Unicode name, or what it is when it has none (a private-use one)."""
    if unicodedata.category(character) == "Co":
        return "a private-use character, which only a font of its own draws"
    return unicodedata.name(character, "an unnamed character")


MAX_LISTED = 6
"""The most characters one warning names."""


if __name__ == "__main__":
    write_coverage()
