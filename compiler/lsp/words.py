"""Go to definition of a ruleset word: a card kind, property, block, verb, stat, place or deck
under the cursor, to the line of the ruleset file (or the file it extends) that defines it."""

from __future__ import annotations

import re

from lsprotocol import types
from pygls.workspace import TextDocument

from compiler.lsp.completion import leading_words
from compiler.lsp.context import place_at
from compiler.lsp.positions import cursor
from compiler.ruleset import Ruleset, entry_places

PHRASE_SECTIONS = ("properties", "blocks", "verbs", "conditions", "modifiers", "values")
"""The sections whose entries a statement's first word starts (`gain` of `gain health 1`)."""

NAMED_SECTIONS = ("stats", "derived", "places", "decks")
"""The sections whose entries a card names in a phrase's slots (`health` of `gain health 1`)."""

_WORD = re.compile(r"[^\W\d][\w'-]*")
"""A word of a card line, as the ruleset's entries are named."""


def word_definitions(
    ruleset: Ruleset, document: TextDocument, at: types.Position
) -> list[types.Location]:
    """Where the ruleset defines the word under the cursor: an entry a statement starts
    with, a card kind in a header, or a stat, place or deck named anywhere else."""
    line, column = cursor(document, at)
    text = document.lines[line] if line < len(document.lines) else ""
    words = [m for m in _WORD.finditer(text) if m.start() <= column <= m.end()]
    if not words or _in_words(text, words[0].start()):
        return []
    word = words[0][0]
    line_start = document.offset_at_position(types.Position(line=line, character=0))
    place = place_at(document.source, line_start + words[0].start())
    sections: tuple[str, ...]
    if place.words:
        sections = NAMED_SECTIONS
    elif not place.headers:
        sections = ("kinds",)
    elif place.in_test:
        return []  # a test's steps are the grammar's words, not the ruleset's
    else:
        sections = PHRASE_SECTIONS
    found = []
    for section in sections:
        for name in _entries_named(ruleset, section, word):
            for path, yaml_line, yaml_column in entry_places(ruleset, section, name):
                start = types.Position(line=yaml_line - 1, character=yaml_column - 1)
                end = types.Position(line=yaml_line - 1, character=yaml_column - 1 + len(name))
                found.append(types.Location(uri=path.as_uri(), range=types.Range(start, end)))
    return found


def _entries_named(ruleset: Ruleset, section: str, word: str) -> list[str]:
    """The names of a section's entries a word stands for: by name, or for the sections of
    patterns, by the pattern's first word."""
    entries = ruleset.data.get(section) or {}
    if section not in PHRASE_SECTIONS:
        return [word] if word in entries else []
    found = []
    for name, entry in entries.items():
        pattern = entry if isinstance(entry, str) else (entry or {}).get("pattern", "")
        if leading_words(str(pattern)).split()[:1] == [word]:
            found.append(str(name))
    return found


def _in_words(text: str, column: int) -> bool:
    """Whether a column of a line is in a quoted text or a comment: the designer's words."""
    quoted = False
    index = 0
    while index < column:
        char = text[index]
        if char == "\\" and quoted:
            index += 1
        elif char == '"':
            quoted = not quoted
        elif char == "#" and not quoted:
            return True
        index += 1
    return quoted
