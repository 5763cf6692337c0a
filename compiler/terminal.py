"""The output boundary: every line pillbox prints passes here, made safe for a terminal.

Card text, titles, file names and ruleset words come from untrusted packs and reach the
terminal in diagnostics, source excerpts, test failures, event logs and rules text. A control
character there could clear the screen, set the window title (OSC sequences, which click does
not strip even from piped output), rewrite a line with a carriage return, or reorder what is
read with a bidirectional override. So each is made visible at the one place text leaves
pillbox, instead of where each kind of text is made.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable

import click

from compiler.render import ANSI_CODES, Style, ansi, plain

_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
"""C0 controls but tab and newline, DEL, C1 controls, bidirectional overrides and isolates,
and lone surrogates (undecodable bytes of a file name, which no terminal encoding can show)."""

_OWN_COLOURS = re.compile(
    "(\x1b\\[(?:"
    + "|".join(re.escape(code) for code in sorted({*ANSI_CODES.values(), "0"}))
    + ")m)"
)
"""The colour sequences the `ansi` style writes, and nothing else."""


def _visible(found: re.Match[str]) -> str:
    """A C0 control as its one-column picture (␛, ␇, ␍), so carets under excerpts stay in
    place; anything else as a `\\uXXXX` escape, which also leaves JSON output valid JSON that
    reads back as the same text."""
    code = ord(found.group())
    return chr(0x2400 + code) if code < 0x20 else f"\\u{code:04x}"


def terminal_safe(text: str, style: Style = plain) -> str:
    """Text with every control character made visible, but the colours `style` writes kept.

    With colours on, a card's text could hold one of those few colour sequences too and
    colour what follows it; nothing else (no cursor, title, screen or hidden text) gets by.
    """
    if style is not ansi:
        return _UNSAFE.sub(_visible, text)
    parts = _OWN_COLOURS.split(text)
    return "".join(
        part if index % 2 else _UNSAFE.sub(_visible, part) for index, part in enumerate(parts)
    )


def echo(style: Style = plain, err: bool = False) -> Callable[[str], None]:
    """A function that prints a line to stdout (or stderr) through `terminal_safe`."""
    colour = style is ansi

    def emit(text: str) -> None:
        click.echo(terminal_safe(text, style), err=err, color=colour)

    return emit


def data_out(style: Style = plain) -> Callable[[str], None]:
    """A function that writes data (a CSV) to stdout as it is, unless stdout is a terminal:
    redirected to a file or a pipe, it must read back byte for byte; on a screen it is text."""
    shown = echo(style)

    def emit(text: str) -> None:
        if sys.stdout.isatty():
            shown(text)
        else:
            click.echo(text)

    return emit
