"""Go to definition: a card title named in a test's `use`/`carry`/`play` to its card, and a
phrase or word of the ruleset to its entry (`compiler.lsp.words`)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from lsprotocol import types
from pygls.workspace import TextDocument

from compiler.lsp.entries import matched_at
from compiler.lsp.packs import PackChecker
from compiler.lsp.positions import cursor, lsp_range
from compiler.lsp.words import word_definitions
from compiler.pack import display_path
from dsl.spans import Span

_NAMED = re.compile(r'(?:^|[\s;{])(?:use|carry|play)\s+"((?:[^"\\\n]|\\.)*)"')
"""A test step naming a card by its title."""


def definitions(
    checker: PackChecker,
    document: TextDocument,
    at: types.Position,
    open_document: Callable[[str], TextDocument],
) -> list[types.Location]:
    """Where the card named under the cursor is defined (each variant of its title), or the
    ruleset's entry or word under it."""
    line, column = cursor(document, at)
    text = document.lines[line] if line < len(document.lines) else ""
    named = [m[1] for m in _NAMED.finditer(text) if m.start(1) <= column <= m.end(1)]
    pack = checker.of_document(document)
    if pack is None:
        return []
    if not named:
        shown = display_path(Path(document.path))
        matched = matched_at(pack.ruleset, shown, document.source, line, column)
        return word_definitions(pack.ruleset, document, at, matched)
    found = []
    for card in pack.cards:
        if card.ir["title"] == named[0]:
            uri = Path(card.ir["file"]).resolve().as_uri()
            span = Span.from_list(card.ir["file"], card.ir["at"])
            found.append(types.Location(uri=uri, range=lsp_range(open_document(uri), span)))
    return found
