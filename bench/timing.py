"""What the benchmarks share: a rate of games a second, a batch sized by time, PASS or MISS,
the machine's load, and the CPU time of finished child processes.

The scripts import it as `bench.timing`, with the checkout on their path (each puts it there).
"""

from __future__ import annotations

import gc
import os
import resource
import time
from collections.abc import Callable


class Rate:
    """Games a second of a batch, by the wall clock and by this process's CPU time (the one to
    read when other processes share the cores)."""

    def __init__(self, games: int, wall: float, cpu: float) -> None:
        self.games, self.wall, self.cpu = games, games / wall, games / cpu

    def __str__(self) -> str:
        return f"{self.cpu:.1f}/s of CPU time ({self.wall:.1f}/s wall) over {self.games} games"


def timed(play: Callable[[int], object], games: int) -> Rate:
    """The rate of `play(index)` over indices 0 to `games` - 1, after a collection."""
    gc.collect()
    wall, cpu = time.perf_counter(), time.process_time()
    for index in range(games):
        play(index)
    return Rate(games, time.perf_counter() - wall, time.process_time() - cpu)


def batch_size(play: Callable[[int], object], seconds: float, probes: int = 3) -> int:
    """How many games make a batch of about `seconds` of CPU time (at least 10)."""
    start = time.process_time()
    for index in range(probes):
        play(index)
    each = (time.process_time() - start) / probes
    return max(10, int(seconds / max(each, 1e-6)))


def verdict(ok: bool) -> str:
    """PASS or MISS."""
    return "PASS" if ok else "MISS"


def load() -> str:
    """The machine's load average over the last minute, for the figures' context."""
    try:
        return f"{os.getloadavg()[0]:.1f}"
    except OSError:
        return "unknown"


def children_cpu() -> float:
    """The CPU seconds this process's finished child processes (and theirs) have used so far."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime
