"""Dice: where faces come from (seeded or forced by a test), summed rolls, and the cap on pools.

How a game reads its dice (a pool of successes, a sum against a table, re-rolls) is the game
module's own (runtime/games/); what every game shares is here: the faces' source, `roll NdS`,
shuffling, and the most dice one check may roll.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

Shuffled = TypeVar("Shuffled")

MAX_POOL_DICE = 60
"""The most dice one pool check rolls. A real card rolls a handful (a stat of a few dice, and an
item or two adding a few); past this, the bonuses of a runaway loop or a pack
ruleset's stat of a million are refused rather than rolled, in play, tests and odds alike (the
exact odds of 60 dice take about a second to work out, and grow as the sixth power)."""


class DiceError(Exception):
    """Dice could not be rolled as asked: forced dice ran out, or a roll ran away."""


class ForcedDiceRanOut(DiceError):
    """A roll needed a die after every forced face was used."""

    def __init__(self, faces: Sequence[int], wanted_by: str | None = None) -> None:
        super().__init__(faces, wanted_by)
        self.faces = tuple(faces)
        self.wanted_by = wanted_by  # the roll that asked for one more die, when known

    def __str__(self) -> str:
        shown = " ".join(map(str, self.faces)) or "(none)"
        ran_out = f"the forced dice ran out after {len(self.faces)}: {shown}"
        return f"{ran_out}; {self.wanted_by} wanted another" if self.wanted_by else ran_out


class ImpossibleFace(DiceError):
    """A forced face that the die being rolled does not have."""

    def __init__(self, face: int, sides: int) -> None:
        super().__init__(face, sides)
        self.face, self.sides = face, sides

    def __str__(self) -> str:
        return f"forced die {self.face} cannot show on a d{self.sides}"


class PoolTooLarge(DiceError):
    """A pool check of more dice than any check may roll (`MAX_POOL_DICE`)."""

    def __init__(self, label: str, dice: int) -> None:
        super().__init__(label, dice)
        self.label, self.dice = label, dice

    def __str__(self) -> str:
        return (
            f"{self.label} rolls {self.dice} dice, more than the {MAX_POOL_DICE} a pool "
            "check may roll"
        )


def pool_size(dice: int, label: str) -> int:
    """The dice a pool check rolls: none for a count under one; PoolTooLarge past the cap."""
    if dice > MAX_POOL_DICE:
        raise PoolTooLarge(label, dice)
    return max(dice, 0)


class DiceSource(Protocol):
    """Where the faces of rolled dice come from."""

    def roll(self, sides: int) -> int:
        """One die's face, from 1 to `sides`."""
        ...


def draws_below(generator: random.Random) -> Callable[[int], int]:
    """What `generator.randrange(n)` gives (and `randint(1, n)`, less one), drawn faster.

    A game rolls and decides tens of thousands of times, and `randrange` takes three layers of
    calls to do this: bits of the length of `n`, drawn again until a number below `n` comes
    up. The numbers must stay randrange's, as seeded games are replayed from them (a test of
    tests/test_speed_cards.py checks that they are); `n` under 1 is refused as randrange does.
    """
    bits = generator.getrandbits

    def below(n: int) -> int:
        if n < 1:
            return generator.randrange(n)
        length = n.bit_length()
        drawn = bits(length)
        while drawn >= n:
            drawn = bits(length)
        return drawn

    return below


def shuffle(items: list[Shuffled], generator: random.Random) -> None:
    """Shuffle in place exactly as `generator.shuffle(items)` does (the same order, from the same
    draws), without its interpreted layers: every game shuffles each of its decks."""
    below = draws_below(generator)
    for last in range(len(items) - 1, 0, -1):
        other = below(last + 1)
        items[last], items[other] = items[other], items[last]


class SeededDice:
    """Faces from a seeded generator: the same seed gives the same faces, run after run."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self._random = random.Random(seed)
        self._below = draws_below(self._random)

    def roll(self, sides: int) -> int:
        """One die's face, from 1 to `sides`: the face `randint(1, sides)` would give."""
        return self._below(sides) + 1


class ForcedDice:
    """Faces given in advance, in order, as a card test's `dice` line does."""

    def __init__(self, faces: Iterable[int]) -> None:
        self._faces = list(faces)
        self._next = 0

    def roll(self, sides: int) -> int:
        """The next forced face; running out is an error that names what was used."""
        if self._next >= len(self._faces):
            raise ForcedDiceRanOut(self._faces)
        face = self._faces[self._next]
        if not 1 <= face <= sides:
            raise ImpossibleFace(face, sides)
        self._next += 1
        return face

    def add(self, faces: Iterable[int]) -> None:
        """Force more faces, after those already given."""
        self._faces.extend(faces)

    @property
    def unused(self) -> list[int]:
        """Forced faces nobody rolled; a test that leaves some fails."""
        return self._faces[self._next :]


def _faces(faces: Sequence[int]) -> str:
    return " ".join(map(str, faces))


@dataclass(frozen=True)
class Roll:
    """Dice summed, as a `roll` table reads them."""

    notation: str
    faces: tuple[int, ...]

    def __init__(self, notation: str, faces: tuple[int, ...]) -> None:
        # Written out for mypyc (runtime/native.py): made hundreds of times a game.
        object.__setattr__(self, "notation", notation)
        object.__setattr__(self, "faces", faces)

    @property
    def total(self) -> int:
        """The sum of the faces."""
        return sum(self.faces)

    def explain(self) -> str:
        """The log line: `roll 2d6: 3 5 → 8`."""
        return f"roll {self.notation}: {_faces(self.faces)} → {self.total}"


def roll_dice(count: int, sides: int, source: DiceSource) -> Roll:
    """Roll `count` dice of `sides` faces and keep every face."""
    notation = f"{count if count != 1 else ''}d{sides}"
    return Roll(notation, tuple(source.roll(sides) for _ in range(count)))
