"""How much text a card prints and whether it fits its card size: the estimate `print`
starts its layout from and `check` warns from (W0701), before any page is laid out."""

from __future__ import annotations

from dataclasses import dataclass

from compiler.ir import Card
from compiler.passes import kind_span, span_of
from compiler.printing.art import card_art
from compiler.ruleset import Ruleset
from compiler.rulestext import CardText, card_text
from dsl.spans import Diagnostic

FIT_STEPS = (1.0, 0.9, 0.8, 0.7)
"""Font scales tried, largest first, until the card's text fits; past the last, a warning."""

CHARS_PER_MM2 = 0.16
"""Characters of the base text size one square millimetre of a card's text area holds, about."""

LINE_COST = 22
"""Characters' worth of room a paragraph loses to its last, partly filled line and spacing."""

FACT_COST = 6
"""Characters' worth of room a tag's frame and gap take (tags flow along a line)."""

ROOMY_SHARE = 0.33
"""A card whose text takes at most this share of the room is printed larger, with its motif."""

SHORT_FACT = 28
"""A printed property longer than this is a paragraph, not a tag."""


@dataclass(frozen=True)
class PrintedText:
    """A card's printed text, sorted as a face lays it out, and its length in characters."""

    printed: CardText
    narrated: str | None  # the property read aloud, printed in the card's lead
    shown: list[str]  # the other printed properties
    facts: list[str]  # the short ones, printed as tags
    length: int  # characters, each paragraph and heading costing part of a line too


def printed_text(ruleset: Ruleset, card: Card, printed: CardText | None = None) -> PrintedText:
    """What a card prints and how long it is (from its rules text, when already made)."""
    printed = card_text(ruleset, card) if printed is None else printed
    kind = ruleset.kinds.get(card["kind"])
    lead = kind.narrated if kind is not None else None
    narrated = dict(printed.properties).get(lead) if lead is not None else None
    marks = kind.marks if kind is not None else ()
    # A property printed as boxes to mark is not printed as a tag too.
    shown = [text for name, text in printed.properties if name != lead and name not in marks]
    # Short properties read as tags (Weapon, Attack +1); long ones (an introduction) as text.
    facts = [text for text in shown if len(text) <= SHORT_FACT]
    paragraphs = [*notes_text(shown), narrated or "", card["title"] * 2, *printed.rules]
    paragraphs += printed.flavour
    for label, body in printed.options:
        paragraphs += [label, label, *body.split("\n")]  # listed first, then above the outcome
    for label, body in printed.blocks:
        paragraphs += [label, *body.split("\n")]
    length = sum(len(p) + LINE_COST for p in paragraphs if p)
    length += sum(len(fact) + FACT_COST for fact in facts)  # tags share their lines
    return PrintedText(printed, narrated, shown, facts, length)


def printed_words(ruleset: Ruleset, card: Card) -> str:
    """Every word a card prints, run together: what its fonts must have glyphs for."""
    return words_of(card_text(ruleset, card))


def words_of(text: CardText) -> str:
    """Every word of a card's rules text, run together."""
    parts = [text.title, *(shown for _, shown in text.properties), *text.rules, *text.flavour]
    parts += [part for pair in (*text.options, *text.blocks) for part in pair]
    return "\n".join(parts)


def notes_text(shown: list[str]) -> list[str]:
    """The printed properties too long to be tags: they are paragraphs."""
    return [text for text in shown if len(text) > SHORT_FACT]


ART_SHARES = (0.46, 0.36, 0.2)
"""A card's art box is this share of the card's height: the largest beside which the text
fits unshrunk, else the smallest (and the text shrinks as it must)."""

ART_GAP = 1.4
"""Millimetres between the art box and the text below it."""


def text_area(width: float, height: float, art: float = 0.0) -> float:
    """The square millimetres of a card of that size its text may fill, beside an art box of
    that share of its height (0: no art)."""
    below_art = art * height + ART_GAP if art else 0.0
    return max(width - 8, 10) * max(height - 24 - below_art, 10)


def fit_step(length: int, width: float, height: float, art: float = 0.0) -> int:
    """The first of FIT_STEPS at which that much text fits, or the last."""
    area = text_area(width, height, art)
    return next(
        (i for i, scale in enumerate(FIT_STEPS) if length <= area * CHARS_PER_MM2 / scale**2),
        len(FIT_STEPS) - 1,
    )


def overflows(length: int, width: float, height: float, art: float = 0.0) -> bool:
    """Whether that much text is too long even at the smallest step."""
    return length > text_area(width, height, art) * CHARS_PER_MM2 / FIT_STEPS[-1] ** 2


def art_share(length: int, width: float, height: float) -> float:
    """The share of the card's height its art box takes, beside that much text: none when
    even the smallest box would push out text that fits without one (the rules come first)."""
    smallest = ART_SHARES[-1]
    if overflows(length, width, height, smallest) and not overflows(length, width, height):
        return 0.0
    return next(
        (share for share in ART_SHARES if fit_step(length, width, height, share) == 0), smallest
    )


def no_room_for_art(card: Card) -> Diagnostic:
    """W0711 at the card's `art` line (or its header): its text leaves no room for the art."""
    at = (card.get("property_at") or {}).get("art")
    return Diagnostic(
        "W0711",
        "warning",
        f"the text of {card['kind']} {card['title']!r} leaves no room for its art: "
        "printed without it",
        span_of(card, at) if at else kind_span(card),
        "shorten the text, or print on a larger card size (--card tarot)",
    )


def overflow_warning(card: Card) -> Diagnostic:
    """W0701 at the card's header: its text does not fit, even shrunk."""
    return Diagnostic(
        "W0701",
        "warning",
        f"the text of {card['kind']} {card['title']!r} does not fit on the card, even shrunk",
        kind_span(card),
        "shorten the text, or print on a larger card size (--card tarot)",
    )


def estimated_overflows(
    ruleset: Ruleset,
    cards: list[Card],
    size: tuple[float, float],
    texts: list[CardText] | None = None,
) -> list[Diagnostic]:
    """W0701 for each card whose text the estimate says will not fit at that card size, and
    W0711 for each whose art it leaves no room for (beside the art the card names: a pack's
    fallback art is not known here, and print warns of that). `texts`: the cards' rules
    text, when the caller has made it already."""
    found = []
    for index, card in enumerate(cards):
        length = printed_text(ruleset, card, texts[index] if texts else None).length
        art = art_share(length, *size) if card_art(card) else 0.0
        if card_art(card) and not art:
            found.append(no_room_for_art(card))
        if overflows(length, *size, art):
            found.append(overflow_warning(card))
    return found
