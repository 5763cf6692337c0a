"""Lobotomy's character-side rules, each with the rulebook line it proves: healing, the first
player token, stealth, ethereal characters, armor, a skill's last use and the like."""

from __future__ import annotations

import pytest

from compiler.build import CompiledPack
from runtime.cards import CardInstance
from runtime.decisions import ScriptedDecisions
from runtime.dice import ForcedDice
from runtime.game import Game
from runtime.games.lobotomy_monsters import haunted_by
from runtime.games.lobotomy_tokens import found
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


def carried(game: Game, title: str) -> CardInstance:
    """A card of the pack put in the acting character's hands."""
    definition = game.find(title)
    assert definition is not None
    instance = game.new_instance(definition)
    game.player.items.append(instance)
    return instance


def test_a_stealthy_character_leaves_monsters_and_is_not_stomped_lines_333_904_1105(
    pack: CompiledPack,
) -> None:
    game = pack.new_game(players=2, seed=1, dice=ForcedDice([5, 5]))
    first, second = game.state.players
    first.location = second.location = "A2"
    game.spawn("monster", "A2", card(pack, "Orderly Husk"))
    game.use(carried(game, "Felt Slippers"))
    game.move("A3")
    assert first.location == "A3"  # the husk does not hold a character with stealth
    game.move("A2")
    game.advance("insomnia", 1)  # the Warden walks onto A2: only the one unstealthy is stomped
    assert first.stats.get("health") == 6 and second.stats.get("health") == 2
    assert "stunned:player 1" not in game.state.flags and "stunned:player 2" in game.state.flags
    game.fire("round_starts", game.cards_in_play())  # stealth lasts to the round's end
    assert not first.keywords


def test_an_ethereal_character_goes_through_doors_and_past_solid_monsters_lines_333_1117(
    pack: CompiledPack,
) -> None:
    game = pack.new_game(dice=ForcedDice([]), decisions=ScriptedDecisions(["no"]))
    game.player.location = "A3"
    door = game.new_instance(card(pack, "Ward Door"))
    found(game, door)  # revealed between A3 and A4, left locked
    husk = game.spawn("monster", "A3", card(pack, "Orderly Husk"))
    game.move("A4")
    assert game.player.location == "A3"
    game.use(carried(game, "Ether Drops"))
    game.move("A4")  # through the locked door, and the husk does not hold him
    assert game.player.location == "A4"
    # An ethereal monster holds an ethereal character, as the solid one held him solid.
    husk.location = "A4"
    husk.keywords = frozenset({"ethereal"})
    game.move("A5")
    assert game.player.location == "A4"
    assert "cannot leave a space with" in game.log.events[-1].text


def test_others_leave_the_nemesis_space_and_only_its_target_is_held_line_1049(
    pack: CompiledPack,
) -> None:
    game = pack.new_game(players=2, seed=1, dice=ForcedDice([1, 6]))
    haunted, other = game.state.players
    haunted.location = other.location = "A5"
    nemesis = game.spawn("monster", "A5", card(pack, "The Other You"))
    assert haunted_by(game, nemesis) is haunted
    game.move("A6")
    assert haunted.location == "A5"  # held by the Nemesis that haunts him
    game.state.current = 1
    game.move("A6")
    assert other.location == "A6"  # the other does not feel its presence
