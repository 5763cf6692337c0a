"""Card faces for the report: the print templates' HTML, made safe to show inside another page.

A face is rendered exactly as `pillbox print` renders it (`compiler.printing.faces`: the same
sandbox, templates, context and limits), then placed in a box of the printed card size. A
pack's templates and cards.css are untrusted, and a browser, unlike the PDF renderer, runs
scripts and fetches what a page names: so the face HTML keeps only an allowlist of tags and
attributes, the stylesheet is scoped under `SCOPE` so it styles the faces and nothing else, and
neither may name anything to fetch (`url()`, `@import`): a pack's own fonts and images are
left out, and the faces fall back to the design's other fonts. The page's Content Security
Policy forbids scripts and fetches as well.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from html import escape
from html.parser import HTMLParser
from typing import Any

from compiler.build import CheckedPack
from compiler.printing.cards import CardRenderer
from compiler.printing.sizes import PrintOptions

IR = dict[str, Any]

SCOPE = ".pillbox-face"
"""Every rule of a card stylesheet applies only inside an element of this class."""


class FaceRenderer:
    """Card faces as print renders them (`CardRenderer`), cleaned and scoped for a browser."""

    def __init__(self, checked: CheckedPack, options: PrintOptions) -> None:
        self.cards = CardRenderer(checked, options)
        self.options = options

    def face(self, card: IR) -> str:
        """The card's face as print renders it, cleaned for a browser (TemplateProblem if the
        template fails)."""
        return clean_html(self.cards.face(card, "")[0].html)

    def stylesheet(self) -> str:
        """The card design (the pack's cards.css, else the bundled one), scoped and cleaned,
        over a reset: a face inherits nothing from the page around it."""
        reset = f"{SCOPE} {{ all: initial; display: block; }}\n"
        return reset + scope_css(self.cards.stylesheet(), SCOPE)

    def geometry(self) -> str:
        """The print geometry of a face box, after the design so that it wins, as in print."""
        return (
            f"{SCOPE} {{ display: block; position: relative; width: {self.options.width:g}mm;"
            f" height: {self.options.height:g}mm; overflow: hidden; contain: strict; }}\n"
            f"{SCOPE} .slot, {SCOPE} .trim {{ position: absolute; inset: 0; overflow: hidden; }}\n"
        )


# ------------------------------------------------------------------------------ stylesheets

_FETCHES = re.compile(r"(?:url|image-set|image|cross-fade|element|src|expression)\s*\(|@import")
"""CSS that fetches something or runs code: a declaration holding it is dropped."""

_KEPT_AT_RULES = ("@media", "@supports", "@container", "@layer")
"""At-rules whose rules are scoped and kept; `@keyframes` is kept as written; others go."""

_ROOTS = re.compile(r"^(?:(?:html|body|:root)(?![\w-])\s*>?\s*)+", re.IGNORECASE)


def scope_css(css: str, scope: str) -> str:
    """The stylesheet with every selector inside `scope` and nothing that fetches."""
    out = []
    for prelude, body in _statements(_without_comments(css)):
        if body is None:
            continue  # @import, @charset, @namespace, `@layer a, b;`: nothing a face needs
        if prelude.startswith("@"):
            name = prelude.split(None, 1)[0].split("(", 1)[0].lower()
            if name in _KEPT_AT_RULES:
                out.append(f"{prelude} {{\n{scope_css(body, scope)}}}")
            elif name.endswith("keyframes"):
                frames = [f"{p} {{ {_declarations(b or '')} }}" for p, b in _statements(body)]
                out.append(f"{prelude} {{ {' '.join(frames)} }}")
            continue  # @font-face (its fonts are not embedded), @page, unknown
        selectors = [_scoped(s, scope) for s in _split(prelude, ",")]
        out.append(f"{', '.join(s for s in selectors if s)} {{ {_declarations(body)} }}")
    # No `<` at all, so nothing can end the <style> element the stylesheet goes in.
    return "\n".join(out).replace("<", "\\3c ") + "\n"


def _scoped(selector: str, scope: str) -> str:
    selector = selector.strip()
    if not selector:
        return ""
    rest = _ROOTS.sub("", selector)
    return f"{scope} {rest}" if rest else scope


def _declarations(body: str) -> str:
    kept = []
    for declaration in _split(body, ";"):
        if declaration.strip() and not _FETCHES.search(_unescaped(declaration).lower()):
            kept.append(declaration.strip())
    return "; ".join(kept)


def clean_style(style: str) -> str:
    """A style attribute's declarations without those that fetch anything."""
    return _declarations(style)


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


def _outside_strings(text: str, start: int = 0) -> Iterator[tuple[int, str]]:
    """Each character from `start` that is not inside a string or escaped, with its index."""
    i = start
    while i < len(text):
        char = text[i]
        if char in "\"'":
            i = _string_end(text, i)
        elif char == "\\":
            i += 2
        else:
            yield i, char
            i += 1


def _statements(css: str) -> list[tuple[str, str | None]]:
    """Top-level `prelude { body }` rules and `statement;`s."""
    out: list[tuple[str, str | None]] = []
    start = 0
    for i, char in _outside_strings(css):
        if i < start:
            continue  # inside a block already taken whole
        if char == "{":
            end = _closing(css, i)
            out.append((css[start:i].strip(), css[i + 1 : end]))
            start = end + 1
        elif char == ";":
            out.append((css[start:i].strip(), None))
            start = i + 1
        elif char == "}":
            start = i + 1  # a stray brace: dropped, as a browser drops it
    return out


def _closing(css: str, opening: int) -> int:
    depth = 0
    for i, char in _outside_strings(css, opening):
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return i
    return len(css)


def _split(text: str, separator: str) -> list[str]:
    """Split at `separator` outside strings, brackets and parentheses."""
    parts, depth, start = [], 0, 0
    for i, char in _outside_strings(text):
        if char in "([":
            depth += 1
        elif char in ")]":
            depth = max(depth - 1, 0)
        elif char == separator and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


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

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
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
                value = clean_style(value)
            elif name == "src":
                if tag != "img" or not value.strip().lower().startswith("data:image/"):
                    continue
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


def clean_html(html: str) -> str:
    """Face HTML with only harmless elements and attributes, every text escaped again."""
    cleaner = _Cleaner()
    cleaner.feed(html)
    cleaner.close()
    return "".join(cleaner.out) + "".join(f"</{tag}>" for tag in reversed(cleaner.open))
