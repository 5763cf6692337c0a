"""The games of a sweep played in a pool of worker processes, in batches of game indices.

Each worker holds the compiled pack once: a forked worker has the parent's (compiled before the
pool starts), any other compiles it when it starts. When `make compiled` has built a fresh
mypyc-compiled runtime (`compiler.simulate.compiled`), the workers play on it: the same games,
about twice as fast. `pillbox simulate` imports it itself before it reads the pack, and forks
its workers with the pack it compiled; a parent on the pure runtime (a test, a tool that plays
in-process) spawns them afresh with the build first on their path, each compiling the pack. A
task is a batch of game indices and a reply the batch's totals (counts of values,
`runtime.simulation.totals`), so nothing but numbers crosses between processes, and the parent
holds counts, never the games; batches are cut and sent a few at a time (`as_they_come`), so
what is waiting in the pool is the same size for a sweep of any length: its memory stays flat
however many games it plays. Which worker plays which game changes nothing: a game's seed is
derived from the sweep's seed and the game's index, and totals merged in any order are equal.
So when a worker dies (killed, or out of memory), the batches not yet added up are played again
in a new pool, and the figures are those of a sweep no worker left.
"""

from __future__ import annotations

import ctypes
import gc
import multiprocessing
import os
import signal
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import suppress
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import TypeVar

from compiler.build import compile_pack, load_checked
from compiler.printing.workers import cap_address_space, die_with
from compiler.simulate.compiled import first_on_path, runs_compiled, usable_build
from runtime.cards import CardDef
from runtime.datagame import whole_game_of
from runtime.rules import GameRules
from runtime.simulation.record import Sweep, play_game
from runtime.simulation.totals import Totals, total
from runtime.whole import WholeGame

Progress = Callable[[int, int], None]
T = TypeVar("T")

BATCHES_PER_WORKER = 8
"""Batches a sweep is cut into per worker: enough to keep every worker busy to the end and
the progress bar moving, few enough that a batch's reply is worth its trip."""

MAX_BATCH = 250
"""The most games one batch holds."""

RESTARTS = 2
"""How many times a sweep starts a new pool to play again the games of a worker that died. A
game seeded by the sweep's seed and its index plays the same again, so the figures are those
of a sweep no worker left; a worker that dies on every try (a game the system kills) ends it."""

STOPPED_SECONDS = 5.0
"""How long a worker killed may take to be gone (it is at once, unless the system is stuck)."""

IN_FLIGHT_PER_WORKER = 2
"""Batches sent to the pool and not yet replied to, per worker: one played, one waiting, so a
worker never idles between batches while the parent holds a few futures, not one a batch."""

WORKER_MEMORY_MB = 512
"""How far a worker may grow past what it holds when it starts: a game takes a few MB, so
only a game that runs away in memory gets near it."""


@dataclass(frozen=True)
class Playing:
    """What a worker plays games with: the game's whole-game rules, the rules and cards."""

    whole: WholeGame
    rules: GameRules
    cards: Sequence[CardDef]


_PLAYING: Playing | None = None
"""The compiled pack of this process: set in the parent before a fork, or by `_start`."""

_MALLOC_TRIM: Callable[[int], int] | None
try:
    _MALLOC_TRIM = ctypes.CDLL(None).malloc_trim
except (AttributeError, OSError, TypeError):  # a C library without it (glibc has it)
    _MALLOC_TRIM = None


def keep_loaded() -> None:
    """Take what is alive now, the compiled pack above all, out of the cyclic collector's
    sight: it lives as long as the process, and every collection of an older generation walked
    its hundreds of thousands of objects again (8% of a sweep's time). Games still free
    themselves; a game's cycles are still collected. What loading freed goes back to the
    system: left in the C heap (as much as 10 MB, or none, as its layout falls), it counted in
    every forked worker's memory."""
    gc.collect()
    if _MALLOC_TRIM is not None:
        _MALLOC_TRIM(0)
    gc.freeze()


def _start(pack: Path, ruleset: str | None) -> None:
    """A worker's start: tied to its parent, capped, with the compiled pack (compiled here
    unless the fork brought it along)."""
    global _PLAYING
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    die_with(os.getppid())
    cap_address_space(WORKER_MEMORY_MB)  # a game past it fails with MemoryError: E0460
    if _PLAYING is None:
        loaded = load_checked(pack, ruleset)
        if loaded.pack is None:  # it checked clean in the parent a moment ago
            raise RuntimeError(f"the pack {pack} no longer checks clean")
        compiled = compile_pack(loaded.pack)
        _PLAYING = Playing(
            whole_game_of(compiled.rules, compiled.whole), compiled.rules, compiled.cards
        )
    keep_loaded()


def _play_batch(sweep: Sweep, indices: range) -> Totals:
    """Play the games of one batch in this worker."""
    assert _PLAYING is not None, "the worker was started without its pack"
    return play_batch(_PLAYING, sweep, indices)


def play_batch(playing: Playing, sweep: Sweep, indices: range) -> Totals:
    """Play the games of these indices, one after another, and add them up."""
    return total(play_game(playing.whole, playing.rules, playing.cards, sweep, i) for i in indices)


def batches(games: int, workers: int, first: int = 0) -> Iterator[range]:
    """The game indices from `first` up to `games` cut into batches of about the same size,
    cut as they are taken."""
    size = max(1, min(MAX_BATCH, -(-(games - first) // (workers * BATCHES_PER_WORKER))))
    return (range(start, min(start + size, games)) for start in range(first, games, size))


def as_they_come(
    submit: Callable[[range], Future[T]], parts: Iterator[range], most: int
) -> Iterator[tuple[range, T]]:
    """Each batch with its reply, as they come, with at most `most` submitted and not yet
    replied to: the first are submitted now, each of the others when a reply makes room."""
    waiting = {submit(part): part for part in islice(parts, most)}
    return _replies(submit, parts, waiting)


def _replies(
    submit: Callable[[range], Future[T]],
    parts: Iterator[range],
    waiting: dict[Future[T], range],
) -> Iterator[tuple[range, T]]:
    while waiting:
        done, _ = wait(waiting, return_when=FIRST_COMPLETED)
        for future in done:
            part = waiting.pop(future)
            yield part, future.result()
            following = next(parts, None)
            if following is not None:
                waiting[submit(following)] = following


def default_workers() -> int:
    """Every core this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def run_sweep(
    playing: Playing,
    source: tuple[Path, str | None],
    sweep: Sweep,
    games: int,
    workers: int,
    progress: Progress | None = None,
    replayed: Callable[[int], None] | None = None,
    first: int = 0,
) -> Totals:
    """Play the sweep's games from index `first` up to `games` on `workers` processes (1: in
    this one) and add them up: a sweep played on in stages adds only the games it lacks.
    `source` is the pack and ruleset a worker compiles if it must.

    When a worker dies (killed, or by the system out of memory), the games of the batches not
    yet added up are played again in a new pool, up to RESTARTS times; `replayed` is told how
    many games that is. After that, BrokenProcessPool.
    """
    global _PLAYING
    parts = list(batches(games, workers, first))  # a few hundred ranges: kept, to play again
    totals = Totals()
    if workers <= 1 or games - first <= 1:
        keep_loaded()
        for part in parts:
            totals.merge(play_batch(playing, sweep, part))
            if progress:
                progress(totals.games, games - first)
        return totals
    _PLAYING = playing
    try:
        for restart in range(RESTARTS + 1):
            parts = _play_in_pool(parts, source, sweep, workers, totals, games - first, progress)
            if not parts:
                return totals
            if restart < RESTARTS and replayed is not None:
                replayed(sum(len(part) for part in parts))
    finally:
        _PLAYING = None
    raise BrokenProcessPool(f"one died in each of the {RESTARTS + 1} pools it was played in")


def _play_in_pool(
    parts: Sequence[range],
    source: tuple[Path, str | None],
    sweep: Sweep,
    workers: int,
    totals: Totals,
    games: int,
    progress: Progress | None,
) -> list[range]:
    """Play these batches in a new pool, adding each one's totals up as it comes; the batches
    left unplayed because a worker died (none when all were played)."""
    # A fork brings the parent's runtime along: a pure parent spawns its workers afresh on a
    # fresh build; a compiled one (`pillbox simulate` imports it first) forks them with its
    # compiled pack, never compiled again.
    compiled = None if runs_compiled() else usable_build()
    methods = multiprocessing.get_all_start_methods()
    fork = compiled is None and "fork" in methods
    context = multiprocessing.get_context("fork" if fork else "spawn")
    keep_loaded()  # before the fork: the workers start without the loading's garbage
    size = min(workers, len(parts))
    pool = ProcessPoolExecutor(size, mp_context=context, initializer=_start, initargs=source)
    added: set[range] = set()
    try:

        def submit(part: range) -> Future[Totals]:
            return pool.submit(_play_batch, sweep, part)

        # Spawned workers start while the build is first on the path: the first batches
        # (one a worker at least) start them all. A dead worker breaks the whole pool: every
        # batch not added up yet is left to the next.
        with suppress(BrokenProcessPool):
            with first_on_path(compiled):
                replies = as_they_come(submit, iter(parts), IN_FLIGHT_PER_WORKER * size)
            for part, reply in replies:
                totals.merge(reply)
                added.add(part)
                if progress:
                    progress(totals.games, games)
    except BaseException:
        _stop(pool)  # Ctrl-C or SIGTERM: stop the workers now
        raise
    left = [part for part in parts if part not in added]
    if left:
        _stop(pool)
    else:
        pool.shutdown()
    return left


def _stop(pool: ProcessPoolExecutor) -> None:
    """Stop the pool's workers now rather than wait for the batches they are playing (the
    executor would, on its way out)."""
    processes = list((pool._processes or {}).values())
    # Taken before the shutdown, which forgets it.
    manager = getattr(pool, "_executor_manager_thread", None)
    for process in processes:
        process.kill()
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        process.join(STOPPED_SECONDS)  # so that none is left running past the sweep
    # The executor's manager thread closes its wake-up pipe as it ends; at the interpreter's
    # exit, Python 3.11 wakes that thread through the same pipe without a lock, and a close
    # half done by then printed "Exception ignored in: <module 'threading'> ... OSError" after
    # Ctrl-C. Once the thread has ended, the pipe is known closed and left alone.
    if manager is not None:
        manager.join(STOPPED_SECONDS)
