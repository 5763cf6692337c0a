"""The figures of a sweep: records of many games summed up, every figure with its count.

Aggregation sorts the records by game index first and uses nothing but that order, so the
figures of a seed are the same, to the last digit, however the games were split among workers.
The figures are plain data (the `--json` of `pillbox simulate`); names in them are the game's
own (its phases, labels, stats, cards), never the engine's.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from runtime.simulation.record import OUTSIDE_CARDS, GameRecord, Sweep

Figures = dict[str, Any]

DIGITS = 6
"""Decimals kept of every mean, share and rate (the JSON is then the same on every machine)."""

NO_RESULT = "none"
"""The result of a game played to a phase that has no winner."""


def spread(values: Sequence[float]) -> Figures:
    """Mean, median and 90th percentile (nearest rank) of some values, with their count."""
    if not values:
        return {"count": 0, "mean": None, "median": None, "p90": None}
    ordered = sorted(values)
    rank = max(1, math.ceil(0.9 * len(ordered)))
    return {
        "count": len(ordered),
        "mean": _round(math.fsum(ordered) / len(ordered)),
        "median": _round(float(statistics.median(ordered))),
        "p90": _round(float(ordered[rank - 1])),
    }


def histogram(values: Iterable[int]) -> dict[str, int]:
    """How many times each whole number comes up, the numbers in increasing order."""
    return {str(n): c for n, c in sorted(Counter(values).items())}


def shares(counts: Mapping[str, int], total: int) -> Figures:
    """Each value's count and share of `total`, the values in sorted order."""
    return {
        value: {"count": counts[value], "share": _round(counts[value] / total) if total else None}
        for value in sorted(counts)
    }


def share_interval(count: int, total: int, z: float) -> tuple[float, float]:
    """The Wilson score interval of a share at `z` standard deviations (2.576 for 99 %)."""
    if total == 0:
        return 0.0, 1.0
    share = count / total
    middle = (share + z * z / (2 * total)) / (1 + z * z / total)
    half = z * math.sqrt(share * (1 - share) / total + z * z / (4 * total * total))
    return max(0.0, middle - half / (1 + z * z / total)), min(
        1.0, middle + half / (1 + z * z / total)
    )


def figures(sweep: Sweep, records: Iterable[GameRecord]) -> Figures:
    """Every figure of a sweep from the records of its games (in any order)."""
    ordered = sorted(records, key=lambda r: r.index)
    played = [r for r in ordered if r.error is None]
    return {
        "games": len(ordered),
        "played": len(played),
        "seed": sweep.seed,
        "players": sweep.players,
        "policies": list(sweep.policies),
        "until": sweep.until,
        "failed": [
            {"index": r.index, "seed": r.seed, "error": r.error} for r in ordered if r.error
        ],
        "phases": _phases(played),
        "results": shares(Counter(r.result or NO_RESULT for r in played), len(played)),
        "stopped": shares(Counter(r.stopped for r in played if r.stopped), len(played)),
        "labels": _labels(played),
        "tallies": {
            name: spread([r.tallies.get(name, 0) for r in played])
            for name in sorted({n for r in played for n in r.tallies})
        },
        "deaths": _deaths(played),
        "stats": _stats(played),
        "seats": _seats(sweep, played),
        "cards": _cards(played),
    }


def _round(value: float) -> float:
    return round(value, DIGITS)


def _phases(played: Sequence[GameRecord]) -> Figures:
    names = sorted({p for r in played for p in (*r.rounds, *r.turns)})
    return {
        phase: {
            "rounds": spread([r.rounds[phase] for r in played if phase in r.rounds]),
            "games by rounds": histogram(r.rounds[phase] for r in played if phase in r.rounds),
            "turns": spread([r.turns[phase] for r in played if phase in r.turns]),
        }
        for phase in names
    }


def _labels(played: Sequence[GameRecord]) -> Figures:
    """Per label, the share of each value over the games that have the label, and how the
    games of each value ended."""
    out: Figures = {}
    for label in sorted({name for r in played for name in r.labels}):
        having = [r for r in played if label in r.labels]
        values = Counter(r.labels[label] for r in having)
        entry = {"games": len(having), "values": shares(values, len(having))}
        if any(r.result for r in having):
            entry["results"] = {
                value: shares(
                    Counter(r.result or NO_RESULT for r in having if r.labels[label] == value),
                    values[value],
                )
                for value in sorted(values)
            }
        out[label] = entry
    return out


def _deaths(played: Sequence[GameRecord]) -> Figures:
    rounds = [d for r in played for d in r.death_rounds]
    return {
        "per game": spread([len(r.death_rounds) for r in played]),
        "round": spread(rounds),
        "by round": histogram(rounds),
    }


def _stats(played: Sequence[GameRecord]) -> Figures:
    """Per stat: the mean over living seats at the end of each round, and at the game's end."""
    out: Figures = {}
    for stat in sorted({s for r in played for s in r.stat_rounds}):
        by_round: list[list[int]] = []
        for record in played:
            for number, values in enumerate(record.stat_rounds.get(stat, [])):
                while len(by_round) <= number:
                    by_round.append([])
                by_round[number].extend(values)
        last = [v for r in played if r.stat_rounds.get(stat) for v in r.stat_rounds[stat][-1]]
        out[stat] = {
            "by round": [{"round": n + 1, **_mean(values)} for n, values in enumerate(by_round)],
            "at end": spread(last),
        }
    return out


def _mean(values: Sequence[int]) -> Figures:
    return {
        "count": len(values),
        "mean": _round(math.fsum(values) / len(values)) if values else None,
    }


def _seats(sweep: Sweep, played: Sequence[GameRecord]) -> Figures:
    """Wins per seat and the balance, 1 − the largest gap between two seats' win rates."""
    decided = [r for r in played if r.result is not None]
    wins = Counter(seat for r in decided for seat in r.winners)
    rates = [wins[seat] / len(decided) if decided else 0.0 for seat in range(sweep.players)]
    return {
        "games": len(decided),
        "by seat": [
            {"seat": seat + 1, "policy": policy, "wins": wins[seat], "win rate": _round(rate)}
            for seat, (policy, rate) in enumerate(zip(sweep.policies, rates, strict=True))
        ],
        "balance": _round(1 - (max(rates) - min(rates))) if decided else None,
    }


def _cards(played: Sequence[GameRecord]) -> Figures:
    """Per card: times drawn, the mean change of each stat per draw, the deaths it caused."""
    deaths = sum(len(r.death_rounds) for r in played)
    out: Figures = {}
    for title in sorted({t for r in played for t in r.cards}):
        tallies = [r.cards[title] for r in played if title in r.cards]
        drawn = sum(t.drawn for t in tallies)
        changes: Counter[str] = Counter()
        for tally in tallies:
            changes.update(tally.changes)
        caused = sum(t.deaths for t in tallies)
        out[title or OUTSIDE_CARDS] = {
            "drawn": drawn,
            "games": sum(1 for t in tallies if t.drawn),
            "change per draw": {
                stat: _round(changes[stat] / drawn) if drawn else None for stat in sorted(changes)
            },
            "change": dict(sorted(changes.items())),
            "deaths": caused,
            "death share": _round(caused / deaths) if deaths else None,
        }
    return out
