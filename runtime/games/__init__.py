"""The game modules, found by the name a ruleset gives (`runtime: coma-ward`).

A name finds the module `runtime.games.<name>` (dashes as underscores) that defines `MODULE`,
or else a module another package registers under the entry point group `pillbox.games`. Only
those are ever imported: a ruleset names a game, never a Python path. An unknown name is an
error, never a fallback to another game.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
from functools import cache
from pathlib import Path

from runtime.module import GameModule

ENTRY_POINTS = "pillbox.games"
"""The entry point group under which other packages register game modules."""

GAME_NAME = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*\Z")
"""What a game's name looks like: words of letters and digits joined by dashes."""


class UnknownGame(LookupError):
    """No game module answers to the name a ruleset gives."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name

    def __str__(self) -> str:
        known = ", ".join(known_games()) or "none"
        return f"no runtime module is called {self.name!r} (the known ones: {known})"


@cache
def game_module(name: str) -> GameModule:
    """The module a ruleset names; UnknownGame if there is none."""
    found = _shipped(name) if GAME_NAME.match(name) else None
    if found is None:
        found = _registered(name)
    if found is None:
        raise UnknownGame(name)
    return found


def known_games() -> list[str]:
    """The names of every game module there is, shipped or registered."""
    folder = Path(__file__).parent
    shipped = [path.stem.replace("_", "-") for path in folder.glob("*.py")]
    names = {name for name in shipped if GAME_NAME.match(name) and _shipped(name)}
    from importlib.metadata import entry_points

    names |= {point.name for point in entry_points(group=ENTRY_POINTS)}
    return sorted(names)


def _shipped(name: str) -> GameModule | None:
    """The module of that name in this package, if it is a game module (defines MODULE)."""
    dotted = f"{__name__}.{name.replace('-', '_')}"
    if importlib.util.find_spec(dotted) is None:
        return None
    module = getattr(importlib.import_module(dotted), "MODULE", None)
    return module if isinstance(module, GameModule) else None


def _registered(name: str) -> GameModule | None:
    """A module another package registers under that name, if one does."""
    from importlib.metadata import entry_points

    for point in entry_points(group=ENTRY_POINTS, name=name):
        module = point.load()
        if isinstance(module, GameModule):
            return module
    return None
