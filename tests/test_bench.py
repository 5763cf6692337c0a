"""The benchmarks keep working: the hand-written twins of compiled effects still match them.

Timing is `make bench`'s job; this only checks that what it compares is a fair comparison.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"


def load(name: str) -> ModuleType:
    """Import a bench script as a module."""
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


EFFECTS = load("effects")
PACK = EFFECTS.compiled_pack()


@pytest.mark.parametrize("case", EFFECTS.cases(PACK), ids=lambda case: case[0])
def test_hand_written_twin_logs_what_the_compiled_effect_logs(case: tuple[object, ...]) -> None:
    _, card, compiled, by_hand = case
    assert EFFECTS.same_logs(PACK, card, compiled, by_hand)


def test_the_machine_figure_plays_its_prologues_on_two_workers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tests.helpers import compiled

    games = load("games")
    monkeypatch.setattr(games, "_PACK", compiled(games.PACK))  # the forked workers' pack
    wall_rate, cpu_rate = games.machine_prologues(3, workers=2)
    assert wall_rate > 0 and cpu_rate > 0


def test_a_whole_game_of_the_games_bench_plays_to_its_end() -> None:
    from tests.helpers import compiled

    games = load("games")
    # It called the whole game's new_game with the pack alone, and the bench stopped there.
    assert not games.whole(compiled(games.PACK), 0).startswith("raised")
