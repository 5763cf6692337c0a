"""Finding a pack's card files: its `sources` globs matched in one bounded walk of its folder.

`Path.glob` cannot be bounded: thirty `**/` parts try every way to spread a path over them,
and `*/` follows links to folders, round and round a link to `.`. Here a pattern is matched
part by part as a small automaton (a set of positions in the pattern for each folder), every
folder is listed at most once, links to folders are never followed (as `**` and `find` do
not), and the walk stops at a depth, a number of entries and a deadline, saying which limit
it met.
"""

from __future__ import annotations

import fnmatch
import os
import re
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

MAX_SOURCE_DEPTH = 32
"""How many folders below the pack folder the search goes."""

MAX_SOURCE_ENTRIES = 200_000
"""How many folder entries the search looks at, at most."""

SOURCES_DEADLINE = 10.0
"""Seconds the search may take."""

SOURCES_HELP = "narrow the 'sources' patterns in pack.yaml, or split the pack"

_ANY_FOLDERS = None
"""A `**` part: any number of folders, none included."""


class SourceLimit(ValueError):
    """A `sources` pattern reaches past what the search allows."""


@dataclass(frozen=True)
class SourceGlob:
    """A `sources` pattern split at `/`: a compiled name pattern per part, None for `**`."""

    pattern: str
    parts: tuple[re.Pattern[str] | None, ...]

    @classmethod
    def compile(cls, pattern: str) -> SourceGlob:
        """Split and compile a pattern as `Path.glob` reads it; raise ValueError if unusable."""
        parts: list[re.Pattern[str] | None] = []
        for part in pattern.split("/"):
            if part in ("", "."):
                continue
            if part == "**":
                if not parts or parts[-1] is not _ANY_FOLDERS:  # `**/**` is `**`
                    parts.append(_ANY_FOLDERS)
            elif "**" in part:
                raise ValueError("'**' can only be a whole part, as in '**/*.card'")
            else:
                parts.append(re.compile(fnmatch.translate(part)))
        if not parts:
            raise ValueError("it names no file")
        if sum(part is not _ANY_FOLDERS for part in parts) > MAX_SOURCE_DEPTH + 1:
            raise SourceLimit(
                f"pack.yaml: the sources pattern {pattern!r} reaches more than "
                f"{MAX_SOURCE_DEPTH} folders deep"
            )
        return cls(pattern, tuple(parts))

    def closure(self, positions: Iterable[int]) -> frozenset[int]:
        """The positions, and those after each `**` there (it may match no folder)."""
        found: set[int] = set()
        for position in positions:
            found.add(position)
            while position < len(self.parts) and self.parts[position] is _ANY_FOLDERS:
                position += 1
                found.add(position)
        return frozenset(found)

    def start(self) -> frozenset[int]:
        """The positions before any folder is entered."""
        return self.closure([0])

    def enter(self, positions: frozenset[int], name: str) -> frozenset[int]:
        """The positions inside a folder called `name`; empty when no file there can match."""
        after: list[int] = []
        for position in positions:
            if position >= len(self.parts) - 1:
                continue  # the last part names files, not folders
            part = self.parts[position]
            if part is _ANY_FOLDERS:
                after.append(position)
            elif part.match(name):
                after.append(position + 1)
        return self.closure(after)

    def accepts(self, positions: frozenset[int], name: str) -> bool:
        """Whether a file called `name`, in a folder reached at `positions`, matches."""
        last = len(self.parts) - 1
        part = self.parts[last]
        return last in positions and part is not _ANY_FOLDERS and part.match(name) is not None


@dataclass
class SourceSearch:
    """What one walk found: the files of each glob, by its index, and why it stopped short."""

    matches: list[list[Path]]
    stopped: dict[int, str] = field(default_factory=dict)
    outside: list[tuple[int, Path]] = field(default_factory=list)  # matched, but links out


@dataclass
class _Walk:
    """One walk of the pack folder, depth first, every glob's positions carried along."""

    root: Path
    globs: Sequence[SourceGlob]
    skip_marker: str
    found: SourceSearch
    deadline: float
    entries: int = 0

    def run(self) -> None:
        """List each folder some glob can still match in, until done or past a limit."""
        pending = [(self.root, 0, tuple(glob.start() for glob in self.globs))]
        while pending:
            folder, depth, positions = pending.pop()
            try:
                with os.scandir(folder) as listing:
                    for entry in listing:
                        if not self.count(positions, pending):
                            return
                        try:
                            self.visit(folder, entry, depth, positions, pending)
                        except OSError:
                            continue  # a link round in a loop, or gone: that entry alone
            except OSError:
                continue  # an unreadable folder holds nothing to read, as for Path.glob

    def count(
        self,
        positions: tuple[frozenset[int], ...],
        pending: list[tuple[Path, int, tuple[frozenset[int], ...]]],
    ) -> bool:
        """Count one entry; past a limit, stop every search still under way and say why."""
        self.entries += 1
        if self.entries > MAX_SOURCE_ENTRIES:
            reason = f"more than {MAX_SOURCE_ENTRIES:,} files and folders to look through"
        elif self.entries % 256 == 0 and time.monotonic() > self.deadline:
            reason = f"more than {SOURCES_DEADLINE:g} seconds of looking"
        else:
            return True
        for state in (positions, *(frame[2] for frame in pending)):
            for index, at in enumerate(state):
                if at:
                    self.stop(
                        index, f"the search for {self.globs[index].pattern!r} stopped: {reason}"
                    )
        return False

    def stop(self, index: int, reason: str) -> None:
        """Say why a glob's search stopped short (the first reason is kept)."""
        self.found.stopped.setdefault(index, reason)

    def visit(
        self,
        folder: Path,
        entry: os.DirEntry[str],
        depth: int,
        positions: tuple[frozenset[int], ...],
        pending: list[tuple[Path, int, tuple[frozenset[int], ...]]],
    ) -> None:
        """Keep a file that matches, or queue a folder some glob can match in."""
        name = entry.name
        if entry.is_symlink() and entry.is_dir():
            return  # never followed: it may lead out of the pack, or round to a folder above
        if entry.is_dir(follow_symlinks=False):
            inside = tuple(
                glob.enter(at, name) if at else at
                for glob, at in zip(self.globs, positions, strict=True)
            )
            if not any(inside):
                return
            path = folder / name
            if depth + 1 > MAX_SOURCE_DEPTH:
                for index, at in enumerate(inside):
                    if at:
                        self.stop(
                            index,
                            f"the search for {self.globs[index].pattern!r} stops "
                            f"{MAX_SOURCE_DEPTH} folders deep; the pack has deeper ones",
                        )
                return
            if (path / self.skip_marker).is_file():
                return  # a pack of its own
            pending.append((path, depth + 1, inside))
        elif entry.is_file():
            path = folder / name
            # Only a link can lead out: every folder walked is the pack's own.
            outside = entry.is_symlink() and self.outside(path)
            for index, (glob, at) in enumerate(zip(self.globs, positions, strict=True)):
                if at and glob.accepts(at, name):
                    if outside:
                        self.found.outside.append((index, path))
                    else:
                        self.found.matches[index].append(path)

    def outside(self, path: Path) -> bool:
        """Whether a link leads out of the pack folder."""
        return not path.resolve().is_relative_to(self.root.resolve())


def search_sources(root: Path, globs: Sequence[SourceGlob], skip_marker: str) -> SourceSearch:
    """The files below `root` that each glob matches, skipping folders holding `skip_marker`."""
    found = SourceSearch([[] for _ in globs])
    _Walk(root, globs, skip_marker, found, time.monotonic() + SOURCES_DEADLINE).run()
    return found
