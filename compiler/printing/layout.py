"""Where each card goes on the paper: the sheet grid, cut marks, mirrored backs, single pages.

All geometry is the tool's own CSS, in millimetres, so a pack's templates can style a card but
never move it: what the tests measure is what a printer gets.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from html import escape

from compiler.printing.sizes import PrintOptions

MARK_LENGTH = 5.0
"""Crop marks are this long, or as long as the margin allows."""

MARK_GAP = 1.0
"""Crop marks stop this far short of the cut area, so no mark is printed on a card."""


@dataclass(frozen=True)
class Face:
    """One card face (or back) ready to place: its HTML and the class of its background."""

    html: str
    kind: str
    key: str = ""  # which card this is, so clipped text can be traced back to it


@dataclass(frozen=True)
class Grid:
    """Cards per row and column on a sheet, and where the first card's trim box starts."""

    cols: int
    rows: int
    left: float  # x of the first column's trim box
    top: float  # y of the first row's trim box
    pitch_x: float  # from one trim box to the next
    pitch_y: float
    bleed: float
    shared: bool  # cards abut at shared cut lines; bleed only around the grid

    @property
    def per_page(self) -> int:
        """Cards on one sheet."""
        return self.cols * self.rows

    def trim(self, index: int) -> tuple[float, float]:
        """The top-left corner of the trim box of the card at this index on a sheet."""
        row, col = divmod(index, self.cols)
        return self.left + col * self.pitch_x, self.top + row * self.pitch_y

    def bleeds(self, index: int) -> tuple[float, float, float, float]:
        """Bleed on each side (top, right, bottom, left) of the card at this index."""
        if not self.shared:
            return (self.bleed,) * 4
        row, col = divmod(index, self.cols)
        b = self.bleed
        return (
            b if row == 0 else 0.0,
            b if col == self.cols - 1 else 0.0,
            b if row == self.rows - 1 else 0.0,
            b if col == 0 else 0.0,
        )


def sheet_grid(options: PrintOptions) -> Grid:
    """The most cards a sheet holds; separate bleeds when that costs no card, else shared."""
    paper_w, paper_h = options.paper_size
    w, h, b = options.width, options.height, options.bleed

    def count(cell_w: float, cell_h: float, extra: float) -> tuple[int, int]:
        cols = max(math.floor((paper_w - extra + 1e-9) / cell_w), 0)
        rows = max(math.floor((paper_h - extra + 1e-9) / cell_h), 0)
        return cols, rows

    separate = count(w + 2 * b, h + 2 * b, 0.0)
    shared = count(w, h, 2 * b)
    use_shared = b > 0 and shared[0] * shared[1] > separate[0] * separate[1]
    cols, rows = shared if use_shared else separate
    if cols * rows == 0:
        cols, rows = 1, 1  # a card as big as the paper: one per sheet, centred
    pitch_x = w if use_shared else w + 2 * b
    pitch_y = h if use_shared else h + 2 * b
    span_w = (cols - 1) * pitch_x + w
    span_h = (rows - 1) * pitch_y + h
    return Grid(
        cols,
        rows,
        (paper_w - span_w) / 2,
        (paper_h - span_h) / 2,
        pitch_x,
        pitch_y,
        b,
        use_shared,
    )


def _mm(value: float) -> str:
    return f"{value:.3f}mm"


def _box(left: float, top: float, width: float, height: float) -> str:
    return f"left:{_mm(left)};top:{_mm(top)};width:{_mm(width)};height:{_mm(height)}"


def _slot(face: Face, x: float, y: float, bleeds: tuple[float, ...], options: PrintOptions) -> str:
    """A card at trim position (x, y): its background over the bleed, its face on the trim."""
    top, right, bottom, left = bleeds
    outer = _box(x - left, y - top, options.width + left + right, options.height + top + bottom)
    inner = _box(left, top, options.width, options.height)
    return (
        f'<div class="slot kind-{escape(face.kind)}" style="{outer}">'
        f'<div class="trim" data-card="{escape(face.key)}" style="{inner}">{face.html}</div></div>'
    )


def _marks(grid: Grid, options: PrintOptions) -> list[str]:
    """Crop marks at every cut line, in the margins around the grid, outside the bleed."""
    paper_w, paper_h = options.paper_size
    w, h = options.width, options.height
    xs = sorted(
        {round(grid.left + c * grid.pitch_x + dx, 3) for c in range(grid.cols) for dx in (0, w)}
    )
    ys = sorted(
        {round(grid.top + r * grid.pitch_y + dy, 3) for r in range(grid.rows) for dy in (0, h)}
    )
    grid_top, grid_bottom = ys[0] - grid.bleed, ys[-1] + grid.bleed
    grid_left, grid_right = xs[0] - grid.bleed, xs[-1] + grid.bleed
    marks = []
    for x in xs:
        above = min(MARK_LENGTH, grid_top - MARK_GAP)
        below = min(MARK_LENGTH, paper_h - grid_bottom - MARK_GAP)
        if above > 0.5:
            marks.append(_box(x - 0.1, grid_top - MARK_GAP - above, 0.2, above))
        if below > 0.5:
            marks.append(_box(x - 0.1, grid_bottom + MARK_GAP, 0.2, below))
    for y in ys:
        before = min(MARK_LENGTH, grid_left - MARK_GAP)
        after = min(MARK_LENGTH, paper_w - grid_right - MARK_GAP)
        if before > 0.5:
            marks.append(_box(grid_left - MARK_GAP - before, y - 0.1, before, 0.2))
        if after > 0.5:
            marks.append(_box(grid_right + MARK_GAP, y - 0.1, after, 0.2))
    return [f'<div class="mark" style="{style}"></div>' for style in marks]


def sheet_pages(faces: list[Face], backs: list[Face] | None, options: PrintOptions) -> str:
    """The body of a sheet document: face pages, each followed by its mirrored back page."""
    grid = sheet_grid(options)
    paper_w, _ = options.paper_size
    marks = "".join(_marks(grid, options)) if options.marks else ""
    pages = []
    for start in range(0, len(faces), grid.per_page):
        chunk = faces[start : start + grid.per_page]
        slots = [
            _slot(face, *grid.trim(i), grid.bleeds(i), options) for i, face in enumerate(chunk)
        ]
        pages.append(f'<div class="sheet">{"".join(slots)}{marks}</div>')
        if backs is not None:
            mirrored = []
            for i, back in enumerate(backs[start : start + grid.per_page]):
                x, y = grid.trim(i)
                top, right, bottom, left = grid.bleeds(i)
                # A long-edge flip turns x into paper_w - x: the back lies behind its face.
                mirrored.append(
                    _slot(back, paper_w - x - options.width, y, (top, left, bottom, right), options)
                )
            pages.append(f'<div class="sheet back">{"".join(mirrored)}{marks}</div>')
    return "".join(pages)


_NO_BODY_MARGIN = "html, body { margin: 0; padding: 0 }"
"""Without it the browser's 8px body margin moves every card (and breaks the duplex mirror)."""


def sheet_css(options: PrintOptions) -> str:
    """The tool's own page and geometry rules for sheets."""
    paper_w, paper_h = options.paper_size
    return (
        f"@page {{ size: {_mm(paper_w)} {_mm(paper_h)}; margin: 0 }}\n"
        f"{_NO_BODY_MARGIN}\n"
        f".sheet {{ position: relative; width: {_mm(paper_w)}; height: {_mm(paper_h)};"
        " overflow: hidden; break-after: page }\n"
        ".sheet:last-child { break-after: auto }\n"
        ".slot { position: absolute; overflow: hidden }\n"
        ".trim { position: absolute; overflow: hidden }\n"
        ".mark { position: absolute; background: #000 }\n"
    )


def single_pages(faces: list[Face], backs: list[Face] | None, options: PrintOptions) -> str:
    """One card per page: the page is the trim box; the card's background fills the bleed."""
    b = options.bleed
    pages = []
    for index, face in enumerate(faces):
        sides = [face] + ([backs[index]] if backs is not None else [])
        for side in sides:
            pages.append(
                f'<div class="single">{_slot(side, 0.0, 0.0, (b, b, b, b), options)}</div>'
            )
    return "".join(pages)


def single_css(options: PrintOptions) -> str:
    """Page rules for one card per page: TrimBox the card, BleedBox the card plus bleed."""
    marks = "crop" if options.marks and options.bleed > 0 else "none"
    return (
        f"@page {{ size: {_mm(options.width)} {_mm(options.height)}; margin: 0;"
        f" bleed: {_mm(options.bleed)}; marks: {marks} }}\n"
        f"{_NO_BODY_MARGIN}\n"
        f".single {{ position: relative; width: {_mm(options.width)};"
        f" height: {_mm(options.height)}; break-after: page }}\n"
        ".single:last-child { break-after: auto }\n"
        ".slot { position: absolute; overflow: hidden }\n"
        ".trim { position: absolute; overflow: hidden }\n"
    )
