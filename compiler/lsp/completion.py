"""Completion of the ruleset's words where they may stand (a slot's after a statement's first
words: `compiler.lsp.slots`), and of card titles in tests."""

from __future__ import annotations

import re
from typing import Any

from lsprotocol import types
from pygls.workspace import ServerTextPosition, ServerTextRange, TextDocument

from compiler.errors import UsageError
from compiler.lsp.context import Place, place_at
from compiler.lsp.packs import PackChecker
from compiler.lsp.positions import cursor
from compiler.lsp.slots import slot_completions
from compiler.ruleset import Ruleset
from compiler.vocab import vocabulary

_TITLE_SO_FAR = re.compile(r'(?:^|[\s;{])(?:use|carry|play)\s+"([^"]*)$')
"""A test step naming a card, its title typed up to the cursor."""

_HEADER = re.compile(r'^[ \t]*(\S+)[ \t]+"((?:[^"\\\n]|\\.)*)"', re.MULTILINE)
"""A card's `kind "Title"`, found in text that may not parse yet (as while it is typed)."""

_OPTION_SO_FAR = re.compile(r'(?:^|[\s;{])choose\s+"([^"]*)$')
"""A test's answer naming an option, its title typed up to the cursor."""

_OPTION = re.compile(r'(?:^|[\s;{])option[ \t]+"((?:[^"\\\n]|\\.)*)"')
"""An option's title, found in text that may not parse yet."""

TEST_STEPS = ("given", "use", "carry", "play", "choose", "dice", "expect", "next turn")
"""The words a step of a card's test starts with (the grammar's own)."""

EFFECT_FORMS = ("if", "choose", "may", "check", "roll", "repeat", "say", "rule")
"""The control forms that may stand where an effect does."""

Kind = types.CompletionItemKind


def completions(
    checker: PackChecker, document: TextDocument, at: types.Position
) -> list[types.CompletionItem]:
    """What may be typed at a position of a document, in its pack's ruleset."""
    pack = checker.of_document(document)
    if pack is None:
        return []
    line, column = cursor(document, at)
    typed = document.lines[line][:column] if line < len(document.lines) else ""
    offset = document.offset_at_position(at)
    title, option = _TITLE_SO_FAR.search(typed), _OPTION_SO_FAR.search(typed)
    if title is not None:
        names = {*pack.titles, *_typed_titles(document.source, pack.ruleset)}
        return _titles(document, line, column, title.group(1), names)
    if option is not None and place_at(document.source, offset).in_test:
        names = set(_OPTION.findall(_card_around(document.source, offset, pack.ruleset)))
        return _titles(document, line, column, option.group(1), names)
    place = place_at(document.source, document.offset_at_position(at))
    if not place.at_start:
        return slot_completions(pack.ruleset, place)
    try:
        words = vocabulary(pack.ruleset, place.kind if place.headers else None)
    except UsageError:  # a card of a kind the ruleset lacks: its own diagnostic says so
        words = vocabulary(pack.ruleset)
    return _items(place, words)


def _titles(
    document: TextDocument, line: int, column: int, so_far: str, names: set[str]
) -> list[types.CompletionItem]:
    """Titles to put between a step's quotes, in place of what is typed of one so far."""
    start = ServerTextPosition(line, column - len(so_far))
    where = document.range_to_client_units(ServerTextRange(start, ServerTextPosition(line, column)))
    return [
        types.CompletionItem(label=name, kind=Kind.Reference, text_edit=types.TextEdit(where, name))
        for name in sorted(names)
    ]


def _card_around(text: str, offset: int, ruleset: Ruleset) -> str:
    """The text of the card an offset is in: from its header to the next card's."""
    starts = [m.start() for m in _HEADER.finditer(text) if m[1] in ruleset.kinds]
    before = [start for start in starts if start <= offset]
    after = [start for start in starts if start > offset]
    return text[before[-1] if before else 0 : after[0] if after else len(text)]


def _typed_titles(text: str, ruleset: Ruleset) -> set[str]:
    """The titles of the cards of a text by their headers, whether the cards parse or not."""
    return {match[2] for match in _HEADER.finditer(text) if match[1] in ruleset.kinds}


def _items(place: Place, words: dict[str, Any]) -> list[types.CompletionItem]:
    if not place.headers:
        return [
            _item(
                kind["kind"],
                Kind.Class,
                f"a card of the {kind['deck']} deck" if kind["deck"] else "a card in no deck",
            )
            for kind in words["kinds"]
        ]
    if len(place.headers) == 1:
        items = [
            _entry(entry, Kind.Property) for kind in words["kinds"] for entry in kind["properties"]
        ]
        items += [_entry(entry, Kind.Module) for kind in words["kinds"] for entry in kind["blocks"]]
        items += [_item("test", Kind.Keyword, "a test of this card")]
        if any(kind["options"] for kind in words["kinds"]):
            items.append(_item("option", Kind.Keyword, "one choice of this card"))
        return _unique(items)
    if place.in_test:
        return [_item(step, Kind.Keyword, "a step of a test") for step in TEST_STEPS]
    items = [_entry(entry, Kind.Function) for entry in words["verbs"]]
    items += [_item(form, Kind.Keyword, "") for form in EFFECT_FORMS]
    return _unique(items)


def leading_words(pattern: str) -> str:
    """The words a pattern starts with, before its first slot (`gain` of `gain {stat} 1`)."""
    found = []
    for word in pattern.split():
        if word.startswith(("{", "[")):
            break
        found.append(word)
    return " ".join(found)


def _entry(entry: dict[str, str], kind: Kind) -> types.CompletionItem:
    item = _item(leading_words(entry["pattern"]), kind, entry["summary"])
    item.detail = entry["pattern"]
    return item


def _item(label: str, kind: Kind, summary: str) -> types.CompletionItem:
    return types.CompletionItem(label=label, kind=kind, documentation=summary or None)


def _unique(items: list[types.CompletionItem]) -> list[types.CompletionItem]:
    """One item per word (a verb's patterns may share their first words), the first kept."""
    seen: dict[str, types.CompletionItem] = {}
    for item in items:
        if item.label and item.label not in seen:
            seen[item.label] = item
    return list(seen.values())
