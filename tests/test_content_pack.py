"""The bundled Coma Ward pack: complete, checked, tested, printable, as the project promises."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

from compiler.build import CompiledPack, compile_pack, load_checked
from tests.conftest import ROOT, BundledPrints
from tests.helpers import run

PACK = ROOT / "content" / "coma-ward"

BASE_CHART = {"ABC", "ACB", "BAC", "BCA", "CAB"}
EXPANSION_CHART = {"ACD", "ADC", "CAD", "CDA", "DAC"}


@pytest.fixture(scope="module")
def pack() -> CompiledPack:
    loaded = load_checked(PACK)
    assert loaded.pack is not None, [d.message for d in loaded.diagnostics]
    return compile_pack(loaded.pack)


def irs(pack: CompiledPack) -> list[dict[str, Any]]:
    return [card for f in pack.checked.files for card in f.cards]


def test_strict_check_leaves_no_diagnostic_and_every_line_executable() -> None:
    code, output = run("check", str(PACK), "--format", "json")
    assert code == 0, output
    report = json.loads(output)
    assert report["errors"] == 0
    assert report["diagnostics"] == []  # orders off the chart are the guest-writer note's
    assert report["executable"] == 1.0


def test_every_card_test_passes() -> None:
    code, output = run("test", str(PACK))
    assert code == 0, output


def test_every_card_with_effects_has_a_test(pack: CompiledPack) -> None:
    untested = [
        card["title"]
        for card in irs(pack)
        if (card.get("options") or any("effects" in b for b in card.get("blocks", [])))
        and not card["tests"]
        and not _tested_elsewhere(card, irs(pack))
    ]
    assert untested == []


def _tested_elsewhere(card: dict[str, Any], cards: list[dict[str, Any]]) -> bool:
    """A variant's or strip's behaviour may be tested from another card's test."""
    return any(
        step.get("use") == card["title"]
        or step.get("play") == card["title"]
        or step.get("carry") == card["title"]
        for other in cards
        for test in other["tests"]
        for step in test["steps"]
    )


def test_the_pack_has_what_the_game_needs(pack: CompiledPack) -> None:
    cards = irs(pack)
    kinds = Counter(card["kind"] for card in cards)
    assert kinds["hallucination"] >= 30
    groups = Counter(c["title"] for c in cards if c["kind"] == "hallucination" and c["variant"])
    assert sum(groups.values()) >= 6 and all(2 <= n <= 3 for n in groups.values())
    assert kinds["item"] + kinds["clue"] >= 30
    assert kinds["room"] >= 12
    assert kinds["quirk"] == 10
    assert kinds["neurosis"] == 6
    assert kinds["phenomenon"] == 10
    orders = {"".join(c["properties"]["clue_order"]) for c in cards if c["kind"] == "phenomenon"}
    assert orders == BASE_CHART | EXPANSION_CHART
    letters = {c["properties"]["letter"] for c in cards if c["kind"] == "clue"}
    assert letters == {"A", "B", "C", "D"}


def test_the_items_cover_every_kind_the_rulebook_has(pack: CompiledPack) -> None:
    items = [c for c in irs(pack) if c["kind"] == "item"]

    def having(**wanted: Any) -> list[str]:
        return [
            c["title"] for c in items if all(c["properties"].get(k) == v for k, v in wanted.items())
        ]

    for stat in ("strength", "dexterity"):
        for hands in (1, 2):
            assert having(type="weapon", attacks_with=stat, hands=hands), (stat, hands)
    assert [c for c in items if "protects" in c["properties"]]
    assert [
        c
        for c in items
        for b in c.get("blocks", [])
        for m in b.get("modifiers", [])
        if m.get("modifier") == "carry_bonus"
    ]
    assert having(type="food")
    assert [
        c
        for c in items
        if c["properties"].get("type") == "medicine" and "charges" in c["properties"]
    ]
    assert [c for c in items if any(b["block"] == "as_attack" for b in c.get("blocks", []))]


def test_every_neurosis_has_three_bands_two_sides_and_adrenaline(pack: CompiledPack) -> None:
    for strip in [c for c in irs(pack) if c["kind"] == "neurosis"]:
        blocks = strip["blocks"]
        front = {
            b["args"]["band"]
            for b in blocks
            if "band" in b.get("args", {}) and "side" not in b["args"]
        }
        flipped = [b for b in blocks if b.get("args", {}).get("side") == "flipped"]
        assert front == {"calm", "uneasy", "panicked"}, strip["title"]
        assert any(b["block"] != "adrenaline" for b in flipped), strip["title"]
        adrenaline = [b for b in blocks if b["block"] == "adrenaline"]
        assert len(adrenaline) == 2, strip["title"]
        assert "flip this" in json.dumps(strip) or "flip_this" in json.dumps(strip)


def test_every_deck_has_its_own_back() -> None:
    decks = {"item", "hallucination", "room", "quirk"}
    assert {p.stem.removeprefix("back-") for p in (PACK / "templates").glob("back-*.html")} >= decks


def test_the_pack_prints_without_overflow(bundled_prints: BundledPrints) -> None:
    printed = bundled_prints[PACK.name]
    assert printed.code == 0, printed.output
    assert "W0701" not in printed.output
