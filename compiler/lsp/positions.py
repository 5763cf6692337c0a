"""Between our spans (1-based line and column, end exclusive, in characters) and LSP ranges
(0-based, in the client's units, UTF-16 unless it asked for other)."""

from __future__ import annotations

from lsprotocol import types
from pygls.workspace import ServerTextPosition, ServerTextRange, TextDocument

from dsl.spans import Span


def lsp_range(document: TextDocument, span: Span) -> types.Range:
    """The LSP range of a span of this document."""
    found = ServerTextRange(
        ServerTextPosition(span.line - 1, span.column - 1),
        ServerTextPosition(span.end_line - 1, span.end_column - 1),
    )
    return document.range_to_client_units(found)


def contains(span: Span, line: int, column: int) -> bool:
    """Whether a 0-based (line, column) in characters lies in a span (its end included, so
    a cursor just after a word still finds it)."""
    start = (span.line - 1, span.column - 1)
    end = (span.end_line - 1, span.end_column - 1)
    return start <= (line, column) <= end


def cursor(document: TextDocument, position: types.Position) -> tuple[int, int]:
    """A client's position as a 0-based (line, column) in characters of the document."""
    found = document.position_from_client_units(position)
    return found.line, found.character
