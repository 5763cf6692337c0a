"""A figure of a sweep and its band: what tune aims at, and what test --balance holds a pack to.

A target is written `[VALUE:] FIGURE BAND`, the band `LOW..HIGH`, `<= HIGH` or `>= LOW`, in
the figure's unit, `%` or `points` (hundredths of a share) for a share:

- `won 40..60%`: the share of games whose result is `won` (any result the game names);
- `High Water: won 40..60%`: the same among the games whose breakdown value (the label the
  ruleset's `game: breakdown:` names, such as the card a game was played against) is
  `High Water`;
- `seat 2 won 20..30%`: the share of the games that ended (won or lost) that seat 2 won;
- `first seat advantage <= 5 points`: the first seat's share of wins less the mean of the
  others' (in a game the seats win together, 0);
- `phases.game.rounds.mean 6..10`: any number of the sweep's JSON figures, by its path.

A share (and the first seat's advantage) is read with its 95 % interval, and met when the whole
interval lies in the band; any other figure is met when its value does (the figures carry no
spread to make an interval of). How far a figure is from its band is what the search makes
small.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from runtime.simulation.intervals import share_interval

Z95 = 1.96
"""Standard deviations of a 95 % interval."""

RESULTS = ("won", "lost")
"""How every game may end: a share of either is a target even where no game of a sweep did."""

_NUMBER = r"-?\d+(?:\.\d+)?"
_TARGET_RE = re.compile(
    r"^\s*(?:(?P<scope>[^:]+?)\s*:\s*)?(?P<figure>[^\s].*?)\s+"
    rf"(?:(?P<low>{_NUMBER})\s*\.\.\s*(?P<high>{_NUMBER})|(?P<bound><=|>=)\s*(?P<edge>{_NUMBER}))"
    r"\s*(?P<unit>%|points?)?\s*$"
)
_SEAT_RE = re.compile(r"seat (?P<seat>\d+) won")
FIRST_SEAT_ADVANTAGE = "first seat advantage"
SEAT_FIGURES = "seat N won, first seat advantage"


class TargetError(ValueError):
    """A target that cannot be read, or names a figure the sweep does not have."""


@dataclass(frozen=True)
class Target:
    """A figure and its band (shares as fractions, 0.4..0.6 for `40..60%`)."""

    text: str
    figure: str
    low: float  # -inf for `<= HIGH`
    high: float  # inf for `>= LOW`
    scope: str | None = None
    percent: bool = False  # a share, written in % or in points
    points: bool = False  # written in points: a difference of shares

    def describe(self, value: float) -> str:
        """A value of this target's figure as the target writes it."""
        if self.points:
            return f"{value * 100:+.1f} points"
        return f"{value * 100:.1f} %" if self.percent else f"{value:.2f}"


@dataclass(frozen=True)
class Reading:
    """A target's figure in one sweep: its value, its interval, and how far it is from the band."""

    target: Target
    value: float
    low: float
    high: float
    games: int

    @property
    def met(self) -> bool:
        """Whether the interval lies inside the band."""
        return self.target.low <= self.low and self.high <= self.target.high

    @property
    def left(self) -> bool:
        """Whether the figure is outside the band with confidence: its whole interval is."""
        return self.high < self.target.low or self.low > self.target.high

    @property
    def distance(self) -> float:
        """How far the value is outside the band, plus how far the interval reaches out of it:
        0 when met. In the figure's own unit (a share's fraction)."""
        outside = max(self.target.low - self.value, self.value - self.target.high, 0.0)
        reach = max(self.target.low - self.low, 0.0) + max(self.high - self.target.high, 0.0)
        return outside + reach / 4

    def aim(self, games: int) -> float:
        """How far the value is from the part of the band where a sweep of `games` games
        would have its interval inside (0 there): the same yardstick whatever this reading's
        own games. A short sweep's interval is wide, and a share's is widest mid-range, so
        ranking short sweeps by `distance` favoured values near an edge of the band over
        values well inside it."""
        half = (self.high - self.low) / 2
        if self.games > 0 and games > 0:
            half *= math.sqrt(self.games / games)
        low, high = self.target.low + half, self.target.high - half
        if low > high:  # a band narrower than the interval: its middle
            low = high = (self.target.low + self.target.high) / 2
        return max(low - self.value, self.value - high, 0.0)

    def shown(self) -> str:
        """The value with its interval, as the target writes it."""
        if self.low == self.high:
            return self.target.describe(self.value)
        return (
            f"{self.target.describe(self.value)} "
            f"[{self.target.describe(self.low)}, {self.target.describe(self.high)}]"
        )


def parse_target(text: str) -> Target:
    """A target from its text (TargetError if it does not read as one)."""
    found = _TARGET_RE.match(text)
    if found is None:
        raise TargetError(
            f"target {text!r}: write [VALUE:] FIGURE LOW..HIGH[%], FIGURE <= HIGH or "
            "FIGURE >= LOW, e.g. 'won 40..60%', 'first seat advantage <= 5 points'"
        )
    if found["bound"] == "<=":
        low, high = -math.inf, float(found["edge"])
    elif found["bound"] == ">=":
        low, high = float(found["edge"]), math.inf
    else:
        low, high = float(found["low"]), float(found["high"])
    unit = found["unit"] or ""
    percent = unit != ""
    if percent:
        low, high = low / 100, high / 100
    if low > high:
        raise TargetError(
            f"target {text!r}: its band runs from {found['low']} down to {found['high']}"
        )
    figure = found["figure"].strip()
    seat_figure = figure == FIRST_SEAT_ADVANTAGE or _SEAT_RE.fullmatch(figure) is not None
    if seat_figure and found["scope"] is not None:
        raise TargetError(
            f"target {text!r}: a seat's wins are read over every game, not for one "
            f"{found['scope']!r}"
        )
    return Target(
        text.strip(), figure, low, high, found["scope"], percent, points=unit.startswith("point")
    )


def read(
    target: Target, summary: Mapping[str, Any], breakdown: str | None, z: float = Z95
) -> Reading:
    """The target's figure in a sweep's figures (TargetError if it has none such); a share's
    interval is `z` standard deviations wide (95 % unless told)."""
    if target.figure == FIRST_SEAT_ADVANTAGE or _SEAT_RE.fullmatch(target.figure):
        return _seat_reading(target, summary, z)
    results = _results(target, summary, breakdown)
    if results is not None:
        games = sum(results.values())
        count = results.get(target.figure, 0)
        low, high = share_interval(count, games, z)
        return Reading(target, count / games if games else 0.0, low, high, games)
    value = _path(target, summary)
    return Reading(target, value, value, value, int(summary.get("played", 0)))


def _seat_reading(target: Target, summary: Mapping[str, Any], z: float) -> Reading:
    """A seat's share of the games that ended, or the first seat's advantage over the mean of
    the others, with its interval (a game's winner counted as one draw from the seats and
    "no one": the advantage's variance is that of a weighted sum of a multinomial's shares;
    where seats win together it errs wide)."""
    seats = summary.get("seats") or {}
    wins = [int(entry["wins"]) for entry in seats.get("by seat", [])]
    decided = int(seats.get("games") or 0)
    seat = _SEAT_RE.fullmatch(target.figure)
    if seat is not None:
        number = int(seat["seat"])
        if not 1 <= number <= len(wins):
            raise TargetError(
                f"target {target.text!r}: the sweep has seats 1 to {len(wins)}, not {number}"
            )
        low, high = share_interval(wins[number - 1], decided, z)
        value = wins[number - 1] / decided if decided else 0.0
        return Reading(target, value, low, high, decided)
    if len(wins) < 2:
        raise TargetError(f"target {target.text!r}: one seat has no one to be ahead of")
    if not decided:
        return Reading(target, 0.0, -1.0, 1.0, 0)
    weights = [1.0] + [-1 / (len(wins) - 1)] * (len(wins) - 1)
    shares = [count / decided for count in wins]
    value = sum(w * p for w, p in zip(weights, shares, strict=True))
    second = sum(w * w * p for w, p in zip(weights, shares, strict=True))
    half = z * math.sqrt(max(second - value * value, 0.0) / decided)
    return Reading(target, value, value - half, value + half, decided)


def _results(
    target: Target, summary: Mapping[str, Any], breakdown: str | None
) -> Mapping[str, int] | None:
    """The counts of each result the target's share is of; None for a figure by path."""
    if target.scope is None:
        if "." in target.figure:
            return None
        counts = {name: row["count"] for name, row in summary.get("results", {}).items()}
        if target.figure not in counts and target.figure not in RESULTS:
            raise TargetError(
                f"target {target.text!r}: the games end {_listed(counts)}, not {target.figure!r}"
            )
        return counts
    if breakdown is None:
        raise TargetError(
            f"target {target.text!r}: this game's figures are broken down by nothing "
            "(its ruleset's game: has no breakdown:), so there is no "
            f"{target.scope!r} to read"
        )
    by_value = summary.get("labels", {}).get(breakdown, {}).get("results", {})
    if target.scope not in by_value:
        raise TargetError(
            f"target {target.text!r}: no game had {breakdown} {target.scope!r}; "
            f"the sweep had {_listed(by_value)}"
        )
    return {name: row["count"] for name, row in by_value[target.scope].items()}


def _path(target: Target, summary: Mapping[str, Any]) -> float:
    node: Any = summary
    for step in target.figure.split("."):
        if not isinstance(node, Mapping) or step not in node:
            raise TargetError(
                f"target {target.text!r}: the figures have no {target.figure!r} "
                "(see simulate --json for their paths)"
            )
        node = node[step]
    if isinstance(node, bool) or not isinstance(node, int | float):
        raise TargetError(f"target {target.text!r}: {target.figure!r} is not a number")
    return float(node)


def _listed(names: Sequence[str] | Mapping[str, Any]) -> str:
    shown = sorted(names)
    return ", ".join(repr(n) for n in shown) if shown else "nothing"


def distance(readings: Sequence[Reading]) -> float:
    """How far a sweep is from every band at once."""
    return sum(reading.distance for reading in readings)


def aim(readings: Sequence[Reading], games: int) -> float:
    """How far a sweep is from every band at once, on the yardstick of `games` games."""
    return sum(reading.aim(games) for reading in readings)
