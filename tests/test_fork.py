"""A fork is the game as it stands: played on with the same dice and answers, it ends where the
game does, and playing it never touches the game it came from."""

from __future__ import annotations

import json
from contextlib import suppress

import pytest

from runtime.datagame import whole_game_of
from runtime.decisions import RandomDecisions
from runtime.dice import SeededDice
from runtime.fork import fork
from runtime.game import Game, RunEnded
from runtime.rounds import take_turn
from runtime.state import Actor
from runtime.world import Phase
from tests.helpers import ROOT_PACKS, compiled

SEATS = {"coma-ward": 4, "lobotomy": 3, "comanauts": 3, "cool-name": 2}


def state_of(game: Game) -> str:
    """Everything a game's state holds, as stable text."""
    stats = sorted({name for actor in game.state.actors for name in actor.stats.values})
    facts = game.state.to_json(stats, game.stat)
    facts["decks"] = {name: [c.uid for c in pile] for name, pile in game.state.decks.items()}
    facts["tallies"], facts["labels"] = game.state.tallies, game.state.labels
    return json.dumps(facts, sort_keys=True, default=str)


class ForkEachTurn:
    """At each turn's start, forks the game and plays the turn on the fork with the dice and
    answers the game is given for it; at the next turn's start, where nothing came between,
    the fork's state and the game's are compared."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.waiting: tuple[Game, int, str | None] | None = None
        self.compared = 0

    def __call__(self, actor: Actor, phase: Phase) -> None:
        game = self.game
        if self.waiting is not None:
            forked, round_, phase_name = self.waiting
            if (round_, phase_name) == (game.state.round, game.state.phase):
                assert state_of(forked) == state_of(game)
                self.compared += 1
        turn = game.state.turns
        game.dice, game.decisions = SeededDice(turn), RandomDecisions(turn)
        before = state_of(game)
        copy = fork(game, RandomDecisions(turn), SeededDice(turn))
        assert state_of(copy) == before
        at = next(i for i, one in enumerate(game.state.actors) if one is actor)
        with suppress(RunEnded):
            take_turn(copy, copy.state.actors[at], phase)
        assert state_of(game) == before  # the fork's turn left the game alone
        self.waiting = (copy, game.state.round, game.state.phase)


@pytest.mark.parametrize("name", sorted(SEATS))
def test_a_turn_played_on_a_fork_ends_where_the_games_own_turn_does(name: str) -> None:
    pack = compiled(ROOT_PACKS / name)
    whole = whole_game_of(pack.rules, pack.whole)
    compared = 0
    for seed in range(5):  # until ten turns are compared
        game = whole.new_game(pack.rules, pack.cards, SEATS[name], seed)
        game.logging = False
        watch = game.turn_watch = ForkEachTurn(game)
        whole.play(game, whole.phases[0])  # its first part: Coma Ward's prologue
        compared += watch.compared
        if compared >= 10:
            break
    assert compared >= 10
