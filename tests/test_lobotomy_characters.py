"""Lobotomy's characters: a character card seated, skills and items within their capacities,
memories, running and what a use costs (rulebook lines 251-295, 325-327, 494-595)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compiler.build import CompiledPack
from runtime.cards import CardInstance
from runtime.decisions import FirstChoice, ScriptedDecisions
from runtime.dice import ForcedDice
from runtime.game import Game
from runtime.games.lobotomy import confinement
from runtime.games.lobotomy_inventory import (
    CHARGES,
    memory_deck,
    remember,
    reserve_deck,
    start_running,
)
from runtime.rounds import take_turn
from tests.conftest import ROOT
from tests.helpers import card, compiled, make_pack, run

PACK = ROOT / "content" / "lobotomy"
LOBOTOMY_PACK = "pack: chars\ntitle: Chars\nversion: 0.1.0\nruleset: lobotomy\n"


@pytest.fixture(scope="module")
def pack() -> CompiledPack:
    return compiled(PACK)


def seated(pack: CompiledPack, title: str, *answers: str, players: int = 1) -> Game:
    """A game whose first player has played the character card `title`."""
    game = pack.new_game(seed=0, decisions=ScriptedDecisions(answers), players=players)
    game.play(card(pack, title))
    return game


def held(game: Game, title: str) -> CardInstance:
    return next(c for c in (*game.player.items, *game.player.owned) if c.title == title)


TOBIAH = ("Tobiah Marsh", "Haymaker", "Shake It Off")  # one disorder: no third question


# ---------------------------------------------------------------- the character card


def test_the_seated_kind_reads_its_numbers_from_the_character_card(pack: CompiledPack) -> None:
    seated_kind = pack.rules.world.actors["character"]
    assert seated_kind.sheet == "character"
    assert dict(seated_kind.starts) == {
        "health": "health",
        "ap": "ap",
        "ar": "ar",
        "defense": "defense",
        "imagination": "imagination",
    }
    assert dict(seated_kind.maxima) == {"insanity": "sanity", "health": "health"}


def test_a_character_card_seats_its_numbers_and_keeps_them_turn_after_turn(
    pack: CompiledPack,
) -> None:
    game = seated(pack, "Ines Calloway", "Chalk Circle", "Paper Cut", "Flinch")
    player = game.player
    assert {n: player.stats.get(n) for n in ("health", "ap", "ar", "defense", "imagination")} == {
        "health": 5,
        "ap": 4,
        "ar": 5,
        "defense": 0,
        "imagination": 9,
    }
    assert game.stat("ar") == 4  # her innate ability, owned with the card
    game.change("ap", -3)
    take_turn(game, player, pack.rules.world.turns.phases[0])
    assert player.stats.get("ap") == 4  # a turn refills the card's AP, not the ruleset's 3


def test_a_shorter_insanity_track_and_death_restore_the_cards_health(pack: CompiledPack) -> None:
    game = seated(pack, *TOBIAH)
    player = game.player
    assert player.stats.rules["insanity"].high == 6
    game.state.round = 1  # a game under way: death sends him back, the run goes on
    game.change("health", -9)
    assert player.location == "central" and player.stats.get("health") == 9


def test_setup_gives_equipment_two_basic_skills_a_disorder_skill_and_the_memories(
    pack: CompiledPack,
) -> None:
    game = seated(pack, *TOBIAH)
    titles = [c.title for c in game.player.items]
    assert titles[:4] == ["Padded Jacket", "Mop Handle", "Haymaker", "Shake It Off"]
    assert game.player.items[4].definition.properties["disorder"] == "mania"
    assert [c.title for c in game.state.decks[reserve_deck(game.player)]] == [
        "Roll With It",
        "Shoulder Charge",
    ]
    own = {"The Corner Man", "The Title Fight", "The Count of Ten"}
    shared = {"Restraints", "The Cold Bath", "Electroshock"}
    deck = {c.title for c in game.state.decks[memory_deck(game.player)]}
    assert deck == own | shared
    assert not own & {c.title for c in game.state.decks["memory"]}  # taken out for him
    # The starting equipment and basic skills come out of their decks, not out of thin air.
    assert "Padded Jacket" not in {c.title for c in game.state.decks["equipment"]}
    assert "Haymaker" not in {c.title for c in game.state.decks["skill"]}


def test_play_shows_a_seated_character_in_json() -> None:
    code, output = run(
        "play", str(PACK), "Tobiah Marsh", "--seed", "1", "--json",
        "--choose", "Haymaker", "--choose", "Shake It Off",
    )  # fmt: skip
    assert code == 0, output
    state = json.loads(output)["state"]
    assert state["stats"]["health"] == 9 and state["stats"]["defense"] == 3
    assert state["owned"] == ["Tobiah Marsh"]
    assert len(state["items"]) == 5  # jacket, mop, two basic skills, a mania skill


def test_starting_equipment_must_name_a_card_of_the_pack(tmp_path: Path) -> None:
    folder = make_pack(
        tmp_path,
        LOBOTOMY_PACK,
        people="""character "Lone Patient" {
    health 6
    insanity up to 7
    ap 3
    ar 4
    defense 1
    imagination 7
    disorders ocd
    starts with "Oil Lamp" "Rusty Nail"
}

weapon "Rusty Nails" {
    use { gain ap 1 }
}
""",
    )
    code, output = run("check", str(folder))
    assert code == 1, output
    assert "people.card:9:5: error[E0420]" in output
    assert '"Oil Lamp" is no weapon or equipment or drug card' in output
    assert '"Rusty Nail" is no weapon or equipment or drug card' in output
    assert "Rusty Nails" in output  # did you mean


# ---------------------------------------------------------------- costs and running


def test_a_use_pays_its_ap_and_is_refused_when_it_cannot(pack: CompiledPack) -> None:
    game = pack.new_game(seed=0)
    triage = game.new_instance(card(pack, "Triage"))
    game.player.items.append(triage)
    game.use(triage)
    assert game.player.stats.get("ap") == 1
    game.add_tokens(triage, "cooldown", -9)
    game.use(triage)
    assert game.player.stats.get("ap") == 1
    assert "costs 2 AP; player 1 has 1" in game.log.lines()[-1]


def test_running_gives_two_ap_for_moving_and_refuses_what_costs_ap(pack: CompiledPack) -> None:
    game = pack.new_game(seed=0, dice=ForcedDice([]))
    jab, calm = (game.new_instance(card(pack, t)) for t in ("Needle Jab", "Calm Voice"))
    game.player.items += [jab, calm]
    start_running(game, jab)
    assert game.player.stats.get("ap") == 5
    game.use(jab)  # 1 AP: refused, no dice rolled
    assert game.player.stats.get("ap") == 5 and not jab.tokens.get("cooldown")
    game.set_stat("insanity", 2)
    game.use(calm)  # 0 AP: allowed
    assert game.player.stats.get("insanity") == 1
    game.end_turn()
    assert not any(flag.startswith("running:") for flag in game.state.flags)


def test_running_is_declared_before_any_ap_is_spent(pack: CompiledPack) -> None:
    game = pack.new_game(seed=0)
    game.change("ap", -1)
    start_running(game, game.new_instance(card(pack, "Calm Voice")))
    assert game.player.stats.get("ap") == 2
    assert "running is declared as a turn starts" in game.log.lines()[-1]


# ---------------------------------------------------------------- capacities: the defaults


def test_past_four_slots_the_default_discards_the_new_item(pack: CompiledPack) -> None:
    game = pack.new_game(seed=0, decisions=FirstChoice())
    for title in ("Rusty Scalpel", "Mop Handle", "Fire Axe"):
        game.play(card(pack, title))
    game.play(card(pack, "Riot Shield"))  # large: 5 slots; the first answer is the new card
    assert [c.title for c in game.player.items] == ["Rusty Scalpel", "Mop Handle", "Fire Axe"]
    assert [c.title for c in game.state.discards["equipment"]] == ["Riot Shield"]


def test_past_six_skills_the_default_discards_the_new_skill(pack: CompiledPack) -> None:
    game = pack.new_game(seed=0, decisions=FirstChoice())
    skills = ["Scream", "Pyromania", "Read the Twitch", "Slip Away", "Stolen Minute", "Frenzy"]
    for title in skills:
        game.player.items.append(game.new_instance(card(pack, title)))
    game.play(card(pack, "The Title Fight"))  # brings back Bloodlust, a seventh skill
    assert [c.title for c in game.player.items] == skills
    assert [c.title for c in game.player.owned] == ["The Title Fight"]  # memories do not count


def test_a_second_armor_means_discarding_one(pack: CompiledPack) -> None:
    game = pack.new_game(seed=0, decisions=ScriptedDecisions(["Padded Jacket"]))
    game.play(card(pack, "Padded Jacket"))
    game.play(card(pack, "Riot Shield"))
    assert [c.title for c in game.player.items] == ["Riot Shield"]
    assert game.player.items[0].tokens["charges"] == 5  # its durability, untouched


def test_death_spends_a_charge_of_each_item_with_uses(pack: CompiledPack) -> None:
    game = pack.new_game(seed=0)
    torch = game.new_instance(card(pack, "Pocket Torch"))
    game.play_instance(torch)  # carried with 3 charges, one spent on the use it gets
    assert torch.tokens[CHARGES] == 2
    confinement(game, game.player)
    assert torch.tokens[CHARGES] == 1


# ---------------------------------------------------------------- memories


def test_each_character_remembers_from_their_own_deck(pack: CompiledPack) -> None:
    game = pack.new_game(
        seed=0,
        players=2,
        dice=ForcedDice([6] * 4),
        decisions=ScriptedDecisions(["Haymaker", "Shake It Off"]),
    )
    game.play(card(pack, "Tobiah Marsh"))
    game.state.current = 1
    game.decisions = ScriptedDecisions(["Steady Hands", "Needle Jab", "Count the Tiles"])
    game.play(card(pack, "Edda Vorn"))
    edda, tobiah = game.state.players[1], game.state.players[0]
    assert len(game.state.decks[memory_deck(edda)]) == 6
    assert len(game.state.decks[memory_deck(tobiah)]) == 6
    remember(game, held(game, "Edda Vorn"))
    memory = edda.owned[-1]
    assert memory.kind == "memory"
    assert memory.definition.properties.get("owner") in (None, "Edda Vorn")
    assert len(game.state.decks[memory_deck(edda)]) == 5
    assert len(game.state.decks[memory_deck(tobiah)]) == 6


def test_remembering_without_a_character_says_so(pack: CompiledPack) -> None:
    game = pack.new_game(seed=0)
    remember(game, game.new_instance(card(pack, "Restraints")))
    assert "no memory deck" in game.log.lines()[-1]


def test_the_new_cards_meet_the_briefs_counts(pack: CompiledPack) -> None:
    kinds = [c.kind for c in pack.cards]
    characters = [c for c in pack.cards if c.kind == "character"]
    assert len(characters) >= 3
    for person in characters:
        basics = [c for c in pack.cards if c.properties.get("owner") == person.title]
        assert len([c for c in basics if c.kind == "skill"]) == 4
        assert (
            len([c for c in basics if c.kind == "memory"])
            + sum(1 for c in pack.cards if c.kind == "memory" and "owner" not in c.properties)
            >= 6
        )
    disorders = {c.properties["disorder"] for c in pack.cards if c.kind == "disorder"}
    assert kinds.count("disorder") >= 10 and len(disorders) == 5
    assert kinds.count("equipment") >= 4
    assert all(c.tests for c in pack.cards if c.kind in ("character", "disorder", "memory"))


def test_a_card_that_brings_back_its_own_kind_is_refused(tmp_path: Path) -> None:
    folder = make_pack(
        tmp_path,
        LOBOTOMY_PACK,
        loops="""memory "Echo" {
    brings back "Echo"
    test "it does not remember itself without end" {
        play "Echo"
        expect memories held == 1
    }
}

character "Mirror" {
    health 6
    insanity up to 7
    ap 3
    ar 4
    defense 1
    imagination 7
    disorders ocd
    starts with "Mirror"
    test "nor does a character start with itself" {
        play "Mirror"
        expect health == 6
    }
}
""",
    )
    # The checker refuses both (a memory brings back items and skills, a character starts
    # with items); the runtime would gain nothing from them all the same.
    code, output = run("check", str(folder))
    assert code == 1, output
    assert '"Echo" is no weapon or equipment or drug or skill or disorder card' in output
    assert '"Mirror" is no weapon or equipment or drug card' in output
