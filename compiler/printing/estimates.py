"""What a card's print would warn of, known before anything is laid out: the print passes a
check runs on each file of a pack that prints (W0701 text that will not fit, W0711 art left no
room, W0706 characters no font has).

A print pass reads a file's clean cards with their rules text, made once for all of them, and
what the print needs of the pack: its card size and the file's source (to place a warning at the
character it is about). `PRINT_PASSES` is the one list the compiler's core runs them from; a
new print warning is a pass added here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from compiler.ir import Card
from compiler.printing.fit import estimated_overflows, words_of
from compiler.printing.glyphs import glyph_warnings
from compiler.ruleset import Ruleset
from compiler.rulestext import CardText, card_text
from dsl.spans import Diagnostic


@dataclass(frozen=True, slots=True)
class PrintedFile:
    """One file's clean cards as they would print, and what a print pass needs besides."""

    cards: Sequence[Card]
    texts: Sequence[CardText]  # each card's rules text, in the same order
    size: tuple[float, float]  # the card's width and height in mm, without bleed
    source: str  # the file's text


PrintPass = Callable[[Ruleset, PrintedFile], Iterable[Diagnostic]]


def overflow_pass(ruleset: Ruleset, printed: PrintedFile) -> Iterable[Diagnostic]:
    """W0701 and W0711: text the estimate says will not fit, art it leaves no room for."""
    return estimated_overflows(ruleset, list(printed.cards), printed.size, list(printed.texts))


def glyph_pass(ruleset: Ruleset, printed: PrintedFile) -> Iterable[Diagnostic]:
    """W0706: characters a card prints that no shipped or installed font has."""
    for card, text in zip(printed.cards, printed.texts, strict=True):
        yield from glyph_warnings(card, words_of(text), printed.source)


PRINT_PASSES: tuple[PrintPass, ...] = (overflow_pass, glyph_pass)
"""The print passes, in the order their warnings are reported."""


def print_warnings(
    ruleset: Ruleset, cards: Sequence[Card], size: tuple[float, float], source: str
) -> list[Diagnostic]:
    """Every print pass's warnings for one file's clean cards at that card size."""
    texts = [card_text(ruleset, card) for card in cards]  # the costly part: made once
    printed = PrintedFile(cards, texts, size, source)
    return [found for each in PRINT_PASSES for found in each(ruleset, printed)]
