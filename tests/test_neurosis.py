"""Neurosis strips: abilities by terror band, the P side and its flip, adrenaline per side."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import make_pack, run

STRIP = """
neurosis "Jitters" {
    calm when you end a move {
        lose terror 1
        if terror == 0 { may flip this }
    }
    uneasy when you fail a focus check { lose terror 1 }
    panicked when your turn ends { move to hallway }
    adrenaline { dexterity +2 }
    flipped calm when you draw an item { lose terror 1 }
    flipped uneasy when you pass a focus check { gain health 1 }
    flipped adrenaline { strength +1; dexterity +1 }

    test "calm: a move soothes, and at zero the strip may flip" {
        carry "Jitters"
        given terror 1
        play "Hall"
        choose "Go"
        choose yes
        expect terror == 0
        expect this is flipped
    }
    test "panicked: the turn ends in the hallway, with adrenaline" {
        given terror 4
        expect location == hallway
        expect dexterity == 5
    }
    test "uneasy: a failed focus check calms" {
        carry "Jitters"
        given terror 2
        play "Hall"
        choose "Look"
        dice 1 1 1
        expect terror == 2
    }
    test "the calm ability sleeps at other terror" {
        carry "Jitters"
        given terror 3
        play "Hall"
        choose "Go"
        expect terror == 3
    }
}
hallucination "Hall" {
    situation "A corridor that was not here yesterday."
    option "Go" { move to stairs }
    option "Look" { check focus { 0..2 { gain terror 1 } 3+ { } } }
}
item "Tin Whistle" {
    type food
    use { flip this }
}
"""


@pytest.fixture
def pack(tmp_path: Path) -> Path:
    return make_pack(tmp_path / "strip", cards=STRIP)


def test_the_strip_checks_and_its_tests_pass(pack: Path) -> None:
    code, output = run("check", str(pack))
    assert code == 0, output
    code, output = run("test", str(pack), "-v")
    assert code == 0, output
    assert "4 passed" in output


def test_the_strip_reads_by_band_and_side(pack: Path) -> None:
    code, output = run("build", str(pack), "--text")
    assert code == 0, output
    assert (
        "At Terror 0–1, when you end a move: Reduce your Terror by 1. If your Terror is 0, "
        "you may flip this neurosis." in output
    )
    assert "At Terror 2–3, when you fail a focus check: Reduce your Terror by 1." in output
    assert "Adrenaline (Terror 4–5): +2 Dexterity." in output
    assert "P side, at Terror 0–1, when you draw an item: Reduce your Terror by 1." in output
    assert "P side, adrenaline (Terror 4–5): +1 Strength, +1 Dexterity." in output


def _flipped_test(title: str, body: str) -> str:
    return STRIP.replace(
        'hallucination "Hall" {',
        f'hallucination "Probe" {{\n    situation "s"\n    option "Go" {{ move to roof }}\n'
        f'    test "{title}" {{\n{body}\n    }}\n}}\nhallucination "Hall" {{',
    )


def test_a_flipped_strip_answers_with_its_p_side_only(tmp_path: Path) -> None:
    # Flipped by a tin whistle (a card that flips itself would not reach the strip): instead
    # the strip is flipped in play, then adrenaline and abilities are those of the P side.
    pack = make_pack(
        tmp_path / "p",
        cards=STRIP.replace(
            """    test "the calm ability sleeps""",
            """    test "once flipped, the P side holds" {
        carry "Jitters"
        given terror 1
        play "Hall"
        choose "Go"
        choose yes
        expect this is flipped
        expect terror == 0
        play "Hall"
        choose "Go"
        expect terror == 0
    }
    test "P side adrenaline" {
        carry "Jitters"
        given terror 1
        play "Hall"
        choose "Go"
        choose yes
        expect this is flipped
        given terror 5
        expect dexterity == 4
        expect strength == 4
    }
    test "the calm ability sleeps""",
        ),
    )
    code, output = run("test", str(pack), "-v")
    assert code == 0, output


def test_a_band_must_name_a_stat(tmp_path: Path) -> None:
    pack = make_pack(
        tmp_path / "p",
        "pack: p\ntitle: P\nversion: '1'\nruleset: house.yaml\n",
        cards='hallucination "H" { situation "s"; option "Go" { move to roof } }',
    )
    (pack / "house.yaml").write_text(
        "ruleset: house\ntitle: House\nversion: 1\nextends: coma-ward\n"
        "bands:\n  frantic: {courage: [0, 2]}\n"
    )
    code, output = run("check", str(pack))
    assert code == 1, output
    assert "band 'frantic' names 'courage', which is not a stat" in output


def test_a_band_word_the_ruleset_lacks_is_an_error(tmp_path: Path) -> None:
    pack = make_pack(
        tmp_path / "p",
        cards='neurosis "N" {\n    serene when your turn ends { lose terror 1 }\n}\n',
    )
    code, output = run("check", str(pack))
    assert code == 1, output
    assert "serene" in output


def test_play_a_strip_ends_the_turn_and_runs_the_band_in_force(pack: Path) -> None:
    code, output = run("play", str(pack), "Jitters", "--set", "terror=5", "--seed", "1")
    assert code == 0, output
    assert 'neurosis "Jitters": panicked when your turn ends' in output
    assert "move: nurses-station → hallway (f2-east)" in output
