"""Seats that search see only what their player sees: two games that differ in nothing the seat
can see (the order of a deck's undrawn cards, which of two look-alike variants was drawn) get the
same answer, in every bundled game that plays whole. And a playout replays the turn so far
exactly, so that what it plays out is the question asked."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from contextlib import suppress
from dataclasses import replace

import pytest

from runtime.cards import CardDef, CardInstance
from runtime.datagame import whole_game_of
from runtime.decisions import Decision, FirstChoice
from runtime.dice import SeededDice
from runtime.fork import fork
from runtime.game import Game
from runtime.policies import GreedyPolicy, MctsPolicy, Policy, Seat, seat_policies
from runtime.policies.lookahead import Lookahead
from runtime.policies.view import Dealer, face, face_down
from runtime.state import Actor
from runtime.world import Phase
from tests.helpers import ROOT_PACKS, compiled

GAMES = {"coma-ward": 4, "lobotomy": 3, "comanauts": 3, "cool-name": 2}
"""Each bundled game that plays whole, at a count of seats it allows."""

PROBES = 4
"""Decisions probed a game: each asked again in a world that differs where the seat cannot see."""

SWAPS = 2
"""Decisions probed a game on a card with a look-alike, in a game with some."""

ROUNDS = 40
"""Rounds a probed game plays at most, whatever it has probed."""


def _undrawn(kept: list[CardInstance], now: list[CardInstance]) -> int:
    """How many of a kept deck's cards (from the bottom) are still in the game's deck."""
    left = {card.uid for card in now}
    split = len(kept)
    while split and kept[split - 1].uid not in left:
        split -= 1
    return split


def _held(game: Game) -> list[CardInstance]:
    """Every card the seats hold."""
    return [card for actor in game.state.players for card in [*actor.owned, *actor.items]]


class Enough(Exception):
    """Every probe of a game is made: the rest of it is not played."""


class Probe:
    """A policy that, on some of its decisions, asks the same policy again in another world (a
    deck's undrawn cards in another order, the card offered swapped for a look-alike still in
    its deck) from the same random stream, and writes down whether the answers differ."""

    searches = True

    def __init__(self, inner: Policy, rng: random.Random, cards: Sequence[CardDef]) -> None:
        faces = [face(card) for card in cards]
        self.alike = {seen for seen in faces if faces.count(seen) > 1}
        self.inner = inner
        self.rng = rng
        self.probed = 0
        self.swapped = 0
        self.hidden_swapped = 0
        self.differed: list[str] = []

    def decide(self, game: Game, seat: Seat, decision: Decision) -> int:
        """The inner policy's answer, after asking it once more in the other world."""
        look = seat.lookahead
        swaps_left = self.alike and self.swapped < SWAPS
        if (self.probed >= PROBES and not swaps_left) or game.state.round > ROUNDS:
            raise Enough
        alike = decision.card is not None and face(decision.card) in self.alike
        if (
            look is None
            or look.checkpoint is None
            or len(decision.choices) < 2
            or (self.probed >= PROBES and not alike)
        ):
            return self.inner.decide(game, seat, decision)
        stream = seat.random.getstate()
        answer = self.inner.decide(game, seat, decision)
        seat.random.setstate(stream)
        undo, other = self._other_world(game, look, decision, seat.index)
        again = self.inner.decide(game, seat, other)
        undo()
        self.probed += 1
        if again != answer:
            self.differed.append(f"{decision.prompt}: {decision.choices}")
        return answer

    def _other_world(
        self, game: Game, look: Lookahead, decision: Decision, me: int
    ) -> tuple[Callable[[], None], Decision]:
        assert look.checkpoint is not None
        kept = look.checkpoint.game
        undo: list[tuple[list[CardInstance], list[CardInstance]]] = []
        swaps: list[tuple[CardInstance, CardDef]] = []
        other = replace(decision)  # a new question: nothing worked out for the first is reused
        for name, pile in kept.state.decks.items():
            split = _undrawn(pile, game.state.decks.get(name, []))
            undo.append((pile, list(pile)))
            live = game.state.decks.get(name)
            if live is not None:
                undo.append((live, list(live)))
            unseen = pile[:split]
            if decision.card is not None:
                drawn = [c for c in pile[split:] if c.definition is decision.card]
                alike = [
                    c
                    for c in unseen
                    if face(c.definition) == face(decision.card)
                    and c.definition is not decision.card
                ]
                if drawn and alike:
                    mine, theirs = drawn[-1], alike[0]
                    twins = [c for c in (live or []) if c.uid == theirs.uid]
                    for card in (mine, theirs, *twins):
                        swaps.append((card, card.definition))
                    new = theirs.definition
                    theirs.definition = mine.definition
                    for twin in twins:
                        twin.definition = mine.definition
                    mine.definition = new
                    other = replace(decision, card=new)
                    self.swapped += 1
            self.rng.shuffle(unseen)
            pile[:split] = unseen
            if live is not None:
                by_uid = {card.uid: card for card in live}
                order = [by_uid[card.uid] for card in unseen if card.uid in by_uid]
                if len(order) == len(live):
                    live[:] = order

        swaps += self._swap_a_hidden_card(kept, game, me)

        def restore() -> None:
            for pile, was in undo:
                pile[:] = was
            for card, definition in swaps:
                card.definition = definition

        return restore, other

    def _swap_a_hidden_card(
        self, kept: Game, game: Game, me: int
    ) -> list[tuple[CardInstance, CardDef]]:
        """Give another seat's hidden card (a quirk dealt face down, not yet shown) the face of
        one still in its deck, in the kept game and the game alike: the swaps to undo."""
        for actor in kept.state.players:
            if actor.seat == me:
                continue
            for card in [*actor.owned, *actor.items]:
                deck = kept.rules.kind_decks.get(card.kind)
                if not face_down(kept, card) or deck is None:
                    continue
                pile = kept.state.decks.get(deck, [])
                split = _undrawn(pile, game.state.decks.get(deck, []))
                others = [
                    c
                    for c in pile[:split]
                    if c.kind == card.kind and c.definition is not card.definition
                ]
                if not others:
                    continue
                theirs = others[0]
                live = [
                    c
                    for c in [*game.state.decks.get(deck, []), *_held(game)]
                    if c.uid in (card.uid, theirs.uid)
                ]
                both = list({id(c): c for c in (card, theirs, *live)}.values())
                swaps = [(c, c.definition) for c in both]
                one, two = card.definition, theirs.definition
                for c in both:
                    c.definition = two if c.definition is one else one
                self.hidden_swapped += 1
                return swaps
        return []


@pytest.mark.parametrize("name", sorted(GAMES))
@pytest.mark.parametrize("policy", ["greedy", "mcts"])
def test_a_searching_seat_answers_the_same_in_worlds_it_cannot_tell_apart(
    name: str, policy: str
) -> None:
    pack = compiled(ROOT_PACKS / name)
    whole = whole_game_of(pack.rules, pack.whole)
    probes = []
    for seed in range(3):
        game = whole.new_game(pack.rules, pack.cards, GAMES[name], seed)
        game.logging = False
        inner: Policy = GreedyPolicy() if policy == "greedy" else MctsPolicy(6)
        probe = Probe(inner, random.Random(seed), pack.cards)
        probes.append(probe)
        seat_policies(game, probe)
        with suppress(Enough):
            whole.play(game, whole.phases[-1])
    assert sum(p.probed for p in probes) >= 3
    assert [d for p in probes for d in p.differed] == []
    if any(probe.alike for probe in probes):  # a game whose pack has look-alike variants
        assert sum(probe.swapped for probe in probes) >= 2
    if pack.rules.hidden:  # a game with cards dealt face down: another seat's was swapped
        assert sum(probe.hidden_swapped for probe in probes) >= 2
    print(name, policy, sum(p.probed for p in probes), sum(p.swapped for p in probes))


def _dealt(copy: Game) -> tuple[object, ...]:
    """What a dealt copy holds, by card face and variant: each seat's cards, each deck."""
    held = tuple(
        tuple((c.definition.file, c.definition.line) for c in [*a.owned, *a.items])
        for a in copy.state.players
    )
    decks = tuple(
        tuple((c.definition.file, c.definition.line) for c in pile)
        for _, pile in sorted(copy.state.decks.items())
    )
    return held, decks


def test_a_copy_is_dealt_the_same_whichever_hidden_card_another_seat_holds() -> None:
    """Another seat's quirk, dealt face down, swapped for one still in the quirk deck: the copies
    dealt for seat 1 are the same card for card, and its own quirk stays its own."""
    pack = compiled(ROOT_PACKS / "coma-ward")
    whole = whole_game_of(pack.rules, pack.whole)
    game = whole.new_game(pack.rules, pack.cards, 4, 2)
    game.logging = False
    kept: list[Game] = []

    def keep(actor: Actor, phase: Phase) -> None:
        if not kept:
            kept.append(fork(game, FirstChoice(), SeededDice(0)))

    game.turn_watch = keep
    whole.play(game, whole.phases[0])
    copy_of = kept[0]
    question = Decision("option", "choose", ("a", "b"))
    worlds = []
    for world in range(2):
        if world:
            assert Probe(GreedyPolicy(), random.Random(0), pack.cards)._swap_a_hidden_card(
                copy_of, copy_of, 0
            )
        dealer = Dealer(copy_of, copy_of, question, 0)
        copy = fork(copy_of, FirstChoice(), SeededDice(0))
        dealer.deal(copy, random.Random(7))
        worlds.append(_dealt(copy))
    assert worlds[0] == worlds[1]
    mine = [c for c in copy_of.state.players[0].owned if c.kind in pack.rules.hidden]
    held = worlds[0][0]
    assert isinstance(held, tuple)
    assert mine and held[0] == tuple(
        (c.definition.file, c.definition.line)
        for c in [*copy_of.state.players[0].owned, *copy_of.state.players[0].items]
    )


def test_a_hidden_card_the_game_has_shown_is_not_dealt_afresh() -> None:
    """Once the phenomenon is revealed, so are the quirks (`shown_when:`): every copy dealt for
    seat 1 holds the other seats' quirks as the game does, where before it dealt them afresh."""
    pack = compiled(ROOT_PACKS / "coma-ward")
    whole = whole_game_of(pack.rules, pack.whole)
    game = whole.new_game(pack.rules, pack.cards, 4, 2)
    game.logging = False
    whole.play(game, whole.phases[0])
    quirks = [
        c for actor in game.state.players[1:] for c in actor.owned if c.kind in pack.rules.hidden
    ]
    assert quirks and not any(face_down(game, c) for c in quirks)
    question = Decision("option", "choose", ("a", "b"))
    dealer = Dealer(game, game, question, 0)
    for stream in range(8):
        copy = fork(game, FirstChoice(), SeededDice(0))
        dealer.deal(copy, random.Random(stream))
        assert _dealt(copy)[0] == _dealt(game)[0]
