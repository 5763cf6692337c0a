"""Lobotomy's monsters in full: attack tables with exact odds, the keywords of the glossary, the
movement cards' stars and the Nemesis (runtime/games/lobotomy_monsters.py). The numbers in the
names are the rulebook's lines."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from fractions import Fraction

import pytest

from compiler.build import CompiledPack
from compiler.odds import odds_json, odds_table
from compiler.printing.faces import face_data
from compiler.printing.sizes import PrintOptions
from runtime.checks import CheckCall
from runtime.dice import ForcedDice, SeededDice
from runtime.game import Game
from runtime.games.lobotomy import target_nearest
from runtime.games.lobotomy_dice import Attack, Target, attack_distribution
from runtime.games.lobotomy_monsters import (
    haunted_by,
    lift_grudge,
    monster_attack,
    monsters_attack,
    move_monsters,
    prepare_guarded,
    spawn_monster,
    spawn_monsters,
    stun,
)
from runtime.odds import Table, card_odds
from runtime.state import Actor
from tests.conftest import ROOT
from tests.helpers import card, compiled

PACK = ROOT / "content" / "lobotomy"


@pytest.fixture(scope="module")
def pack() -> CompiledPack:
    return compiled(PACK)


def attacks_of(game: Game, since: int = 0) -> list[str]:
    return [e.text for e in game.log.events[since:] if e.kind == "attack"]


def facing(pack: CompiledPack, title: str, players: int = 1, seed: int = 1) -> tuple[Game, Actor]:
    """A game with a monster of that card on the first character's space."""
    game = pack.new_game(players=players, seed=seed)
    return game, game.spawn("monster", game.player.location, card(pack, title))


# ---------------------------------------------------------------- attack tables (783)


def test_an_elite_rolls_its_table_and_strikes_its_victim(pack: CompiledPack) -> None:
    game, suture = facing(pack, "Sister Suture")
    hero = game.player
    # The d6 picks the row 4..5: 3 dice with precision, a 6 past the defense and one of the
    # two 4s absorbed: 2 damage, and the hit costs 1 insanity.
    game.dice = ForcedDice([5, 6, 4, 4])
    assert monster_attack(game, suture, hero) == 2
    assert hero.stats.get("health") == 4 and hero.stats.get("insanity") == 1
    assert game.state.target is None and game.state.acting is None  # put back as they were
    # Overwhelm joins a row's dice: row 1..3 is 4 dice, two monsters before it make 6.
    game.dice = ForcedDice([1, 2, 2, 2, 2, 2, 2])
    monster_attack(game, suture, hero, overwhelm=2)
    assert "attack 6d6" in attacks_of(game)[-1]


def test_a_tables_odds_are_exact_and_agree_with_play(pack: CompiledPack) -> None:
    suture = card(pack, "Sister Suture")

    def setup(game: Game) -> None:
        game.player.stats.set("defense", 2)
        game.player.stats.set("health", 12)

    table = Table(pack.rules, pack.cards, pack.module, setup)
    (block,) = card_odds(table, suture)
    walked: defaultdict[int, Fraction] = defaultdict(Fraction)
    for outcome in block.outcomes:
        walked[-outcome.changes.get("health", 0)] += outcome.probability
    rows = [
        (Fraction(1, 2), Attack(4, 4)),
        (Fraction(1, 3), Attack(3, 4, precision=True)),
        (Fraction(1, 6), Attack(5, 4, critical=True)),
    ]
    exact: defaultdict[int, Fraction] = defaultdict(Fraction)
    for share, attack in rows:
        for damage, p in attack_distribution(attack, Target(defense=2)).items():
            exact[damage] += share * p
    assert walked == exact and sum(exact.values()) == 1
    game, monster = facing(pack, "Sister Suture", seed=11)
    hero = game.player
    hero.stats.set("defense", 2)
    seen: Counter[int] = Counter()
    runs = 2000
    for _ in range(runs):
        hero.stats.set("health", 12)
        hero.stats.set("insanity", 0)  # a hit of its second row costs one
        seen[monster_attack(game, monster, hero)] += 1
    for damage, p in exact.items():
        assert abs(seen[damage] / runs - float(p)) < 0.03, damage


def test_odds_of_a_monster_card_name_the_rows_and_the_damage(pack: CompiledPack) -> None:
    table = odds_table(pack, ["defense=2"])
    suture = card(pack, "Sister Suture")
    (block,) = odds_json(suture, card_odds(table, suture), table)["blocks"]
    assert block["name"] == "when it attacks"
    paths = [o["path"] for o in block["outcomes"]]
    assert ["roll d6: 1..3", "strike 4: 2"] in paths  # a row of no outcomes: its damage
    assert ["roll d6: 4..5", "check strike 3 precision: 1+ (2 damage)"] in paths
    assert sum(Fraction(o["exact"]) for o in block["outcomes"]) == 1


def test_a_monster_with_no_table_has_the_odds_of_its_stat_line(pack: CompiledPack) -> None:
    janitor = card(pack, "Scorched Janitor")  # 3 dice at AR 4+, fiery: fire
    table = odds_table(pack, ["defense=1"])
    assert card_odds(table, janitor) == []  # it writes no block
    (block,) = card_odds(table, janitor, implied=True)
    assert block.name == "its attack"
    walked = {-o.changes.get("health", 0): o.probability for o in block.outcomes}
    assert walked == attack_distribution(Attack(3, 4, fire=True), Target(defense=1))


def test_a_monster_card_prints_its_stat_line_keywords_and_table(pack: CompiledPack) -> None:
    ruleset = pack.checked.ruleset
    cards = {c["title"]: c for c in pack.checked.cards}
    face = face_data(ruleset, cards["Kiln Warden Oswin"], PrintOptions(), "Lobotomy").context
    for fact in ("16 HP", "1 AP", "AR 3+", "Defense 3", "5D6", "Immunity (fire)", "Smash 2"):
        assert fact in face["facts"], face["facts"]
    assert "Double attack" in face["facts"]
    (table,) = face["blocks"]
    text = json.dumps(table)
    assert "Attack table" in text and "Attack with 5 dice (fire)" in text


# ---------------------------------------------------------------- keywords (1109-1145)


def test_boss_then_elite_then_basic_and_a_double_attack_with_smash_first(
    pack: CompiledPack,
) -> None:
    game, boss = facing(pack, "Kiln Warden Oswin")
    place = game.player.location
    game.spawn("monster", place, card(pack, "Orderly Husk"))
    game.spawn("monster", place, card(pack, "Sister Suture"))
    game.player.stats.set("health", 12)
    game.player.stats.set("defense", 9)  # nothing gets through: the dice only say who attacks
    game.dice = SeededDice(4)
    monsters_attack(game, pack.rules.world.turns.phases[1])
    who = [text.split(" attacks")[0].split(" smashes")[0] for text in attacks_of(game)]
    # Smash (1139) first, then the boss's two attacks (1129), the elite, the basic.
    assert who == [boss.name] * 3 + ["Sister Suture", "Orderly Husk"]
    texts = attacks_of(game)
    assert "smashes" in texts[0] and "attack 2d6" in texts[0]
    assert "attack 5d6" in texts[3] and "attack 5d6" in texts[4]  # Overwhelm +1, +2


def test_smash_hits_each_character_once_a_turn_by_their_own_defense(pack: CompiledPack) -> None:
    game, boss = facing(pack, "Kiln Warden Oswin", players=2)
    first, second = game.state.players
    second.location = first.location
    second.stats.set("defense", 0)
    game.dice = ForcedDice([6, 6])
    move_monsters(game, pack.rules.world.turns.phases[1])
    assert first.stats.get("health") == 5 and second.stats.get("health") == 4
    assert boss.location == first.location  # with characters on its space, it stays
    game.dice = ForcedDice([1, 1, 1, 1, 1, 1])  # its first attack alone: no second smash
    game.player.stats.set("defense", 9)
    second.stats.set("defense", 9)
    monster_attack(game, boss, first)
    assert not any("smashes" in t for t in attacks_of(game)[1:])


def test_a_runner_is_at_once_on_the_space_of_a_character_it_sees(pack: CompiledPack) -> None:
    game = pack.new_game(players=1, seed=1)
    game.player.location = "A9"
    near = game.spawn("monster", "A2", card(pack, "Straitjacket Sprinter"))
    far = game.spawn("monster", "B2", card(pack, "Straitjacket Sprinter"))
    move_monsters(game, pack.rules.world.turns.phases[1])
    assert near.location == "A9"  # same quarter: it runs the seven spaces at once
    assert far.location == "A12"  # another quarter: two spaces, as any monster


def test_an_immunity_takes_the_symbol_off_attacks_on_it(pack: CompiledPack) -> None:
    game, boss = facing(pack, "Kiln Warden Oswin")
    game.target(boss)
    torch = game.new_instance(card(pack, "Aerosol Torch"))
    rule = pack.rules.procedures["attack"]
    call = CheckCall(rule, (("dice", 3), ("symbols", ["fire", "precision"])), (), "attack 3")
    prepared = prepare_guarded(game, torch, call)
    assert not prepared.attack.fire and prepared.attack.precision
    assert prepared.target.defense == 3


def test_a_soul_leech_heals_what_it_deals_never_past_its_printed_hp(pack: CompiledPack) -> None:
    game, leech = facing(pack, "The Bloodletter")
    hero = game.player
    hero.stats.set("health", 12)
    leech.stats.set("hp", 3)
    game.dice = ForcedDice([1, 5, 5, 5])  # row 1..4: 3 dice, 3 successes less 1: 2 damage
    assert monster_attack(game, leech, hero) == 2
    assert leech.stats.get("hp") == 5
    game.dice = ForcedDice([1, 5, 5, 5])
    monster_attack(game, leech, hero)
    assert leech.stats.get("hp") == 6  # its card says 6


def test_armed_to_the_teeth_takes_a_weapon_strikes_with_it_and_drops_it(
    pack: CompiledPack,
) -> None:
    game = pack.new_game(players=1, seed=1)
    game.state.decks["weapons"].append(game.new_instance(card(pack, "Fire Axe")))
    armed = game.spawn("monster", game.player.location, card(pack, "Ward B Quartermaster"))
    (axe,) = armed.items
    assert axe.title == "Fire Axe"
    hero = game.player
    hero.stats.set("health", 12)
    # 2 dice of its own and the axe's 4, critical: the 4 is absorbed, the 6 deals 2, and a
    # natural 1 wears the axe.
    game.dice = ForcedDice([6, 4, 1, 2, 2, 2])
    assert monster_attack(game, armed, hero) == 2
    assert "attack 6d6" in attacks_of(game)[-1] and axe.tokens["wear"] == 1
    game.target(armed)
    armed.stats.set("hp", 1)
    game.dice = ForcedDice([5, 5, 5])
    fists_rule = pack.rules.procedures["attack"]
    game.check(axe, CheckCall(fists_rule, (("dice", 3),), (), "attack 3"))
    assert armed.dead and axe in hero.items  # the killer on its space takes it


def test_an_eternal_grudge_rises_again_until_it_is_lifted(pack: CompiledPack) -> None:
    game, grudge = facing(pack, "The Unburied Orderly")
    game.target(grudge)
    rule = pack.rules.procedures["attack"]
    axe = game.new_instance(card(pack, "Fire Axe"))
    game.dice = ForcedDice([5, 5, 5, 5, 9])  # 3 damage, then the space it rises at
    game.check(axe, CheckCall(rule, (("dice", 4),), (), "attack 4"))
    assert not grudge.dead and grudge.stats.get("hp") == 3 and grudge.location == "A6"
    assert not any(e.kind == "resolve" and "final blow" in e.text for e in game.log.events)
    lift_grudge(game, axe)
    game.player.location = "A6"  # after it, to strike it on its own space
    game.dice = ForcedDice([5, 5, 5, 5])
    game.check(axe, CheckCall(rule, (("dice", 4),), (), "attack 4"))
    assert grudge.dead and grudge.location is None


def test_an_unholy_monster_asks_for_imagination_once_a_turn(pack: CompiledPack) -> None:
    game, pale = facing(pack, "The Pale Visitor")
    game.target(pale)
    candle = game.new_instance(card(pack, "Chapel Candlestick"))
    game.player.items.append(candle)
    game.dice = ForcedDice([6, 6])  # 12 is over imagination 7: no attack, no die rolled
    game.use(candle)
    assert pale.stats.get("hp") == 6
    game.dice = ForcedDice([1, 1, 4, 2, 2])  # passed: 1 damage (holy: no defense)
    game.use(candle)
    game.dice = ForcedDice([4, 2, 2])  # passed this turn: no second test
    game.use(candle)
    assert pale.stats.get("hp") == 4


def test_a_memorable_monsters_killers_draw_memories(pack: CompiledPack) -> None:
    game, suture = facing(pack, "Sister Suture", players=2)
    first, second = game.state.players
    second.location = first.location
    game.state.decks["memory"] = [
        game.new_instance(card(pack, "Fire Axe")),
        game.new_instance(card(pack, "Mop Handle")),
    ]
    game.target(suture)
    suture.stats.set("hp", 1)
    game.dice = ForcedDice([6, 6, 6])
    rule = pack.rules.procedures["attack"]
    game.check(game.new_instance(card(pack, "Mop Handle")), CheckCall(rule, (("dice", 3),)))
    assert suture.dead
    assert [c.title for c in first.items] == ["Mop Handle"]
    assert [c.title for c in second.items] == ["Fire Axe"]


def test_a_boss_cannot_be_stunned_and_a_stunned_monster_pays_to_get_up(
    pack: CompiledPack,
) -> None:
    game = pack.new_game(players=1, seed=1)
    game.player.location = "A9"
    boss = game.spawn("monster", "A5", card(pack, "Kiln Warden Oswin"))
    elite = game.spawn("monster", "A3", card(pack, "Sister Suture"))
    any_card = game.new_instance(card(pack, "Fire Axe"))
    for monster in (boss, elite):
        game.target(monster)
        stun(game, any_card)
    assert "stunned:Sister Suture" in game.state.flags
    assert "stunned:Kiln Warden Oswin" not in game.state.flags
    game.target(elite)
    call = CheckCall(pack.rules.procedures["attack"], (("dice", 3),), (), "attack 3")
    assert prepare_guarded(game, any_card, call).target.defense == 0  # stunned: no Defense
    move_monsters(game, pack.rules.world.turns.phases[1])
    assert elite.location == "A4" and boss.location == "A6"  # 2 AP less 1 to get up
    # A character the Warden stomped is down too: no Defense against a monster's attack.
    game.player.location = elite.location
    game.state.flags.add("stunned:player 1")
    game.dice = ForcedDice([1, 4, 4, 1, 2])  # the row 1..3: 4 dice, two successes, both in
    assert monster_attack(game, elite, game.player) == 2


# ---------------------------------------------------------------- stars (1033-1039)


def _reveal(game: Game, pack: CompiledPack, title: str) -> None:
    game.state.in_play["movement"] = game.new_instance(card(pack, title))
    spawn_monsters(game, pack.rules.world.turns.phases[1])


def _on_board(game: Game) -> list[str]:
    return [m.name for m in game.actors_of("monster")]


def test_a_star_spawns_its_monster_and_a_second_mini_boss_does_not(pack: CompiledPack) -> None:
    game = pack.new_game(players=1, seed=2)
    game.dice = ForcedDice([7])  # the space it appears at
    _reveal(game, pack, "Footsteps Overhead")
    assert _on_board(game) == ["The Pale Visitor"]
    game.dice = ForcedDice([2, 5, 3])  # a d6 for each red star: the higher, then its space
    _reveal(game, pack, "A Familiar Face")
    assert _on_board(game)[-1] == "Matron Greaves"
    game.dice = SeededDice(1)
    _reveal(game, pack, "A Familiar Face")  # a mini-boss is out: the card's two monsters
    assert len(_on_board(game)) == 4 and "The Other You" not in _on_board(game)
    game.dice = SeededDice(1)
    _reveal(game, pack, "Footsteps Overhead")  # no blue star left: its one monster
    assert len(_on_board(game)) == 5 and _on_board(game).count("The Pale Visitor") == 1


def test_a_third_monster_comes_only_for_five_characters(pack: CompiledPack) -> None:
    for players, spawned in ((4, 2), (5, 3)):
        game = pack.new_game(players=players, seed=4)
        game.dice = SeededDice(4)
        _reveal(game, pack, "Feeding Hour")  # spawns 3 (411)
        assert len(_on_board(game)) == spawned


def test_star_monsters_wait_beside_the_board_not_in_the_spawns(pack: CompiledPack) -> None:
    game = pack.new_game(players=1, seed=3)
    game.state.decks["monster"] = [
        game.new_instance(card(pack, "Orderly Husk")),
        game.new_instance(card(pack, "Matron Greaves")),
    ]
    game.dice = ForcedDice([4])
    spawn_monster(game, game.new_instance(card(pack, "Lights Flicker")))
    assert _on_board(game) == ["Orderly Husk"] and game.state.decks["monster"] == []


# ---------------------------------------------------------------- the Nemesis (1045-1057)


def _nemesis(pack: CompiledPack, rolls: list[int]) -> tuple[Game, Actor]:
    game = pack.new_game(players=3, seed=1)
    for seat, character in enumerate(game.state.players):
        character.location = ["A2", "A8", "B5"][seat]
    game.dice = ForcedDice(rolls)
    return game, game.spawn("monster", "A5", card(pack, "The Other You"))


def test_the_nemesis_haunts_the_lowest_roll_ties_rolling_again(pack: CompiledPack) -> None:
    game, nemesis = _nemesis(pack, [4, 2, 2, 5, 3])
    haunted = haunted_by(game, nemesis)
    assert haunted is game.state.players[2]
    haunted.stats.set("ar", 5)  # after it appeared: it keeps what it took
    assert nemesis.stats.get("hp") == 7 and nemesis.stats.get("ap") == 1
    assert nemesis.stats.get("ar") == 3 and nemesis.stats.get("defense") == 2
    move_monsters(game, pack.rules.world.turns.phases[1])
    assert nemesis.location == "A4"  # towards B5, its target, not A2 or A8, nearer


def test_only_its_target_can_touch_the_nemesis_and_only_its_target_is_attacked(
    pack: CompiledPack,
) -> None:
    game, nemesis = _nemesis(pack, [1, 6, 6])
    haunted, other, third = game.state.players
    assert haunted_by(game, nemesis) is haunted
    other.location = third.location = nemesis.location
    game.state.current = 1
    target_nearest(game, game.new_instance(card(pack, "Fire Axe")))
    assert game.state.target is None  # the others do not see it
    game.state.target = nemesis
    call = CheckCall(pack.rules.procedures["attack"], (("dice", 4),), (), "attack 4")
    assert prepare_guarded(game, game.new_instance(card(pack, "Fire Axe")), call).attack.dice == 0
    game.dice = SeededDice(2)
    before = len(game.log.events)
    monsters_attack(game, pack.rules.world.turns.phases[1])
    assert attacks_of(game, before) == []  # its target is not on its space
    haunted.location = nemesis.location
    haunted.items.append(game.new_instance(card(pack, "Fire Axe")))
    game.dice = ForcedDice([2, *[2] * 7])  # a weapon of the target's: the axe's 4 and 3 more
    monsters_attack(game, pack.rules.world.turns.phases[1])
    (attack,) = [t for t in attacks_of(game) if "attacks" in t]
    assert attack.startswith("The Other You attacks player 1") and "attack 7d6" in attack
    assert all(c.tokens.get("wear", 0) == 0 for c in haunted.items)  # nothing wears


def test_the_nemesis_strikes_with_a_skill_or_with_fists(pack: CompiledPack) -> None:
    game, nemesis = facing(pack, "The Other You")
    hero = game.player
    hero.stats.set("health", 12)
    game.dice = ForcedDice([5, *[2] * 6])  # a skill row, no skill, no weapon: fists, +3
    monster_attack(game, nemesis, hero)
    assert "attack 6d6" in attacks_of(game)[-1]
    bloodlust = game.new_instance(card(pack, "Bloodlust"))
    hero.items.append(bloodlust)
    before = len(game.log.events)
    game.dice = ForcedDice([6, *[2] * 5])  # the skill row: its 5 dice as written
    monster_attack(game, nemesis, hero)
    texts = attacks_of(game, before)
    assert any("Bloodlust" in t for t in texts) and "attack 5d6" in texts[-1]
    assert bloodlust.tokens.get("cooldown", 0) == 0  # no cooldown used
