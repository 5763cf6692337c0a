"""`simulate --engine dask`: the same batches of games on a dask.distributed cluster.

A sweep that outgrows one machine runs on a cluster (`--scheduler tcp://host:8786`), or, with
no scheduler named, on a LocalCluster of this machine's cores bound to 127.0.0.1. The pack's
files travel with the tasks (the cluster's machines need no copy of it, only pillbox): each
worker writes them to a folder of its own once, compiles them once, and plays batches of game
indices as the process pool does. The totals merged are the same whatever plays which batch,
so the figures equal the pool's (a test compares them). `distributed` is the optional extra
`pillbox[dask]`.
"""

from __future__ import annotations

import hashlib
import importlib
import shutil
import tempfile
from collections.abc import Mapping
from itertools import islice
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from compiler.build import compile_pack, load_checked
from compiler.errors import UsageError
from compiler.printing.art import IMAGE_SUFFIXES
from compiler.simulate.pool import IN_FLIGHT_PER_WORKER, Playing, Progress, batches, play_batch
from runtime.datagame import whole_game_of
from runtime.simulation.record import Sweep
from runtime.simulation.totals import Totals

PACK_SUFFIXES = frozenset({".yaml", ".yml", ".card", ".json", ".csv", ".xlsx", *IMAGE_SUFFIXES})
"""The files of a pack a worker checks before it plays: its rules and cards, and the images
they name (a card's art that is missing is an error of the check; templates are not read)."""

MAX_PACK_BYTES = 64 * 2**20
"""The most a pack may send to a cluster."""

KEPT_PACKS = 8
"""The most compiled packs a worker keeps."""

_COMPILED: dict[str, Playing] = {}
"""In a worker: each pack it has compiled, by the digest of its files."""


def pack_files(folder: Path) -> dict[str, bytes]:
    """The files of a pack folder a game is played from, by their path in it."""
    found: dict[str, bytes] = {}
    size = 0
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder)
        hidden = any(part.startswith(".") for part in relative.parts)
        if path.suffix.lower() not in PACK_SUFFIXES or hidden:
            continue
        if path.is_symlink() or not path.is_file():
            continue
        data = path.read_bytes()
        size += len(data)
        if size > MAX_PACK_BYTES:
            raise UsageError(f"{folder}: over {MAX_PACK_BYTES // 2**20} MB to send to the cluster")
        found[relative.as_posix()] = data
    return found


def _digest(files: Mapping[str, bytes]) -> str:
    digest = hashlib.sha256()
    for name, data in sorted(files.items()):
        digest.update(name.encode() + b"\0" + data + b"\0")
    return digest.hexdigest()


def _compiled(files: Mapping[str, bytes], digest: str, ruleset: str | None) -> Playing:
    """The pack compiled in this worker, from the files sent (once per pack)."""
    found = _COMPILED.get(digest)
    if found is not None:
        return found

    folder = Path(tempfile.mkdtemp(prefix="pillbox-pack-"))
    for name, data in files.items():
        target = (folder / name).resolve()
        if not target.is_relative_to(folder.resolve()):  # names come from pack_files
            raise ValueError(f"{name!r} is not a path inside the pack")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    try:
        loaded = load_checked(folder, ruleset)
        if loaded.pack is None:
            raise RuntimeError("the pack sent to the cluster does not check clean there")
        compiled = compile_pack(loaded.pack)
    finally:  # the game needs the compiled pack only, not its files
        shutil.rmtree(folder, ignore_errors=True)
    found = Playing(whole_game_of(compiled.rules, compiled.whole), compiled.rules, compiled.cards)
    if len(_COMPILED) >= KEPT_PACKS:  # tune sends a new pack a candidate: keep the newest
        del _COMPILED[next(iter(_COMPILED))]
    _COMPILED[digest] = found
    return found


def play_remote(
    files: Mapping[str, bytes], digest: str, ruleset: str | None, sweep: Sweep, indices: range
) -> Totals:
    """A cluster task: one batch of games of the pack sent along."""
    return play_batch(_compiled(files, digest, ruleset), sweep, indices)


def run_on_cluster(
    folder: Path,
    ruleset: str | None,
    sweep: Sweep,
    games: int,
    scheduler: str | None,
    workers: int,
    progress: Progress | None = None,
) -> Totals:
    """Play every game of the sweep on a dask cluster and add them up."""
    with Cluster(scheduler, workers) as cluster:
        return cluster.play(folder, ruleset, sweep, games, progress=progress)


class Cluster:
    """A dask cluster held open for as many sweeps as a command plays (tune's candidates,
    the stages of a balance band): the scheduler named, or a LocalCluster here."""

    def __init__(self, scheduler: str | None, workers: int) -> None:
        try:
            # distributed's functions carry no types: it is held as Any, at this one boundary
            self._distributed: Any = importlib.import_module("distributed")
        except ImportError:
            raise UsageError(
                "--engine dask needs dask.distributed: pip install 'pillbox[dask]'"
            ) from None
        if scheduler is not None:
            malformed = _malformed(scheduler)
            if malformed is not None:
                raise UsageError(
                    f"--scheduler {scheduler!r} is not an address ({malformed}): write "
                    "tcp://HOST:PORT, an IPv6 host in brackets (tcp://[::1]:8786)"
                )
        self._local: Any = None
        try:
            if scheduler is None:
                self._local = self._distributed.LocalCluster(
                    n_workers=workers,
                    threads_per_worker=1,
                    host="127.0.0.1",
                    dashboard_address=None,
                )
                self._client: Any = self._distributed.Client(self._local)
            else:
                self._client = self._distributed.Client(scheduler, timeout="30s")
        except OSError as error:
            raise UsageError(f"--scheduler {scheduler}: cannot reach it ({error})") from None

    def __enter__(self) -> Cluster:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        """Let the cluster go (and stop the LocalCluster started for it)."""
        self._client.close()
        if self._local is not None:
            self._local.close()

    def play(
        self,
        folder: Path,
        ruleset: str | None,
        sweep: Sweep,
        games: int,
        first: int = 0,
        progress: Progress | None = None,
    ) -> Totals:
        """Play the sweep's games from index `first` up to `games` of the pack in `folder`
        (sent along as it is now) and add them up."""
        files = pack_files(folder)
        digest = _digest(files)
        client = self._client
        [sent] = client.scatter([files], broadcast=True, hash=False)  # the dict as one
        size = max(1, len(client.scheduler_info()["workers"]))
        parts = batches(games, size, first)

        def submit(part: range) -> Any:
            return client.submit(play_remote, sent, digest, ruleset, sweep, part, pure=False)

        # A few batches a worker at a time, as the pool sends them: the futures held (here
        # and on the scheduler) do not grow with the sweep.
        running = self._distributed.as_completed(
            [submit(part) for part in islice(parts, IN_FLIGHT_PER_WORKER * size)]
        )
        totals = Totals()
        for future in running:
            following = next(parts, None)
            if following is not None:
                running.add(submit(following))
            totals.merge(future.result())
            if progress:
                progress(totals.games, games - first)
        return totals


def _malformed(scheduler: str) -> str | None:
    """What is wrong with a scheduler's address as written, if anything (before dask reads it:
    dask raises a ValueError of its own deep inside its client)."""
    try:
        parts = urlsplit(scheduler if "://" in scheduler else f"tcp://{scheduler}")
        parts.port  # noqa: B018 (a port that is no number, or out of range, raises here)
    except ValueError as error:
        return str(error)
    return None if parts.hostname else "no host"
