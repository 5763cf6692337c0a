"""A pack gives its backs per deck: a template, or just an image printed full bleed.

For each deck the pack's `templates/back-<deck>.html` wins, then `back-<deck>.png` (or .jpg,
.jpeg, .svg, .webp), then the pack's common `back.html`, then its `back.png`, then the bundled
back. An image covers the card and its bleed, cut to fill them.
"""

from __future__ import annotations

import os
from pathlib import Path

from PIL import Image

from tests.helpers import make_pack, run
from tests.test_print_safety import PREVIOUS

CARDS = (
    'item "Scalpel" {\n    type weapon\n    hands 1\n    attack +1\n    damage 1\n}\n'
    'room "Boiler Room" {\n    number 7\n}\n'
    'hallucination "The Figure" {\n    situation "It stands there."\n'
    '    option "Look away" { lose terror 1 }\n}\n'
)
RED, BLUE = (200, 30, 30), (30, 60, 200)
DPI = 72
MARK_ROOM_MM, BLEED_MM = 10.0, 3.0


def _px(mm: float) -> int:
    return round(mm * DPI / 25.4)


def _pack(tmp_path: Path, templates: dict[str, str | tuple[int, int, int]] | None = None) -> Path:
    """The three-deck pack; a colour writes a solid image of it, a string a text file."""
    pack = make_pack(tmp_path / "pack", cards=CARDS)
    folder = pack / "templates"
    folder.mkdir()
    for name, content in (templates or {}).items():
        if isinstance(content, tuple):
            Image.new("RGB", (120, 170), content).save(folder / name)
        else:
            (folder / name).write_text(content)
    return pack


def _backs(tmp_path: Path, pack: Path) -> list[tuple[tuple[int, ...], tuple[int, ...], str]]:
    """Each card's back page (one card a page, duplex): the colour at its centre, the colour
    just inside its bleed's outer edge, and its text."""
    import pypdfium2 as pdfium

    out = tmp_path / "out.pdf"
    code, output = run(
        "print", str(pack), "-o", str(out), "--layout", "single", "--backs", "duplex",
        "--bleed", "3mm",
    )  # fmt: skip
    assert code == 0, output
    document = pdfium.PdfDocument(out)
    found = []
    try:
        for number in range(1, len(document), 2):
            page = document[number]
            image = page.render(scale=DPI / 72).to_pil().convert("RGB")
            width, height = image.size
            edge = _px(MARK_ROOM_MM) + 1
            text = page.get_textpage().get_text_range()
            found.append(
                (
                    image.getpixel((width // 2, height // 2)),
                    image.getpixel((edge, height // 2)),
                    text,
                )
            )
    finally:
        document.close()
    return found


def test_a_deck_image_covers_the_card_and_its_bleed(tmp_path: Path) -> None:
    pack = _pack(tmp_path, {"back-item.png": RED})
    item, room, hallucination = _backs(tmp_path, pack)
    assert item[0] == RED and item[1] == RED
    # The other decks keep the bundled back: a dark ground with the deck's name.
    assert room[0] != RED and "ROOM" in room[2].upper()
    assert "HALLUCINATION" in hallucination[2].upper()


def test_a_deck_template_wins_over_its_image_and_the_common_back_serves_the_rest(
    tmp_path: Path,
) -> None:
    pack = _pack(
        tmp_path,
        {
            "back-item.png": RED,
            "back-item.html": "<p>ITEM TEMPLATE {{ back.deck_name }}</p>",
            "back-room.svg": (
                '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="14">'
                '<rect width="10" height="14" fill="rgb(200,30,30)"/></svg>'
            ),
            "back.png": BLUE,
        },
    )
    item, room, hallucination = _backs(tmp_path, pack)
    assert "ITEM TEMPLATE Item" in item[2] and item[0] != RED
    assert room[0] == RED and room[1] == RED
    assert hallucination[0] == BLUE and hallucination[1] == BLUE


def test_the_common_back_template_wins_over_the_common_image(tmp_path: Path) -> None:
    pack = _pack(tmp_path, {"back.html": "<p>COMMON {{ back.deck }}</p>", "back.png": BLUE})
    item, room, _ = _backs(tmp_path, pack)
    assert "COMMON item" in item[2] and "COMMON room" in room[2]
    assert item[0] != BLUE


def test_an_oversized_back_image_is_refused_at_its_file(tmp_path: Path) -> None:
    pack = _pack(tmp_path)
    with open(pack / "templates" / "back-item.png", "wb") as image:
        image.truncate(21 * 2**20)  # sparse: no time spent writing it
    out = tmp_path / "out.pdf"
    out.write_bytes(PREVIOUS)
    code, output = run("print", str(pack), "-o", str(out), "--backs", "duplex")
    assert code == 1, output
    assert (
        "templates/back-item.png:1:1: error[E0701]: back image back-item.png is over 20 MB"
        in output
    )
    assert out.read_bytes() == PREVIOUS


def test_a_hard_linked_back_image_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside.png"
    Image.new("RGB", (10, 14), RED).save(outside)
    pack = _pack(tmp_path)
    os.link(outside, pack / "templates" / "back-item.png")
    code, output = run("print", str(pack), "-o", str(tmp_path / "out.pdf"), "--backs", "duplex")
    assert code == 1, output
    assert "back image back-item.png is a hard link" in output


def test_without_duplex_backs_no_back_image_is_read(tmp_path: Path) -> None:
    pack = _pack(tmp_path)
    with open(pack / "templates" / "back-item.png", "wb") as image:
        image.truncate(21 * 2**20)
    code, output = run("print", str(pack), "-o", str(tmp_path / "out.pdf"))
    assert code == 0, output


# --- images that are missing or broken: an error at the file, never a silent hole -------------


def _fails(tmp_path: Path, pack: Path) -> str:
    out = tmp_path / "out.pdf"
    out.write_bytes(PREVIOUS)
    code, output = run("print", str(pack), "-o", str(out), "--backs", "duplex")
    assert code == 1, output
    assert "Traceback" not in output
    assert out.read_bytes() == PREVIOUS
    return output


def test_an_unreadable_back_image_is_an_error_at_its_file(tmp_path: Path) -> None:
    pack = _pack(tmp_path, {"back-item.png": "this is text, not a picture"})
    for _ in range(2):  # the failed layout is not kept in the cache either
        output = _fails(tmp_path, pack)
        assert "templates/back-item.png:1:1: error[E0704]: a template asks for 'file://" in output
        assert "it cannot be read as an image" in output


def test_an_image_missing_from_the_pack_is_an_error(tmp_path: Path) -> None:
    pack = _pack(tmp_path, {"back.html": '<img src="pictures/bak.png" alt="">'})
    output = _fails(tmp_path, pack)
    assert "error[E0704]" in output and "bak.png': there is no such file in the pack" in output
    assert "outside the pack" not in output


def test_a_missing_image_whose_name_the_template_builds_is_at_that_line(tmp_path: Path) -> None:
    back = '<div>\n  <img src="pictures/{{ back.deck }}-back.png" alt="">\n</div>'
    pack = _pack(tmp_path, {"back.html": back})
    output = _fails(tmp_path, pack)
    assert "templates/back.html:2:13: error[E0704]" in output, output
    assert "templates:1:1" not in output


def test_an_oversized_image_a_template_asks_for_is_refused(tmp_path: Path) -> None:
    pack = _pack(tmp_path, {"back.html": '<img src="big.png" alt="">'})
    with open(pack / "big.png", "wb") as image:
        image.truncate(21 * 2**20)
    output = _fails(tmp_path, pack)
    assert "big.png:1:1: error[E0704]" in output and "over 20 MB: refused" in output


def test_an_unreadable_image_with_a_quote_in_its_name_is_still_found(tmp_path: Path) -> None:
    # WeasyPrint's log shows such a URL in double quotes; the URL is read from the record.
    pack = _pack(tmp_path, {"back.html": '<img src="it&#39;s.png" alt="">'})
    (pack / "it's.png").write_text("not a picture")
    output = _fails(tmp_path, pack)
    assert "it's.png:1:1: error[E0704]" in output
