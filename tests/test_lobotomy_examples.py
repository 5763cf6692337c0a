"""The rulebook's longer Lobotomy examples, played through a game turn by turn with forced dice."""

from __future__ import annotations

import json
import re
from fractions import Fraction
from pathlib import Path

import pytest

from compiler.build import CompiledPack
from compiler.errors import UsageError
from compiler.odds import odds_table, odds_text, variant_tables
from compiler.playing import set_the_scene
from runtime.cards import CardInstance
from runtime.dice import ForcedDice
from runtime.game import Game
from runtime.games.lobotomy import chaos_die, defense_die
from runtime.games.lobotomy_dice import (
    CHAOS_FACES,
    DEFENSE_FACES,
    Attack,
    ChaosFace,
    Target,
    attack_distribution,
)
from runtime.games.lobotomy_monsters import monster_attack, move_monsters
from runtime.odds import card_odds
from runtime.state import Actor
from tests.helpers import card, compiled, make_pack, run

CARDS = """
weapon "Pipe Wrench" {
    durability 3
    use {
        target nearest monster
        check attack 5 {
            0 { }
            1+ { }
        }
    }
}

skill "Lunge" {
    cost 1 ap
    use {
        cool down 2
        target nearest monster
        check attack 2 {
            0 { }
            1+ { }
        }
    }
}

skill "Brace" {
    use {
        gain defense 1
        cool down 2
    }
}

skill "Duck Out" {
    use { escape to central }
}

monster "Ward Crawler" {
    hp 4
    ap 1
    ar 4
    defense 1
    attacks 3 dice
}

monster "Burning Orderly" {
    hp 5
    ap 2
    ar 2
    defense 0
    attacks 4 dice
    is basic fiery
}
"""
MANIFEST = "pack: example\ntitle: Example\nversion: 0.1.0\nruleset: lobotomy\n"
TWO_SKULLS = CHAOS_FACES.index(ChaosFace(skulls=2)) + 1
THREE_SHIELDS = DEFENSE_FACES.index(3) + 1


@pytest.fixture(scope="module")
def pack(tmp_path_factory: pytest.TempPathFactory) -> CompiledPack:
    folder: Path = tmp_path_factory.mktemp("example")
    return compiled(make_pack(folder, MANIFEST, cards=CARDS))


def test_the_insanity_penalties_example_line_857(pack: CompiledPack) -> None:
    # One health left, AR 5+, insanity 5: a Chaos Die (6 insanity) into a 5d6 attack on a
    # monster of 4 health and Defense 1.
    game = pack.new_game(players=1, seed=1)
    hero = game.state.players[0]
    hero.stats.set("health", 1)
    hero.stats.set("ar", 5)
    hero.stats.set("insanity", 5)
    crawler = game.spawn("monster", hero.location, card(pack, "Ward Crawler"))
    wrench, lunge, brace = (
        game.new_instance(card(pack, title)) for title in ("Pipe Wrench", "Lunge", "Brace")
    )
    hero.items.extend([wrench, lunge, brace])
    chaos_die(game, wrench)
    assert hero.stats.get("insanity") == 6
    # 6, 5, 2, 1, 1 and two skulls: 4 successes, 3 past the Defense; a 1 wears the wrench.
    game.dice = ForcedDice([6, 5, 2, 1, 1, TWO_SKULLS])
    game.use(wrench)
    assert crawler.stats.get("hp") == 1 and wrench.tokens["wear"] == 1
    # The skill kills it. At 6 insanity (+1CD) its cooldown of 2 goes on at 3; the final
    # blow takes one off again.
    game.dice = ForcedDice([6, 6])
    game.use(lunge)
    assert crawler.dead and not game.actors_of("monster")
    assert lunge.tokens["cooldown"] == 2
    # The monsters' turn: a fiery monster catches up. A zero-cost defense skill first (+1
    # cooldown at 6 insanity), then the last insanity point on the Defense Die (now 7, +2CD).
    orderly = game.spawn("monster", hero.location, card(pack, "Burning Orderly"))
    game.use(brace)
    assert hero.stats.get("defense") == 2 and brace.tokens["cooldown"] == 3
    defense_die(game, brace)
    assert hero.stats.get("insanity") == 7
    # Defense 1 + 1 + 3 shields = 5, one less against fire: 4 successes deal nothing.
    game.dice = ForcedDice([THREE_SHIELDS, 2, 3, 4, 5])
    assert monster_attack(game, orderly, hero) == 0
    assert hero.stats.get("health") == 1 and not hero.dead


def test_the_defense_skill_after_the_insanity_would_cool_down_two_longer(
    pack: CompiledPack,
) -> None:
    # The example's aside: with the Defense Die first, the skill is used at 7 insanity (+2CD).
    game = pack.new_game(players=1, seed=1)
    hero = game.state.players[0]
    hero.stats.set("insanity", 6)
    brace = game.new_instance(card(pack, "Brace"))
    hero.items.append(brace)
    defense_die(game, brace)
    game.use(brace)
    assert brace.tokens["cooldown"] == 4


def test_a_monster_on_the_space_holds_a_character_unless_all_are_ethereal(
    pack: CompiledPack,
) -> None:
    # Rulebook line 333 (and the example at 857: "a character cannot leave a space with a
    # monster on it"); monsters themselves may leave (line 823).
    game = pack.new_game(players=1, seed=1)
    hero = game.state.players[0]
    hero.location = "B7"
    crawler = game.spawn("monster", "B7", card(pack, "Ward Crawler"))
    game.move("B8")
    assert hero.location == "B7"
    assert (
        game.log.events[-1].text == "B7 → B8: player 1 cannot leave a space with Ward Crawler on it"
    )
    crawler.keywords = frozenset({"ethereal"})
    game.move("B8")
    assert hero.location == "B8"


def test_an_escape_slips_past_the_monsters(pack: CompiledPack) -> None:
    game = pack.new_game(players=1, seed=1)
    hero = game.state.players[0]
    hero.location = "B7"
    game.spawn("monster", "B7", card(pack, "Ward Crawler"))
    duck_out = game.new_instance(card(pack, "Duck Out"))
    hero.items.append(duck_out)
    game.use(duck_out)
    assert hero.location == "central"
    assert not any(flag.startswith("escaping") for flag in game.state.flags)


LOBOTOMY = Path(__file__).resolve().parent.parent / "content" / "lobotomy"


def _killing(attack: Attack, target: Target, hp: int = 4) -> Fraction:
    """The chance an attack deals the husk's 4 HP or more."""
    exact = attack_distribution(attack, target)
    return sum((p for damage, p in exact.items() if damage >= hp), Fraction(0))


def test_odds_show_an_attack_again_with_the_chaos_die_and_skip_it_elsewhere(
    bundled: CompiledPack,
) -> None:
    code, output = run("odds", str(LOBOTOMY), "Fire Axe", "--against", "Orderly Husk", "--json")
    assert code == 0, output
    shown = json.loads(output)
    (variant,) = shown["variants"]
    assert variant["name"] == "with the Chaos Die" and variant["given"]["insanity"] == 1
    without = _killing(Attack(4, 4, critical=True), Target(defense=1))
    with_chaos = _killing(Attack(4, 4, critical=True, chaos_dice=1), Target(defense=1))
    assert shown["blocks"][0]["final_blow"] == round(float(without), 4)
    assert variant["blocks"][0]["final_blow"] == round(float(with_chaos), 4) > 0.2
    table = odds_table(bundled, [], "Orderly Husk")
    axe = card(bundled, "Fire Axe")
    ((name, other),) = variant_tables(bundled, table, card_odds(table, axe))
    lines = odds_text(axe, card_odds(other, axe), other, name)
    assert lines[0].startswith('weapon "Fire Axe" with the Chaos Die, given')
    # A card that rolls no attack test has no such variant.
    sedative = card(bundled, "Sedative")
    assert variant_tables(bundled, table, card_odds(table, sedative)) == []


def test_a_targets_stat_is_set_after_the_against(bundled: CompiledPack) -> None:
    code, output = run(
        "odds",
        str(LOBOTOMY),
        "Fire Axe",
        "--against",
        "Orderly Husk",
        "--set",
        "target.defense=3",
        "--json",
    )
    assert code == 0, output
    killing = _killing(Attack(4, 4, critical=True), Target(defense=3))
    assert json.loads(output)["blocks"][0]["final_blow"] == round(float(killing), 4)
    for setting, against, words in [
        ("target.def=3", "Orderly Husk", "Orderly Husk has no stat 'def'; did you mean 'defense'?"),
        ("target.defense=99", "Orderly Husk", "99 is out of range; defense goes from 0 to 9"),
        ("target.defense=x", "Orderly Husk", "'x' is not a whole number"),
        ("target.defense=1", None, "there is no target; name one with --against"),
    ]:
        with pytest.raises(UsageError, match=re.escape(words)):
            set_the_scene(bundled.new_game(seed=0), bundled, [setting], against)


@pytest.fixture(scope="module")
def bundled() -> CompiledPack:
    return compiled(LOBOTOMY)


def _facing(
    bundled: CompiledPack, weapon: str, hero_at: str, monster_at: str
) -> tuple[Game, Actor, CardInstance]:
    """A game with the husk at one space, the player at another with the weapon."""
    game = bundled.new_game(players=1, seed=1)
    hero = game.state.players[0]
    hero.location = hero_at
    husk = game.spawn("monster", monster_at, card(bundled, "Orderly Husk"))
    held = game.new_instance(card(bundled, weapon))
    hero.items.append(held)
    return game, husk, held


def test_a_ranged_attack_reaches_as_far_as_its_range_and_no_further(
    bundled: CompiledPack,
) -> None:
    # Rulebook 699, 727: a ranged attack's value is the most spaces between attacker and target.
    game, husk, gun = _facing(bundled, "Nail Gun", "B9", "B7")
    game.dice = ForcedDice([6, 6, 3])
    game.use(gun)
    assert husk.stats.get("hp") == 3
    game, husk, gun = _facing(bundled, "Nail Gun", "B10", "B7")
    game.dice = ForcedDice([])
    game.use(gun)
    assert husk.stats.get("hp") == 4
    assert "  Orderly Husk is out of reach: more than 2 spaces away" in game.log.lines()
    # Without a range, an attack is made on your own space only.
    game, husk, bottle = _facing(bundled, "Broken Bottle", "B8", "B7")
    game.use(bottle)
    assert husk.stats.get("hp") == 4
    assert "  Orderly Husk is out of reach: another space" in game.log.lines()


def test_frost_costs_the_monster_an_action_and_a_die_of_its_next_attack(
    bundled: CompiledPack,
) -> None:
    # Rulebook 721-723: frozen by an attack that hurt, it pays 1 AP to thaw at the start of its
    # turn, and its first attack that turn rolls one die fewer.
    game, husk, canister = _facing(bundled, "Cryo Canister", "B7", "B7")
    game.dice = ForcedDice([6, 6])
    game.use(canister)
    assert husk.stats.get("hp") == 3 and "frozen:Orderly Husk" in game.state.flags
    game.state.players[0].location = "B9"  # two spaces off: the husk's 2 AP would reach
    move_monsters(game, None)  # type: ignore[arg-type]  # a step that reads no phase
    assert husk.location == "B8"  # one space: an AP went on thawing
    game.state.players[0].location = "B8"
    game.dice = ForcedDice([6, 6])  # 3 dice less the thaw's one: two dice are all it rolls
    assert monster_attack(game, husk, game.state.players[0]) == 1
    assert game.dice.unused == []
