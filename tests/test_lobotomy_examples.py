"""The rulebook's longer Lobotomy examples, played through a game turn by turn with forced dice."""

from __future__ import annotations

from pathlib import Path

import pytest

from compiler.build import CompiledPack
from runtime.cards import CardDef
from runtime.dice import ForcedDice
from runtime.games.lobotomy import chaos_die, defense_die, monster_attack
from runtime.games.lobotomy_dice import CHAOS_FACES, DEFENSE_FACES, ChaosFace
from tests.helpers import compiled, make_pack

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


def card(pack: CompiledPack, title: str) -> CardDef:
    return next(c for c in pack.cards if c.title == title)


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
