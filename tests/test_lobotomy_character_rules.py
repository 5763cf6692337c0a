"""Lobotomy's character-side rules, each with the rulebook line it proves: healing, the first
player token, stealth, ethereal characters, armor, a skill's last use and the like."""

from __future__ import annotations

import pytest

from compiler.build import CompiledPack
from runtime import datagame
from runtime.cards import CardInstance
from runtime.datagame import legal_actions, setup, whole_game_of
from runtime.decisions import Decision, ScriptedDecisions
from runtime.dice import ForcedDice
from runtime.game import Game
from runtime.games.lobotomy import fists, special_event
from runtime.games.lobotomy_monsters import haunted_by, monsters_attack
from runtime.games.lobotomy_scenarios import active, jump_scenario, quarters_in_play
from runtime.games.lobotomy_tokens import found
from runtime.rounds import play_round, take_turn
from tests.conftest import ROOT
from tests.helpers import card, compiled
from tests.test_lobotomy_characters import seated

PACK = ROOT / "content" / "lobotomy"


@pytest.fixture(scope="module")
def pack() -> CompiledPack:
    return compiled(PACK)


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


def test_armor_takes_damage_tokens_up_to_its_durability_then_goes_lines_585_587(
    pack: CompiledPack,
) -> None:
    game = pack.new_game(seed=0, dice=ForcedDice([6, 6, 6, 6, 6, 6]))
    game.play(card(pack, "Padded Jacket"))  # armor, durability 3
    (jacket,) = game.player.items
    assert game.stat("defense") == 1  # armor is no Defense
    game.spawn("monster", game.player.location, card(pack, "Orderly Husk"))
    monsters = pack.rules.world.turns.phases[1]
    monsters_attack(game, monsters)  # three 6s, Defense 1: 2 damage, on the jacket
    assert jacket.tokens["charges"] == 1 and game.player.stats.get("health") == 6
    game.state.round += 1  # the next monsters' turn
    monsters_attack(game, monsters)  # 2 more: the jacket's last point, 1 to health
    assert game.player.stats.get("health") == 5
    assert jacket not in game.player.items
    assert jacket in game.state.discards["equipment"]


def test_a_second_armor_is_given_free_to_a_character_on_your_space_line_589(
    pack: CompiledPack,
) -> None:
    given = ScriptedDecisions(["give Riot Shield to player 2"])
    game = pack.new_game(players=2, seed=0, decisions=given)
    first, second = game.state.players
    second.location = first.location
    game.play(card(pack, "Padded Jacket"))
    game.play(card(pack, "Riot Shield"))
    assert [c.title for c in first.items] == ["Padded Jacket"]
    assert [c.title for c in second.items] == ["Riot Shield"]
    assert first.stats.get("ap") == 3  # free: no trade action


SIX_SKILLS = ("Scream", "Pyromania", "Read the Twitch", "Slip Away", "Stolen Minute", "Frenzy")


def test_a_skill_discarded_off_cooldown_is_used_one_last_time_line_552(
    pack: CompiledPack,
) -> None:
    answers = ["use Stolen Minute one last time, then discard it"]
    game = pack.new_game(seed=0, decisions=ScriptedDecisions(answers))
    for title in SIX_SKILLS:
        game.player.items.append(game.new_instance(card(pack, title)))
    slip = next(c for c in game.player.items if c.title == "Slip Away")
    slip.tokens["cooldown"] = 1  # on cooldown: discarded without a last use
    game.play(card(pack, "The Title Fight"))  # brings back Bloodlust, a seventh skill
    assert game.player.stats.get("ap") == 4 and game.state.tracks["insomnia"] == 1
    held = [c.title for c in game.player.items]
    assert "Stolen Minute" not in held and "Bloodlust" in held and len(held) == 6
    choices = [e for e in game.log.events if e.kind == "decide"]
    assert "use Slip Away one last time" not in choices[0].text


def test_room_is_made_by_using_up_an_items_last_charges_line_564(pack: CompiledPack) -> None:
    game = pack.new_game(seed=0, decisions=ScriptedDecisions(["use up Pocket Torch"]))
    game.play(card(pack, "Pocket Torch"))
    for title in ("Rusty Scalpel", "Mop Handle", "Fire Axe"):
        carried(game, title)
    torch = game.player.items[0]
    torch.tokens["charges"] = 1  # its last charge
    game.spawn("monster", game.player.location, card(pack, "Orderly Husk"))
    game.play(card(pack, "Ward Key Ring"))  # a fifth slot: the torch's last flash makes room
    held = [c.title for c in game.player.items]
    assert held == ["Rusty Scalpel", "Mop Handle", "Fire Axe", "Ward Key Ring"]
    assert torch in game.state.discards["equipment"]


def test_defy_gravity_turns_a_die_of_an_attack_a_search_and_an_unlocking_test_line_894(
    pack: CompiledPack,
) -> None:
    # An attack: fists, AR 4, on the husk's Defense 1: 3 5 6 deal 1; the 3 turned to a 4, 2.
    answers = ScriptedDecisions(["yes"])
    game = pack.new_game(players=1, seed=1, dice=ForcedDice([3, 5, 6]), decisions=answers)
    husk = game.spawn("monster", game.actor.location, card(pack, "Orderly Husk"))
    game.target(husk)
    fists(game, game.new_instance(card(pack, "Sedative")))
    assert husk.stats.get("hp") == 2 and game.state.tracks["insomnia"] == 1
    # A search: five successes and a 3; turned, six buy a weapon and the equipment.
    answers.add("yes")
    answers.add("weapon + equipment")
    game.dice = ForcedDice([4, 5, 6, 4, 6, 1, 3])
    game.state.actors.remove(husk)
    found(game, game.new_instance(card(pack, "Dented Locker")))
    assert sorted(c.kind for c in game.player.items) == ["equipment", "weapon"]
    assert game.state.tracks["insomnia"] == 2
    # An unlocking test: four successes and a 3 against a lock of 5; turned, it opens.
    answers.add("yes")
    answers.add("yes")
    game.player.stats.set("ap", 3)
    game.dice = ForcedDice([4, 5, 6, 4, 3, 1, 1])
    found(game, game.new_instance(card(pack, "Ward Door")))
    assert game.state.floor[game.player.location] == [] and game.state.tracks["insomnia"] == 3
    assert answers.unused == []


def test_a_character_frozen_by_a_frost_attack_pays_an_action_to_thaw_line_723(
    pack: CompiledPack,
) -> None:
    # The porter's table: a 5 is `strike 2 frost`; 6 6 on Defense 1 deal 1, and freeze.
    game = pack.new_game(players=1, seed=1, dice=ForcedDice([5, 6, 6]))
    game.spawn("monster", game.player.location, card(pack, "Frostbitten Porter"))
    monsters_attack(game, pack.rules.world.turns.phases[1])
    assert game.player.stats.get("health") == 5 and "frozen:player 1" in game.state.flags
    take_turn(game, game.player, pack.rules.world.turns.phases[0])
    assert game.player.stats.get("ap") == 2 and not any(
        flag.endswith(":player 1")
        for flag in game.state.flags
        if "frozen" in flag or "thawed" in flag
    )


def test_defense_skills_in_the_monsters_turn_change_whom_they_attack_lines_526_769_771_779(
    pack: CompiledPack,
) -> None:
    # Two characters, Defense 1 each, health 3 and 6, on a space with two monsters. The first
    # would attack #1 (less health); #1 braces before it picks, so it picks #2; #2 braces
    # once it has: it keeps to #2, and its 6 dice deal 6 - 2 = 4. Both now have Defense 2,
    # and the second monster picks #2, who has 2 health left.
    answers = ScriptedDecisions(["use Curl Up", "no", "use Curl Up"])
    game = pack.new_game(players=2, seed=1, decisions=answers)
    first, second = game.state.players
    for character, health in ((first, 3), (second, 6)):
        character.location = "B7"
        character.stats.set("health", health)
        character.items.append(game.new_instance(card(pack, "Curl Up")))
    husk = game.spawn("monster", "B7", card(pack, "Orderly Husk"))
    husk.stats.set("dice", 6)
    game.spawn("monster", "B7", card(pack, "Orderly Husk"))
    game.dice = ForcedDice([6] * 6 + [1] * 4)  # the second rolls 3 dice and 1 of Overwhelm
    with game.recording() as events:
        monsters_attack(game, pack.rules.world.turns.phases[1])
    attacks = [e.text.split(":")[0] for e in events if e.kind == "attack"]
    assert attacks == ["Orderly Husk attacks player 2", "Orderly Husk #2 attacks player 2"]
    assert second.stats.get("health") == 2 and answers.unused == []
    assert game.stat("defense", first) == game.stat("defense", second) == 2
    game.fire("round_starts", game.cards_in_play())  # a defense skill lasts to the round's end
    assert game.stat("defense", first) == game.stat("defense", second) == 1


def test_a_scenario_done_gives_a_disorder_card_of_each_deck_one_kept_lines_1005_1185(
    pack: CompiledPack,
) -> None:
    game = seated(pack, "Edda Vorn", "Steady Hands", "Needle Jab", "Count the Tiles")
    disorders = [c.title for c in game.player.items if c.kind == "disorder"]
    decks = {c.title: c for c in game.state.decks["disorders"]}
    ocd, paranoia = (
        next(t for t in reversed(list(decks)) if decks[t].definition.properties["disorder"] == d)
        for d in ("ocd", "paranoia")
    )
    keeps = ScriptedDecisions([paranoia])  # of the two drawn, she keeps the paranoia
    game.decisions = keeps
    game.play(card(pack, "Cold Storage"))
    (keeper,) = game.actors_of("monster")
    game.state.round = 1
    game.change("hp", -keeper.stats.get("hp"), keeper)
    for deck in ("movement", "monster", "scenario"):
        game.state.decks[deck] = []
    play_round(game)
    assert game.state.tracks["scenarios"] == 1
    gained = [c.title for c in game.player.items if c.kind == "disorder"]
    assert gained == [*disorders, paranoia]
    assert ocd in [c.title for c in game.state.discards["disorders"]] and keeps.unused == []


def _flailing(
    pack: CompiledPack, faces: list[int], *hurts: int, answers: tuple[str, ...] = ()
) -> tuple[Game, list[int]]:
    """Three husks (4 HP, Defense 1) on the space, hurt as given; Wild Flailing (4 dice,
    AoE); Curl Up cooling down 2 turns. Where the damage goes is left to the default."""
    game = pack.new_game(
        players=1, seed=1, dice=ForcedDice(faces), decisions=ScriptedDecisions(answers)
    )
    husks = [game.spawn("monster", game.actor.location, card(pack, "Orderly Husk")) for _ in "abc"]
    for husk, hurt in zip(husks, hurts, strict=False):
        game.change("hp", -hurt, husk)
    carried(game, "Curl Up").tokens["cooldown"] = 2
    game.use(carried(game, "Wild Flailing"))
    return game, [h.stats.get("hp") for h in husks]


def test_an_aoe_attack_deals_at_least_one_to_each_monster_the_rest_shared_lines_677_739(
    pack: CompiledPack,
) -> None:
    # Four 6s, the highest Defense 1: 3 damage, 1 to each husk.
    _, hp = _flailing(pack, [6, 6, 6, 6])
    assert hp == [3, 3, 3]
    # 3 damage, two husks at 1 HP: 1 to each, two killed: one final blow, one cooldown off.
    game, hp = _flailing(pack, [6, 6, 6, 6], 3, 3)
    assert hp == [0, 0, 3] and game.player.items[0].tokens["cooldown"] == 1
    # 2 damage for three: 1 to two of them (the weakest first), none twice.
    _, hp = _flailing(pack, [6, 6, 6, 1], 0, 1)
    assert hp == [3, 2, 4]
    # Two husks left (2 and 4 HP), 3 damage: 1 to each, the third to the weaker, killing it.
    _, hp = _flailing(pack, [6, 6, 6, 6], 4, 2)
    assert hp == [0, 0, 3]
    # The player picks where it goes: the first point to #3, the second to the first.
    _, hp = _flailing(pack, [6, 6, 6, 1], answers=("Orderly Husk #3", "Orderly Husk"))
    assert hp == [3, 4, 3]


class Answered:
    """Decisions answered by index, in turn, then 0 (end the turn) to the rest."""

    def __init__(self, answers: list[int]) -> None:
        self.answers = answers

    def decide(self, decision: Decision) -> int:
        return self.answers.pop(0) if self.answers else 0


class Offered:
    """Decisions that take the first answer and keep every question's choices."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, ...]] = []

    def decide(self, decision: Decision) -> int:
        self.asked.append(tuple(decision.choices))
        return 0


def test_out_of_turn_only_a_defense_skill_of_no_ap_is_offered_lines_522_526_579_595(
    pack: CompiledPack,
) -> None:
    # In the monsters' turn: not an attack or utility skill, nor equipment or a drug, nor a
    # defense skill on cooldown; only Curl Up, of no AP and ready, before the husk picks its
    # target and once it has.
    offered = Offered()
    game = pack.new_game(players=1, seed=1, dice=ForcedDice([1, 1, 1]), decisions=offered)
    for title in ("Wild Flailing", "Stolen Minute", "Pocket Torch", "Sedative", "Curl Up"):
        carried(game, title)
    carried(game, "Scrub Clean").tokens["cooldown"] = 1
    game.spawn("monster", game.player.location, card(pack, "Orderly Husk"))
    monsters_attack(game, pack.rules.world.turns.phases[1])
    assert offered.asked == [("no", "use Curl Up")] * 2


def test_a_scenario_needing_a_quarter_not_in_play_is_set_aside_lines_229_988(
    pack: CompiledPack,
) -> None:
    game = pack.new_game(players=5, seed=1)
    box = game.state.decks["quarters"]
    box[:] = [tile for tile in box if tile.title != "The Long Ward"]  # left in the box
    game.play(card(pack, "The Chapel Vigil"))  # needs none: four tiles at random
    assert len(quarters_in_play(game)) == 4
    deck = game.state.decks["scenario"]
    sheep = next(c for c in deck if c.title == "Counting Sheep")
    deck[:] = [c for c in deck if c is not sheep and c.title != "The Chapel Vigil"]
    following = deck[-1]
    deck.append(sheep)  # on top: the jump draws it first
    (vigil,) = active(game)
    jump_scenario(game, vigil)
    assert [c.title for c in active(game)] == ["The Chapel Vigil", following.title]
    assert sheep not in deck and "Counting Sheep" not in [c.title for c in active(game)]


def test_an_item_may_be_discarded_free_in_your_turn_line_562(pack: CompiledPack) -> None:
    assert pack.whole is not None
    whole = whole_game_of(pack.rules, pack.whole)
    game = whole.new_game(pack.rules, pack.cards, 3, 9)
    setup(pack.whole, game)
    player = game.player
    game.state.phase = "players"
    player.items[:] = [c for c in player.items if c.kind in ("skill", "disorder")]
    assert "discard" not in [a.name for a in legal_actions(pack.whole, game, player, set())]
    scalpel, sedative = carried(game, "Rusty Scalpel"), carried(game, "Sedative")
    ap = player.stats.get("ap")
    legal = legal_actions(pack.whole, game, player, set())
    discard = next(a for a in pack.whole.actions if a.name == "discard")
    # the turn: discard (its place among the actions, 0 ending the turn), the scalpel, end
    game.decisions = Answered([legal.index(discard) + 1, 0])
    datagame.take_turn(pack.whole, game, player)
    assert scalpel not in player.items and sedative in player.items
    assert scalpel in game.state.discards["weapons"] and player.stats.get("ap") == ap


def test_a_personal_item_counts_as_a_memory_card_until_it_is_used_up_lines_504_506(
    pack: CompiledPack,
) -> None:
    game = seated(pack, *TOBIAH, "Roll With It")
    game.play(card(pack, "The Corner Man"))  # a memory, and the Smelling Salts it brings back
    (memory,) = game.player.owned[1:]
    salts = next(c for c in game.player.items if c.title == "Smelling Salts")
    game.use(memory)  # traded with the salts, his own, for a basic skill back
    assert "Roll With It" in [c.title for c in game.player.items]
    assert memory not in game.player.owned and salts not in game.player.items
    # Used up, a personal item no longer counts: a lone memory buys nothing.
    game.play(card(pack, "The Count of Ten"))
    salts = game.new_instance(card(pack, "Smelling Salts"))
    game.player.items.append(salts)
    game.use(salts)  # used up: discarded
    game.use(game.player.owned[-1])
    assert "Shoulder Charge" not in [c.title for c in game.player.items]


def test_a_special_event_runs_the_scenarios_then_the_monsters_line_381(
    pack: CompiledPack,
) -> None:
    game = pack.new_game(players=1, seed=1)
    game.spawn("monster", game.player.location, card(pack, "Wailing Shade"))  # on red too
    game.play(card(pack, "The Night Shift"))  # on red: the Warden a space on
    game.state.in_play["movement"] = game.new_instance(card(pack, "Cold Draft"))  # red
    with game.recording() as events:
        special_event(game, pack.rules.world.turns.phases[1])
    answered = [e.text for e in events if e.kind == "resolve"]
    assert answered == [
        'scenario "The Night Shift": on red',
        'monster "Wailing Shade": on red',
    ]


def test_a_character_interacts_with_a_scenarios_objective_for_an_action_line_323(
    pack: CompiledPack,
) -> None:
    assert pack.whole is not None
    whole = whole_game_of(pack.rules, pack.whole)
    game = whole.new_game(pack.rules, pack.cards, 3, 9)
    deck = game.state.decks["scenario"]
    deck.sort(key=lambda c: c.title == "The Night Shift")  # the first scenario
    setup(pack.whole, game)
    game.state.phase = "players"
    game.state.others.clear()
    player = game.player
    (shift,) = active(game)
    interact = next(a for a in pack.whole.actions if a.name == "interact")
    assert interact in legal_actions(pack.whole, game, player, set())
    player.location = "A1"  # at the clock: the shift's bell rung
    before, ap = shift.tokens.get("progress", 0), player.stats.get("ap")
    game.decisions = Answered([legal_actions(pack.whole, game, player, set()).index(interact) + 1])
    datagame.take_turn(pack.whole, game, player)
    assert shift.tokens["progress"] == before + 1 and player.stats.get("ap") == ap - 1
