"""Card faces for the report: the print templates' HTML, each in a sandboxed frame of its own.

A face is rendered exactly as `pillbox print` renders it (`compiler.printing.faces`: the same
sandbox, templates, context and limits), then shown in an `<iframe sandbox srcdoc="…">` of the
printed card size: a document of its own, with the card design (the pack's cards.css, else the
bundled one) in its head. A pack's templates and cards.css are untrusted, and a frame keeps
whatever they do inside the card's box: selectors match within their own document only, so no
rule of theirs reaches the report around the face, however it is nested or what it names
(`:root`, `:not(&)`), and nothing they draw paints outside the frame (`position: fixed` is fixed
to the frame). The sandbox (no `allow-scripts`, no `allow-same-origin`) runs no script and gives
the face an origin of its own; the frame's Content Security Policy, and the page's, which a
srcdoc frame inherits, forbid fetches. A browser is not WeasyPrint, so the face HTML also keeps
only an allowlist of tags and attributes (no links, which would navigate the frame, no forms,
no `<meta>`), and the stylesheet loses every declaration that names something to fetch
(`url()`, `@import`), in one pass however deeply it nests: a pack's own fonts and images are
left out, and the faces fall back to the design's other fonts. An `<img>` keeps only a
`data:image/` source, and only one that print would draw: its bytes are measured as print
measures them (`compiler.printing.pdf`), so an image print refuses (E0704: a 20 KB PNG of
169 million pixels) is left out of the face and reported, never decoded by the browser; a
`url(data:…)` of the styles is dropped with the rest, and reported the same way.

Each frame carries the whole design, so the faces of a report are bounded in all
(`MAX_FACE_BYTES`): past that, a card is shown without its face, and the report says so.
"""

from __future__ import annotations

import binascii
import hashlib
import re
from collections.abc import Iterator
from html import escape
from html.parser import HTMLParser
from urllib.parse import unquote_to_bytes

from compiler.build import CheckedPack
from compiler.ir import Card
from compiler.printing.cards import CardRenderer
from compiler.printing.pdf import Refusal, refused_image
from compiler.printing.sizes import PrintOptions

MAX_FACE_BYTES = 64 * 2**20
"""The face documents of one report, in all: the bundled design is 5 KB a face, so a pack of
thousands of cards fits; a design of 256 KB on thousands of cards would not fit in memory."""

FACE_POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:"
"""The Content Security Policy of the report and of every face frame: no script, no fetch."""

FACE_SANDBOX = ""
"""The frame's sandbox tokens: none at all, so no script, no form, no origin of the page's."""


class DataImages:
    """The `data:` images of the faces, each measured once as print measures it; those print
    refuses are gathered in `refused`, as print's fence gathers them."""

    def __init__(self) -> None:
        self.refused: list[Refusal] = []
        self._verdicts: dict[bytes, bool] = {}  # the URL's digest: a face may repeat a megabyte

    def allowed(self, url: str) -> bool:
        """Whether print would draw this `data:` URL's image."""
        key = hashlib.sha256(url.encode("utf-8", "surrogatepass")).digest()
        if key not in self._verdicts:
            data = data_url_bytes(url)
            reason = "unreadable" if data is None else refused_image(data)
            if reason is not None:
                self.refused.append(Refusal(url, reason))
            self._verdicts[key] = reason is None
        return self._verdicts[key]


_C0_AND_SPACE = "".join(map(chr, range(0x21)))
"""What a browser strips from both ends of a URL."""


def data_url_bytes(url: str) -> bytes | None:
    """The bytes a browser reads from a `data:` URL (the WHATWG fetch standard's data URL
    processor: `;BASE64` in any case, whitespace and padding forgiven), or None if it reads none.

    Not the standard library's decoding, which WeasyPrint uses: a browser takes `;BASE64` for
    base64 where that takes it for text, so what it would decode must be measured as it would.
    """
    url = re.sub(r"[\t\n\r]", "", url).strip(_C0_AND_SPACE).partition("#")[0]
    if url[:5].lower() != "data:" or "," not in url:
        return None
    kind, _, body = url[5:].partition(",")
    data = unquote_to_bytes(body)
    if not re.search(r";[ ]*base64$", kind.strip(" \t\n\f\r"), re.IGNORECASE):
        return data
    text = re.sub(rb"[ \t\n\f\r]", b"", data)
    if len(text) % 4 == 0 and text.endswith(b"="):
        text = text[:-2] if text.endswith(b"==") else text[:-1]
    if len(text) % 4 == 1 or re.search(rb"[^A-Za-z0-9+/]", text):
        return None
    try:
        return binascii.a2b_base64(text + b"=" * (-len(text) % 4), strict_mode=True)
    except binascii.Error:
        return None


class FaceRenderer:
    """Card faces as print renders them (`CardRenderer`), each as the document of a frame."""

    def __init__(self, checked: CheckedPack, options: PrintOptions) -> None:
        self.cards = CardRenderer(checked, options)
        self.options = options
        self.images = DataImages()
        self._design: str | None = None

    def face(self, card: Card, index: int) -> str:
        """The document of the card's face frame: the face as print renders it, cleaned for a
        browser, under the card design (TemplateProblem if a template fails)."""
        if self._design is None:
            self._design = clean_css(self.cards.stylesheet(), self.images)
        html = clean_html(self.cards.face(card, "")[0].html, self.images)
        return (
            '<!DOCTYPE html><html><head><meta charset="utf-8">'
            f'<meta http-equiv="Content-Security-Policy" content="{FACE_POLICY}">'
            f"<style>\n{self._design}</style><style>{_FRAME_GEOMETRY}</style></head><body>"
            f'<div class="slot kind-{escape(card["kind"])}">'
            f'<div class="trim" data-card="{index}">{html}</div></div></body></html>'
        )

    def frame_css(self) -> str:
        """The size of a face frame in the page: the printed card, trimmed."""
        return (
            f".r-face {{ display: block; border: 0; width: {self.options.width:g}mm;"
            f" height: {self.options.height:g}mm; }}\n"
        )


_FRAME_GEOMETRY = (
    "html, body { margin: 0; padding: 0; width: 100%; height: 100%; overflow: hidden }"
    " .slot, .trim { position: absolute; inset: 0; overflow: hidden }"
)
"""The print geometry of a face in its frame, after the design so that it wins, as in print."""


# ------------------------------------------------------------------------------ stylesheets

_FETCHES = re.compile(r"(?:url|image-set|image|cross-fade|element|src|expression)\s*\(|@import")
"""CSS that fetches something or runs code: a declaration or prelude holding it is dropped."""


_DATA_URL = re.compile(
    r"""url\(\s*(?:"(data:[^"\n]*)"|'(data:[^'\n]*)'|(data:[^()"'\s]*))""", re.IGNORECASE
)
"""A `url()` of a `data:` URL, quoted or not. Each match stops at the next quote or bracket,
which the next `url(` holds, so a sheet of thousands of unclosed ones is still read once."""


def clean_css(css: str, images: DataImages | None = None) -> str:
    """The stylesheet without comments and without any declaration, statement or prelude that
    fetches something; its rules and nesting as written otherwise. The `data:` images of what
    is dropped are measured all the same (`images`), so those print refuses are reported.

    One pass over the text: the pieces between braces and semicolons (outside strings and
    brackets, as CSS reads them: `url(data:image/png;base64,…)` is one piece) are each a
    declaration, a statement or a rule's prelude, and each is kept or dropped on its own, so
    the work is linear and no nesting is ever followed.
    """
    images = images or DataImages()
    text = _without_comments(css)
    for found in _DATA_URL.finditer(_unescaped(text)):  # each is in a piece that is dropped
        images.allowed(next(url for url in found.groups() if url is not None))
    out, start, depth = [], 0, 0
    for i, char in _outside_strings(text):
        if char in "()":
            depth = depth + 1 if char == "(" else max(depth - 1, 0)
        elif char in "{};" and not depth:
            out += [_harmless(text[start:i]), char]
            start = i + 1
    out.append(_harmless(text[start:]))
    # No `<` at all, so nothing can end the <style> element the stylesheet goes in.
    return "".join(out).replace("<", "\\3c ") + "\n"


def _harmless(piece: str) -> str:
    return "" if _FETCHES.search(_unescaped(piece).lower()) else piece


def clean_style(style: str, images: DataImages | None = None) -> str:
    """A style attribute's declarations without those that fetch anything."""
    return clean_css(style, images).strip()


def _unescaped(text: str) -> str:
    """CSS escapes undone, so that `u\\72l(` reads as `url(`."""

    def one(found: re.Match[str]) -> str:
        if found.group(1):
            code = int(found.group(1), 16)
            return chr(code) if 0 < code < 0x110000 else "\ufffd"
        return found.group(2)

    return re.sub(r"\\(?:([0-9a-fA-F]{1,6})\s?|(.))", one, text, flags=re.DOTALL)


def _without_comments(css: str) -> str:
    out, i, n = [], 0, len(css)
    while i < n:
        if css.startswith("/*", i):
            end = css.find("*/", i + 2)
            i = n if end < 0 else end + 2
            out.append(" ")
            continue
        if css[i] in "\"'":
            end = _string_end(css, i)
            out.append(css[i:end])
            i = end
            continue
        out.append(css[i])
        i += 1
    return "".join(out)


def _string_end(css: str, start: int) -> int:
    """The index just past the string that starts at `start` (or the end of the line)."""
    quote, i = css[start], start + 1
    while i < len(css) and css[i] not in (quote, "\n"):
        i += 2 if css[i] == "\\" else 1
    return min(i + 1, len(css))


def _outside_strings(text: str) -> Iterator[tuple[int, str]]:
    """Each character that is not inside a string or escaped, with its index."""
    i = 0
    while i < len(text):
        char = text[i]
        if char in "\"'":
            i = _string_end(text, i)
        elif char == "\\":
            i += 2
        else:
            yield i, char
            i += 1


# ------------------------------------------------------------------------------------ HTML


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_TAGS = _words(
    "div span p h1 h2 h3 h4 h5 h6 ul ol li dl dt dd header footer section article aside "
    "strong em b i u s small sub sup br hr blockquote figure figcaption abbr cite code pre "
    "mark q time wbr table thead tbody tfoot tr td th caption col colgroup img "
    "svg g path circle rect line polyline polygon ellipse text tspan"
)
"""Elements a face keeps; others are dropped, their text kept."""

_DROPPED_WITH_CONTENT = _words(
    "script style template iframe object embed noscript textarea title head "
    "select option audio video canvas math frame frameset noembed noframes xmp"
)
"""Elements dropped together with everything inside them."""

_VOID = frozenset({"br", "hr", "img", "wbr", "col"})

_ATTRIBUTES = _words(
    "class style title lang dir colspan rowspan alt width height role viewbox d cx cy r rx ry "
    "x y x1 y1 x2 y2 dx dy points fill stroke stroke-width stroke-linecap stroke-linejoin "
    "opacity fill-opacity stroke-opacity transform font-size font-weight text-anchor "
    "preserveaspectratio xmlns"
)
"""Attributes a face keeps, besides `data-*` and `aria-*`; never `id`, `on…` or links."""


class _Cleaner(HTMLParser):
    """Rebuilds HTML from an allowlist; closes only what it opened, so that a face can never
    close an element of the page around it."""

    def __init__(self, images: DataImages) -> None:
        super().__init__(convert_charrefs=True)
        self.images = images
        self.out: list[str] = []
        self.open: list[str] = []
        self.skipping: list[str] = []  # open elements dropped with their content

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.skipping:
            if tag == self.skipping[-1] and tag not in _VOID:
                self.skipping.append(tag)
            return
        if tag in _DROPPED_WITH_CONTENT:
            self.skipping.append(tag)
            return
        if tag not in _TAGS:
            return
        kept = []
        for name, value in attrs:
            value = value or ""
            if name == "style":
                value = clean_style(value, self.images)
            elif name == "src":
                if tag != "img" or not value.strip().lower().startswith("data:image/"):
                    continue
                if not self.images.allowed(value.strip()):
                    return  # print refuses the image: the face shows none in its place
            elif name not in _ATTRIBUTES and not name.startswith(("data-", "aria-")):
                continue
            if _FETCHES.search(_unescaped(value).lower()):
                continue
            kept.append(f' {name}="{escape(value)}"')
        self.out.append(f"<{tag}{''.join(kept)}>")
        if tag not in _VOID:
            self.open.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if not self.skipping and tag in _TAGS and tag not in _VOID:
            self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        if self.skipping:
            if tag == self.skipping[-1]:
                self.skipping.pop()
            return
        if tag in self.open:
            while self.open:
                last = self.open.pop()
                self.out.append(f"</{last}>")
                if last == tag:
                    break

    def handle_data(self, data: str) -> None:
        if not self.skipping:
            self.out.append(escape(data, quote=False))


def clean_html(html: str, images: DataImages | None = None) -> str:
    """Face HTML with only harmless elements and attributes, every text escaped again, and no
    image print would refuse (each is told to `images`)."""
    cleaner = _Cleaner(images or DataImages())
    cleaner.feed(html)
    cleaner.close()
    return "".join(cleaner.out) + "".join(f"</{tag}>" for tag in reversed(cleaner.open))
