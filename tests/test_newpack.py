"""`pillbox new`: a pack that checks and tests clean at once, never half-written."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

import compiler.new.pack as newpack
import compiler.ruleset as ruleset_module
from compiler.new.pack import default_ruleset
from compiler.ruleset import bundled_games, bundled_names
from tests.helpers import run


@pytest.mark.parametrize("ruleset", bundled_games())
def test_a_new_pack_checks_strictly_and_its_tests_pass(tmp_path: Path, ruleset: str) -> None:
    folder = tmp_path / "My Night Shift"
    code, output = run("new", str(folder), "--ruleset", ruleset)
    assert code == 0, output
    assert (folder / "pack.yaml").read_text().startswith("pack: my-night-shift\n")
    for made in (".gitignore", ".pre-commit-config.yaml", ".github/workflows/cards.yml"):
        assert (folder / made).is_file(), made
    assert (folder / "templates" / "README.md").is_file()
    code, output = run("check", "--strict", "--strict-tests", str(folder))
    assert code == 0, output
    code, output = run("test", str(folder))
    assert code == 0 and " 0 failed" in output, output
    cards = sorted(p.stem for p in (folder / "cards").glob("*.card"))
    assert len(cards) >= 4  # the game's starter: a file for each kind it holds
    readme = " ".join((folder / "README.md").read_text().split())
    assert "The smallest" in readme and "Each card has its tests" in readme
    if ruleset == "coma-ward":  # the kinds it has no card of are named
        assert "other kinds of card too: neurosis, quirk, record, role, special." in readme
    assert not (folder / "starter").exists()


@pytest.mark.parametrize("game", [*bundled_games(), "--game"])
def test_a_new_pack_plays_whole_games_that_end(tmp_path: Path, game: str) -> None:
    """Each game's new pack is the smallest that plays whole: its games end, won or lost,
    never cut off by the round limit (as one example card of each kind once did)."""
    folder = tmp_path / "mine"
    how = ["--game"] if game == "--game" else ["--ruleset", game]
    code, output = run("new", str(folder), *how)
    assert code == 0, output
    assert "simulate many: pillbox simulate" in output
    code, output = run("simulate", str(folder), "--games", "10", "--seed", "1", "--workers", "1")
    assert code == 0, output
    results = next(line for line in output.splitlines() if line.startswith("results: "))
    assert "none" not in results and "round limit" not in output, output


def test_a_game_with_no_starter_gets_sound_example_cards(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without a starter, each kind's example: options that help in different ways, a use
    that is spent. They are no whole game, and `check` says so (W0324), but nothing else."""
    monkeypatch.setattr(newpack, "STARTER", "no-starter")
    folder = tmp_path / "mine"
    code, output = run("new", str(folder), "--ruleset", "coma-ward")
    assert code == 0 and "one example card of each kind" in output, output
    item = (folder / "cards" / "item.card").read_text()
    assert "discard this" in item
    code, output = run("check", "--format", "json", str(folder))
    assert code == 0 and {d["code"] for d in json.loads(output)["diagnostics"]} == {"W0324"}
    code, output = run("test", str(folder))
    assert code == 0, output
    code, output = run("report", str(folder), "-o", str(tmp_path / "r.html"))
    assert code == 0 and ", 0 flags," in output, output


@pytest.mark.parametrize("name", ["123", "null"])
def test_a_pack_named_as_yaml_reads_a_number_or_nothing_still_checks(
    tmp_path: Path, name: str
) -> None:
    """Its name and title are quoted in pack.yaml: plain, they would not be text."""
    code, output = run("new", str(tmp_path / name), "--ruleset", "lobotomy")
    assert code == 0, output
    assert f'pack: "{name}"' in (tmp_path / name / "pack.yaml").read_text()
    code, output = run("check", "--strict", str(tmp_path / name))
    assert code == 0 and "0 errors, 0 warnings" in output, output


def test_new_from_a_bundled_pack_copies_it_under_the_new_name(tmp_path: Path) -> None:
    code, output = run("new", str(tmp_path / "wounds"), "--from", "cool-name")
    assert code == 0, output
    manifest = (tmp_path / "wounds" / "pack.yaml").read_text()
    assert "\npack: wounds\n" in "\n" + manifest and "ruleset: cool-name" in manifest
    assert not (tmp_path / "wounds" / "ruleset.yaml").exists()  # it names the bundled one
    code, output = run("test", str(tmp_path / "wounds"))
    assert code == 0, output


def test_new_refuses_a_folder_in_use_and_unknown_names_and_leaves_nothing(tmp_path: Path) -> None:
    used = tmp_path / "used"
    used.mkdir()
    (used / "keep.txt").write_text("mine")
    code, output = run("new", str(used))
    assert code == 2 and "exists and is not an empty folder" in output
    assert [p.name for p in used.iterdir()] == ["keep.txt"]
    code, output = run("new", str(tmp_path / "x"), "--ruleset", "chess")
    assert code == 2 and "the bundled rulesets are coma-ward" in output
    code, output = run("new", str(tmp_path / "y"), "--from", "monopoly")
    assert code == 2 and "the bundled packs are" in output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["used"]  # no temporary folder left


def test_the_bundled_games_are_found_in_the_content_folders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A game added to content/ (its ruleset beside its pack) is a bundled game at once: no
    list in the compiler names the games; `base`, a ruleset alone, is none."""
    assert bundled_games() == sorted(
        path.parent.name
        for path in Path("content").glob("*/ruleset.yaml")
        if (path.parent / "pack.yaml").is_file()
    )
    assert "base" not in bundled_games() and "base" in bundled_names()
    for name, files in {
        "fifth": ("ruleset.yaml", "pack.yaml"),
        "rules-only": ("ruleset.yaml",),
    }.items():
        (tmp_path / name).mkdir()
        for file in files:
            (tmp_path / name / file).write_text("")
    monkeypatch.setattr(ruleset_module.resources, "files", lambda package: tmp_path)
    assert bundled_games() == ["fifth"] and default_ruleset() == "fifth"


def test_new_makes_its_folder_as_the_umask_says(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        code, output = run("new", str(tmp_path / "mine"))
    finally:
        os.umask(old)
    assert code == 0, output
    assert stat.S_IMODE((tmp_path / "mine").stat().st_mode) == 0o755


def test_new_fills_the_empty_folder_a_link_names(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    code, output = run("new", str(tmp_path / "link"))
    assert code == 0, output
    assert (tmp_path / "link").is_symlink() and (tmp_path / "real" / "pack.yaml").is_file()


def _tree(folder: Path) -> dict[str, bytes | None]:
    """Every path under a folder (itself included) and a file's bytes; a folder's are None."""
    return {
        str(path.relative_to(folder)): path.read_bytes() if path.is_file() else None
        for path in [folder, *sorted(folder.rglob("*"))]
    }


@pytest.mark.parametrize(
    ("files", "target", "message"),
    [
        ({"mine/notes.txt": "mine"}, "mine", "mine exists and is not an empty folder"),
        ({"mine/.hidden": ""}, "mine", "mine exists and is not an empty folder"),
        ({"mine/pack.yaml": "pack: mine\n"}, "mine", "mine exists and is not an empty folder"),
        ({"mine": "a file"}, "mine", "mine exists and is a file, not a folder"),
        ({"mine": "a file"}, "mine/pack", "mine is a file, not a folder"),
        ({"mine": "a file"}, "mine/a/b", "mine is a file, not a folder"),
    ],
)
def test_new_from_into_what_is_there_already_is_refused_and_loses_nothing(
    tmp_path: Path, files: dict[str, str], target: str, message: str
) -> None:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    before = _tree(tmp_path)
    code, output = run("new", str(tmp_path / target), "--from", "cool-name")
    assert code == 2 and message in output, output
    assert "Traceback" not in output and _tree(tmp_path) == before


def test_new_from_fills_an_empty_folder_in_place(tmp_path: Path) -> None:
    # It was removed and a new one renamed in its place: its permissions were lost, and
    # `pillbox new .` in an empty folder failed with "cannot make .: Invalid argument".
    mine = tmp_path / "Night Shift"
    mine.mkdir()
    mine.chmod(0o700)
    code, output = run("new", str(mine), "--from", "cool-name")
    assert code == 0, output
    assert stat.S_IMODE(mine.stat().st_mode) == 0o700
    assert "\npack: night-shift\n" in "\n" + (mine / "pack.yaml").read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["Night Shift"]
    assert not [p for p in mine.iterdir() if p.name.startswith(".Night")]


def test_new_dot_fills_the_empty_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mine = tmp_path / "wards"
    mine.mkdir()
    monkeypatch.chdir(mine)
    code, output = run("new", ".", "--from", "cool-name")
    assert code == 0, output
    assert "\npack: wards\n" in "\n" + (mine / "pack.yaml").read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["wards"]
    assert sorted(p.name for p in mine.iterdir() if p.name.startswith(".")) == [
        ".github",
        ".gitignore",
        ".pre-commit-config.yaml",
    ]


def test_files_put_in_the_empty_folder_meanwhile_are_kept_and_nothing_is_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mine = tmp_path / "mine"
    mine.mkdir()
    real = newpack._copy_bundled

    def and_someone_saves_a_file(name: str, folder: Path, pack_name: str) -> None:
        real(name, folder, pack_name)
        (mine / "pack.yaml").write_text("pack: theirs\n")

    monkeypatch.setattr(newpack, "_copy_bundled", and_someone_saves_a_file)
    code, output = run("new", str(mine), "--from", "cool-name")
    assert code == 2 and "files were put in it meanwhile" in output, output
    assert _tree(mine) == {".": None, "pack.yaml": b"pack: theirs\n"}
