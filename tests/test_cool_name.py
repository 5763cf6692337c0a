"""Cool Name RPG injuries: the pack, the page's worked examples with forced dice, exact odds."""

from __future__ import annotations

import json
import random
from collections import Counter
from fractions import Fraction

import pytest

from compiler.build import CompiledPack
from runtime.checks import CheckCall
from runtime.dice import ForcedDice, SeededDice
from runtime.game import Game
from runtime.games.cool_name import end_encounter, wound
from runtime.games.cool_name_checks import CHECKS, ActionCheck, injuries, prepare_heal
from runtime.rounds import play_round
from runtime.state import Actor
from tests.conftest import ROOT
from tests.helpers import card, compiled, run

PACK = ROOT / "content" / "cool-name"


@pytest.fixture(scope="module")
def pack() -> CompiledPack:
    return compiled(PACK)


def test_the_pack_checks_clean_and_every_card_is_tested(pack: CompiledPack) -> None:
    code, output = run("check", str(PACK), "--format", "json")
    assert code == 0, output
    report = json.loads(output)
    assert report["errors"] == 0 and report["diagnostics"] == []
    assert report["executable"] == 1.0
    code, output = run("test", str(PACK))
    assert code == 0 and "0 failed" in output, output
    assert len(pack.cards) >= 15
    assert [c.title for c in pack.cards if not c.tests] == []
    kinds = Counter(c.kind for c in pack.cards)
    assert set(kinds) == {"weapon", "tool", "condition", "environment", "foe"}


def test_the_die_of_each_action_score_is_the_rulesets_table(pack: CompiledPack) -> None:
    table = injuries(pack.rules)
    assert table.sides(3) == 8  # the page: "his Action Score is 3, which means he is rolling a d8"
    assert [table.sides(score) for score in range(0, 9)] == [4, 4, 6, 8, 10, 12, 20, 20, 20]


def party(pack: CompiledPack) -> tuple[Game, Actor, Actor]:
    """Aria (the first seat) and Wargar: two body wounds and a mind wound, toughness 3."""
    game = pack.new_game(players=2, seed=0)
    aria, wargar = game.state.players
    aria.name, wargar.name = "Aria", "Wargar"
    wargar.stats.set("body", 0)
    wargar.stats.set("body_wounds", 2)
    wargar.stats.set("mind_wounds", 1)
    wargar.stats.set("toughness", 3)
    return game, aria, wargar


def third_wound_in_round_5(pack: CompiledPack, game: Game, wargar: Actor) -> None:
    """Round 5: Wargar takes a third body wound; his death check rolls a 2."""
    game.state.round = 5
    game.dice = ForcedDice([2])
    wargar.stats.set("mind_wounds", 0)  # the dying example's Wargar has only body wounds
    wound(game, game.new_instance(card(pack, "Notched Falchion")), wargar, "body", lethal=True)


def test_wargars_dying_example(pack: CompiledPack) -> None:
    game, _, wargar = party(pack)
    third_wound_in_round_5(pack, game, wargar)
    check = next(e for e in game.log.events if e.kind == "check")
    assert "d8 against 3" in check.text and check.text.endswith("2 → dying")
    assert wargar.stats.get("body_wounds") == 3 and wargar.stats.get("dying") == 3
    game.dice = ForcedDice([])
    for round_number in (6, 7):
        assert play_round(game)
        assert game.state.round == round_number and not wargar.dead
    assert wargar.stats.get("dying") == 1
    play_round(game)  # round 8
    assert wargar.dead
    lines = [e.text for e in game.log.events]
    after_turn = lines.index("Wargar's turn ends", lines.index("round 8 begins"))
    assert lines[after_turn + 1 : after_turn + 4] == [
        "dying 1 → 0 (-1)",
        "Wargar's last round of dying is over",
        "Wargar dies",
    ]


def test_wargar_lives_when_aria_stabilises_him(pack: CompiledPack) -> None:
    game, aria, wargar = party(pack)
    third_wound_in_round_5(pack, game, wargar)
    play_round(game)  # round 6
    game.state.current = 0
    game.target(wargar)
    salts = game.new_instance(card(pack, "Smelling Salts"))
    aria.items.append(salts)
    game.dice = ForcedDice([1, 3])  # against his 3 wounds: a 1 changes nothing, a 3 holds
    game.use(salts)
    assert wargar.stats.get("dying") == 2
    game.use(salts)
    assert wargar.stats.get("dying") == 0
    for _ in range(3):  # rounds 7, 8, 9
        play_round(game)
    assert not wargar.dead and f"unconscious:{wargar.name}" in game.state.flags
    end_encounter(game, salts)
    assert f"unconscious:{wargar.name}" not in game.state.flags


def test_aria_heals_wargars_body_wound_against_8(pack: CompiledPack) -> None:
    game, aria, wargar = party(pack)
    aria.items.append(game.new_instance(card(pack, "Healer's Tools")))
    game.target(wargar)
    rule = pack.rules.procedures["heal"]
    call = CheckCall(rule, (("vitality", "body"),), (), "check heal body")
    prepared = prepare_heal(game, game.new_instance(card(pack, "Surgeon's Kit")), call)
    assert isinstance(prepared, ActionCheck)
    assert prepared.difficulty == 8  # 6 + his 2 body wounds (his mind wound does not count)
    assert prepared.sides == 8 and prepared.chance == Fraction(1, 8)
    game.dice = ForcedDice([7, 8])
    kit = game.new_instance(card(pack, "Surgeon's Kit"))  # twelve hours: +1 score, a d10
    assert game.check(kit, call) == "fail" and wargar.stats.get("body_wounds") == 2
    assert game.check(kit, call) == "pass" and wargar.stats.get("body_wounds") == 1


@pytest.mark.parametrize("sides", [4, 6, 8, 10, 12, 20])
def test_the_exact_chance_is_every_face_counted(sides: int) -> None:
    for difficulty in range(0, sides + 3):
        check = ActionCheck(0, sides, difficulty, "check")
        faces = sum(1 for face in range(1, sides + 1) if face >= difficulty)
        assert check.chance == Fraction(faces, sides)


def test_exact_odds_agree_with_seeded_play(pack: CompiledPack) -> None:
    procedure = CHECKS["cool-name-action"]
    rolls = 3_000
    for prepared in (ActionCheck(3, 8, 3, "d8"), ActionCheck(6, 20, 14, "d20", "hit", "miss")):
        odds = {b.result: b.probability for b in procedure.odds(prepared)}
        assert sum(odds.values()) == 1
        game = pack.new_game(seed=1, dice=SeededDice(random.Random(7).getrandbits(32)))
        seen = Counter(procedure.roll(game, prepared).result for _ in range(rolls))
        assert set(seen) <= set(odds)
        for result, p in odds.items():
            spread = 4.5 * (float(p) * (1 - float(p)) / rolls) ** 0.5 + 1e-3
            assert abs(seen[result] / rolls - float(p)) <= spread, (result, float(p))


def test_an_incapacitated_character_cannot_act(pack: CompiledPack) -> None:
    game, _, _ = party(pack)
    game.state.current = 1  # Wargar, at 0 body
    rule = pack.rules.procedures["action"]
    call = CheckCall(rule, (("stat", "intellect"), ("difficulty", 2)), (), "check intellect")
    prepared = CHECKS["cool-name-action"].prepare(game, game.new_instance(pack.cards[0]), call)
    assert isinstance(prepared, ActionCheck) and prepared.chance == 0
    assert [b.result for b in CHECKS["cool-name-action"].odds(prepared)] == ["fail"]


def test_the_death_check_odds_of_a_lethal_blow(pack: CompiledPack) -> None:
    given = ("--set", "body_wounds=2", "--set", "body=3")
    code, output = run("odds", str(PACK), "Collapsing Stair", *given, "--json")
    assert code == 0, output
    outcomes = json.loads(output)["blocks"][0]["outcomes"]
    exact = {o["path"][-1]: o["exact"] for o in outcomes}
    assert exact == {"death check (body): survive": "3/4", "death check (body): dying": "1/4"}


def test_rounds_bite_with_conditions_and_count_a_dying_foe_down(pack: CompiledPack) -> None:
    game = pack.new_game(players=1, seed=0)
    hero = game.state.players[0]
    hero.owned.append(game.new_instance(card(pack, "Festering Cut")))
    goblin = game.spawn("foe", None, card(pack, "Goblin Cutthroat"))
    game.target(goblin)
    game.dice = ForcedDice([1, 1])  # the second wound's death check fails: dying, 1 round
    falchion = game.new_instance(card(pack, "Notched Falchion"))
    hero.items.append(falchion)
    game.use(falchion)
    game.use(falchion)
    assert goblin.stats.get("dying") == 1 and not goblin.dead
    play_round(game)  # round 1: the cut bites at the start of the turn; the goblin's round
    assert hero.stats.get("body") == 5
    assert goblin.dead


@pytest.mark.parametrize(
    ("vitality", "attribute", "sides"),
    [("body", "toughness", 4), ("mind", "willpower", 6), ("spirit", "resilience", 10)],
)
def test_each_type_of_wound_rolls_its_own_attribute(
    pack: CompiledPack, vitality: str, attribute: str, sides: int
) -> None:
    """The death check, the rounds of dying and natural healing read the wound's attribute:
    body toughness, mind willpower, spirit resilience (here 1, 2 and 4: a d4, a d6, a d10)."""
    game = pack.new_game(players=1, seed=0)
    hero = game.state.players[0]
    for name, score in (("toughness", 1), ("willpower", 2), ("resilience", 4)):
        hero.stats.set(name, score)
    hero.stats.set(f"{vitality}_wounds", 1)
    game.dice = ForcedDice([1])  # against 2 wounds: dying
    wound(game, game.new_instance(card(pack, "Notched Falchion")), hero, vitality, lethal=True)
    check = next(e for e in game.log.events if e.kind == "check")
    assert f"death check ({vitality}) (score {hero.stats.get(attribute)}: d{sides} against 2)" in (
        check.text
    )
    assert hero.stats.get("dying") == hero.stats.get(attribute)
    rule = pack.rules.procedures["natural"]
    call = CheckCall(rule, (("vitality", vitality),), (), f"natural healing ({vitality})")
    cot = game.new_instance(card(pack, "Convalescent's Cot"))
    prepared = CHECKS["cool-name-natural"].prepare(game, cot, call)
    assert isinstance(prepared, ActionCheck)
    assert (prepared.score, prepared.sides, prepared.difficulty) == (
        hero.stats.get(attribute),
        sides,
        2,
    )


def _heal_difficulty(pack: CompiledPack, game: Game, span: str | None = None) -> int:
    """The difficulty of Aria's check to heal one of Wargar's body wounds."""
    rule = pack.rules.procedures["heal"]
    args = (("vitality", "body"), *((("span", span),) if span else ()))
    call = CheckCall(rule, args, (), "check heal body")
    prepared = prepare_heal(game, game.new_instance(card(pack, "Surgeon's Kit")), call)
    assert isinstance(prepared, ActionCheck)
    return prepared.difficulty


def test_healing_without_proper_tools_is_harder(pack: CompiledPack) -> None:
    """Lacking tools for the type adds the ruleset's 2; a simple first-aid kit is not enough,
    healer's tools are; tools for another type do not count."""
    game, aria, wargar = party(pack)
    game.target(wargar)
    assert _heal_difficulty(pack, game) == 10  # 6 + 2 body wounds + 2 without tools
    aria.items.append(game.new_instance(card(pack, "Simple First-Aid Kit")))
    assert _heal_difficulty(pack, game) == 10
    aria.items.append(game.new_instance(card(pack, "Mind-Mender's Incense")))  # mind, spirit
    assert _heal_difficulty(pack, game) == 10
    aria.items.append(game.new_instance(card(pack, "Healer's Tools")))
    assert _heal_difficulty(pack, game) == 8


def test_each_step_down_the_time_chart_adds_one_to_the_difficulty(pack: CompiledPack) -> None:
    """An hour is the base; a quarter-hour, a minute and a round are one, two and three steps
    down the chart, each +1 to the difficulty (and a step up adds nothing to it)."""
    game, aria, wargar = party(pack)
    game.target(wargar)
    aria.items.append(game.new_instance(card(pack, "Healer's Tools")))
    spans = (None, "hour", "quarter-hour", "minute", "round", "half-day")
    assert [_heal_difficulty(pack, game, span) for span in spans] == [8, 8, 9, 10, 11, 8]
