"""The starter game `pillbox new FOLDER --game` writes: a whole game played from data alone.

Its ruleset (the pack's own, extending base and played by the base module) and its cards with
their tests are data files beside this module, in `starter/`, copied into the new pack under
the pack's name. They are real files: the tests check, play and simulate them as they are,
and the code here holds none of the game's words.
"""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

from compiler.yamlio import yaml_scalar

STARTER = resources.files("compiler.new").joinpath("starter")
"""The starter game's files: `ruleset.yaml` and `cards/*.card`."""

RULESET_FILE = "ruleset.yaml"
"""The new pack's own ruleset, which its pack.yaml names."""

GAME_BASE = "base"
"""The one ruleset `--game` starts from: a bundled game's ruleset is already whole."""

README = """\
# {title}

A whole game played from data alone: `ruleset.yaml` says what it is (its stats, board, tracks,
decks, the actions of a turn and how it ends) and `cards/` holds its cards, each with its tests.
It starts as pillbox's starter game: change it into yours, a section at a time.

```
pillbox check --strict . && pillbox test .
pillbox play . --game --seed 1       # one whole game, every action and roll printed
pillbox simulate . --games 1000      # how often it is won and lost, and what goes with it
```

pillbox's docs/adding-a-game.md explains each section of the ruleset.
"""


def write_starter_game(folder: Path, name: str, title: str) -> None:
    """Write the starter game's ruleset, cards and README into the pack folder, its ruleset
    named after the pack."""
    text = STARTER.joinpath(RULESET_FILE).read_text(encoding="utf-8")
    text = set_top_key(text, "ruleset", ruleset_name(name))
    text = set_top_key(text, "title", title)
    (folder / RULESET_FILE).write_text(text, encoding="utf-8")
    cards = folder / "cards"
    cards.mkdir()
    for entry in sorted(STARTER.joinpath("cards").iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".card"):
            (cards / entry.name).write_text(entry.read_text(encoding="utf-8"), encoding="utf-8")
    (folder / "README.md").write_text(README.format(title=title), encoding="utf-8")


def ruleset_name(pack: str) -> str:
    """The pack's name as its ruleset's: a ruleset's name starts with a letter, a pack's may
    start with a digit (`2025-jam` is the ruleset `game-2025-jam`)."""
    return pack if pack[:1].isalpha() else f"game-{pack}"[:64].rstrip("-")


def set_top_key(text: str, key: str, value: str) -> str:
    """A YAML file's text with its top-level `key:` line given this value."""
    line = f"{key}: {yaml_scalar(value)}"
    return re.sub(rf"(?m)^{key}: .*$", lambda _: line, text, count=1)
