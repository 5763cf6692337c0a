"""The optional mypyc-compiled runtime: when a build counts as fresh, that the workers of a sweep
import it only then, and that the pure sources run without mypy_extensions. None of these builds
anything: the last test runs only where `make compiled` has left a fresh build."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import pytest

from compiler.build import CompiledPack
from compiler.simulate import command, compiled, pool
from compiler.simulate.command import SimulateRequest
from runtime.datagame import whole_game_of
from runtime.simulation.record import Sweep
from tests.conftest import ROOT
from tests.test_simulate import PACK, _simulate
from tests.test_simulate import pack as pack  # the module's fixture, shared


def _build(tmp_path: Path, *, fresh: bool) -> tuple[Path, Path]:
    """A source tree and a build of it whose runtime cannot be imported (so that a worker
    importing it breaks the pool), stamped fresh or stale."""
    root, build = tmp_path / "src", tmp_path / "build"
    (root / "runtime").mkdir(parents=True)
    (root / "runtime" / "__init__.py").write_text('"""The runtime."""\n', encoding="utf-8")
    (build / "runtime").mkdir(parents=True)
    (build / "runtime" / "__init__.py").write_text("raise ImportError('the build')\n", "utf-8")
    stamp = compiled.sources_digest(root) if fresh else "0" * 64
    (build / compiled.STAMP).write_text(stamp + "\n", encoding="utf-8")
    return root, build


def test_a_build_is_fresh_only_while_the_sources_are_the_ones_it_was_built_from(
    tmp_path: Path,
) -> None:
    root, build = _build(tmp_path, fresh=True)
    assert compiled.freshness(root, build) == "fresh"
    assert compiled.usable_build(root, build, environ={}) == build
    assert compiled.stale_note(root, build, environ={}) is None
    (root / "runtime" / "game.py").write_text('"""A module more."""\n', encoding="utf-8")
    assert compiled.freshness(root, build) == "stale"
    assert compiled.usable_build(root, build, environ={}) is None
    note = compiled.stale_note(root, build, environ={})
    assert note is not None and "pure runtime" in note and "\n" not in note
    (build / compiled.STAMP).unlink()
    assert compiled.freshness(root, build) == "absent"
    assert compiled.stale_note(root, build, environ={}) is None


def test_pillbox_pure_runtime_refuses_even_a_fresh_build(tmp_path: Path) -> None:
    root, build = _build(tmp_path, fresh=True)
    assert compiled.usable_build(root, build, environ={compiled.PURE_ENV: "1"}) is None
    assert compiled.usable_build(root, build, environ={compiled.PURE_ENV: "0"}) == build


def test_first_on_path_puts_the_build_first_and_takes_it_away(tmp_path: Path) -> None:
    before = list(sys.path)
    with compiled.first_on_path(tmp_path):
        assert sys.path[0] == str(tmp_path)
    assert sys.path == before
    with compiled.first_on_path(None):
        assert sys.path == before


SWEEP = Sweep(seed=1, players=2, policies=("random", "random"), until="end")


@pytest.mark.parametrize("fresh", [True, False])
def test_the_workers_of_a_sweep_import_a_fresh_build_and_never_a_stale_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pack: CompiledPack, fresh: bool
) -> None:
    root, build = _build(tmp_path, fresh=fresh)
    monkeypatch.setattr(pool, "usable_build", lambda: compiled.usable_build(root, build, {}))
    playing = pool.Playing(whole_game_of(pack.rules, pack.whole), pack.rules, pack.cards)
    if fresh:  # its runtime raises on import: the workers started on it fail
        with pytest.raises(BrokenProcessPool):
            pool.run_sweep(playing, (PACK, None), SWEEP, 2, 2)
    else:
        assert pool.run_sweep(playing, (PACK, None), SWEEP, 2, 2).games == 2


def test_the_pure_sources_need_no_mypy_extensions() -> None:
    script = (
        "import sys; sys.modules['mypy_extensions'] = None\n"
        "from runtime.native import mypyc_attr\n"
        "class Base: pass\n"
        "assert mypyc_attr(allow_interpreted_subclasses=True)(Base) is Base\n"
        "import runtime.game, runtime.decisions\n"
        "class Mine(runtime.game.Game): pass\n"
        "class Refused(runtime.decisions.DecisionError): pass\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr


@pytest.mark.skipif(compiled.freshness() != "fresh", reason="no fresh `make compiled` build")
@pytest.mark.parametrize(("policy", "games"), [(None, 8), ("mcts:4", 2)])
def test_a_sweep_on_the_compiled_runtime_gives_the_figures_of_the_pure_one(
    pack: CompiledPack, monkeypatch: pytest.MonkeyPatch, policy: str | None, games: int
) -> None:
    request = SimulateRequest(games, 5, players=4, policy=policy, as_json=True, workers=2)
    monkeypatch.setenv(compiled.PURE_ENV, "1")
    pure_code, pure = _simulate(pack, monkeypatch, request)
    monkeypatch.setenv(compiled.PURE_ENV, "0")
    assert command.stale_note() is None
    fast_code, fast = _simulate(pack, monkeypatch, request)
    assert pure_code == fast_code == 0, pure
    assert fast == pure and json.loads(fast)["games"] == games


LOBOTOMY = ROOT / "content" / "lobotomy"


@pytest.mark.skipif(compiled.freshness() != "fresh", reason="no fresh `make compiled` build")
def test_lobotomy_plays_the_same_games_compiled(monkeypatch: pytest.MonkeyPatch) -> None:
    # Lobotomy's modules are compiled with the engine's (runtime/games/compiled.txt): its
    # rolls are plain classes, which mypyc compiles where a generic dataclass it could not.
    games = compiled.BUILD / "runtime" / "games"
    for module in ("lobotomy", "lobotomy_dice", "lobotomy_monsters", "lobotomy_table"):
        assert list(games.glob(f"{module}.*.so")), f"{module} is not compiled"
    request = SimulateRequest(4, 7, players=3, as_json=True, workers=2)
    figures = []
    for pure in ("1", "0"):
        monkeypatch.setenv(compiled.PURE_ENV, pure)
        lines: list[str] = []
        assert command.simulate(LOBOTOMY, None, request, lines.append) == 0, lines
        figures.append("\n".join(lines))
    assert figures[0] == figures[1] and json.loads(figures[0])["games"] == 4


def _switch(build: Path, before: str = "") -> list[str]:
    """In a process of its own: `before`, then `import_compiled(build)`, then where the engine
    was imported from; the three lines it printed."""
    script = (
        f"{before}\n"
        "import sys\n"
        "from compiler.simulate.compiled import import_compiled, runs_compiled\n"
        f"print(import_compiled({str(build)!r}))\n"
        "import runtime.game\n"
        "print(runtime.game.__file__)\n"
        "print(runs_compiled())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_a_process_that_has_not_played_yet_imports_the_build_from_then_on(tmp_path: Path) -> None:
    build = tmp_path / "build"
    (build / "runtime").mkdir(parents=True)
    (build / "runtime" / "__init__.py").write_text('"""The build."""\n', encoding="utf-8")
    (build / "runtime" / "game.py").write_text("X = 1\n", encoding="utf-8")
    switched, engine, _ = _switch(build)
    assert switched == "True" and engine == str(build / "runtime" / "game.py")


def test_a_process_that_has_imported_the_engine_keeps_its_runtime(tmp_path: Path) -> None:
    switched, engine, on_build = _switch(tmp_path, before="import runtime.game")
    assert (switched, on_build) == ("False", "False")
    assert engine == str(ROOT / "runtime" / "game.py")


def test_a_compiled_parent_forks_its_workers_with_its_pack_never_spawns_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pack: CompiledPack
) -> None:
    _, build = _build(tmp_path, fresh=True)  # its runtime raises on import: never imported
    monkeypatch.setattr(pool, "usable_build", lambda: build)
    monkeypatch.setattr(pool, "runs_compiled", lambda: True, raising=False)
    monkeypatch.setattr(pool, "load_checked", None)  # a worker that compiled the pack would fail
    playing = pool.Playing(whole_game_of(pack.rules, pack.whole), pack.rules, pack.cards)
    assert pool.run_sweep(playing, (PACK, None), SWEEP, 4, 2).games == 4


@pytest.mark.skipif(compiled.freshness() != "fresh", reason="no fresh `make compiled` build")
def test_pillbox_simulate_on_the_compiled_runtime_gives_the_figures_of_the_pure_one() -> None:
    command_line = [sys.executable, "-m", "compiler", "simulate", str(PACK), "--json"]
    command_line += ["--games", "8", "--players", "4", "--seed", "5", "--workers", "2"]
    outputs = []
    for pure in ("1", "0"):
        environ = {**os.environ, compiled.PURE_ENV: pure, "PYTHONPATH": str(ROOT)}
        done = subprocess.run(
            command_line, cwd=ROOT, env=environ, capture_output=True, text=True, check=False
        )
        assert done.returncode == 0, done.stderr
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1] and json.loads(outputs[0])["games"] == 8
