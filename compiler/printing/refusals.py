"""The URLs a face asked for and did not get, as diagnostics: E0702 for what the fence kept out
of the pack, E0704 for an image missing, too large or unreadable, each at the file or the
template line it comes from. `pillbox print` reports what WeasyPrint's fence refused, and
`pillbox report` what its faces' cleaner refused, in the same words."""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

from compiler.pack import display_path
from compiler.printing.art import REFUSED
from compiler.printing.cards import CardRenderer
from compiler.printing.faces import pack_templates
from compiler.printing.pdf import Refusal
from dsl.spans import Diagnostic, Span

_HELP = {
    "E0702": "images and fonts must be files inside the pack folder, named relative to it",
    "E0704": "check the file's name and that it is a PNG, JPEG, SVG, WebP or GIF image",
    "large": "make the file smaller: a card at 300 dpi needs about 750 × 1050 pixels",
}


def refusal_diagnostics(refused: list[Refusal], renderer: CardRenderer) -> list[Diagnostic]:
    """E0702 for what the fence kept out; E0704 for files missing, too large or unreadable.

    Each is at the file refused when it is one of the pack's, else where a pack template
    writes the URL, else at the templates folder.
    """
    root = renderer.checked.root
    templates = display_path(root / "templates") if root else "templates"
    found = []
    for refusal in dict.fromkeys(refused):
        code = "E0702" if refusal.reason in ("outside", "link") else "E0704"
        where = _pack_file_named(refusal.url, root) if code == "E0704" else None
        span = Span.whole_file(where) if where else _written_at(refusal.url, root, renderer)
        big = refusal.reason in ("large", "pixels")
        found.append(
            Diagnostic(
                code,
                "error",
                f"a template asks for {refusal.url[:120]!r}{REFUSED[refusal.reason]}",
                span or Span.whole_file(templates),
                _HELP["large" if big else code],
            )
        )
    return found


def _pack_file_named(url: str, root: Path | None) -> str | None:
    """The pack file a `file:` URL names, as the diagnostics show files; None if none."""
    parts = urlsplit(url)
    if root is None or parts.scheme != "file":
        return None
    path = Path(unquote(parts.path)).resolve()
    return display_path(path) if path.is_file() and path.is_relative_to(root.resolve()) else None


def _written_at(url: str, root: Path | None, renderer: CardRenderer) -> Span | None:
    """Where one of the pack's own templates (or cards.css) writes this URL, if one does.

    WeasyPrint tells the URL it made, absolute: a template may have written it so, or as the
    path, or relative to the pack folder (the base of every face document).
    """
    if root is None:
        return None
    written = [url]
    if url.startswith("file:"):
        path = unquote(urlsplit(url).path)
        written += [path, os.path.relpath(path, root.resolve())]
    templates = list(pack_templates(renderer.env))
    for text, shown in templates:
        for form in written:
            at = text.find(form) if form else -1
            if at >= 0:
                return _span_of(text, shown, at, len(form))
    # A URL the template builds (`images/{{ card.kind }}.png`): the reference whose fixed
    # parts match it, with each {{ ... }} standing for any text.
    for text, shown in templates:
        for found in _BUILT_URL.finditer(text):
            reference = found.group("url")
            pieces = re.split(r"\{\{.*?\}\}", reference)
            if len(pieces) > _MAX_PIECES:
                continue
            shape = re.compile(".*".join(re.escape(piece) for piece in pieces), re.DOTALL)
            if any(shape.fullmatch(form) for form in written[1:]):
                return _span_of(text, shown, found.start("url"), len(reference))
    return None


_BUILT_URL = re.compile(r"""(?:src|href)\s*+=\s*+["'](?P<url>[^"'<>{]*+\{\{[^"'<>]*+)["']""")
"""An HTML attribute naming a file through a template expression."""
_MAX_PIECES = 4
"""Each expression is a `.*` to match: a few keep the matching quick on any template."""


def _span_of(text: str, shown: str, at: int, length: int) -> Span:
    line = text.count("\n", 0, at) + 1
    column = at - (text.rfind("\n", 0, at) + 1) + 1
    return Span(shown, line, column, line, column + length)
