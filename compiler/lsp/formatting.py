"""Formatting: the whole document in `fmt`'s canonical layout, as one edit."""

from __future__ import annotations

from lsprotocol import types
from pygls.workspace import TextDocument

from compiler.fmt import UnsafeFormat, formatted


def format_edits(document: TextDocument) -> list[types.TextEdit]:
    """One edit replacing the whole text by its layout; none when it does not parse, is
    laid out already, or the layout fails a safety check (as `fmt` would refuse to write)."""
    text = document.source
    try:
        result, _ = formatted(text, document.path)
    except UnsafeFormat:
        return []
    if result is None or result == text:
        return []
    lines = document.lines
    end = types.Position(line=len(lines), character=0)
    return [types.TextEdit(range=types.Range(start=types.Position(0, 0), end=end), new_text=result)]
