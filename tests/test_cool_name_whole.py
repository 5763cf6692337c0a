"""Cool Name played whole: an encounter from its ruleset's `game:` section, with forced dice
through whole rounds (a death check failed, dying to the last round), and sweeps that give the
same figures on one and two workers."""

from __future__ import annotations

import json
import os

import pytest

from compiler.build import CompiledPack
from runtime.datagame import setup, whole_game_of
from runtime.decisions import Decision
from runtime.game import Game
from runtime.rounds import play_round
from runtime.whole import WholeGame
from tests.conftest import ROOT
from tests.helpers import compiled, run, sweep_figures

PACK = ROOT / "content" / "cool-name"

GAMES = int(os.environ.get("PILLBOX_WHOLE_GAMES", "60"))
"""Games a sweep of this suite plays: `make fuzz` plays a thousand."""


class EndEveryTurn:
    """A seat that takes no action."""

    def decide(self, decision: Decision) -> int:
        return 0


class AdventurersRollOnes:
    """The d8 of an adventurer's score 3 always shows 1 (every attack misses, every death check
    against two wounds fails); any other die shows its top face (every foe's attack hits)."""

    def roll(self, sides: int) -> int:
        return 1 if sides == 8 else sides


@pytest.fixture(scope="module")
def pack() -> CompiledPack:
    return compiled(PACK)


def _encounter(pack: CompiledPack, seats: int) -> tuple[WholeGame, Game]:
    whole = whole_game_of(pack.rules, pack.whole)
    game = whole.new_game(pack.rules, pack.cards, seats, 5)
    game.dice = AdventurersRollOnes()
    game.decisions = EndEveryTurn()
    return whole, game


def test_a_failed_death_check_and_dying_to_the_last_round(pack: CompiledPack) -> None:
    assert pack.whole is not None
    _, game = _encounter(pack, 2)
    setup(pack.whole, game)
    game.state.others = game.state.others[:1]  # one foe: it fights the first adventurer first
    first, second = game.state.players
    deaths: dict[str, int] = {}
    while play_round(game) and game.state.round < 12:
        if first.dead and first.name not in deaths:
            deaths[first.name] = game.state.round
        if game.state.over:
            break
    # 2 body a hit: 6, 4, 2, 0 (a wound; its death check at difficulty 1 holds on a 1), then a
    # hit at 0 in round 4 is a second wound whose check fails: dying for toughness 3 rounds,
    # counted from round 5, so the first adventurer dies after their turn in round 7.
    assert deaths == {first.name: 7}
    assert game.stat("body_wounds", first) == 2
    assert game.state.tallies["death checks failed"] >= 1
    assert game.state.tallies["dying rounds"] >= 3
    assert not second.dead


def test_the_encounter_ends_when_one_side_is_out(pack: CompiledPack) -> None:
    whole, game = _encounter(pack, 1)
    whole.play(game, "game")
    done = whole.outcome(game)
    assert done.result == "lost" and done.stopped is None
    assert done.labels["an adventurer died"] in ("yes", "no")
    assert done.tallies["death checks failed"] >= 1
    assert "body wounds" in done.tallies


def test_play_game_prints_an_encounter() -> None:
    code, output = run("play", str(PACK), "--game", "--players", "2", "--seed", "11")
    assert code == 0, output
    assert "comes into play" in output and "foes begins" in output
    assert "the game is " in output


def test_a_sweep_gives_the_same_figures_on_one_and_two_workers() -> None:
    options = ("--games", str(GAMES), "--players", "3", "--seed", "21")
    figures = [sweep_figures(PACK, *options, "--workers", w) for w in ("1", "2")]
    assert figures[0] == figures[1]
    text = json.dumps(figures[0])
    for figure in ("death checks failed", "dying rounds", "stabilisations", "body wounds"):
        assert figure in text
    assert figures[0]["played"] == GAMES  # no game failed
