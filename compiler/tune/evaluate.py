"""A candidate played: its edits made in a scratch copy of the pack, checked, compiled, swept.

Every candidate is played on the same seeds (common random numbers): game i of every sweep has
the same seed, so two candidates differ by what their edits change, not by luck, and a small
sweep already ranks them. A candidate whose edit the checker refuses (a number out of its
bounds, a check that no longer covers every outcome) is kept with the reason, never played.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from compiler.bands import Reading, Target, distance, read
from compiler.build import CompiledPack, compile_pack, load_checked
from compiler.kept import keep_in_this_process, keeping
from compiler.playing import with_runtime_problems
from compiler.simulate.command import SimulateRequest, make_sweep
from compiler.simulate.engine import POOL, Engine
from compiler.simulate.pool import Playing, run_sweep
from compiler.tune.knobs import Edit, edited
from runtime.datagame import whole_game_of
from runtime.simulation.figures import figures
from runtime.simulation.totals import Totals
from runtime.testing import run_test

FRESH_SEED = 1_000_003
"""What a confirming sweep's seed adds to the search's: games none of the search's were."""


RULESET_SUFFIXES = (".yaml", ".yml")
"""The files of a pack besides its cards that may hold knobs: its own ruleset files."""

POOLED_GAMES = 200
"""A sweep of fewer games is played in this process, whatever --workers says."""


@dataclass(frozen=True)
class Trial:
    """A candidate's sweep: each target's reading, or why it could not be played."""

    edits: tuple[Edit, ...]
    games: int
    readings: tuple[Reading, ...] = ()
    problem: str = ""

    @property
    def playable(self) -> bool:
        """Whether the pack checked with these edits."""
        return not self.problem

    @property
    def distance(self) -> float:
        """How far from every band (infinite when it could not be played)."""
        return distance(self.readings) if self.playable else float("inf")

    @property
    def met(self) -> bool:
        """Whether every target is met."""
        return self.playable and all(reading.met for reading in self.readings)


EditsKey = tuple[tuple[str, int, int, int], ...]
"""A candidate's edits in a canonical order: file, line, column, value."""


def key(edits: Sequence[Edit]) -> EditsKey:
    """The same edits in any order are one candidate."""
    return tuple(
        sorted((e.knob.file, e.knob.span.line, e.knob.span.column, e.value) for e in edits)
    )


@dataclass
class Lab:
    """A scratch copy of the pack where candidates are made and played."""

    pack: Path
    ruleset: str | None
    targets: Sequence[Target]
    request: SimulateRequest
    engine: Engine = POOL  # where the candidates' games are played
    texts: dict[str, str] = field(default_factory=dict)
    trials: int = 0
    games_played: int = 0
    _folder: Path | None = None
    _compiled: dict[EditsKey, CompiledPack | str] = field(default_factory=dict)
    _results: dict[tuple[EditsKey, int], Trial] = field(default_factory=dict)
    _swept: dict[tuple[EditsKey, int], tuple[int, Totals]] = field(default_factory=dict)
    _clock: int = 0  # the last modification time given a ruleset file, in nanoseconds
    _was_keeping: bool = False

    def __enter__(self) -> Lab:
        # Each candidate differs from the pack in one file: the others' checks and generated
        # modules are kept from the first compile, not made again for every candidate.
        self._was_keeping = keeping()
        keep_in_this_process()
        scratch = Path(tempfile.mkdtemp(prefix="pillbox-tune-"))
        self._folder = scratch / self.pack.name
        shutil.copytree(self.pack, self._folder, symlinks=True)
        self.texts = {
            path.relative_to(self._folder).as_posix(): path.read_text(encoding="utf-8")
            for path in sorted(self._folder.rglob("*"))
            if path.is_file()
            and not path.is_symlink()
            and (path.suffix == ".card" or path.name.endswith(RULESET_SUFFIXES))
            and path.name != "pack.yaml"
        }
        return self

    def __exit__(self, *_: object) -> None:
        if not self._was_keeping:
            keep_in_this_process(False)
        if self._folder is not None:
            shutil.rmtree(self._folder.parent, ignore_errors=True)

    @property
    def folder(self) -> Path:
        """The scratch copy."""
        assert self._folder is not None, "a Lab is used in a with block"
        return self._folder

    def trial(self, edits: Sequence[Edit], games: int, fresh: bool = False) -> Trial:
        """The candidate played on the sweep's first `games` seeds (remembered); `fresh`: on
        as many games of another seed, which the search never chose by."""
        remembered = (key(edits), games if not fresh else -games)
        cached = self._results.get(remembered)
        if cached is not None:
            return cached
        compiled = self.compiled(edits)
        if isinstance(compiled, str):
            result = Trial(tuple(edits), games, problem=compiled)
        else:
            # A worker that compiles the pack itself (the compiled runtime's) reads the folder.
            self._write(edits)
            seed = self.request.seed + FRESH_SEED if fresh else self.request.seed
            result = Trial(tuple(edits), games, self._play(compiled, key(edits), games, seed))
        self._results[remembered] = result
        self.trials += 1
        return result

    def compiled(self, edits: Sequence[Edit]) -> CompiledPack | str:
        """The pack with these edits, compiled; or the first error that stops it."""
        found = self._compiled.get(key(edits))
        if found is not None:
            return found
        self._write(edits)
        loaded = with_runtime_problems(load_checked(self.folder, self.ruleset))
        result: CompiledPack | str
        if loaded.pack is None:
            first = next((d for d in loaded.diagnostics if d.severity == "error"), None)
            result = f"{first.code}: {first.message}" if first else "the pack does not check"
        else:
            result = compile_pack(loaded.pack)
        self._compiled[key(edits)] = result
        return result

    def test_failures(self, edits: Sequence[Edit]) -> list[str]:
        """The pack's card tests that fail with these edits, by card and test name."""
        compiled = self.compiled(edits)
        if isinstance(compiled, str):
            return [compiled]
        return [
            f'{card.title}: "{test.name}": {result.failure}'
            for card in compiled.cards
            for test in card.tests
            if (result := run_test(compiled.new_game, card, test)).failure
        ]

    def _write(self, edits: Sequence[Edit]) -> None:
        changed = edited(self.texts, edits)
        for file, text in self.texts.items():
            path = self.folder / file
            wanted = changed.get(file, text)
            if path.read_text(encoding="utf-8") != wanted:
                path.write_text(wanted, encoding="utf-8")
                if file.endswith(RULESET_SUFFIXES):
                    self._touched(path)

    def _touched(self, path: Path) -> None:
        """Give a rewritten ruleset file a modification time of its own: a loaded ruleset is
        known again by its file's time and size, an edit of one digit keeps the size, and a
        file system whose clock is coarse (a second, on some) could keep the time too."""
        self._clock = max(self._clock + 1, time.time_ns())
        os.utime(path, ns=(self._clock, self._clock))

    def seconds_a_game(self, policy: str, games: int) -> float:
        """How long a game of the pack as written takes under this policy, in this process
        (its seats all playing it), over `games` games of the sweep's seed."""
        compiled = self.compiled(())
        assert not isinstance(compiled, str), "the pack as written checks"
        whole = whole_game_of(compiled.rules, compiled.whole)
        request = dataclasses.replace(self.request, policy=policy, seats=None)
        sweep = make_sweep(whole, request)
        playing = Playing(whole, compiled.rules, compiled.cards)
        started = time.perf_counter()
        run_sweep(playing, (self.folder, self.ruleset), sweep, games, 1)
        return (time.perf_counter() - started) / games

    def _play(
        self, compiled: CompiledPack, edits: EditsKey, games: int, seed: int
    ) -> tuple[Reading, ...]:
        whole = whole_game_of(compiled.rules, compiled.whole)
        sweep = dataclasses.replace(make_sweep(whole, self.request), seed=seed)
        playing = Playing(whole, compiled.rules, compiled.cards)
        # A candidate played on more games adds only those it lacks (game i is the same game).
        played, totals = self._swept.get((edits, seed), (0, Totals()))
        if played > games:  # fewer games than played already: those alone, kept apart
            played, totals = 0, Totals()
        more = games - played
        # A short sweep is played here: starting a pool of workers costs more than it saves.
        workers = (self.request.workers or 1) if more >= POOLED_GAMES else 1
        source = (self.folder, self.ruleset)
        totals.merge(self.engine.play(playing, source, sweep, games, workers, first=played))
        if games >= self._swept.get((edits, seed), (0, None))[0]:
            self._swept[(edits, seed)] = (games, totals)
        self.games_played += more
        summary = figures(sweep, totals)
        breakdown = compiled.whole.breakdown if compiled.whole is not None else None
        return tuple(read(target, summary, breakdown) for target in self.targets)
