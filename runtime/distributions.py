"""Exact odds of the dice, as `Fraction`s: the pool check with suspense, and `roll NdS` totals.

The pool check is the one `runtime.dice.roll_pool` rolls (docs/coma-ward.md, "The pool check"), with
its faces taken from `PoolFaces`. Its suspense re-rolls can go on forever (a lone die may show
suspense again and again), so the odds are not a finite sum: they are the absorption
probabilities of a Markov chain, solved here exactly.

The chain is small because of a property of the rule. Call the dice not yet set aside the *live*
dice: the failed dice on the table plus the dice being rolled. When `c` of the rolled dice show
suspense and `n` dice are live after the roll, the next roll takes up `min(2c, n)` dice: each
suspense die, and one failed die for each while they last. So a state is just (live dice, dice
rolled), and the dice rolled are all the live dice or an even number of them. A roll that sets
nothing aside keeps the live dice, so the states sharing them form a *level*, which can loop on
itself but is never entered again once left. Levels are solved from the most live dice down,
each by one exact linear solve in integers (fraction-free Gaussian elimination); all the
numbers of the chain share one denominator, so no fraction is reduced until the end.
(`roll_pool` gives up after `MAX_REROLL_ROUNDS` rounds; the odds here leave that cap out, as a
pool that long is vanishingly unlikely: under 10**-600 for 30 dice with Coma Ward's faces.)

A face in none of the three sets makes `roll_pool` drop the die: neither a success nor a failed
die on the table. Such a die leaves the live dice just as a success does, and which of the two
it was changes nothing after; so the chain counts dice set aside either way, and each of them is
a success with the same odds, independently (a binomial thinning at the end).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from fractions import Fraction
from functools import lru_cache
from math import comb, gcd

from runtime.dice import PoolFaces, pool_size

Distribution = Mapping[int, Fraction] | tuple[Fraction, ...]
"""Outcome -> probability: a pool's tuple indexed by successes, or a roll's dict of totals."""

_Die = tuple[int, int, int, int]
"""How many faces of the die set it aside, are suspense, fail; and its sides."""

_Outcome = tuple[int, tuple[int, ...], tuple[int, ...]]
"""Rolls setting `a` dice aside: (a, ways with c suspense dice at index c, ways with c or more
at index c), the ways counted among sides**rolled."""


def pool_distribution(dice: int, faces: PoolFaces) -> tuple[Fraction, ...]:
    """P(exactly k successes) at index k, for a pool check of `dice` dice, suspense and all
    (PoolTooLarge past the most dice a pool check rolls)."""
    return _pool_distribution(pool_size(dice, "the pool"), faces)


def pool_work(dice: int) -> int:
    """What working out a pool's odds costs, in the odds walker's steps (`runtime.odds`).

    The chain's exact solve grows about as the sixth power of the dice (fraction-free
    elimination of ever longer integers): 30 dice take some 30 ms, 60 dice one to two seconds,
    about as long as a walk of 200,000 steps.
    """
    return dice**6 // 250_000


def roll_work(count: int, sides: int) -> int:
    """What working out the totals of `roll NdS` costs, in the odds walker's steps."""
    return count * count * sides // 1_000


@lru_cache(maxsize=256)
def _pool_distribution(dice: int, faces: PoolFaces) -> tuple[Fraction, ...]:
    if dice == 0:  # nothing rolled, as roll_pool rolls nothing
        return (Fraction(1),)
    success, suspense, failure, lost = _face_counts(faces)
    sides = faces.sides
    if suspense == 0:  # nothing is rolled again: each die succeeds or not, once
        return _thinned([Fraction(int(t == dice)) for t in range(dice + 1)], success, sides)
    numerators = _absorb(dice, (success + lost, suspense, failure, sides))
    denominator = numerators.pop()
    aside = [Fraction(numerator, denominator) for numerator in numerators]
    return tuple(aside) if not lost else _thinned(aside, success, success + lost)


def clear_caches() -> None:
    """Forget every cached distribution and table, so the next call is computed cold."""
    for cached in (_pool_distribution, _sum_distribution, _outcomes, _level):
        cached.cache_clear()


def check_outcomes(dice: int, faces: PoolFaces) -> list[tuple[int, Fraction]]:
    """(successes, probability) of a pool check, in order, leaving out the impossible."""
    return [(k, p) for k, p in enumerate(pool_distribution(dice, faces)) if p]


def sum_distribution(count: int, sides: int) -> dict[int, Fraction]:
    """P(total) of `roll NdS`: the faces of `count` dice of `sides` sides, added up."""
    return dict(roll_outcomes(count, sides))


def roll_outcomes(count: int, sides: int) -> list[tuple[int, Fraction]]:
    """(total, probability) of `roll NdS`, in order, leaving out the impossible."""
    if sides < 1:
        raise ValueError(f"a die needs at least one side, not {sides}")
    return list(_sum_distribution(max(count, 0), sides))


def at_least(dist: Distribution, k: int) -> Fraction:
    """P(outcome >= k)."""
    return ranges_probability(dist, k, None)


def ranges_probability(dist: Distribution, low: int, high: int | None) -> Fraction:
    """P(low <= outcome <= high); `high` None is an open range, as an outcome `N+` reads."""
    items: Iterable[tuple[int, Fraction]] = (
        enumerate(dist) if isinstance(dist, tuple) else dist.items()
    )
    return sum(
        (p for outcome, p in items if low <= outcome and (high is None or outcome <= high)),
        Fraction(0),
    )


@lru_cache(maxsize=256)
def _sum_distribution(count: int, sides: int) -> tuple[tuple[int, Fraction], ...]:
    ways = [1]  # ways[t] = how many ways the dice so far add up to t
    for _ in range(count):
        # One more die: ways to reach t are those to reach t - sides .. t - 1, a window of
        # the running sums, so a die costs one pass whatever its sides.
        running = [0]
        for number in ways:
            running.append(running[-1] + number)
        ways = [
            running[min(total, len(ways))] - running[max(total - sides, 0)]
            for total in range(len(ways) + sides)
        ]
    every = sides**count
    return tuple((total, Fraction(number, every)) for total, number in enumerate(ways) if number)


def _face_counts(faces: PoolFaces) -> tuple[int, int, int, int]:
    """Faces of the die that succeed, are suspense, fail, or are in no set (and are lost).

    A face in two sets is refused (the ruleset checker refuses it too), and so is a die whose
    every face is suspense, which would be rolled forever. Numbers off the die never show.
    """
    if faces.sides < 1:
        raise ValueError(f"a die needs at least one side, not {faces.sides}")
    on_die = range(1, faces.sides + 1)
    kinds = {"success": faces.success, "suspense": faces.suspense, "failure": faces.failure}
    seen: dict[int, str] = {}
    for kind, numbers in kinds.items():
        for face in sorted(n for n in numbers if n in on_die):
            if face in seen:
                raise ValueError(f"face {face} is both {seen[face]} and {kind}")
            seen[face] = kind
    success, suspense, failure = (sum(1 for n in s if n in on_die) for s in kinds.values())
    if suspense == faces.sides:
        raise ValueError("every face is suspense: the pool would be rolled again forever")
    return success, suspense, failure, faces.sides - len(seen)


def _thinned(aside: list[Fraction], success: int, out_of: int) -> tuple[Fraction, ...]:
    """P(k successes) when each of the dice set aside succeeds with odds success / out_of."""
    odds = [Fraction(0)] * len(aside)
    for total, p in enumerate(aside):
        if p:
            every = out_of**total
            for k in range(total + 1):
                ways = comb(total, k) * success**k * (out_of - success) ** (total - k)
                odds[k] += p * Fraction(ways, every)
    return tuple(odds)


def _rolled(live: int) -> list[int]:
    """The states of a level, by dice rolled: 2, 4, ... below the live dice, then all of them.

    All of them is the last state; any other number rolled is at index `rolled // 2 - 1`.
    """
    return [*range(2, live, 2), live]


def _size(live: int) -> int:
    return (live - 1) // 2 + 1


@lru_cache(maxsize=128)
def _outcomes(rolled: int, die: _Die) -> tuple[_Outcome, ...]:
    """The rolls of `rolled` dice, by dice set aside, then by suspense dice."""
    aside, suspense, failure, _ = die
    found = []
    for a in range(rolled + 1 if aside else 1):
        rest = rolled - a
        first = comb(rolled, a) * aside**a
        ways = tuple(
            first * comb(rest, c) * suspense**c * failure ** (rest - c) for c in range(rest + 1)
        )
        tails = list(ways)
        for c in range(rest - 1, -1, -1):
            tails[c] += tails[c + 1]
        found.append((a, ways, tuple(tails)))
    return tuple(found)


@lru_cache(maxsize=128)
def _level(live: int, die: _Die) -> tuple[tuple[int, ...], ...]:
    """The level's matrix B: visits v solve B (v / sides**rolled) = the mass coming in."""
    rolled_by_state = _rolled(live)
    size = len(rolled_by_state)
    matrix = [[0] * size for _ in range(size)]
    for i, rolled in enumerate(rolled_by_state):
        matrix[i][i] = die[3] ** rolled
        _, ways, _ = _outcomes(rolled, die)[0]  # nothing set aside: the same level again
        for c in range(1, len(ways)):
            matrix[min(c, size) - 1][i] -= ways[c]  # rolls min(2c, live) dice next
    return tuple(map(tuple, matrix))


def _absorb(dice: int, die: _Die) -> list[int]:
    """Numerators of P(0..dice dice set aside), then their common denominator, last."""
    denominator = 1
    final = [0] * (dice + 1)
    # pending[live] = numerators (over `denominator`) of the mass entering each state
    pending: dict[int, list[int]] = {dice: [0] * _size(dice)}
    pending[dice][-1] = 1
    for live in range(dice, 0, -1):
        entering = pending.pop(live, None)
        if entering is None:
            continue
        det, visits = _solve(_level(live, die), entering)
        common = gcd(det, *visits)  # a third of det's digits, often: keep the numbers short
        if common > 1:
            det //= common
            visits = [x // common for x in visits]
        # Everything still pending shares the denominator, which the solve multiplied by det.
        denominator *= det
        for row in pending.values():
            row[:] = [x * det for x in row]
        final[:] = [x * det for x in final]
        for rolled, mass in zip(_rolled(live), visits, strict=True):
            if mass:
                _leave(mass, dice - live, live, _outcomes(rolled, die), final, pending)
    return [*final, denominator]


def _leave(
    mass: int,
    aside: int,
    live: int,
    outcomes: tuple[_Outcome, ...],
    final: list[int],
    pending: dict[int, list[int]],
) -> None:
    """Send the mass of a state's visits where its rolls lead out of the level."""
    for a, ways, tails in outcomes:
        if ways[0]:  # no suspense: the check is over
            final[aside + a] += mass * ways[0]
        if a == 0 or len(ways) == 1:
            continue
        after = live - a  # each suspense die is rolled again with a failed die, if any
        row = pending.get(after)
        if row is None:
            row = pending[after] = [0] * _size(after)
        half = max((after + 1) // 2, 1)  # fewer suspense dice than this each take a partner
        for c in range(1, min(half, len(ways))):
            row[c - 1] += mass * ways[c]
        if half < len(ways):  # more: every live die is rolled
            row[-1] += mass * tails[half]


def _solve(matrix: tuple[tuple[int, ...], ...], column: list[int]) -> tuple[int, list[int]]:
    """det(B) and y with B y = det(B) x, in integers (Bareiss elimination).

    B is a nonsingular M-matrix with its columns scaled by positive numbers, so every leading
    minor is positive: no pivoting is needed, and det(B) > 0.
    """
    size = len(matrix)
    rows = [[*matrix[i], column[i]] for i in range(size)]
    previous = 1
    for k in range(size):
        pivot_row = rows[k]
        pivot = pivot_row[k]
        if pivot <= 0:  # pragma: no cover - impossible for a chain that ends
            raise ArithmeticError("a level of the pool's chain does not end")
        for i in range(k + 1, size):
            row = rows[i]
            factor = row[k]
            for j in range(k + 1, size + 1):
                row[j] = (row[j] * pivot - factor * pivot_row[j]) // previous
            row[k] = 0
        previous = pivot
    det = rows[-1][-2]
    solved = [0] * size
    for i in range(size - 1, -1, -1):
        row = rows[i]
        rest = sum(row[j] * solved[j] for j in range(i + 1, size))
        solved[i] = (det * row[size] - rest) // row[i]
    return det, solved
