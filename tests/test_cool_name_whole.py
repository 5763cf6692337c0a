"""Cool Name played whole: an encounter from its ruleset's `game:` section, with forced dice
through whole rounds (a death check failed, dying to the last round), and sweeps that give the
same figures on one and two workers."""

from __future__ import annotations

import json
import os

import pytest

from compiler.build import CompiledPack
from runtime.datagame import legal_actions, setup, whole_game_of
from runtime.decisions import Decision, ScriptedDecisions
from runtime.dice import ForcedDice
from runtime.game import Game
from runtime.games.cool_name import wound
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


def _said(game: Game, text: str) -> int:
    return sum(1 for event in game.log.events if event.text == text)


def test_an_incapacitated_adventurer_may_only_catch_their_breath(pack: CompiledPack) -> None:
    """Incapacitated: no attack, harm, coup or stabilising, only the "catch your breath"
    recovery (a point of each vitality back); dying, not even that."""
    assert pack.whole is not None
    _, game = _encounter(pack, 1)
    setup(pack.whole, game)
    hero = game.state.players[0]
    assert {a.name for a in legal_actions(pack.whole, game, hero, set())} == {"attack", "harm"}
    hero.stats.set("body", 0)
    hero.stats.set("mind", 3)
    assert [a.name for a in legal_actions(pack.whole, game, hero, set())] == ["catch_breath"]
    game.decisions = ScriptedDecisions(["catch your breath"])
    game.dice = ForcedDice([])
    game.state.current = 0
    game.state.phase = "adventurers"
    take = pack.whole.actions[[a.name for a in pack.whole.actions].index("catch_breath")]
    assert take.effect is not None
    game.resolve(game.new_instance(pack.cards[0]), take.effect, take.text)
    assert (hero.stats.get("body"), hero.stats.get("mind"), hero.stats.get("spirit")) == (1, 4, 6)
    hero.stats.set("body", 0)
    hero.stats.set("body_wounds", 1)
    game.dice = ForcedDice([1])  # against 2 wounds: dying, unconscious
    wound(game, game.new_instance(pack.cards[0]), hero, "body", lethal=True)
    assert hero.stats.get("dying") == 3
    assert legal_actions(pack.whole, game, hero, set()) == []


def test_an_ally_stabilises_a_dying_adventurer_one_try_a_turn(pack: CompiledPack) -> None:
    """A failed try changes nothing and may be made again on the next turn, not sooner (one
    main action a turn); a success stops the dying, and the patient lives on unconscious."""
    assert pack.whole is not None
    _, game = _encounter(pack, 2)
    setup(pack.whole, game)
    game.state.others = game.state.others[:1]
    foe = game.state.others[0]
    foe.stats.set("toughness", 6)  # a d20: its attacks miss on a 1
    first = game.state.players[0]
    first.stats.set("body", 0)
    first.stats.set("body_wounds", 1)
    game.dice = ForcedDice([1])  # the death check against 2 wounds fails: 3 rounds of dying
    wound(game, game.new_instance(pack.cards[0]), first, "body", lethal=True)
    assert first.stats.get("dying") == 3
    tries = ["stabilise a dying ally", "stabilise a dying ally"]
    game.decisions = ScriptedDecisions(tries)
    # Round 1: Aria's intellect 3 rolls a d8 against 2 wounds: a 1 fails, and she may not try
    # again that turn; the foe misses. Round 2: a 2 holds.
    game.dice = ForcedDice([1, 1, 2, 1])
    play_round(game)
    assert _said(game, "“Not yet.”") == 1 and first.stats.get("dying") == 2
    play_round(game)
    assert _said(game, "“The bleeding stops.”") == 1
    assert first.stats.get("dying") == 0 and not first.dead
    assert game.decisions.unused == []
    game.decisions = EndEveryTurn()
    game.dice = ForcedDice([1, 1, 1])  # the foe misses
    for _ in range(3):  # past the rounds the dying would have lasted
        play_round(game)
    assert not first.dead and f"unconscious:{first.name}" in game.state.flags


def test_a_coup_de_grace_in_a_turn_wounds_then_finishes_a_helpless_foe(
    pack: CompiledPack,
) -> None:
    """An incapacitated foe: the coup de grâce is a lethal body wound with its death check;
    on the next turn, the foe dying, another ends it (a second foe, standing, keeps the
    encounter going)."""
    assert pack.whole is not None
    _, game = _encounter(pack, 1)
    setup(pack.whole, game)
    helpless = game.state.others[0]
    for stat, value in (("body", 0), ("body_wounds", 1), ("toughness", 2)):
        helpless.stats.set(stat, value)
    other = game.spawn("foe", None, next(c for c in pack.cards if c.title == "Barrow Hound"))
    other.stats.set("toughness", 6)  # a d20: its attacks miss on a 1
    game.decisions = ScriptedDecisions(["deliver a coup de grâce", "deliver a coup de grâce"])
    # The helpless foe's toughness 2 rolls a d6 against 2 wounds: a 1, dying; the hound misses.
    game.dice = ForcedDice([1, 1])
    play_round(game)
    assert helpless.stats.get("body_wounds") == 2 and helpless.stats.get("dying") == 2
    assert not helpless.dead
    game.dice = ForcedDice([1])
    play_round(game)
    assert helpless.dead and not other.dead and game.state.over is None
    assert game.decisions.unused == []
