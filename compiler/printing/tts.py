"""`print --tts DIR`: the cards as Tabletop Simulator decks, a saved object that loads them.

Each deck of the pack (a kind's `deck:`, else the kind) becomes one `DeckCustom` object of
TTS's saved-object JSON. Its faces go on sheets of at most 10 × 7 slots and 4096 pixels a side
(the largest TTS reads), scaled down to fit; the last slot of a sheet is the "hidden" card TTS
keeps there (here the deck's back), so a sheet holds 69 faces and a larger deck takes several
sheets, each a `CustomDeck` of the same object. A face is on its sheet once; its copies are
repeated in `DeckIDs` and `ContainedObjects`, as TTS saves a deck. A card's `CardID` is its
sheet's id times 100 plus its slot. The sheets are drawn from the very pages the PNG previews
are (so a re-print takes them from the face cache) in the print's capped worker.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from compiler.files import write_whole
from compiler.ir import Card
from compiler.passes import kind_span
from compiler.printing.pdf import card_images, write_png
from dsl.spans import Diagnostic

COLUMNS = 10
ROWS = 7
FACES_PER_SHEET = COLUMNS * ROWS - 1
"""The 70th slot is TTS's hidden card."""

MAX_SIDE = 4096
"""Pixels a sheet may have on a side: TTS does not load larger images."""

SMALLEST_GRID = 2
"""TTS's custom decks are at least 2 × 2 slots."""

MAX_CARDS = 10_000
"""Cards a saved object holds at most, copies included: each is an object of its own in TTS
(and in the JSON), and TTS slows to a crawl long before."""

MAX_TEXT = 16_000_000
"""Characters of titles and rules text a saved object holds at most, every copy counted."""

SPACING = 2.5
"""How far apart, in TTS's units, the decks lie on the table (a card is about 2 wide)."""


@dataclass(frozen=True)
class DeckCard:
    """A card as TTS shows it: its face page, title, rules text and number of copies."""

    face: int
    title: str
    text: str
    copies: int


@dataclass(frozen=True)
class PackDeck:
    """The cards of one of the pack's decks and the face page of its back."""

    name: str
    back: int
    cards: Sequence[DeckCard]


@dataclass(frozen=True)
class Sheet:
    """One sheet of faces: its file, its id among TTS's custom decks, its face pages in slot
    order and its grid."""

    name: str
    deck_id: int
    faces: tuple[int, ...]
    columns: int
    rows: int


@dataclass(frozen=True)
class Deck:
    """A deck's sheets and the file and face page of its back."""

    sheets: tuple[Sheet, ...]
    back_name: str
    back: int


@dataclass(frozen=True)
class TtsExport:
    """Everything `--tts` writes into its folder: the sheets, the backs, the saved object."""

    folder: Path
    decks: tuple[Deck, ...]
    json_name: str
    saved_object: str
    card_inches: tuple[float, float]
    dpi: int
    bleed: float

    @property
    def names(self) -> list[str]:
        """The files written, in order; the saved object last, once its images are there."""
        images = [[*(sheet.name for sheet in deck.sheets), deck.back_name] for deck in self.decks]
        return [name for names in images for name in names] + [self.json_name]

    def draw(
        self,
        chunks: Sequence[bytes],
        where: Sequence[tuple[int, int]],
        paths: Sequence[tuple[Path, Path]],
    ) -> None:
        """Draw each sheet and back from the laid-out face pages (`where`: the chunk and page of
        each) and write every file whole to the first path of its pair in `paths`."""
        from PIL import Image

        targets = iter(paths)
        for deck in self.decks:
            for sheet in deck.sheets:
                dpi, slot = self.fit(sheet.columns, sheet.rows)
                wanted = [(*where[face], dpi) for face in (*sheet.faces, deck.back)]
                image = Image.new("RGB", (slot[0] * sheet.columns, slot[1] * sheet.rows), "white")
                drawn = card_images(chunks, wanted, self.bleed)
                slots = [*range(len(sheet.faces)), sheet.columns * sheet.rows - 1]
                for index, card in zip(slots, drawn, strict=True):
                    at = (index % sheet.columns * slot[0], index // sheet.columns * slot[1])
                    image.paste(_sized(card.convert("RGB"), slot), at)
                write_png(image, next(targets))
            dpi, slot = self.fit(1, 1)
            back = next(card_images(chunks, [(*where[deck.back], dpi)], self.bleed))
            write_png(_sized(back.convert("RGB"), slot), next(targets))
        temporary, shown = next(targets)
        write_whole(temporary, self.saved_object.encode(), shown)

    def fit(self, columns: int, rows: int) -> tuple[float, tuple[int, int]]:
        """The resolution that fits a grid of cards in MAX_SIDE, and the slot size it gives."""
        width, height = (inches * self.dpi for inches in self.card_inches)
        scale = min(1.0, MAX_SIDE / (columns * width), MAX_SIDE / (rows * height))
        return self.dpi * scale, (max(1, int(width * scale)), max(1, int(height * scale)))


def _sized(image: Any, size: tuple[int, int]) -> Any:
    """The image at exactly the slot's size (the renderer may round a pixel either way)."""
    from PIL import Image

    return image if image.size == size else image.resize(size, Image.Resampling.LANCZOS)


def grid(faces: int) -> tuple[int, int]:
    """The columns and rows of a sheet of this many faces and the hidden card, as few slots
    left empty as may be (an empty slot still costs pixels)."""
    rows = max(SMALLEST_GRID, math.ceil((faces + 1) / COLUMNS))
    return max(SMALLEST_GRID, math.ceil((faces + 1) / rows)), rows


def _stem(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "deck"


def too_large(decks: Sequence[PackDeck], cards: Sequence[Card]) -> Diagnostic | None:
    """E0720 at the card of the most copies (or text) when the saved object would hold more
    than MAX_CARDS cards or MAX_TEXT characters; `cards` are the IR, by face page."""
    listed = [card for deck in decks for card in deck.cards]
    total = sum(card.copies for card in listed)
    text = sum(card.copies * (len(card.title) + len(card.text)) for card in listed)
    if total <= MAX_CARDS and text <= MAX_TEXT:
        return None
    if total > MAX_CARDS:
        worst = max(listed, key=lambda card: card.copies)
        size = f"{total:,} cards, copies included ({worst.copies:,} of this one)"
    else:
        worst = max(listed, key=lambda card: card.copies * len(card.text))
        size = f"{text:,} characters of titles and rules text, every copy counted"
    return Diagnostic(
        "E0720",
        "error",
        f"a Tabletop Simulator export would hold {size}: it holds at most {MAX_CARDS:,} "
        f"cards and {MAX_TEXT:,} characters",
        kind_span(cards[worst.face]),
        "print fewer copies, or export a part of the pack at a time (--only KIND)",
    )


def _unique(stem: str, taken: set[str]) -> str:
    """The stem, or with a number after it if another deck's files have it (`a_b`, `a-b`)."""
    unique = stem
    count = 1
    while unique in taken:
        count += 1
        unique = f"{stem}-{count}"
    taken.add(unique)
    return unique


def plan_export(
    folder: Path,
    url_prefix: str | None,
    pack: tuple[str, str],
    decks: Sequence[PackDeck],
    card_mm: tuple[float, float],
    dpi: int,
    bleed: float,
) -> TtsExport:
    """Lay the pack's decks (`pack`: its name and title) out on sheets and write the saved
    object that points TTS at them: `url_prefix` + each file's name, else its `file:` URL."""
    stem = _stem(pack[0])

    def url(name: str) -> str:
        return url_prefix + name if url_prefix else (folder.resolve() / name).as_uri()

    planned: list[Deck] = []
    objects: list[dict[str, Any]] = []
    next_id = 1
    taken: set[str] = set()
    for place, deck in enumerate(decks):
        faces = [card.face for card in deck.cards]
        files = _unique(f"{stem}-{_stem(deck.name)}", taken)
        sheets = []
        for start in range(0, len(faces), FACES_PER_SHEET):
            chunk = tuple(faces[start : start + FACES_PER_SHEET])
            number = start // FACES_PER_SHEET + 1
            name = f"{files}-{number}.png"
            sheets.append(Sheet(name, next_id, chunk, *grid(len(chunk))))
            next_id += 1
        planned.append(Deck(tuple(sheets), f"{files}-back.png", deck.back))
        custom = {
            sheet.deck_id: {
                "FaceURL": url(sheet.name),
                "BackURL": url(planned[-1].back_name),
                "NumWidth": sheet.columns,
                "NumHeight": sheet.rows,
                "BackIsHidden": True,
                "UniqueBack": False,
                "Type": 0,
            }
            for sheet in sheets
        }
        objects.append(_deck_object(deck, sheets, custom, place))
    saved = {"SaveName": pack[1], "ObjectStates": objects}
    text = json.dumps(saved, indent=2, ensure_ascii=False) + "\n"
    inches = (card_mm[0] / 25.4, card_mm[1] / 25.4)
    return TtsExport(folder, tuple(planned), f"{stem}.json", text, inches, dpi, bleed)


def _deck_object(
    deck: PackDeck, sheets: Sequence[Sheet], custom: dict[int, dict[str, Any]], place: int
) -> dict[str, Any]:
    """The deck's `DeckCustom` object, every copy a `Card` in it; a lone card by itself."""
    transform = {
        **{"posX": SPACING * place, "posY": 1.0, "posZ": 0.0},
        **{"rotX": 0.0, "rotY": 180.0, "rotZ": 180.0},  # face down, as a deck to draw from
        **{"scaleX": 1.0, "scaleY": 1.0, "scaleZ": 1.0},
    }
    cards: list[dict[str, Any]] = []
    for index, card in enumerate(deck.cards):
        sheet = sheets[index // FACES_PER_SHEET]
        card_id = sheet.deck_id * 100 + index % FACES_PER_SHEET
        entry = {
            "Name": "Card",
            "Transform": transform,
            "Nickname": card.title,
            "Description": card.text,
            "CardID": card_id,
            "CustomDeck": {str(sheet.deck_id): custom[sheet.deck_id]},
        }
        cards += [entry] * card.copies
    if len(cards) == 1:
        return cards[0]  # TTS makes no deck of one card
    return {
        "Name": "DeckCustom",
        "Transform": transform,
        "Nickname": deck.name.replace("_", " ").title(),
        "Description": "",
        "DeckIDs": [card["CardID"] for card in cards],
        "CustomDeck": {str(key): value for key, value in custom.items()},
        "ContainedObjects": cards,
    }


@dataclass(frozen=True)
class TtsRequest:
    """What `--tts DIR` (and `--tts-url PREFIX`) asked for."""

    folder: Path
    url_prefix: str | None = None
