"""What a seat can see, and a game dealt afresh in all it cannot.

A player at the table sees a card's face (its kind, title and option titles) but not which of
several look-alike variants it is, the size of a deck but not its order, and the dice already
rolled but not those to come. A seat that searches plays on copies of the game in which all of
that is dealt again at random (a determinization, as information-set MCTS calls it), from the
multiset of what it could be: the cards of each deck not yet drawn, with the card being asked
about swapped for any look-alike among them. What the copy is dealt depends only on what the
seat sees and its own random stream, so two games that differ in nothing the seat can see
give it the same copies, and the same answer.

Not yet dealt afresh: the secret cards of the other seats (what each was dealt face down is
played as it is), and the order of a deck's top cards a ruleset shuffles apart (`deck_tops`).
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Iterable

from runtime.cards import CardDef, CardInstance
from runtime.decisions import Decision
from runtime.dice import shuffle
from runtime.game import Game


def face(card: CardDef) -> Hashable:
    """What a player sees of a card before it resolves: its kind, title and option titles."""
    return (card.kind, card.title, tuple(option.title for option in card.options))


def _canonical(card: CardInstance) -> tuple[str, int, int]:
    definition = card.definition
    return (definition.file, definition.line, definition.variant or 0)


def drawn_since(kept: list[CardInstance], now: list[CardInstance]) -> int:
    """How many cards off the top of a deck as it was have been drawn by now (the top is the
    list's end)."""
    left = {card.uid for card in now}
    drawn = 0
    while drawn < len(kept) and kept[len(kept) - 1 - drawn].uid not in left:
        drawn += 1
    return drawn


class Dealer:
    """Deals copies of a game, kept as its turn began, afresh in what the seat asked a question
    cannot see: each deck's undrawn cards in a new order, and the card asked about any of its
    look-alikes among them. What can be worked out once a question is (which cards of each
    deck are drawn, their canonical order, the look-alikes) is, and each copy only shuffles."""

    def __init__(self, kept: Game, game: Game, decision: Decision) -> None:
        self.decks: list[tuple[str, int, list[int], list[int], int | None]] = []
        asked = decision.card
        for name, pile in kept.state.decks.items():
            split = len(pile) - drawn_since(pile, game.state.decks.get(name, []))
            order = _in_canonical_order(pile, range(split))
            top = None if asked is None else _last_drawn(asked, pile, split)
            alike = [] if top is None or asked is None else _alike_at(asked, pile, order)
            if alike and top is not None:  # the card itself among them, in canonical order
                alike = _in_canonical_order(pile, [*alike, top])
            self.decks.append((name, split, order, alike, top))

    def deal(self, copy: Game, stream: random.Random) -> None:
        """Deal this copy of the kept game afresh, from the seat's stream."""
        decks = copy.state.decks
        for name, split, order, alike, top in self.decks:
            pile = decks[name]
            unseen = [pile[at] for at in order]
            if top is not None and alike:
                picked = alike[stream.randrange(len(alike))]
                if picked != top:
                    swapped = order.index(picked)
                    unseen[swapped], pile[top] = pile[top], unseen[swapped]
                    # in the order it would have had, had the look-alike been drawn
                    unseen.sort(key=_canonical)
            shuffle(unseen, stream)
            pile[:split] = unseen


def _in_canonical_order(pile: list[CardInstance], places: Iterable[int]) -> list[int]:
    """Places in a pile, in the canonical order of the cards at them."""
    return sorted(places, key=lambda at: _canonical(pile[at]))


def _last_drawn(asked: CardDef, pile: list[CardInstance], split: int) -> int | None:
    """Where in the pile the card asked about was drawn from since the turn began, if it was."""
    for at in range(len(pile) - 1, split - 1, -1):
        if pile[at].definition is asked:
            return at
    return None


def _alike_at(asked: CardDef, pile: list[CardInstance], order: list[int]) -> list[int]:
    """The places of the undrawn look-alikes of a card, in canonical order."""
    seen = face(asked)
    return [at for at in order if face(pile[at].definition) == seen]
