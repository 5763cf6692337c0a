"""The games of one table, one after another: the game on the table now (played, or a record
stepped through), and how the next one is dealt.

The server always asks the session for the game now, so **New game** swaps it without the
server knowing: the new game's views are numbered on from the old one's, so a page waiting for
a view newer than the last it saw gets the new game's first. The next game is dealt from the
pack as it is then (the table follows the pack's edits: `compiler.table.run`), the game under
way keeps the cards it started with.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Protocol

from compiler.play.records import Record
from compiler.table.view import TableFacts


class AtTable(Protocol):
    """What the server asks of a game on the table: a played one, or a record."""

    facts: TableFacts
    seed: int

    @property
    def version(self) -> int:
        """The number of the view published last."""
        ...

    def view(self, seat: int | None = None) -> dict[str, Any]:
        """The view published last (of `seat`, at a shared table)."""
        ...

    def answer(self, number: int, choice: int, seat: int | None = None) -> None:
        """Answer the question asked now (NotAsked if it is not)."""
        ...

    def undo(self, seat: int | None = None) -> bool:
        """Take back the last human answer; False if there is none to take."""
        ...

    def step(self, to: int) -> bool:
        """Show the record at this move; False if this game is not a record."""
        ...

    def record(self) -> Record | None:
        """The game's record, once it is over."""
        ...

    def start(self) -> None:
        """Begin."""
        ...

    def stop(self) -> None:
        """End, at once."""
        ...


Deal = Callable[[int], "AtTable | None"]
"""Deals the next game, its views numbered from the given one; None if no game can be dealt
now (the pack does not check): the game on the table stays."""


class Session:
    """The game on the table now, and the next one dealt on request."""

    def __init__(
        self,
        game: AtTable,
        deal: Deal | None = None,
        anytime: bool = True,
        notes: Callable[[], str | None] | None = None,
    ) -> None:
        self._game = game
        self._deal = deal
        self._notes = notes
        self._anytime = anytime  # False: a new game only once this one is over
        self._lock = threading.Lock()

    @property
    def game(self) -> AtTable:
        """The game on the table now."""
        return self._game

    def note(self) -> str | None:
        """What the page is told of the pack (an edit since this game was dealt)."""
        return self._notes() if self._notes is not None else None

    @property
    def can_deal(self) -> bool:
        """Whether a new game may be asked for."""
        return self._deal is not None

    def new_game(self) -> bool:
        """Call the game now off and deal the next; False if none may be dealt now."""
        with self._lock:
            old = self._game
            if self._deal is None:
                return False
            if not self._anytime and old.view().get("status") != "over":
                return False
            new = self._deal(old.version + 1)
            if new is None:
                return False
            old.stop()
            self._game = new
            new.start()
            return True

    def stop(self) -> None:
        """Call the game now off."""
        self._game.stop()
