"""`pillbox fmt PATH... [--check] [--diff]`: card files in the one canonical layout.

Before a file is written, three safety checks, as gdtoolkit makes them: the new text parses
to the same cards (the syntax tree without positions), formatting it again changes nothing,
and every comment is still there. A failed check is a bug in pillbox: the file is left as it
was and the command exits 3. Exit codes are black's and ruff's: 0 nothing to change (or all
changed), 1 with `--check` something would change (or a file does not parse), 2 usage, 3 bug.
"""

from __future__ import annotations

import dataclasses
import difflib
import stat
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from compiler.errors import UsageError
from compiler.files import ChangedMeanwhile, write_atomically
from compiler.pack import display_path, read_card_file
from dsl.layout import LayoutError, Token, layout_tokens, tokens
from dsl.parser import parse
from dsl.spans import Diagnostic, Span

EXIT_CLEAN, EXIT_CHANGED, EXIT_BUG = 0, 1, 3


class UnsafeFormat(Exception):
    """The layout of a file failed a safety check: a bug in the formatter, never written."""

    def __init__(self, file: str, check: str) -> None:
        super().__init__(file, check)
        self.file, self.check = file, check

    def __str__(self) -> str:
        return f"{self.file}: the formatted text {self.check}; the file is left as it was"


def formatted(text: str, shown: str) -> tuple[str | None, list[Diagnostic]]:
    """The canonical layout of a file, proved safe; None and the diagnostics if it does not
    parse. Raises UnsafeFormat when a safety check fails."""
    parsed, problems = parse(text, shown)
    syntax = [d for d in problems if d.code.startswith("E01")]
    if syntax:
        return None, syntax
    written = tokens(text)
    try:
        result = layout_tokens(written)
    except LayoutError:
        return None, problems
    again, problems_again = parse(result, shown)
    if [d.code for d in problems_again if d.code.startswith("E01")]:
        raise UnsafeFormat(shown, "does not parse")
    if _shape(again) != _shape(parsed):
        raise UnsafeFormat(shown, "parses to other cards")
    laid_out = tokens(result)
    if layout_tokens(laid_out) != result:
        raise UnsafeFormat(shown, "changes when formatted again")
    if _comments(laid_out) != _comments(written):
        raise UnsafeFormat(shown, "lost a comment")
    return result, []


def _shape(node: Any) -> Any:
    """A syntax tree without its positions: what formatting must not change."""
    kind = type(node)
    names = _FIELDS.get(kind)
    if names is None:
        if not dataclasses.is_dataclass(node):
            if isinstance(node, list | tuple):
                return tuple(_shape(item) for item in node)
            return node
        names = _FIELDS[kind] = tuple(
            f.name for f in dataclasses.fields(node) if f.type not in ("Span", Span)
        )
    return (kind.__name__, tuple(_shape(getattr(node, name)) for name in names))


_FIELDS: dict[type, tuple[str, ...]] = {}
"""Each node class's fields that are not positions, found once."""


def _comments(found: list[Token]) -> Counter[str]:
    return Counter(t.text.rstrip() for t in found if t.kind == "comment")


def format_paths(paths: list[Path], check: bool, diff: bool, emit: Callable[[str], None]) -> int:
    """Format (or with `check`, only say which would change) every card file the paths name."""
    files = _card_files(paths)
    changed = unparsed = 0
    for path in files:
        shown = display_path(path)
        try:
            before = path.read_bytes()  # what an edit saved meanwhile is told from
        except OSError:
            before = b""
        text, problem = read_card_file(path)
        if text is None:
            assert problem is not None
            emit(f"{problem.span.file}: {problem.message}")
            unparsed += 1
            continue
        try:
            result, problems = formatted(text, shown)
        except UnsafeFormat as error:
            emit(f"error: {error} (this is a bug in pillbox fmt)")
            return EXIT_BUG
        if result is None:
            first = problems[0]
            emit(f"{shown}:{first.span.line}:{first.span.column}: cannot format: {first.message}")
            unparsed += 1
            continue
        if result == text:
            continue
        changed += 1
        if diff:
            emit(_diff(text, result, shown).rstrip("\n"))
        if check:
            emit(f"would reformat {shown}")
        else:
            try:
                _write_formatted(path, result, before)
            except ChangedMeanwhile:
                emit(f"{shown} changed while it was formatted: it is left as it is now")
                changed -= 1
                unparsed += 1
                continue
            emit(f"reformatted {shown}")
    kept = len(files) - changed - unparsed
    verb = "would be reformatted" if check else "reformatted"
    emit(
        f"{changed} file{'s' * (changed != 1)} {verb}, {kept} left unchanged"
        + (f", {unparsed} could not be formatted" if unparsed else "")
    )
    return EXIT_CHANGED if unparsed or (check and changed) else EXIT_CLEAN


def _write_formatted(path: Path, text: str, before: bytes) -> None:
    """Replace a card file with its formatted text: through a link, the file it leads to (the
    link stays a link); with the file's own permissions; and only if it still holds what was
    read (ChangedMeanwhile if not)."""
    target = path.resolve()

    def unchanged() -> bool:
        try:
            return target.read_bytes() == before
        except OSError:
            return False

    mode = stat.S_IMODE(target.stat().st_mode)
    write_atomically(target, text.encode("utf-8"), mode=mode, unchanged=unchanged)


def _diff(before: str, after: str, shown: str) -> str:
    return "".join(
        difflib.unified_diff(
            before.splitlines(keepends=True),
            after.splitlines(keepends=True),
            fromfile=f"{shown} (as written)",
            tofile=f"{shown} (formatted)",
        )
    )


def _card_files(paths: list[Path]) -> list[Path]:
    """The .card files named, and those below the folders named (not in hidden folders)."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found += sorted(
                p
                for p in path.rglob("*.card")
                if p.is_file()
                and not any(part.startswith(".") for part in p.relative_to(path).parts)
            )
        elif path.is_file():
            if path.suffix != ".card":
                raise UsageError(f"{path} is not a .card file")
            found.append(path)
        else:
            raise UsageError(f"{path}: no such file or folder")
    unique: dict[Path, Path] = {}  # a link and the file it leads to are one file: once
    for path in found:
        unique.setdefault(path.resolve(), path)
    return list(unique.values())
