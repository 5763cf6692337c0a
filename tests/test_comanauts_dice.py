"""Comanauts' dice: exact totals against every face enumerated and against seeded play."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from fractions import Fraction
from typing import cast

import pytest

from runtime.checks import CheckProcedure
from runtime.dice import SeededDice
from runtime.game import Game
from runtime.games.comanauts_checks import TASK, TEST, Placed, SkillTest, TaskRoll
from runtime.games.comanauts_dice import (
    DieGroup,
    chances,
    fewest_dice,
    pass_chance,
    spend,
    total_distribution,
)


class Rolling:
    """All a procedure's roll step reads of the game: its dice."""

    def __init__(self, seed: int) -> None:
        self.dice = SeededDice(seed)


GROUPS = (
    DieGroup("yellow", 2, times=2, bonus=1),
    DieGroup("purple", 1, faces=(0, 1, 1, 2, 2, 3), bonus=-1),
)


def test_the_totals_are_every_face_enumerated() -> None:
    dice = [group for group in GROUPS for _ in range(group.count)]
    counts: Counter[int] = Counter()
    for faces in itertools.product(*(group.faces for group in dice)):
        counts[sum(group.value(face) for group, face in zip(dice, faces, strict=True))] += 1
    ways = sum(counts.values())
    assert dict(total_distribution(GROUPS)) == {t: Fraction(n, ways) for t, n in counts.items()}


def test_the_multiplier_comes_before_the_bonus() -> None:
    assert DieGroup("red", 1, times=2, bonus=1).value(2) == 5
    assert pass_chance((DieGroup("red", 1, times=2, bonus=1),), 6) == Fraction(4, 6)


def test_the_chance_for_each_number_of_dice_and_the_fewest() -> None:
    red, purple = DieGroup("red", 2), DieGroup("purple", 1)
    assert chances(red, purple, 9) == [
        (1, Fraction(0)),
        (2, Fraction(10, 36)),
        (3, Fraction(160, 216)),
    ]
    assert fewest_dice(red, purple, 9, Fraction(1, 2)) == 3
    assert fewest_dice(red, purple, 19, Fraction(1, 100)) is None
    assert pass_chance((), 0) == 0  # no fitting dice: an automatic fail


def test_the_better_dice_are_spent_first() -> None:
    plain, charmed = DieGroup("yellow", 2), DieGroup("purple", 2, bonus=1)
    assert spend(plain, charmed, 3) == (DieGroup("purple", 2, bonus=1), DieGroup("yellow", 1))
    level = DieGroup("purple", 2)
    assert spend(plain, level, 3) == (DieGroup("yellow", 2), DieGroup("purple", 1))


CASES: list[tuple[str, CheckProcedure, object]] = [
    (
        "skill test, yellow +1 and a purple die",
        TEST,
        SkillTest(
            (DieGroup("yellow", 2, bonus=1), DieGroup("purple", 1)), 11, "pass", "fail", "skill"
        ),
    ),
    ("a doubled red die", TEST, SkillTest((DieGroup("red", 1, times=2),), 7, "hit", "miss", "m")),
    ("no dice", TEST, SkillTest((), 4, "pass", "fail", "skill", refused="no dice")),
    (
        "group task halfway",
        TASK,
        TaskRoll((DieGroup("blue", 2),), 6, 15, "done", "open", "task"),
    ),
]


@pytest.mark.parametrize(("name", "procedure", "prepared"), CASES, ids=[c[0] for c in CASES])
def test_exact_odds_agree_with_seeded_play(
    name: str, procedure: CheckProcedure, prepared: object
) -> None:
    """The distribution a procedure claims is what its roll step gives, to sampling error."""
    odds: Counter[object] = Counter()
    for branch in procedure.odds(prepared):
        odds[(branch.result, branch.after)] += branch.probability  # type: ignore[assignment]
    assert sum(odds.values()) == 1
    rolls = 3_000
    seen: Counter[object] = Counter()
    game = cast(Game, Rolling(random.Random(name).getrandbits(32)))
    for _ in range(rolls):
        rolled = procedure.roll(game, prepared)
        seen[(rolled.result, rolled.after)] += 1
    assert set(seen) <= set(odds), set(seen) - set(odds)
    for key, p in odds.items():
        spread = 4.5 * (float(p) * (1 - float(p)) / rolls) ** 0.5 + 1e-3
        assert abs(seen[key] / rolls - float(p)) <= spread, (key, seen[key] / rolls, float(p))


def test_a_group_task_places_exactly_what_the_dice_show() -> None:
    task = TaskRoll((DieGroup("blue", 1),), 12, 15, "done", "open", "task")
    branches = TASK.odds(task)
    assert [(b.result, b.after) for b in branches] == [
        ("open", Placed(1)),
        ("open", Placed(2)),
        *[("done", Placed(n)) for n in range(3, 7)],
    ]
    assert str(Placed(3)) == "+3 on the track"
