"""Lobotomy: rules of the rulebook that had no test of their own, each with forced dice where
dice are rolled (the numbers in the names are the rulebook's lines; docs/lobotomy.md lists
every rule and what proves it)."""

from __future__ import annotations

import pytest

from compiler.build import CompiledPack
from runtime.dice import ForcedDice
from runtime.games.lobotomy import (
    chaos_die,
    fists,
    patrol_space,
    special_event,
    tantrum,
    target_nearest,
)
from runtime.games.lobotomy_dice import CHAOS_FACES, ChaosFace
from runtime.games.lobotomy_monsters import monster_attack, monsters_attack, move_monsters
from runtime.games.lobotomy_table import lay_memory_token, open_ways
from runtime.rounds import play_round
from tests.conftest import ROOT
from tests.helpers import card, compiled

PACK = ROOT / "content" / "lobotomy"


@pytest.fixture(scope="module")
def pack() -> CompiledPack:
    return compiled(PACK)


def memory_tokens(flags: set[str]) -> list[str]:
    return sorted(flag for flag in flags if flag.startswith("memory token:"))


def test_memory_tokens_one_a_space_and_twelve_at_most_lines_238_395(pack: CompiledPack) -> None:
    game = pack.new_game(players=1, seed=1)
    game.state.flags = {f for f in game.state.flags if not f.startswith("memory token:")}
    lay_memory_token(game, "A1")
    lay_memory_token(game, "A1")  # never two on one space
    assert memory_tokens(game.state.flags) == ["memory token:A1"]
    for number in range(2, 13):
        lay_memory_token(game, f"B{number}")
    lay_memory_token(game, "C1")  # all twelve are on the board: the step is skipped
    assert len(memory_tokens(game.state.flags)) == 12
    assert "memory token:C1" not in game.state.flags


def test_the_warden_goes_from_a12_to_b1_lines_234_401_873(pack: CompiledPack) -> None:
    assert (patrol_space(0), patrol_space(11), patrol_space(12)) == ("A1", "A12", "B1")
    game = pack.new_game(players=1, seed=1)
    game.advance("insomnia", 11)
    (walker,) = game.actors_of("warden")
    assert walker.location == "A12"
    game.advance("insomnia", 1)
    assert walker.location == "B1" and game.state.tracks["insomnia"] == 12


def test_a_death_leaves_the_cooldowns_as_they_were_line_916(pack: CompiledPack) -> None:
    game = pack.new_game(players=1, seed=2)
    hero = game.state.players[0]
    calm = game.new_instance(card(pack, "Calm Voice"))
    hero.items.append(calm)
    game.add_tokens(calm, "cooldown", 2)
    hero.location = "B4"
    hero.stats.set("health", 1)
    husk = game.spawn("monster", "B4", card(pack, "Orderly Husk"))
    game.state.round = 1  # inside a game: a death does not end the run
    game.dice = ForcedDice([6, 6, 6])
    monster_attack(game, husk, hero)
    assert hero.location == "central" and hero.stats.get("health") == 6
    assert calm.tokens.get("cooldown") == 2


def test_a_monster_with_no_ap_still_attacks_and_attacking_costs_none_lines_433_462(
    pack: CompiledPack,
) -> None:
    game = pack.new_game(players=1, seed=1)
    hero = game.state.players[0]
    hero.location = "A3"
    husk = game.spawn("monster", "A3", card(pack, "Orderly Husk"))
    husk.stats.set("ap", 0)
    phase = pack.rules.world.turns.phases[1]
    game.dice = ForcedDice([6, 6, 6])
    monsters_attack(game, phase)
    assert hero.stats.get("health") == 4  # three successes, Defense 1: 2 damage
    assert husk.stats.get("ap") == 0


def test_a_monster_keeps_its_damage_as_it_moves_line_643(pack: CompiledPack) -> None:
    game = pack.new_game(players=1, seed=1)
    game.state.players[0].location = "A3"
    husk = game.spawn("monster", "A6", card(pack, "Orderly Husk"))
    husk.stats.set("hp", 2)
    move_monsters(game, pack.rules.world.turns.phases[1])
    assert husk.location == "A4" and husk.stats.get("hp") == 2


def test_each_monster_attacks_once_a_monsters_turn_line_462(pack: CompiledPack) -> None:
    game = pack.new_game(players=1, seed=1)
    hero = game.state.players[0]
    hero.location = "A3"
    game.spawn("monster", "A3", card(pack, "Orderly Husk"))
    game.dice = ForcedDice([1, 1, 1])
    before = len(game.log.events)
    monsters_attack(game, pack.rules.world.turns.phases[1])
    attacks = [e for e in game.log.events[before:] if e.kind == "attack"]
    assert len(attacks) == 1


def test_a_special_event_runs_each_scenarios_event_of_its_colour_lines_375_381(
    pack: CompiledPack,
) -> None:
    game = pack.new_game(players=1, seed=1)
    game.play(card(pack, "The Night Shift"))  # on red: the Warden a space on
    game.play(card(pack, "Hall of Mirrors"))  # on red: 1 insanity for each character
    game.state.in_play["movement"] = game.new_instance(card(pack, "Cold Draft"))  # red
    special_event(game, pack.rules.world.turns.phases[1])
    assert game.state.tracks["insomnia"] == 1
    assert game.state.players[0].stats.get("insanity") == 1
    game.state.in_play["movement"] = game.new_instance(card(pack, "Quiet Hour"))  # no colour
    special_event(game, pack.rules.world.turns.phases[1])
    assert game.state.tracks["insomnia"] == 1


def test_a_tantrum_leaves_the_others_on_the_space_to_a_smash_line_845(
    pack: CompiledPack,
) -> None:
    game = pack.new_game(players=2, seed=1)
    first, second = game.state.players
    boss = game.spawn("monster", first.location, card(pack, "Kiln Warden Oswin"))
    second.location = first.location
    second.stats.set("defense", 0)
    game.state.current = 1
    tantrum(game, game.new_instance(card(pack, "Sedative")))
    assert any(flag.startswith("tantrum") for flag in game.state.flags)
    game.dice = ForcedDice([6, 6])
    move_monsters(game, pack.rules.world.turns.phases[1])
    assert first.stats.get("health") == 5 and second.stats.get("health") == 4
    assert boss.location == first.location


def test_characters_and_tokens_on_a_space_do_not_stop_a_move_line_333(
    pack: CompiledPack,
) -> None:
    game = pack.new_game(players=2, seed=1)
    first, second = game.state.players
    game.state.flags = {f for f in game.state.flags if not f.startswith("memory token:")}
    first.location, second.location = "C3", "C4"
    lay_memory_token(game, "C4")
    game.state.floor.clear()  # no door between them: only the character and the token
    assert "C4" in open_ways(game, first)
    game.move("C4")
    assert first.location == "C4"


def test_the_warden_cannot_be_attacked_before_the_clash_line_264(pack: CompiledPack) -> None:
    game = pack.new_game(players=1, seed=1)
    game.advance("insomnia", 1)
    (walker,) = game.actors_of("warden")
    walker.location = game.player.location  # set there: no stomp, no walk
    target_nearest(game, game.new_instance(card(pack, "Sedative")))
    assert game.state.target is None and game.actors_of("monster") == []


def test_a_monster_targets_the_lowest_defense_then_the_least_health_lines_763_767(
    pack: CompiledPack,
) -> None:
    game = pack.new_game(players=2, seed=1)
    first, second = game.state.players
    first.location = second.location = "C2"
    first.stats.set("health", 6)
    second.stats.set("health", 3)
    game.spawn("monster", "C2", card(pack, "Orderly Husk"))
    phase = pack.rules.world.turns.phases[1]
    game.dice = ForcedDice([1, 1, 1])
    monsters_attack(game, phase)  # the same Defense: the one with less health
    game.dice = ForcedDice([1, 1, 1])
    second.stats.set("defense", 2)
    monsters_attack(game, phase)  # the lowest Defense first, whatever the health
    attacks = [e for e in game.log.events if e.kind == "attack"]
    assert [e.data["target"] for e in attacks] == ["player 2", "player 1"]


def test_a_scenario_done_before_the_clash_gives_an_insanity_back_line_1004(
    pack: CompiledPack,
) -> None:
    game = pack.new_game(players=5, seed=1)
    for player in game.state.players:
        player.stats.set("insanity", 2)
    game.play(card(pack, "Cold Storage"))
    (keeper,) = game.actors_of("monster")
    game.state.round = 1
    game.change("hp", -keeper.stats.get("hp"), keeper)
    game.state.decks["movement"] = []
    game.state.decks["monster"] = []
    game.state.decks["scenario"] = []
    play_round(game)
    assert game.state.tracks["scenarios"] == 1
    assert [p.stats.get("insanity") for p in game.state.players] == [1] * 5


@pytest.mark.parametrize(("first", "second", "step"), [("A4", "A8", "A5"), ("A8", "A4", "A7")])
def test_two_characters_as_near_a_monster_heads_for_the_first_seat_line_440(
    pack: CompiledPack, first: str, second: str, step: str
) -> None:
    game = pack.new_game(players=2, seed=1)
    game.state.floor.clear()  # no doors in the way
    seats = game.state.players
    seats[0].location, seats[1].location = first, second
    husk = game.spawn("monster", "A6", card(pack, "Orderly Husk"))
    husk.stats.set("ap", 1)
    move_monsters(game, pack.rules.world.turns.phases[1])
    assert husk.location == step


def test_of_two_attack_rolls_only_the_first_has_the_chaos_die_line_835(
    pack: CompiledPack,
) -> None:
    game = pack.new_game(players=1, seed=1)
    husk = game.spawn("monster", game.actor.location, card(pack, "Orderly Husk"))
    game.target(husk)
    bare = game.new_instance(card(pack, "Sedative"))
    chaos_die(game, bare)
    two_skulls = CHAOS_FACES.index(ChaosFace(skulls=2)) + 1
    # The first roll: three blanks and the Chaos Die's two skulls, 1 past Defense 1; the
    # second: three sixes and no Chaos Die, 2 past it. Health 4 to 1, no die left over.
    dice = ForcedDice([1, 1, 1, two_skulls, 6, 6, 6])
    game.dice = dice
    fists(game, bare)
    assert husk.stats.get("hp") == 3
    fists(game, bare)
    assert husk.stats.get("hp") == 1 and dice.unused == []


def test_a_monster_leaves_a_space_with_a_character_it_is_not_after_line_823(
    pack: CompiledPack,
) -> None:
    # The Nemesis haunts the third seat (the lowest roll); on the first's space, it walks off.
    game = pack.new_game(players=3, seed=1)
    game.state.floor.clear()
    for seat, character in enumerate(game.state.players):
        character.location = ["A5", "A8", "B5"][seat]
    game.dice = ForcedDice([4, 3, 1])
    nemesis = game.spawn("monster", "A5", card(pack, "The Other You"))
    move_monsters(game, pack.rules.world.turns.phases[1])
    assert nemesis.location == "A4"  # towards B5, by the central piece


def test_the_players_act_one_after_another_in_seat_order_lines_158_307(
    pack: CompiledPack,
) -> None:
    game = pack.new_game(players=3, seed=1)
    game.state.decks["movement"] = []
    game.state.decks["monster"] = []
    play_round(game)
    turns = [e.text for e in game.log.events if e.kind == "turn"]
    assert turns == [
        f"player {seat}'s turn {edge}" for seat in (1, 2, 3) for edge in ("begins", "ends")
    ]


def test_a_scenario_done_leaves_with_its_tokens_and_its_monsters_stay_line_1000(
    pack: CompiledPack,
) -> None:
    game = pack.new_game(players=5, seed=1)
    game.state.decks["scenario"] = []  # its jump starts no other
    sheep = game.play(card(pack, "Counting Sheep"))  # its setup: a monster on A6
    sheep.tokens["progress"] = 5
    game.end_turn()  # its objective is checked: done
    assert not any(slot.startswith("scenario:") for slot in game.state.in_play)
    assert game.state.tracks["scenarios"] == 1 and not sheep.tokens.get("progress")
    assert [m.location for m in game.actors_of("monster")] == ["A6"]
