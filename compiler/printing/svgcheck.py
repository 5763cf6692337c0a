"""What an SVG art file may hold, judged when a pack is checked, before print draws it.

An SVG is a document, not a picture: it may reach for other files or the network (`href` to
`file:`, `http:`, a relative path; `url()` in a style or an attribute; `@import`; an
`xml-stylesheet`; an `xml:base` that turns `#a` into another file), and a few hundred bytes of
`<use>` elements that copy one another can ask for billions of shapes. It may also carry other
images inside itself as `data:` URLs, which WeasyPrint draws as it draws the art: each is
judged as art is (a picture by its header, an SVG by these rules), and they count towards the
SVG's shapes and pixels. `check` refuses such art at the card's `art` line, so that `print`
never spends minutes on it and then blames the templates.

The file is read as a stream and given up as soon as it holds too many elements or nests them
too deeply: a 20 MB SVG of four million empty elements is refused in a fraction of a second,
without the gigabyte its whole tree would take.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import cast
from urllib.parse import unquote_to_bytes
from xml.etree import ElementTree

from compiler.printing.pdf import MAX_IMAGE_PIXELS, image_format, refused_image

MAX_SVG_SHAPES = 100_000
"""The most elements an SVG may draw once each `<use>` is counted as the copy it makes, and
each SVG image it holds as the shapes that image draws."""

MAX_SVG_DEPTH = 100
"""The deepest elements may nest: WeasyPrint draws an element within its parent's drawing, a
few Python frames a level, so some thousands of levels stop it with a RecursionError."""

MAX_HELD_IMAGES = 1_000
"""The most pictures an SVG art file may hold as `data:` URLs, in all its SVGs: each different
one is opened to judge it (a fifth of a millisecond), and a 20 MB SVG can hold 100,000."""

MAX_SVG_NESTING = 3
"""How deep SVG images may hold SVG images (as `data:` URLs) in all, the art's own counted."""

_READ = 1 << 16
"""The file is given to the parser in pieces of this many bytes, each looked at before the
next: a refusal comes as soon as the piece that earns it."""

_XML_BASE = "{http://www.w3.org/XML/1998/namespace}base"

_FETCHING = re.compile(
    r"(url|src|image-set|image|cross-fade|element)\s*\(\s*['\"]?\s*(.?)|@import", re.IGNORECASE
)
"""CSS that fetches something: only `url(#…)` and `src(#…)`, a part of the SVG itself, may
stay. The name is matched wherever it ends a word (`-webkit-image-set(` too)."""


@dataclass(frozen=True)
class _Verdict:
    """Why an SVG is refused (None: it is not), and what it draws: its shapes once `<use>`
    copies are counted, and the pixels of the pictures it holds."""

    problem: str | None
    shapes: int = 0
    pixels: int = 0


def svg_problem(data: bytes) -> str | None:
    """Why print would refuse this SVG (`unreadable`, `reaches`, `complex`, `deep`, `pixels`),
    or None."""
    return _judged(data, 1, _Opened()).problem


def _judged(data: bytes, nesting: int, opened: _Opened) -> _Verdict:
    """The verdict on an SVG that is the `nesting`th of SVGs holding one another."""
    if b"<svg" not in data[:4096]:
        return _Verdict("unreadable")
    if b"<!DOCTYPE" in data or b"<!ENTITY" in data:  # entities can expand without bound
        return _Verdict("complex")
    elements, problem = _parsed(data)
    if problem is not None:
        return _Verdict(problem)
    held = _HeldImages(nesting, opened)
    weights: dict[int, int] = {}
    for element in elements:
        problem, shapes = _element_problem(element, held)
        if problem is not None:
            return _Verdict(problem)
        weights[id(element)] = 1 + shapes
    if held.pixels > MAX_IMAGE_PIXELS:
        return _Verdict("pixels")
    shapes = _drawn(elements, weights)
    if shapes > MAX_SVG_SHAPES:
        return _Verdict("complex")
    return _Verdict(None, shapes, held.pixels)


def _parsed(data: bytes) -> tuple[list[ElementTree.Element], str | None]:
    """The SVG's elements in document order (the root first), or why it is refused: read a
    piece at a time, and given up at the first element past MAX_SVG_SHAPES or MAX_SVG_DEPTH,
    or an `xml-stylesheet` instruction (a stylesheet fetched from elsewhere)."""
    elements: list[ElementTree.Element] = []
    depth = 0
    try:
        for event, element in _events(data):
            if event == "pi":
                if (element.text or "").lstrip().lower().startswith("xml-stylesheet"):
                    return [], "reaches"
            elif event == "end":
                depth -= 1
            else:
                depth += 1
                elements.append(element)
                if depth > MAX_SVG_DEPTH:
                    return [], "deep"
                if len(elements) > MAX_SVG_SHAPES:
                    return [], "complex"
    except ElementTree.ParseError:
        return [], "unreadable"
    return elements, None


def _events(data: bytes) -> Iterator[tuple[str, ElementTree.Element]]:
    """The parser's events, a piece of the file at a time (a ParseError where it is not XML)."""
    parser: ElementTree.XMLPullParser[ElementTree.Element] = ElementTree.XMLPullParser(
        events=("start", "end", "pi")
    )
    for start in range(0, len(data), _READ):
        parser.feed(data[start : start + _READ])
        yield from _read(parser)
    parser.close()  # a document cut short fails here
    yield from _read(parser)


def _read(
    parser: ElementTree.XMLPullParser[ElementTree.Element],
) -> Iterator[tuple[str, ElementTree.Element]]:
    # With only these three events asked for, each is a name and an element (typeshed's
    # union also has the shapes of the namespace events).
    for event in parser.read_events():
        yield cast("tuple[str, ElementTree.Element]", event)


@dataclass
class _Opened:
    """How many pictures have been opened to judge one art file, in all of its SVGs."""

    count: int = 0


class _HeldImages:
    """The `data:` images an SVG holds, each judged once however often it is named, and the
    pixels of all of them."""

    def __init__(self, nesting: int, opened: _Opened) -> None:
        self.nesting = nesting
        self.opened = opened
        self.pixels = 0
        self._verdicts: dict[bytes, _Verdict] = {}

    def judged(self, url: str) -> _Verdict:
        """The verdict on the image a `data:` URL holds."""
        key = hashlib.sha256(url.encode("utf-8", "surrogatepass")).digest()
        if key not in self._verdicts:
            many = self.opened.count >= MAX_HELD_IMAGES
            self.opened.count += 1
            verdict = _Verdict("complex") if many else self._judge(url)
            self._verdicts[key] = verdict
            self.pixels += verdict.pixels
        return self._verdicts[key]

    def _judge(self, url: str) -> _Verdict:
        data = _data_url_bytes(url)
        if data is None:
            return _Verdict("unreadable")
        refused = refused_image(data)
        if refused is not None:
            return _Verdict(refused)
        found = image_format(data)
        if found is not None:  # WeasyPrint tries Pillow first, and an SVG only if it fails
            return _Verdict(None, 0, found[1])
        if self.nesting >= MAX_SVG_NESTING:
            return _Verdict("deep")
        return _judged(data, self.nesting + 1, self.opened)


def _element_problem(element: ElementTree.Element, held: _HeldImages) -> tuple[str | None, int]:
    """Why one element makes its SVG refused, or None and the shapes the SVG images it holds
    draw."""
    shapes = 0
    for name, value in element.attrib.items():
        if name == _XML_BASE:
            return "reaches", 0  # `#a` would then name a part of another file
        if name.rsplit("}", 1)[-1] in ("href", "src"):
            target = value.strip()
            if target.startswith("#"):
                continue
            if target[:5].lower() != "data:":
                return "reaches", 0
            verdict = held.judged(target)
            if verdict.problem is not None:
                return verdict.problem, 0
            shapes += verdict.shapes
        elif _fetches(value):
            return "reaches", 0
    if element.tag.rsplit("}", 1)[-1] == "style" and _fetches(element.text or ""):
        return "reaches", 0
    return None, shapes


def _fetches(css: str) -> bool:
    """Whether CSS (a style, a presentation attribute) fetches anything but a part of the SVG."""
    if "(" not in css and "@" not in css:
        return False
    for found in _FETCHING.finditer(_unescaped(css)):
        name, first = found.groups()
        if name is None or name.lower() not in ("url", "src") or first != "#":
            return True
    return False


def _unescaped(css: str) -> str:
    """CSS escapes undone, so that `u\\72l(` reads as `url(`, as WeasyPrint reads it."""

    def one(found: re.Match[str]) -> str:
        if found.group(1):
            code = int(found.group(1), 16)
            return chr(code) if 0 < code < 0x110000 else "\ufffd"
        return found.group(2)

    return re.sub(r"\\(?:([0-9a-fA-F]{1,6})\s?|(.))", one, css, flags=re.DOTALL)


def _data_url_bytes(url: str) -> bytes | None:
    """The bytes of a `data:` URL as WeasyPrint reads them (the standard library's `data:`
    handler: `;base64` just before the comma), or None if it reads none."""
    header, comma, body = url[5:].partition(",")
    if not comma:
        return None
    data = unquote_to_bytes(body)
    if not header.endswith(";base64"):
        return data
    try:
        return base64.decodebytes(data)
    except binascii.Error:
        return None


def _drawn(elements: list[ElementTree.Element], weights: dict[int, int]) -> int:
    """How many shapes the SVG draws once every `<use>` is expanded, each element counting as
    its weight (capped just past the limit; a `<use>` that leads back to itself counts as past
    it). A walk with a stack of its own: a chain of `<use>` may be far longer than Python's
    recursion allows."""
    cap = MAX_SVG_SHAPES + 1
    by_id = {element.get("id"): element for element in elements if element.get("id")}

    def drawn_next(element: ElementTree.Element) -> list[ElementTree.Element]:
        found = list(element)
        if element.tag.rsplit("}", 1)[-1] == "use":
            target = next((element.get(n) or "" for n in _HREFS if element.get(n)), "").strip()
            used = by_id.get(target[1:]) if target.startswith("#") else None
            if used is not None:
                found.append(used)
        return found

    counted: dict[int, int] = {}
    expanding: set[int] = set()
    stack: list[tuple[ElementTree.Element, bool]] = [(elements[0], False)]
    while stack:
        element, expanded = stack.pop()
        key = id(element)
        if expanded:
            total = weights.get(key, 1) + sum(counted[id(n)] for n in drawn_next(element))
            counted[key] = min(total, cap)
            expanding.discard(key)
            continue
        if key in counted:
            continue
        if key in expanding:
            return cap  # reached again from inside itself: a loop
        expanding.add(key)
        stack.append((element, True))
        for following in drawn_next(element):
            if id(following) in expanding:
                return cap
            if id(following) not in counted:
                stack.append((following, False))
    return counted[id(elements[0])]


_HREFS = ("href", "{http://www.w3.org/1999/xlink}href")
"""The attributes by which a `<use>` names what it copies, as WeasyPrint reads them."""
