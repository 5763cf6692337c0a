"""Lobotomy's board tokens: lockers and their search test, bodies, doors, the imaginary locker."""

from __future__ import annotations

import shutil
from collections import Counter
from fractions import Fraction
from itertools import product
from pathlib import Path

import pytest

from compiler.build import CompiledPack
from runtime.cards import CardInstance
from runtime.checks import CheckCall
from runtime.decisions import Decision, DecisionError, ScriptedDecisions
from runtime.dice import ForcedDice, SeededDice
from runtime.game import Game
from runtime.games.lobotomy import escape_to, imaginary_locker, move_monsters
from runtime.games.lobotomy_tokens import (
    SEARCH,
    UNLOCK,
    Purchases,
    Search,
    Unlock,
    batter,
    found,
    place_token,
    reveal,
    search_here,
    try_lock,
    wear_down,
)
from tests.conftest import ROOT
from tests.helpers import compiled, run

PACK = ROOT / "content" / "lobotomy"
COSTS = (("weapon", "weapons", 2), ("equipment", "equipment", 4), ("drug", "drugs", 3))


@pytest.fixture(scope="module")
def pack() -> CompiledPack:
    return compiled(PACK)


def instance(game: Game, title: str) -> CardInstance:
    definition = game.find(title)
    assert definition is not None
    return game.new_instance(definition)


def kinds_carried(game: Game) -> list[str]:
    return sorted(card.kind for card in game.player.items)


# ---------------------------------------------------------------- lockers


@pytest.mark.parametrize(
    ("answer", "bought"), [("weapon + drug", ["drug", "weapon"]), ("equipment", ["equipment"])]
)
def test_search_line_488(pack: CompiledPack, answer: str, bought: list[str]) -> None:
    # Imagination 7, costs 2/4/3, five successes: a weapon and a drug, or the equipment, and
    # no monster.
    answers = ScriptedDecisions([answer])
    game = pack.new_game(dice=ForcedDice([4, 5, 6, 4, 6, 1, 2]), decisions=answers)
    found(game, instance(game, "Dented Locker"))
    asked = next(e for e in game.log.events if e.kind == "decide")
    assert "buy: " in asked.text and answers.unused == []
    assert kinds_carried(game) == bought
    assert game.actors_of("monster") == [] and game.stat("ap") == 2
    assert game.state.floor.get("central") == []


def test_the_purchases_of_each_number_of_successes() -> None:
    search = Search(7, COSTS, "Orderly Husk")
    assert str(search.purchases(1)) == "nothing: Orderly Husk comes out"
    assert str(search.purchases(3)) == "drug or weapon"
    assert str(search.purchases(5)) == "weapon + drug or equipment"
    assert str(search.purchases(9)) == "weapon + equipment + drug"


def test_the_search_odds_are_exact_and_agree_with_play() -> None:
    search = Search(7, COSTS, "Orderly Husk")
    branches = SEARCH.odds(search)
    assert sum(b.probability for b in branches) == 1
    odds = {str(b.after): b.probability for b in branches}
    # 5 successes of 7 dice at even odds: C(7,5)/2^7; failure: 0 or 1 success.
    assert odds["weapon + drug or equipment"] == Fraction(21, 128)
    assert odds["nothing: Orderly Husk comes out"] == Fraction(8, 128)
    assert {b.result for b in branches if isinstance(b.after, Purchases) and b.after.options} == {
        "pass"
    }
    seen: Counter[str] = Counter()
    game_dice = SeededDice(11)
    runs = 4000
    for _ in range(runs):
        faces = [game_dice.roll(6) for _ in range(7)]
        seen[str(search.purchases(sum(1 for f in faces if f >= 4)))] += 1
    for label, p in odds.items():
        assert abs(seen[label] / runs - float(p)) < 0.03, label


def test_pillbox_odds_on_a_locker_shows_each_purchase() -> None:
    code, output = run("odds", str(PACK), "Dented Locker")
    assert code == 0, output
    assert "search test: pass (weapon + drug or equipment) › choose: weapon + drug" in output
    assert "16.4 %" in output  # 21/128
    assert "search test: fail (nothing: Orderly Husk comes out)" in output


def test_a_decision_with_a_default_needs_no_answer() -> None:
    decision = Decision("option", "buy", ("a", "b"), default=1)
    assert ScriptedDecisions([]).decide(decision) == 1
    with pytest.raises(DecisionError):
        ScriptedDecisions([]).decide(Decision("option", "buy", ("a", "b")))


# ---------------------------------------------------------------- the imaginary locker


def test_the_imaginary_locker_line_839(pack: CompiledPack) -> None:
    game = pack.new_game(players=2, dice=ForcedDice([4, 4, 4, 4, 4, 4, 4]))
    first, second = game.state.players
    imaginary_locker(game, instance(game, "Dented Locker"))  # before B1: nothing happens
    assert game.stat("insanity") == 0 and game.stat("ap") == 3
    game.state.tracks["insomnia"] = 12
    imaginary_locker(game, instance(game, "Dented Locker"))
    assert game.stat("insanity") == 1 and game.stat("ap") == 2
    (locker,) = game.state.floor["central"]
    assert locker.kind == "locker"
    game.state.current = 1  # the other character cannot search it
    search_here(game, instance(game, "Dented Locker"))
    assert game.state.floor["central"] == [locker] and game.stat("ap", second) == 3
    game.state.current = 0
    search_here(game, instance(game, "Dented Locker"))
    assert game.state.floor["central"] == [] and game.stat("ap", first) == 1
    assert game.player.items  # seven successes buy something of every locker of the pack


# ---------------------------------------------------------------- doors


def test_the_locked_door_three_tries_by_two_characters_line_954(pack: CompiledPack) -> None:
    # Strength 5: the first character's free try (3 successes) fails; their second, at 6,
    # gets 1; the second character, imagination 6, tries at 5 again and gets 5: it opens.
    free, second_try, other = [4, 5, 6, 1, 2, 3, 1], [4, 1, 1, 1, 1, 1, 1], [4, 5, 6, 4, 5, 1]
    dice = ForcedDice([*free, *second_try, *other])
    game = pack.new_game(players=2, dice=dice, decisions=ScriptedDecisions([]))
    first, second = game.state.players
    door = instance(game, "Ward Door")
    found(game, door)
    try_lock(game, door)
    strengths = [e.data["strength"] for e in game.log.events if "strength" in e.data]
    assert strengths == [5, 6] and game.stat("ap", first) == 1
    game.end_turn()
    game.state.current = 1
    second.stats.set("imagination", 6)
    try_lock(game, door)
    strengths = [e.data["strength"] for e in game.log.events if "strength" in e.data]
    assert strengths == [5, 6, 5]
    assert game.state.floor["central"] == [] and game.stat("ap", second) == 2
    assert dice.unused == []


def test_a_characters_extra_strength_goes_at_the_end_of_their_turn(pack: CompiledPack) -> None:
    game = pack.new_game(dice=ForcedDice([1] * 21), decisions=ScriptedDecisions(["yes"]))
    door = instance(game, "Ward Door")
    found(game, door)
    try_lock(game, door)
    game.end_turn()
    game.player.stats.set("ap", 3)
    try_lock(game, door)
    strengths = [e.data["strength"] for e in game.log.events if "strength" in e.data]
    assert strengths == [5, 6, 5]


def test_the_barricaded_door_line_936(pack: CompiledPack) -> None:
    # Strength 6: the first character reveals it and spends 2 AP on 2 damage tokens; the
    # second, running (5 AP), spends two durability of each of two new weapons: 6, it opens.
    game = pack.new_game(players=2)
    first, second = game.state.players
    door = instance(game, "Nailed Planks")
    first.location = second.location = "A1"
    found(game, door)
    assert game.state.floor["A1"] == [door] == game.state.floor["A2"]
    batter(game, door)
    batter(game, door)
    assert door.tokens["battered"] == 2 and game.stat("ap", first) == 0
    batter(game, door)  # no AP left
    assert door.tokens["battered"] == 2
    game.end_turn()
    game.state.current = 1
    second.stats.set("ap", 5)
    mop, scalpel, candlestick = (
        instance(game, t) for t in ("Mop Handle", "Rusty Scalpel", "Chapel Candlestick")
    )
    second.items += [mop, scalpel, candlestick]
    wear_down(game, door, mop, 2)  # indestructible: it cannot
    assert door.tokens["battered"] == 2
    wear_down(game, door, scalpel, 2)
    wear_down(game, door, candlestick, 2)
    assert scalpel.tokens["wear"] == 2 and candlestick.tokens["wear"] == 2
    assert game.state.floor["A1"] == [] and game.state.floor["A2"] == []
    assert game.stat("ap", second) == 5


def test_the_unlocking_odds_with_earlier_tries_match_every_face() -> None:
    for earlier in range(3):
        branches = UNLOCK.odds(Unlock(5, 3, earlier, "opened", "locked", None))
        opened = sum(
            1
            for faces in product(range(1, 7), repeat=5)
            if sum(f >= 4 for f in faces) >= 3 + earlier
        )
        assert {b.result: b.probability for b in branches}["opened"] == Fraction(opened, 6**5)


def test_a_shut_door_turns_monsters_round_but_not_the_ethereal(pack: CompiledPack) -> None:
    game = pack.new_game(decisions=ScriptedDecisions(["no"]))
    game.player.location = "A3"
    found(game, instance(game, "Ward Door"))  # revealed between A3 and A4, left locked
    game.player.location = "A2"
    husk = game.spawn("monster", "A5", game.find("Orderly Husk"))
    shade = game.spawn("monster", "A5", game.find("Wailing Shade"))
    move_monsters(game, game.rules.world.turns.phases[1])
    assert husk.location == "A7"  # round by A12, B1 and the central piece
    assert shade.location == "A2"  # ethereal: through the door


def test_a_monster_walled_in_waits_and_an_unrevealed_door_blocks_nothing(
    pack: CompiledPack,
) -> None:
    game = pack.new_game(decisions=ScriptedDecisions(["no", "no"]))
    for space in ("A3", "A4"):
        game.player.location = space
        found(game, instance(game, "Ward Door"))  # A3|A4 and A4|A5, both shut
    game.player.location = "A1"
    husk = game.spawn("monster", "A4", game.find("Orderly Husk"))
    move_monsters(game, game.rules.world.turns.phases[1])
    assert husk.location == "A4"
    place_token(game, instance(game, "Ward Door"), "A2")  # face down between A2 and A3
    game.state.flags = {f for f in game.state.flags if not f.startswith("revealed:")}
    move_monsters(game, game.rules.world.turns.phases[1])
    assert husk.location == "A2"


def test_an_open_door_goes_at_once(pack: CompiledPack) -> None:
    game = pack.new_game()
    door = instance(game, "Swinging Door")
    found(game, door)
    reveal(game, door)  # gone: nothing more to pay
    assert game.state.floor["central"] == [] and game.stat("ap") == 2


def test_a_guard_that_is_no_monster_card_is_e0420(tmp_path: Path) -> None:
    copy = tmp_path / "lobotomy"
    shutil.copytree(PACK, copy)
    tokens = copy / "cards" / "tokens.card"
    text = tokens.read_text().replace('guarded by "Orderly Husk"', 'guarded by "Orderly Hosk"')
    tokens.write_text(text.replace('guarded by "Wailing Shade"', 'guarded by "Mop Handle"'))
    code, output = run("check", str(copy))
    assert code == 1, output
    assert output.count("E0420") == 2
    assert "did you mean 'Orderly Husk'?" in output
    assert '"Mop Handle" is no monster card of the pack' in output


def test_a_cards_own_unlocking_test_tries_the_door_on_your_space(pack: CompiledPack) -> None:
    game = pack.new_game(dice=ForcedDice([1] * 7 + [4] * 7), decisions=ScriptedDecisions([]))
    door = instance(game, "Ward Door")
    found(game, door)  # the free try fails, at 5
    rule = next(r for r in game.rules.procedures.values() if r.procedure == "lobotomy-unlock")
    game.check(instance(game, "Sedative"), CheckCall(rule, (), (), "check unlock"))
    strengths = [e.data["strength"] for e in game.log.events if "strength" in e.data]
    assert strengths == [5, 6] and game.state.floor["central"] == []


def test_play_takes_the_default_purchase_unless_told() -> None:
    code, output = run("play", str(PACK), "Dented Locker", "--seed", "3")
    assert code == 0, output
    assert "4 successes: equipment or drug or weapon" in output and "buy: equipment" in output
    code, output = run(
        "play", str(PACK), "Dented Locker", "--seed", "3", "--choose", "no", "--choose", "weapon"
    )  # no defying gravity (a 3 rolled) for a fifth success
    assert code == 0 and "buy: weapon" in output, output


def test_a_door_stops_a_character_until_it_is_opened_line_922(pack: CompiledPack) -> None:
    # Nailed Planks, barricaded 6 between A1 and A2: revealed and unbroken it bars the way,
    # either way round; six damage tokens open it, and the move goes through.
    game = pack.new_game(dice=ForcedDice([]))
    game.advance("insomnia", 10)  # the Warden out of the way, on A11
    game.player.location = "A1"
    door = instance(game, "Nailed Planks")
    found(game, door)
    game.move("A2")
    assert game.player.location == "A1"
    assert '"Nailed Planks" stands between A1 and A2' in game.log.events[-1].text
    game.player.location = "A2"
    game.move("A1")
    assert game.player.location == "A2"
    game.move("A3")  # the other way is open
    game.move("A2")
    assert game.player.location == "A2"
    game.player.stats.set("ap", 6)
    for _ in range(6):
        batter(game, door)
    assert game.state.floor["A1"] == []
    game.move("A1")
    assert game.player.location == "A1"


def test_a_locked_door_and_a_face_down_one_stop_a_character(pack: CompiledPack) -> None:
    game = pack.new_game(dice=ForcedDice([]), decisions=ScriptedDecisions(["no"]))
    game.player.location = "A3"
    found(game, instance(game, "Ward Door"))  # revealed between A3 and A4, left locked
    game.move("A4")
    assert game.player.location == "A3"
    place_token(game, instance(game, "Ward Door"), "A2")  # face down between A2 and A3
    game.move("A2")
    assert game.player.location == "A3"
    escape = instance(game, "Sedative")
    game.spawn("monster", "A3", game.find("Orderly Husk"))
    escape_to(game, escape, place="A2")  # stealth slips past monsters, not through doors
    assert game.player.location == "A3"
