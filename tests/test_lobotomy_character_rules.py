"""Lobotomy's character-side rules, each with the rulebook line it proves: healing, the first
player token, stealth, ethereal characters, armor, a skill's last use and the like."""

from __future__ import annotations

import pytest

from compiler.build import CompiledPack
from runtime.decisions import ScriptedDecisions
from runtime.game import Game
from runtime.rounds import play_round
from tests.conftest import ROOT
from tests.helpers import card, compiled

PACK = ROOT / "content" / "lobotomy"


@pytest.fixture(scope="module")
def pack() -> CompiledPack:
    return compiled(PACK)


def seated(pack: CompiledPack, title: str, *answers: str, players: int = 1) -> Game:
    """A game whose first player has played the character card `title`."""
    game = pack.new_game(seed=0, decisions=ScriptedDecisions(answers), players=players)
    game.play(card(pack, title))
    return game


TOBIAH = ("Tobiah Marsh", "Haymaker", "Shake It Off")  # health 9, one disorder


def test_healing_never_passes_the_character_cards_health_line_278(pack: CompiledPack) -> None:
    game = seated(pack, *TOBIAH)
    player = game.player
    assert player.stats.get("health") == 9
    game.change("health", 3)
    assert player.stats.get("health") == 9  # at full health, a heal takes nothing off
    game.change("health", -4)
    game.change("health", 6)
    assert player.stats.get("health") == 9  # only the damage tokens come off


def test_the_first_player_token_passes_to_the_left_each_round_lines_160_258(
    pack: CompiledPack,
) -> None:
    game = pack.new_game(players=3, seed=1)
    game.state.decks["movement"] = []
    game.state.decks["monster"] = []
    for _ in range(3):
        play_round(game)
    firsts = [e.text for e in game.log.events if e.kind == "turn" and e.text.endswith("begins")]
    assert firsts == [f"player {seat}'s turn begins" for seat in (1, 2, 3, 2, 3, 1, 3, 1, 2)]
