"""Two sweeps of the same seats and seed, one a variant of the other's pack: the difference of
every figure, with its confidence interval.

A mean's difference has the normal interval of two independent means (each variance worked out
exactly from its counts); a share's, that of two independent shares. An interval that does not
hold 0 is a difference the games show, at that confidence, rather than chance.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping

from runtime.simulation.figures import Figures
from runtime.simulation.totals import Totals

Z = 1.96
"""Standard deviations of a 95 % interval."""

DIGITS = 6


def mean_difference(base: Mapping[int, int], other: Mapping[int, int]) -> Figures:
    """Other's mean less base's, of values given as value -> how many times, with its
    interval; None where either has no value."""
    (n1, m1, v1), (n2, m2, v2) = _moments(base), _moments(other)
    if m1 is None or m2 is None:
        return {"base": m1, "other": m2, "difference": None, "low": None, "high": None}
    half = Z * math.sqrt(v1 / n1 + v2 / n2)
    return _entry(m1, m2, half, n1, n2)


def share_difference(base: tuple[int, int], other: tuple[int, int]) -> Figures:
    """Other's share less base's, each given as (count, out of), with its interval."""
    (c1, n1), (c2, n2) = base, other
    if not n1 or not n2:
        return {"base": None, "other": None, "difference": None, "low": None, "high": None}
    p1, p2 = c1 / n1, c2 / n2
    half = Z * math.sqrt(p1 * (1 - p1) / n1 + p2 * (1 - p2) / n2)
    return _entry(p1, p2, half, n1, n2)


def _entry(first: float, second: float, half: float, n1: int, n2: int) -> Figures:
    difference = second - first
    return {
        "base": round(first, DIGITS),
        "other": round(second, DIGITS),
        "difference": round(difference, DIGITS),
        "low": round(difference - half, DIGITS),
        "high": round(difference + half, DIGITS),
        "counts": [n1, n2],
    }


def _moments(counts: Mapping[int, int]) -> tuple[int, float | None, float]:
    """How many values, their mean and their (sample) variance."""
    n = sum(counts.values())
    if not n:
        return 0, None, 0.0
    mean = sum(v * c for v, c in counts.items()) / n
    squares = sum(c * (v - mean) ** 2 for v, c in counts.items())
    return n, mean, squares / (n - 1) if n > 1 else 0.0


def _shares(base: Counter[str], n1: int, other: Counter[str], n2: int) -> Figures:
    return {
        value: share_difference((base[value], n1), (other[value], n2))
        for value in sorted({*base, *other})
    }


def compare(base: Totals, other: Totals, players: int) -> Figures:
    """The difference of every figure of two sweeps of `players` seats (other less base),
    with its interval."""
    n1, n2 = base.played, other.played
    return {
        "phases": {
            phase: {
                "rounds": mean_difference(base.rounds.get(phase, {}), other.rounds.get(phase, {})),
                "turns": mean_difference(base.turns.get(phase, {}), other.turns.get(phase, {})),
            }
            for phase in sorted({*base.rounds, *other.rounds})
        },
        "results": _shares(base.results, n1, other.results, n2),
        "stopped": _shares(base.stopped, n1, other.stopped, n2),
        "labels": {
            label: _shares(
                base.labels.get(label, Counter()),
                sum(base.labels.get(label, Counter()).values()),
                other.labels.get(label, Counter()),
                sum(other.labels.get(label, Counter()).values()),
            )
            for label in sorted({*base.labels, *other.labels})
        },
        "tallies": {
            name: mean_difference(
                _zeros(base.tallies.get(name, Counter()), n1),
                _zeros(other.tallies.get(name, Counter()), n2),
            )
            for name in sorted({*base.tallies, *other.tallies})
        },
        "deaths": {
            "per game": mean_difference(base.deaths, other.deaths),
            "round": mean_difference(base.death_rounds, other.death_rounds),
        },
        "stats at end": {
            stat: mean_difference(base.stat_ends.get(stat, {}), other.stat_ends.get(stat, {}))
            for stat in sorted({*base.stat_ends, *other.stat_ends})
        },
        "win rate by seat": [
            share_difference((base.wins[seat], base.decided), (other.wins[seat], other.decided))
            for seat in range(players)
        ],
        "cards: games drawn in": {
            title: share_difference((_drawn(base, title), n1), (_drawn(other, title), n2))
            for title in sorted({*base.cards, *other.cards})
        },
    }


def _zeros(counts: Counter[int], games: int) -> Counter[int]:
    return counts + Counter({0: games - sum(counts.values())})


def _drawn(totals: Totals, title: str) -> int:
    card = totals.cards.get(title)
    return card.games if card is not None else 0
