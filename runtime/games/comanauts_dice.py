"""Comanauts' dice, exactly: coloured dice spent from a pool, summed against a target.

A roll is a few *groups* of dice: the dice of one colour spent, each with the faces of that
colour, each result multiplied first (an effect that "changes or multiplies a die's result"
applies before bonuses) and then raised by the bonus that group takes (a colour bonus, a melee,
ranged or defense bonus; purple dice take only purple bonuses). The roll's total is the sum
of every die so made; a test passes when it meets or beats its target.

The exact distribution of a total is the convolution of each die's, kept in integer counts
over one common denominator until the end. `chances` gives the chance of passing for each
number of dice spent from a pool, and `fewest_dice` the fewest that reach a wanted chance.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from runtime.dice import DiceSource, pool_size

D6 = (1, 2, 3, 4, 5, 6)
"""The faces of a die of any colour, unless the ruleset's designer values say otherwise."""


@dataclass(frozen=True)
class DieGroup:
    """Dice of one colour spent together: their faces, what multiplies them, their bonus."""

    colour: str
    count: int
    faces: tuple[int, ...] = D6
    times: int = 1  # a die's result is multiplied by this first
    bonus: int = 0  # then this is added to each die

    def value(self, face: int) -> int:
        """What one die showing `face` counts for."""
        return face * self.times + self.bonus


@dataclass(frozen=True)
class RolledDice:
    """The faces rolled, group by group, and the total they make."""

    faces: tuple[tuple[int, ...], ...]
    total: int

    def explain(self, groups: Sequence[DieGroup]) -> str:
        """`yellow 3 5 (+1 each), purple 2 → 11`."""
        parts = []
        for group, faces in zip(groups, self.faces, strict=True):
            extra = f" ×{group.times}" if group.times != 1 else ""
            extra += f" {group.bonus:+d} each" if group.bonus else ""
            shown = " ".join(map(str, faces))
            parts.append(f"{group.colour} {shown}{f' ({extra.strip()})' if extra else ''}")
        return f"{', '.join(parts) or 'no dice'} → {self.total}"


def roll_groups(groups: Sequence[DieGroup], source: DiceSource) -> RolledDice:
    """Roll every die of every group (a face drawn by its index among the colour's faces)."""
    faces = []
    total = 0
    for group in groups:
        rolled = tuple(group.faces[source.roll(len(group.faces)) - 1] for _ in range(group.count))
        faces.append(rolled)
        total += sum(group.value(face) for face in rolled)
    return RolledDice(tuple(faces), total)


@lru_cache(maxsize=512)
def total_distribution(groups: tuple[DieGroup, ...]) -> tuple[tuple[int, Fraction], ...]:
    """Every total the groups can make, with its exact probability, lowest first."""
    counts: dict[int, int] = {0: 1}
    ways = 1
    for group in groups:
        die: dict[int, int] = {}
        for face in group.faces:
            die[group.value(face)] = die.get(group.value(face), 0) + 1
        for _ in range(pool_size(group.count, group.colour)):
            ways *= len(group.faces)
            merged: dict[int, int] = {}
            for total, n in counts.items():
                for value, m in die.items():
                    merged[total + value] = merged.get(total + value, 0) + n * m
            counts = merged
    return tuple((total, Fraction(n, ways)) for total, n in sorted(counts.items()))


def pass_chance(groups: tuple[DieGroup, ...], target: int) -> Fraction:
    """The chance the total meets or beats the target (no dice: none)."""
    if not any(group.count for group in groups):
        return Fraction(0)
    return sum((p for total, p in total_distribution(groups) if total >= target), Fraction(0))


def spend(own: DieGroup, wild: DieGroup, dice: int) -> tuple[DieGroup, ...]:
    """The groups `dice` dice make, taken from the colour's (`own.count` there) and the wild
    purple ones: the kind that counts for more on average first, the colour's on a tie, so
    that purple dice are kept for other tests."""
    first, second = (wild, own) if _worth(wild) > _worth(own) else (own, wild)
    taken = min(first.count, dice)
    groups = (_with(first, taken), _with(second, min(second.count, dice - taken)))
    return tuple(group for group in groups if group.count)


@lru_cache(maxsize=256)
def _worth(group: DieGroup) -> Fraction:
    """What a die of the group counts for on average."""
    return Fraction(sum(group.value(face) for face in group.faces), len(group.faces))


def _with(group: DieGroup, count: int) -> DieGroup:
    return DieGroup(group.colour, count, group.faces, group.times, group.bonus)


def chances(own: DieGroup, wild: DieGroup, target: int) -> list[tuple[int, Fraction]]:
    """The chance of passing for each number of dice spent, from one to every fitting die."""
    return [
        (dice, pass_chance(spend(own, wild, dice), target))
        for dice in range(1, own.count + wild.count + 1)
    ]


@lru_cache(maxsize=1024)  # a whole game asks the same question again and again
def fewest_dice(own: DieGroup, wild: DieGroup, target: int, wanted: Fraction) -> int | None:
    """The fewest dice to spend for at least the `wanted` chance of passing, or None if even
    every fitting die falls short."""
    return next((dice for dice, p in chances(own, wild, target) if p >= wanted), None)
