"""`pillbox new FOLDER --game`: a whole game of its own, on the base ruleset, that checks, tests,
plays and simulates clean from data alone; refused with a bundled game's ruleset, which is
whole already.
"""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from compiler.new.game import STARTER
from tests.helpers import run, sweep_figures


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A new game's folder, and what `new` printed."""
    folder = tmp_path_factory.mktemp("new") / "Harvest Night"
    code, output = run("new", str(folder), "--ruleset", "base", "--game")
    assert code == 0, output
    return folder, output


def test_it_writes_its_own_ruleset_on_base_with_a_whole_game(made: tuple[Path, str]) -> None:
    folder, _ = made
    manifest = YAML(typ="safe").load((folder / "pack.yaml").read_text(encoding="utf-8"))
    assert manifest["pack"] == "harvest-night" and manifest["ruleset"] == "ruleset.yaml"
    text = (folder / "ruleset.yaml").read_text(encoding="utf-8")
    rules = YAML(typ="safe").load(text)
    assert rules["ruleset"] == "harvest-night" and rules["title"] == "Harvest Night"
    assert rules["extends"] == "base" and rules["runtime"] == "base"
    game = rules["game"]
    assert 3 <= len(game["actions"]) <= 4
    assert "step" in {action.get("procedure") for action in game["actions"].values()}
    assert {"won", "lost"} <= set(game["end"]) and game["count"] and game["tally"]
    assert "docs/adding-a-game.md" in text
    for name in ("stats", "places", "tracks", "blocks", "turns", "decks", "kinds", "game"):
        # Each section is explained by a comment on the line above it.
        assert "#" in text.split(f"\n{name}:")[0].splitlines()[-1], name
    written = sorted(p.name for p in (folder / "cards").iterdir())
    starter = sorted(e.name for e in STARTER.joinpath("cards").iterdir())
    assert written == starter and len(written) >= 2
    for made_too in ("README.md", ".gitignore", ".github/workflows/cards.yml", "templates"):
        assert (folder / made_too).exists(), made_too


def test_it_checks_strictly_and_its_card_tests_pass(made: tuple[Path, str]) -> None:
    folder, _ = made
    code, output = run("check", "--strict", "--strict-tests", str(folder))
    assert code == 0 and "0 errors, 0 warnings" in output, output
    code, output = run("test", str(folder))
    assert code == 0 and " 0 failed" in output, output


def test_the_next_steps_say_how_to_play_and_simulate_it(made: tuple[Path, str]) -> None:
    folder, output = made
    quoted = shlex.quote(str(folder))  # "Harvest Night": pasted into a shell, it stays one
    assert f"pillbox check {quoted} && pillbox test {quoted}" in output
    assert f"pillbox play {quoted} --game --seed 1" in output
    assert f"pillbox simulate {quoted} --games" in output


def test_it_plays_whole(made: tuple[Path, str]) -> None:
    folder, _ = made
    code, output = run("play", str(folder), "--game", "--seed", "1")
    assert code == 0, output
    assert "walk to a place next to yours" in output and "outcome after the game:" in output


def test_random_play_wins_sometimes_and_loses_sometimes_the_same_on_any_workers(
    made: tuple[Path, str],
) -> None:
    folder, _ = made
    options = ("--games", "60", "--players", "2", "--seed", "5")
    figures = [sweep_figures(folder, *options, "--workers", w) for w in ("1", "2")]
    assert figures[0] == figures[1]
    results = figures[0]["results"]
    assert set(results) == {"won", "lost"} and figures[0]["stopped"] == {}
    assert 0.15 <= results["won"]["share"] <= 0.7, results
    assert figures[0]["failed"] == [] and figures[0]["played"] == 60


def test_a_pack_named_with_a_digit_first_names_its_ruleset_with_a_letter(
    tmp_path: Path,
) -> None:
    """A ruleset's name starts with a letter; a pack's need not."""
    code, output = run("new", str(tmp_path / "2025 jam"), "--game")
    assert code == 0, output
    rules = YAML(typ="safe").load((tmp_path / "2025 jam" / "ruleset.yaml").read_text())
    assert rules["ruleset"] == "game-2025-jam" and rules["title"] == "2025 Jam"
    code, output = run("check", "--strict", str(tmp_path / "2025 jam"))
    assert code == 0 and "0 errors, 0 warnings" in output, output


@pytest.mark.parametrize(
    ("options", "said"),
    [
        (("--ruleset", "coma-ward"), "coma-ward is a bundled game, whole already"),
        (("--ruleset", "chess"), "a game of its own starts on base"),
        (("--from", "cool-name"), "give --game or --from"),
    ],
)
def test_game_on_anything_but_base_is_a_usage_error_that_writes_nothing(
    tmp_path: Path, options: tuple[str, ...], said: str
) -> None:
    code, output = run("new", str(tmp_path / "mine"), "--game", *options)
    assert code == 2 and said in output, output
    assert list(tmp_path.iterdir()) == []


def test_base_without_game_stays_a_usage_error_that_points_at_game(tmp_path: Path) -> None:
    code, output = run("new", str(tmp_path / "mine"), "--ruleset", "base")
    assert code == 2 and "the bundled rulesets are coma-ward" in output
    assert "base starts a game of its own with --game" in output
    assert list(tmp_path.iterdir()) == []


def test_game_refuses_a_folder_in_use_and_leaves_it_as_it_was(tmp_path: Path) -> None:
    used = tmp_path / "used"
    used.mkdir()
    (used / "keep.txt").write_text("mine")
    code, output = run("new", str(used), "--game")
    assert code == 2 and "exists and is not an empty folder" in output
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["keep.txt", "used"]
