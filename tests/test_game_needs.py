"""W0324: `check` warns at pack.yaml when a pack cannot reach the end of the game its ruleset
plays, naming what it lacks; what a game needs is the ruleset's data (`game: needs:`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import ROOT_PACKS, make_pack, run

MANIFEST = "pack: night\ntitle: Night\nversion: 0.1.0\nruleset: coma-ward\n"

CLUES = "".join(f'clue "Clue {letter}" {{\n    letter {letter}\n}}\n' for letter in "ABC")
PHENOMENON = (
    'phenomenon "The Siren" {\n    number 1\n    clue order A B C\n    mode cooperative\n}\n'
)
ROOM = 'room "Day Room" {\n    number 1\n}\n'
SEATS = "game:\n  seats: {fewest: 2, most: 6}\n"
ALLOWED = 'allow:\n  W0323: "one phenomenon is on the chart"\n'


def warnings(folder: Path) -> list[dict[str, object]]:
    """The W0324 diagnostics `check --format json` gives for the folder."""
    code, output = run("check", "--format", "json", str(folder))
    assert code == 0, output
    return [d for d in json.loads(output)["diagnostics"] if d["code"] == "W0324"]


def test_a_pack_with_one_clue_is_told_at_its_ruleset_line_what_a_game_lacks(
    tmp_path: Path,
) -> None:
    folder = make_pack(tmp_path / "night", MANIFEST, clue='clue "A" {\n    letter A\n}\n')
    found = warnings(folder)
    messages = [str(d["message"]) for d in found]
    assert messages == [
        "a game cannot reach its end: the pack has 1 of the 3 clue cards a game needs",
        "a game cannot reach its end: the pack has no phenomenon card, and a game needs 1",
        "a game cannot reach its end: the pack has no room card, and a game needs 1",
    ]
    assert all(d["file"].endswith("pack.yaml") for d in found)  # type: ignore[union-attr]
    assert {(d["line"], d["column"], d["end_column"]) for d in found} == {(4, 10, 19)}
    assert "the prologue ends when the third clue is found: add 2 clue cards" in str(
        found[0]["help"]
    )


def test_a_pack_with_what_a_game_needs_gets_no_warning(tmp_path: Path) -> None:
    folder = make_pack(tmp_path / "night", MANIFEST + ALLOWED, a=CLUES + PHENOMENON + ROOM)
    code, output = run("check", "--strict", str(folder))
    assert code == 0 and "0 warnings" in output, output


def test_copies_count_and_a_card_file_checked_alone_gets_no_warning(tmp_path: Path) -> None:
    """A card's copies are cards of its deck; a file checked alone is not the pack's game."""
    rules = make_pack(tmp_path / "l", MANIFEST.replace("coma-ward", "lobotomy"))
    (rules / "a.card").write_text(
        'scenario "Dark" {\n}\n\nmovement "Steps" {\n    copies 2\n    warden moves\n'
        '    event { }\n    test "t" {\n        play "Steps"\n        expect insomnia == 0\n'
        "    }\n}\n"
    )
    assert warnings(rules) == []
    folder = make_pack(tmp_path / "night", MANIFEST, clue='clue "A" {\n    letter A\n}\n')
    code, output = run("check", "--format", "json", str(folder / "clue.card"))
    assert code == 0 and "W0324" not in output, output


def test_a_title_the_games_setup_names_must_be_a_card_of_the_pack(tmp_path: Path) -> None:
    manifest = MANIFEST.replace("coma-ward", "comanauts")
    page = 'page "{}" {{\n    group task red 12\n}}\n'
    folder = make_pack(tmp_path / "dive", manifest, pages=page.format("The Wrong Door"))
    (found,) = warnings(folder)
    assert found["message"] == (
        "a game cannot reach its end: the game's setup table names the page "
        '"The Frosted Airlock", which is no card of the pack'
    )
    (folder / "pages.card").write_text(page.format("The Frosted Airlock"))
    assert warnings(folder) == []


def test_a_ruleset_extending_a_game_inherits_its_needs_and_may_change_them(
    tmp_path: Path,
) -> None:
    folder = make_pack(
        tmp_path / "own",
        MANIFEST.replace("coma-ward", "rules.yaml") + ALLOWED,
        a=CLUES + PHENOMENON,
    )
    rules = "ruleset: night\ntitle: Night\nversion: 1\nextends: coma-ward\n"
    (folder / "rules.yaml").write_text(rules)
    assert [d["message"] for d in warnings(folder)] == [
        "a game cannot reach its end: the pack has no room card, and a game needs 1"
    ]
    (folder / "rules.yaml").write_text(rules + SEATS + "  needs:\n    room: null\n")
    assert warnings(folder) == []  # a key set to null removes the entry it extends
    (folder / "rules.yaml").write_text(
        rules + SEATS + "  needs:\n    room: {cards: 2, why: two rooms to search}\n"
    )
    (found,) = warnings(folder)
    assert found["message"] == (
        "a game cannot reach its end: the pack has no room card, and a game needs 2"
    )
    assert str(found["help"]).startswith("two rooms to search: add 2 room cards")


def test_needs_naming_a_kind_the_ruleset_lacks_is_E0412_at_its_line(tmp_path: Path) -> None:
    folder = make_pack(tmp_path / "own", MANIFEST.replace("coma-ward", "rules.yaml"), a=ROOM)
    (folder / "rules.yaml").write_text(
        "ruleset: night\ntitle: Night\nversion: 1\nextends: coma-ward\n"
        + SEATS
        + "  needs:\n    ghost: {cards: 1}\n"
    )
    code, output = run("check", "--color", "never", str(folder))
    assert code == 1 and "rules.yaml:8:5: error[E0412]" in output, output
    assert "`needs:` names unknown kind 'ghost'" in output


def test_a_pack_of_a_ruleset_with_no_game_gets_no_warning(tmp_path: Path) -> None:
    folder = make_pack(tmp_path / "plain", MANIFEST.replace("coma-ward", "rules.yaml"))
    (folder / "rules.yaml").write_text(
        "ruleset: plain\ntitle: Plain\nversion: 1\nextends: base\nstats:\n"
        "  nerve: {min: 0, max: 5, start: 3}\nkinds:\n  note: {}\n"
    )
    (folder / "a.card").write_text('note "A" {\n}\n')
    assert warnings(folder) == []


def test_errors_come_first_and_allow_silences_it(tmp_path: Path) -> None:
    folder = make_pack(tmp_path / "night", MANIFEST, clue='clue "A" {\n    letter\n}\n')
    code, output = run("check", "--format", "json", str(folder))
    assert code == 1 and "W0324" not in output  # the clue did not read: nothing is counted
    allowing = MANIFEST + 'allow:\n  W0324: "an armoury, not a game"\n'
    folder = make_pack(tmp_path / "armoury", allowing, a=ROOM)
    code, output = run("check", "--strict", str(folder))
    assert code == 0 and "(2 allowed by pack.yaml)" in output, output


@pytest.mark.parametrize("pack", ["coma-ward", "comanauts", "cool-name", "lobotomy"])
def test_the_bundled_games_and_their_starters_have_what_a_game_needs(pack: str) -> None:
    for folder in (ROOT_PACKS / pack, ROOT_PACKS / pack / "starter"):
        assert warnings(folder) == [], folder


def test_simulate_says_what_the_pack_lacks_before_it_plays_to_the_round_limit(
    tmp_path: Path,
) -> None:
    manifest = MANIFEST.replace("coma-ward", "comanauts")
    folder = make_pack(tmp_path / "dive", manifest, pages='page "Elsewhere" {\n}\n')
    code, output = run("simulate", str(folder), "--games", "1", "--seed", "1", "--workers", "1")
    assert code == 0, output
    warning = output.index("warning[W0324]: a game cannot reach its end: the game's setup table")
    assert warning < output.index("results: none 100.0 %") and "round limit" in output
    (folder / "pack.yaml").write_text(manifest + 'allow:\n  W0324: "pages for another book"\n')
    code, output = run("simulate", str(folder), "--games", "1", "--seed", "1", "--workers", "1")
    assert code == 0 and "W0324" not in output, output
