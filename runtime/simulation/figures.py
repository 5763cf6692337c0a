"""The figures of a sweep: its totals as plain data, every figure with its count.

Every figure is worked out from counts of values (`totals.Totals`), with whole-number sums
until the last division, so the figures of a seed are the same to the last digit however the
games were split among workers. The figures are the `--json` of `pillbox simulate`; the names
in them are the game's own (its phases, labels, stats, cards), never the engine's.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from typing import Any

from runtime.simulation.record import Sweep
from runtime.simulation.totals import Totals

Figures = dict[str, Any]

DIGITS = 6
"""Decimals kept of every mean, share and rate (the JSON is then the same on every machine)."""


def spread(counts: Mapping[int, int]) -> Figures:
    """Mean, median and 90th percentile (nearest rank) of values given as value -> how many
    times, with their count."""
    count = sum(counts.values())
    if not count:
        return {"count": 0, "mean": None, "median": None, "p90": None}
    ordered = sorted(counts.items())

    def nth(rank: int) -> int:  # the value at a rank, the first rank 1
        seen = 0
        for value, times in ordered:
            seen += times
            if seen >= rank:
                return value
        return ordered[-1][0]

    middle = (nth((count + 1) // 2) + nth(count // 2 + 1)) / 2
    return {
        "count": count,
        "mean": _round(sum(v * t for v, t in ordered) / count),
        "median": _round(middle),
        "p90": _round(float(nth(max(1, math.ceil(0.9 * count))))),
    }


def histogram(counts: Mapping[int, int]) -> dict[str, int]:
    """How many times each whole number comes up, the numbers in increasing order."""
    return {str(n): c for n, c in sorted(counts.items())}


def shares(counts: Mapping[str, int], total: int) -> Figures:
    """Each value's count and share of `total`, the values in sorted order."""
    return {
        value: {"count": counts[value], "share": _round(counts[value] / total) if total else None}
        for value in sorted(counts)
    }


def figures(sweep: Sweep, totals: Totals) -> Figures:
    """Every figure of a sweep from its totals."""
    played = totals.played
    return {
        "games": totals.games,
        "played": played,
        "seed": sweep.seed,
        "players": sweep.players,
        "policies": list(sweep.policies),
        "until": sweep.until,
        "to the end": bool(sweep.phases) and sweep.until == sweep.phases[-1],
        # the first failed games (games - played counts them all), so a sweep whose every
        # game fails does not print, nor hold, one entry a game
        "failed": [{"index": f.index, "seed": f.seed, "error": f.error} for f in totals.failures],
        "phases": {
            phase: {
                "rounds": spread(totals.rounds.get(phase, {})),
                "games by rounds": histogram(totals.rounds.get(phase, {})),
                "turns": spread(totals.turns.get(phase, {})),
            }
            for phase in _in_order({*totals.rounds, *totals.turns}, sweep.phases)
        },
        "results": shares(totals.results, played),
        "stopped": shares(totals.stopped, played),
        "labels": _labels(totals),
        "tallies": {
            name: spread(_with_zeros(counts, played))
            for name, counts in sorted(totals.tallies.items())
        },
        "deaths": {
            "per game": spread(totals.deaths),
            "round": spread(totals.death_rounds),
            "by round": histogram(totals.death_rounds),
        },
        "stats": _stats(totals),
        "seats": _seats(sweep, totals),
        "cards": _cards(totals),
    }


def _round(value: float) -> float:
    return round(value, DIGITS)


def _with_zeros(counts: Counter[int], games: int) -> Counter[int]:
    """A game's own count, the games that did not give it counted as 0."""
    return counts + Counter({0: games - sum(counts.values())})


def _labels(totals: Totals) -> Figures:
    """Per label, the share of each value over the games that have the label, and how the
    games of each value ended when they have a result."""
    out: Figures = {}
    for label, values in sorted(totals.labels.items()):
        games = sum(values.values())
        entry: Figures = {"games": games, "values": shares(values, games)}
        results = {
            value: shares(totals.label_results[(label, value)], values[value])
            for value in sorted(values)
            if (label, value) in totals.label_results
        }
        if results:
            entry["results"] = results
        out[label] = entry
    return out


def _stats(totals: Totals) -> Figures:
    """Per stat: the mean over living seats at the end of each round, and at the game's end."""
    return {
        stat: {
            "by round": [
                {"round": number, "count": count, "mean": _round(total / count) if count else None}
                for number, (total, count) in sorted(rounds.items())
            ],
            "at end": spread(totals.stat_ends.get(stat, {})),
        }
        for stat, rounds in sorted(totals.stat_rounds.items())
    }


def _seats(sweep: Sweep, totals: Totals) -> Figures:
    """Wins per seat and the balance, 1 − the largest gap between two seats' win rates."""
    decided = totals.decided
    rates = [totals.wins[seat] / decided if decided else 0.0 for seat in range(sweep.players)]
    return {
        "games": decided,
        "by seat": [
            {
                "seat": seat + 1,
                "policy": policy,
                "wins": totals.wins[seat],
                "win rate": _round(rate),
            }
            for seat, (policy, rate) in enumerate(zip(sweep.policies, rates, strict=True))
        ],
        "balance": _round(1 - (max(rates) - min(rates))) if decided else None,
    }


def _cards(totals: Totals) -> Figures:
    """Per card: times drawn, the mean change of each stat per draw, the deaths it caused."""
    deaths = sum(totals.death_rounds.values())
    out: Figures = {}
    for title, card in sorted(totals.cards.items()):
        out[title] = {
            "drawn": card.drawn,
            "games": card.games,
            "change per draw": {
                stat: _round(card.changes[stat] / card.drawn) if card.drawn else None
                for stat in sorted(card.changes)
            },
            "change": dict(sorted(card.changes.items())),
            "deaths": card.deaths,
            "death share": _round(card.deaths / deaths) if deaths else None,
        }
    return out


def _in_order(phases: set[str], order: tuple[str, ...]) -> list[str]:
    """The phases played, in the game's order (any it does not name, after, by name)."""
    return [p for p in order if p in phases] + sorted(phases - set(order))
