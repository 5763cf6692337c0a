"""What a seat can see, and a game dealt afresh in all it cannot.

A player at the table sees a card's face (its kind, title and option titles) but not which of
several look-alike variants it is, the size of a deck but not its order, and the dice already
rolled but not those to come. A seat that searches plays on copies of the game in which all of
that is dealt again at random (a determinization, as information-set MCTS calls it), from the
multiset of what it could be: the cards of each deck not yet drawn, with the card being asked
about swapped for any look-alike among them, and the cards of the kinds the ruleset deals face
down (`hidden: true`) that the other seats hold, dealt again from those and the undrawn ones.
What the copy is dealt depends only on what the seat sees and its own random stream, so two
games that differ in nothing the seat can see give it the same copies, and the same answer.
A hidden card the game has since shown to every seat (the condition its kind's `shown_when:`
names holds of it) is seen, and stays where it is.

Not yet read: the order of a deck's top cards a ruleset shuffles apart (`deck_tops`) is
shuffled as one with the rest.
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Iterable

from runtime.cards import CardDef, CardInstance
from runtime.decisions import Decision
from runtime.dice import shuffle
from runtime.game import Game
from runtime.state import Actor


def face(card: CardDef) -> Hashable:
    """What a player sees of a card before it resolves: its kind, title and option titles."""
    return (card.kind, card.title, tuple(option.title for option in card.options))


def face_down(game: Game, card: CardInstance) -> bool:
    """Whether the other seats see only a card's back: its kind is dealt face down, and the
    condition that shows it (`shown_when:`) does not hold of it yet."""
    kind = card.definition.kind
    if kind not in game.rules.hidden:
        return False
    shown = game.rules.shown_when.get(kind)
    if shown is None:
        return True
    condition = game.module.conditions.get(shown)
    return condition is None or not condition(game, card)


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
    look-alikes among them, and the cards of hidden kinds the other seats hold dealt again from
    those and the undrawn ones of their kinds. What can be worked out once a question is (which
    cards of each deck are drawn, their canonical order, the look-alikes, the hidden cards) is,
    and each copy only shuffles."""

    def __init__(self, kept: Game, game: Game, decision: Decision, seat: int) -> None:
        self.decks: list[tuple[str, int, list[int], list[int], int | None]] = []
        self.splits: dict[str, int] = {}
        asked = decision.card
        for name, pile in kept.state.decks.items():
            split = len(pile) - drawn_since(pile, game.state.decks.get(name, []))
            order = _in_canonical_order(pile, range(split))
            top = None if asked is None else _last_drawn(asked, pile, split)
            alike = [] if top is None or asked is None else _alike_at(asked, pile, order)
            if alike and top is not None:  # the card itself among them, in canonical order
                alike = _in_canonical_order(pile, [*alike, top])
            self.decks.append((name, split, order, alike, top))
            self.splits[name] = split
        # Each hidden kind's undrawn places in its deck, and the order its pool (the cards held,
        # then the undrawn ones) sorts in: the same faces at the same places in every copy.
        self.pools: list[tuple[list[tuple[int, str, int]], str | None, list[int], list[int]]] = []
        kind_decks = kept.rules.kind_decks
        for kind, slots in _hidden_slots(kept, seat).items():
            deck = kind_decks.get(kind)
            pile = kept.state.decks.get(deck or "", [])
            undrawn = [at for at in range(self.splits.get(deck or "", 0)) if pile[at].kind == kind]
            held = [_pile_of(kept.state.actors[actor], where)[at] for actor, where, at in slots]
            keys = [_canonical(card) for card in [*held, *(pile[at] for at in undrawn)]]
            order = sorted(range(len(keys)), key=keys.__getitem__)
            self.pools.append((slots, deck, undrawn, order))

    def deal(self, copy: Game, stream: random.Random) -> None:
        """Deal this copy of the kept game afresh, from the seat's stream."""
        decks = copy.state.decks
        changed = self._deal_hidden(copy, stream) if self.pools else set()
        for name, split, order, alike, top in self.decks:
            pile = decks[name]
            unseen = [pile[at] for at in order]
            if name in changed:  # hidden cards came back into it: their canonical order
                unseen.sort(key=_canonical)
            if top is not None and alike:
                picked = alike[stream.randrange(len(alike))]
                if picked != top:
                    swapped = order.index(picked)
                    unseen[swapped], pile[top] = pile[top], unseen[swapped]
                    # in the order it would have had, had the look-alike been drawn
                    unseen.sort(key=_canonical)
            shuffle(unseen, stream)
            pile[:split] = unseen

    def _deal_hidden(self, copy: Game, stream: random.Random) -> set[str]:
        """Deal the other seats' hidden cards afresh, each kind from those they hold and the
        undrawn cards of its deck; the decks whose undrawn cards changed."""
        changed: set[str] = set()
        actors = copy.state.actors
        for slots, deck, undrawn, order in self.pools:
            pile = copy.state.decks.get(deck or "", [])
            cards = [_pile_of(actors[actor], where)[at] for actor, where, at in slots]
            cards += [pile[at] for at in undrawn]
            pool = [cards[at] for at in order]  # in canonical order
            shuffle(pool, stream)
            for (actor, where, at), card in zip(slots, pool, strict=False):
                _pile_of(actors[actor], where)[at] = copy.from_deck(card)
            for at, card in zip(undrawn, pool[len(slots) :], strict=True):
                pile[at] = card
            if undrawn and deck is not None:
                changed.add(deck)
        return changed


def _pile_of(actor: Actor, where: str) -> list[CardInstance]:
    """An actor's cards of one kind of holding: those it owns, or those it carries."""
    return actor.owned if where == "owned" else actor.items


def _hidden_slots(kept: Game, seat: int) -> dict[str, list[tuple[int, str, int]]]:
    """Where the other seats hold cards of hidden kinds still face down, by kind: (actor, pile,
    place)."""
    slots: dict[str, list[tuple[int, str, int]]] = {}
    if not kept.rules.hidden:
        return slots
    for index, actor in enumerate(kept.state.actors):
        if actor.seat is None or actor.seat == seat:
            continue
        for where in ("owned", "items"):
            for at, card in enumerate(_pile_of(actor, where)):
                if face_down(kept, card):
                    slots.setdefault(card.kind, []).append((index, where, at))
    return slots


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
