"""Art on cards: a card's own `art`, else pack.yaml's for its kind, else its default; found in
the pack only, refused as template images are, reported at the line that names it; printed
and shown in the report alike. And glyphs: a character the shipped fonts lack prints from an
installed font that has it, and one no font has is warned of where the card writes it."""

from __future__ import annotations

import os
import random
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib
from pathlib import Path

import pikepdf
import pytest
from PIL import Image

from compiler.build import load_checked
from compiler.printing.art import art_file, art_for
from compiler.printing.fit import ART_SHARES, art_share, estimated_overflows, text_area
from compiler.printing.glyphs import (
    COVERAGE,
    coverage_text,
    installed_font_has,
    missing,
    read_font_coverage,
    shipped_coverage,
)
from compiler.printing.sizes import resolve_options
from tests.conftest import TESTS
from tests.helpers import house_rules_pack, make_pack, run

FIXTURE = TESTS / "data" / "art"
OWN, ITEM, ANY = (200, 30, 30), (30, 160, 60), (30, 60, 200)  # the fixture's images' colours
PRIVATE_USE = "\ue000"  # no font has it
FALLBACK_CANDIDATES = "\u2312\u2335\u235f\u2a00\u27c0"  # arcs, APL and maths symbols


def _fallback_character() -> str | None:
    """A character the shipped fonts lack and an installed font has, if this machine has one."""
    covered = shipped_coverage()
    return next(
        (c for c in FALLBACK_CANDIDATES if ord(c) not in covered and installed_font_has(ord(c))),
        None,
    )


@pytest.fixture(scope="module")
def printed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str | None]:
    """The fixture pack, with a card of odd characters, printed once: its folder and output."""
    pack = tmp_path_factory.mktemp("art") / "art"
    shutil.copytree(FIXTURE, pack)
    fallback = _fallback_character()
    marks = f"an arc {fallback} and " if fallback else ""
    with (pack / "cards.card").open("a", encoding="utf-8") as cards:
        cards.write(
            f'\nquirk "Odd Marks" {{\n    condition "Draw {marks}a mark {PRIVATE_USE}."\n}}\n'
        )
    scratch = pack.parent / "temporary"  # the workers' temporary folder: nothing may stay
    scratch.mkdir()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tempfile, "tempdir", str(scratch))
        code, output = run(
            "print",
            str(pack),
            "-o",
            str(pack / "out.pdf"),
            "--png",
            str(pack / "png"),
            "--dpi",
            "40",
        )
    assert code == 0, output
    return pack, output, fallback


def test_a_print_leaves_no_temporary_files(printed: tuple[Path, str, str | None]) -> None:
    # WeasyPrint copies the fonts into a folder a forked worker never removed: megabytes a
    # print, which filled the disk in an afternoon of tests.
    pack, _, _ = printed
    assert list((pack.parent / "temporary").iterdir()) == []


def _share_of(png: Path, colour: tuple[int, int, int]) -> float:
    image = Image.open(png).convert("RGB")
    counts = image.getcolors(maxcolors=image.width * image.height) or []
    close = sum(
        n for n, found in counts if all(abs(a - b) < 24 for a, b in zip(found, colour, strict=True))
    )
    return close / (image.width * image.height)


def test_each_card_prints_its_own_art_else_its_kinds_else_the_default(
    printed: tuple[Path, str, str | None],
) -> None:
    pack, _, _ = printed
    pngs = sorted((pack / "png").glob("*.png"))
    assert [p.name for p in pngs] == [
        "001-red-scarf.png",
        "002-green-coat.png",
        "003-blue-mood.png",
        "004-odd-marks.png",
    ]
    for png, shown in zip(pngs, (OWN, ITEM, ANY, ANY), strict=True):
        shares = {colour: _share_of(png, colour) for colour in (OWN, ITEM, ANY)}
        # The art box is a good part of the card, cut to fill it; no other card's art shows.
        assert shares[shown] > 0.1, (png.name, shares)
        assert all(share < 0.01 for colour, share in shares.items() if colour != shown)


def test_the_report_shows_the_bytes_print_draws() -> None:
    from compiler.report.faces import FaceRenderer

    loaded = load_checked(FIXTURE)
    assert loaded.pack is not None
    options = resolve_options(loaded.pack.print_settings, {})
    faces = FaceRenderer(loaded.pack, options)
    scarf, coat, mood = loaded.pack.cards
    assert "images/own.png" in (FIXTURE / "cards.card").read_text()
    for card, image in ((scarf, "own"), (coat, "item"), (mood, "any")):
        face = faces.face(card, 0)
        found = re.search(r'<img src="data:image/png;base64,([A-Za-z0-9+/=]+)"', face)
        assert found is not None, face
        import base64

        assert (
            base64.b64decode(found.group(1)) == (FIXTURE / "images" / f"{image}.png").read_bytes()
        )
    assert faces.images.refused == []


def test_a_character_an_installed_font_has_prints_in_that_font(
    printed: tuple[Path, str, str | None],
) -> None:
    pack, output, fallback = printed
    if fallback is None:
        pytest.skip("no installed font has a character the shipped fonts lack")
    assert "U+" + f"{ord(fallback):04X}" not in output  # it has a glyph: no warning of it
    family = (
        subprocess.run(
            ["fc-list", f":charset={ord(fallback):x}", "family"], capture_output=True, text=True
        )
        .stdout.split(",")[0]
        .split("\n")[0]
    )
    with pikepdf.open(pack / "out.pdf") as pdf:
        fonts = {
            str(obj["/BaseFont"])
            for obj in pdf.objects
            if isinstance(obj, pikepdf.Dictionary) and obj.get("/Type") == "/Font"
        }
    # WeasyPrint asked fontconfig for the glyph: the font that has it is embedded.
    assert any(family.replace(" ", "-") in name for name in fonts), (family, fonts)


def test_a_character_no_font_has_is_warned_of_where_the_card_writes_it(
    printed: tuple[Path, str, str | None],
) -> None:
    pack, output, _ = printed
    line = (pack / "cards.card").read_text(encoding="utf-8").splitlines()
    number = next(i for i, text in enumerate(line, 1) if PRIVATE_USE in text)
    column = line[number - 1].index(PRIVATE_USE) + 1
    code, checked = run("check", "--no-cache", str(pack))
    assert code == 0, checked
    for said in (output, checked):
        assert said.count("warning[W0706]") == 1, said
        assert f"cards.card:{number}:{column}: warning[W0706]" in said
        assert "U+E000 a private-use character" in said


def test_the_characters_no_font_has_are_found_in_the_order_written() -> None:
    # missing() finds the characters past what every face has by one regex pass: the Latin
    # ones before U+0250 (a U+024F included) are never looked up, the rest come once each.
    text = f"Caf\u00e9 \u024f{PRIVATE_USE}\u00ff \u200b{PRIVATE_USE}\U000f0000"
    assert missing(text) == [PRIVATE_USE, "\U000f0000"]
    assert missing("Caf\u00e9 \u024f") == []


def test_art_is_found_inside_the_pack_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "pack"
    (root / "images").mkdir(parents=True)
    shutil.copy(FIXTURE / "images" / "own.png", root / "images" / "ok.png")
    shutil.copy(FIXTURE / "images" / "own.png", tmp_path / "outside.png")
    (root / "images" / "notes.txt").write_text("words")
    (root / "images" / "fake.png").write_text("not a picture")
    (root / "images" / "away.png").symlink_to(tmp_path / "outside.png")
    shutil.copy(FIXTURE / "images" / "own.png", root / "images" / "twin.png")
    os.link(root / "images" / "twin.png", tmp_path / "twin-outside.png")  # one file, two names
    (root / "images" / "huge.png").write_bytes(_png_header(20_000, 20_000))
    (root / "images" / "loop.png").symlink_to(root / "images" / "loop.png")
    with Image.open(FIXTURE / "images" / "own.png") as own:  # the same picture, other formats
        own.convert("RGB").save(root / "images" / "tiff.png", format="TIFF")
        own.convert("RGB").save(root / "images" / "bitmap.png", format="BMP")
        own.convert("RGB").save(root / "images" / "webp.jpg", format="WEBP")
        own.convert("RGB").save(root / "images" / "real.jpg", format="JPEG")
    reasons = {
        ".": "outside",
        "./": "outside",
        "images/loop.png": "missing",
        "images/ok.png": None,
        "./images/../images/ok.png": None,
        "images/none.png": "missing",
        "../outside.png": "outside",
        str(tmp_path / "outside.png"): "outside",
        "https://example.com/x.png": "outside",
        "images\\ok.png": "outside",
        "images/away.png": "outside",
        "images/twin.png": "link",
        "images/notes.txt": "type",
        "images/fake.png": "unreadable",
        "images/tiff.png": "disguised",
        "images/bitmap.png": "disguised",
        "images/webp.jpg": "disguised",
        "images/real.jpg": None,
        "images/huge.png": "pixels",
        "images/ok\x00.png": "missing",
    }
    for written, reason in reasons.items():
        assert art_file(root, written)[1] == reason, written
    monkeypatch.setattr("compiler.printing.art.MAX_RESOURCE_BYTES", 100)
    assert art_file(root, "images/ok.png")[1] == "large"


def _png_header(width: int, height: int) -> bytes:
    """A PNG of that size whose pixels are never there: only its header is read."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data)
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IEND", b"")


BROKEN = """pack: broken
title: Broken
version: 0.1.0
ruleset: coma-ward
print:
  art:
    item: images/missing.png
    itme: images/own.png
"""


def test_check_and_print_report_bad_art_at_the_line_that_names_it(tmp_path: Path) -> None:
    cards = 'item "Scarf" {\n    type clothing\n    art "../own.png"\n}\n'
    pack = make_pack(tmp_path / "broken", BROKEN, cards=cards)
    (pack / "images").mkdir()
    shutil.copy(FIXTURE / "images" / "own.png", pack / "images" / "own.png")
    shutil.copy(FIXTURE / "images" / "own.png", tmp_path / "own.png")
    code, output = run("check", "--no-cache", str(pack))
    assert code == 1, output
    assert (
        "cards.card:3:5: error[E0710]: art '../own.png', outside the pack folder: refused" in output
    )
    assert (
        "pack.yaml:7:11: error[E0712]: pack.yaml: print: art: item: 'images/missing.png': "
        "there is no such file in the pack" in output
    )
    assert "pack.yaml:8:11: warning[W0710]: pack.yaml: print: art: 'itme' is no kind" in output
    assert "did you mean 'item'?" in output
    out = tmp_path / "out.pdf"
    code, output = run("print", str(pack), "-o", str(out))
    assert code == 1 and "error[E0710]" in output and not out.exists()
    # The cache keeps the card text, not the image: a file put in place is seen at once.
    (pack / "cards.card").write_text(cards.replace("../own.png", "images/gone.png"))
    assert "error[E0710]: art 'images/gone.png'" in run("check", str(pack))[1]
    shutil.copy(FIXTURE / "images" / "own.png", pack / "images" / "gone.png")
    assert "E0710" not in run("check", str(pack))[1]
    (pack / "images" / "gone.png").write_text("no longer an image")
    code, output = run("check", "--format", "json", str(pack))
    assert code == 1 and '"code": "E0711"' in output


def test_a_ruleset_gives_art_its_own_word(tmp_path: Path) -> None:
    rules = (
        "ruleset: painted\ntitle: Painted\nversion: 1\nextends: coma-ward\n"
        'properties:\n  art: {pattern: "picture {image}"}\n'
    )
    cards = 'quirk "Seen" {\n    picture "images/own.png"\n    condition "You see it."\n}\n'
    pack = house_rules_pack(tmp_path / "painted", "painted", rules, cards)
    (pack / "images").mkdir()
    shutil.copy(FIXTURE / "images" / "own.png", pack / "images" / "own.png")
    loaded = load_checked(pack)
    assert loaded.pack is not None, [d.message for d in loaded.diagnostics]
    assert art_for(loaded.pack.cards[0], {}) == "images/own.png"


def test_the_text_estimate_makes_room_for_the_art() -> None:
    poker = (63.5, 88.9)
    assert text_area(*poker, ART_SHARES[-1]) < text_area(*poker)
    assert art_share(60, *poker) == ART_SHARES[0]  # a line of text: the largest picture
    assert art_share(2000, *poker) == ART_SHARES[-1]  # a wall of text: the smallest
    loaded = load_checked(FIXTURE)
    assert loaded.pack is not None
    ruleset = loaded.pack.ruleset
    long = "The corridor goes on and the lamps flicker in a rhythm. " * 16
    card = {**loaded.pack.cards[2], "properties": {"condition": long}}
    assert estimated_overflows(ruleset, [card], poker) == []
    with_art = {**card, "properties": {**card["properties"], "art": "images/any.png"}}
    assert art_share(900, *poker) == 0.0  # fits alone, not beside the smallest box
    assert [d.code for d in estimated_overflows(ruleset, [with_art], poker)] == ["W0711"]
    longer = {**with_art, "properties": {**with_art["properties"], "condition": long * 2}}
    # Too long even alone: the art stays, small, and the text is what is warned of.
    assert [d.code for d in estimated_overflows(ruleset, [longer], poker)] == ["W0701"]


def test_the_bundled_pack_with_art_gives_every_card_a_picture() -> None:
    pack = Path(__file__).resolve().parents[1] / "content" / "cool-name"
    loaded = load_checked(pack)
    assert loaded.pack is not None
    settings = loaded.pack.print_settings
    kinds = {card["kind"] for card in loaded.pack.cards}
    assert kinds == {"weapon", "tool", "foe", "environment", "condition"}
    for card in loaded.pack.cards:
        written = art_for(card, settings)
        assert written is not None and art_file(pack, written)[1] is None, card["title"]


def test_a_print_whose_faces_carry_too_much_art_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The pictures a print holds, each once (213, 219 and 218 bytes here): past the limit the
    # print stops before any layout.
    monkeypatch.setattr("compiler.printing.cards.MAX_ART_CHARS", 400)
    out = tmp_path / "out.pdf"
    code, output = run("print", str(FIXTURE), "-o", str(out), "--no-cache")
    assert code == 1 and not out.exists(), output
    # The second picture goes past it; the coat takes its kind's, so its header is named.
    assert "cards.card:6:1: error[E0713]: the art of the cards comes to more than" in output


def test_text_that_leaves_no_room_for_the_art_prints_without_it(tmp_path: Path) -> None:
    from compiler.printing.cards import CardRenderer

    long = "The corridor goes on and the lamps flicker in a rhythm. " * 16
    cards = f'quirk "Wordy" {{\n    art "images/own.png"\n    condition "{long.strip()}"\n}}\n'
    pack = make_pack(tmp_path / "wordy", cards=cards)
    (pack / "images").mkdir()
    shutil.copy(FIXTURE / "images" / "own.png", pack / "images" / "own.png")
    code, output = run("check", "--no-cache", str(pack))
    assert code == 0, output
    # The text fits alone and not beside the smallest box: the rules come first.
    assert "cards.card:2:5: warning[W0711]: the text of quirk 'Wordy' leaves no room" in output
    assert "W0701" not in output
    loaded = load_checked(pack)
    assert loaded.pack is not None
    renderer = CardRenderer(loaded.pack, resolve_options({}, {}))
    face, overflow, _ = renderer.face(loaded.pack.cards[0], "0")
    assert not overflow and 'class="art"' not in face.html and "pillbox-art" not in face.html
    assert [d.code for d in renderer.no_room_for_art.values()] == ["W0711"]


def test_a_face_drawn_again_at_the_smallest_text_counts_its_art_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from compiler.printing.cards import CardRenderer

    loaded = load_checked(FIXTURE)
    assert loaded.pack is not None
    renderer = CardRenderer(loaded.pack, resolve_options({}, {}))
    card = next(c for c in loaded.pack.cards if renderer.art(c))
    monkeypatch.setattr("compiler.printing.cards.MAX_ART_CHARS", len(renderer.art(card) or ""))
    renderer.face(card, "0")
    renderer.face(card, "0", smallest=True)  # print's second try at a cut-off face


def test_the_coverage_file_is_what_the_shipped_fonts_cover() -> None:
    # The check reads the file, not the fonts: a font changed without `make fonts` would warn
    # of characters it prints, or stay silent about ones it lacks.
    covered = read_font_coverage()
    assert shipped_coverage() == covered
    assert COVERAGE.read_text(encoding="ascii") == coverage_text(covered), "run make fonts"


USE_BOMB = (
    '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">'
    '<defs><rect id="a0" width="1" height="1"/>'
    + "".join(
        f'<g id="a{n}">' + f'<use xlink:href="#a{n - 1}"/>' * 10 + "</g>" for n in range(1, 8)
    )
    + '</defs><use xlink:href="#a7"/></svg>'
)
"""Ten copies of ten copies...: a few kilobytes that ask for ten million rectangles."""

SVG_ART = {
    "fine.svg": '<svg xmlns="http://www.w3.org/2000/svg"><circle r="4"/><use href="#c"/></svg>',
    "bomb.svg": USE_BOMB,
    "file.svg": '<svg xmlns="http://www.w3.org/2000/svg"><image href="file:///etc/passwd"/></svg>',
    "up.svg": '<svg xmlns="http://www.w3.org/2000/svg"><image href="../../x.png"/></svg>',
    "web.svg": '<svg xmlns="http://www.w3.org/2000/svg"><image href="http://example.com/a.png"/></svg>',
    "styled.svg": '<svg xmlns="http://www.w3.org/2000/svg"><rect style="fill:url(http://x/y)"/></svg>',
    "entity.svg": '<!DOCTYPE svg [<!ENTITY a "aaaa">]><svg xmlns="http://www.w3.org/2000/svg">&a;</svg>',
    "loop.svg": '<svg xmlns="http://www.w3.org/2000/svg"><g id="g"><use href="#g"/></g></svg>',
}


def test_check_refuses_svg_art_that_reaches_out_or_explodes_at_the_art_line(
    tmp_path: Path,
) -> None:
    # Such art checked clean and then print spent 31 s on it or refused it as the templates'.
    cards = "".join(
        f'item "Thing {n}" {{\n    type clothing\n    art "images/{name}"\n}}\n'
        for n, name in enumerate(SVG_ART)
    )
    pack = make_pack(tmp_path / "svg", cards=cards)
    (pack / "images").mkdir()
    for name, text in SVG_ART.items():
        (pack / "images" / name).write_text(text)
    verdicts = {name: art_file(pack, f"images/{name}")[1] for name in SVG_ART}
    assert verdicts == {
        "fine.svg": None,
        "bomb.svg": "complex",
        "file.svg": "reaches",
        "up.svg": "reaches",
        "web.svg": "reaches",
        "styled.svg": "reaches",
        "entity.svg": "complex",
        "loop.svg": "complex",
    }
    code, output = run("check", "--no-cache", str(pack))
    assert code == 1, output
    lines = sorted(
        int(line.split(":")[1]) for line in output.splitlines() if "error[E0711]" in line
    )
    assert lines == [7, 11, 15, 19, 23, 27, 31]  # each refused file at its card's art line


MEASURED = """
import resource, subprocess, sys
done = subprocess.run(sys.argv[1:], capture_output=True, text=True)
print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)
print(done.stdout + done.stderr)
"""
"""Runs a command and says its exit code and the largest memory of it or any of its workers."""


def test_one_photo_on_nine_cards_is_held_and_embedded_once(tmp_path: Path) -> None:
    # A 19.5 MB, 6.5-megapixel photo as every room's art: each face carried it as a data: URL
    # and the print failed past 1 GB (E0705, blaming templates the pack did not have).
    pack = tmp_path / "photo"
    (pack / "images").mkdir(parents=True)
    noise = random.Random(7).randbytes(3120 * 2080 * 3)
    Image.frombytes("RGB", (3120, 2080), noise).save(pack / "images" / "photo.png")
    photo = (pack / "images" / "photo.png").stat().st_size
    (pack / "pack.yaml").write_text(
        "pack: photo\ntitle: Photo\nversion: 0.1.0\nruleset: coma-ward\n"
        "print:\n  art:\n    default: images/photo.png\n"
    )
    (pack / "rooms.card").write_text(
        "".join(f'room "Room {n}" {{\n    number {n + 1}\n}}\n' for n in range(9))
    )
    out = tmp_path / "photo.pdf"
    command = [sys.executable, "-m", "compiler", "print", str(pack), "-o", str(out), "--no-cache"]
    done = subprocess.run(
        [sys.executable, "-c", MEASURED, *command], capture_output=True, text=True, check=True
    )
    code, megabytes = map(int, done.stdout.split("\n", 1)[0].split())
    assert code == 0, done.stdout
    assert megabytes < 1024, f"{megabytes} MB"
    assert out.stat().st_size < photo * 1.3  # the picture once, not nine times
