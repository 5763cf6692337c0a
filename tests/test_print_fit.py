"""Text that does not fit is shrunk, and past that reported: never silently cut off."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import TESTS
from tests.helpers import make_pack, run

LONG = """
hallucination "The Long Corridor" {
    situation "The corridor goes on. The lamps flicker in a rhythm that almost spells something."
    option "Keep walking" {
        say "%s"
        gain terror 1
    }
    option "Turn back" { lose terror 1 }
}
"""


def test_the_specimens_fit(tmp_path: Path) -> None:
    code, output = run(
        "print", str(TESTS / "specimens" / "coma-ward"), "-o", str(tmp_path / "a.pdf")
    )
    assert code == 0, output
    assert "W0701" not in output


def test_text_cut_off_by_the_layout_is_shrunk_or_reported_even_if_the_estimate_missed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Make the estimate believe everything fits: only the laid-out page can tell.
    monkeypatch.setattr("compiler.printing.fit.CHARS_PER_MM2", 100.0)
    sentence = "You walk until your legs forget they are legs, and the doors close behind you. "
    fits_small = make_pack(tmp_path / "small", cards=LONG % (sentence * 5).strip())
    code, output = run("print", str(fits_small), "-o", str(tmp_path / "a.pdf"))
    assert code == 0, output
    assert "W0701" not in output  # cut at full size, so laid out again at the smallest: fits
    too_long = make_pack(tmp_path / "long", cards=LONG % (sentence * 30).strip())
    code, output = run("print", str(too_long), "-o", str(tmp_path / "b.pdf"))
    assert code == 0, output
    assert "warning[W0701]: the text of hallucination 'The Long Corridor' does not fit" in output
    assert "cards.card:2:1" in output


def test_long_text_is_shrunk_before_it_is_reported(tmp_path: Path) -> None:
    words = "You walk until your legs forget they are legs. " * 5
    pack = make_pack(tmp_path / "pack", cards=LONG % words.strip())
    code, output = run("print", str(pack), "-o", str(tmp_path / "a.pdf"))
    assert code == 0, output
    assert "W0701" not in output  # shrunk one or two steps, it fits


def test_a_styled_word_takes_the_space_before_it() -> None:
    """WeasyPrint leaves a lone first word on a line when an element follows a space at the
    end of a full line; the space moves inside the element, where the break is right."""
    from compiler.printing.faces import _Words

    words = _Words({"It hums."}, {"Terror": "terror"})
    parts = words.parts("If so, reduce your Terror by 1. It hums.")
    assert [(p["lead"], p["text"]) for p in parts] == [
        ("", "If so, reduce your"),
        (" ", "Terror"),
        ("", " by 1."),
        (" ", "It hums."),
    ]


def test_a_card_with_little_text_prints_larger_with_its_motif(tmp_path: Path) -> None:
    from compiler.build import load_checked
    from compiler.printing.faces import face_data
    from compiler.printing.sizes import resolve_options

    pack = make_pack(
        tmp_path / "p",
        items='item "Scalpel" { type weapon; hands 1; attack +1; damage 1 }\n'
        + 'item "Ledger" { type food\n use { discard this\n'
        + "".join(
            f' say "{"A long line of narration that fills the card. " * 3}"\n' for _ in range(6)
        )
        + " gain health 1 } }\n",
    )
    loaded = load_checked(pack)
    assert loaded.pack is not None
    options = resolve_options({}, {})
    cards = {c["title"]: c for f in loaded.pack.files for c in f.cards}
    short = face_data(loaded.pack.ruleset, cards["Scalpel"], options, "P").context
    long = face_data(loaded.pack.ruleset, cards["Ledger"], options, "P").context
    assert short["roomy"] and short["motif"] == "weapon"
    assert not long["roomy"]
    code, output = run(
        "print", str(pack), "-o", str(tmp_path / "p.pdf"), "--png", str(tmp_path / "png")
    )
    assert code == 0, output


def test_check_warns_from_the_estimate_at_the_packs_card_size(tmp_path: Path) -> None:
    sentence = "You walk until your legs forget they are legs, and the doors close behind you. "
    long = make_pack(tmp_path / "long", cards=LONG % (sentence * 12).strip())
    code, output = run("check", "--no-cache", str(long))
    assert code == 0 and "warning[W0701]: the text of hallucination 'The Long Corridor'" in output
    code, _ = run("check", "--no-cache", "--strict", str(long))
    assert code == 1
    # A tarot card has room for it: the estimate follows pack.yaml's card size.
    manifest = long / "pack.yaml"
    manifest.write_text(manifest.read_text() + "print:\n  card: tarot\n")
    code, output = run("check", str(long))
    assert code == 0 and "W0701" not in output, output


def test_print_strict_fails_on_text_that_does_not_fit_and_writes_nothing(tmp_path: Path) -> None:
    sentence = "You walk until your legs forget they are legs, and the doors close behind you. "
    long = make_pack(tmp_path / "long", cards=LONG % (sentence * 30).strip())
    out = tmp_path / "strict.pdf"
    code, output = run("print", str(long), "-o", str(out), "--strict")
    assert code == 1 and "warning[W0701]" in output
    assert "nothing written: fix the warnings (--strict) above" in output and not out.exists()


def test_characters_no_font_has_are_warned_of_where_the_card_writes_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Whatever this machine has installed, say no installed font has them.
    monkeypatch.setattr("compiler.printing.glyphs.installed_font_has", lambda codepoint: False)
    cards = (
        'hallucination "Smile" {\n'
        '    situation "A face grins \U0001f600 at you from the sign."\n'
        '    option "Go" { end turn }\n'
        '    option "Stay" { say "The \U0001f9e0 hums, \u75c5." }\n'
        "}\n"
    )
    pack = make_pack(tmp_path / "glyphs", cards=cards)
    for command in ("check", "print"):
        extra = ["-o", str(tmp_path / "g.pdf")] if command == "print" else ["--no-cache"]
        code, output = run(command, str(pack), *extra)
        assert code == 0, output
        # The shipped DejaVu has the grin; the brain and the ideograph print as boxes.
        assert output.count("warning[W0706]") == 1, output
        assert (
            ":4:30: warning[W0706]: no glyph in the shipped fonts or any installed font for"
            in output
        )
        assert "U+1F9E0 BRAIN" in output and "U+75C5" in output and "1F600" not in output
