"""`pillbox print --tts DIR`: Tabletop Simulator decks, read back from the JSON and measured.

One small pack is printed once (a deck of items with copies, a deck of one quirk), with the
PNG previews beside, and with the sheet's side limit lowered so that the sheets are scaled
down as a large deck's would be; the larger decks are planned without drawing them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageChops, ImageStat

from compiler.printing import tts
from compiler.printing.tts import DeckCard, PackDeck, grid, plan_export, too_large
from tests.helpers import house_rules_pack, make_pack, run

ITEMS = """
item "Running Shoes" {
    type clothing
    copies 2
    while carried {
        dexterity +1
    }
    rule "Every pair after the first counts toward your carry limit."
}

item "Scalpel" {
    type weapon
    hands 1
    attacks with dexterity
    attack +1
    damage 1
}

item "Granola Bar" {
    type food
    copies 3
    use {
        discard this
        gain health 1
        lose terror 1
    }
}
"""

QUIRKS = """
quirk "Hoarder" {
    condition "You end your turn carrying as many items as you may carry."
    when your turn ends {
        if items carried >= carry limit {
            place pill on this
        }
    }
}
"""

DPI = 60
SIDE = 280
"""The sheet's side limit while the pack prints: 3 poker items and the hidden card (2 × 2
slots of 150 × 210 pixels at 60 dpi) must be scaled to two thirds to fit."""


@dataclass(frozen=True)
class Export:
    """The printed pack: its folders, the saved object, and the cache the print filled."""

    pack: Path
    folder: Path
    previews: Path
    saved: dict[str, Any]
    cache: Path


@pytest.fixture(scope="module")
def export(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Export]:
    """The small pack printed with `--tts` and `--png` (the module's own face cache)."""
    root = tmp_path_factory.mktemp("tts")
    pack = make_pack(root / "pack", items=ITEMS, quirks=QUIRKS)
    folder, previews, cache = root / "out" / "tts", root / "png", root / "cache"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PILLBOX_CACHE_DIR", str(cache))
        patch.setattr(tts, "MAX_SIDE", SIDE)
        code, output = run(
            "print", str(pack), "--tts", str(folder), "--png", str(previews), "--dpi", str(DPI)
        )
    assert code == 0, output
    assert "wrote 2 Tabletop Simulator decks (7 cards, 2 sheets)" in output, output
    saved = json.loads((folder / "test-pack.json").read_text(encoding="utf-8"))
    yield Export(pack, folder, previews, saved, cache)


def _objects(saved: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {item["Nickname"]: item for item in saved["ObjectStates"]}


def test_a_deck_holds_every_copy_with_its_title_and_rules_text(export: Export) -> None:
    items = _objects(export.saved)["Item"]
    assert items["Name"] == "DeckCustom"
    cards = items["ContainedObjects"]
    assert [card["CardID"] for card in cards] == items["DeckIDs"]
    titles = [card["Nickname"] for card in cards]
    assert {title: titles.count(title) for title in titles} == {
        "Running Shoes": 2,
        "Scalpel": 1,
        "Granola Bar": 3,
    }
    shoes = next(card for card in cards if card["Nickname"] == "Running Shoes")
    assert "Every pair after the first counts toward your carry limit." in shoes["Description"]
    bar = next(card for card in cards if card["Nickname"] == "Granola Bar")
    assert "Discard this item" in bar["Description"] and "Granola" not in bar["Description"]


def test_a_deck_of_one_card_is_a_card_of_its_own(export: Export) -> None:
    hoarder = _objects(export.saved)["Hoarder"]
    assert hoarder["Name"] == "Card" and "carry" in hoarder["Description"]
    assert hoarder["CardID"] // 100 == int(next(iter(hoarder["CustomDeck"])))


def test_every_card_id_names_a_real_slot_of_its_sheet(export: Export) -> None:
    for item in export.saved["ObjectStates"]:
        for card in item.get("ContainedObjects", [item]):
            sheet = card["CustomDeck"][str(card["CardID"] // 100)]
            assert card["CardID"] % 100 < sheet["NumWidth"] * sheet["NumHeight"] - 1
            for url in (sheet["FaceURL"], sheet["BackURL"]):
                assert url.startswith("file:///")
                assert Path(url.removeprefix("file://")).is_file(), url


def _slot(sheet: Image.Image, columns: int, rows: int, index: int) -> Image.Image:
    width, height = sheet.width // columns, sheet.height // rows
    left, top = index % columns * width, index // columns * height
    return sheet.crop((left, top, left + width, top + height)).convert("RGB")


def _distance(one: Image.Image, other: Image.Image) -> float:
    """How far apart two images are, both seen at the first one's size."""
    other = other.convert("RGB").resize(one.size, Image.Resampling.LANCZOS)
    return max(ImageStat.Stat(ImageChops.difference(one, other)).mean)


def test_each_card_is_drawn_in_its_slot_and_the_back_in_the_last(export: Export) -> None:
    items = _objects(export.saved)["Item"]
    (entry,) = items["CustomDeck"].values()
    columns, rows = entry["NumWidth"], entry["NumHeight"]
    assert (columns, rows) == (2, 2)
    with Image.open(export.folder / "test-pack-item-1.png") as sheet:
        assert max(sheet.size) <= SIDE
        assert sheet.size == (columns * 100, rows * 140)  # two thirds of 150 × 210
        previews = {
            path.stem.split("-", 1)[1]: Image.open(path) for path in export.previews.iterdir()
        }
        slugs = {
            "Running Shoes": "running-shoes",
            "Scalpel": "scalpel",
            "Granola Bar": "granola-bar",
        }
        for card in items["ContainedObjects"]:
            drawn = _slot(sheet, columns, rows, card["CardID"] % 100)
            distances = {name: _distance(drawn, image) for name, image in previews.items()}
            assert min(distances, key=distances.__getitem__) == slugs[card["Nickname"]]
            assert distances[slugs[card["Nickname"]]] < 5, distances
        with Image.open(export.folder / "test-pack-item-back.png") as back:
            assert back.size == (150, 210)  # the back alone is not scaled
            assert _distance(_slot(sheet, columns, rows, columns * rows - 1), back) < 8


def test_a_failed_export_leaves_the_folder_as_it_was(
    export: Export, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PILLBOX_CACHE_DIR", str(export.cache))  # the faces are laid out already
    folder = tmp_path / "tts"
    folder.mkdir()
    (folder / "test-pack-item-1.png").write_bytes(b"the sheet of before")
    (folder / "test-pack.json").mkdir()  # the saved object cannot be renamed onto a folder
    code, output = run("print", str(export.pack), "--tts", str(folder), "--dpi", "30")
    assert code == 2 and "cannot write" in output and "test-pack.json" in output, output
    assert (folder / "test-pack-item-1.png").read_bytes() == b"the sheet of before"
    assert sorted(path.name for path in folder.iterdir()) == [
        "test-pack-item-1.png",
        "test-pack.json",
    ]


def _deck(name: str, cards: int, copies: int = 1) -> PackDeck:
    return PackDeck(name, 10_000, [DeckCard(i, f"{name} {i}", "", copies) for i in range(cards)])


def test_a_deck_of_more_than_69_faces_is_split_across_sheets(tmp_path: Path) -> None:
    decks = [_deck("item", 150, copies=2), _deck("room", 3)]
    export = plan_export(tmp_path, None, ("big", "Big"), decks, (63.5, 88.9), 150, 3.0)
    items, rooms = export.decks
    assert [len(sheet.faces) for sheet in items.sheets] == [69, 69, 12]
    assert [(sheet.columns, sheet.rows) for sheet in items.sheets] == [(10, 7), (10, 7), (7, 2)]
    assert [sheet.deck_id for sheet in (*items.sheets, *rooms.sheets)] == [1, 2, 3, 4]
    saved = json.loads(export.saved_object)
    item_deck = saved["ObjectStates"][0]
    assert len(item_deck["DeckIDs"]) == 300 and sorted(item_deck["CustomDeck"]) == ["1", "2", "3"]
    assert item_deck["DeckIDs"][:4] == [100, 100, 101, 101]
    assert item_deck["DeckIDs"][-2:] == [311, 311]  # the 150th face: slot 11 of the third sheet
    assert export.names[-1] == "big.json" and "big-item-3.png" in export.names


def test_sheets_stay_within_4096_pixels_a_side(tmp_path: Path) -> None:
    export = plan_export(tmp_path, None, ("big", "Big"), [_deck("x", 2)], (70, 120), 600, 0)
    for columns, rows in ((10, 7), grid(2), (1, 1)):
        _, (width, height) = export.fit(columns, rows)
        assert columns * width <= 4096 and rows * height <= 4096
    assert export.fit(2, 2)[1] < export.fit(1, 1)[1] == (1653, 2834)


def test_tts_url_points_the_saved_object_at_the_web(tmp_path: Path) -> None:
    export = plan_export(
        tmp_path, "https://example.org/deck/", ("p", "P"), [_deck("x", 2)], (63.5, 88.9), 150, 0
    )
    sheet = json.loads(export.saved_object)["ObjectStates"][0]["CustomDeck"]["1"]
    assert sheet["FaceURL"] == "https://example.org/deck/p-x-1.png"
    assert sheet["BackURL"] == "https://example.org/deck/p-x-back.png"


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ((), "-o FILE.pdf"),
        (("--tts", "out", "--tts-url", "ftp://example.org/"), "http:// or https://"),
        (("-o", "cards.pdf", "--tts-url", "https://example.org/"), "give --tts DIR too"),
        (("--tts", "out", "--png", "out/png"), "a folder of its own"),
    ],
)
def test_usage_errors_exit_2_before_anything_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, arguments: tuple[str, ...], message: str
) -> None:
    monkeypatch.chdir(tmp_path)
    code, output = run("print", "no-such-pack", *arguments)
    assert code == 2 and message in output, output
    assert not any(tmp_path.iterdir())


def test_decks_whose_names_write_alike_get_files_of_their_own(tmp_path: Path) -> None:
    decks = [_deck("night_shift", 2), _deck("night-shift", 2)]
    export = plan_export(tmp_path, None, ("p", "P"), decks, (63.5, 88.9), 150, 0)
    assert export.names == [
        "p-night-shift-1.png",
        "p-night-shift-back.png",
        "p-night-shift-2-1.png",
        "p-night-shift-2-back.png",
        "p.json",
    ]


def test_a_card_larger_than_the_paper_exports_without_a_pdf(export: Export, tmp_path: Path) -> None:
    folder = tmp_path / "tts"
    arguments = ["--card", "300x300mm", "--only", "Hoarder", "--dpi", "30"]
    code, output = run("print", str(export.pack), "--tts", str(folder), *arguments)
    assert code == 0 and "wrote 1 Tabletop Simulator deck (1 card, 1 sheet)" in output, output
    code, output = run("print", str(export.pack), "-o", str(tmp_path / "c.pdf"), *arguments)
    assert code == 2 and "does not fit on a4" in output, output


def test_an_export_of_too_many_copies_is_E0720_before_any_layout(tmp_path: Path) -> None:
    rules = "ruleset: house\ntitle: House\nversion: 1\nextends: coma-ward\n"
    rules += "slots:\n  copies: {integer: [1, 1000000]}\n"
    pebbles = 'item "Pebble" {\n    type food\n    copies 1000000\n}\n'
    pack = house_rules_pack(tmp_path / "pack", "house", rules, pebbles)
    folder = tmp_path / "tts"
    code, output = run("print", str(pack), "--tts", str(folder))
    assert code == 1, output
    assert (
        "cards.card:1:1: error[E0720]: a Tabletop Simulator export would hold 1,000,000" in output
    )
    assert not folder.exists()


def test_an_export_of_too_much_text_is_E0720_at_the_wordiest_card(tmp_path: Path) -> None:
    cards = [{"kind": "item", "file": "a.card", "at": [line, 1]} for line in (1, 9)]
    decks = [
        PackDeck("item", 2, [DeckCard(0, "Short", "x", 20), DeckCard(1, "Long", "y" * 900_000, 20)])
    ]
    diagnostic = too_large(decks, cards)
    assert diagnostic is not None and diagnostic.code == "E0720"
    assert diagnostic.span.line == 9 and "characters of titles and rules text" in diagnostic.message
    assert too_large([PackDeck("item", 2, decks[0].cards[:1])], cards) is None


def test_calibrate_still_needs_its_pdf_now_that_o_is_optional(tmp_path: Path) -> None:
    code, output = run("print", "--calibrate")
    assert code == 2 and "--calibrate writes a PDF: give -o FILE.pdf" in output, output
