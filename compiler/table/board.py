"""The board of `pillbox table` laid out for the page: a point for each of the ruleset's places
and a line for each adjacency, worked out once from the board's data alone.

A board names its places and which are next to which, nothing of where they lie; so a layout
is guessed. Places of one level (a floor) share a band, the bands stacked in the levels'
natural order, the last on top. In a band the longest walk between two of its places (slots
left aside while any other place can make one) is its spine, laid left to right and folded
like a snake when long; every other place hangs below the spine place nearest it. Places that
are only an area of others (the hallway of a floor's spaces) are not drawn.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from runtime.world import Board

FOLD = 10
"""Places on a row of a spine before it folds back."""

STEP_X = 120.0
STEP_Y = 90.0
MARGIN = 60.0

Near = Callable[[str], list[str]]
"""The places next to one, within a band."""


@dataclass(frozen=True)
class Layout:
    """Where each place is drawn, which pairs are joined, and the size of the drawing."""

    points: Mapping[str, tuple[float, float]]
    edges: tuple[tuple[str, str], ...]
    lifts: tuple[tuple[str, str], ...]  # pairs joined by a lift, at a die's mercy
    bands: tuple[tuple[str, float, float], ...]  # level, top, bottom
    width: float
    height: float

    def to_json(self) -> dict[str, object]:
        """The layout as plain data for the page."""
        return {
            "places": [{"name": n, "x": x, "y": y} for n, (x, y) in self.points.items()],
            "edges": [list(pair) for pair in self.edges],
            "lifts": [list(pair) for pair in self.lifts],
            "bands": [{"name": n, "top": t, "bottom": b} for n, t, b in self.bands],
            "width": self.width,
            "height": self.height,
        }


def layout(board: Board) -> Layout | None:
    """The board laid out, or None when it has no place worth drawing."""
    grouping = set(board.areas.values())
    drawn = [p for p in board.places if p not in grouping or board.neighbours(p)]
    if not drawn:
        return None
    levels: dict[str, list[str]] = {}
    for place in drawn:
        levels.setdefault(board.levels.get(place, ""), []).append(place)
    points: dict[str, tuple[float, float]] = {}
    bands: list[tuple[str, float, float]] = []
    top = MARGIN
    for level in sorted(levels, key=_natural, reverse=True):
        cells = _band(board, levels[level])
        rows = max(row for _, row in cells.values()) + 1
        for place, (column, row) in cells.items():
            points[place] = (MARGIN + column * STEP_X, top + row * STEP_Y)
        bands.append((level, top - STEP_Y / 2, top + (rows - 0.5) * STEP_Y))
        top += rows * STEP_Y + (STEP_Y / 3 if level else 0)
    for members in levels.values():
        # a band of one place (a roof) stands over the places it leads to
        if len(members) == 1 and (near := [p for p in board.neighbours(members[0]) if p in points]):
            x = sum(points[p][0] for p in near) / len(near)
            points[members[0]] = (x, points[members[0]][1])
    edges = sorted(
        {tuple(sorted((a, b))) for a in points for b in board.neighbours(a) if b in points}
    )
    lifted = {
        tuple(sorted((a, b)))
        for lift in board.lifts
        for a in lift.places
        for b in lift.places
        if a != b and a in points and b in points
    }
    width = max(x for x, _ in points.values()) + MARGIN
    return Layout(
        points,
        tuple((a, b) for a, b in edges),
        tuple((a, b) for a, b in sorted(lifted) if (a, b) not in edges),
        tuple(bands) if len(bands) > 1 or bands[0][0] else (),
        width,
        top - STEP_Y + MARGIN,
    )


def _natural(text: str) -> list[object]:
    """A sort key that puts floor-2 before floor-10."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", text)]


def _band(board: Board, places: list[str]) -> dict[str, tuple[float, int]]:
    """(column, row) of each place of one band."""
    inside = set(places)

    def near(place: str) -> list[str]:
        return [p for p in places if p in board.neighbours(place)]

    walkers = [p for p in places if p not in board.slots] or places
    spine = _longest_walk(walkers, near, set(walkers))
    if len(spine) > 1 and places.index(spine[-1]) < places.index(spine[0]):
        spine.reverse()  # the board's first place on the left
    cells: dict[str, tuple[float, int]] = {}
    row = 0
    for index, place in enumerate(spine):
        lap, column = divmod(index, FOLD)
        row = lap * 2
        cells[place] = (float(column if lap % 2 == 0 else FOLD - 1 - column), row)
    base = row + 1
    # The rest hang below the spine, nearest first, each under the places it touches, a
    # column apart at least, each row centred where its places would be.
    hanging: dict[int, list[tuple[float, str]]] = {}
    for place in _by_distance(spine, near, inside):
        if place in cells:
            continue
        touching = [cells[p] for p in near(place) if p in cells]
        wanted = sum(c for c, _ in touching) / len(touching) if touching else 0.0
        depth = max([r + 1 for _, r in touching] or [base])
        depth = max(depth, base)
        hanging.setdefault(depth, []).append((wanted, place))
        cells[place] = (wanted, depth)
    for depth, row_places in hanging.items():
        row_places.sort()
        spaced: list[float] = []
        for wanted, _ in row_places:
            spaced.append(max(wanted, spaced[-1] + 1) if spaced else wanted)
        shift = sum(w for w, _ in row_places) / len(row_places) - sum(spaced) / len(spaced)
        for (_, place), spot in zip(row_places, spaced, strict=True):
            cells[place] = (max(spot + shift, 0.0), depth)
    return cells


def _longest_walk(places: list[str], near: Near, among: set[str]) -> list[str]:
    """The shortest path between the two places of `among` farthest apart (the first of
    several in board order)."""
    if not places:
        return []
    best: list[str] = [places[0]]
    for start in places:
        path = _farthest(start, lambda p: [q for q in near(p) if q in among])
        if len(path) > len(best):
            best = path
    return best


def _farthest(start: str, near: Near) -> list[str]:
    """The path from start to the farthest place walked (breadth first)."""
    came: dict[str, str | None] = {start: None}
    queue = deque([start])
    last = start
    while queue:
        last = queue.popleft()
        for step in near(last):
            if step not in came:
                came[step] = last
                queue.append(step)
    path = [last]
    while (back := came[path[-1]]) is not None:
        path.append(back)
    return path[::-1]


def _by_distance(spine: list[str], near: Near, inside: Iterable[str]) -> list[str]:
    """The band's places nearest the spine first, those it cannot reach last."""
    seen = dict.fromkeys(spine, 0)
    queue = deque(spine)
    while queue:
        place = queue.popleft()
        for step in near(place):
            if step not in seen:
                seen[step] = seen[place] + 1
                queue.append(step)
    rest = [p for p in inside if p not in seen]
    return [*sorted(seen, key=seen.__getitem__), *rest]
