"""The event log: every step of a run, in words for people and as data for programs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

PHASE_OVER = "phase over"
"""The kind of event that closes one of a whole game's `phases` in its log: what came before it
(back to the previous one) is that phase's, for the figures of a simulation."""


class Event(NamedTuple):
    """One step: what kind of step, a sentence that explains it, and its facts (a named tuple:
    a game makes thousands, and a tuple is made three times faster than a frozen dataclass)."""

    kind: str
    text: str
    data: dict[str, Any]
    card: str | None = None  # the title of the card being resolved
    depth: int = 0  # how many cards deep in triggers and draws

    def to_json(self) -> dict[str, Any]:
        """Plain data; the same run gives the same JSON, byte for byte."""
        entry: dict[str, Any] = {"kind": self.kind, "text": self.text}
        if self.card is not None:
            entry["card"] = self.card
        if self.data:
            entry["data"] = self.data
        if self.depth:
            entry["depth"] = self.depth
        return entry


Listener = Callable[[Event], None]
"""Told of each event as it happens (`Game.listeners`), whether the log keeps it or not."""


class FigureListener:
    """Told of the few steps a simulation's figures are read from (`Game.figures`), whether
    anyone hears their events or not: by `Game.event` from an event's data, and where the
    engine makes no event of a hot step (a stat change, a draw) by the engine itself, with
    no event made (an event and its data for each was a tenth of a compiled game). Told once
    a step, in the order of the steps. This one reads nothing; a reader overrides the steps
    it counts."""

    def heard(self, kind: str, data: dict[str, Any], card: str | None) -> None:
        """An event of the game (`Game.event`) while `card` resolved: the step it tells of, if
        one counted, from its data: a stat change (the event that carries `changed`), a round,
        a card drawn (by its `title`), a death (of its `player`), a whole game's phase over."""
        if kind == "stat":
            if "changed" in data:
                changed: dict[str, int] = data["changed"]
                self.stat_changed(str(data.get("actor")), card, changed)
        elif kind == "round":
            self.round_begun(int(data["round"]) if "round" in data else None)
        elif kind == "draw":
            if "title" in data:
                self.drawn(str(data["title"]))
        elif kind == "death":
            if "player" in data:
                self.died(str(data["player"]), card)
        elif kind == PHASE_OVER:
            self.phase_over()

    def stat_changed(self, actor: str, card: str | None, changed: dict[str, int]) -> None:
        """A stat change of `actor` while `card` resolved: what it did to each stat."""

    def round_begun(self, number: int | None) -> None:
        """A round began: its number (None: the one after the last)."""

    def drawn(self, title: str) -> None:
        """A card was drawn from a deck."""

    def died(self, actor: str, card: str | None) -> None:
        """An actor died while `card` resolved."""

    def phase_over(self) -> None:
        """One of the whole game's phases is over."""


@dataclass
class EventLog:
    """The events of one run, in order."""

    events: list[Event] = field(default_factory=list)

    def add(self, event: Event) -> None:
        """Append one event."""
        self.events.append(event)

    def lines(self) -> list[str]:
        """The log as text, indented by depth."""
        return [f"{'  ' * e.depth}{e.text}" for e in self.events]

    def to_json(self) -> list[dict[str, Any]]:
        """The log as plain data."""
        return [e.to_json() for e in self.events]
