"""`pillbox print`: every card's face (and back) rendered, laid out, and made into a PDF."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2
from jinja2.sandbox import ImmutableSandboxedEnvironment

from compiler.build import CheckedPack
from compiler.pack import display_path
from compiler.printing.faces import (
    FIT_STEPS,
    TemplateProblem,
    _deadline,
    environment,
    face_data,
    render,
    template_names,
)
from compiler.printing.layout import Face, sheet_css, sheet_pages, single_css, single_pages
from compiler.printing.pdf import Rendered, pdf_to_pngs, render_pdf, write_atomically
from compiler.printing.sizes import PrintOptions
from dsl.spans import Diagnostic, Span

IR = dict[str, Any]
Progress = Callable[[int, int], None]
"""Told (cards done, cards in all) as faces render; the PDF itself is one last step."""

ASSETS = Path(__file__).resolve().parent / "templates"
"""The package's own files WeasyPrint may read besides the pack's."""


@dataclass
class Printed:
    """What a print job made and what it found on the way."""

    pages: int = 0
    cards: int = 0
    diagnostics: list[Diagnostic] = field(default_factory=list)
    pngs: list[Path] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        """Whether an error stopped the job (warnings do not)."""
        return any(d.severity == "error" for d in self.diagnostics)


def select(cards: list[IR], only: str | None) -> list[IR]:
    """`--only KIND` or `--only "Title"`: the cards to print."""
    if not only:
        return cards
    return [c for c in cards if c["kind"] == only or c["title"] == only]


@dataclass
class _Renderer:
    """Renders faces and backs once per card, through the sandbox."""

    checked: CheckedPack
    options: PrintOptions
    title: str
    env: ImmutableSandboxedEnvironment = field(init=False)

    def __post_init__(self) -> None:
        ruleset = self.checked.ruleset
        decks = [*ruleset.decks, *ruleset.kinds]
        folder = self.checked.root / "templates" if self.checked.root else None
        self.env = environment(folder, template_names(list(ruleset.kinds), decks))

    def has(self, name: str) -> bool:
        """Whether the pack or the tool has a template of this name.

        It is not compiled here: compiling runs its constant expressions, so only `render`
        compiles, under its limits, and reports what goes wrong at the template's line.
        """
        loader = self.env.loader
        assert loader is not None
        try:
            loader.get_source(self.env, name)
        except jinja2.TemplateNotFound:
            return False
        return True

    def template_for(self, kind: str) -> str:
        """The kind's own template if there is one, else the generic card."""
        return f"{kind}.html" if self.has(f"{kind}.html") else "card.html"

    def face(self, card: IR, key: str, smallest: bool = False) -> tuple[Face, bool, bool]:
        """A card's face, and whether its text overflows even when shrunk."""
        data = face_data(self.checked.ruleset, card, self.options, self.title, smallest)
        html = render(self.env, self.template_for(card["kind"]), {"card": data.context})
        return Face(html, card["kind"], key), data.overflow, data.fit == len(FIT_STEPS) - 1

    def back(self, card: IR) -> Face:
        """The back of a card: its deck's back template, else the common one."""
        kind = self.checked.ruleset.kinds.get(card["kind"])
        deck = (kind.deck if kind is not None else None) or card["kind"]
        name = f"back-{deck}.html" if self.has(f"back-{deck}.html") else "back.html"
        context = {"deck": deck, "deck_name": deck.replace("_", " ").title(), "pack": self.title}
        return Face(render(self.env, name, {"back": context}), "back")

    def stylesheet(self) -> str:
        """The card design: the pack's `templates/cards.css`, else the bundled one (not run)."""
        loader = self.env.loader
        assert loader is not None
        source, _, _ = loader.get_source(self.env, "cards.css")
        return source


def _copies(card: IR) -> int:
    copies = (card.get("properties") or {}).get("copies", 1)
    return copies if isinstance(copies, int) and copies > 0 else 1


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:40] or "card"


def _overflow(card: IR) -> Diagnostic:
    line, column = card["at"][:2]
    return Diagnostic(
        "W0701",
        "warning",
        f"the text of {card['kind']} {card['title']!r} does not fit on the card, even shrunk",
        Span(card["file"], line, column, line, column + len(card["kind"])),
        "shorten the text, or print on a larger card size (--card tarot)",
    )


def print_pack(
    checked: CheckedPack,
    options: PrintOptions,
    target: Path,
    only: str | None = None,
    png_folder: Path | None = None,
    dpi: int = 150,
    progress: Progress | None = None,
) -> Printed:
    """Render, lay out and write the PDF (and PNGs); nothing is written if anything fails."""
    result = Printed()
    cards = select(checked.cards, only)
    if not cards:
        result.diagnostics.append(
            Diagnostic(
                "E0703",
                "error",
                f"--only {only!r} names no kind or card title of the pack",
                Span.whole_file(checked.files[0].file if checked.files else "pack.yaml"),
            )
        )
        return result
    renderer = _Renderer(checked, options, checked.title or checked.name)
    roots = [ASSETS] + ([checked.root] if checked.root else [])
    smallest: set[int] = set()
    try:
        stylesheet = renderer.stylesheet()
        while True:
            laid = _lay_out(renderer, cards, options, smallest, progress)
            rendered = _render(laid.body, laid.geometry, stylesheet, checked, roots)
            clipped = {int(key) for key in rendered.clipped if key.isdigit()}
            # Text the page cut off at the estimated size gets one more try at the smallest.
            if not clipped - smallest:
                break
            smallest |= clipped
            progress = None
    except TemplateProblem as problem:
        result.diagnostics.append(problem.diagnostic)
        return result
    data = rendered.data
    faces, per_card = laid.faces, laid.per_card
    result.diagnostics += _refusals(rendered.refused, checked)
    # Past the shrinking steps, or still cut off at the smallest: say so, never silently.
    overflowing = laid.overflowing | clipped
    result.diagnostics += [_overflow(cards[index]) for index in sorted(overflowing)]
    if result.failed:
        return result
    write_atomically(target, data)
    result.cards = len(faces)
    result.pages = _page_count(data)
    if png_folder is not None:
        result.pngs = _previews(per_card, cards, stylesheet, checked, options, png_folder, dpi)
    return result


@dataclass
class _Laid:
    """Every face rendered and placed: the document body and what went into it."""

    body: str
    geometry: str
    faces: list[Face]
    per_card: list[Face]
    overflowing: set[int]


def _lay_out(
    renderer: _Renderer,
    cards: list[IR],
    options: PrintOptions,
    smallest: set[int],
    progress: Progress | None,
) -> _Laid:
    """Render each card's face (and back), expand copies, and place them on pages."""
    faces: list[Face] = []
    backs: list[Face] | None = [] if options.backs else None
    per_card: list[Face] = []
    overflowing: set[int] = set()
    for index, card in enumerate(cards):
        face, overflow, at_smallest = renderer.face(card, str(index), index in smallest)
        if overflow:
            overflowing.add(index)
        if at_smallest:
            smallest.add(index)  # already as small as text goes: no layout again for it
        back = renderer.back(card) if backs is not None else None
        per_card.append(face)
        for _ in range(_copies(card)):
            faces.append(face)
            if backs is not None and back is not None:
                backs.append(back)
        if progress is not None:
            progress(index + 1, len(cards))
    if options.layout == "single":
        body, geometry = single_pages(faces, backs, options), single_css(options)
    else:
        body, geometry = sheet_pages(faces, backs, options), sheet_css(options)
    return _Laid(body, geometry, faces, per_card, overflowing)


LAYOUT_SECONDS = 30.0
LAYOUT_SECONDS_PER_FACE = 0.25
"""WeasyPrint is stopped after 30 s and a quarter second a face: nested flex, grid or columns
(in a pack's templates or cards.css) take time exponential in their depth; a few make hours."""


class _LayoutExpired(BaseException):
    """WeasyPrint ran out of time (not an Exception: WeasyPrint catches those, and OSError)."""


def _render(
    body: str,
    geometry: str,
    stylesheet: str,
    checked: CheckedPack,
    roots: list[Path],
    limited: bool = True,
) -> Rendered:
    # The design comes first so the tool's geometry wins wherever the two disagree.
    html = (
        '<!DOCTYPE html><html><head><meta charset="utf-8">'
        f"<style>{_css_text(stylesheet)}</style><style>{geometry}</style>"
        f"</head><body>{body}</body></html>"
    )
    base = (checked.root or Path.cwd()).resolve()
    if not limited:
        return render_pdf(html, base, roots)
    seconds = LAYOUT_SECONDS + LAYOUT_SECONDS_PER_FACE * body.count('class="trim"')
    import weasyprint  # noqa: F401  (not under the deadline: its first import takes a while)

    try:
        with _deadline(seconds, _LayoutExpired):
            return render_pdf(html, base, roots)
    except (_LayoutExpired, RecursionError) as error:
        where = display_path(checked.root / "templates") if checked.root else "templates"
        stopped = (
            f"took longer than {seconds:g} s"
            if isinstance(error, _LayoutExpired)
            else "is nested too deeply"
        )
        raise TemplateProblem(
            Diagnostic(
                "E0701",
                "error",
                f"laying out the cards {stopped}: the templates or cards.css are too complex",
                Span.whole_file(where),
                "keep flex, grid and columns inside one another to a few levels",
            )
        ) from None


def _css_text(css: str) -> str:
    """A stylesheet safe to put inside <style>: it cannot close the element."""
    return re.sub(r"</", r"<\\/", css)


def _refusals(refused: list[str], checked: CheckedPack) -> list[Diagnostic]:
    where = display_path(checked.root / "templates") if checked.root else "templates"
    return [
        Diagnostic(
            "E0702",
            "error",
            f"a template asks for {url[:120]!r}, outside the pack folder: refused",
            Span.whole_file(where),
            "images and fonts must be files inside the pack folder, named relative to it",
        )
        for url in dict.fromkeys(refused)
    ]


def _previews(
    faces: list[Face],
    cards: list[IR],
    stylesheet: str,
    checked: CheckedPack,
    options: PrintOptions,
    folder: Path,
    dpi: int,
) -> list[Path]:
    """One PNG per card (copies once), without bleed or marks."""
    from dataclasses import replace

    plain = replace(options, bleed=0.0, marks=False, layout="single")
    roots = [ASSETS] + ([checked.root] if checked.root else [])
    body = single_pages(faces, None, plain)
    # Unlimited: the same faces were just laid out within the limit, on sheets.
    rendered = _render(body, single_css(plain), stylesheet, checked, roots, limited=False)
    folder.mkdir(parents=True, exist_ok=True)
    names = [f"{index:03d}-{_slug(card['title'])}.png" for index, card in enumerate(cards, 1)]
    return pdf_to_pngs(rendered.data, names, folder, dpi)


def _page_count(data: bytes) -> int:
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(data)
    try:
        return len(document)
    finally:
        document.close()
