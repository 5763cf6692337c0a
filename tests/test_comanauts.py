"""Comanauts, the third game: its pack, the rulebook's examples, the turn, the threat track."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compiler.build import CompiledPack
from compiler.odds import odds_table, odds_text
from compiler.ruleset import RulesetError, load_ruleset
from runtime.cards import CardInstance
from runtime.decisions import ScriptedDecisions
from runtime.dice import ForcedDice, PoolTooLarge
from runtime.game import Game
from runtime.games.comanauts import COMANAUTS
from runtime.games.comanauts_items import equipped, gain_item, inventory
from runtime.games.comanauts_turn import (
    check_threat,
    draw_dice,
    place_threat,
    refresh_bag,
    turn_ends,
)
from runtime.odds import card_odds
from runtime.rounds import play_round
from tests.conftest import ROOT
from tests.helpers import card, compiled, run

PACK = ROOT / "content" / "comanauts"


@pytest.fixture(scope="module")
def pack() -> CompiledPack:
    return compiled(PACK)


def scripted(pack: CompiledPack, players: int = 1) -> tuple[Game, ForcedDice, ScriptedDecisions]:
    dice, answers = ForcedDice([]), ScriptedDecisions([])
    return pack.new_game(players=players, dice=dice, decisions=answers), dice, answers


def test_the_pack_checks_clean_and_its_tests_pass(pack: CompiledPack) -> None:
    code, output = run("check", str(PACK), "--format", "json")
    assert code == 0, output
    report = json.loads(output)
    assert report["errors"] == 0 and report["diagnostics"] == []
    assert report["executable"] == 1.0
    assert len(pack.cards) >= 20
    code, output = run("test", str(PACK))
    assert code == 0, output
    assert " 0 failed" in output
    # Every card has its own tests.
    assert all(c.tests for c in pack.cards), [c.title for c in pack.cards if not c.tests]


def test_ransoms_revolver_radio_and_rifle(pack: CompiledPack) -> None:
    """The rulebook's example: the rifle takes both hand slots; the revolver and the radio go
    to the inventory, or the radio to the accessory slot while that is free."""
    for radio_to, stowed in (("to the inventory", 2), ("to the accessory slot", 1)):
        game, _, answers = scripted(pack)
        ransom = game.player
        held: dict[str, CardInstance] = {}
        for title in ("Service Revolver", "Field Radio", "Long Rifle"):
            held[title] = game.new_instance(card(pack, title))
        for answer in ("equip", "the hand slot", "equip", "the hand-or-accessory slot"):
            answers.add(answer)
        gain_item(game, ransom, held["Service Revolver"])
        gain_item(game, ransom, held["Field Radio"])
        assert equipped(game, ransom, held["Service Revolver"]) == ("hand",)
        assert equipped(game, ransom, held["Field Radio"]) == ("hand-or-accessory",)
        answers.add("equip")
        answers.add(radio_to)
        gain_item(game, ransom, held["Long Rifle"])
        assert equipped(game, ransom, held["Long Rifle"]) == ("hand", "hand-or-accessory")
        assert equipped(game, ransom, held["Service Revolver"]) is None
        assert len(inventory(game, ransom)) == stowed
        assert answers.unused == []


def test_a_group_task_finished_over_three_turns_by_two_players(pack: CompiledPack) -> None:
    game, dice, answers = scripted(pack, players=2)
    page = game.new_instance(card(pack, "The Drifting Bridge"))
    game.state.in_play["page"] = page
    turns = [(0, [2, 3]), (1, [4, 1]), (0, [5, 6])]  # a seat and its two yellow dice
    for seat, faces in turns:
        game.state.current = seat
        game.set_stat("yellow", 2)
        game.set_stat("purple", 0)
        answers.add("2 dice")
        dice.add(faces)
        game.use(page)
        game.end_turn()  # the dice left are discarded, the threat checked
        game.player.turn_over = False
    outcomes = [e.text.rsplit(" ", 1)[-1] for e in game.log.events if e.kind == "check"]
    assert outcomes == ["open", "open", "done"]
    assert page.tokens["progress"] == 21
    assert sum("The helm answers at last." in line for line in game.log.lines()) == 1
    assert [game.state.players[s].stats.get("yellow") for s in (0, 1)] == [0, 0]


def test_a_skill_test_with_purple_dice_and_a_colour_bonus(pack: CompiledPack) -> None:
    """A yellow +1 (the visor) lifts the yellow die, not the purple one standing in for yellow:
    3 + 1 and 4 make 8, one short of the charm's 9."""
    game, dice, answers = scripted(pack)
    visor = game.new_instance(card(pack, "Scanner Visor"))
    answers.add("equip")
    gain_item(game, game.player, visor)
    charm = game.new_instance(card(pack, "Lucky Charm"))
    game.player.items.append(charm)  # carried, not equipped: its purple +1 does not count
    game.set_stat("yellow", 1)
    game.set_stat("purple", 1)
    answers.add("2 dice")
    dice.add([3, 4])
    game.use(charm)
    assert game.state.tracks["threat"] == 1
    rolled = next(e for e in game.log.events if e.kind == "check")
    assert "yellow 3 (+1 each), purple 4 → 8" in rolled.text
    assert game.stat("yellow") == 0 and game.stat("purple") == 0


def test_pillbox_odds_gives_the_chance_for_each_number_of_dice(pack: CompiledPack) -> None:
    """What `pillbox odds` prints: a path for each number of dice the player may spend."""
    table = odds_table(pack, ["red=2", "purple=1"])
    bulkhead = card(pack, "Jammed Bulkhead")
    output = odds_text(bulkhead, card_odds(table, bulkhead), table)
    lines = [line.split() for line in output if "spend:" in line]
    passed = {words[3]: words[0] for words in lines if words[-1] == "bridge"}
    # 9 or more: one die never, two dice 10/36, three dice 160/216.
    assert passed == {"2": "27.8", "3": "74.1"}
    assert any(words[3] == "1" and words[0] == "100.0" for words in lines)


def test_the_fewest_dice_are_named_when_the_player_is_asked(pack: CompiledPack) -> None:
    game, dice, answers = scripted(pack)
    game.set_stat("red", 2)
    answers.add("3 dice")
    dice.add([3, 3, 3])
    game.use(game.new_instance(card(pack, "Jammed Bulkhead")))
    asked = next(e for e in game.log.events if e.kind == "decide")
    assert "fewest for 50%: 3" in asked.text


def test_a_turn_draws_from_the_bag_then_discards_and_checks_the_threat(
    pack: CompiledPack,
) -> None:
    game, dice, _ = scripted(pack)
    player = game.player
    for colour in ("red", "green", "blue", "yellow", "purple"):
        game.set_stat(colour, 0)
    # The bag's dice are counted colour by colour, alphabetically, then the threat dice: of
    # 44, blue 1-8, green 9-16, purple 17-20, red 21-28, yellow 29-36, threat 37-44; each die
    # drawn leaves one fewer. Five are drawn: red, purple, blue, yellow, and a threat die, which
    # goes onto the threat track.
    dice.add([21, 17, 1, 30, 40])
    play_round(game)
    assert game.log.lines().count("player 1's turn ends") == 1
    assert "player 1 draws 5 dice: 1 blue, 1 purple, 1 red, 1 yellow, 1 threat" in game.log.lines()
    # What was drawn is discarded at the end of the turn; the bag is refreshed only by a
    # Check Threat that resolves the page's effect, or when it runs dry.
    assert [player.stats.get(c) for c in ("red", "purple", "blue", "yellow")] == [0, 0, 0, 0]
    bag = {c: game.state.tracks[f"{c}_bag"] for c in ("red", "green", "blue", "yellow", "purple")}
    assert bag == {"red": 7, "green": 8, "blue": 7, "yellow": 7, "purple": 3}
    assert game.state.tracks["threat"] == 1 and game.state.tracks["threat_bag"] == 7
    refresh_bag(game)
    assert game.state.tracks["purple_bag"] == 4 and game.state.tracks["red_bag"] == 8
    assert game.state.tracks["threat_bag"] == 7  # the one on the track stays there


def test_the_bag_runs_dry_and_the_discard_pool_goes_back(pack: CompiledPack) -> None:
    game, dice, _ = scripted(pack)
    for colour in ("red", "green", "blue", "yellow", "purple"):
        game.set_stat(colour, 0)
        game.state.tracks[f"{colour}_bag"] = 0
    for kind in ("threat", "white", "child"):
        game.state.tracks[f"{kind}_bag"] = 0
    game.state.tracks["purple_bag"] = 1
    # The purple die, then the bag is empty: the discard pool goes back (all but the die in
    # the pool), and the draw goes on: the first blue die, then the 42nd of 47, the last
    # threat die (the white dice and the inner child die are counted after the threat dice).
    dice.add([1, 1, 42])
    draw_dice(game, game.player, 3)
    assert [game.stat(c) for c in ("purple", "blue")] == [1, 1]
    assert game.state.tracks["threat"] == 1
    assert "the dice bag is empty: the discard pool goes back into it" in game.log.lines()
    assert game.state.tallies["bag refilled mid-draw"] == 1


def test_hostile_the_enemies_turn_comes_when_the_dice_match_them(pack: CompiledPack) -> None:
    game, _, _ = scripted(pack)
    game.spawn("enemy", "airlock", card(pack, "Hull Crawler"))
    game.spawn("enemy", "airlock", card(pack, "Static Wraith"))
    game.state.tracks["hostile"] = 1
    game.state.tracks["threat"] = 1
    check_threat(game)
    assert game.stat("health") == 6  # one die, two enemies: not yet
    game.state.tracks["threat"] = 2
    turn_ends(game, game.player)
    assert game.stat("health") == 3  # the crawler's 1 and the wraith's 2
    assert game.state.tracks["threat"] == 0


def test_defeating_the_last_enemy_makes_the_situation_safe(pack: CompiledPack) -> None:
    game, dice, answers = scripted(pack)
    game.spawn("enemy", "airlock", card(pack, "Drone Sentry"))
    game.state.tracks["hostile"] = 1
    baton = game.new_instance(card(pack, "Shock Baton"))
    game.player.items.append(baton)
    game.set_stat("red", 1)
    game.set_stat("purple", 0)
    answers.add("1 die")
    dice.add([4])
    answers.add("discard")
    game.use(baton)
    assert game.state.tracks["hostile"] == 0 and not game.actors_of("enemy")


def test_the_dice_faces_are_the_rulesets_designer_values(tmp_path: Path) -> None:
    rules = (PACK / "ruleset.yaml").read_text(encoding="utf-8")
    purple = "        purple: [1, 2, 3, 4, 5, 6]\n"
    rules = rules.replace("ruleset: comanauts", "ruleset: house")
    rules = rules.replace(purple, purple + "        grey: []\n")
    rules = rules.replace("reach: 1,", "reach: far,")
    (tmp_path / "house.yaml").write_text(rules, encoding="utf-8")
    with pytest.raises(RulesetError) as caught:
        load_ruleset("house.yaml", base_dir=tmp_path)
    messages = [(d.code, d.message) for d in caught.value.diagnostics]
    assert any(code == "E0412" and "faces" in m for code, m in messages), messages
    assert any("grey" in m for _, m in messages), messages
    assert any("reach is a number" in m for _, m in messages), messages


def test_a_pool_past_the_dice_a_test_may_roll_is_refused(pack: CompiledPack) -> None:
    game, _, _ = scripted(pack)
    game.player.stats.values["red"] = 10**6  # as a pack's ruleset of a huge `max` could give
    with pytest.raises(PoolTooLarge):
        game.use(game.new_instance(card(pack, "Jammed Bulkhead")))


def test_a_test_with_no_fitting_dice_leaves_the_double_waiting(pack: CompiledPack) -> None:
    game, _, _ = scripted(pack)
    game.spawn("enemy", "airlock", card(pack, "Hull Crawler"))
    game.set_stat("red", 0)
    game.set_stat("purple", 0)
    gauntlet = game.new_instance(card(pack, "Overclock Gauntlet"))
    game.player.items.append(gauntlet)
    game.use(gauntlet)
    assert game.player.bonuses == [("doubled:red", 2)]
    assert "an automatic fail → missed" in game.log.lines()[-1]


def test_clear_sight_and_equipping_from_the_inventory(pack: CompiledPack) -> None:
    game, _, answers = scripted(pack)
    drone = game.spawn("enemy", "cargo", card(pack, "Drone Sentry"))
    game.target(drone)
    here = game.new_instance(card(pack, "Smoke Vent"))
    assert COMANAUTS.conditions["clear_sight"](game, here)
    COMANAUTS.verbs["block_sight"](game, here, place="cargo")
    assert not COMANAUTS.conditions["clear_sight"](game, here)
    revolver = game.new_instance(card(pack, "Service Revolver"))
    answers.add("inventory")
    gain_item(game, game.player, revolver)
    answers.add("the hand-or-accessory slot")
    COMANAUTS.verbs["equip_this"](game, revolver)
    assert equipped(game, game.player, revolver) == ("hand-or-accessory",)
    assert inventory(game, game.player) == []


def test_a_hostile_brought_back_speaks_for_its_card_not_the_dead_one_it_was(
    pack: CompiledPack,
) -> None:
    # The card of a defeated hostile stays its dead actor's sheet: brought back, the new
    # actor holds the same card, and `you` on it must be the one standing.
    game, _, answers = scripted(pack)
    first = game.spawn("enemy", "airlock", card(pack, "Hull Crawler"))
    sheet = first.sheet
    assert sheet is not None
    answers.add("inventory")  # its loot
    game.kill(first, "test")
    assert first.dead and f"aside:{sheet.uid}" in game.state.flags
    game.state.tracks["hostile"] = 1
    game.state.tracks["threat"] = 1
    place_threat(game)
    back = next(actor for actor in game.actors_of("enemy"))
    assert back is not first and back.sheet is sheet
    assert game.owner_of(sheet) is back
    assert game.subjects("you", sheet) == [back]
