"""A re-print lays out only the faces that changed; what it prints is the same as a fresh print.

The face cache (compiler/printing/facecache.py) keeps the chunk PDFs WeasyPrint made, keyed by
each face's HTML, the card design and the geometry. These tests count the faces handed to
WeasyPrint, and compare the PDFs byte for byte with prints that used no cache: whatever the
cache held before (a print of the pack before an edit, of a part of it, with other options),
the PDF is the same. A pack's first,
cold print is made once a module (the `primed` fixtures); a test that starts from it gets the
pack back as it was and a copy of the cache that print left.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from compiler.printing import facecache, sheets
from tests.conftest import TESTS
from tests.helpers import make_pack, run

SPECIMENS = TESTS / "specimens" / "coma-ward"
AXE = "Fire Axe"
SCALPEL = 'item "Scalpel" {\n    type weapon\n    hands 1\n    attack +1\n    damage 1\n}\n'


def _count_layouts(patch: pytest.MonkeyPatch) -> list[int]:
    """How many faces each call hands to WeasyPrint while the patch lasts."""
    counts: list[int] = []
    real = sheets.lay_out_faces

    def counting(parts: Any, *args: Any) -> Any:
        counts.append(sum(len(part) for part in parts))
        return real(parts, *args)

    patch.setattr(sheets, "lay_out_faces", counting)
    return counts


@pytest.fixture
def laid_out(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many faces each call handed to WeasyPrint."""
    return _count_layouts(monkeypatch)


@dataclass(frozen=True)
class Primed:
    """A pack printed once into a cache of its own, for the tests to start from."""

    source: Path
    pack: Path  # the cache is kept per pack folder: the tests print the copy from here
    cache: Path
    pdf: Path
    laid_out: int  # faces handed to WeasyPrint


def _prime(source: Path, folder: Path, **render_settings: Any) -> Primed:
    """Print a copy of the pack with a cold cache (and these render settings), counting
    layouts."""
    from compiler.printing import render

    pack, cache, pdf = folder / "pack", folder / "cache", folder / "first.pdf"
    shutil.copytree(source, pack)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PILLBOX_CACHE_DIR", str(cache))
        counts = _count_layouts(patch)
        for name, value in render_settings.items():
            patch.setattr(render, name, value)
        _print(pack, pdf)
    return Primed(source, pack, cache, pdf, sum(counts))


CHUNKED = {"PARALLEL_FACES": 4, "CHUNK_FACES": 2, "CUT_ODDS": 2, "_cores": lambda: 2}
"""Render settings that split the specimens' faces into chunks of a few faces, laid out by
worker processes."""


@pytest.fixture(scope="module")
def primed(tmp_path_factory: pytest.TempPathFactory) -> Primed:
    """The specimens printed once, a single chunk in this process, with a cold cache."""
    return _prime(SPECIMENS, tmp_path_factory.mktemp("primed"))


@pytest.fixture(scope="module")
def primed_in_chunks(tmp_path_factory: pytest.TempPathFactory) -> Primed:
    """The specimens printed once in several chunks by worker processes, with a cold cache."""
    return _prime(SPECIMENS, tmp_path_factory.mktemp("primed-chunks"), **CHUNKED)


def _resume(primed: Primed) -> Path:
    """The pack as it was printed, with the cache that print left as this test's cache: the
    same state as printing it here first, without laying it out again."""
    from compiler.cache import cache_dir

    shutil.rmtree(primed.pack)
    shutil.copytree(primed.source, primed.pack)
    shutil.copytree(primed.cache, cache_dir(), dirs_exist_ok=True)
    return primed.pack


def _rename_the_axe(pack: Path) -> None:
    """Edit one card of the specimens."""
    card = next(p for p in pack.rglob("*.card") if f'"{AXE}"' in p.read_text())
    card.write_text(card.read_text().replace(f'"{AXE}"', '"Rusted Fire Axe"'))


def _add_a_scalpel(pack: Path) -> None:
    """Add a card in the middle of the specimens."""
    card = next(p for p in pack.rglob("*.card") if f'"{AXE}"' in p.read_text())
    text = card.read_text()
    at = text.index("\nitem ", text.index(f'"{AXE}"'))
    card.write_text(text[: at + 1] + SCALPEL.replace("Scalpel", "Bone Saw") + text[at + 1 :])


@pytest.fixture(scope="module")
def fresh_renamed(tmp_path_factory: pytest.TempPathFactory) -> tuple[bytes, int]:
    """The edited specimens printed with no cache, and the faces laid out for it."""
    folder = tmp_path_factory.mktemp("fresh")
    pack = Path(shutil.copytree(SPECIMENS, folder / "pack"))
    _rename_the_axe(pack)
    with pytest.MonkeyPatch.context() as patch:
        counts = _count_layouts(patch)
        _print(pack, folder / "fresh.pdf", "--no-cache")
    return (folder / "fresh.pdf").read_bytes(), sum(counts)


def _fresh_in_chunks(folder: Path, *edits: Callable[[Path], None]) -> bytes:
    """The specimens, edited, printed in chunks with no cache."""
    from compiler.printing import render

    pack = Path(shutil.copytree(SPECIMENS, folder / "pack"))
    for edit in edits:
        edit(pack)
    with pytest.MonkeyPatch.context() as patch:
        for name, value in CHUNKED.items():
            patch.setattr(render, name, value)
        _print(pack, folder / "fresh.pdf", "--no-cache")
    return (folder / "fresh.pdf").read_bytes()


def _small_pack(folder: Path) -> Path:
    """Three cards of three decks: six faces with their backs, quick to lay out."""
    cards = (
        SCALPEL + 'room "Boiler Room" {\n    number 7\n}\n'
        'hallucination "The Figure" {\n    situation "It stands there."\n'
        '    option "Look away" { lose terror 1 }\n}\n'
    )
    return make_pack(folder, cards=cards)


@pytest.fixture
def small(tmp_path: Path) -> Path:
    """The small pack, never printed."""
    return _small_pack(tmp_path / "small")


@pytest.fixture(scope="module")
def primed_small(tmp_path_factory: pytest.TempPathFactory) -> Primed:
    """The small pack printed once with a cold cache."""
    folder = tmp_path_factory.mktemp("primed-small")
    return _prime(_small_pack(folder / "source"), folder)


SMALL_FACES = 6


def _print(pack: Path, out: Path, *args: str) -> str:
    code, output = run("print", str(pack), "-o", str(out), "--backs", "duplex", *args)
    assert code == 0, output
    return output


def _cache_folders() -> list[Path]:
    from compiler.cache import cache_dir

    return sorted(cache_dir().glob("print-*"))


def test_a_second_print_lays_nothing_out_and_writes_the_same_bytes(
    primed: Primed, tmp_path: Path, laid_out: list[int]
) -> None:
    assert primed.laid_out > 20
    pack = _resume(primed)
    _print(pack, tmp_path / "b.pdf")
    assert laid_out == []
    assert primed.pdf.read_bytes() == (tmp_path / "b.pdf").read_bytes()


def test_an_edited_card_prints_the_bytes_of_a_print_without_the_cache(
    primed: Primed, fresh_renamed: tuple[bytes, int], tmp_path: Path, laid_out: list[int]
) -> None:
    # The specimens are one chunk: their fonts are subsets for all the faces together. A face
    # laid out alone would bring subsets of its own, and the PDF other bytes (issue 35, 7).
    pack = _resume(primed)
    _rename_the_axe(pack)
    _print(pack, tmp_path / "b.pdf")
    fresh, fresh_laid_out = fresh_renamed
    assert laid_out == [fresh_laid_out] and fresh_laid_out > 20
    assert (tmp_path / "b.pdf").read_bytes() == fresh
    assert "Rusted Fire Axe" in _pdf_text(tmp_path / "b.pdf")


@pytest.mark.parametrize("edit", ["rename", "add"])
def test_an_edit_lays_out_its_chunk_alone_and_prints_the_same_bytes(
    primed_in_chunks: Primed,
    tmp_path: Path,
    laid_out: list[int],
    monkeypatch: pytest.MonkeyPatch,
    edit: str,
) -> None:
    from compiler.printing import render

    edits = {"rename": _rename_the_axe, "add": _add_a_scalpel}
    fresh = _fresh_in_chunks(tmp_path / "fresh", edits[edit])
    for name, value in CHUNKED.items():
        monkeypatch.setattr(render, name, value)
    pack = _resume(primed_in_chunks)
    (folder,) = _cache_folders()
    assert len(list(folder.glob("*.pdf"))) > 4
    edits[edit](pack)
    laid_out.clear()
    _print(pack, tmp_path / "b.pdf")
    # The chunk of the edited card, and the next as its cut moves; the cards after it are
    # numbered anew when one is added, and their chunks are still found.
    assert 0 < sum(laid_out) < primed_in_chunks.laid_out // 2, laid_out
    assert (tmp_path / "b.pdf").read_bytes() == fresh


@pytest.fixture(scope="module")
def fresh_small(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """The small pack printed with no cache: the same for every test that compares with it."""
    folder = tmp_path_factory.mktemp("fresh-small")
    _print(_small_pack(folder / "small"), folder / "fresh.pdf", "--no-cache")
    return (folder / "fresh.pdf").read_bytes()


@pytest.mark.parametrize("before", [("--only", "item"), ("--backs", "none"), ("--only", "Scalpel")])
def test_a_cache_left_by_a_print_with_other_options_changes_no_byte(
    small: Path, tmp_path: Path, before: tuple[str, str], fresh_small: bytes
) -> None:
    _print(small, tmp_path / "before.pdf", *before)
    _print(small, tmp_path / "after.pdf")
    assert (tmp_path / "after.pdf").read_bytes() == fresh_small


def test_no_cache_lays_everything_out_and_keeps_nothing(
    small: Path, tmp_path: Path, laid_out: list[int]
) -> None:
    _print(small, tmp_path / "a.pdf", "--no-cache")
    _print(small, tmp_path / "b.pdf", "--no-cache")
    assert laid_out[0] == laid_out[-1] == SMALL_FACES
    assert _cache_folders() == []


def test_a_new_card_design_or_card_size_misses(
    primed_small: Primed, tmp_path: Path, laid_out: list[int]
) -> None:
    small, first = _resume(primed_small), primed_small.laid_out
    _print(small, tmp_path / "b.pdf", "--card", "tarot")
    assert sum(laid_out) == first
    laid_out.clear()
    (small / "templates").mkdir(exist_ok=True)
    css = (Path(sheets.ASSETS) / "cards.css").read_text() + "\n.title { color: #123456; }\n"
    (small / "templates" / "cards.css").write_text(css)
    _print(small, tmp_path / "c.pdf")
    assert sum(laid_out) == first


def test_a_changed_image_is_drawn_anew(tmp_path: Path, laid_out: list[int]) -> None:
    pack = make_pack(tmp_path / "pack", cards=SCALPEL)
    (pack / "templates").mkdir()
    (pack / "templates" / "back.html").write_text('<img src="back.svg" alt="">')
    svg = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect {}/></svg>'
    (pack / "back.svg").write_text(svg.format('width="10" height="10" fill="red"'))
    _print(pack, tmp_path / "a.pdf")
    laid_out.clear()
    _print(pack, tmp_path / "b.pdf")
    assert laid_out == []
    (pack / "back.svg").write_text(svg.format('width="10" height="10" fill="blue"'))
    _print(pack, tmp_path / "c.pdf")
    assert laid_out == [2]  # the chunk that read it: the face and the back, laid out together
    assert (tmp_path / "b.pdf").read_bytes() != (tmp_path / "c.pdf").read_bytes()


def test_a_damaged_or_missing_chunk_is_laid_out_again(
    primed_small: Primed, tmp_path: Path, laid_out: list[int]
) -> None:
    small, first = _resume(primed_small), primed_small.laid_out
    (folder,) = _cache_folders()
    chunks = sorted(folder.glob("*.pdf"))
    data = bytearray(chunks[0].read_bytes())
    data[len(data) // 2] ^= 0xFF
    chunks[0].write_bytes(bytes(data))
    for chunk in chunks[1:]:
        chunk.unlink()
    laid_out.clear()
    _print(small, tmp_path / "b.pdf")
    assert sum(laid_out) == first
    assert primed_small.pdf.read_bytes() == (tmp_path / "b.pdf").read_bytes()


def _set_every(field: str, value: object) -> Callable[[dict[str, Any]], None]:
    def change(index: dict[str, Any]) -> None:
        for info in index["data"]["chunks"].values():
            info[field] = value

    return change


def _rename_chunks(name: str) -> Callable[[dict[str, Any]], None]:
    def change(index: dict[str, Any]) -> None:
        chunks = index["data"]["chunks"]
        for number, digest in enumerate(list(chunks)):
            chunks[f"{name}{number}"] = chunks.pop(digest)

    return change


def _faces_each(change: Callable[[list[Any]], object]) -> Callable[[dict[str, Any]], None]:
    def each(index: dict[str, Any]) -> None:
        for info in index["data"]["chunks"].values():
            change(info["faces"])

    return each


TAMPERINGS: dict[str, Callable[[dict[str, Any]], None]] = {
    # A chunk named out of the cache folder is not followed.
    "a path for a chunk": _rename_chunks("../../../../etc/passwd"),
    **{f"pages {bad!r}": _set_every("pages", bad) for bad in (99, -1, True, "0", 1.0)},
    "faces a string": _set_every("faces", "x"),
    "a face not a key": _faces_each(lambda faces: faces.__setitem__(0, 1)),
    "a face too few": _faces_each(lambda faces: faces.pop()),
    "clipped past the pages": _set_every("clipped", [99]),
    "clipped a string": _set_every("clipped", "0"),
    "a file read, pointed at /dev/zero": lambda index: [
        info["files"].update({"/dev/zero": ["/dev/zero", "0" * 64]})
        for info in index["data"]["chunks"].values()
    ],
}


def test_a_tampered_or_broken_index_is_a_miss_not_an_error(
    primed_small: Primed, tmp_path: Path, laid_out: list[int]
) -> None:
    import json

    small, first = _resume(primed_small), primed_small.laid_out
    (folder,) = _cache_folders()
    index = folder / "index.json"
    for name, tamper in TAMPERINGS.items():
        data = json.loads(index.read_text())
        tamper(data)
        index.write_text(json.dumps(data))
        laid_out.clear()
        _print(small, tmp_path / "b.pdf")
        assert sum(laid_out) == first, name  # all six faces make one chunk
        assert primed_small.pdf.read_bytes() == (tmp_path / "b.pdf").read_bytes(), name
    index.write_text("{ not json")
    laid_out.clear()
    _print(small, tmp_path / "c.pdf")
    assert sum(laid_out) == first


def test_text_cut_off_is_still_reported_from_the_cache(tmp_path: Path, laid_out: list[int]) -> None:
    sentence = "You walk until your legs forget they are legs, and the doors close behind you. "
    card = (
        'hallucination "The Long Corridor" {\n'
        f'    situation "{sentence * 30}"\n'
        '    option "Keep walking" { gain terror 1 }\n'
        '    option "Turn back" { lose terror 1 }\n}\n'
    )
    pack = make_pack(tmp_path / "pack", cards=card)
    for out in ("a.pdf", "b.pdf"):
        code, output = run("print", str(pack), "-o", str(tmp_path / out))
        assert code == 0, output
        assert "warning[W0701]: the text of hallucination 'The Long Corridor'" in output
    assert laid_out == [1]  # the first print only: the second took the page, and its warning


def test_the_cache_stays_within_its_size(
    small: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, laid_out: list[int]
) -> None:
    monkeypatch.setattr(facecache, "MAX_BYTES", 1)
    _print(small, tmp_path / "a.pdf")
    _print(small, tmp_path / "b.pdf", "--card", "tarot")
    (folder,) = _cache_folders()
    # Only the chunks of the latest print are kept: it never drops its own.
    kept = {p.name for p in folder.glob("*.pdf")}
    laid_out.clear()
    _print(small, tmp_path / "c.pdf", "--card", "tarot")
    assert laid_out == []
    assert {p.name for p in folder.glob("*.pdf")} == kept
    laid_out.clear()
    _print(small, tmp_path / "d.pdf")
    assert sum(laid_out) == SMALL_FACES


def test_an_image_link_pointed_elsewhere_is_drawn_anew(tmp_path: Path, laid_out: list[int]) -> None:
    from PIL import Image

    pack = make_pack(tmp_path / "pack", cards=SCALPEL)
    (pack / "templates").mkdir()
    (pack / "templates" / "back.html").write_text('<img src="art/back.png" alt="">')
    (pack / "art").mkdir()
    Image.new("RGB", (8, 8), (200, 30, 30)).save(pack / "art" / "red.png")
    Image.new("RGB", (8, 8), (30, 60, 200)).save(pack / "art" / "blue.png")
    (pack / "art" / "back.png").symlink_to("red.png")
    _print(pack, tmp_path / "a.pdf")
    (pack / "art" / "back.png").unlink()
    (pack / "art" / "back.png").symlink_to("blue.png")
    laid_out.clear()
    _print(pack, tmp_path / "b.pdf")
    assert laid_out == [2]
    _print(pack, tmp_path / "fresh.pdf", "--no-cache")
    assert (tmp_path / "b.pdf").read_bytes() == (tmp_path / "fresh.pdf").read_bytes()


def test_an_image_turned_into_a_fifo_never_blocks_the_cache(
    tmp_path: Path, laid_out: list[int]
) -> None:
    import signal

    from PIL import Image

    pack = make_pack(tmp_path / "pack", cards=SCALPEL)
    (pack / "templates").mkdir()
    (pack / "templates" / "back.html").write_text('<img src="back.png" alt="">')
    Image.new("RGB", (8, 8), (200, 30, 30)).save(pack / "back.png")
    _print(pack, tmp_path / "a.pdf")
    (pack / "back.png").unlink()
    os.mkfifo(pack / "back.png")
    previous = signal.signal(signal.SIGALRM, signal.default_int_handler)
    signal.alarm(60)  # a blocking read would hang here: fail instead
    try:
        code, output = run("print", str(pack), "-o", str(tmp_path / "b.pdf"), "--backs", "duplex")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert code == 1, output
    assert "error[E0704]" in output


def test_a_cache_that_cannot_be_cleaned_never_fails_a_print(
    primed_small: Primed, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    small = _resume(primed_small)
    (folder,) = _cache_folders()
    stuck = folder / ("0" * 64 + ".pdf")
    stuck.mkdir()  # unlink() fails on it, as on a file another user owns
    os.utime(stuck, (0, 0))
    monkeypatch.setattr(facecache, "MAX_BYTES", 1)
    _print(small, tmp_path / "b.pdf", "--card", "tarot")
    assert stuck.is_dir()


def test_a_design_that_styles_faces_by_position_is_not_cached(
    small: Path, tmp_path: Path, laid_out: list[int]
) -> None:
    (small / "templates").mkdir(exist_ok=True)
    css = (Path(sheets.ASSETS) / "cards.css").read_text()
    (small / "templates" / "cards.css").write_text(
        css + "\n.face:nth-child(2) .title { color: red }\n"
    )
    _print(small, tmp_path / "a.pdf")
    laid_out.clear()
    _print(small, tmp_path / "b.pdf")
    assert sum(laid_out) == SMALL_FACES
    assert _cache_folders() == []


def _pdf_text(path: Path) -> str:
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(path)
    try:
        return "\n".join(page.get_textpage().get_text_range() for page in document)
    finally:
        document.close()
