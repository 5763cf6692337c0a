"""The report's charts as plain geometry: the template draws them as inline SVG.

A chart is one stacked column per value of the stat a block's checks roll: each column splits
into the block's outcomes by their odds at that value (decisions taken with even odds, so a
column always sums to 100 %). An outcome keeps its colour across the columns: red for what
hurts, green for what helps, grey for neither, darker the more it does; outcomes of the same
colour are told apart by lightness and a white gap between them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from fractions import Fraction

from compiler.odds import outcome_result
from compiler.report.analysis import BlockReport, Column, percent
from runtime.odds import Outcome

PLOT_HEIGHT = 132.0
LEFT = 34.0  # room for the percentages of the axis
TOP = 10.0
BOTTOM = 30.0  # room for the stat's values
GAP = 6.0
FLAT_WIDTH = 300.0  # the one bar of a block whose checks roll no stat
FLAT_HEIGHT = 24.0

DEATH = "#3a0f0e"
HURTS = ("#f0a29a", "#d9534a", "#a8231c")  # a little, more, a lot
HELPS = ("#9fd3b0", "#4fa570", "#21704a")
NEUTRAL = ("#a7b0bd", "#c9cfd7", "#8792a2", "#dde1e6")


@dataclass(frozen=True)
class Segment:
    """One outcome's share of a column (or of the one bar of a chart without a stat)."""

    x: float
    y: float
    width: float
    height: float
    colour: str
    ink: str  # the colour of the label on it
    label: str  # shown inside when the segment is large enough
    title: str  # the tooltip

    @property
    def middle(self) -> tuple[float, float]:
        """Where its label goes."""
        return self.x + self.width / 2, self.y + self.height / 2 + 3.5


@dataclass(frozen=True)
class Bar:
    """One column: the outcomes at one value of the stat."""

    x: float
    y: float
    width: float
    height: float
    label: str  # the stat's value, under the column
    given: bool  # framed: the value the report is given
    segments: tuple[Segment, ...]


@dataclass(frozen=True)
class Key:
    """A row of the legend: an outcome, its colour, its odds as given and what it does."""

    colour: str
    path: str
    odds: str
    result: str


@dataclass(frozen=True)
class Chart:
    """A chart's size, bars, axis and legend."""

    width: float
    height: float
    axis: str  # the stat across the columns; "" for one bar as given
    bars: tuple[Bar, ...]
    ticks: tuple[tuple[float, str], ...]  # y and label of the gridlines (columns only)
    keys: tuple[Key, ...]
    summary: str  # what a screen reader says

    @property
    def bottom(self) -> float:
        """The y of the baseline."""
        return TOP + PLOT_HEIGHT


def score(outcome: Outcome, signs: dict[str, int]) -> int:
    """How good an outcome is: the signed sum of its changes; death is worst."""
    return sum(signs.get(stat, 0) * delta for stat, delta in outcome.changes.items())


def _colours(outcomes: Sequence[Outcome], signs: dict[str, int]) -> list[str]:
    """A colour per outcome, by how good it is; repeats of one shade get lighter."""
    used: dict[str, int] = {}
    out = []
    for outcome in outcomes:
        value = score(outcome, signs)
        if outcome.death:
            base = DEATH
        elif value < 0:
            base = HURTS[min(-value, 3) - 1]
        elif value > 0:
            base = HELPS[min(value, 3) - 1]
        else:
            base = NEUTRAL[used.get("neutral", 0) % len(NEUTRAL)]
            used["neutral"] = used.get("neutral", 0) + 1
            out.append(base)
            continue
        times = used.get(base, 0)
        used[base] = times + 1
        out.append(_lighter(base, min(0.18 * times, 0.6)))
    return out


def _lighter(colour: str, share: float) -> str:
    """The colour mixed with white."""
    red, green, blue = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    mixed = (round(c + (255 - c) * share) for c in (red, green, blue))
    return "#" + "".join(f"{c:02x}" for c in mixed)


def _ink(colour: str) -> str:
    """Dark text on a light colour, white on a dark one."""
    red, green, blue = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return "#1d1a17" if 0.299 * red + 0.587 * green + 0.114 * blue > 150 else "#ffffff"


Found = tuple[tuple[str, ...], str]
"""An outcome across the columns: its path and what it does (a condition on a stat makes one
path do different things at different values)."""


def _found(outcome: Outcome) -> Found:
    return outcome.path, outcome_result(outcome)


def _order(block: BlockReport) -> list[Found]:
    """Every outcome of any column, in the order the card reads them."""
    order: list[Found] = []
    columns = sorted(block.columns, key=lambda c: (not c.given, -len(c.odds.outcomes)))
    for column in columns:
        previous: Found | None = None
        for outcome in column.odds.outcomes:
            found = _found(outcome)
            if found not in order:
                at = order.index(previous) + 1 if previous in order else len(order)
                order.insert(at, found)
            previous = found
    return order


def chart(block: BlockReport, signs: dict[str, int]) -> Chart:
    """The chart of one option or block: a column per value of its stat, or one bar."""
    order = _order(block)
    sample: dict[Found, Outcome] = {}
    for column in block.columns:
        for outcome in column.odds.outcomes:
            sample.setdefault(_found(outcome), outcome)
    colours = dict(zip(order, _colours([sample[f] for f in order], signs), strict=True))
    axis = " & ".join(block.axis)
    bars = []
    if block.axis:
        count = len(block.columns)
        width = max(18.0, min(44.0, 300.0 / count))
        for index, column in enumerate(block.columns):
            x = LEFT + GAP + index * (width + GAP)
            bars.append(Bar(x, TOP, width, PLOT_HEIGHT, str(column.value), column.given, ()))
        total_width, total_height = (
            max(LEFT + GAP + count * (width + GAP), 120.0),
            TOP + PLOT_HEIGHT + BOTTOM,
        )
        ticks = tuple(
            (TOP + PLOT_HEIGHT * (1 - share), f"{round(share * 100)}%") for share in (0, 0.5, 1)
        )
    else:
        bars.append(Bar(2.0, 2.0, FLAT_WIDTH, FLAT_HEIGHT, "", False, ()))
        total_width, total_height, ticks = FLAT_WIDTH + 4, FLAT_HEIGHT + 4, ()
    bars = [
        _filled(bar, column, order, colours, axis)
        for bar, column in zip(bars, block.columns, strict=True)
    ]
    given = next((c for c in block.columns if c.given), block.columns[0])
    at_given = {_found(o): o for o in given.odds.outcomes}
    keys = []
    for found in order:
        shown = at_given.get(found)
        keys.append(
            Key(
                colours[found],
                " › ".join(found[0]) or "(always)",
                percent(shown.probability) if shown else "0 %",
                found[1],
            )
        )
    summary = f"{block.name}: outcome odds" + (f" by {axis}" if axis else "")
    return Chart(total_width, total_height, axis, tuple(bars), ticks, tuple(keys), summary)


MIN_SEGMENT = 3.0
"""A share too small to see is drawn this long, taken from the largest: it stays visible."""


def _sizes(shares: list[float], length: float) -> list[float]:
    """Each share's length along a bar of `length`, none under MIN_SEGMENT."""
    sizes = [share * length for share in shares]
    if len(sizes) > 1:
        lent = sum(MIN_SEGMENT - size for size in sizes if size < MIN_SEGMENT)
        largest = sizes.index(max(sizes))
        sizes = [max(size, MIN_SEGMENT) for size in sizes]
        sizes[largest] -= lent
    return sizes


def _filled(
    bar: Bar, column: Column, order: list[Found], colours: dict[Found, str], axis: str
) -> Bar:
    """The bar with a segment per outcome, stacked down a column or along a flat bar."""
    weights: dict[Found, Fraction] = {}
    for outcome in column.odds.outcomes:
        found = _found(outcome)
        weights[found] = weights.get(found, Fraction(0)) + outcome.weight
    upright = bool(axis)
    where = f"{axis} {column.value}: " if upright else ""
    shares = [(found, weights[found]) for found in order if weights.get(found)]
    sizes = _sizes([float(share) for _, share in shares], bar.height if upright else bar.width)
    segments, offset = [], 0.0
    for (found, share), size in zip(shares, sizes, strict=True):
        shown = percent(share)
        if upright:
            box = (bar.x, bar.y + offset, bar.width, size)
            fits = size >= 13 and bar.width >= 26
        else:
            box = (bar.x + offset, bar.y, size, bar.height)
            fits = size >= 38
        segments.append(
            Segment(
                *box,
                colours[found],
                _ink(colours[found]),
                shown.replace(" ", "") if fits else "",
                f"{where}{' › '.join(found[0]) or '(always)'} ({found[1]}): {shown}",
            )
        )
        offset += size
    return replace(bar, segments=tuple(segments))
