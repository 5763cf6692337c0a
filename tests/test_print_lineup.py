"""Backs that line up: the calibration page, `--back-offset`, corner guides, cut lines, low ink.

Positions are read back from the PDF (pypdfium2's filled paths, as in test_print_geometry, and
pikepdf's content streams for the stroked corner guides); ink is counted in small renders.
"""

from __future__ import annotations

from pathlib import Path

import pikepdf
import pypdfium2 as pdfium
import pytest

from tests.helpers import make_pack, run
from tests.test_print_geometry import A4, LETTER, MM, POKER, Box, Page, close, read_pdf

CARDS = (
    'item "Scalpel" {\n    type weapon\n    hands 1\n    attack +1\n    damage 1\n}\n'
    'room "Boiler Room" {\n    number 7\n}\n'
)
MANIFEST = (
    "pack: test-pack\ntitle: Test\nversion: 0.1.0\nruleset: coma-ward\n"
    "print:\n  bleed: 3mm\n  back_offset: 1.5mm,-0.5mm\n  corners: 3mm\n"
)
OFFSET = (1.5, -0.5)  # x right, y down, as the calibration page reads
BLEED = 3.0


def _print(folder: Path, pack: Path, name: str, *args: str) -> Path:
    """`pillbox print` of the pack, duplex, with one face cache for the whole module."""
    out = folder / name
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PILLBOX_CACHE_DIR", str(folder / "cache"))
        code, output = run("print", str(pack), "-o", str(out), "--backs", "duplex", *args)
    assert code == 0, output
    return out


@pytest.fixture(scope="module")
def printed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The two-card pack as its pack.yaml says (offset backs, corner guides, shared cuts on
    A4), and again with --low-ink, --cuts separate and the offset undone on the command line."""
    folder = tmp_path_factory.mktemp("lineup")
    pack = make_pack(folder / "pack", MANIFEST, cards=CARDS)
    return {
        "pack": _print(folder, pack, "pack.pdf"),
        "low": _print(
            folder, pack, "low.pdf", "--low-ink", "--cuts", "separate", "--back-offset", "0mm,0mm"
        ),
        "single": _print(folder, pack, "single.pdf", "--layout", "single", "--only", "Scalpel"),
    }


def _thin(page: Page, width: float, height: float) -> list[Box]:
    """The marks of about this size."""
    return [m for m in page.marks() if close(m.w, width, 0.05) and close(m.h, height, 0.05)]


# --- the calibration page ------------------------------------------------------------------


def _targets(paper: tuple[float, float]) -> list[tuple[float, float]]:
    """The five crosshairs: the centre and 35 mm in from each corner."""
    w, h = paper
    return [(w / 2, h / 2), (35, 35), (w - 35, 35), (35, h - 35), (w - 35, h - 35)]


def _calibrate(tmp_path: Path, *args: str) -> list[Page]:
    out = tmp_path / "calib.pdf"
    code, output = run("print", "--calibrate", "-o", str(out), *args)
    assert code == 0 and "calibration page" in output, output
    return read_pdf(out)


def _zero_ticks(back: Page) -> tuple[list[tuple[float, float]], list[tuple[float, float]]]:
    """Where the back's x rulers read 0 (the middle of the tick, its foot) and where its y
    rulers do (the tick's middle, its left end)."""
    xs = [(m.x + m.w / 2, m.y) for m in _thin(back, 0.1, 4.0)]
    ys = [(m.x, m.y + m.h / 2) for m in _thin(back, 4.0, 0.1)]
    return sorted(xs), sorted(ys)


def _near(found: list[tuple[float, float]], expected: list[tuple[float, float]]) -> bool:
    return len(found) == len(expected) and all(
        close(a, c) and close(b, d) for (a, b), (c, d) in zip(found, sorted(expected), strict=True)
    )


def test_calibration_page_has_crosshairs_in_front_and_rulers_behind_them(tmp_path: Path) -> None:
    front, back = _calibrate(tmp_path)
    assert front.size == pytest.approx(A4, abs=0.01) and back.size == front.size
    targets = _targets(A4)
    across = sorted((m.x + m.w / 2, m.y + m.h / 2) for m in _thin(front, 32.0, 0.2))
    upright = sorted((m.x + m.w / 2, m.y + m.h / 2) for m in _thin(front, 0.2, 32.0))
    assert _near(across, targets) and _near(upright, targets), (across, upright)
    assert len(_thin(front, 100.0, 0.3)) == 1  # the bar that shows scaling
    # Behind each crosshair after a long-edge flip (x -> 210 - x: the same five points), the x
    # ruler's zero 10 mm above it, the y ruler's 10 mm to its right.
    behind = [(A4[0] - x, y) for x, y in targets]
    xs, ys = _zero_ticks(back)
    assert _near(xs, [(x, y + 10) for x, y in behind]), xs
    assert _near(ys, [(x + 10, y) for x, y in behind]), ys
    assert "page 1 of 2: the FRONT" in front.text and "page 2 of 2: the BACK" in back.text
    assert "--back-offset Xmm,Ymm" in back.text


def test_calibration_back_moves_by_the_offset_it_is_given(tmp_path: Path) -> None:
    front, back = _calibrate(tmp_path, "--paper", "letter", "--back-offset", "1.5mm,-0.5mm")
    assert front.size == pytest.approx(LETTER, abs=0.01)
    dx, dy = OFFSET
    behind = [(LETTER[0] - x + dx, y - dy) for x, y in _targets(LETTER)]  # y down: PDF y up
    xs, ys = _zero_ticks(back)
    assert _near(xs, [(x, y + 10) for x, y in behind]), xs
    assert _near(ys, [(x + 10, y) for x, y in behind]), ys
    assert "already moved by --back-offset 1.5mm,-0.5mm" in back.text


def test_calibrate_takes_no_pack_and_print_needs_one(tmp_path: Path) -> None:
    out = str(tmp_path / "calib.pdf")
    code, output = run("print", "-o", out)
    assert code == 2 and "missing PACK" in output, output
    code, output = run("print", str(tmp_path), "--calibrate", "-o", out)
    assert code == 2 and "leave out" in output, output
    code, output = run("print", "--calibrate", "--bleed", "3mm", "-o", out)
    assert code == 2 and "not --bleed" in output, output
    code, output = run("print", "--calibrate", "--tts", str(tmp_path / "tts"), "-o", out)
    assert code == 2 and "not --tts" in output, output  # an option it would ignore is refused
    assert not (tmp_path / "calib.pdf").exists()


# --- back pages moved by the offset ---------------------------------------------------------


def test_back_pages_move_by_the_offset_and_fronts_do_not(printed: dict[str, Path]) -> None:
    front, back = read_pdf(printed["pack"])
    fronts = front.cards(*POKER, bleed=BLEED)
    backs = back.cards(*POKER, bleed=BLEED)
    assert len(fronts) == len(backs) == 2
    dx, dy = OFFSET
    for card in fronts:
        # Behind it after a long-edge flip, then moved right by dx and down by dy.
        x, y = A4[0] - card.x - card.w + dx, card.y - dy
        matches = [b for b in backs if close(b.x, x) and close(b.y, y)]
        assert len(matches) == 1, (card, x, y, backs)
        assert close(matches[0].w, card.w) and close(matches[0].h, card.h)
    # The first card's trim box on the front is where the unmoved grid puts it (A4, 3 × 3
    # poker cards on shared cut lines, centred): the offset moves only the backs.
    assert any(close(c.x, (A4[0] - 3 * POKER[0]) / 2 - BLEED) for c in fronts), fronts
    moved = sorted((m.x - dx, m.y + dy, m.w, m.h) for m in back.marks())
    unmoved = sorted((m.x, m.y, m.w, m.h) for m in front.marks())
    assert len(moved) == len(unmoved) > 0
    pairs = zip(moved, unmoved, strict=True)
    assert all(close(a, b) for m, n in pairs for a, b in zip(m, n, strict=True))


def test_single_back_pages_move_with_their_print_boxes(printed: dict[str, Path]) -> None:
    front, back = read_pdf(printed["single"])
    dx, dy = OFFSET
    for box in ("trim", "bleed"):
        (fx0, fy0, fx1, fy1), (bx0, by0, bx1, by1) = getattr(front, box), getattr(back, box)
        assert close(bx0, fx0 + dx) and close(by0, fy0 - dy), (box, front, back)
        assert close(bx1 - bx0, fx1 - fx0) and close(by1 - by0, fy1 - fy0)
    (card,) = front.cards(*POKER, bleed=BLEED)
    (behind,) = back.cards(*POKER, bleed=BLEED)
    assert close(behind.x, card.x + dx) and close(behind.y, card.y - dy)
    assert front.media == back.media  # the paper itself stays


def test_back_offset_and_corners_are_checked_at_their_pack_yaml_line(tmp_path: Path) -> None:
    manifest = MANIFEST.replace("1.5mm,-0.5mm", "1.5,-0.5").replace("3mm", "3", 1)
    pack = make_pack(tmp_path / "pack", manifest, cards=CARDS)
    code, output = run("check", str(pack))
    assert code == 1, output
    assert "pack.yaml:6:10: error[E0403]" in output and "did you mean '3mm'?" in output, output
    assert "pack.yaml:7:16: error[E0403]" in output, output
    assert "did you mean '1.5mm,-0.5mm'?" in output, output


@pytest.mark.parametrize(
    ("option", "value", "words"),
    [
        ("--back-offset", "1.5mm", "give x (right) and y (down)"),
        ("--back-offset", "12mm,0mm", "within ±10 mm"),
        ("--corners", "40mm", "from 0 to 10"),
        ("--corners", "3", "did you mean '3mm'?"),
    ],
)
def test_bad_lineup_options_are_usage_errors(
    tmp_path: Path, option: str, value: str, words: str
) -> None:
    pack = make_pack(tmp_path / "pack", cards=CARDS)
    code, output = run("print", str(pack), "-o", str(tmp_path / "out.pdf"), option, value)
    assert code == 2 and words in output, output


# --- corner guides, cut lines, low ink -------------------------------------------------------


def _arcs(path: Path, page: int) -> set[tuple[float, ...]]:
    """Each curve the page strokes: where it starts and ends, in millimetres, rounded."""
    with pikepdf.open(path) as pdf:
        found = set()
        start: tuple[float, float] = (0.0, 0.0)
        for operands, op in pikepdf.parse_content_stream(pdf.pages[page]):
            operator = str(op)
            values = [float(v) / MM for v in operands] if operator in ("m", "c") else []
            if operator == "m":
                start = (values[0], values[1])
            elif operator == "c":
                found.add(tuple(round(v, 2) for v in (*start, values[4], values[5])))
    return found


def test_corner_guides_round_each_front_card_and_no_back(printed: dict[str, Path]) -> None:
    r = 3.0
    left = (A4[0] - 3 * POKER[0]) / 2
    bottom = A4[1] - (A4[1] - 3 * POKER[1]) / 2 - POKER[1]
    expected = set()
    for x in (left, left + POKER[0]):  # the first two cards of the first row
        right, y, top = x + POKER[0], bottom, bottom + POKER[1]
        for arc in (
            (x, y + r, x + r, y),
            (right - r, y, right, y + r),
            (right, top - r, right - r, top),
            (x + r, top, x, top - r),
        ):
            expected.add(tuple(round(v, 2) for v in arc))
    assert _arcs(printed["pack"], 0) == expected
    assert _arcs(printed["pack"], 1) == set()


def test_cuts_separate_gives_every_card_its_whole_bleed(printed: dict[str, Path]) -> None:
    shared = read_pdf(printed["pack"])[0].cards(*POKER, bleed=BLEED)
    separate = read_pdf(printed["low"])[0].cards(*POKER, bleed=BLEED)
    # Shared cut lines: bleed on the grid's outer edges only (the first card left and top, the
    # second top only); separate: bleed all round each.
    assert sorted(round(c.w, 1) for c in shared) == [POKER[0], POKER[0] + BLEED]
    slots = [c for c in separate if c.w > POKER[0] + 1]  # low ink also paints the trim white
    assert [round(c.w, 1) for c in slots] == [POKER[0] + 2 * BLEED] * 2
    assert all(close(c.h, POKER[1] + 2 * BLEED) for c in slots)
    assert close(slots[1].x - slots[0].right, 0.0)  # side by side, no gutter beyond the bleeds


def _inked(path: Path, page: int, dark: bool) -> int:
    """Pixels of a 20 dpi render that are dark (all channels under 100) or, not dark, any
    colour but near white."""
    document = pdfium.PdfDocument(path)
    try:
        image = document[page].render(scale=20 / 72).to_pil().convert("RGB")
    finally:
        document.close()
    data = image.tobytes()
    pixels = (data[i : i + 3] for i in range(0, len(data), 3))
    return sum(1 for p in pixels if (max(p) < 100 if dark else min(p) < 235))


def test_low_ink_drops_the_full_bleed_colour(printed: dict[str, Path]) -> None:
    backs, low_backs = _inked(printed["pack"], 1, True), _inked(printed["low"], 1, True)
    fronts, low_fronts = _inked(printed["pack"], 0, False), _inked(printed["low"], 0, False)
    # A dark back ground over two cards and their bleed is some 4,000 pixels at 20 dpi.
    assert backs > 3000 and low_backs < backs / 20, (backs, low_backs)
    assert low_fronts < fronts / 5, (fronts, low_fronts)
    low = read_pdf(printed["low"])
    assert "Scalpel" in low[0].text and "ITEM" in low[1].text.upper()  # the words are kept


def test_an_offset_without_back_pages_is_noted(printed: dict[str, Path]) -> None:
    """pack.yaml's back offset has nothing to move in a print without backs: a note says so."""
    folder = printed["pack"].parent
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PILLBOX_CACHE_DIR", str(folder / "cache"))
        out = folder / "fronts.pdf"
        code, output = run("print", str(folder / "pack"), "-o", str(out), "--only", "Scalpel")
    assert code == 0 and out.exists(), output
    assert "note: the back offset moves back pages, and this print has none" in output
