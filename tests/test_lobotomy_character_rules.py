"""Lobotomy's character-side rules, each with the rulebook line it proves: healing, the first
player token, stealth, ethereal characters, armor, a skill's last use and the like."""

from __future__ import annotations

import pytest

from compiler.build import CompiledPack
from runtime.decisions import ScriptedDecisions
from runtime.game import Game
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
