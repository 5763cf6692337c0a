"""Lobotomy's end of the patrol: Defy Gravity, the Final Clash, scenarios and the game's end."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest

from compiler.build import CompiledPack
from compiler.errors import UsageError
from compiler.playing import apply_settings
from runtime.checks import CheckCall, named_arm
from runtime.decisions import ScriptedDecisions
from runtime.dice import ForcedDice
from runtime.game import Game
from runtime.games.base_checks import Target
from runtime.games.lobotomy_clash import (
    A_DIE_AWAY,
    imagination_odds,
    living_characters,
    roll_imagination,
)
from runtime.games.lobotomy_monsters import monster_attack
from runtime.games.lobotomy_scenarios import seat_characters
from runtime.odds import Table, card_odds
from runtime.rounds import play_round
from tests.helpers import compiled, make_pack, run
from tests.test_lobotomy import PACK, card


@pytest.fixture(scope="module")
def pack() -> CompiledPack:
    return compiled(PACK)


def imagination_test(game: Game, modifier: int) -> int | str:
    rule = game.rules.procedures["imagination"]
    call = CheckCall(
        rule, (("modifier", modifier),), (named_arm("pass"), named_arm("fail")), "imagination"
    )
    return game.check(game.new_instance(game.cards[0]), call)


# ---------------------------------------------------------------- Defy Gravity


@pytest.mark.parametrize(("answer", "result", "insomnia"), [("yes", "pass", 1), ("no", "fail", 0)])
def test_defy_gravity_turns_the_six_into_a_five_at_minus_two(
    pack: CompiledPack, answer: str, result: str, insomnia: int
) -> None:
    # Rulebook 892-898: imagination 9 at -2 needs 7 or less; 2 and 6 are 8, a fail; the 6
    # turned to a 5 passes, and the Warden walks a space for it.
    game = pack.new_game(dice=ForcedDice([2, 6]), decisions=ScriptedDecisions([answer]))
    game.set_stat("imagination", 9)
    assert imagination_test(game, -2) == result
    assert game.state.tracks["insomnia"] == insomnia
    assert [w.location for w in game.actors_of("warden")] == (["A2"] if insomnia else [])


def test_defy_gravity_is_not_asked_where_it_cannot_help(pack: CompiledPack) -> None:
    # Two over (3 and 6 against 7) is past one die's turn; a pass needs none.
    for faces in ([3, 6], [1, 2]):
        game = pack.new_game(dice=ForcedDice(faces), decisions=ScriptedDecisions([]))
        game.set_stat("imagination", 9)
        imagination_test(game, -2)
        assert game.state.tracks["insomnia"] == 0
    # Two ones against 1 are one over, but no die goes below 1.
    target = Target(2, 6, 1, True, "pass", "fail", "imagination")
    assert all(b.after is None for b in imagination_odds(target))


def test_defy_gravity_odds_are_exact_and_agree_with_the_dice(pack: CompiledPack) -> None:
    # Against 7: 21 of the 36 rolls pass, the 5 that make 8 are a die from passing.
    target = Target(2, 6, 7, True, "pass", "fail", "imagination")
    odds = {(b.result, b.after): b.probability for b in imagination_odds(target)}
    assert odds == {
        ("pass", None): Fraction(21, 36),
        ("fail", A_DIE_AWAY): Fraction(5, 36),
        ("fail", None): Fraction(10, 36),
    }

    seen: Counter[tuple[object, object]] = Counter()
    game = pack.new_game(seed=3)
    for _ in range(6000):
        rolled = roll_imagination(game, target)
        seen[(rolled.result, rolled.after)] += 1
    for key, p in odds.items():
        assert abs(seen[key] / 6000 - float(p)) < 0.02


def test_the_odds_of_an_imagination_test_with_and_without_defy_gravity(
    pack: CompiledPack,
) -> None:
    # Imagination 9 at -2: passed 21/36 without the shift; with it, when it helps, 26/36.
    def setup(game: Game) -> None:
        game.set_stat("imagination", 9)

    table = Table(pack.rules, pack.cards, pack.module, setup)
    (event,) = card_odds(table, card(pack, "Sleepwalkers"))
    by_path = {" › ".join(o.path): o for o in event.outcomes}
    passed = by_path["check imagination -2: pass"].probability
    defied = by_path["check imagination -2: fail (a die from passing) › defy gravity: yes"]
    assert passed == Fraction(21, 36) and defied.probability == Fraction(5, 36)
    assert defied.changes == {} and "insomnia 0 → 1 (+1)" in defied.also


# ---------------------------------------------------------------- the Final Clash


def test_the_clash_begins_past_the_end_of_the_track_not_on_it(pack: CompiledPack) -> None:
    game = pack.new_game()
    game.advance("insomnia", 47)  # onto D12: the end of the patrol, no clash yet
    assert game.state.tracks["insomnia"] == 47 and "final clash" not in game.state.flags
    assert game.actors_of("warden")[0].location == "D12"
    game.advance("insomnia", 1)  # moved on from the end: onto the pentagram
    (walker,) = game.actors_of("monster")
    assert walker.name == "the Warden" and walker.location == "central"
    assert walker.stats.get("hp") == 12 and walker.keywords == {"boss"}
    assert "final clash" in game.state.flags and not game.actors_of("warden")
    game.advance("insomnia", 2)  # pushed again: the clash has begun once
    assert [e.kind for e in game.log.events].count("clash") == 1
    # From D11 a death's three spaces go past the end on the way.
    other = pack.new_game()
    other.advance("insomnia", 46)
    other.advance("insomnia", 3)
    assert "final clash" in other.state.flags


def test_in_the_clash_death_is_for_good_and_the_last_one_loses(pack: CompiledPack) -> None:
    game = pack.new_game(players=2)
    game.state.tracks["insomnia"] = 47
    game.advance("insomnia", 1)
    (walker,) = game.actors_of("monster")
    first, second = game.state.players
    first.stats.set("health", 1)
    second.stats.set("health", 1)
    game.state.round = 1
    game.dice = ForcedDice([6] * 10)
    monster_attack(game, walker, first)
    assert first.dead and first.location is None and game.state.tracks["insomnia"] == 47
    assert game.state.over is None
    monster_attack(game, walker, second)
    assert game.state.over == "lost" and game.snapshot()["over"] == "lost"
    assert not play_round(game)  # nothing more happens


def test_the_warden_defeated_with_a_character_alive_wins(pack: CompiledPack) -> None:
    game = pack.new_game(decisions=ScriptedDecisions([]))
    game.state.tracks["insomnia"] = 47
    game.advance("insomnia", 1)
    (walker,) = game.actors_of("monster")
    game.target(walker)
    walker.stats.set("hp", 1)
    game.state.round = 1
    # The Fire Axe's four dice at AR 4+ against his Defense 2: 6 6 5 4 leave 2 damage.
    game.dice = ForcedDice([6, 6, 5, 4])
    axe = game.new_instance(card(pack, "Fire Axe"))
    game.player.items.append(axe)
    game.use(axe)
    assert walker.dead and game.state.over == "won"
    assert json.dumps(game.snapshot())


def test_the_warden_is_a_monster_of_the_monsters_turn(pack: CompiledPack) -> None:
    game = pack.new_game(seed=4)
    game.state.tracks["insomnia"] = 47
    game.advance("insomnia", 1)
    game.player.location = "A2"
    game.state.decks["movement"] = []
    game.state.decks["monster"] = []
    play_round(game)
    (walker,) = game.actors_of("monster")
    assert walker.location == "A2"  # his 2 AP towards the nearest character, then his attack
    attacks = [e for e in game.log.events if e.kind == "attack"]
    assert [e.data["attacker"] for e in attacks] == ["the Warden"]
    assert not any(e.kind == "stomp" for e in game.log.events)


def test_play_json_shows_the_game_over(pack: CompiledPack) -> None:
    code, output = run(
        "play", str(PACK), "The Sleepless Ward", "--json", "--set", "insomnia=24",
        "--set", "scenarios=3",
    )  # fmt: skip
    assert code == 0, output
    state = json.loads(output)["state"]
    assert state["over"] == "won" and state["tracks"]["scenarios"] == 4
    with pytest.raises(UsageError, match="insomnia goes from 0 to 47"):
        apply_settings(pack.new_game(), pack, ["insomnia=48"])


# ---------------------------------------------------------------- scenarios


def test_objectives_are_checked_each_round_and_rewards_stop_in_the_clash(
    pack: CompiledPack,
) -> None:
    game = pack.new_game(players=5, seed=1)
    for player in game.state.players:
        player.stats.set("insanity", 2)
    game.play(card(pack, "Cold Storage"))
    (keeper,) = game.actors_of("monster")
    game.state.round = 1
    game.change("hp", -keeper.stats.get("hp"), keeper)
    game.state.tracks["insomnia"] = 47
    game.advance("insomnia", 1)  # the clash: no reward from now on
    game.state.decks["movement"] = []
    game.state.decks["monster"] = []
    game.state.decks["scenario"] = []
    game.actors_of("monster")[0].location = "D12"  # the Warden far off: he is a monster too
    play_round(game)
    assert game.state.tracks["scenarios"] == 0  # the Warden is on the board
    game.actors_of("monster")[0].location = None
    play_round(game)
    assert game.state.tracks["scenarios"] == 1
    assert [p.stats.get("insanity") for p in game.state.players] == [2] * 5
    assert any("no reward" in e.text for e in game.log.events)


def test_the_jump_starts_no_more_scenarios_than_the_difficulty_plays(pack: CompiledPack) -> None:
    game = pack.new_game(players=5)
    game.state.tracks["scenarios"] = 3
    game.play(card(pack, "Counting Sheep")).tokens["progress"] = 3
    game.end_turn()  # checked at the end of a turn: the jump, but the fourth is the last
    assert len([s for s in game.state.in_play if s.startswith("scenario:")]) == 1
    assert any("no scenario is left" in e.text for e in game.log.events)


def test_every_scenario_done_in_the_clash_stops_the_movement_cards(pack: CompiledPack) -> None:
    game = pack.new_game(seed=2)
    game.state.tracks["insomnia"] = 47
    game.advance("insomnia", 1)
    game.play(card(pack, "Lights Flicker"))  # the movement card of the last monsters' turn
    game.state.tracks["scenarios"] = 4  # all done in the clash: no win, no more movement
    game.state.decks["monster"] = []
    deck = len(game.state.decks["movement"])
    play_round(game)
    assert "movement" not in game.state.in_play and len(game.state.decks["movement"]) == deck
    assert game.state.over is None and game.state.tracks["insomnia"] == 47


def test_a_token_pushed_past_its_end_fires_and_characters_are_one_to_five(
    pack: CompiledPack, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = pack.new_game()
    tracks = game.rules.world.tracks
    assert isinstance(tracks, dict)
    monkeypatch.setitem(tracks, "progress", replace(tracks["progress"], past_max="final_clash"))
    scenario = game.new_instance(card(pack, "Counting Sheep"))
    game.add_tokens(scenario, "progress", 9)
    assert "final clash" not in game.state.flags  # reached, not passed
    game.add_tokens(scenario, "progress", 1)
    assert "final clash" in game.state.flags
    seat_characters(game, scenario, 10**12)  # a hostile test's number: seated at most five
    assert len(game.state.players) == 5
    seat_characters(game, scenario, 0)
    assert len(game.state.players) == 1


def test_an_objective_that_never_completes_its_scenario_is_an_error(tmp_path: Path) -> None:
    never = (
        'scenario "Endless Night" {\n'
        '    objective {\n        if insomnia >= 10 { say "Dawn." }\n    }\n'
    )
    folder = make_pack(
        tmp_path / "endless",
        "pack: endless\ntitle: Endless\nversion: 0.1.0\nruleset: lobotomy\n",
        endless=never + '    scenario jump { rule "At B1, the next scenario." }\n}\n',
    )
    code, output = run("check", str(folder))
    assert code == 1 and "endless.card:2:5: error[E0430]" in output
    assert output.count("E0430") == 1  # printed text says what the jump does
    (folder / "endless.card").write_text(
        never.replace('say "Dawn."', "complete this scenario") + "}\n"
    )
    assert run("check", str(folder))[0] == 0


def test_a_whole_game_runs_to_its_end(pack: CompiledPack) -> None:
    # Two characters who do nothing but wait: scenarios jump and finish on their own, deaths
    # push the Warden on, and the clash ends the game (a policy would play it better).
    game = pack.new_game(players=2, seed=0, budget=100_000)
    game.play(card(pack, "Counting Sheep"))
    rounds = 0
    while play_round(game):
        rounds += 1
        assert rounds < 100
    assert game.state.over == "lost" and "final clash" in game.state.flags
    assert game.state.tracks["scenarios"] >= 1 and not living_characters(game)
