"""The picture a card prints: its `art` property, else the pack's fallback for its kind.

A pack is untrusted, so an art file is found inside the pack folder only, named from it, and
refused as print's fence refuses a template's image: a path that leads out of the pack (`..`,
an absolute path, a symbolic link), a hard link, a file over 20 MB, an image of over 40
million pixels (counted from its header, nothing decoded), one that cannot be read as an
image, or an SVG that reaches for other files or draws too much (`svgcheck`). `check`,
`print` and `report` all refuse the same files, each at the line that names it: the card's
`art` line (E0710, E0711) or pack.yaml's `print: art:` entry (E0712).
"""

from __future__ import annotations

import difflib
import mimetypes
from base64 import b64encode
from collections.abc import Iterable, Mapping
from pathlib import Path, PurePosixPath
from typing import Any

from compiler.ir import AnyCard, Card
from compiler.pack import Pack, display_path, hard_linked, resolved
from compiler.passes import kind_span
from compiler.printing.pdf import (
    MAX_IMAGE_PIXELS,
    MAX_RESOURCE_BYTES,
    image_format,
    image_url,
    refused_image,
)
from compiler.printing.svgcheck import (
    MAX_HELD_IMAGES,
    MAX_SVG_DEPTH,
    MAX_SVG_NESTING,
    MAX_SVG_SHAPES,
    svg_problem,
)
from dsl.spans import Diagnostic, Span

ART = "art"
"""The property that names a card's picture; a ruleset gives it its own word by its pattern."""

FALLBACK = "default"
"""The key of `print: art:` whose picture a card of a kind without its own entry gets."""

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".svg", ".webp", ".gif")
"""The image files print draws (WeasyPrint reads them all)."""

FORMATS = {".png": "PNG", ".jpg": "JPEG", ".jpeg": "JPEG", ".webp": "WEBP", ".gif": "GIF"}
"""What the bytes of an image named so must be: a TIFF or BMP under a `.png` name is no PNG."""

REFUSED = {
    "outside": ", outside the pack folder: refused",
    "link": ", a hard link (it may lead outside the pack): refused",
    "missing": ": there is no such file in the pack",
    "type": f": not an image print draws (it must end in {', '.join(IMAGE_SUFFIXES)})",
    "large": f": the file is over {MAX_RESOURCE_BYTES // 2**20} MB: refused",
    "pixels": f": the image (or the pictures an SVG holds, in all) has over"
    f" {MAX_IMAGE_PIXELS // 10**6} million pixels: refused",
    "unreadable": ": it cannot be read as an image, and nothing would be drawn in its place",
    "disguised": ": its bytes are another kind of image than its name says (a TIFF or BMP renamed"
    " .png, say): refused",
    "reaches": ": an SVG that reaches for other files or the network (an href, url(), @import,"
    " xml:base or xml-stylesheet that is not a #fragment of itself): refused",
    "complex": f": an SVG that draws over {MAX_SVG_SHAPES:,} shapes once its <use> copies and"
    f" the SVG images it holds are counted, holds over {MAX_HELD_IMAGES:,} pictures, or declares"
    " entities: refused",
    "deep": f": an SVG that nests its elements over {MAX_SVG_DEPTH} deep, or SVG images in SVG"
    f" images over {MAX_SVG_NESTING} deep: refused",
}
"""Why a file asked for is not drawn, as the end of the sentence that names it."""

_NAMING = frozenset({"outside", "link", "missing", "type"})
"""Reasons that are the name's fault (E0710); the others are the file's (E0711)."""

_HELP = {
    "E0710": 'name an image file inside the pack folder, relative to it: art "images/name.png"',
    "E0711": "save the image again as a PNG, JPEG, WebP or GIF; a card at 300 dpi needs about "
    "750 × 1050 pixels",
    "E0712": "name an image file inside the pack folder, relative to it: item: images/item.png",
}


def art_file(root: Path, written: str) -> tuple[Path | None, str | None]:
    """The pack file a written art name leads to, or None and why it is refused."""
    name = PurePosixPath(written)
    if not name.parts or name.is_absolute() or "\\" in written or ":" in name.parts[0]:
        return None, "outside"  # empty, `.`, absolute, a Windows path or a URL: no pack file
    base, path = resolved(root), resolved(root / name)
    if base is None or path is None:
        return None, "missing"  # links that loop, or a name the system cannot take
    try:
        if not path.is_relative_to(base):
            return None, "outside"
        if not path.is_file():
            return None, "missing"
        if hard_linked(path):
            return None, "link"
        if path.suffix.lower() not in IMAGE_SUFFIXES:
            return None, "type"
        if path.stat().st_size > MAX_RESOURCE_BYTES:
            return None, "large"
        data = path.read_bytes()
    except (OSError, ValueError):  # a name the system cannot take (a NUL), a file gone
        return None, "missing"
    reason = refused_image(data) or _unreadable(data, path)
    return (None, reason) if reason else (path, None)


def _unreadable(data: bytes, path: Path) -> str | None:
    """`unreadable` unless the bytes are an image of the kind the name says."""
    if path.suffix.lower() == ".svg":
        return svg_problem(data)
    found = image_format(data)
    if found is None:
        return "unreadable"
    return None if found[0] == FORMATS.get(path.suffix.lower()) else "disguised"


def card_art(card: AnyCard) -> str | None:
    """The art a card names itself, if it names one."""
    written = (card.get("properties") or {}).get(ART)
    return written if isinstance(written, str) else None


def fallbacks(print_settings: Mapping[str, Any]) -> dict[str, str]:
    """The pack's `print: art:` entries, kind (or `default`) -> file."""
    entries = print_settings.get(ART)
    if not isinstance(entries, dict):
        return {}
    return {str(kind): file for kind, file in entries.items() if isinstance(file, str)}


def art_for(card: Card, print_settings: Mapping[str, Any]) -> str | None:
    """The art a card prints: its own, else its kind's fallback, else the pack's default."""
    entries = fallbacks(print_settings)
    return card_art(card) or entries.get(card["kind"]) or entries.get(FALLBACK)


def art_references(cards: Iterable[AnyCard]) -> list[list[Any]]:
    """Each card's own art and where the card names it: [file, line, column, end line, end
    column, name], plain data so that `check` can keep it in its cache."""
    found: list[list[Any]] = []
    for card in cards:
        written = card_art(card)
        if written is not None:
            at = (card.get("property_at") or {}).get(ART) or card["at"]
            found.append([card["file"], *list(at), written])
    return found


def art_problems(pack: Pack, kinds: Iterable[str], references: list[list[Any]]) -> list[Diagnostic]:
    """E0710/E0711 for each card's art print would refuse, at its `art` line; E0712 for a
    fallback of pack.yaml that it would refuse and W0710 for one of no kind, at its entry."""
    problems = []
    verdicts: dict[str, str | None] = {}

    def refused(written: str) -> str | None:
        if written not in verdicts:
            verdicts[written] = art_file(pack.root, written)[1]
        return verdicts[written]

    for file, line, column, end_line, end_column, written in references:
        reason = refused(written)
        if reason is not None:
            code = "E0710" if reason in _NAMING else "E0711"
            span = Span(file, line, column, end_line, end_column)
            problems.append(_refusal(code, f"art {written[:120]!r}", reason, span))
    known = set(kinds)
    shown = display_path(pack.manifest)
    for kind, written in fallbacks(pack.print_settings).items():
        span = pack.art_spans.get(kind, Span.whole_file(shown))
        if kind != FALLBACK and kind not in known:
            problems.append(_unknown_kind(kind, sorted(known), span))
        reason = refused(written)
        if reason is not None:
            what = f"pack.yaml: print: art: {kind}: {written[:120]!r}"
            problems.append(_refusal("E0712", what, reason, span))
    return problems


def _refusal(code: str, what: str, reason: str, span: Span) -> Diagnostic:
    return Diagnostic(code, "error", f"{what}{REFUSED[reason]}", span, _HELP[code])


def _unknown_kind(kind: str, known: list[str], span: Span) -> Diagnostic:

    close = difflib.get_close_matches(kind, known, n=1)
    return Diagnostic(
        "W0710",
        "warning",
        f"pack.yaml: print: art: {kind!r} is no kind of the ruleset, so no card prints it",
        span,
        f"did you mean {close[0]!r}?" if close else f"the kinds: {', '.join(known)}, or default",
    )


def data_url(root: Path, written: str) -> str | None:
    """The art file as a `data:` URL (what the report's faces show), if print would draw it."""
    path, _ = art_file(root, written)
    if path is None:
        return None
    kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    return f"data:{kind};base64,{b64encode(path.read_bytes()).decode('ascii')}"


def art_image(root: Path, written: str) -> tuple[str, int] | None:
    """The art file as a short `pillbox-image:` URL print's layout fetches it by, and its
    size in bytes, if print would draw it."""
    path, _ = art_file(root, written)
    if path is None:
        return None
    kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    data = path.read_bytes()
    return image_url(data, kind, path.suffix.lower()), len(data)


def too_much_art(card: Card, limit: int) -> Diagnostic:
    """E0713 at the card whose art takes the print past `limit` characters of `data:` URLs."""
    at = (card.get("property_at") or {}).get(ART)
    span = Span.from_list(card["file"], at) if at else kind_span(card)
    return Diagnostic(
        "E0713",
        "error",
        f"the art of the cards comes to more than {limit // 2**20} MB by {card['kind']} "
        f"{card['title']!r}: too much to print at once",
        span,
        "use smaller images (a card at 300 dpi needs about 750 × 1050 pixels, a JPEG of a "
        "few hundred KB), or print part of the pack at a time with --only",
    )
