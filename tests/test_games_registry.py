"""Game modules are found by the name a ruleset gives; an unknown name is an error at its line."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from compiler.ruleset import RulesetError, load_ruleset
from runtime.games import UnknownGame, game_module, known_games
from tests.conftest import ROOT

HOUSE = "ruleset: house\ntitle: House\nversion: 1\nextends: coma-ward\nruntime: {runtime}\n"


@pytest.fixture
def fresh_registry() -> Iterator[None]:
    """Forget the modules found so far, before and after the test."""
    game_module.cache_clear()
    yield
    game_module.cache_clear()


def test_the_shipped_games_are_found_by_name() -> None:
    assert known_games() == ["base", "coma-ward", "comanauts", "cool-name", "lobotomy"]
    assert game_module("coma-ward").name == "coma-ward"
    assert "coma-ward-attack" in game_module("coma-ward").checks


@pytest.mark.parametrize(
    "name", ["no-such-game", "coma-ward-combat", "coma-ward-pool", "Coma-Ward", "..base"]
)
def test_an_unknown_runtime_is_an_error_at_its_line(tmp_path: Path, name: str) -> None:
    (tmp_path / "house.yaml").write_text(HOUSE.format(runtime=f'"{name}"'))
    with pytest.raises(RulesetError) as caught:
        load_ruleset("house.yaml", base_dir=tmp_path)
    problems = caught.value.diagnostics
    assert [(d.code, d.span.line) for d in problems] == [("E0412", 5)], problems
    assert name in problems[0].message or "pattern" in problems[0].message


def test_a_helper_module_is_no_game() -> None:
    with pytest.raises(UnknownGame) as caught:
        game_module("coma-ward-combat")
    assert "the known ones: base, coma-ward" in str(caught.value)


def test_a_module_another_package_registers_is_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_registry: None
) -> None:
    (tmp_path / "housegame.py").write_text(
        "from runtime.games.coma_ward import MODULE as COMA_WARD\n"
        "MODULE = COMA_WARD.extend('house-rules')\n"
    )
    info = tmp_path / "housegame-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: housegame\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[pillbox.games]\nhouse-rules = housegame:MODULE\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert game_module("house-rules").name == "house-rules"
    assert "house-rules" in known_games()
    (tmp_path / "house.yaml").write_text(HOUSE.format(runtime="house-rules"))
    assert load_ruleset("house.yaml", base_dir=tmp_path).name == "house"


def test_the_engine_imports_no_game() -> None:
    script = (
        "import sys, runtime.game, runtime.odds, runtime.testing, runtime.library\n"
        "games = sorted(m for m in sys.modules if m.startswith('runtime.games'))\n"
        "assert not games, games\n"
    )
    subprocess.run([sys.executable, "-c", script], check=True, cwd=ROOT)


def test_a_block_runs_only_on_a_trigger_the_ruleset_declares(tmp_path: Path) -> None:
    rules = HOUSE.format(runtime="coma-ward") + (
        "blocks:\n  when_sneezing: {pattern: when you sneeze, body: effects, trigger: sneeze}\n"
    )
    (tmp_path / "house.yaml").write_text(rules)
    with pytest.raises(RulesetError) as caught:
        load_ruleset("house.yaml", base_dir=tmp_path)
    (problem,) = caught.value.diagnostics
    assert (problem.code, problem.span.line) == ("E0412", 7)
    assert "trigger 'sneeze', which the ruleset does not declare" in problem.message


def test_a_declared_trigger_the_module_never_announces_is_an_error(tmp_path: Path) -> None:
    rules = HOUSE.format(runtime="base") + "triggers:\n  sneeze: {summary: achoo}\n"
    (tmp_path / "house.yaml").write_text(rules.replace("extends: coma-ward", "extends: base"))
    with pytest.raises(RulesetError) as caught:
        load_ruleset("house.yaml", base_dir=tmp_path)
    messages = [d.message for d in caught.value.diagnostics]
    assert any("trigger 'sneeze' is never announced by the base runtime" in m for m in messages)


def test_the_engine_leaves_what_a_move_a_death_and_a_turn_do_to_the_game() -> None:
    engine = (ROOT / "runtime" / "game.py").read_text()
    for word in ("end_move", "turn_ends", "moved", "drop"):
        assert word not in engine, word
