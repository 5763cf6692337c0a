"""`pillbox print --calibrate`: a two-sided page of marks from which a printer's front/back
offset is read.

Page 1 (the front) has five crosshairs; page 2 (the back) has, behind each, a pair of rulers in
millimetres whose zero lies exactly behind the crosshair when the printer lines the two sides
up. Held to the light with page 2 facing you, the number where a crosshair shows through is the
`--back-offset` that moves back pages onto their fronts: x right and y down, as page 2 reads.
Page 2 is moved by `--back-offset` too, so a second calibration page checks the first reading.
"""

from __future__ import annotations

from pathlib import Path

from compiler.files import write_atomically
from compiler.printing.impose import impose
from compiler.printing.layout import Label, PageSpec, Rect, shift_back
from compiler.printing.sizes import PrintOptions

ARM = 16.0
"""A front crosshair reaches this far (mm) from its centre, across the rulers behind it."""

CROSS_WIDTH = 0.2
TICK_WIDTH = 0.1
RULER_GAP = 10.0
"""The rulers' base lines run this far above and right of the point they measure from: clear
of each other (each reads ±RULER_HALF), and crossed by the crosshair's lines."""

RULER_HALF = 8.0
"""Each ruler reads from -8 mm to +8 mm, in half millimetres."""

CORNER_INSET = 35.0
"""The four outer crosshairs sit this far from the paper's edges (a back printed turned or
scaled reads differently at each)."""

SCALE_BAR = 100.0
"""Page 1's bar is this long: measured with a ruler, it shows whether the printer scales."""


def targets(options: PrintOptions) -> list[tuple[float, float]]:
    """Where page 1's crosshairs are, in millimetres from the paper's bottom left corner."""
    width, height = options.paper_size
    inset = CORNER_INSET
    return [
        (width / 2, height / 2),
        (inset, inset),
        (width - inset, inset),
        (inset, height - inset),
        (width - inset, height - inset),
    ]


def _front(options: PrintOptions) -> PageSpec:
    """Crosshairs, a 100 mm bar and how to print the sheet."""
    width, height = options.paper_size
    page = PageSpec(width, height)
    half = CROSS_WIDTH / 2
    for x, y in targets(options):
        page.marks += [
            (x - ARM, y - half, 2 * ARM, CROSS_WIDTH),
            (x - half, y - ARM, CROSS_WIDTH, 2 * ARM),
        ]
    bar_x, bar_y = (width - SCALE_BAR) / 2, height / 2 - 40
    page.marks += [
        (bar_x, bar_y - 0.15, SCALE_BAR, 0.3),
        (bar_x - 0.15, bar_y - 2, 0.3, 4),
        (bar_x + SCALE_BAR - 0.15, bar_y - 2, 0.3, 4),
    ]
    page.labels.append((bar_x, bar_y - 6, 7, f"This bar is {SCALE_BAR:g} mm long from end to end."))
    page.labels += _text(
        options,
        [
            f"pillbox calibration, page 1 of 2: the FRONT ({options.paper})",
            "",
            "1. Print both pages on one sheet: two-sided, flipped on the long edge, at 100 %",
            "   (actual size, no 'fit to page').",
            f"2. Measure the bar below: it must be {SCALE_BAR:g} mm. If not, turn the scaling off.",
            "3. Hold the sheet to a light with page 2 facing you, and read page 2's rulers",
            "   where this page's crosshairs show through.",
        ],
    )
    return page


def _back(options: PrintOptions) -> PageSpec:
    """Behind each crosshair, a ruler for x above it and one for y right of it."""
    width, height = options.paper_size
    page = PageSpec(width, height)
    for front_x, y in targets(options):
        x = width - front_x  # a long-edge flip: what is behind x on page 1 is at width - x
        page.marks += _rulers(x, y)
        page.labels += _ruler_labels(x, y)
    dx, dy = options.back_offset
    moved = (
        [f"This page is already moved by --back-offset {dx:g}mm,{dy:g}mm: add what it reads."]
        if dx or dy
        else []
    )
    page.labels += _text(
        options,
        [
            f"pillbox calibration, page 2 of 2: the BACK ({options.paper})",
            "",
            "Hold the sheet to a light with this side facing you: each crosshair of page 1",
            "shows through beside a pair of rulers (in mm).",
            "x: where the upright line crosses the ruler above (+ is right).",
            "y: where the level line crosses the ruler at the right (+ is down).",
            "Then print with --back-offset Xmm,Ymm, or in pack.yaml  print: back_offset: Xmm,Ymm",
            "Both 0: the printer lines the sides up. The five differ: it also turns or scales",
            "the back; use the centre's reading.",
            *moved,
        ],
    )
    return shift_back(page, options)


def _rulers(x: float, y: float) -> list[Rect]:
    """The ticks of the two rulers that read offsets from (x, y): every half millimetre, taller
    at whole millimetres and at fives, tallest at zero."""
    half = TICK_WIDTH / 2
    base_y, base_x = y + RULER_GAP, x + RULER_GAP
    ticks: list[Rect] = [
        (x - RULER_HALF, base_y - half, 2 * RULER_HALF, TICK_WIDTH),
        (base_x - half, y - RULER_HALF, TICK_WIDTH, 2 * RULER_HALF),
    ]
    steps = round(RULER_HALF * 2)
    for step in range(-steps, steps + 1):
        length = 4.0 if step == 0 else 3.0 if step % 10 == 0 else 2.0 if step % 2 == 0 else 1.0
        along = step / 2
        ticks.append((x + along - half, base_y, TICK_WIDTH, length))  # x: + to the right
        ticks.append((base_x, y - along - half, length, TICK_WIDTH))  # y: + downwards
    return ticks


def _ruler_labels(x: float, y: float) -> list[Label]:
    """The rulers' numbers at every five millimetres (a digit is about 0.8 mm wide at 4 pt)."""
    labels: list[Label] = []
    for value in (-5, 0, 5):
        text = f"{value:+d}" if value else "0"
        labels.append((x + value - 0.4 * len(text), y + RULER_GAP + 4.6, 4, text))
        labels.append((x + RULER_GAP + 4.6, y - value - 0.5, 4, text))
    labels.append((x - RULER_HALF, y + RULER_GAP + 4.6, 4, "x"))
    labels.append((x + RULER_GAP + 4.6, y - RULER_HALF - 0.5, 4, "y"))
    return labels


def _text(options: PrintOptions, lines: list[str]) -> list[Label]:
    """Lines of 8 pt text in the band between the centre crosshair and the upper ones."""
    top = options.paper_size[1] - CORNER_INSET - ARM - 12
    return [(25.0, top - 4.5 * index, 8, line) for index, line in enumerate(lines) if line]


def write_calibration(target: Path, options: PrintOptions) -> None:
    """Write the two calibration pages to `target`, whole or not at all."""
    write_atomically(target, impose([], [], [_front(options), _back(options)]))
