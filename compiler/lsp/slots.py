"""Completion after a statement's first words: what the ruleset's patterns take next there,
the words of a slot's vocabulary (the stats, places, decks... it accepts) or a pattern's own
next word (`for` of `gain health 1 for`)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from lsprotocol import types

from compiler.lsp.context import Place
from compiler.patterns import Element, Literal, Optional, PatternTable, SlotType
from compiler.ruleset import Ruleset

_NUMBER = re.compile(r"[+-]?\d+")
"""A word a number slot takes."""

Kind = types.CompletionItemKind


def slot_completions(ruleset: Ruleset, place: Place) -> list[types.CompletionItem]:
    """The words that may follow the complete words of the statement at a place."""
    typed = place.words[:-1] if place.typing else place.words
    found: dict[str, Kind] = {}
    for table, words in _tables(ruleset, place, typed):
        for pattern in table.patterns:
            _walk(pattern.elements, 0, words, 0, found)
    return [types.CompletionItem(label=word, kind=kind) for word, kind in sorted(found.items())]


def _tables(
    ruleset: Ruleset, place: Place, typed: Sequence[str]
) -> list[tuple[PatternTable, Sequence[str]]]:
    """The pattern tables a statement's words are matched against, with the words each gets:
    a card's properties and blocks, or the verbs of an effect (a check's and a condition's
    own table after `check` and `if`)."""
    if len(place.headers) == 1:
        return [(ruleset.properties, typed), (ruleset.blocks, typed)]
    if place.in_test or not typed:
        return []
    if typed[0] == "check":
        return [(ruleset.checks, typed[1:])]
    if typed[0] == "if":
        return [(ruleset.conditions, typed[1:])]
    return [(ruleset.verbs, typed)]


def _walk(
    elements: Sequence[Element],
    at: int,
    words: Sequence[str],
    taken: int,
    found: dict[str, Kind],
) -> None:
    """Match the words from `taken` against the elements from `at`; where the words run
    out, note what the next element accepts."""
    if at == len(elements):
        return
    element = elements[at]
    if isinstance(element, Optional):
        _walk((*element.elements, *elements[at + 1 :]), 0, words, taken, found)
        _walk(elements, at + 1, words, taken, found)
        return
    if taken == len(words):
        if isinstance(element, Literal):
            found.setdefault(element.word, Kind.Keyword)
        else:
            for word in element.type.words:
                found.setdefault(word, Kind.Value)
        return
    if isinstance(element, Literal):
        if element.word == words[taken]:
            _walk(elements, at + 1, words, taken + 1, found)
        return
    for count in _takes(element.type, words, taken):
        _walk(elements, at + 1, words, taken + count, found)


def _takes(kind: SlotType, words: Sequence[str], at: int) -> list[int]:
    """How many of the words from `at` a slot of this type may take."""
    if kind.integer is not None or kind.signed is not None:
        return [1] if _NUMBER.fullmatch(words[at]) else []
    if kind.text:
        return [1] if words[at].startswith('"') else []
    if not kind.words:
        return [1]  # a vocabulary with no words yet: the check says what is wrong
    counts = [len(parts) for parts in kind.phrases if tuple(words[at : at + len(parts)]) == parts]
    run = 0
    while at + run < len(words) and words[at + run] in kind.words and (kind.repeat or run < 1):
        run += 1
    return counts + list(range(1, run + 1))
