"""Forks: a copy of a game as it stands, to play on without touching the game it came from.

A seat that searches plays a turn again and again from where it began, each time from a fresh
copy of the game as it was then. A copy shares what never changes during a game (the ruleset,
the module, the cards' definitions and the tables read off them) and copies what does: every
actor, every copy of a card in play or in a pile (once each, so that a card both found and in
play is one card in the fork too), the tracks, flags, counts and the random stream of the
shuffles. It takes its own dice and decision maker, and keeps no log: what a fork does is never
shown, only how it ends.
"""

from __future__ import annotations

import random
from itertools import count

from runtime.cards import CardInstance
from runtime.decisions import DecisionMaker
from runtime.dice import DiceSource
from runtime.game import Game
from runtime.state import Actor, GameState
from runtime.stats import Stats


class _Copier:
    """Copies cards and actors once each, so that what two piles share stays shared."""

    def __init__(self, lends: bool = False) -> None:
        self.cards: dict[int, CardInstance] = {}
        self.actors: dict[int, Actor] = {}
        self.lends = lends  # the copy is kept for playouts to borrow its piles from

    def card(self, card: CardInstance) -> CardInstance:
        """The fork's copy of a card: its tokens, what it has used up and its side."""
        kept = self.cards.get(id(card))
        if kept is not None:
            return kept
        copy = card.copy()
        self.cards[id(card)] = copy
        return copy

    def lending(self, cards: list[CardInstance]) -> list[CardInstance]:
        """A pile's copy whose cards are marked lent, but those the copy holds elsewhere too
        (copied already: the piles are copied last), which a fork must copy as it holds them."""
        copied, card = self.cards, self.card
        pile = []
        for one in cards:
            copy = copied.get(id(one))
            if copy is None:
                copy = card(one)
                copy.lent = True
            pile.append(copy)
        return pile

    def borrowed(self, cards: list[CardInstance]) -> list[CardInstance]:
        """A pile of the same cards, in a list of its own; a card not lent (one that is also
        somewhere else: a defeated monster's card, its sheet and in its discard pile) is the
        fork's copy, the one it holds there, so that it stays one card in the fork."""
        card = self.card
        return [one if one.lent else card(one) for one in cards]

    def cards_of(self, cards: list[CardInstance]) -> list[CardInstance]:
        """A pile's copy, in the same order."""
        card = self.card
        return [card(one) for one in cards]

    def actor(self, actor: Actor | None) -> Actor | None:
        """The fork's copy of an actor, or None for none."""
        if actor is None:
            return None
        kept = self.actors.get(id(actor))
        if kept is not None:
            return kept
        stats = actor.stats
        copied = Stats(dict(stats.rules), stats.derived, dict(stats.values), dict(stats.pinned))
        copied.dead = stats.dead
        copy = Actor(
            actor.name,
            copied,
            actor.location,
            actor.kind,
            actor.seat,
            self.card(actor.sheet) if actor.sheet is not None else None,
            actor.keywords,
            self.cards_of(actor.items),
            self.cards_of(actor.owned),
            list(actor.bonuses),
            actor.turn_over,
        )
        self.actors[id(actor)] = copy
        return copy

    def state(self, state: GameState, lend_decks: bool = False) -> GameState:
        """The whole state's copy; with `lend_decks`, its decks and their discard piles hold
        the same cards (in piles of their own), each to be copied as it leaves one
        (`Game.from_deck`)."""
        actor, cards_of = self.actor, self.cards_of
        players = [a for a in map(actor, state.players) if a is not None]
        others = [a for a in map(actor, state.others) if a is not None]
        copy = GameState(players, state.current, others, dict(state.tracks))
        copy.round, copy.turns, copy.phase = state.round, state.turns, state.phase
        copy.acting, copy.target = actor(state.acting), actor(state.target)
        copy.floor = {place: cards_of(pile) for place, pile in state.floor.items()}
        copy.in_play = {where: self.card(card) for where, card in state.in_play.items()}
        copy.found = cards_of(state.found)
        card = state.rules_card
        copy.rules_card = self.card(card) if card is not None else None
        # The piles after every other card, so that a card both here and there is one
        piled = self.borrowed if lend_decks else self.lending if self.lends else cards_of
        copy.decks = {name: piled(pile) for name, pile in state.decks.items()}
        copy.discards = {name: piled(pile) for name, pile in state.discards.items()}
        copy.flags = set(state.flags)
        copy.over, copy.winners = state.over, list(state.winners)
        copy.tallies, copy.labels = dict(state.tallies), dict(state.labels)
        copy.stopped = state.stopped
        copy.marks = set(state.marks)
        copy.aim = actor(state.aim)
        return copy


def fork(
    game: Game,
    decisions: DecisionMaker,
    dice: DiceSource,
    shuffler: random.Random | None = None,
    *,
    lend_decks: bool = False,
    lends: bool = False,
) -> Game:
    """A copy of the game as it stands, answering with `decisions` and rolling `dice`. Its
    shuffles go on from `shuffler`, or when none is given, from a copy of the game's stream,
    as the game's own would have (a copy costs as much as the rest of a fork).

    With `lend_decks`, the copy's decks and discard piles hold the game's own cards, and a
    card is copied only as it leaves one (`Game.from_deck`): for a game that is never played
    itself, only copied again and again (a turn kept to be played out), whose decks and
    discards are most of its cards and few of them leave those piles in a copy's turn. Such a
    game is forked with `lends`: its cards are marked lent (`CardInstance.lent`), so that a
    copy takes a copy of one as it leaves a pile, and only of those."""
    if shuffler is None:
        shuffler = random.Random(0)  # seeded: an unseeded one reads the system's entropy
        shuffler.setstate(game._shuffler.getstate())
    copied = Game(
        game.rules,
        game.cards,
        game.module,
        seed=game.seed,
        dice=dice,
        decisions=decisions,
        budget=game.budget,
        log=False,
        dealt=_Copier(lends).state(game.state, lend_decks),
        shuffler=shuffler,
    )
    copied.steps, copied.depth, copied.ended = game.steps, game.depth, game.ended
    copied.listening = game.listening
    copied._current_card = game._current_card
    copied.shuffles = game.shuffles
    following = next(game._uids)
    game._uids = count(following)  # the game goes on from the same number
    copied._uids = count(following)
    return copied


def shuffle_from(game: Game, stream: random.Random) -> None:
    """Shuffle from this stream from here on: a fork must not know how the game's own next
    shuffle would fall."""
    game._shuffler = stream
