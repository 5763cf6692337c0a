"""Render diagnostics as text (with the source line and a caret), JSON, or GitHub annotations."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping, Sequence

from dsl.spans import Diagnostic

Style = Callable[[str, str], str]
"""style(text, role) -> text, where role is one of error, warning, help, note, dim, bold."""


def plain(text: str, role: str) -> str:
    """A style that adds nothing."""
    return text


ANSI_CODES = {
    "error": "1;31",
    "warning": "1;33",
    "help": "1;36",
    "note": "1;34",
    "dim": "2",
    "bold": "1",
}
"""The SGR parameters of each role; compiler.terminal lets exactly these through."""


def ansi(text: str, role: str) -> str:
    """A style of ANSI colours for terminals."""
    code = ANSI_CODES.get(role)
    return f"\x1b[{code}m{text}\x1b[0m" if code else text


@functools.lru_cache(maxsize=16)
def _lines(source: str) -> tuple[str, ...]:
    """A file's lines, split once however many diagnostics it has (str hashes are cached)."""
    return tuple(source.split("\n"))


def render_text(diagnostic: Diagnostic, sources: Mapping[str, str], style: Style = plain) -> str:
    """`file:line:col: error[CODE]: message`, the source line, a caret underline, help."""
    span = diagnostic.span
    head = style(f"{diagnostic.severity}[{diagnostic.code}]", diagnostic.severity)
    lines = [
        f"{style(f'{span.file}:{span.line}:{span.column}:', 'bold')} {head}: {diagnostic.message}"
    ]
    source = sources.get(span.file)
    if source is not None:
        text_lines = _lines(source)
        if 1 <= span.line <= len(text_lines):
            shown = text_lines[span.line - 1].replace("\t", " ")
            gutter = str(span.line)
            pad = " " * len(gutter)
            start = max(span.column - 1, 0)
            if len(shown) > 160:
                window = max(start - 60, 0)
                shown = ("..." if window else "") + shown[window : window + 140] + "..."
                start = start - window + (3 if window else 0)
            end = span.end_column - 1 if span.end_line == span.line else len(shown)
            width = max(1, min(end, len(shown)) - start)
            lines.append(style(f"{pad} |", "dim"))
            lines.append(style(f"{gutter} | ", "dim") + shown)
            lines.append(
                style(f"{pad} | ", "dim") + " " * start + style("^" * width, diagnostic.severity)
            )
    if diagnostic.help:
        lines.append(f"  {style('help', 'help')}: {diagnostic.help}")
    for note in diagnostic.notes:
        lines.append(f"  {style('note', 'note')}: {note}")
    return "\n".join(lines)


def render_github(diagnostic: Diagnostic) -> str:
    """A GitHub workflow command, so CI shows the problem on the line in the pull request."""
    span = diagnostic.span
    message = diagnostic.message + (f" (help: {diagnostic.help})" if diagnostic.help else "")
    command = "error" if diagnostic.is_error else "warning"
    properties = (
        f"file={_escape_property(span.file)},line={span.line},col={span.column},"
        f"endLine={span.end_line},endColumn={span.end_column},"
        f"title={_escape_property(diagnostic.code)}"
    )
    return f"::{command} {properties}::{_escape_data(message)}"


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render_json(
    packs: Sequence[str],
    files: int,
    cards: int,
    executable: float,
    diagnostics: Sequence[Diagnostic],
) -> str:
    """The JSON report that other programs read."""
    payload = {
        "packs": list(packs),
        "files": files,
        "cards": cards,
        "errors": sum(1 for d in diagnostics if d.is_error),
        "warnings": sum(1 for d in diagnostics if not d.is_error),
        "executable": round(executable, 4),
        "diagnostics": [d.to_json() for d in diagnostics],
    }
    return json.dumps(payload, indent=2, ensure_ascii=False)


def counted(number: int, noun: str, many: str | None = None) -> str:
    """`1 card`, `2 cards`, `0 cards`; `many` for a noun that does not just take an s."""
    return f"{number} {noun if number == 1 else many or noun + 's'}"


def summary_line(
    name: str,
    cards: int,
    files: int,
    errors: int,
    warnings: int,
    executable: float,
    allowed: int = 0,
) -> str:
    """The closing line: `pack: 21 cards in 5 files, 0 errors, 0 warnings, 97% of ...`."""

    count = counted
    return (
        f"{name}: {count(cards, 'card')} in {count(files, 'file')}, {count(errors, 'error')}, "
        f"{count(warnings, 'warning')}"
        + (f" ({allowed} allowed by pack.yaml)" if allowed else "")
        + f", {round(executable * 100)}% of effect lines executable"
    )


def unchecked_line(manifest: str, errors: int, warnings: int) -> str:
    """The closing line of a pack whose pack.yaml or ruleset could not be read: no figures of
    cards, which were never read."""
    return (
        f"{manifest}: {counted(errors, 'error')}, {counted(warnings, 'warning')}; "
        "no card was checked: fix the errors above first"
    )
