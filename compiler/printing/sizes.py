"""Card and paper sizes, bleed, and the print options a pack and the command line give."""

from __future__ import annotations

import re
from dataclasses import dataclass
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
_CUSTOM_RE = re.compile(r"^([0-9]+(?:\.[0-9]+)?)x([0-9]+(?:\.[0-9]+)?)mm$")
_MM_RE = re.compile(r"^([0-9]+(?:\.[0-9]+)?)mm$")


class OptionError(ValueError):
    """A print option that names no size, or a size out of bounds."""


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
        raise OptionError(f"card size {name!r}: use {', '.join(CARD_SIZES)} or WxHmm, e.g. 60x90mm")
    width, height = float(found.group(1)), float(found.group(2))
    if not (10 <= width <= MAX_CARD_MM and 10 <= height <= MAX_CARD_MM):
        raise OptionError(f"card size {name!r}: each side must be from 10 to {MAX_CARD_MM:g} mm")
    return width, height


def millimetres(text: str, what: str, high: float) -> float:
    """`3mm` as 3.0; raise OptionError when it is not millimetres within 0..high."""
    found = _MM_RE.match(text)
    if not found or not 0 <= float(found.group(1)) <= high:
        raise OptionError(f"{what} {text!r}: give millimetres from 0 to {high:g}, e.g. 3mm")
    return float(found.group(1))


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
    options = PrintOptions(
        card=card,
        width=width,
        height=height,
        paper=paper,
        bleed=bleed,
        marks=merged.get("marks", "crop") != "none",
        backs=merged.get("backs", "none") == "duplex",
        layout=layout,
    )
    paper_w, paper_h = options.paper_size
    if layout == "sheet" and (width > paper_w or height > paper_h):
        raise OptionError(f"a {card} card ({width:g} × {height:g} mm) does not fit on {paper}")
    return options
