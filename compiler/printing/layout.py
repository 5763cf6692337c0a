"""Where each card goes on the paper: the sheet grid, cut marks, mirrored backs, single pages.

Every distinct face is laid out once by WeasyPrint as a page of its own, the card plus its
bleed on every side (`face_pages`); this module then says where each copy of that page goes on
the printed pages, what part of it shows there, and where the crop marks are. All of it is the
tool's own geometry, in millimetres, so a pack's templates can style a card but never move it:
what the tests measure is what a printer gets.

Pages here are in PDF coordinates: millimetres from the bottom left corner of the paper.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from urllib.parse import quote

from compiler.printing.sizes import PrintOptions

MARK_LENGTH = 5.0
"""Crop marks are this long, or as long as the margin allows."""

MARK_GAP = 1.0
"""Crop marks stop this far short of the cut area, so no mark is printed on a card."""

MARK_WIDTH = 0.2
"""Crop marks are this thick."""

MIN_MARGIN = 5.0
"""Separate bleeds that leave less paper than this outside the cards give way to shared cut
lines: home printers cannot print to the edge, and the crop marks need the room."""

MARK_ROOM = 10.0
"""`--layout single` pages reach this far past the bleed on every side, for the crop marks."""

Rect = tuple[float, float, float, float]
"""x, y, width, height in millimetres, from the bottom left corner of the page."""

Label = tuple[float, float, float, str]
"""x, y (the text's baseline start, in millimetres), size in points, and plain ASCII text."""


@dataclass(frozen=True)
class Face:
    """One card face (or back) ready to lay out: its HTML, the class of its background, and an
    image that covers the card and its bleed (a pack's back image), named from the pack folder."""

    html: str
    kind: str
    key: str = ""  # which card this is, so clipped text can be traced back to it
    image: str = ""  # a path inside the pack folder; pillbox names it (from the deck's name)


@dataclass(frozen=True)
class Grid:
    """Cards per row and column on a sheet, and where the first card's trim box starts."""

    cols: int
    rows: int
    left: float  # x of the first column's trim box, from the paper's left edge
    top: float  # y of the first row's trim box, from the paper's top edge
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
    """The most cards a sheet holds, with separate bleeds or shared cut lines.

    Separate bleeds only when they cost no card and leave MIN_MARGIN of paper all round.
    """
    paper_w, paper_h = options.paper_size
    w, h, b = options.width, options.height, options.bleed

    def count(cell_w: float, cell_h: float, extra: float) -> tuple[int, int]:
        cols = max(math.floor((paper_w - extra + 1e-9) / cell_w), 0)
        rows = max(math.floor((paper_h - extra + 1e-9) / cell_h), 0)
        return cols, rows

    separate = count(w + 2 * b, h + 2 * b, 0.0)
    shared = count(w, h, 2 * b)
    margin = min(paper_w - separate[0] * (w + 2 * b), paper_h - separate[1] * (h + 2 * b)) / 2
    costly = shared[0] * shared[1] > separate[0] * separate[1] or margin < MIN_MARGIN - 1e-9
    use_shared = b > 0 and (options.cuts == "shared" or (options.cuts == "auto" and costly))
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


@dataclass(frozen=True)
class Placed:
    """One face page drawn on a printed page: which, where, and the part of it that shows."""

    item: int  # index of the face page among those laid out
    x: float  # where the face page's bottom left corner (its bleed's) goes
    y: float
    clip: Rect  # the trim box and whatever bleed this position keeps; the rest is cut away


@dataclass
class PageSpec:
    """A printed page: its size, the faces on it, its crop marks and its print boxes."""

    width: float
    height: float
    placed: list[Placed] = field(default_factory=list)
    marks: list[Rect] = field(default_factory=list)
    trim: Rect | None = None
    bleed: Rect | None = None
    corners: list[Rect] = field(default_factory=list)  # trim boxes whose corners get guides
    radius: float = 0.0  # of those guides
    labels: list[Label] = field(default_factory=list)  # the tool's own words (calibration)

    def shifted(self, dx: float, dy: float) -> PageSpec:
        """The same page with everything on it moved (dx right, dy up), the paper not."""

        def move(rect: Rect) -> Rect:
            return (rect[0] + dx, rect[1] + dy, rect[2], rect[3])

        return PageSpec(
            self.width,
            self.height,
            [Placed(p.item, p.x + dx, p.y + dy, move(p.clip)) for p in self.placed],
            [move(mark) for mark in self.marks],
            move(self.trim) if self.trim else None,
            move(self.bleed) if self.bleed else None,
            [move(rect) for rect in self.corners],
            self.radius,
            [(x + dx, y + dy, size, text) for x, y, size, text in self.labels],
        )


def shift_back(page: PageSpec, options: PrintOptions) -> PageSpec:
    """A back page moved by `--back-offset`, read as x right and y down on the back itself.

    The offset is what the calibration page's back rulers show, on the back, so it applies to
    the back page as it is: the long-edge mirroring is already in where the backs are placed.
    """
    dx, dy = options.back_offset
    return page.shifted(dx, -dy) if dx or dy else page


def _place(
    item: int, x: float, y: float, bleeds: tuple[float, ...], options: PrintOptions
) -> Placed:
    """The face page `item` with its trim box's bottom left corner at (x, y).

    The face page carries the full bleed on every side; `bleeds` (top, right, bottom, left)
    says how much of it this position keeps.
    """
    top, right, bottom, left = bleeds
    w, h, b = options.width, options.height, options.bleed
    clip = (x - left, y - bottom, w + left + right, h + top + bottom)
    return Placed(item, x - b, y - b, clip)


def _marks(grid: Grid, options: PrintOptions) -> list[Rect]:
    """Crop marks at every cut line, in the margins around the grid, outside the bleed."""
    paper_w, paper_h = options.paper_size
    w, h = options.width, options.height
    # Cut lines as distances from the left and top edges of the paper.
    xs = sorted(
        {round(grid.left + c * grid.pitch_x + dx, 3) for c in range(grid.cols) for dx in (0, w)}
    )
    ys = sorted(
        {round(grid.top + r * grid.pitch_y + dy, 3) for r in range(grid.rows) for dy in (0, h)}
    )
    grid_top, grid_bottom = ys[0] - grid.bleed, ys[-1] + grid.bleed
    grid_left, grid_right = xs[0] - grid.bleed, xs[-1] + grid.bleed
    half = MARK_WIDTH / 2
    marks: list[Rect] = []
    for x in xs:
        above = min(MARK_LENGTH, grid_top - MARK_GAP)
        below = min(MARK_LENGTH, paper_h - grid_bottom - MARK_GAP)
        if above > 0.5:
            marks.append((x - half, paper_h - grid_top + MARK_GAP, MARK_WIDTH, above))
        if below > 0.5:
            marks.append((x - half, paper_h - grid_bottom - MARK_GAP - below, MARK_WIDTH, below))
    for y in ys:
        before = min(MARK_LENGTH, grid_left - MARK_GAP)
        after = min(MARK_LENGTH, paper_w - grid_right - MARK_GAP)
        if before > 0.5:
            marks.append((grid_left - MARK_GAP - before, paper_h - y - half, before, MARK_WIDTH))
        if after > 0.5:
            marks.append((grid_right + MARK_GAP, paper_h - y - half, after, MARK_WIDTH))
    return marks


def sheet_layout(
    faces: list[int], backs: list[int] | None, options: PrintOptions
) -> list[PageSpec]:
    """Sheets of face pages, each followed by its back page mirrored for a long-edge flip.

    `faces` names the face page of every card to print, copies included, in order; `backs`
    the back page behind each of them.
    """
    grid = sheet_grid(options)
    paper_w, paper_h = options.paper_size
    w, h = options.width, options.height
    marks = _marks(grid, options) if options.marks else []
    pages = []
    for start in range(0, len(faces), grid.per_page):
        sheet = PageSpec(paper_w, paper_h, marks=marks, radius=options.corners)
        for i, item in enumerate(faces[start : start + grid.per_page]):
            x, top = grid.trim(i)
            sheet.placed.append(_place(item, x, paper_h - top - h, grid.bleeds(i), options))
            if options.corners:
                sheet.corners.append((x, paper_h - top - h, w, h))
        pages.append(sheet)
        if backs is not None:
            back = PageSpec(paper_w, paper_h, marks=marks)
            for i, item in enumerate(backs[start : start + grid.per_page]):
                x, top = grid.trim(i)
                above, right, below, left = grid.bleeds(i)
                # A long-edge flip turns x into paper_w - x: the back lies behind its face.
                mirrored = (above, left, below, right)
                back.placed.append(
                    _place(item, paper_w - x - w, paper_h - top - h, mirrored, options)
                )
            pages.append(shift_back(back, options))
    return pages


def single_layout(
    faces: list[int], backs: list[int] | None, options: PrintOptions
) -> list[PageSpec]:
    """One card a page for print shops: TrimBox the card, BleedBox the card and its bleed.

    With crop marks, the paper reaches MARK_ROOM past the bleed for them.
    """
    w, h, b = options.width, options.height, options.bleed
    room = MARK_ROOM if options.marks else 0.0
    width, height = w + 2 * (b + room), h + 2 * (b + room)
    x, y = room + b, room + b  # the trim box's bottom left corner
    marks: list[Rect] = []
    if options.marks:
        length = min(MARK_LENGTH, room - MARK_GAP)
        half = MARK_WIDTH / 2
        for cut in (x, x + w):  # vertical cut lines, marked below and above the bleed
            marks.append((cut - half, room - MARK_GAP - length, MARK_WIDTH, length))
            marks.append((cut - half, height - room + MARK_GAP, MARK_WIDTH, length))
        for cut in (y, y + h):  # horizontal ones, left and right of it
            marks.append((room - MARK_GAP - length, cut - half, length, MARK_WIDTH))
            marks.append((width - room + MARK_GAP, cut - half, length, MARK_WIDTH))
    pages = []
    for index, item in enumerate(faces):
        front = PageSpec(width, height, marks=marks, trim=(x, y, w, h), radius=options.corners)
        front.bleed = (room, room, w + 2 * b, h + 2 * b)
        front.placed.append(_place(item, x, y, (b, b, b, b), options))
        if options.corners:
            front.corners.append((x, y, w, h))
        pages.append(front)
        if backs is not None:
            back = PageSpec(width, height, marks=marks, trim=(x, y, w, h))
            back.bleed = front.bleed
            back.placed.append(_place(backs[index], x, y, (b, b, b, b), options))
            pages.append(shift_back(back, options))
    return pages


# ---------------------------------------------------------------- the face pages


def _mm(value: float) -> str:
    return f"{value:.3f}mm"


def _box(left: float, top: float, width: float, height: float) -> str:
    return f"left:{_mm(left)};top:{_mm(top)};width:{_mm(width)};height:{_mm(height)}"


def face_pages(faces: list[Face], options: PrintOptions) -> str:
    """The body of a face document: each face on a page of its own, the card and its bleed.

    The card's background fills the bleed; its face sits on the trim box.
    """
    w, h, b = options.width, options.height, options.bleed
    outer = _box(0.0, 0.0, w + 2 * b, h + 2 * b)
    inner = _box(b, b, w, h)
    return "".join(
        f'<div class="face"><div class="slot kind-{escape(face.kind)}" '
        f'style="{outer}{_cover(face.image)}">'
        f'<div class="trim" data-card="{escape(face.key)}" style="{inner}">{face.html}</div>'
        "</div></div>"
        for face in faces
    )


def _cover(image: str) -> str:
    """An image covering the whole slot, card and bleed, cut to fill it."""
    if not image:
        return ""
    # Percent-encoded, the URL holds no quote, backslash or bracket to break out of url('').
    return f";background:url('{quote(image)}') center / cover no-repeat"


_NO_BODY_MARGIN = "html, body { margin: 0; padding: 0 }"
"""Without it the browser's 8px body margin moves every card off its page."""


FONTS = Path(__file__).resolve().parent / "fonts"
"""The fonts pillbox ships (DejaVu, under its own licence in that folder), so that a print
looks the same, and fits the same, on every machine, whatever fonts it has installed."""

SHIPPED_FONTS = (
    ("Pillbox Serif", "DejaVuSerif.ttf", "normal", "normal"),
    ("Pillbox Serif", "DejaVuSerif-Bold.ttf", "bold", "normal"),
    ("Pillbox Serif", "DejaVuSerif-Italic.ttf", "normal", "italic"),
    ("Pillbox Serif", "DejaVuSerif-BoldItalic.ttf", "bold", "italic"),
    ("Pillbox Sans", "DejaVuSans.ttf", "normal", "normal"),
    ("Pillbox Sans", "DejaVuSans-Bold.ttf", "bold", "normal"),
)
"""The families a design may name; their own names, so no installed font can stand in."""


def _font_faces() -> str:
    return "".join(
        f"@font-face {{ font-family: '{family}'; src: url('{(FONTS / file).as_uri()}');"
        f" font-weight: {weight}; font-style: {style} }}\n"
        for family, file, weight, style in SHIPPED_FONTS
    )


LOW_INK = (
    ".slot, .slot .trim { background: #fff !important; color: #1a1a1a !important }\n"
    ".slot .trim *, .slot .trim *::before, .slot .trim *::after { box-shadow: none !important;"
    " text-shadow: none !important }\n"
    ".slot .trim *:not(.icon) { background-color: transparent !important;"
    " background-image: none !important; color: #1a1a1a !important }\n"
    ".slot .trim *, .slot .trim *::before { border-width: 0.2mm !important }\n"
)
"""`--low-ink`: after every other rule, so a pack's design gives way too. The ground of the
card and its bleed (a colour or a back image) is white and all text dark (a light text meant
for a dark ground would vanish), every border 0.2 mm; icons and images stay."""


def face_css(options: PrintOptions) -> str:
    """The tool's own page and geometry rules for face documents, and its shipped fonts."""
    width, height = options.width + 2 * options.bleed, options.height + 2 * options.bleed
    return (
        _font_faces()
        + (LOW_INK if options.low_ink else "")
        + (
            f"@page {{ size: {_mm(width)} {_mm(height)}; margin: 0 }}\n"
            f"{_NO_BODY_MARGIN}\n"
            f".face {{ position: relative; width: {_mm(width)}; height: {_mm(height)};"
            " overflow: hidden; break-after: page }\n"
            ".face:last-child { break-after: auto }\n"
            ".slot { position: absolute; overflow: hidden }\n"
            ".trim { position: absolute; overflow: hidden }\n"
        )
    )
