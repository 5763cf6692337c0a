"""Lobotomy: the monster-side rules that had no card (issue 34): line of sight, ranged
monsters, the keywords of the glossary, AoE attacks, pushing a stunned monster. Each with
forced dice; the numbers in the names are the rulebook's lines (docs/lobotomy.md lists every
rule and what proves it)."""

from __future__ import annotations

import pytest

from compiler.build import CompiledPack
from runtime.checks import CheckCall
from runtime.decisions import ScriptedDecisions
from runtime.dice import ForcedDice, SeededDice
from runtime.game import Game
from runtime.games.lobotomy import refused_move, special_event
from runtime.games.lobotomy_attack import wear_out
from runtime.games.lobotomy_convert import convert, converted
from runtime.games.lobotomy_inventory import trades
from runtime.games.lobotomy_monsters import monster_attack, monsters_attack, move_monsters
from runtime.games.lobotomy_ranged import sees
from runtime.games.lobotomy_tokens import open_door, place_token
from runtime.world import Phase
from tests.conftest import ROOT
from tests.helpers import card, compiled

PACK = ROOT / "content" / "lobotomy"


@pytest.fixture(scope="module")
def pack() -> CompiledPack:
    return compiled(PACK)


def monsters_turn(pack: CompiledPack) -> Phase:
    return pack.rules.world.turns.phases[1]


def attacks_of(game: Game) -> list[str]:
    return [e.text for e in game.log.events if e.kind in ("attack", "check")]


# ---------------------------------------------------------------- line of sight, ranged


def test_a_ranged_monster_stops_at_its_range_and_keeps_away_lines_819_821(
    pack: CompiledPack,
) -> None:
    game = pack.new_game(players=1, seed=1)
    game.player.location = "A9"
    flinger = game.spawn("monster", "A6", card(pack, "The Pill Flinger"))
    move_monsters(game, monsters_turn(pack))
    assert flinger.location == "A7"  # two spaces away, its range: it stops with 1 AP left
    flinger.location = "A9"  # on the character's space: it steps away, to its range again
    move_monsters(game, monsters_turn(pack))
    assert pack.rules.world.board.distance(flinger.location or "", "A9") == 2
    husk = game.spawn("monster", "A6", card(pack, "Orderly Husk"))
    move_monsters(game, monsters_turn(pack))
    assert husk.location == "A8"  # any other monster walks all the way


def test_a_ranged_monster_attacks_with_the_overwhelm_of_the_space_line_805(
    pack: CompiledPack,
) -> None:
    game = pack.new_game(players=1, seed=1)
    game.player.location = "A9"
    game.player.stats.set("defense", 9)  # nothing gets through: the dice say who attacks
    game.spawn("monster", "A9", card(pack, "Orderly Husk"))
    game.spawn("monster", "A7", card(pack, "The Pill Flinger"))
    game.dice = SeededDice(3)
    monsters_attack(game, monsters_turn(pack))
    husk, flinger = attacks_of(game)
    assert husk.startswith("Orderly Husk attacks")
    # its two dice and one for the Husk that attacked on the character's space before it
    assert flinger.startswith("The Pill Flinger attacks player 1") and "attack 3d6" in flinger


def door_between_a8_and_a9(game: Game, pack: CompiledPack) -> None:
    place_token(game, game.new_instance(card(pack, "Swinging Door")), "A8")


def test_line_of_sight_passes_figures_not_doors_lines_339_341_727_729_966_970(
    pack: CompiledPack,
) -> None:
    game = pack.new_game(players=1, seed=1)
    game.player.location = "A9"
    game.player.stats.set("ap", 8)
    target = game.spawn("monster", "A7", card(pack, "Matron Greaves"))  # 10 HP, Defense 2
    game.spawn("monster", "A8", card(pack, "Orderly Husk"))  # a figure between: no matter
    game.target(target)
    rule = pack.rules.procedures["attack"]
    sling = game.new_instance(card(pack, "Fire Axe"))
    ranged = CheckCall(rule, (("dice", 3), ("range", 2)), (), "attack 3 at range 2")
    game.dice = ForcedDice([6, 6, 6])
    game.check(sling, ranged)
    assert target.stats.get("hp") == 9
    door_between_a8_and_a9(game, pack)  # a door token blocks the line, face down or not
    assert not sees(game, "A9", "A7") and not sees(game, "A9", "A8") and sees(game, "A7", "A8")
    game.dice = ForcedDice([6, 6, 6])
    game.check(sling, ranged)
    assert target.stats.get("hp") == 9 and "out of sight" in attacks_of(game)[-2]
    (door,) = game.state.floor["A9"]
    open_door(game, door)  # an opened door is off the board: the line is clear again
    game.dice = ForcedDice([6, 6, 6])
    game.check(sling, ranged)
    assert target.stats.get("hp") == 8


def test_a_ranged_monster_needs_sight_of_its_target_line_1073(pack: CompiledPack) -> None:
    game = pack.new_game(players=1, seed=1)
    game.player.location = "A9"
    game.player.stats.set("defense", 9)
    game.spawn("monster", "A7", card(pack, "The Pill Flinger"))
    door_between_a8_and_a9(game, pack)
    game.dice = SeededDice(3)
    monsters_attack(game, monsters_turn(pack))
    assert attacks_of(game) == []


# ---------------------------------------------------------------- keywords (1103-1147)


def test_a_blood_bond_within_4_spaces_rolls_1_better_and_attacks_again_line_1147(
    pack: CompiledPack,
) -> None:
    game = pack.new_game(players=1, seed=1)
    game.player.location = "A9"
    twin = game.spawn("monster", "A9", card(pack, "Cot Twin"))
    other = game.spawn("monster", "A12", card(pack, "Cot Twin"))  # three spaces away
    game.player.stats.set("defense", 0)
    # AR 5+: a 4 with the bond's +1 succeeds, a 1 does not; two attacks of a damage each
    game.dice = ForcedDice([4, 1, 4, 1])
    monsters_attack(game, monsters_turn(pack))
    assert [t.split(" attacks")[0] for t in attacks_of(game)] == [twin.name, twin.name]
    assert game.player.stats.get("health") == 4
    other.location = "B2"  # five spaces away: no bond, one attack, and a 4 fails
    game.dice = ForcedDice([4, 1])
    monsters_attack(game, monsters_turn(pack))
    assert len(attacks_of(game)) == 3 and game.player.stats.get("health") == 4


def test_the_auras_take_an_ap_and_a_health_as_a_turn_starts_lines_1131_1133(
    pack: CompiledPack,
) -> None:
    game = pack.new_game(players=1, seed=1)
    hero = game.player
    turn = game.module.turns["character"]
    turn(game, hero)
    assert hero.stats.get("ap") == 3 and hero.stats.get("health") == 6  # no aura yet
    chaplain = game.spawn("monster", "B5", card(pack, "The Grey Chaplain"))
    game.spawn("monster", "C5", card(pack, "Mirror Patient"))
    game.spawn("monster", "D5", card(pack, "Mirror Patient"))  # one aura, however many
    turn(game, hero)
    assert hero.stats.get("ap") == 2 and hero.stats.get("health") == 5
    chaplain.location = None  # gone from the board: its aura with it
    hero.stats.set("ap", 3)
    turn(game, hero)
    assert hero.stats.get("ap") == 3 and hero.stats.get("health") == 4


def test_a_burrowing_monster_hurt_in_the_round_goes_elsewhere_line_1137(
    pack: CompiledPack,
) -> None:
    game = pack.new_game(players=1, seed=1)
    hurt = game.spawn("monster", "B5", card(pack, "Drain Crawler"))
    whole = game.spawn("monster", "C5", card(pack, "Drain Crawler"))
    game.module.reactions["round_starts"](game)
    hurt.stats.set("hp", 3)
    game.dice = ForcedDice([30])  # the random space of the one hurt
    game.module.steps["monsters_attack"](game, monsters_turn(pack))
    moved = hurt.location
    assert moved != "B5" and whole.location == "C5"
    game.module.reactions["round_starts"](game)  # a new round: its wound is old
    game.module.steps["monsters_attack"](game, monsters_turn(pack))
    assert hurt.location == moved


def test_inspiring_presence_gives_the_others_on_the_space_a_die_line_1103(
    pack: CompiledPack,
) -> None:
    game = pack.new_game(players=2, seed=1)
    first, second = game.state.players
    second.sheet = game.new_instance(card(pack, "Ines Calloway"))
    target = game.spawn("monster", first.location, card(pack, "Matron Greaves"))
    game.target(target)
    rule = pack.rules.procedures["attack"]
    axe = game.new_instance(card(pack, "Fire Axe"))
    call = CheckCall(rule, (("dice", 3),), (), "attack 3")
    game.dice = ForcedDice([1, 1, 1, 1])
    game.check(axe, call)
    assert "attack 4d6" in attacks_of(game)[-1]  # Ines beside them: four dice, not three
    second.location = "A5"
    game.dice = ForcedDice([1, 1, 1])
    game.check(axe, call)
    assert "attack 3d6" in attacks_of(game)[-1]


def test_an_attack_tables_aoe_row_hits_each_character_by_their_defense_lines_809_815(
    pack: CompiledPack,
) -> None:
    game = pack.new_game(players=2, seed=1)
    first, second = game.state.players
    first.stats.set("defense", 1)
    second.stats.set("defense", 2)
    chaplain = game.spawn("monster", first.location, card(pack, "The Grey Chaplain"))
    # the d6 picks row 5..6, an AoE of 3 dice: three successes, less each one's Defense
    game.dice = ForcedDice([5, 4, 5, 6])
    monster_attack(game, chaplain, first)
    assert "attacks everyone" in attacks_of(game)[-1]
    assert first.stats.get("health") == 4 and second.stats.get("health") == 5


def test_a_stunned_monster_may_be_pushed_a_space_line_715(pack: CompiledPack) -> None:
    answers = ScriptedDecisions(["push it to A6"])
    game = pack.new_game(players=1, seed=1, decisions=answers)
    game.player.location = "A5"
    husk = game.spawn("monster", "A5", card(pack, "Orderly Husk"))
    game.target(husk)
    rule = pack.rules.procedures["attack"]
    club = game.new_instance(card(pack, "Fire Axe"))
    game.dice = ForcedDice([6, 6, 1])  # a damage past its Defense: stunned, then pushed
    game.check(club, CheckCall(rule, (("dice", 3), ("symbols", ["power"])), (), "attack 3"))
    assert "stunned:Orderly Husk" in game.state.flags and husk.location == "A6"
    assert answers.unused == []


# ---------------------------------------------------------------- the Surge (383-389)


def surge_event(game: Game, pack: CompiledPack, colour: str) -> None:
    game.state.in_play["movement"] = game.new_instance(card(pack, "Footsteps Overhead"))
    game.state.in_play["scenario"] = game.new_instance(card(pack, "The Counting Rhyme"))
    game.fire(f"{colour}_event", [game.state.in_play["scenario"]])


def slashers(game: Game) -> list[str]:
    return [m.name for m in game.actors_of("monster") if m.sheet and m.sheet.title == "The Slasher"]


def test_surge_green_brings_a_slasher_three_at_most_line_385(pack: CompiledPack) -> None:
    game = pack.new_game(players=1, seed=1)
    game.dice = ForcedDice([])  # the spaces come from the board's stream, not the dice
    for _ in range(4):
        surge_event(game, pack, "green")
    assert len(slashers(game)) == 3
    assert all(m.location not in (None, "central") for m in game.actors_of("monster"))


def test_surge_blue_lays_a_door_on_each_characters_space_line_387(pack: CompiledPack) -> None:
    game = pack.new_game(players=2, seed=1)
    first, second = game.state.players
    first.location, second.location = "A5", "B3"
    game.state.decks["doors"] = [game.new_instance(card(pack, "Swinging Door")) for _ in "ab"]
    surge_event(game, pack, "blue")
    assert [c.title for c in game.state.floor["A5"]] == ["Swinging Door"]
    assert [c.title for c in game.state.floor["B3"]] == ["Swinging Door"]
    assert game.state.decks["doors"] == []
    # face down, it bars the way until it is opened
    assert any(refused_move(game, first, place) for place in ("A4", "A6"))


def test_surge_red_slashers_go_ethereal_with_an_ap_more_this_turn_line_389(
    pack: CompiledPack,
) -> None:
    game = pack.new_game(players=1, seed=1)
    game.player.location = "A9"
    slasher = game.spawn("monster", "A5", card(pack, "The Slasher"))
    place_token(game, game.new_instance(card(pack, "Swinging Door")), "A6")
    game.state.flags.add(f"revealed:{game.state.floor['A6'][0].uid}")  # revealed and shut
    surge_event(game, pack, "red")
    assert "ethereal" in slasher.keywords and slasher.stats.get("ap") == 3
    move_monsters(game, monsters_turn(pack))
    assert slasher.location == "A8"  # through the shut door, three spaces
    game.player.stats.set("defense", 9)
    game.dice = SeededDice(2)
    game.module.steps["monsters_attack"](game, monsters_turn(pack))
    assert "ethereal" not in slasher.keywords and slasher.stats.get("ap") == 2


def test_special_events_run_the_scenarios_then_the_monsters_line_381(pack: CompiledPack) -> None:
    game = pack.new_game(players=1, seed=1)
    game.spawn("monster", game.player.location, card(pack, "Wailing Shade"))
    game.state.in_play["scenario"] = game.new_instance(card(pack, "Hall of Mirrors"))
    game.state.in_play["movement"] = game.new_instance(card(pack, "Power Cut"))
    special_event(game, monsters_turn(pack))
    resolved = [e.text.split(":")[0] for e in game.log.events if e.kind == "resolve"]
    assert resolved == ['scenario "Hall of Mirrors"', 'monster "Wailing Shade"']
    assert game.player.stats.get("insanity") == 2


def test_a_converted_monster_is_a_friend_that_weakens_and_strikes_once_line_1135(
    pack: CompiledPack,
) -> None:
    game = pack.new_game(players=1, seed=1)
    hero = game.player
    hero.location = "A5"
    husk = game.spawn("monster", "A5", card(pack, "Orderly Husk"))
    boss = game.spawn("monster", "A7", card(pack, "Kiln Warden Oswin"))
    game.target(boss)
    convert(game, game.new_instance(card(pack, "Borrowed Will")))
    assert not converted(game, boss)  # a boss is never controlled
    game.target(husk)
    convert(game, game.new_instance(card(pack, "Borrowed Will")))
    assert converted(game, husk) and refused_move(game, hero, "A6") is None
    # its controller's turn: 1 HP less, then its 3 dice at a monster on its space
    shade = game.spawn("monster", "A5", card(pack, "Wailing Shade"))  # 3 HP, Defense 2
    game.dice = ForcedDice([6, 6, 6])
    game.module.turns["character"](game, hero)
    assert husk.stats.get("hp") == 3 and shade.stats.get("hp") == 2
    # the monsters' turn: it stays, and the monsters on its space attack it, not join it
    hero.location = "B9"
    hero.stats.set("defense", 9)
    move_monsters(game, monsters_turn(pack))
    assert husk.location == "A5"
    game.dice = SeededDice(5)
    monsters_attack(game, monsters_turn(pack))
    assert [t.split(" attacks")[0] for t in attacks_of(game)[1:]] == ["Wailing Shade"]
    assert "attacks Orderly Husk" in attacks_of(game)[-1]


# ---------------------------------------------------------------- readings, shown


def test_a_used_up_item_or_a_broken_weapon_is_no_longer_traded_lines_504_506(
    pack: CompiledPack,
) -> None:
    game = pack.new_game(players=2, seed=1)
    first, second = game.state.players
    second.location = first.location
    sedative = game.new_instance(card(pack, "Sedative"))  # one use
    axe = game.new_instance(card(pack, "Fire Axe"))  # durability 2
    first.items[:] = [sedative, axe]
    second.items[:] = []
    assert {item.title for _, _, item in trades(game, first)} == {"Sedative", "Fire Axe"}
    game.use(sedative)
    for _ in range(2):
        wear_out(game, axe, {})
    assert sedative not in first.items and axe not in first.items
    assert trades(game, first) == []
