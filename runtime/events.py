"""The event log: every step of a run, in words for people and as data for programs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple


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
