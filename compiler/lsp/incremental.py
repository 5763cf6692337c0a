"""Re-checking an edited file card by card: only the cards whose text changed run again.

A file is cut into its cards (the parser's own `split_cards`, each stretch moved to start at
the beginning of a line); each card is checked alone at its line, and its result is kept by
its text. A card that only moved (lines typed above it) keeps its result, its spans shifted,
unless it has diagnostics: their messages may name lines, so such a card is checked again.
Whatever the cut cannot vouch for (two cards on one line, a file with no card, many syntax
errors) is checked whole, as `check` does.
"""

from __future__ import annotations

import re
from dataclasses import replace
from itertools import pairwise
from typing import Any

from compiler.ir import CardFacts
from compiler.lower import LoweredCard
from compiler.pipeline import FileResult, check_file
from compiler.ruleset import Ruleset
from dsl.parser import MAX_SYNTAX_ERRORS, split_cards
from dsl.spans import Diagnostic

_KEPT_CARDS = 20_000
"""How many (file, card text) results are kept: a few large files' worth."""

_LINE_END = re.compile(r"[ \t\r]*(?:#[^\n]*)?\n")
"""What may follow a card's closing `}` on its line for the next card to start a new line."""

NO_CARDS = "W0408"
"""The warning about a file with no cards: a stretch of comments alone is no such file."""


def card_stretches(text: str) -> list[tuple[int, int]] | None:
    """The (start, end) offsets of each card's stretch of a text, each starting a line and
    together the whole text; None when a card ends where another starts on the same line."""
    cuts = [0]
    for piece in split_cards(text)[:-1]:
        end = piece.end
        if end <= cuts[-1]:
            continue
        if text[end - 1 : end] != "\n":
            rest = _LINE_END.match(text, end)
            if rest is None:
                return None
            end = rest.end()
        cuts.append(end)
    cuts.append(len(text))
    return [(start, end) for start, end in pairwise(cuts) if start < end]


def stretch_at(text: str, line: int) -> tuple[int, int, int] | None:
    """The (start, end) of the stretch of the card a 1-based line is in, and its first line.

    A stretch ends after its last line's break, so the line after it is the next card's."""
    stretches = card_stretches(text) or [(0, len(text))]
    first = 1
    for index, (start, end) in enumerate(stretches):
        lines = text.count("\n", start, end)
        if first <= line < first + lines or (index == len(stretches) - 1 and line >= first):
            return start, end, first
        first += lines
    return None


class CardChecker:
    """Checks edited files card by card, remembering each card's result by its text."""

    def __init__(self) -> None:
        self._kept: dict[tuple[object, ...], tuple[int, FileResult[CardFacts]]] = {}

    def check(
        self, ruleset: Ruleset, shown: str, text: str, size: tuple[float, float] | None
    ) -> FileResult[CardFacts]:
        """The same result as `check_file(...).facts()` of the whole text."""
        stretches = card_stretches(text)
        if stretches is None:
            return check_file(ruleset, shown, text, card_size=size).facts()
        cards: list[LoweredCard[CardFacts]] = []
        found: list[Diagnostic] = []
        line = 1
        for start, end in stretches:
            result = self._card(ruleset, shown, text[start:end], line, size)
            cards.extend(result.cards)
            found.extend(d for d in result.diagnostics if d.code != NO_CARDS)
            line += text.count("\n", start, end)
        if not cards or len(found) >= MAX_SYNTAX_ERRORS:
            return check_file(ruleset, shown, text, card_size=size).facts()
        return FileResult(cards, found)

    def _card(
        self,
        ruleset: Ruleset,
        shown: str,
        card: str,
        line: int,
        size: tuple[float, float] | None,
    ) -> FileResult[CardFacts]:
        key = (ruleset.digest, size, shown, card)  # an edited ruleset or card size: new results
        kept = self._kept.get(key)
        if kept is not None and kept[0] == line:
            return kept[1]
        if kept is not None and not kept[1].diagnostics:
            result = _moved(kept[1], line - kept[0])
        else:
            # blank lines before the card put its spans where they are in the file
            result = check_file(ruleset, shown, "\n" * (line - 1) + card, card_size=size).facts()
        if len(self._kept) >= _KEPT_CARDS:
            self._kept.clear()
        self._kept[key] = (line, result)
        return result


def _moved(result: FileResult[CardFacts], lines: int) -> FileResult[CardFacts]:
    """A result of a card without diagnostics, its card moved down some lines (or up)."""
    cards = [replace(card, ir=_shifted(card.ir, lines)) for card in result.cards]
    return FileResult(cards, [])


def _shifted(value: Any, lines: int) -> Any:
    """The IR facts with every `at` span (and each property's) moved by some lines."""
    if isinstance(value, dict):
        return {
            key: _shifted_span(item, lines)
            if key == "at"
            else {name: _shifted_span(at, lines) for name, at in item.items()}
            if key == "property_at"
            else _shifted(item, lines)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [_shifted(item, lines) for item in value]
    return value


def _shifted_span(at: list[int], lines: int) -> list[int]:
    line, column, end_line, end_column = at
    return [line + lines, column, end_line + lines, end_column]
