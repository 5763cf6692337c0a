"""Go to definition of a ruleset word: a card kind, property, block, verb, stat, place or deck
under the cursor, to the line of the ruleset file (or the file it extends) that defines it.

On a phrase that matched an entry (`compiler.lsp.entries`), that entry is the one answer,
wherever the cursor is in it, but on a slot's word that names a stat, place or deck."""

from __future__ import annotations

import re

from lsprotocol import types
from pygls.workspace import TextDocument

from compiler.lsp.completion import leading_words
from compiler.lsp.context import place_at
from compiler.lsp.entries import Matched
from compiler.lsp.positions import cursor
from compiler.patterns import Element, Literal, Optional
from compiler.ruleset import Ruleset, entry_places

PHRASE_SECTIONS = ("properties", "blocks", "verbs", "conditions", "modifiers", "values")
"""The sections whose entries a statement's first word starts (`gain` of `gain health 1`)."""

NAMED_SECTIONS = ("stats", "derived", "places", "decks")
"""The sections whose entries a card names in a phrase's slots (`health` of `gain health 1`)."""

_WORD = re.compile(r"[^\W\d][\w'-]*")
"""A word of a card line, as the ruleset's entries are named."""


def word_definitions(
    ruleset: Ruleset, document: TextDocument, at: types.Position, matched: Matched | None
) -> list[types.Location]:
    """Where the ruleset defines the word under the cursor: the entry its phrase matched, a
    card kind in a header, or a stat, place or deck named in a slot; on a phrase that matched
    nothing, each entry its first word starts."""
    line, column = cursor(document, at)
    text = document.lines[line] if line < len(document.lines) else ""
    words = [m for m in _WORD.finditer(text) if m.start() <= column <= m.end()]
    if _in_words(text, words[0].start() if words else column):
        return []
    if matched is not None and not (words and _names_a_word(ruleset, matched, words[0][0])):
        entry = entry_location(ruleset, matched.section, matched.name)
        return [] if entry is None else [entry]
    if not words:
        return []
    line_start = document.offset_at_position(types.Position(line=line, character=0))
    word = words[0][0]
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


def entry_location(ruleset: Ruleset, section: str, name: str) -> types.Location | None:
    """Where an entry is defined: its key in the first of the files the ruleset merges that
    writes it, its own first (each file that writes an entry writes its pattern)."""
    places = entry_places(ruleset, section, name)
    if not places:
        return None
    path, yaml_line, yaml_column = places[0]
    start = types.Position(line=yaml_line - 1, character=yaml_column - 1)
    end = types.Position(line=yaml_line - 1, character=yaml_column - 1 + len(name))
    return types.Location(uri=path.as_uri(), range=types.Range(start, end))


def _names_a_word(ruleset: Ruleset, matched: Matched, word: str) -> bool:
    """Whether a word of a matched phrase fills a slot with a stat, place or deck (`health` of
    `gain health 1`): a word the pattern writes itself is the entry's."""
    pattern = getattr(ruleset, matched.section).by_name[matched.name]
    if word in _literals(pattern.elements):
        return False
    return any(_entries_named(ruleset, section, word) for section in NAMED_SECTIONS)


def _literals(elements: tuple[Element, ...]) -> set[str]:
    """The words a pattern writes itself, its optional parts' too."""
    found = set()
    for element in elements:
        if isinstance(element, Literal):
            found.add(element.word)
        elif isinstance(element, Optional):
            found |= _literals(element.elements)
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
