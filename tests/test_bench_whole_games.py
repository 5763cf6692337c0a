"""bench/whole_games.py keeps working: a few games of each bundled game that plays whole, through
the bench's own functions (timing is `make bench`'s job), so that the bench cannot rot."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType, SimpleNamespace
from typing import NoReturn

import pytest

from compiler.ruleset import bundled_games
from runtime.simulation.record import Sweep, play_game
from runtime.whole import NotWhole
from tests.conftest import ROOT
from tests.helpers import compiled

GAMES = 3
"""Games of each figure: enough to run every code path, few enough for a second in all."""


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    """The bench script, imported as a module."""
    spec = importlib.util.spec_from_file_location(
        "bench_whole_games", ROOT / "bench" / "whole_games.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its workers find their functions by the module's name
    spec.loader.exec_module(module)
    return module


WHOLE = ("coma-ward", "cool-name")
"""The bundled games that play whole on every branch (the others are timed once they do)."""


@pytest.fixture(scope="module")
def loaded(bench: ModuleType) -> list[object]:
    """The games that play whole, loaded as the bench loads them."""
    return [
        bench.loaded_of(name, compiled(ROOT / "content" / name), bench.PLAYERS) for name in WHOLE
    ]


def test_the_bench_finds_the_bundled_games_and_skips_one_not_whole_with_a_line(
    bench: ModuleType, loaded: list[object], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert set(WHOLE) <= set(bundled_games())
    for game in loaded:
        assert isinstance(game, bench.Loaded), game
        fewest, most = game.whole.players
        assert fewest <= game.seats <= most

    def not_whole(rules: object, whole: object) -> NoReturn:
        raise NotWhole("coma-ward")

    monkeypatch.setattr(bench, "whole_game_of", not_whole)
    skipped = bench.loaded_of("coma-ward", loaded[0].pack, bench.PLAYERS)
    assert skipped.startswith("coma-ward: skipped, not whole yet (")


def test_the_bare_loop_plays_the_games_simulate_plays(
    bench: ModuleType, loaded: list[object]
) -> None:
    for game in loaded:
        whole = game.whole
        policies = (bench.POLICY,) * game.seats
        sweep = Sweep(bench.SEED, game.seats, policies, whole.phases[-1], whole.phases)
        for index in range(GAMES):
            record = play_game(whole, game.pack.rules, game.pack.cards, sweep, index)
            assert record.error is None, record.error
            ended = record.stopped or record.result or "played"
            assert bench.bare_game(game, index) == ended, (game.name, index)


def test_a_rate_and_a_sweep_on_two_workers(
    bench: ModuleType,
    loaded: list[object],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A full collection before each batch makes the bench's rates fair; here it is most of
    # the time (the bench has its packs frozen out of the collector's sight, a test has not).
    monkeypatch.setattr(sys.modules["bench.timing"], "gc", SimpleNamespace(collect=lambda: 0))
    for game in loaded:
        bench.one_process_figure(game, "pure runtime", GAMES, 0.1)
        swept = bench.sweep_figure(game, "pure runtime", GAMES + 1)
        assert sum(swept.ended.values()) == GAMES + 1
        assert not any(why.startswith("raised") for why in swept.ended), swept.ended
    printed = capsys.readouterr().out
    assert "coma-ward, 4 players, pure runtime:" in printed and "(goal < 120 s" in printed
    assert "cool-name, pure runtime: 4 whole games, 2 workers:" in printed


def test_simulate_runs_the_same_games(bench: ModuleType) -> None:
    game = bench.Loaded("cool-name", None, None, 2)
    command = bench.simulate_command(game, 20)
    assert command[:4] == [sys.executable, "-m", "compiler", "simulate"]
    for flag, value in (("--players", "2"), ("--seed", "0"), ("--policy", "random")):
        assert command[command.index(flag) + 1] == value
