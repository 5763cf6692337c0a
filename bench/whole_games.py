"""Benchmark whole games of every bundled game: games a second, 10,000 on 2 workers, simulate.

For each bundled game (`compiler.ruleset.bundled_games`: found, never listed here) that plays
whole (`runtime.datagame.whole_game_of`: as its ruleset's `game:` section says), at `PLAYERS`
seats (or the nearest count the game allows), the random policy at every
seat, the sweep's seeds (`game_seed(0, index)`): the games `pillbox simulate --seed 0` plays.
The figures, each with its goal, the ratio to it and PASS or MISS:
- whole games a second in one process, log off and no record read (the bare loop), on the pure
  runtime and, when `make compiled` has a fresh build, on the compiled one (in a process that
  imports it first), by this process's CPU time; and the seconds 10,000 games would take at that
  rate on 2 free cores (goal under 120 s, on the compiled runtime);
- those 10,000 games swept over 2 forked workers, by the wall clock, the workers' start
  included (goal under 120 s), on the compiled runtime when it is fresh, else on the pure one;
- `pillbox simulate PACK --json --seed 0 --workers 2` of the same games, the real command in a
  process of its own as a user runs it (its check and compile, its workers' start, each game's
  record, the figures), against the bare sweep (goal at most 1.3 times as long); with what a
  2-game run of it costs (its start), to tell the start from the records.
A game that is not whole yet (`NotWhole`) is skipped with a line saying so, and timed once it
is. Other processes on the machine slow the wall clock down: the load average is printed with
the figures. It always exits 0: it reports, it does not gate. Run `python bench/whole_games.py`
or `make bench`; `--games N` (one process), `--sweep N` (2 workers and simulate; 0 leaves them
out), `--simulate N`, `--players N`, `--only GAME` and `--pure` make a quicker run.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.timing import batch_size, children_cpu, load, timed, verdict  # noqa: E402
from compiler.build import CompiledPack, compile_pack, load_checked  # noqa: E402
from compiler.ruleset import bundled_games  # noqa: E402
from compiler.simulate.compiled import BUILD, PURE_ENV, freshness  # noqa: E402
from compiler.simulate.pool import keep_loaded  # noqa: E402
from runtime import game as engine  # noqa: E402
from runtime.datagame import whole_game_of  # noqa: E402
from runtime.policies import policy_named, seat_policies  # noqa: E402
from runtime.whole import NotWhole, WholeGame, game_seed  # noqa: E402

CONTENT = ROOT / "content"
PLAYERS = 4
"""Seats of every game (Coma Ward's four, as bench/games.py plays), or the nearest count a game
allows."""
POLICY = "random"
"""Every seat's policy: `simulate`'s default."""
SEED = 0
"""The sweep's seed: the bare loop and `simulate --seed 0` play the same games."""
SWEEP = 10_000
GOAL_SWEEP_SECONDS = 120.0
"""10,000 whole games of each bundled game on 2 workers, compiled (issue 27)."""
SWEEP_WORKERS = 2
GOAL_SIMULATE_RATIO = 1.3
"""`pillbox simulate` at most this many times as long as the bare sweep of the same games."""
START_GAMES = 2
"""Games of the `simulate` run that tells its start (one a worker) from its games."""
BATCH_SECONDS = 3.0
"""Each one-process rate's batch runs about this long (after a short batch says how long a
game takes)."""
CHUNK = 50
"""Games a worker of the bare sweep is handed at a time."""


@dataclass(frozen=True)
class Loaded:
    """A bundled game ready to play whole: its compiled pack, its whole-game rules, its seats."""

    name: str
    pack: CompiledPack
    whole: WholeGame
    seats: int

    @property
    def folder(self) -> Path:
        """The bundled pack's folder, for `simulate`."""
        return CONTENT / self.name


def seats_for(whole: WholeGame, players: int) -> int:
    """`players`, or the nearest count of seats the game allows."""
    fewest, most = whole.players
    return min(max(players, fewest), most)


def loaded_of(name: str, pack: CompiledPack, players: int) -> Loaded | str:
    """The game ready to play whole, or why it cannot be (not whole yet: skipped)."""
    try:
        whole = whole_game_of(pack.rules, pack.whole)
    except NotWhole as error:
        return f"{name}: skipped, not whole yet ({error})"
    return Loaded(name, pack, whole, seats_for(whole, players))


def load_game(name: str, players: int) -> Loaded | str:
    """A bundled game's pack checked and compiled, ready to play whole; or why it is skipped."""
    loaded = load_checked(CONTENT / name)
    if loaded.pack is None:
        return f"{name}: skipped, its bundled pack does not check clean"
    return loaded_of(name, compile_pack(loaded.pack), players)


def load_games(names: Sequence[str], players: int) -> tuple[list[Loaded], list[str]]:
    """The games that play whole and a line for each one skipped; then the loaded packs are
    kept out of the cyclic collector's sight, as `simulate`'s workers keep theirs."""
    games: list[Loaded] = []
    skipped: list[str] = []
    for name in names:
        found = load_game(name, players)
        if isinstance(found, str):
            skipped.append(found)
        else:
            games.append(found)
    keep_loaded()
    return games, skipped


def bare_game(game: Loaded, index: int) -> str:
    """Game `index` of the sweep played as `simulate` plays it (the random policy at every seat,
    log off, to the last phase) but with no record read: how it ended, or what it raised (a
    sweep counts it and goes on: the bench times, it does not judge)."""
    whole, pack = game.whole, game.pack
    try:
        played = whole.new_game(pack.rules, pack.cards, game.seats, game_seed(SEED, index))
        played.logging = False
        seat_policies(played, [policy_named(POLICY) for _ in range(game.seats)])
        whole.play(played, whole.phases[-1])
        outcome = whole.outcome(played)
    except Exception as error:  # counted in the figures, never hidden
        return f"raised {type(error).__name__}"
    return outcome.stopped or outcome.result or "played"


def projected(per_core: float, games: int = SWEEP, workers: int = SWEEP_WORKERS) -> float:
    """The seconds `games` take on `workers` free cores at a one-process rate (start left out)."""
    return games / (per_core * workers)


def one_process_figure(game: Loaded, runtime: str, games: int | None, seconds: float) -> None:
    """Whole games a second in one process, and the 10,000-game sweep that rate projects (none
    when `games` is 0)."""
    if games == 0:
        return
    play = partial(bare_game, game)
    played = timed(play, games if games is not None else batch_size(play, seconds))
    seconds_for = projected(played.cpu)
    print(
        f"{game.name}, {game.seats} players, {runtime}: {played}; {SWEEP:,} on {SWEEP_WORKERS} "
        f"free cores: {seconds_for:.1f} s, ratio {seconds_for / GOAL_SWEEP_SECONDS:.2f} (goal < "
        f"{GOAL_SWEEP_SECONDS:g} s, compiled) {verdict(seconds_for < GOAL_SWEEP_SECONDS)}",
        flush=True,
    )


_GAMES: dict[str, Loaded] = {}
"""The loaded games of this process, by name: forked workers start with them."""


def _start_worker(name: str, players: int) -> None:
    """A sweep worker's start: nothing when forked (it has the parent's games); started afresh
    (spawn), it loads the game it plays."""
    if name not in _GAMES:
        loaded = load_game(name, players)
        assert isinstance(loaded, Loaded), loaded  # it loaded in the parent a moment ago
        _GAMES[name] = loaded
        keep_loaded()


def _play_chunk(name: str, first: int, count: int) -> Counter[str]:
    """A worker's share of a bare sweep: games `first`.. of the game's sweep."""
    game = _GAMES[name]
    return Counter(bare_game(game, index) for index in range(first, first + count))


@dataclass(frozen=True)
class Swept:
    """A sweep's wall seconds (the workers' start included), its workers' CPU seconds, and
    how its games ended."""

    wall: float
    cpu: float
    ended: Counter[str]


def bare_sweep(game: Loaded, games: int, workers: int = SWEEP_WORKERS) -> Swept:
    """The game's first `games` games over `workers` processes, forked with the game loaded
    where the system forks (spawned, each worker loads it)."""
    _GAMES[game.name] = game
    fork = "fork" in multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if fork else "spawn")
    children = children_cpu()
    start = time.perf_counter()
    ended: Counter[str] = Counter()
    with ProcessPoolExecutor(
        workers, mp_context=context, initializer=_start_worker, initargs=(game.name, game.seats)
    ) as pool:
        chunks = [
            pool.submit(_play_chunk, game.name, first, min(CHUNK, games - first))
            for first in range(0, games, CHUNK)
        ]
        for chunk in chunks:
            ended += chunk.result()
    return Swept(time.perf_counter() - start, children_cpu() - children, ended)


def sweep_figure(game: Loaded, runtime: str, games: int) -> Swept:
    """The bare sweep over 2 workers against its goal."""
    run = bare_sweep(game, games)
    how = ", ".join(f"{count} {why}" for why, count in run.ended.most_common())
    goal = GOAL_SWEEP_SECONDS * games / SWEEP  # the goal's pace, for a shorter sweep
    print(
        f"{game.name}, {runtime}: {games} whole games, {SWEEP_WORKERS} workers: {run.wall:.1f} s "
        f"wall ({games / run.wall:.0f}/s; {how}), ratio {run.wall / goal:.2f} (goal < {goal:g} s)"
        f" {verdict(run.wall < goal)}; the workers' CPU {run.cpu:.1f} s (load {load()})",
        flush=True,
    )
    return run


@dataclass(frozen=True)
class Simulated:
    """A `pillbox simulate` run: its wall and CPU seconds (its workers' included), or why it
    failed."""

    wall: float
    cpu: float
    failed: str | None = None


def simulate_command(game: Loaded, games: int) -> list[str]:
    """`pillbox simulate` of the bare sweep's games: the same seats, policy and seed."""
    command = [sys.executable, "-m", "compiler", "simulate", str(game.folder), "--json"]
    command += ["--games", str(games), "--players", str(game.seats), "--policy", POLICY]
    return [*command, "--seed", str(SEED), "--workers", str(SWEEP_WORKERS)]


def simulate_run(game: Loaded, games: int, *, pure: bool) -> Simulated:
    """Run `pillbox simulate` as a user does, from the checkout, on the pure runtime or on the
    compiled one (its own choice: a fresh build, its workers spawned on it)."""
    # Never this process's path: a user's `simulate` starts on the pure runtime.
    env = {**os.environ, PURE_ENV: "1" if pure else "", "PYTHONPATH": str(ROOT)}
    children = children_cpu()
    start = time.perf_counter()
    done = subprocess.run(
        simulate_command(game, games),
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    wall, cpu = time.perf_counter() - start, children_cpu() - children
    if done.returncode != 0:
        return Simulated(wall, cpu, done.stderr.strip()[-300:] or f"exit {done.returncode}")
    played = json.loads(done.stdout).get("games")
    if played != games:
        return Simulated(wall, cpu, f"it played {played} games, not {games}")
    return Simulated(wall, cpu)


def simulate_figure(game: Loaded, runtime: str, games: int, bare: Swept, *, pure: bool) -> None:
    """`pillbox simulate` of the bare sweep's games against it, and its start apart."""
    run = simulate_run(game, games, pure=pure)
    if run.failed is not None:
        print(f"{game.name}, {runtime}: pillbox simulate failed: {run.failed}", flush=True)
        return
    ratio = run.wall / bare.wall
    start = simulate_run(game, START_GAMES, pure=pure)
    rest = run.wall - start.wall
    print(
        f"{game.name}, {runtime}: pillbox simulate, the same {games} games, {SWEEP_WORKERS} "
        f"workers: {run.wall:.1f} s wall, {ratio:.2f}x the bare sweep's {bare.wall:.1f} s, ratio "
        f"{ratio / GOAL_SIMULATE_RATIO:.2f} (goal <= {GOAL_SIMULATE_RATIO:g}x) "
        f"{verdict(ratio <= GOAL_SIMULATE_RATIO)}; by CPU time {run.cpu:.1f} s against "
        f"{bare.cpu:.1f} s, {run.cpu / bare.cpu:.2f}x; its start (a {START_GAMES}-game run) "
        f"{start.wall:.1f} s wall, {start.cpu:.1f} s CPU; without it {rest:.1f} s wall, "
        f"{rest / bare.wall:.2f}x the bare sweep (load {load()})",
        flush=True,
    )


def process_figures(games: Sequence[Loaded], runtime: str, sweep: int, simulate: int) -> None:
    """The 2-worker bare sweep of each game and `simulate` of the same games (a count of 0
    leaves either out); `simulate` on the runtime this process plays on."""
    pure = runtime == "pure runtime"
    for game in games:
        swept = sweep_figure(game, runtime, sweep) if sweep > 0 else None
        if simulate <= 0:
            continue
        if swept is None or sweep != simulate:  # its own bare sweep of the same games
            swept = bare_sweep(game, simulate)
        simulate_figure(game, runtime, simulate, swept, pure=pure)


def compiled_figures(argv: Sequence[str]) -> bool:
    """The figures again on the mypyc-compiled runtime, in a process that imports it first,
    when `make compiled` has a fresh build; False (and why, printed) when there is none."""
    state = freshness()
    if state != "fresh":
        print(f"compiled runtime: {state} ({BUILD}); `make compiled` builds it", flush=True)
        return False
    # On the path before the checkout: the script's own `sys.path` insert then finds ROOT there.
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(BUILD), str(ROOT)])}
    script = [sys.executable, str(Path(__file__).resolve()), *argv, "--compiled-part"]
    subprocess.run(script, env=env, check=False)
    return True


def runtime_is_compiled() -> bool:
    """Whether this process plays on the compiled runtime (its engine is no `.py` source)."""
    return Path(engine.__file__ or "").suffix != ".py"


def main(argv: Sequence[str] | None = None) -> int:
    """Print the figures; always 0."""
    parser = argparse.ArgumentParser(description="Benchmark whole games of every bundled game.")
    parser.add_argument(
        "--games", type=int, help="games of each one-process rate (default: ~3 s; 0: none)"
    )
    parser.add_argument("--seconds", type=float, default=BATCH_SECONDS, help=argparse.SUPPRESS)
    parser.add_argument("--sweep", type=int, default=SWEEP, help="games on 2 workers (0: none)")
    parser.add_argument(
        "--simulate", type=int, help="games of `pillbox simulate` (default: --sweep's; 0: none)"
    )
    parser.add_argument("--players", type=int, default=PLAYERS, help="seats, where a game allows")
    parser.add_argument("--only", action="append", metavar="GAME", help="this game (repeatable)")
    parser.add_argument("--pure", action="store_true", help="the pure runtime only")
    parser.add_argument("--compiled-part", action="store_true", help=argparse.SUPPRESS)
    given = list(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(given)
    simulate = args.sweep if args.simulate is None else args.simulate
    started = time.perf_counter()
    games, skipped = load_games(args.only or bundled_games(), args.players)
    runtime = "compiled runtime" if args.compiled_part else "pure runtime"
    if args.compiled_part and not runtime_is_compiled():
        print("compiled runtime: not imported (the engine is its source); nothing timed")
        return 0
    if not args.compiled_part:
        print(
            f"whole games of every bundled game, {POLICY} policy at each of {args.players} seats "
            f"(or as many as a game allows), log off, one process unless said (load {load()}):"
        )
        for line in skipped:
            print(line)
    for game in games:
        one_process_figure(game, runtime, args.games, args.seconds)
    if args.compiled_part:
        process_figures(games, runtime, args.sweep, simulate)
        return 0
    if args.pure or not compiled_figures(given):
        process_figures(games, runtime, args.sweep, simulate)
    print(f"(whole games bench took {time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
