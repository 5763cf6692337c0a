"""Where a command's games are played: a process pool on this machine, or a dask.distributed
cluster. `simulate`, `test --balance` and `tune` take the same `--engine` and `--scheduler`,
and play every sweep through one `Engine`, held open for the whole command (a cluster is
started or reached once, not once a sweep)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from compiler.errors import UsageError
from compiler.simulate.cluster import Cluster
from compiler.simulate.pool import Playing, Progress, run_sweep
from runtime.simulation.record import Sweep
from runtime.simulation.totals import Totals

ENGINES = ("pool", "dask")


class Engine:
    """A process pool here (`pool`), or a dask cluster (`dask`: the scheduler named, or a
    LocalCluster of `workers` here), used in a with block."""

    def __init__(self, name: str = "pool", scheduler: str | None = None, workers: int = 1) -> None:
        if name not in ENGINES:
            raise UsageError(f"--engine {name}: one of {', '.join(ENGINES)}")
        if scheduler is not None and name != "dask":
            raise UsageError("--scheduler names a dask cluster: add --engine dask")
        self.name, self.scheduler, self.workers = name, scheduler, workers
        self._cluster: Cluster | None = None

    def __enter__(self) -> Engine:
        if self.name == "dask":
            self._cluster = Cluster(self.scheduler, self.workers)
        return self

    def __exit__(self, *_: object) -> None:
        if self._cluster is not None:
            self._cluster.close()
            self._cluster = None

    def play(
        self,
        playing: Playing,
        source: tuple[Path, str | None],
        sweep: Sweep,
        games: int,
        workers: int,
        first: int = 0,
        progress: Progress | None = None,
        replayed: Callable[[int], None] | None = None,
    ) -> Totals:
        """The sweep's games from `first` up to `games`, added up: on the cluster, the pack
        in `source`'s folder as it is now; in the pool, `playing` (`workers` of them)."""
        if self._cluster is not None:
            folder, ruleset = source
            folder = folder.parent if folder.name == "pack.yaml" else folder
            return self._cluster.play(folder, ruleset, sweep, games, first, progress)
        return run_sweep(playing, source, sweep, games, workers, progress, replayed, first)


POOL = Engine()
"""The process pool: what every command plays on unless told."""
