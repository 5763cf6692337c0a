"""The Coma Ward pool check's dice: which faces succeed, are suspense or fail, and the roll.

The reading of the rule (docs/readings.md#coma-ward-pool-check), with its faces given as data by
the ruleset: roll as many dice as the pool; success faces are set aside, failure faces stay on
the table, and while any die shows a suspense face, each such die is rolled again together with
one failed die, if one is left. Re-rolling can only help, so it is always taken. Its exact odds
are `runtime.games.coma_ward_odds`; the check procedure that rolls it is
`runtime.games.coma_ward_pool`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from runtime.dice import DiceError, DiceSource, pool_size

MAX_REROLL_ROUNDS = 1000
"""A pool that still shows suspense after this many rounds is stopped as a runaway."""


class EndlessSuspense(DiceError):
    """A pool still showed suspense after the most rounds a roll may take."""

    def __init__(self, label: str, rounds: int) -> None:
        super().__init__(label, rounds)
        self.label, self.rounds = label, rounds

    def __str__(self) -> str:
        return f"{self.label}: suspense went on for {self.rounds} rounds"


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
    """Roll a pool check with suspense re-rolls, as docs/readings.md#coma-ward-pool-check reads
    the rule."""
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
