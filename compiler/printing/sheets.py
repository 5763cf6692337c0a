"""`pillbox print`: every card's face (and back) rendered, laid out, and made into a PDF."""

from __future__ import annotations

import re
import time
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from compiler.build import CheckedPack
from compiler.ir import Card
from compiler.pack import display_path
from compiler.passes import kind_span
from compiler.printing.cards import CardRenderer
from compiler.printing.facecache import FaceCache
from compiler.printing.faces import TemplateProblem
from compiler.printing.fit import overflow_warning, printed_words
from compiler.printing.glyphs import glyph_warnings
from compiler.printing.layout import FONTS, Face, face_css, sheet_layout, single_layout
from compiler.printing.output import Previews, write_outputs
from compiler.printing.pdf import Refusal
from compiler.printing.refusals import refusal_diagnostics
from compiler.printing.render import (
    MAX_CHUNK_BYTES,
    MAX_LAID_OUT_BYTES,
    LayoutStopped,
    chunks_of,
    lay_out_faces,
)
from compiler.printing.sizes import PrintOptions
from compiler.printing.tts import (
    DeckCard,
    PackDeck,
    TtsExport,
    TtsRequest,
    plan_export,
    too_large,
)
from compiler.printing.workers import WorkerFailed
from compiler.rulestext import card_listing, card_text
from dsl.spans import Diagnostic, Span

Progress = Callable[[int, int], None]
"""Told (faces done, faces in all) as the faces are laid out; the PDF itself is one last step."""

ASSETS = Path(__file__).resolve().parent / "templates"
"""The package's own files WeasyPrint may read besides the pack's."""


@dataclass
class Printed:
    """What a print job made and what it found on the way."""

    pages: int = 0
    cards: int = 0
    diagnostics: list[Diagnostic] = field(default_factory=list)
    pngs: list[Path] = field(default_factory=list)
    tts: TtsExport | None = None  # what `--tts` wrote
    strict: bool = False  # `print --strict`: a warning stops the job too

    @property
    def failed(self) -> bool:
        """Whether an error (or, strict, a warning) stopped the job."""
        return any(self.strict or d.severity == "error" for d in self.diagnostics)


def select(cards: list[Card], only: str | None) -> list[Card]:
    """`--only KIND` or `--only "Title"`: the cards to print."""
    if not only:
        return cards
    return [c for c in cards if c["kind"] == only or c["title"] == only]


MAX_PRINTED = 20_000
"""Cards a print lays on its pages, copies included: about 2,200 A4 pages of poker cards. A
ruleset may allow a million copies of a card; past this the sheets would take hours and
gigabytes (two cards of a million copies ran past two minutes and 1 GB)."""


def _too_many_copies(cards: list[Card], printed: int) -> Diagnostic:
    """E0709 at the card of the most copies."""
    worst = max(cards, key=_copies)
    return Diagnostic(
        "E0709",
        "error",
        f"the print would lay out {printed:,} cards, copies included ({_copies(worst):,} of "
        f"this one): it lays out at most {MAX_PRINTED:,}",
        kind_span(worst),
        "print fewer copies, or a part of the pack at a time (--only KIND)",
    )


def _copies(card: Card) -> int:
    copies = (card.get("properties") or {}).get("copies", 1)
    return copies if isinstance(copies, int) and copies > 0 else 1


SLUG_LENGTH = 40
"""The longest title part of a PNG name, cut at the end of a word."""


def slug(card: Card) -> str:
    """A card's file name stem: its title's letters in any script, lowercased, words joined by
    dashes and cut at a word, then its variant (`skalpell-für-ärzte-v2`)."""
    title = unicodedata.normalize("NFC", card["title"]).casefold()
    kept = "".join(c if c.isalnum() or unicodedata.category(c)[0] == "M" else "-" for c in title)
    words = re.sub("-+", "-", kept).strip("-")
    if len(words) > SLUG_LENGTH:
        cut = words[: SLUG_LENGTH + 1].rfind("-")
        words = words[: cut if cut > 0 else SLUG_LENGTH].rstrip("-")
    variant = card.get("variant")
    return (words or "card") + (f"-v{variant}" if isinstance(variant, int) else "")


def print_pack(
    checked: CheckedPack,
    options: PrintOptions,
    target: Path | None,
    only: str | None = None,
    png_folder: Path | None = None,
    dpi: int = 150,
    progress: Progress | None = None,
    strict: bool = False,
    tts: TtsRequest | None = None,
) -> Printed:
    """Render, lay out and write the PDF (and PNGs, and the Tabletop Simulator decks); nothing
    is written if anything fails (strict: if anything is even warned of)."""
    result = Printed(strict=strict)
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
    renderer = CardRenderer(checked, options, inline_art=False)
    try:
        faces = _faces(renderer, cards, options, options.backs or tts is not None)
        laid = _LaidOut(checked, options, renderer.stylesheet())
    except TemplateProblem as problem:
        result.diagnostics.append(problem.diagnostic)
        return result
    decks = _tts_decks(renderer, cards, faces.card_backs) if tts is not None else []
    oversized = too_large(decks, cards) if tts is not None else None
    if oversized is not None:  # before any layout: the saved object alone would be gigabytes
        result.diagnostics.append(oversized)
        return result
    if len(faces.copies) > MAX_PRINTED:  # before any layout, as the Tabletop export's
        result.diagnostics.append(_too_many_copies(cards, len(faces.copies)))
        return result
    try:
        laid.add(faces.items, progress)
        clipped = laid.clipped(range(len(cards))) - faces.smallest
        if clipped:
            # Text the page cut off at the estimated size gets one more try at the smallest.
            again = sorted(clipped)
            redone = [renderer.face(cards[index], str(index), smallest=True)[0] for index in again]
            laid.add(redone, None, again)
    except TemplateProblem as problem:
        result.diagnostics.append(problem.diagnostic)
        return result
    finally:
        laid.save_cache()  # what was laid out is kept, even when a later step failed
    result.diagnostics += refusal_diagnostics(laid.refused, renderer)
    # Past the shrinking steps, or still cut off at the smallest: say so, never silently.
    overflowing = faces.overflowing | laid.clipped(range(len(cards)))
    result.diagnostics += [overflow_warning(cards[index]) for index in sorted(overflowing)]
    result.diagnostics += renderer.no_room_for_art.values()  # W0711
    sources = {f.file: f.text for f in checked.files}
    for card in cards:
        printed = printed_words(checked.ruleset, card)
        result.diagnostics += glyph_warnings(card, printed, sources.get(card["file"], ""))
    if result.failed:
        return result
    arrange = single_layout if options.layout == "single" else sheet_layout
    pages = arrange(faces.copies, faces.backs if options.backs else None, options)
    previews = None
    if png_folder is not None:
        names = [f"{index:03d}-{slug(card)}.png" for index, card in enumerate(cards, 1)]
        previews = Previews(png_folder, laid.where[: len(cards)], names, dpi, options.bleed)
    if tts is not None:
        title = (checked.name, renderer.title)
        size = (options.width, options.height)
        result.tts = plan_export(tts.folder, tts.url_prefix, title, decks, size, dpi, options.bleed)
    more = [result.tts] if result.tts is not None else []
    try:
        result.pngs = write_outputs(
            laid.data, laid.where, pages, target, previews, laid.deadline, more
        )
    except WorkerFailed as failed:
        result.diagnostics.append(_too_much(checked, failed, "making the sheets", _whole_print()))
        return result
    result.cards = len(faces.copies)
    result.pages = len(pages)
    return result


@dataclass
class _Faces:
    """The face pages to lay out (each card's face once, each deck's back once) and which of
    them every printed card (copies expanded) shows on its front and its back."""

    items: list[Face] = field(default_factory=list)
    copies: list[int] = field(default_factory=list)
    backs: list[int] = field(default_factory=list)
    card_backs: list[int] = field(default_factory=list)  # each card's back, once
    overflowing: set[int] = field(default_factory=set)  # too long even at the smallest text
    smallest: set[int] = field(default_factory=set)  # already at the smallest text


def _faces(
    renderer: CardRenderer, cards: list[Card], options: PrintOptions, with_backs: bool
) -> _Faces:
    """Render each card's face through its template once, and (`with_backs`) each deck's back
    once; the backs of the printed cards only for duplex backs."""
    faces = _Faces()
    fronts: list[int] = []
    back_of: list[Face] = []
    for index, card in enumerate(cards):
        face, overflow, at_smallest = renderer.face(card, str(index))
        if overflow:
            faces.overflowing.add(index)
        if at_smallest:
            faces.smallest.add(index)  # already as small as text goes: no layout again for it
        faces.items.append(face)
        fronts += [index] * _copies(card)
        if with_backs:
            back_of.append(renderer.back(card))
    distinct: dict[Face, int] = {}
    for back in back_of:
        if back not in distinct:
            distinct[back] = len(faces.items)
            faces.items.append(back)
    faces.copies = fronts
    faces.card_backs = [distinct[back] for back in back_of]
    if options.backs:
        faces.backs = [faces.card_backs[index] for index in fronts]
    return faces


def _tts_decks(renderer: CardRenderer, cards: list[Card], backs: list[int]) -> list[PackDeck]:
    """The pack's decks as `--tts` writes them: each card's face page (its index), title, rules
    text and copies, and the deck's back, in the order the pack first names each deck."""
    ruleset = renderer.checked.ruleset
    decks: dict[str, tuple[int, list[DeckCard]]] = {}
    for index, card in enumerate(cards):
        _, *text = card_listing(ruleset, card_text(ruleset, card))  # not its heading: the title
        deck = decks.setdefault(renderer.deck(card), (backs[index], []))
        deck[1].append(DeckCard(index, card["title"], "\n".join(text), _copies(card)))
    return [PackDeck(name, back, deck) for name, (back, deck) in decks.items()]


LAYOUT_SECONDS = 30.0
LAYOUT_SECONDS_PER_FACE = 0.25
"""WeasyPrint is stopped after 30 s and a quarter second a face: nested flex, grid or columns
(in a pack's templates or cards.css) take time exponential in their depth; a few make hours."""

PRINT_SECONDS = 600.0
"""However many faces, a print stops after this long: its layouts, the sheets and previews."""


@dataclass
class _LaidOut:
    """The face pages laid out so far: the chunk PDFs and where in them each face page is.

    The faces are cut into chunks (`chunks_of`); a chunk an earlier print laid out from the
    same faces (`facecache`) is taken as it is, and only the others are laid out: each face
    page's fonts are those of its chunk, so the PDF is the same whatever the cache held.
    `single_pages` (for pictures, whose pixels do not depend on a page's neighbours) takes any
    face's page kept, whatever chunk it was laid out in.
    """

    checked: CheckedPack
    options: PrintOptions
    stylesheet: str
    single_pages: bool = False
    data: list[bytes] = field(default_factory=list)
    where: list[tuple[int, int]] = field(default_factory=list)  # face page -> (chunk, page)
    refused: list[Refusal] = field(default_factory=list)
    cache: FaceCache | None = None
    _clipped: set[str] = field(default_factory=set)
    _cached_chunks: dict[str, int] = field(default_factory=dict)  # digest -> index in data
    deadline: float = field(default_factory=lambda: time.monotonic() + PRINT_SECONDS)

    def __post_init__(self) -> None:
        if self.checked.root is not None:
            geometry = face_css(self.options)
            self.cache = FaceCache.open(self.checked.root, self.stylesheet, geometry, self._roots)

    @property
    def _roots(self) -> list[Path]:
        """The folders WeasyPrint may read: pillbox's own assets and fonts, and the pack."""
        return [ASSETS, FONTS] + ([self.checked.root] if self.checked.root else [])

    def add(
        self, faces: list[Face], progress: Progress | None, replace: list[int] | None = None
    ) -> None:
        """Lay these faces out, as new face pages or in place of those `replace` names."""
        if replace is not None:
            self._clipped -= {str(index) for index in replace}  # their new layout decides
        groups = [[face] for face in faces] if self.single_pages else chunks_of(faces)
        found = [self._kept(group) for group in groups]
        missing = [group for group, pages in zip(groups, found, strict=True) if pages is None]
        if missing:
            parts = (
                chunks_of([f for group in missing for f in group]) if self.single_pages else missing
            )
            new = iter([page for pages in self._lay_out(parts, progress) for page in pages])
            found = [
                pages if pages is not None else [next(new) for _ in group]
                for group, pages in zip(groups, found, strict=True)
            ]
        laid = [page for pages in found if pages is not None for page in pages]
        if replace is None:
            self.where += laid
        else:
            for target, page in zip(replace, laid, strict=True):
                self.where[target] = page

    def save_cache(self) -> None:
        """Keep this print's face pages for the next one."""
        if self.cache is not None:
            self.cache.save()

    def _kept(self, faces: Sequence[Face]) -> list[tuple[int, int]] | None:
        """The pages of a chunk (or, `single_pages`, of one face) from an earlier print, if the
        cache has it whole."""
        if self.cache is None:
            return None
        if self.single_pages:
            hit = self.cache.find(faces[0])
            hits = [hit] if hit is not None else None
        else:
            hits = self.cache.find_chunk(faces)
        if not hits:
            return None
        for digest in dict.fromkeys(hit.chunk for hit in hits):
            if digest not in self._cached_chunks:
                data = self.cache.read(digest)
                if data is None:
                    return None
                self._cached_chunks[digest] = len(self.data)
                self.data.append(data)
        self._clipped |= {face.key for face, hit in zip(faces, hits, strict=True) if hit.clipped}
        return [(self._cached_chunks[hit.chunk], hit.page) for hit in hits]

    def _lay_out(
        self, parts: list[Sequence[Face]], progress: Progress | None
    ) -> list[list[tuple[int, int]]]:
        """Lay chunks of faces out with WeasyPrint; the chunk and page of each face, by part."""
        base = (self.checked.root or Path.cwd()).resolve()
        count = sum(len(part) for part in parts)
        seconds = LAYOUT_SECONDS + LAYOUT_SECONDS_PER_FACE * count
        limit = f"{seconds:g} s"
        if self.deadline - time.monotonic() < seconds:
            seconds, limit = self.deadline - time.monotonic(), _whole_print()
        try:
            chunks = lay_out_faces(
                parts, self.options, self.stylesheet, base, self._roots, seconds, progress
            )
        except LayoutStopped as stopped:
            raise TemplateProblem(
                _too_much(self.checked, stopped, "laying out the cards", limit)
            ) from None
        pages = []
        for part, chunk in zip(parts, chunks, strict=True):
            pages.append([(len(self.data), page) for page in range(chunk.pages)])
            if self.cache is not None:
                self.cache.keep(part, chunk)
            self.data.append(chunk.data)
            self.refused += chunk.refused
            self._clipped |= chunk.clipped
        return pages

    def clipped(self, cards: Iterable[int]) -> set[int]:
        """Which of these cards lost text to clipping in their latest layout."""
        return {index for index in cards if str(index) in self._clipped}


def _whole_print() -> str:
    return f"the {PRINT_SECONDS:g} s a whole print may take"


def _too_much(checked: CheckedPack, failed: WorkerFailed, doing: str, limit: str) -> Diagnostic:
    """E0701 for a step too slow or nested too deeply, E0705 for one that needs too much memory
    or makes too large a PDF: at the pack's templates, whose design it is. E0708 for a worker
    the system could not start: at the pack, nothing of which is to blame."""
    if failed.reason == "start":
        return Diagnostic(
            "E0708",
            "error",
            f"cannot start a process for {doing}: {failed.detail}",
            Span.whole_file(display_path(checked.root) if checked.root else "pack.yaml"),
            "the system runs too many processes or has too little memory free: "
            "print again when fewer programs run",
        )
    where = display_path(checked.root / "templates") if checked.root else "templates"
    if failed.reason in ("memory", "large"):
        needs = (
            f"more than {failed.memory_mb} MB of memory"
            if failed.reason == "memory"
            else f"more PDF than a print may hold ({MAX_CHUNK_BYTES // 2**20} MB a document, "
            f"{MAX_LAID_OUT_BYTES // 2**20} MB in all)"
        )
        return Diagnostic(
            "E0705",
            "error",
            f"{doing} needs {needs}: the templates or cards.css draw too much",
            Span.whole_file(where),
            "draw less: no gradients of thousands of stripes, no thousands of boxes a card",
        )
    if failed.reason == "sizes":
        return Diagnostic(
            "E0701",
            "error",
            f"{doing} failed on sizes WeasyPrint cannot compute ({failed.detail}): the "
            "templates or cards.css ask for lengths far too large or too small",
            Span.whole_file(where),
            "keep font sizes, widths and borders to what a card can hold (no 1e30px)",
        )
    how = "is nested too deeply" if failed.reason == "deep" else f"took longer than {limit}"
    return Diagnostic(
        "E0701",
        "error",
        f"{doing} {how}: the templates or cards.css are too complex",
        Span.whole_file(where),
        "keep flex, grid and columns inside one another to a few levels",
    )


LaidOut = _LaidOut
"""Face pages laid out through the face cache, for `pillbox serve`'s pictures."""
