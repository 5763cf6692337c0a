"""The ladder: the same seeds played under rungs of policies, weakest first, and what a designer
reads from them: each rung's win rate with its 95 % interval, over every game and for each value
of the label the game breaks its figures down by (`game: breakdown:`, in the game's own words),
the gap the best rung opens over random seats, first-seat advantage, duration, deaths, and
flags.

A rung is every seat played by one policy. Random seats are a floor, not a forecast: what is
lost under random seats and won under search is hard, not broken; what is lost under every rung
may be unwinnable; what is won under every rung offers no challenge; and where the best rung
does no better than random, the decisions do not seem to matter. The figures of each rung are
the sweep's own (`runtime.simulation.figures`); this only reads them side by side.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from runtime.simulation.figures import DIGITS, Figures
from runtime.simulation.intervals import share_interval

Z95 = 1.959964
"""Standard deviations of a two-sided 95 % interval."""

SKILL_GAP = 0.05
"""A best rung less than this above random: the decisions do not seem to matter."""

NO_CHALLENGE = 0.95
"""A win rate at least this under every rung, random seats included: no challenge."""

FEWEST_TO_FLAG = 10
"""Games a value of the breakdown must have under each rung before its flags are read: fewer
say nothing."""

DEFAULT_RUNGS = ("random", "greedy", "mcts:8", "mcts:16")
"""The ladder's rungs unless others are asked for: a floor, one step of lookahead, and search
at two budgets."""

FLOOR = (
    "random seats are a floor, not a forecast: read how hard a game is from the best rung, "
    "and whether its decisions matter from the gap"
)


def _round(value: float) -> float:
    return round(value, DIGITS)


def rate(won: int, games: int) -> Figures:
    """A win rate with its count and 95 % Wilson interval."""
    low, high = share_interval(won, games, Z95)
    return {
        "games": games,
        "won": won,
        "win rate": _round(won / games) if games else None,
        "interval": [_round(low), _round(high)],
    }


def _count(entries: Mapping[str, Any], key: str) -> int:
    entry = entries.get(key)
    return int(entry["count"]) if entry else 0


def first_seat_advantage(seats: Figures) -> float | None:
    """The first seat's win rate less the mean of the others' (None with one seat or no game
    decided)."""
    by_seat = seats.get("by seat") or []
    if len(by_seat) < 2 or not seats.get("games"):
        return None
    rates = [entry["win rate"] for entry in by_seat]
    return _round(rates[0] - sum(rates[1:]) / (len(rates) - 1))


def _rounds(summary: Figures) -> float | None:
    """The rounds a game lasted on average, over every part of it."""
    means = [part["rounds"]["mean"] for part in summary["phases"].values()]
    return _round(sum(means)) if means and None not in means else None


def rung_figures(summary: Figures) -> Figures:
    """What the ladder reads of one rung's sweep."""
    played = summary["played"]
    stopped = summary["stopped"]
    return {
        **rate(_count(summary["results"], "won"), played),
        "lost": _count(summary["results"], "lost"),
        "round limit": _count(stopped, "round limit"),
        "rounds": _rounds(summary),
        "deaths per game": summary["deaths"]["per game"]["mean"],
        "first seat advantage": first_seat_advantage(summary["seats"]),
        "policies": summary["policies"],
    }


def breakdown_figures(summary: Figures, label: str) -> dict[str, Figures]:
    """The win rate of each value of the breakdown label under one rung."""
    entry = summary["labels"].get(label)
    if entry is None:
        return {}
    results = entry.get("results", {})
    out = {}
    for value, counted in entry["values"].items():
        ended = results.get(value, {})
        out[value] = {
            **rate(_count(ended, "won"), counted["count"]),
            "lost": _count(ended, "lost"),
            "cut short": _count(ended, "none"),
        }
    return out


def flags(rungs: Sequence[str], by_rung: Mapping[str, Figures], overall: bool) -> list[str]:
    """What a designer should look at, in words: lost or won under every rung, a best rung no
    better than random, games cut short."""
    shown = [rung for rung in rungs if by_rung.get(rung, {}).get("games")]
    if not shown:
        return []
    fewest = min(by_rung[rung]["games"] for rung in shown)
    if not overall and (len(shown) < len(rungs) or fewest < FEWEST_TO_FLAG):
        return [f"too few games to flag (at least {FEWEST_TO_FLAG} a rung; {fewest} here)"]
    out = []
    if all(by_rung[rung]["won"] == 0 for rung in shown):
        if any(by_rung[rung]["lost"] for rung in shown):
            out.append("lost under every rung: unwinnable?")
        else:
            out.append("no game reached an end under any rung")
    rates = {rung: by_rung[rung]["win rate"] for rung in shown}
    if all(r >= NO_CHALLENGE for r in rates.values()):
        out.append("won under every rung: no challenge?")
    gap = skill_gap(rungs, by_rung)
    if gap is not None and gap < SKILL_GAP and not out:
        out.append(f"the best rung is {gap * 100:.1f} points above random: do decisions matter?")
    key = "round limit" if overall else "cut short"
    for rung in shown:
        cut = by_rung[rung].get(key, 0)
        if cut:
            out.append(f"{cut} of {by_rung[rung]['games']} games under {rung} hit the round limit")
    return out


def skill_gap(rungs: Sequence[str], by_rung: Mapping[str, Figures]) -> float | None:
    """The best rung's win rate less the first rung's (random seats, the floor)."""
    shown = [rung for rung in rungs if by_rung.get(rung, {}).get("games")]
    if len(shown) < 2 or rungs[0] not in shown:
        return None
    floor = by_rung[rungs[0]]["win rate"]
    return _round(max(by_rung[rung]["win rate"] for rung in shown) - floor)


def ladder(rungs: Sequence[tuple[str, Figures]], breakdown: str | None) -> Figures:
    """The ladder of sweeps played on the same seeds, one a rung, weakest first."""
    names = [name for name, _ in rungs]
    first = rungs[0][1]
    overall = {name: rung_figures(summary) for name, summary in rungs}
    per_value: dict[str, dict[str, Figures]] = {}
    if breakdown is not None:
        for name, summary in rungs:
            for value, figures in breakdown_figures(summary, breakdown).items():
                per_value.setdefault(value, {})[name] = figures
    return {
        "games": first["games"],
        "players": first["players"],
        "seed": first["seed"],
        "until": first["until"],
        "rungs": names,
        "note": FLOOR,
        "overall": {
            "by rung": overall,
            "skill gap": skill_gap(names, overall),
            "flags": flags(names, overall, overall=True),
        },
        "breakdown": breakdown,
        "values": {
            value: {
                "by rung": by_rung,
                "skill gap": skill_gap(names, by_rung),
                "flags": flags(names, by_rung, overall=False),
            }
            for value, by_rung in sorted(per_value.items())
        },
    }


def both_sides(base: Figures, other: Figures, label: str) -> Figures:
    """The win rate of each value of the breakdown label in two sweeps of the same seeds (a
    pack and its variant)."""
    ours, theirs = breakdown_figures(base, label), breakdown_figures(other, label)
    return {
        "label": label,
        "values": {
            value: {"base": ours.get(value), "other": theirs.get(value)}
            for value in sorted({*ours, *theirs})
        },
    }
