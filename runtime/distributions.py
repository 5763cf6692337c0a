"""Exact odds of the dice, as `Fraction`s: `roll NdS` totals, and the sums over outcomes.

A game's own way of reading dice (a pool with re-rolls) works out its odds in its game module
(runtime/games/), and has its cache forgotten with these (`forget_with`), so that a cold walk is
timed cold whatever the game.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from fractions import Fraction
from functools import lru_cache

Distribution = Mapping[int, Fraction] | tuple[Fraction, ...]
"""Outcome -> probability: a pool's tuple indexed by successes, or a roll's dict of totals."""


def roll_work(count: int, sides: int) -> int:
    """What working out the totals of `roll NdS` costs, in the odds walker's steps."""
    return count * count * sides // 1_000


_FORGOTTEN_WITH: list[Callable[[], None]] = []
"""The `cache_clear` of each game module's own cached odds, called by `clear_caches`."""


def forget_with(clear: Callable[[], None]) -> None:
    """Have `clear_caches` call `clear` too: a game module's own odds, cached, forgotten cold."""
    _FORGOTTEN_WITH.append(clear)


def clear_caches() -> None:
    """Forget every cached distribution and table, so the next call is computed cold."""
    _sum_distribution.cache_clear()
    for clear in _FORGOTTEN_WITH:
        clear()


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
