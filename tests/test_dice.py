"""The pool check with suspense, against the rulebook's worked example and its reading
(docs/readings.md#coma-ward-pool-check)."""

from __future__ import annotations

import pytest

from compiler.ruleset import load_ruleset
from runtime.dice import DiceError, ForcedDice, SeededDice
from runtime.games.coma_ward_dice import PoolFaces, roll_pool

COMA_WARD = PoolFaces.from_ruleset({"success": [5, 6], "suspense": [4], "failure": [1, 2, 3]})


def test_faces_come_from_the_ruleset() -> None:
    data = load_ruleset("coma-ward").procedures["pool"]
    assert data.procedure == "coma-ward-pool"
    assert COMA_WARD.success == {5, 6} and COMA_WARD.suspense == {4}


def test_angelicas_focus_check() -> None:
    # Four dice: 1 4 5 6. The 5 and 6 succeed; the 4 is rolled again with the 1: 4 and 6.
    # The 6 makes three successes; the new 4 is rolled once more (always taken), alone: a 3.
    dice = ForcedDice([1, 4, 5, 6, 4, 6, 3])
    result = roll_pool(4, COMA_WARD, dice, "check focus")
    assert result.successes == 3
    assert dice.unused == []
    assert result.explain() == (
        "check focus (4 dice): 1 4 5 6 → 2 successes; "
        "suspense: re-roll 4 and 1 → 4 6 → 3 successes; "
        "suspense: re-roll 4 → 3 → 3 successes"
    )


def test_the_specimen_deft_retreat() -> None:
    dice = ForcedDice([4, 5, 1, 6, 2])  # the 5 succeeds; the 4 goes again with the 1: 6 and 2
    result = roll_pool(3, COMA_WARD, dice, "check dexterity")
    assert result.successes == 2 and dice.unused == []


def test_each_suspense_die_takes_one_failed_die_while_they_last() -> None:
    dice = ForcedDice([4, 4, 4, 1, 5, 6, 5, 6, 2])
    result = roll_pool(5, COMA_WARD, dice, "check strength")
    # 4 4 4 1 5: one success; three suspense dice, one failure: re-roll 4+1, 4, 4 (4 dice).
    assert result.rounds[1] == [6, 5, 6, 2]
    assert result.successes == 4
    assert "re-roll 4 and 1, 4, 4" in result.explain()


def test_successes_never_exceed_the_pool() -> None:
    source = SeededDice(7)
    for _ in range(2000):
        size = source.roll(8)
        assert 0 <= roll_pool(size, COMA_WARD, source, "check").successes <= size


def test_forced_dice_running_out_is_an_error() -> None:
    with pytest.raises(DiceError, match="ran out after 2"):
        roll_pool(3, COMA_WARD, ForcedDice([1, 2]), "check focus")


def test_same_seed_same_rolls() -> None:
    first = [roll_pool(5, COMA_WARD, SeededDice(11), "c").explain() for _ in range(3)]
    assert len(set(first)) == 1


def test_empty_pool() -> None:
    assert roll_pool(0, COMA_WARD, ForcedDice([]), "check focus").successes == 0


def test_four_dice_odds_agree_with_the_reading() -> None:
    # docs/readings.md#coma-ward-pool-check: P(0..4 successes) ≈ .0925, .2802, .3411, .2238,
    # .0624 for four dice.
    source, runs = SeededDice(2026), 40_000
    counts = [0] * 5
    for _ in range(runs):
        counts[roll_pool(4, COMA_WARD, source, "c").successes] += 1
    expected = [0.0925, 0.2802, 0.3411, 0.2238, 0.0624]
    for seen, p in zip(counts, expected, strict=True):
        assert abs(seen / runs - p) < 0.01


def test_roll_tables_sum_their_dice() -> None:
    from runtime.dice import roll_dice

    vial = roll_dice(1, 6, ForcedDice([2]))
    assert (vial.total, vial.explain()) == (2, "roll d6: 2 → 2")
    two = roll_dice(2, 6, ForcedDice([3, 5]))
    assert (two.total, two.explain()) == (8, "roll 2d6: 3 5 → 8")
