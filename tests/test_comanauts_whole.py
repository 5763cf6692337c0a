"""Comanauts played whole: the pack's adventure from its ruleset's `game:` section, with forced
dice through whole turns (a threat check while hostile, and one while safe that resolves the
page's effect), seeded games, and sweeps that give the same figures on one and two workers."""

from __future__ import annotations

import json
import os

import pytest

from compiler.build import CompiledPack
from runtime.cards import CardInstance
from runtime.datagame import setup, whole_game_of
from runtime.decisions import Decision
from runtime.dice import ForcedDice
from runtime.game import Game
from runtime.games.comanauts_adventure import page_of, turn_to
from runtime.policies import RandomPolicy, seat_policies
from runtime.rounds import play_round
from runtime.whole import WholeGame
from tests.conftest import ROOT
from tests.helpers import compiled, run, sweep_figures

PACK = ROOT / "content" / "comanauts"

GAMES = int(os.environ.get("PILLBOX_WHOLE_GAMES", "40"))
"""Games a sweep of this suite plays: `make fuzz` plays a thousand."""

COLOURS = ("blue", "green", "purple", "red", "yellow")


class EndEveryTurn:
    """A seat that takes no action."""

    def decide(self, decision: Decision) -> int:
        return 0


@pytest.fixture(scope="module")
def pack() -> CompiledPack:
    return compiled(PACK)


def _adventure(pack: CompiledPack, dice: ForcedDice) -> tuple[WholeGame, Game]:
    """One seat that ends every turn at once, set up at the first page, on forced dice."""
    assert pack.whole is not None
    whole = whole_game_of(pack.rules, pack.whole)
    game = whole.new_game(pack.rules, pack.cards, 1, 5)
    game.dice = dice
    game.decisions = EndEveryTurn()
    setup(pack.whole, game)
    return whole, game


def _page(game: Game) -> str:
    page = page_of(game)
    assert page is not None
    return page.title


def test_the_adventure_opens_at_its_first_page_with_an_empty_pool(pack: CompiledPack) -> None:
    _, game = _adventure(pack, ForcedDice([]))
    assert _page(game) == "The Frosted Airlock"
    assert game.player.location == "airlock"
    assert sorted(c.title for c in game.state.floor["cargo"]) == ["Supply Locker"]
    assert all(game.stat(colour) == 0 for colour in COLOURS)


def test_hostile_a_threat_die_drawn_brings_the_enemies_turn(pack: CompiledPack) -> None:
    # The bag's 49 dice are counted blue 1-8, green, purple, red, yellow, threat 37-44, white
    # 45-48, the inner child 49: four blue dice, then the 40th of the 45 left, the last threat
    # die, onto the track.
    dice = ForcedDice([1, 1, 1, 1, 40])
    _, game = _adventure(pack, dice)
    rules = CardInstance(game.cards[0], 0)
    turn_to(game, rules, title="The Whispering Corridor")
    sentry = game.actors_of("enemy")[0]
    assert (sentry.location, game.state.tracks["hostile"]) == ("bridge", 1)
    assert play_round(game)
    # One die on the track and one enemy in play: the enemies' turn. The sentry has no attack
    # of its own; the ruleset's turn for every enemy closes in on the avatar at the corridor.
    assert game.state.tallies["threat dice drawn"] == 1
    assert game.state.tallies["threat checks: hostile, the enemies' turn"] == 1
    assert game.state.tallies["enemies' turns"] == 1
    assert sentry.location == "corridor"
    assert game.state.tracks["threat"] == 0 and game.stat("blue") == 0
    assert game.state.tracks["blue_bag"] == 4  # discarded dice wait for a refresh
    lines = game.log.lines()
    assert "hostile, 1 dice on the threat track, 1 enemy in play" in lines
    assert any("Drone Sentry closes in: bridge → corridor" in line for line in lines)


def test_safe_four_threat_dice_resolve_the_page_and_the_enemies_come(
    pack: CompiledPack,
) -> None:
    dice = ForcedDice([1, 1, 1, 1, 37])
    _, game = _adventure(pack, dice)
    game.state.tracks["threat"] = 3
    game.state.tracks["threat_bag"] = 5
    # Three threat dice on the track, five in the bag: of its 41 dice, four blue are drawn,
    # then the last of the 37 left, a threat die: the track holds four, the situation is safe.
    assert play_round(game)
    assert game.state.tallies["threat checks: safe, the page's effect"] == 1
    # The page's effect: a Hull Crawler at the engine, one step of decline; enemies came, so
    # the situation turns hostile and they take a turn at once: nobody at the engine to strike,
    # the crawler closes in toward the airlock; the track is cleared, the bag refreshed.
    crawler = game.actors_of("enemy")[0]
    assert crawler.name == "Hull Crawler" and crawler.location == "cargo"
    assert game.state.tracks["hostile"] == 1 and game.state.tracks["vital_signs_read"] == 1
    assert game.state.tracks["threat"] == 0 and game.state.tracks["threat_bag"] == 8
    assert all(game.state.tracks[f"{colour}_bag"] == 8 for colour in ("blue", "red"))
    assert game.state.tallies["enemies' turns"] == 1
    assert game.stat("health") == 6


def test_a_seeded_adventure_plays_to_its_end(pack: CompiledPack) -> None:
    assert pack.whole is not None
    whole = whole_game_of(pack.rules, pack.whole)
    for seed in (1, 2, 3):
        game = whole.new_game(pack.rules, pack.cards, 2, seed)
        game.logging = False
        seat_policies(game, RandomPolicy())
        whole.play(game, "game")
        done = whole.outcome(game)
        assert done.result in ("won", "lost") and done.stopped is None
        ended = [name for name, said in done.labels.items() if name.startswith("ended on")]
        assert [done.labels[name] for name in ended].count("yes") == 1
        assert done.tallies.get("took: move", 0) > 0


def test_play_game_prints_an_adventure() -> None:
    code, output = run("play", str(PACK), "--game", "--players", "2", "--seed", "3")
    assert code == 0, output
    for line in ("the adventure book opens at page", "draws 5 dice", "the enemies take a turn"):
        assert line in output
    assert "the game is " in output


def test_a_sweep_gives_the_same_figures_on_one_and_two_workers() -> None:
    options = ("--games", str(GAMES), "--players", "2", "--seed", "21")
    figures = [sweep_figures(PACK, *options, "--workers", w) for w in ("1", "2")]
    assert figures[0] == figures[1]
    text = json.dumps(figures[0])
    for figure in (
        "threat checks: hostile, the enemies' turn",
        "threat checks: safe, the page's effect",
        "enemies defeated",
        "pages turned",
        "ended on 4: The Waking Eye",
        "health left",
        "vital signs revealed",
        "clarity gained",
        "the dreamer flatlined",
    ):
        assert figure in text
    assert figures[0]["played"] == GAMES  # no game failed
