"""Dice: where faces come from (seeded or forced by a test), and the pool check with suspense.

The pool check is the Coma Ward reading of docs/coma-ward.md, with its faces given as data by
the ruleset: roll as many dice as the pool; success faces are set aside, failure faces stay on
the table, and while any die shows a suspense face, each such die is rolled again together with
one failed die, if one is left. Re-rolling can only help, so it is always taken.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

Shuffled = TypeVar("Shuffled")

MAX_REROLL_ROUNDS = 1000
"""A pool that still shows suspense after this many rounds is stopped as a runaway."""

MAX_POOL_DICE = 60
"""The most dice one pool check rolls. A real card rolls a handful (Coma Ward's stats give at
most five, and an item or two add a few); past this, the bonuses of a runaway loop or a pack
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


class EndlessSuspense(DiceError):
    """A pool still showed suspense after the most rounds a roll may take."""

    def __init__(self, label: str, rounds: int) -> None:
        super().__init__(label, rounds)
        self.label, self.rounds = label, rounds

    def __str__(self) -> str:
        return f"{self.label}: suspense went on for {self.rounds} rounds"


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


@dataclass(frozen=True)
class PoolFaces:
    """Which faces succeed, fail or are suspense, as a ruleset's check procedure says."""

    success: frozenset[int]
    suspense: frozenset[int]
    failure: frozenset[int]
    sides: int = 6

    @classmethod
    def from_ruleset(cls, faces: dict[str, Sequence[int]], sides: int = 6) -> PoolFaces:
        """Build from the `faces:` table of a check procedure."""
        return cls(
            success=frozenset(faces.get("success", ())),
            suspense=frozenset(faces.get("suspense", ())),
            failure=frozenset(faces.get("failure", ())),
            sides=sides,
        )


@dataclass
class PoolResult:
    """What a pool check rolled, round by round, and how many successes it made."""

    label: str
    dice: int
    rounds: list[list[int]] = field(default_factory=list)
    rerolled: list[list[tuple[int, ...]]] = field(default_factory=list)  # dice picked up, paired
    totals: list[int] = field(default_factory=list)  # successes after each round

    def __init__(
        self,
        label: str,
        dice: int,
        rounds: list[list[int]] | None = None,
        rerolled: list[list[tuple[int, ...]]] | None = None,
        totals: list[int] | None = None,
    ) -> None:
        # Written out for mypyc (runtime/native.py): made hundreds of times a game.
        self.label = label
        self.dice = dice
        self.rounds = [] if rounds is None else rounds
        self.rerolled = [] if rerolled is None else rerolled
        self.totals = [] if totals is None else totals

    @property
    def successes(self) -> int:
        """Successes set aside in the end."""
        return self.totals[-1] if self.totals else 0

    def explain(self) -> str:
        """The log line: `check focus (4 dice): 1 4 5 6 → 2 successes; suspense: ...`."""
        if not self.rounds:
            return f"{self.label} (0 dice): nothing to roll → 0 successes"
        parts = [
            f"{self.label} ({_count(self.dice, 'die', 'dice')}): "
            f"{_faces(self.rounds[0])} → {_count(self.totals[0], 'success', 'successes')}"
        ]
        for picked, faces, total in zip(
            self.rerolled, self.rounds[1:], self.totals[1:], strict=True
        ):
            pairs = ", ".join(" and ".join(map(str, pair)) for pair in picked)
            parts.append(
                f"suspense: re-roll {pairs} → {_faces(faces)} → "
                f"{_count(total, 'success', 'successes')}"
            )
        return "; ".join(parts)


def _faces(faces: Sequence[int]) -> str:
    return " ".join(map(str, faces))


def _count(number: int, one: str, many: str) -> str:
    return f"{number} {one if number == 1 else many}"


def roll_pool(dice: int, faces: PoolFaces, source: DiceSource, label: str) -> PoolResult:
    """Roll a pool check with suspense re-rolls, exactly as docs/coma-ward.md reads the rule."""
    dice = pool_size(dice, label)
    result = PoolResult(label=label, dice=dice)
    if dice == 0:
        return result
    successes = 0
    failed: list[int] = []  # faces of failed dice still on the table
    roll, sides = source.roll, faces.sides
    success, suspended, failure = faces.success, faces.suspense, faces.failure
    current = [roll(sides) for _ in range(dice)]
    picked: list[tuple[int, ...]] = []
    for _ in range(MAX_REROLL_ROUNDS):
        result.rounds.append(current)
        if picked:
            result.rerolled.append(picked)
        suspense: list[int] = []
        # One pass over the faces sorts them (each test apart: a face of two kinds, which a
        # ruleset's check refuses, would count as both, as it always has).
        for face in current:
            if face in success:
                successes += 1
            if face in suspended:
                suspense.append(face)
            if face in failure:
                failed.append(face)
        result.totals.append(successes)
        if not suspense:
            return result
        # Each suspense die is picked up with one failed die, while failed dice last.
        partners, failed = failed[: len(suspense)], failed[len(suspense) :]
        picked = _pairs(suspense, partners)
        current = [roll(sides) for pair in picked for _ in pair]
    raise EndlessSuspense(label, MAX_REROLL_ROUNDS)


def _pairs(suspense: list[int], partners: list[int]) -> list[tuple[int, ...]]:
    return [
        (face, partners[index]) if index < len(partners) else (face,)
        for index, face in enumerate(suspense)
    ]


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
