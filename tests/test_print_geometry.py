"""`pillbox print` geometry, measured in the PDF it writes: pages, cards, bleed, marks, backs.

Every number here is read back from the PDF with pypdfium2 (page boxes, filled path objects,
text), never taken from the layout code: what the tests measure is what a printer gets.
"""

from __future__ import annotations

import ctypes
import math
import struct
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c
import pytest

from compiler.build import load_checked
from compiler.printing.sheets import slug
from tests.conftest import TESTS
from tests.helpers import make_pack, run

SPECIMENS = TESTS / "specimens" / "coma-ward"
MM = 72 / 25.4  # points per millimetre
TOL = 0.1  # millimetres
A4 = (210.0, 297.0)
LETTER = (215.9, 279.4)
POKER = (63.5, 88.9)


@dataclass(frozen=True)
class Box:
    """A filled rectangle in millimetres, PDF coordinates (origin bottom left)."""

    x: float
    y: float
    w: float
    h: float
    fill: tuple[int, int, int]
    text: str = field(default="", compare=False)  # inside the box, for boxes card-sized or more

    @property
    def right(self) -> float:
        return self.x + self.w

    @property
    def top(self) -> float:
        return self.y + self.h

    def overlaps(self, other: Box) -> bool:
        """Whether the two share more than an edge."""
        return (
            self.x < other.right - TOL
            and other.x < self.right - TOL
            and self.y < other.top - TOL
            and other.y < self.top - TOL
        )


@dataclass(frozen=True)
class Page:
    """What one PDF page measures: its size and boxes, its filled rectangles, its text."""

    size: tuple[float, float]
    media: tuple[float, float, float, float]
    trim: tuple[float, float, float, float]
    bleed: tuple[float, float, float, float]
    boxes: list[Box]
    text: str  # the whole page's, whitespace collapsed

    def cards(self, width: float, height: float, bleed: float = 0.0) -> list[Box]:
        """Card backgrounds: filled rectangles about the size of a card and its bleed.

        The window is wide enough for a card with bleed on none, some or all sides, and narrow
        enough to skip the boxes inside a card (its padding alone is more than 6 mm).
        """
        return sorted(
            (
                box
                for box in self.boxes
                if width - 1 <= box.w <= width + 2 * bleed + 1
                and height - 1 <= box.h <= height + 2 * bleed + 1
            ),
            key=lambda box: (-round(box.top, 1), round(box.x, 1)),  # reading order
        )

    def marks(self) -> list[Box]:
        """Crop marks: thin black rectangles."""
        return [
            box
            for box in self.boxes
            if box.fill == (0, 0, 0) and min(box.w, box.h) <= 0.3 and max(box.w, box.h) >= 0.5
        ]


def _mm(box: tuple[float, ...]) -> tuple[float, float, float, float]:
    left, bottom, right, top = (value / MM for value in box)
    return left, bottom, right, top


Matrix = tuple[float, float, float, float, float, float]
Bounds = tuple[float, float, float, float]  # left, bottom, right, top, in points


def _then(inner: Matrix, outer: Matrix) -> Matrix:
    """The matrix that applies `inner`, then `outer` (PDF's a b c d e f)."""
    a, b, c, d, e, f = inner
    A, B, C, D, E, F = outer
    return (a * A + b * C, a * B + b * D, c * A + d * C, c * B + d * D,
            e * A + f * C + E, e * B + f * D + F)  # fmt: skip


def _moved(bounds: Bounds, matrix: Matrix) -> Bounds:
    """A rectangle's bounds after the matrix (an axis-aligned one stays one)."""
    a, b, c, d, e, f = matrix
    left, bottom, right, top = bounds
    xs, ys = [], []
    for x, y in ((left, bottom), (left, top), (right, bottom), (right, top)):
        xs.append(a * x + c * y + e)
        ys.append(b * x + d * y + f)
    return min(xs), min(ys), max(xs), max(ys)


def _clip(obj: Any) -> Bounds | None:
    """The bounds of an object's clip path, in page space (pdfium keeps it there)."""
    clip = pdfium_c.FPDFPageObj_GetClipPath(obj.raw)
    if not clip:
        return None
    xs, ys = [], []
    for path in range(pdfium_c.FPDFClipPath_CountPaths(clip)):
        for index in range(pdfium_c.FPDFClipPath_CountPathSegments(clip, path)):
            segment = pdfium_c.FPDFClipPath_GetPathSegment(clip, path, index)
            x, y = ctypes.c_float(), ctypes.c_float()
            pdfium_c.FPDFPathSegment_GetPoint(segment, x, y)
            xs.append(x.value)
            ys.append(y.value)
    return (min(xs), min(ys), max(xs), max(ys)) if xs else None


def _filled_boxes(page: Any) -> Iterator[Box]:
    """The page's filled paths, in page space, as far as they show.

    A card on a sheet is a face page drawn as a Form XObject: its paths are in the form's
    space, so they are moved by the form's matrix (and those of the forms around them), and
    cut to the clip the sheet draws the form with (shared cut lines hide inner bleeds).
    """
    identity: Matrix = (1, 0, 0, 1, 0, 0)

    def walk(form: Any, level: int, matrix: Matrix, clip: Bounds | None) -> Iterator[Box]:
        for obj in page.get_objects(max_depth=1, form=form, level=level):
            if obj.type == pdfium_c.FPDF_PAGEOBJ_FORM:
                inner = tuple(obj.get_matrix().get())
                yield from walk(obj, level + 1, _then(inner, matrix), clip or _clip(obj))
                continue
            if obj.type != pdfium_c.FPDF_PAGEOBJ_PATH:
                continue
            fill_mode, stroke = ctypes.c_int(), ctypes.c_int()
            pdfium_c.FPDFPath_GetDrawMode(obj.raw, fill_mode, stroke)
            if fill_mode.value == pdfium_c.FPDF_FILLMODE_NONE:
                continue
            red, green, blue, alpha = (ctypes.c_uint() for _ in range(4))
            pdfium_c.FPDFPageObj_GetFillColor(obj.raw, red, green, blue, alpha)
            left, bottom, right, top = _moved(obj.get_bounds(), matrix)
            if clip is not None:
                left, bottom = max(left, clip[0]), max(bottom, clip[1])
                right, top = min(right, clip[2]), min(top, clip[3])
                if right <= left or top <= bottom:
                    continue
            left, bottom, right, top = _mm((left, bottom, right, top))
            color = (red.value, green.value, blue.value)
            yield Box(left, bottom, right - left, top - bottom, color)

    yield from walk(None, 0, identity, None)


def _points(box: Box) -> tuple[float, float, float, float]:
    return box.x * MM, box.y * MM, box.right * MM, box.top * MM


def _words(text: str) -> str:
    """Whitespace collapsed, so a title broken over two lines is found."""
    return " ".join(text.split())


def read_pdf(path: Path) -> list[Page]:
    """Every page of a PDF, measured."""
    document = pdfium.PdfDocument(path)
    try:
        pages = []
        for page in document:
            textpage = page.get_textpage()
            boxes = [
                replace(box, text=_words(textpage.get_text_bounded(*_points(box))))
                if box.w >= 30 and box.h >= 30
                else box
                for box in _filled_boxes(page)
            ]
            width, height = page.get_size()
            pages.append(
                Page(
                    (width / MM, height / MM),
                    _mm(page.get_mediabox()),
                    _mm(page.get_trimbox()),
                    _mm(page.get_bleedbox()),
                    boxes,
                    _words(textpage.get_text_range()),
                )
            )
        return pages
    finally:
        document.close()


def close(value: float, expected: float, tolerance: float = TOL) -> bool:
    return abs(value - expected) <= tolerance


def assert_size(box: Box, width: float, height: float) -> None:
    assert close(box.w, width) and close(box.h, height), (
        f"{box.w:.3f} × {box.h:.3f} mm, expected {width} × {height}"
    )


def assert_mirrored(face: Page, back: Page, paper_width: float, bleed: float) -> None:
    """Each poker card on the back page lies behind its face after a long-edge flip.

    Turning the sheet over its long (vertical) edge maps x to paper_width - x: a face at x with
    width w is backed by a back at paper_width - x - w, at the same height.
    """
    fronts = face.cards(*POKER, bleed=bleed)
    behind = back.cards(*POKER, bleed=bleed)
    assert len(behind) == len(fronts) > 0
    for front in fronts:
        x = paper_width - front.x - front.w
        matches = [b for b in behind if close(b.x, x) and close(b.y, front.y)]
        assert len(matches) == 1, (front, x, behind)
        assert_size(matches[0], front.w, front.h)


def centred(cards: list[Box], paper: tuple[float, float]) -> bool:
    """Whether the cards' bounding box sits in the middle of the paper."""
    left = min(c.x for c in cards)
    right = paper[0] - max(c.right for c in cards)
    bottom = min(c.y for c in cards)
    top = paper[1] - max(c.top for c in cards)
    return close(left, right) and close(top, bottom) and min(left, right, top, bottom) >= 0


def distinct(values: list[float]) -> list[float]:
    """The values, those within the tolerance of an earlier one left out."""
    kept: list[float] = []
    for value in sorted(values):
        if not kept or not close(value, kept[-1]):
            kept.append(value)
    return kept


def no_overlaps(boxes: list[Box]) -> bool:
    return not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1 :])


def _print(folder: Path, *args: str) -> str:
    """Run `pillbox print` with the check cache in a private folder; give what it printed."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PILLBOX_CACHE_DIR", str(folder / "cache"))
        code, output = run("print", *args)
    assert code == 0, output
    return output


# --- the whole specimen pack on A4, as the first "done when" asks ---------------------


@pytest.fixture(scope="module")
def a4_sheets(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The specimens on A4 poker sheets, with the pack's 3 mm bleed and crop marks, and PNGs."""
    folder = tmp_path_factory.mktemp("a4")
    out, png = folder / "out.pdf", folder / "png"
    args = ["--paper", "a4", "--card", "poker", "--png", str(png), "--dpi", "100"]
    output = _print(folder, str(SPECIMENS), "-o", str(out), *args)
    assert "24 cards on 3 pages" in output and "21 PNG previews" in output, output
    return folder


def _specimen_cards() -> list[dict[str, Any]]:
    loaded = load_checked(SPECIMENS)
    assert loaded.pack is not None
    return loaded.pack.cards


def _copies(card: dict[str, Any]) -> int:
    copies = (card.get("properties") or {}).get("copies", 1)
    return copies if isinstance(copies, int) and copies > 0 else 1


def test_a4_pages_hold_nine_poker_cards_sharing_cut_lines_with_room_for_marks(
    a4_sheets: Path,
) -> None:
    pages = read_pdf(a4_sheets / "out.pdf")
    faces = sum(_copies(card) for card in _specimen_cards())
    assert faces == 24
    assert len(pages) == math.ceil(faces / 9) == 3
    for page in pages:
        assert close(page.size[0], A4[0]) and close(page.size[1], A4[1]), page.size
        assert page.media[:2] == (0.0, 0.0)
    counts = []
    for page in pages:
        cards = page.cards(*POKER, bleed=3.0)
        counts.append(len(cards))
        assert no_overlaps(cards)
    assert counts == [9, 9, 6]
    full = pages[0].cards(*POKER, bleed=3.0)
    assert centred(full, A4)
    # Separate bleeds (69.5 mm a card) would leave 0.75 mm at the sides: no room for crop
    # marks, nor for a printer's margin. So the cards share cut lines, 3 mm bleed around the
    # grid only: the corners carry it on two sides, the middle card on none.
    assert [(round(c.w, 1), round(c.h, 1)) for c in full] == [
        (66.5, 91.9), (63.5, 91.9), (66.5, 91.9),
        (66.5, 88.9), (63.5, 88.9), (66.5, 88.9),
        (66.5, 91.9), (63.5, 91.9), (66.5, 91.9),
    ]  # fmt: skip
    assert sorted({round(c.x, 2) for c in full}) == [6.75, 73.25, 136.75]
    assert sorted({round(A4[1] - c.top, 2) for c in full}) == [12.15, 104.05, 192.95]
    # At least 5 mm of paper outside the bleed on every side.
    assert min(c.x for c in full) >= 5 and A4[0] - max(c.right for c in full) >= 5
    assert min(c.y for c in full) >= 5 and A4[1] - max(c.top for c in full) >= 5


def test_every_title_is_in_the_pdf_text_on_a_card_once_per_copy(a4_sheets: Path) -> None:
    wanted: Counter[str] = Counter()
    for card in _specimen_cards():
        wanted[card["title"]] += _copies(card)
    assert len(wanted) == 20  # "Music from the Nursery" has two variants
    found: Counter[str] = Counter()
    for page in read_pdf(a4_sheets / "out.pdf"):
        for card in page.cards(*POKER, bleed=3.0):
            titles = [title for title in wanted if title in card.text]
            assert titles, card.text  # the text inside every card's rectangle names a card
            found.update(titles)
    for title, copies in wanted.items():
        assert found[title] >= copies, (title, found[title])


def test_crop_marks_sit_on_the_cut_lines_outside_every_card(a4_sheets: Path) -> None:
    left, bottom = (A4[0] - 3 * 63.5) / 2, (A4[1] - 3 * 88.9) / 2
    for page in read_pdf(a4_sheets / "out.pdf"):
        cards = page.cards(*POKER, bleed=3.0)
        marks = page.marks()
        assert marks
        for mark in marks:
            assert not any(mark.overlaps(card) for card in cards), mark
            assert min(mark.x, mark.y) >= 0 and mark.right <= A4[0] and mark.top <= A4[1]
        # Each of the four cut lines each way is marked at both ends, outside the bleed, with
        # a whole 5 mm mark: the margins have room for them.
        vertical = sorted(m.x + m.w / 2 for m in marks if m.h > m.w)
        horizontal = sorted(m.y + m.h / 2 for m in marks if m.w > m.h)
        expected_x = [left + k * 63.5 for k in range(4) for _ in range(2)]
        expected_y = [bottom + k * 88.9 for k in range(4) for _ in range(2)]
        assert all(close(x, e) for x, e in zip(vertical, expected_x, strict=True)), vertical
        assert all(close(y, e) for y, e in zip(horizontal, expected_y, strict=True)), horizontal
        for mark in marks:
            if mark.h > mark.w:
                assert_size(mark, 0.2, 5.0)
            else:
                assert_size(mark, 5.0, 0.2)


def test_one_png_per_card_at_the_asked_dpi(a4_sheets: Path) -> None:
    pngs = sorted((a4_sheets / "png").glob("*.png"))
    assert len(pngs) == len(_specimen_cards()) == 21  # copies once
    expected = (round(63.5 / 25.4 * 100), round(88.9 / 25.4 * 100))
    assert expected == (250, 350)
    for png in pngs:
        header = png.read_bytes()[:24]
        assert header[:8] == b"\x89PNG\r\n\x1a\n" and header[12:16] == b"IHDR"
        width, height = struct.unpack(">II", header[16:24])
        assert abs(width - expected[0]) <= 1 and abs(height - expected[1]) <= 1, (png, width)


# --- without bleed: the trim box itself; duplex backs on an incomplete page -----------------


@pytest.fixture(scope="module")
def items_duplex(tmp_path_factory: pytest.TempPathFactory) -> list[Page]:
    """The 8 item cards (shoes twice, granola bars three times): one incomplete A4 sheet."""
    folder = tmp_path_factory.mktemp("items")
    args = ["--only", "item", "--bleed", "0mm", "--marks", "none", "--backs", "duplex"]
    output = _print(folder, str(SPECIMENS), "-o", str(folder / "out.pdf"), *args)
    assert "8 cards on 2 pages" in output, output
    return read_pdf(folder / "out.pdf")


def test_without_bleed_each_card_is_exactly_its_trim_box(items_duplex: list[Page]) -> None:
    face = items_duplex[0]
    cards = face.cards(*POKER)
    assert len(cards) == 8
    for card in cards:
        assert_size(card, *POKER)
    # A centred 3 × 3 grid of 63.5 × 88.9 boxes with no gaps, filled in reading order.
    left, top = (A4[0] - 3 * 63.5) / 2, (A4[1] - 3 * 88.9) / 2
    expected = [(left + col * 63.5, A4[1] - top - (row + 1) * 88.9) for row, col in
                (divmod(i, 3) for i in range(8))]  # fmt: skip
    for card, (x, y) in zip(cards, expected, strict=True):
        assert close(card.x, x) and close(card.y, y), (card, x, y)


def test_no_crop_marks_with_marks_none(items_duplex: list[Page]) -> None:
    assert [page.marks() for page in items_duplex] == [[], []]


def test_back_page_follows_its_face_page_mirrored(items_duplex: list[Page]) -> None:
    face, back = items_duplex
    for title in ("Running Shoes", "Scalpel", "Fire Axe", "Granola Bar", "Unlabeled Vial"):
        assert title in face.text and title not in back.text
    fronts, behind = face.cards(*POKER), back.cards(*POKER)
    assert {c.fill for c in fronts}.isdisjoint({c.fill for c in behind})  # backs look different
    assert_mirrored(face, back, A4[0], bleed=0.0)
    # The last row holds two cards, on the left; their backs are on the right.
    last_row = [c for c in fronts if close(c.y, min(f.y for f in fronts))]
    assert len(last_row) == 2 and all(c.x < A4[0] / 2 for c in last_row)
    assert all(c.right > A4[0] / 2 for c in behind if close(c.y, last_row[0].y))


# --- Letter with bleed: shared cut lines keep 3 × 3 -------------------------------------------


@pytest.fixture(scope="module")
def letter_shared(tmp_path_factory: pytest.TempPathFactory) -> list[Page]:
    """Ten copies of one plain card on Letter with 3 mm bleed, crop marks and duplex backs."""
    folder = tmp_path_factory.mktemp("letter")
    pack = make_pack(folder / "pack", cups='item "Tin Cup" {\n    type food\n    copies 10\n}\n')
    args = ["--paper", "letter", "--card", "poker", "--bleed", "3mm", "--marks", "crop"]
    output = _print(folder, str(pack), "-o", str(folder / "out.pdf"), *args, "--backs", "duplex")
    assert "10 cards on 4 pages" in output, output
    return read_pdf(folder / "out.pdf")


def test_letter_with_bleed_shares_cut_lines_and_keeps_nine_a_page(
    letter_shared: list[Page],
) -> None:
    for page in letter_shared:
        assert close(page.size[0], LETTER[0]) and close(page.size[1], LETTER[1]), page.size
    cards = letter_shared[0].cards(*POKER, bleed=3.0)
    assert len(cards) == 9
    assert len(letter_shared[2].cards(*POKER, bleed=3.0)) == 1  # the tenth, on its own sheet
    # Bleed only around the grid: the corner cards carry it on two sides, the middle on none.
    assert [(round(c.w, 1), round(c.h, 1)) for c in cards] == [
        (66.5, 91.9), (63.5, 91.9), (66.5, 91.9),
        (66.5, 88.9), (63.5, 88.9), (66.5, 88.9),
        (66.5, 91.9), (63.5, 91.9), (66.5, 91.9),
    ]  # fmt: skip
    # Neighbours abut: no overlap, and together they fill their bounding box without a gap.
    assert no_overlaps(cards)
    width = max(c.right for c in cards) - min(c.x for c in cards)
    height = max(c.top for c in cards) - min(c.y for c in cards)
    assert close(width, 3 * 63.5 + 6) and close(height, 3 * 88.9 + 6)
    assert close(sum(c.w * c.h for c in cards), width * height, 1.0)
    for a in cards:
        right_of_a = [b for b in cards if close(b.y, a.y) and b.x > a.x]
        if right_of_a:
            assert close(min(b.x for b in right_of_a), a.right)
    assert centred(cards, LETTER)


def test_letter_crop_marks_mark_every_shared_cut_line(letter_shared: list[Page]) -> None:
    page = letter_shared[0]
    cards = page.cards(*POKER, bleed=3.0)
    marks = page.marks()
    assert marks and not any(m.overlaps(c) for m in marks for c in cards)
    left, bottom = (LETTER[0] - 3 * 63.5) / 2, (LETTER[1] - 3 * 88.9) / 2
    vertical = sorted(m.x + m.w / 2 for m in marks if m.h > m.w)
    horizontal = sorted(m.y + m.h / 2 for m in marks if m.w > m.h)
    # Two marks (above and below, or left and right) at each of the four cut lines each way.
    expected_x = [left + k * 63.5 for k in range(4) for _ in range(2)]
    expected_y = [bottom + k * 88.9 for k in range(4) for _ in range(2)]
    assert len(vertical) == len(horizontal) == 8
    assert all(close(x, e) for x, e in zip(vertical, expected_x, strict=True)), vertical
    assert all(close(y, e) for y, e in zip(horizontal, expected_y, strict=True)), horizontal


def test_letter_backs_mirror_shared_bleeds_also_on_the_last_page(
    letter_shared: list[Page],
) -> None:
    assert "Tin Cup" in letter_shared[0].text and "Tin Cup" not in letter_shared[1].text
    assert_mirrored(letter_shared[0], letter_shared[1], LETTER[0], bleed=3.0)
    assert_mirrored(letter_shared[2], letter_shared[3], LETTER[0], bleed=3.0)
    (last,) = letter_shared[3].cards(*POKER, bleed=3.0)
    assert close(last.right, LETTER[0] - (LETTER[0] - 3 * 63.5) / 2 + 3)  # top right corner


# --- the other card sizes and papers ----------------------------------------------------------


@pytest.mark.parametrize(
    ("card", "paper", "width", "height"),
    [
        ("poker", "letter", 63.5, 88.9),
        ("bridge", "letter", 57.2, 88.9),
        ("tarot", "a4", 70.0, 120.0),
        ("mini", "letter", 44.0, 63.5),
        ("square", "a4", 70.0, 70.0),
        ("60x90mm", "letter", 60.0, 90.0),
    ],
)
def test_card_and_paper_sizes_are_exact(
    tmp_path: Path, card: str, paper: str, width: float, height: float
) -> None:
    out = tmp_path / "out.pdf"
    args = ["--card", card, "--paper", paper, "--bleed", "0mm", "--marks", "none"]
    _print(tmp_path, str(SPECIMENS), "-o", str(out), "--only", "Scalpel", *args)
    (page,) = read_pdf(out)
    paper_size = A4 if paper == "a4" else LETTER
    assert close(page.size[0], paper_size[0]) and close(page.size[1], paper_size[1]), page.size
    (box,) = page.cards(width, height)
    assert_size(box, width, height)
    assert "Scalpel" in page.text
    # The first cell of a centred grid of as many cards as fit.
    cols, rows = math.floor(paper_size[0] / width), math.floor(paper_size[1] / height)
    assert close(box.x, (paper_size[0] - cols * width) / 2)
    assert close(paper_size[1] - box.top, (paper_size[1] - rows * height) / 2)


# --- one card a page, for print shops ---------------------------------------------------------


def test_single_pages_have_the_card_as_trim_box_and_its_bleed_as_bleed_box(
    tmp_path: Path,
) -> None:
    out = tmp_path / "out.pdf"
    output = _print(
        tmp_path, str(SPECIMENS), "-o", str(out), "--only", "Scalpel", "--layout", "single",
        "--bleed", "3mm", "--backs", "duplex",
    )  # fmt: skip
    assert "1 card on 2 pages" in output  # one card, said so
    pages = read_pdf(out)
    assert ["Scalpel" in page.text for page in pages] == [True, False]  # a face, then its back
    for page in pages:
        tl, tb, tr, tt = page.trim
        bl, bb, br, bt = page.bleed
        ml, mb, mr, mt = page.media
        assert close(tr - tl, 63.5) and close(tt - tb, 88.9), page.trim
        assert close(br - bl, 69.5) and close(bt - bb, 94.9), page.bleed
        assert all(close(inner - outer, 3.0) for inner, outer in ((tl, bl), (tb, bb)))
        assert all(close(outer - inner, 3.0) for inner, outer in ((tr, br), (tt, bt)))
        # The paper reaches 10 mm past the bleed on every side, room for the crop marks.
        assert all(close(outer, inner - 10) for outer, inner in ((ml, bl), (mb, bb)))
        assert all(close(outer, inner + 10) for outer, inner in ((mr, br), (mt, bt)))
        # The card's background fills exactly the bleed box.
        (background,) = page.cards(*POKER, bleed=3.0)
        assert close(background.x, bl) and close(background.y, bb)
        assert_size(background, 69.5, 94.9)
        # A 5 mm mark at each end of each trim line, 1 mm outside the bleed box.
        marks = page.marks()
        assert len(marks) == 8 and not any(mark.overlaps(background) for mark in marks)
        vertical = sorted((m.x + m.w / 2, m.y) for m in marks if m.h > m.w)
        horizontal = sorted((m.y + m.h / 2, m.x) for m in marks if m.w > m.h)
        assert [round(x, 1) for x, _ in vertical] == [round(tl, 1)] * 2 + [round(tr, 1)] * 2
        assert [round(y, 1) for y, _ in horizontal] == [round(tb, 1)] * 2 + [round(tt, 1)] * 2
        for mark in marks:
            assert_size(mark, *((0.2, 5.0) if mark.h > mark.w else (5.0, 0.2)))
            assert (
                mark.top <= bb - 1 + TOL
                or mark.y >= bt + 1 - TOL
                or (mark.right <= bl - 1 + TOL or mark.x >= br + 1 - TOL)
            )


# --- refusals ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--card", "5x5mm"], "card size '5x5mm': each side must be from 10 to 300 mm"),
        (["--card", "huge"], "card size 'huge': the sizes are poker (63.5 × 88.9 mm), bridge"),
        (["--card", "250x250mm"], "does not fit on a4"),
        (["--bleed", "50mm"], "bleed '50mm': give millimetres from 0 to 10"),
        (["-o", "out.txt"], "the output is a PDF file"),
        (["-o", "missing-folder/x.pdf"], "does not exist"),
    ],
)
def test_bad_options_are_usage_errors_and_touch_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], message: str
) -> None:
    monkeypatch.chdir(tmp_path)
    previous = Path("out.pdf")
    previous.write_bytes(b"%PDF-1.7 the previous print")
    if "-o" not in args:
        args = ["-o", "out.pdf", *args]
    code, output = run("print", str(SPECIMENS), *args)
    assert code == 2, output
    assert message in output
    assert "Traceback" not in output and "internal error" not in output
    assert previous.read_bytes() == b"%PDF-1.7 the previous print"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.pdf"]


def test_only_with_a_misspelt_kind_or_title_says_which_was_meant(tmp_path: Path) -> None:
    guesses = (
        ("halucination", "hallucination"),
        ("Music from the Nursry", "Music from the Nursery"),
    )
    for wrong, meant in guesses:
        code, output = run("print", str(SPECIMENS), "-o", str(tmp_path / "x.pdf"), "--only", wrong)
        assert code == 2 and f"did you mean {meant!r}?" in output, output
        assert ":1:1:" not in output  # no diagnostic pinned on an unrelated file
    assert not list(tmp_path.iterdir())


def test_a_failed_print_leaves_the_previous_pdf_alone(tmp_path: Path) -> None:
    out = tmp_path / "out.pdf"
    out.write_bytes(b"%PDF-1.7 the previous print")
    code, output = run("print", str(SPECIMENS), "-o", str(out), "--only", "nothing-like-this")
    assert code == 2, output
    assert "--only 'nothing-like-this' names no kind or card title" in output
    assert "the kinds: clue, hallucination, item" in output
    assert "Traceback" not in output
    assert out.read_bytes() == b"%PDF-1.7 the previous print"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.pdf"]


@pytest.mark.parametrize(
    ("title", "variant", "stem"),
    [
        ("Skalpell für Ärzte", None, "skalpell-für-ärzte"),
        ("Music from the Nursery", 2, "music-from-the-nursery-v2"),
        (
            "The Figure at the End of the Long, Long Hall",
            None,
            "the-figure-at-the-end-of-the-long-long",
        ),
        ("Заперта́я дверь", None, "заперта́я-дверь"),  # its accent, a mark, is kept
        ("???", None, "card"),
        ("A" * 60, 1, "a" * 40 + "-v1"),
    ],
)
def test_png_names_keep_letters_add_the_variant_and_cut_at_a_word(
    title: str, variant: int | None, stem: str
) -> None:
    assert slug({"title": title, "variant": variant}) == stem
