"""A playout's fork borrows the kept turn's cards in decks and discard piles (`fork(...,
lend_decks=True)`) and copies each only as it leaves such a pile (`Game.from_deck`): in every
bundled game that plays whole, nothing a playout does reaches the kept copy, and no card of the
kept copy's decks and discards ends up anywhere else in a playout (a game module that took one
out of a deck or its discards without `from_deck` would)."""

from __future__ import annotations

import gc
import random
from collections.abc import Callable, Iterator
from contextlib import suppress
from typing import Any

import pytest

from runtime.cards import CardInstance
from runtime.datagame import whole_game_of
from runtime.decisions import Decision, FirstChoice
from runtime.dice import SeededDice
from runtime.fork import fork
from runtime.game import Game
from runtime.games.comanauts_items import ASIDE, ENEMY, HOSTILE
from runtime.games.comanauts_turn import THREAT, place_threat
from runtime.policies import GreedyPolicy, MctsPolicy, seat_policies
from runtime.policies import lookahead as lookahead_module
from runtime.policies.lookahead import Lookahead
from runtime.state import Actor
from runtime.world import Phase
from tests.helpers import ROOT_PACKS, compiled

GAMES = {"coma-ward": 4, "lobotomy": 3, "comanauts": 3, "cool-name": 2}
"""Each bundled game that plays whole, at a count of seats it allows."""

PLAYOUTS = 150
"""Playouts checked a game: the rest of it is not played."""

COLLECTED_PLAYOUTS = 60
"""Playouts a game whose garbage the cycle collector is asked for: each leaves a fork's worth
when a copy is left in a cycle."""


class Enough(Exception):
    """Every playout of a game to check is checked."""


def _outside_decks(game: Game) -> Iterator[CardInstance]:
    """Every card of the game that is not in a deck or a discard pile."""
    state = game.state
    for actor in state.actors:
        yield from actor.items
        yield from actor.owned
        if actor.sheet is not None:
            yield actor.sheet
    yield from state.in_play.values()
    yield from state.found
    for pile in state.floor.values():
        yield from pile


def _lent(game: Game) -> Iterator[CardInstance]:
    """Every card of the game in a deck or a discard pile: what a playout's fork borrows."""
    for pile in (*game.state.decks.values(), *game.state.discards.values()):
        yield from pile


CardState = tuple[int, tuple[tuple[str, int], ...], frozenset[str], bool]


def _each_card(game: Game) -> tuple[CardState, ...]:
    """What could change of each card of the game: its tokens, what it used up, its side."""
    cards = [*_outside_decks(game), *_lent(game)]
    return tuple(
        (id(c), tuple(sorted(c.tokens.items())), frozenset(c.spent), c.flipped) for c in cards
    )


@pytest.mark.parametrize("name", sorted(GAMES))
def test_a_playout_never_touches_the_kept_turn_it_borrows_cards_from(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    pack = compiled(ROOT_PACKS / name)
    whole = whole_game_of(pack.rules, pack.whole)
    forks: list[Game] = []
    played = lookahead_module.take_turn

    def keep_fork(game: Game, actor: Actor, phase: Phase) -> None:
        forks.append(game)
        played(game, actor, phase)

    monkeypatch.setattr(lookahead_module, "take_turn", keep_fork)
    playout = Lookahead.playout
    checked, escaped, touched = [0], [], []

    def checked_playout(
        self: Lookahead,
        decision: Decision,
        seat: int,
        stream: random.Random,
        then: Callable[[Game, Decision, int], int],
        value: Callable[[Game, int], float],
    ) -> float | None:
        kept = self.checkpoint
        assert kept is not None
        before = _each_card(kept.game)
        forks.clear()
        worth = playout(self, decision, seat, stream, then, value)
        if _each_card(kept.game) != before:
            touched.append(decision.prompt)
        lent = {id(c) for c in _lent(kept.game)}
        elsewhere = {id(card) for card in _outside_decks(kept.game)}
        assert all(card.lent for card in _lent(kept.game) if id(card) not in elsewhere)
        for copy in forks:
            escaped.extend(c for c in _outside_decks(copy) if id(c) in lent)
        checked[0] += 1
        if checked[0] >= PLAYOUTS:
            raise Enough
        return worth

    monkeypatch.setattr(Lookahead, "playout", checked_playout)
    for seed in range(1, 6):
        game = whole.new_game(pack.rules, pack.cards, GAMES[name], seed)
        game.logging = False
        seat_policies(game, GreedyPolicy())
        with suppress(Enough):
            whole.play(game, whole.phases[-1])
        if checked[0] >= PLAYOUTS:
            break
    assert checked[0] >= 50, checked
    assert touched == []
    assert escaped == []


def test_a_card_leaves_a_lent_deck_as_a_copy_of_its_own() -> None:
    pack = compiled(ROOT_PACKS / "cool-name")
    whole = whole_game_of(pack.rules, pack.whole)
    game = whole.new_game(pack.rules, pack.cards, 2, 1)
    card = next(pile[-1] for pile in game.state.decks.values() if pile)
    assert game.from_deck(card) is card  # a game's own decks are its own cards
    card.lent = True  # a card of a copy kept to be borrowed from
    copy = game.from_deck(card)
    assert copy is not card and copy.uid == card.uid and copy.definition is card.definition
    assert not copy.lent and game.from_deck(copy) is copy
    copy.tokens["mark"] = 1
    assert card.tokens == {}


def test_a_card_both_held_and_in_a_lent_pile_stays_one_card_in_a_fork() -> None:
    """A defeated monster's card is its sheet and in its discard pile at once: in a playout's
    fork the pile holds the fork's own copy of it, the one the sheet holds, as the game does
    (else a card brought back from the pile would not be the one its owner holds)."""
    pack = compiled(ROOT_PACKS / "comanauts")
    whole = whole_game_of(pack.rules, pack.whole)
    game = whole.new_game(pack.rules, pack.cards, 3, 1)
    definition = next(card for card in pack.cards if card.kind == ENEMY)
    foe = game.spawn(ENEMY, None, definition)
    assert foe.sheet is not None
    game.state.discards.setdefault(pack.rules.kind_decks[ENEMY], []).append(foe.sheet)
    kept = fork(game, FirstChoice(), SeededDice(1), lends=True)
    copy = fork(kept, FirstChoice(), SeededDice(1), lend_decks=True)
    sheet = copy.state.others[-1].sheet
    pile = copy.state.discards[pack.rules.kind_decks[ENEMY]]
    assert sheet is not None and sheet in pile and not sheet.lent
    assert copy.from_deck(sheet) is sheet  # the fork's own card: taken as it is
    undrawn = next(pile for pile in copy.state.decks.values() if pile)
    assert all(card.lent for card in undrawn)  # the rest are borrowed


@pytest.mark.parametrize("name", sorted(GAMES))
def test_a_playout_leaves_nothing_for_the_cycle_collector(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A playout's copy is freed as the playout ends: a copy left in a cycle (its decision
    maker holding it) is found only by the cycle collector, whose passes over a worker's heap
    took a fifth of a searching game's time."""
    pack = compiled(ROOT_PACKS / name)
    whole = whole_game_of(pack.rules, pack.whole)
    game = whole.new_game(pack.rules, pack.cards, GAMES[name], 3)
    game.logging = False
    seat_policies(game, MctsPolicy(4))
    playout, played = Lookahead.playout, [0]

    def counted_playout(self: Lookahead, *asked: Any) -> float | None:
        played[0] += 1
        if played[0] > COLLECTED_PLAYOUTS:
            raise Enough
        return playout(self, *asked)

    monkeypatch.setattr(Lookahead, "playout", counted_playout)
    gc.collect()
    gc.disable()
    try:
        with suppress(Enough):
            whole.play(game, whole.phases[-1])
        left = gc.collect()
    finally:
        gc.enable()
    assert played[0] >= 30, played
    assert left == 0


def test_a_hostile_brought_back_from_a_lent_discard_pile_is_the_forks_own() -> None:
    """Comanauts brings a defeated hostile back from its discard pile by hand: in a playout's
    fork, whose discard piles are lent, the enemy it spawns is its own copy of the card."""
    pack = compiled(ROOT_PACKS / "comanauts")
    whole = whole_game_of(pack.rules, pack.whole)
    game = whole.new_game(pack.rules, pack.cards, 3, 1)
    definition = next(card for card in pack.cards if card.kind == ENEMY)
    deck = pack.rules.kind_decks[ENEMY]
    card = game.new_instance(definition)
    game.state.discards.setdefault(deck, []).append(card)
    game.state.flags.add(f"{ASIDE}:{card.uid}")
    game.state.tracks[HOSTILE] = 1
    game.state.tracks[THREAT] = len(game.actors_of(ENEMY)) + 1
    kept = fork(game, FirstChoice(), SeededDice(1), lends=True)
    card = kept.state.discards[deck][-1]
    copy = fork(kept, FirstChoice(), SeededDice(1), lend_decks=True)
    place_threat(copy)
    back = [actor.sheet for actor in copy.actors_of(ENEMY)]
    assert any(sheet is not None and sheet.uid == card.uid for sheet in back)
    assert all(sheet is not card for sheet in back)
    assert card in kept.state.discards[deck]
