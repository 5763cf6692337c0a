"""What an SVG art file may hold, judged when a pack is checked, before print draws it.

An SVG is a document, not a picture: it may reach for other files or the network (`href` to
`file:`, `http:`, a relative path), and a few hundred bytes of `<use>` elements that copy one
another can ask for billions of shapes. `check` refuses such art at the card's `art` line, so
that `print` never spends minutes on it and then blames the templates.
"""

from __future__ import annotations

import re
from xml.etree import ElementTree

MAX_SVG_SHAPES = 100_000
"""The most elements an SVG may draw once each `<use>` is counted as the copy it makes."""

_LOCAL_HREF = re.compile(r"\s*(#|data:)", re.IGNORECASE)
"""An href an SVG may hold: a fragment of itself, or data written inline."""

_HREFS = ("href", "{http://www.w3.org/1999/xlink}href")


def svg_problem(data: bytes) -> str | None:
    """Why print would refuse this SVG (`unreadable`, `reaches`, `complex`), or None."""
    head = data[:4096]
    if b"<svg" not in head:
        return "unreadable"
    if b"<!DOCTYPE" in data or b"<!ENTITY" in data:  # entities can expand without bound
        return "complex"
    try:
        root = ElementTree.fromstring(data)
    except ElementTree.ParseError:
        return "unreadable"
    elements = list(root.iter())
    for element in elements:
        for name in _HREFS:
            target = element.get(name)
            if target is not None and not _LOCAL_HREF.match(target):
                return "reaches"
        style = element.get("style") or ""
        if "url(" in style and not re.search(r"url\(\s*['\"]?#", style):
            return "reaches"
    return "complex" if _drawn(root, elements) > MAX_SVG_SHAPES else None


def _drawn(root: ElementTree.Element, elements: list[ElementTree.Element]) -> int:
    """How many elements the SVG draws once every `<use>` is expanded (capped just past the
    limit; a `<use>` that leads back to itself counts as past it)."""
    by_id = {element.get("id"): element for element in elements if element.get("id")}
    counted: dict[int, int] = {}
    expanding: set[int] = set()

    def count(element: ElementTree.Element) -> int:
        key = id(element)
        if key in counted:
            return counted[key]
        if key in expanding:
            return MAX_SVG_SHAPES + 1
        expanding.add(key)
        total = 1
        for child in element:
            total = min(total + count(child), MAX_SVG_SHAPES + 1)
        if element.tag.rsplit("}", 1)[-1] == "use":
            target = next((element.get(n) or "" for n in _HREFS if element.get(n)), "")
            used = by_id.get(target[1:]) if target.startswith("#") else None
            if used is not None:
                total = min(total + count(used), MAX_SVG_SHAPES + 1)
        expanding.discard(key)
        counted[key] = total
        return total

    return count(root)
