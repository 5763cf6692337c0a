"""The table follows the pack's edits, as `serve` does: after each batch of saved changes the
pack is checked and compiled again, and the next game (**New game**) is dealt from it; the game
under way keeps the cards it started with, which it holds whole (`TableGame.compiled`).

A version that does not check (its errors printed on the terminal, as `serve` prints them),
or whose game no longer seats the table, is not dealt from: the last version that did stays,
and the page says so. `serve`'s watcher (`compiler.serve.watch`) waits for the changes in a
thread of its own; they are checked in the thread that calls `follow_edits` (the main one, at
the command line, where a template's deadline can interrupt a check).
"""

from __future__ import annotations

import queue
import threading
from dataclasses import dataclass
from pathlib import Path

from compiler.build import CompiledPack
from compiler.errors import UsageError
from compiler.play.game import GameRequest, Table, settle
from compiler.playing import Emit, load_compiled
from compiler.render import Style, counted
from runtime.datagame import whole_game_of
from runtime.whole import NotWhole

POLL_SECONDS = 0.5
"""How often `follow_edits` looks up from waiting for changes (Ctrl-C is heard then)."""


@dataclass(frozen=True)
class Dealable:
    """A version of the pack a game can be dealt from, with its seats settled."""

    compiled: CompiledPack
    table: Table


class LivePack:
    """The version of the pack the next game is dealt from, and what the page is told of it."""

    def __init__(
        self,
        path: Path,
        ruleset: str | None,
        request: GameRequest,
        first: Dealable,
        emit: Emit,
        style: Style,
    ) -> None:
        self.path = path
        self.ruleset = ruleset
        self.request = request
        self.emit = emit
        self.style = style
        self.current = first  # replaced whole: the game's thread reads it without a lock
        self.checks = 0  # how many times the pack was checked again
        self.note: str | None = None  # what the page says of the pack's edits

    def reload(self) -> bool:
        """Check and compile the pack again after an edit; whether the next game is dealt
        from this version (if not, the last that checked stays)."""
        self.checks += 1
        at = f"[{self.checks}]"
        compiled = load_compiled(self.path, self.ruleset, self.emit, self.style)
        if compiled is None:
            self._say(
                f"{at} the pack does not check: the next game is dealt from the last version "
                "that did",
                "the pack does not check now (see the terminal): New game deals the last "
                "version that did",
            )
            return False
        try:
            whole = whole_game_of(compiled.rules, compiled.whole)
            table = settle(whole, self.request)
        except (NotWhole, UsageError) as error:
            self._say(
                f"{at} the pack no longer plays at this table ({error}): the next game is "
                "dealt from the last version that did",
                "the pack no longer plays at this table (see the terminal)",
            )
            return False
        self.current = Dealable(compiled, table)
        cards = counted(len(compiled.cards), "card")
        self._say(
            f"{at} the pack changed ({cards}): the next game is dealt from it; the game under "
            "way keeps its cards",
            f"the pack changed ({cards}): New game deals from it",
        )
        return True

    def dealt(self) -> Dealable:
        """The version to deal the next game from; the page's note of a change is done with
        once it is dealt."""
        current = self.current
        if self.note is not None and self.note.startswith("the pack changed"):
            self.note = None
        return current

    def _say(self, terminal: str, page: str) -> None:
        self.emit(terminal)
        self.note = page


def follow_edits(live: LivePack, changes: queue.Queue[int], stop: threading.Event) -> None:
    """Check the pack again after each batch of changes the watcher puts on the queue, until
    `stop` is set (or Ctrl-C)."""
    while not stop.is_set():
        try:
            changes.get(timeout=POLL_SECONDS)
        except queue.Empty:
            continue
        while not changes.empty():  # the batches that came meanwhile are one edit
            changes.get_nowait()
        live.reload()
