"""Card and paper sizes, bleed, and the print options a pack and the command line give."""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

CARD_SIZES: dict[str, tuple[float, float]] = {
    "poker": (63.5, 88.9),
    "bridge": (57.2, 88.9),
    "tarot": (70.0, 120.0),
    "mini": (44.0, 63.5),
    "square": (70.0, 70.0),
}
"""Named card sizes, width × height in millimetres."""

PAPER_SIZES: dict[str, tuple[float, float]] = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
"""Paper sizes, portrait, in millimetres."""

MAX_CARD_MM = 300.0
MAX_BLEED_MM = 10.0
MAX_BACK_OFFSET_MM = 10.0
"""A printer's front/back misregistration is a few millimetres; more is a misread ruler."""
MAX_CORNER_MM = 10.0
_CUSTOM_RE = re.compile(r"^([0-9]+(?:\.[0-9]+)?)x([0-9]+(?:\.[0-9]+)?)mm$")
_MM_RE = re.compile(r"^([0-9]+(?:\.[0-9]+)?)mm$")
_NUMBER = r"[-+]?[0-9]+(?:\.[0-9]+)?"
CUTS = ("auto", "shared", "separate")
"""`shared`: cards abut at shared cut lines, bleed only on the grid's outer edges; `separate`:
each card its own bleed; `auto`: separate unless that costs a card or the margin."""


class OptionError(ValueError):
    """A print option that names no size, or a size out of bounds; `key` is the option."""

    def __init__(self, message: str, key: str = "card") -> None:
        super().__init__(message)
        self.key = key


@dataclass(frozen=True)
class PrintOptions:
    """Everything that decides the geometry of the output."""

    card: str = "poker"
    width: float = 63.5
    height: float = 88.9
    paper: str = "a4"
    bleed: float = 0.0
    marks: bool = True
    backs: bool = False
    layout: str = "sheet"
    back_offset: tuple[float, float] = (0.0, 0.0)  # mm: x right, y down, as back pages read
    corners: float = 0.0  # radius of the corner guides drawn on the fronts; 0: none
    cuts: str = "auto"
    low_ink: bool = False  # no full-bleed colour: white grounds, thin borders

    @property
    def paper_size(self) -> tuple[float, float]:
        """Paper width and height in millimetres."""
        return PAPER_SIZES[self.paper]


def card_size(name: str) -> tuple[float, float]:
    """A named size or `WxHmm`; raise OptionError when it is neither or out of bounds."""
    if name in CARD_SIZES:
        return CARD_SIZES[name]
    found = _CUSTOM_RE.match(name)
    if not found:
        close = difflib.get_close_matches(name.lower(), list(CARD_SIZES), n=1, cutoff=0.6)
        sizes = ", ".join(f"{size} ({w:g} × {h:g} mm)" for size, (w, h) in CARD_SIZES.items())
        guess = f"did you mean {close[0]!r}? " if close else ""
        raise OptionError(f"card size {name!r}: {guess}the sizes are {sizes}, or WxHmm (60x90mm)")
    width, height = float(found.group(1)), float(found.group(2))
    if not (10 <= width <= MAX_CARD_MM and 10 <= height <= MAX_CARD_MM):
        raise OptionError(f"card size {name!r}: each side must be from 10 to {MAX_CARD_MM:g} mm")
    return width, height


def millimetres(text: str, what: str, high: float) -> float:
    """`3mm` as 3.0; raise OptionError when it is not millimetres within 0..high."""
    found = _MM_RE.match(text)
    if not found and re.fullmatch(r"[0-9]+(?:\.[0-9]+)?", text):
        raise OptionError(f"{what} {text!r}: a length needs its unit: did you mean '{text}mm'?")
    if not found or not 0 <= float(found.group(1)) <= high:
        raise OptionError(f"{what} {text!r}: give millimetres from 0 to {high:g}, e.g. 3mm")
    return float(found.group(1))


def back_offset(text: str) -> tuple[float, float]:
    """`1.5mm,-0.5mm` as (1.5, -0.5); raise OptionError when it is not two lengths in range."""
    parts = [part.strip() for part in text.split(",")]
    if len(parts) == 2 and all(re.fullmatch(_NUMBER, part) for part in parts):
        raise OptionError(
            f"back offset {text!r}: a length needs its unit: did you mean "
            f"'{parts[0]}mm,{parts[1]}mm'?"
        )
    found = [re.fullmatch(f"({_NUMBER})mm", part) for part in parts]
    if len(parts) != 2 or not all(found):
        raise OptionError(
            f"back offset {text!r}: give x (right) and y (down) in millimetres, e.g. 1.5mm,-0.5mm"
        )
    x, y = (float(match.group(1)) for match in found if match)
    if max(abs(x), abs(y)) > MAX_BACK_OFFSET_MM:
        raise OptionError(
            f"back offset {text!r}: each part must be within ±{MAX_BACK_OFFSET_MM:g} mm"
        )
    return x, y


def print_problems(pack_print: dict[str, Any]) -> list[tuple[str, str]]:
    """What is wrong with a pack's `print:` section, as (key, message) pairs: each option on
    its own, then whether the card fits the paper."""
    checks: dict[str, Callable[[str], object]] = {
        "card": card_size,
        "bleed": partial(millimetres, what="bleed", high=MAX_BLEED_MM),
        "back_offset": back_offset,
        "corners": partial(millimetres, what="corners", high=MAX_CORNER_MM),
    }
    problems = []
    for key, check in checks.items():
        if key in pack_print:
            try:
                check(str(pack_print[key]))
            except OptionError as error:
                problems.append((key, str(error)))
    if not problems:
        try:
            resolve_options(pack_print, {})
        except OptionError as error:
            problems.append((error.key, str(error)))
    return problems


def resolve_options(pack_print: dict[str, Any], overrides: dict[str, Any]) -> PrintOptions:
    """The pack's `print:` section, with the command line's options over it."""
    merged = {**pack_print, **{k: v for k, v in overrides.items() if v is not None}}
    card = str(merged.get("card", "poker"))
    width, height = card_size(card)
    paper = str(merged.get("paper", "a4"))
    if paper not in PAPER_SIZES:
        raise OptionError(f"paper {paper!r}: use {' or '.join(PAPER_SIZES)}")
    bleed = millimetres(str(merged.get("bleed", "0mm")), "bleed", MAX_BLEED_MM)
    layout = str(merged.get("layout", "sheet"))
    if layout not in ("sheet", "single"):
        raise OptionError(f"layout {layout!r}: use sheet or single")
    cuts = str(merged.get("cuts", "auto"))
    if cuts not in CUTS:
        raise OptionError(f"cuts {cuts!r}: use {', '.join(CUTS)}")
    corners = millimetres(str(merged.get("corners", "0mm")), "corners", MAX_CORNER_MM)
    if corners > min(width, height) / 2:
        raise OptionError(
            f"corners {corners:g} mm: more than half the {card} card's short side", "corners"
        )
    options = PrintOptions(
        card=card,
        width=width,
        height=height,
        paper=paper,
        bleed=bleed,
        marks=merged.get("marks", "crop") != "none",
        backs=merged.get("backs", "none") == "duplex",
        layout=layout,
        back_offset=back_offset(str(merged.get("back_offset", "0mm,0mm"))),
        corners=corners,
        cuts=cuts,
        low_ink=merged.get("low_ink") is True,
    )
    paper_w, paper_h = options.paper_size
    if layout == "sheet" and (width > paper_w or height > paper_h):
        raise OptionError(f"a {card} card ({width:g} × {height:g} mm) does not fit on {paper}")
    return options
