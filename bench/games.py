"""Benchmark whole games: Coma Ward prologues a second, a sweep of 10,000 games, 1 → 2 workers.

The figures, each with its goal, the ratio to it and PASS or MISS:
- four-player prologues a second in one process with the log off (`game.logging = False`), the
  game's own seeded random decisions (goal ≥ 500/s), and the same with the log on;
- the same prologues on the whole machine: 2 forked worker processes, by the wall clock, the
  workers' start included (the goal is the machine's, "on this two-core machine", as the
  10,000-game sweep's is; the one-process rate is printed beside it, per core);
- the same with each policy of `runtime.policies` deciding for every seat (what `simulate`
  plays), log off;
- whole games a second through the whole-game contract (`runtime.whole`: new_game, play to
  the last phase, outcome), log off;
- a sweep of 10,000 whole games over 2 worker processes (goal under 60 s, the workers' start
  included: forked, they share the bench's compiled pack, started afresh they load it), and
  the speed-up from 1 to 2 workers on a smaller sweep (goal ≥ 1.8×), with what the workers'
  CPU time says it would be on two free cores. A game that raises is counted by its error;
- each policy's prologues with how long they last (rounds, turns) and the turns a second, and
  whole games as `simulate` plays them (each game's record read from its events);
- the same prologues, whole games and sweep on the mypyc-compiled runtime when `make compiled`
  has a fresh build (`make bench` makes it), in a process that imports it first;
- `pillbox simulate` itself, 10,000 games on 2 workers, on the pure and the compiled runtime:
  the sweep a user runs (goal under 60 s).
Before timing, what an average prologue does is counted (turns, decisions, events), which says
what a game a second costs. Other processes on the machine slow the figures down: the load
average is printed with them. It always exits 0: it reports, it does not gate. Run
`python bench/games.py` or `make bench`; `--sweep N`, `--speedup-games N`, `--machine N` and
`--simulate N` make the process runs shorter (0 leaves one out), `--profile` prints cProfile's
top functions of the log-off batch.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import timing  # noqa: E402
from bench.timing import Rate, children_cpu, load, timed, verdict  # noqa: E402
from compiler.build import CompiledPack, compile_pack, load_checked  # noqa: E402
from compiler.simulate.pool import keep_loaded  # noqa: E402
from runtime.datagame import whole_game_of  # noqa: E402
from runtime.events import Event  # noqa: E402
from runtime.game import Game  # noqa: E402
from runtime.games.coma_ward_game import play_prologue  # noqa: E402
from runtime.policies import POLICIES, policy_named, seat_policies  # noqa: E402
from runtime.simulation.record import Sweep as SweepOf  # noqa: E402
from runtime.simulation.record import play_game  # noqa: E402
from runtime.whole import WholeGame, game_seed  # noqa: E402

PACK = ROOT / "content" / "coma-ward"
GAME = "coma-ward"
SEATS = 4
GOAL_PROLOGUES = 500.0
GOAL_SWEEP_SECONDS = 60.0
GOAL_SPEEDUP = 1.8
SWEEP = 10_000
SPEEDUP_GAMES = 2_000
MACHINE_GAMES = 3_000
"""Prologues of the machine's figure (both cores)."""
BATCH_SECONDS = 3.0
"""Each rate's batch runs about this long (after a short batch says how long a game takes)."""
CHUNK = 50
"""Games a worker is handed at a time."""


def compiled_pack() -> CompiledPack:
    """The bundled Coma Ward pack, checked and compiled, and kept out of the collector's sight
    as `simulate`'s workers keep theirs."""
    loaded = load_checked(PACK)
    assert loaded.pack is not None, "the bundled Coma Ward pack must check"
    compiled = compile_pack(loaded.pack)
    keep_loaded()
    return compiled


_WHOLE: dict[int, tuple[CompiledPack, WholeGame]] = {}


def whole_of(pack: CompiledPack) -> WholeGame:
    """The pack's whole game, made once a pack (its module with the turns its data plays), as
    a sweep makes it once."""
    kept = _WHOLE.get(id(pack))
    if kept is None or kept[0] is not pack:
        kept = _WHOLE[id(pack)] = (pack, whole_game_of(pack.rules, pack.whole))
    return kept[1]


def new_game(pack: CompiledPack, seed: int) -> Game:
    """A four-player game, not yet set up, played with the turns the ruleset's `game:` says."""
    return whole_of(pack).new_game(pack.rules, pack.cards, SEATS, seed)


def prologue(pack: CompiledPack, seed: int, *, log: bool, policy: str | None = None) -> Game:
    """One four-player prologue, by the game's own random decisions or a policy for all."""
    game = new_game(pack, seed)
    game.logging = log
    if policy is not None:
        seat_policies(game, policy_named(policy))
    play_prologue(game)
    return game


def batch_size(play: Callable[[int], object]) -> int:
    """How many games make a batch of about BATCH_SECONDS of CPU time."""
    return timing.batch_size(lambda index: play(game_seed(0, index)), BATCH_SECONDS, probes=5)


def policy_prologue(pack: CompiledPack, policy: str, seed: int) -> Game:
    """A log-off prologue with one policy deciding for every seat."""
    return prologue(pack, seed, log=False, policy=policy)


def rate(play: Callable[[int], object], games: int) -> Rate:
    """The rate of `play(seed)` over the first `games` seeds of sweep 0 (the same seeds for
    every figure, so that the figures compare)."""
    return timed(lambda index: play(game_seed(0, index)), games)


def shape(pack: CompiledPack, policy: str | None, games: int = 50) -> tuple[float, float]:
    """The mean rounds and seated turns of a prologue under a policy (None: the game's own
    random decisions), counted apart from the timed runs: a rate of prologues says little
    without how long they are (random play wanders, and often everyone dies)."""
    rounds = turns = 0
    for index in range(games):
        game = new_game(pack, game_seed(0, index))
        game.logging = False
        if policy is not None:
            seat_policies(game, policy_named(policy))
        play_prologue(game)
        rounds += game.state.round
        turns += game.state.turns
    return rounds / games, turns / games


def lasting(pack: CompiledPack, policy: str | None, played: Rate) -> str:
    """How long the prologues of a rate last, and the turns a second that makes."""
    rounds, turns = shape(pack, policy)
    return f"{rounds:.0f} rounds, {turns:.0f} turns each: {played.cpu * turns:,.0f} turns/s"


def what_a_game_does(pack: CompiledPack, games: int = 50) -> None:
    """Average turns, decisions and events of a prologue (counted by a listener, log off)."""
    kinds: Counter[str] = Counter()
    rounds = turns = 0
    for seed in range(games):
        game = new_game(pack, seed)
        game.logging = False

        def count(event: Event) -> None:
            kinds[event.kind] += 1

        game.listeners.append(count)
        play_prologue(game)
        rounds += game.state.round
        turns += game.state.turns
    print(
        f"a {SEATS}-player prologue, average of {games}: {rounds / games:.0f} rounds, "
        f"{turns / games:.0f} turns, {kinds['decide'] / games:.0f} decisions, "
        f"{sum(kinds.values()) / games:.0f} events",
        flush=True,
    )


def prologue_figures(pack: CompiledPack, games: int) -> None:
    """Prologues a second, log off and on, and with each policy (log off)."""
    off = rate(lambda seed: prologue(pack, seed, log=False), games)
    print(
        f"prologues, log off: {off}, ratio {off.cpu / GOAL_PROLOGUES:.2f} "
        f"(goal >= {GOAL_PROLOGUES:g}/s) {verdict(off.cpu >= GOAL_PROLOGUES)}; "
        f"{lasting(pack, None, off)}",
        flush=True,
    )
    on = rate(lambda seed: prologue(pack, seed, log=True), games)
    print(
        f"prologues, log on: {on}, ratio {on.cpu / GOAL_PROLOGUES:.2f}; "
        f"keeping the log costs {100 * (1 - on.cpu / off.cpu):.0f}% of the log-off rate",
        flush=True,
    )
    for name in POLICIES:
        played = rate(partial(policy_prologue, pack, name), games)
        print(
            f"prologues, policy {name} for every seat, log off: {played}, ratio "
            f"{played.cpu / GOAL_PROLOGUES:.2f} (goal >= {GOAL_PROLOGUES:g}/s) "
            f"{verdict(played.cpu >= GOAL_PROLOGUES)}; {lasting(pack, name, played)}",
            flush=True,
        )
    played = rate(lambda seed: whole(pack, seed), games)
    print(
        f"whole games (to {whole_game_of(pack.rules, pack.whole).phases[-1]!r}), log off: {played}",
        flush=True,
    )
    rules = whole_game_of(pack.rules, pack.whole)
    sweep_of = SweepOf(0, SEATS, ("random",) * SEATS, rules.phases[-1], rules.phases)
    recorded = rate(lambda index: play_game(rules, pack.rules, pack.cards, sweep_of, index), games)
    print(
        f"whole games as `simulate` plays them (policy random, each game's record read from "
        f"its events): {recorded}",
        flush=True,
    )


def whole(pack: CompiledPack, seed: int) -> str:
    """One whole game through the whole-game contract, log off; what its outcome says, or
    the error it raised (a sweep counts it and goes on: the bench times, it does not judge)."""
    rules = whole_of(pack)
    game = new_game(pack, seed)
    game.logging = False
    try:
        rules.play(game, rules.phases[-1])
    except Exception as error:  # counted in the figures, never hidden
        return f"raised {type(error).__name__}"
    outcome = rules.outcome(game)
    return outcome.stopped or outcome.result or "played"


_PACK: CompiledPack | None = None
"""A worker's pack, loaded once when the worker starts."""


def _start_worker() -> None:
    global _PACK
    if _PACK is None:  # started afresh (spawn), not forked from a process that has it
        _PACK = compiled_pack()


def _play_prologues(seed: int, first: int, count: int) -> int:
    """A worker's share of the machine's prologues: log off, the game's own random decisions."""
    assert _PACK is not None
    for index in range(first, first + count):
        prologue(_PACK, game_seed(seed, index), log=False)
    return count


def machine_prologues(games: int, workers: int = 2) -> tuple[float, float]:
    """Four-player prologues a second of the whole machine (wall clock, the workers' start
    included) over `workers` forked processes, and what their CPU time says each core did."""
    children = children_cpu()
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=workers, initializer=_start_worker) as pool:
        chunks = [
            pool.submit(_play_prologues, 0, first, min(CHUNK, games - first))
            for first in range(0, games, CHUNK)
        ]
        played = sum(chunk.result() for chunk in chunks)
    wall = time.perf_counter() - start
    return played / wall, played / (children_cpu() - children)


def machine_figure(name: str, games: int) -> None:
    """The prologue goal as the machine meets it: both cores, a worker each."""
    if games <= 0:
        return
    wall_rate, cpu_rate = machine_prologues(games)
    print(
        f"{name}prologues on the machine, 2 workers, log off: {wall_rate:.1f}/s wall over "
        f"{games} games, ratio {wall_rate / GOAL_PROLOGUES:.2f} (goal >= {GOAL_PROLOGUES:g}/s) "
        f"{verdict(wall_rate >= GOAL_PROLOGUES)}; {cpu_rate:.1f}/s of each worker's CPU time "
        f"(load {load()})",
        flush=True,
    )


def _play_chunk(seed: int, first: int, count: int) -> Counter[str]:
    """A worker's share of a sweep: games `first`.. of the sweep seeded `seed`."""
    assert _PACK is not None
    return Counter(whole(_PACK, game_seed(seed, index)) for index in range(first, first + count))


class Sweep:
    """A sweep's wall seconds (the workers' start included), its workers' CPU seconds, and
    how its games ended."""

    def __init__(self, wall: float, cpu: float, ended: Counter[str]) -> None:
        self.wall, self.cpu, self.ended = wall, cpu, ended


def sweep(games: int, workers: int, seed: int = 0) -> Sweep:
    """A sweep of whole games over worker processes."""
    children = children_cpu()
    start = time.perf_counter()
    ended: Counter[str] = Counter()
    with ProcessPoolExecutor(max_workers=workers, initializer=_start_worker) as pool:
        chunks = [
            pool.submit(_play_chunk, seed, first, min(CHUNK, games - first))
            for first in range(0, games, CHUNK)
        ]
        for chunk in chunks:
            ended += chunk.result()
    wall = time.perf_counter() - start
    return Sweep(wall, children_cpu() - children, ended)


def process_figures(games: int, speedup_games: int) -> None:
    """The 10,000-game sweep over 2 workers, and the speed-up from 1 worker to 2 (either
    left out when its number of games is 0)."""
    if speedup_games > 0:
        speedup_figures(speedup_games)
    if games > 0:
        sweep_figures(games)


def speedup_figures(speedup_games: int) -> None:
    """The speed-up of a sweep from 1 worker to 2."""
    one, two = sweep(speedup_games, 1), sweep(speedup_games, 2)
    speedup = one.wall / two.wall
    print(
        f"1 -> 2 workers, {speedup_games} whole games: {one.wall:.1f} s -> {two.wall:.1f} s wall, "
        f"speed-up {speedup:.2f}x, ratio {speedup / GOAL_SPEEDUP:.2f} (goal >= {GOAL_SPEEDUP:g}x) "
        f"{verdict(speedup >= GOAL_SPEEDUP)}; the workers' CPU {one.cpu:.1f} s -> {two.cpu:.1f} s, "
        f"{one.cpu / (two.cpu / 2):.2f}x on two free cores (load {load()})",
        flush=True,
    )


def sweep_figures(games: int) -> None:
    """A sweep of whole games over 2 workers."""
    run = sweep(games, 2)
    how = ", ".join(f"{count} {why}" for why, count in run.ended.most_common())
    print(
        f"{games} whole games, 2 workers: {run.wall:.1f} s wall ({games / run.wall:.0f}/s; "
        f"{how}), ratio {run.wall / GOAL_SWEEP_SECONDS:.2f} (goal < {GOAL_SWEEP_SECONDS:g} s) "
        f"{verdict(run.wall < GOAL_SWEEP_SECONDS)}; the workers' CPU {run.cpu:.1f} s, "
        f"{run.cpu / 2:.1f} s each on 2 free cores (load {load()})",
        flush=True,
    )


def profile(pack: CompiledPack, games: int = 100) -> None:
    """cProfile's top functions of a batch of log-off prologues."""
    import cProfile
    import pstats

    profiler = cProfile.Profile()
    profiler.enable()
    for seed in range(games):
        prologue(pack, seed, log=False)
    profiler.disable()
    stats = pstats.Stats(profiler, stream=sys.stdout)
    for order in ("tottime", "cumulative"):
        print(f"\n--- {games} prologues, log off, cProfile, top 30 by {order}")
        stats.sort_stats(order).print_stats(30)


GOAL_WHOLE_PER_CORE = SWEEP / GOAL_SWEEP_SECONDS / 2
"""Whole games a second of CPU time one core must play for the sweep's goal on two."""


def compiled_figures(games: int, machine: int) -> None:
    """After the pure figures, the log-off prologues, whole games and the 2-worker sweep again on
    the mypyc-compiled runtime, when `make compiled` has a fresh build (`make bench` makes it),
    in a process that imports it first; or, when there is no fresh build, why not."""
    from compiler.simulate.compiled import BUILD, freshness

    state = freshness()
    if state != "fresh":
        print(f"compiled runtime: {state} ({BUILD}); `make compiled` builds it", flush=True)
        return
    # On the path before the checkout: the script's own `sys.path` insert then finds ROOT there.
    path = os.pathsep.join([str(BUILD), str(ROOT)])
    script = [sys.executable, str(Path(__file__).resolve()), "--sweep", str(games)]
    script += ["--machine", str(machine)]
    compiled_env = {**os.environ, "PYTHONPATH": path}
    subprocess.run([*script, "--compiled-part"], env=compiled_env, check=False)


def compiled_part(games: int, machine: int) -> int:
    """In the compiled runtime's process: log-off prologues a second on one core and on the
    machine, whole games a second, and the sweep of whole games on 2 workers (forked, so on the
    compiled runtime too; none if 0)."""
    import runtime.game as engine

    global _PACK
    where = Path(engine.__file__ or "")
    if where.suffix == ".py":
        print(f"compiled runtime: not imported ({where} is its source); nothing timed")
        return 0
    pack = _PACK = compiled_pack()  # forked workers start with it
    play = partial(prologue, pack, log=False)
    off = rate(play, batch_size(play))
    print(
        f"compiled runtime: prologues, log off: {off}, ratio {off.cpu / GOAL_PROLOGUES:.2f} "
        f"(goal >= {GOAL_PROLOGUES:g}/s) {verdict(off.cpu >= GOAL_PROLOGUES)}",
        flush=True,
    )
    machine_figure("compiled runtime: ", machine)
    played = rate(partial(whole, pack), batch_size(partial(whole, pack)))
    print(
        f"compiled runtime: whole games, log off: {played}, ratio "
        f"{played.cpu / GOAL_WHOLE_PER_CORE:.2f} (goal >= {GOAL_WHOLE_PER_CORE:.0f}/s a core, "
        f"for the sweep's) {verdict(played.cpu >= GOAL_WHOLE_PER_CORE)}",
        flush=True,
    )
    if games > 0:
        print("compiled runtime: ", end="", flush=True)
        sweep_figures(games)
    return 0


def simulate_figures(games: int) -> None:
    """`pillbox simulate` itself, the sweep a user runs (its pool, each game's record read from
    its events, the figures): `games` four-player games on 2 workers, on the pure runtime and,
    when `make compiled` has a fresh build, on the compiled one."""
    from compiler.simulate.compiled import PURE_ENV, freshness

    runs = [("pure runtime", "1")]
    if freshness() == "fresh":
        runs.append(("compiled runtime", ""))
    command = [sys.executable, "-m", "compiler", "simulate", str(PACK), "--json"]
    command += ["--games", str(games), "--players", str(SEATS), "--workers", "2"]
    for name, pure in runs:
        children = children_cpu()
        start = time.perf_counter()
        done = subprocess.run(
            command,
            env={**os.environ, PURE_ENV: pure},
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            check=False,
        )
        wall = time.perf_counter() - start
        cpu = children_cpu() - children
        if done.returncode != 0:
            print(f"pillbox simulate on the {name} failed: {done.stderr.strip()[-300:]}")
            continue
        print(
            f"pillbox simulate, {games} games of {SEATS} players, 2 workers, {name}: "
            f"{wall:.1f} s wall, ratio {wall / GOAL_SWEEP_SECONDS:.2f} (goal < "
            f"{GOAL_SWEEP_SECONDS:g} s) {verdict(wall < GOAL_SWEEP_SECONDS)}; {cpu:.1f} s of CPU "
            f"in all (load {load()})",
            flush=True,
        )


def main(argv: list[str] | None = None) -> int:
    """Print the figures; always 0."""
    parser = argparse.ArgumentParser(description="Benchmark whole games.")
    parser.add_argument("--sweep", type=int, default=SWEEP, help="games of the 2-worker sweep")
    parser.add_argument(
        "--speedup-games", type=int, default=SPEEDUP_GAMES, help="games of the 1 -> 2 run"
    )
    parser.add_argument(
        "--simulate", type=int, default=SWEEP, help="games of the `pillbox simulate` runs (0: none)"
    )
    parser.add_argument(
        "--machine", type=int, default=MACHINE_GAMES, help="prologues over 2 workers (0: none)"
    )
    parser.add_argument("--profile", action="store_true", help="also print a profile")
    parser.add_argument("--compiled-part", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.compiled_part:  # the compiled runtime's figures, in the process compiled_figures runs
        return compiled_part(args.sweep, args.machine)
    global _PACK
    started = time.perf_counter()
    pack = _PACK = compiled_pack()  # forked workers start with it
    print(f"whole games of {GAME}, {SEATS} players, one process unless said (load {load()}):")
    what_a_game_does(pack)
    prologue_figures(pack, batch_size(lambda seed: prologue(pack, seed, log=False)))
    machine_figure("", args.machine)
    process_figures(args.sweep, args.speedup_games)
    compiled_figures(args.sweep, args.machine)
    if args.simulate > 0:
        simulate_figures(args.simulate)
    print(f"(games bench took {time.perf_counter() - started:.0f} s)")
    if args.profile:
        profile(pack)
    return 0


if __name__ == "__main__":
    sys.exit(main())
