"""Benchmark the seats that search: the cost of a fork, the ladder's speed, and its quality.

The figures, each with its goal, its ratio to it, and PASS or MISS (on the compiled runtime when
`make compiled` has a fresh build, in a process that imports it first; else on the pure one):
- a fork of a four-seat Coma Ward game in the middle of its prologue (round 4) as a playout makes
  it (the kept turn's deck cards lent, each copied as it leaves a deck), the median of batches of
  forks, by CPU time (goal under 50 µs, compiled); and a whole copy's, for comparison;
- a ladder of four-seat Coma Ward games (`simulate --ladder`, its default rungs, 2 workers),
  timed over `--ladder N` games (default 40) and scaled to 1,000 (goal under 600 s);
- quality: each rung's win rate with its 95 % interval over those games, and whether each rung's
  interval lies wholly above the one below it (goal: mcts at the default budget above greedy
  above random, over 1,000 games: `--ladder 1000` plays them, about 17 minutes on two cores);
  `--every-game N` reads the same of a ladder of N games of each other bundled game, untimed.

It always exits 0: it reports, it does not gate. Run `python bench/search.py` or `make bench`;
`--pure` times the pure runtime, `--ladder 0` leaves the ladder out.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.timing import load, verdict  # noqa: E402
from compiler.build import compile_pack, load_checked  # noqa: E402
from compiler.simulate.compiled import BUILD, freshness  # noqa: E402
from runtime import game as engine  # noqa: E402
from runtime.datagame import whole_game_of  # noqa: E402
from runtime.decisions import FirstChoice  # noqa: E402
from runtime.dice import SeededDice  # noqa: E402
from runtime.fork import fork  # noqa: E402
from runtime.game import Game  # noqa: E402
from runtime.state import Actor  # noqa: E402
from runtime.world import Phase  # noqa: E402

COMA_WARD = ROOT / "content" / "coma-ward"
EVERY_GAME: dict[str, int | None] = {
    "coma-ward": 4,
    "comanauts": None,
    "cool-name": None,
    "lobotomy": 3,
}
"""Each bundled game that plays whole, at the seats its balance bands are read at (None: the
game's own count)."""
GOAL_FORK_US = 50.0
GOAL_LADDER_SECONDS = 600.0
LADDER_GAMES = 40
FORK_ROUND = 4
"""The round of the prologue whose first turn's game is forked."""


def kept_game() -> Game:
    """A four-seat Coma Ward game as its FORK_ROUND-th round's first turn begins."""
    pack = compile_pack(load_checked(COMA_WARD).pack)  # type: ignore[arg-type]
    whole = whole_game_of(pack.rules, pack.whole)
    for seed in range(20):
        game = whole.new_game(pack.rules, pack.cards, 4, seed)
        game.logging = False
        kept: list[Game] = []

        def watch(actor: Actor, phase: Phase, game: Game = game, kept: list[Game] = kept) -> None:
            if game.state.round == FORK_ROUND and not kept:
                kept.append(fork(game, FirstChoice(), SeededDice(0), lends=True))

        game.turn_watch = watch
        whole.play(game, whole.phases[0])
        if kept:
            return kept[0]
    raise RuntimeError(f"no game reached round {FORK_ROUND} of its prologue")


def fork_micros(game: Game, lend_decks: bool) -> float:
    """The median of batches of forks, in µs of CPU time each."""
    dice, answers, stream = SeededDice(1), FirstChoice(), random.Random(1)
    batches = []
    for _ in range(7):
        start = time.process_time()
        for _ in range(2000):
            fork(game, answers, dice, stream, lend_decks=lend_decks)
        batches.append((time.process_time() - start) / 2000 * 1e6)
    return statistics.median(batches)


def fork_figure() -> None:
    """A playout's fork against its goal, and a whole copy's."""
    game = kept_game()
    each = fork_micros(game, lend_decks=True)
    whole = fork_micros(game, lend_decks=False)
    cards = sum(len(pile) for pile in game.state.decks.values())
    print(
        f"fork of a 4-seat Coma Ward game in round {FORK_ROUND} of its prologue, as a playout "
        f"makes it ({cards} cards in its decks, lent): {each:.1f} µs (goal < {GOAL_FORK_US:.0f} "
        f"µs, ratio {each / GOAL_FORK_US:.2f}) {verdict(each < GOAL_FORK_US)}; a whole copy "
        f"{whole:.1f} µs",
        flush=True,
    )


def ladder_figures(games: int, name: str = "coma-ward", timed: bool = True) -> None:
    """Time a ladder of a bundled game's games (Coma Ward's against its goal) and read its
    rungs' intervals."""
    players = EVERY_GAME[name]
    command = [sys.executable, "-m", "compiler", "simulate", str(ROOT / "content" / name)]
    command += ["--games", str(games), "--seed", "1", "--workers", "2", "--ladder", "--json"]
    if players is not None:
        command += ["--players", str(players)]
    started = time.perf_counter()
    # Never this process's path: a user's `simulate` starts on the pure runtime, and its
    # workers on the compiled one when the build is fresh.
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(command, capture_output=True, text=True, check=False, cwd=ROOT, env=env)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        print(f"ladder of {name}: failed ({done.returncode}): {done.stderr.strip()[-300:]}")
        return
    summary = json.loads(done.stdout)
    scaled = seconds * 1000 / games
    seats = f"{players}-seat " if players is not None else ""
    played = f"ladder of {games} {seats}{name} games ({', '.join(summary['rungs'])}, 2 "
    if timed:
        print(
            f"{played}workers): {seconds:.0f} s, {scaled:.0f} s for 1,000 (goal < "
            f"{GOAL_LADDER_SECONDS:.0f} s, ratio {scaled / GOAL_LADDER_SECONDS:.2f}) "
            f"{verdict(scaled < GOAL_LADDER_SECONDS)}",
            flush=True,
        )
    else:
        print(f"{played}workers): {seconds:.0f} s", flush=True)
    by_rung = summary["overall"]["by rung"]
    below = None
    for rung in summary["rungs"]:
        entry = by_rung[rung]
        low, high = entry["interval"]
        above = "" if below is None else f"; above {below[0]}: {verdict(low > below[1])}"
        print(
            f"  {rung}: won {entry['win rate'] * 100:.1f} % [{low * 100:.1f}-{high * 100:.1f}] "
            f"of {entry['games']}{above}"
        )
        below = (rung, high)
    if games < 1000:
        print(f"  (the quality goal is read over 1,000 games: --ladder 1000; here {games})")


def main(argv: Sequence[str] | None = None) -> int:
    """Print the figures; always 0."""
    parser = argparse.ArgumentParser(description="Benchmark the seats that search.")
    parser.add_argument("--ladder", type=int, default=LADDER_GAMES, help="games (0: none)")
    parser.add_argument(
        "--every-game", type=int, default=0, help="games of a ladder of each other bundled game"
    )
    parser.add_argument("--pure", action="store_true", help="the pure runtime")
    parser.add_argument("--compiled-part", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    compiled = ".so" in (engine.__file__ or "") or ".pyd" in (engine.__file__ or "")
    if not args.compiled_part and not args.pure and freshness() == "fresh":
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(BUILD), str(ROOT)])}
        script = [sys.executable, __file__, "--compiled-part", "--ladder", str(args.ladder)]
        script += ["--every-game", str(args.every_game)]
        subprocess.run(script, env=env, check=False)
        return 0
    runtime = "compiled" if compiled else "pure"
    print(f"seats that search, on the {runtime} runtime (load {load()}):", flush=True)
    fork_figure()
    if args.ladder:
        ladder_figures(args.ladder)
    if args.every_game:
        for name in EVERY_GAME:
            if name != "coma-ward":
                ladder_figures(args.every_game, name, timed=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
