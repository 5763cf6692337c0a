"""The game state: players, decks and discards, places, counters and flags."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from runtime.cards import CardInstance
from runtime.stats import Stats


@dataclass
class Player:
    """One character: stats, where they are, what they carry and own."""

    name: str
    stats: Stats
    location: str | None = None
    items: list[CardInstance] = field(default_factory=list)  # carried cards
    owned: list[CardInstance] = field(default_factory=list)  # quirks, neuroses: not carried
    bonuses: list[tuple[str, int]] = field(default_factory=list)  # (check name, dice) until used
    turn_over: bool = False

    @property
    def dead(self) -> bool:
        """Whether the character has died."""
        return self.stats.dead


@dataclass
class GameState:
    """Everything that changes during a run."""

    players: list[Player]
    current: int = 0
    decks: dict[str, list[CardInstance]] = field(default_factory=dict)  # top card last
    discards: dict[str, list[CardInstance]] = field(default_factory=dict)
    floor: dict[str, list[CardInstance]] = field(default_factory=dict)  # items dropped, by place
    in_play: dict[str, CardInstance] = field(default_factory=dict)  # rooms, phenomenon...
    found: list[CardInstance] = field(default_factory=list)  # clues, in the order found
    flags: set[str] = field(default_factory=set)

    @property
    def player(self) -> Player:
        """The player whose turn it is."""
        return self.players[self.current]

    def to_json(self, stat_names: list[str], stat_of: Any) -> dict[str, Any]:
        """The current player's view and the shared state, as plain data."""
        player = self.player
        return {
            "stats": {name: stat_of(name) for name in stat_names},
            "dead": player.dead,
            "location": player.location,
            "items": [card.title for card in player.items],
            "owned": [card.title for card in player.owned],
            "bonuses": [{"check": name, "dice": dice} for name, dice in player.bonuses],
            "tokens": {
                card.title: dict(sorted(card.tokens.items()))
                for card in [*player.items, *player.owned, *self.in_play.values()]
                if card.tokens
            },
            "found": [card.title for card in self.found],
            "floor": {
                place: [card.title for card in cards]
                for place, cards in sorted(self.floor.items())
                if cards
            },
            "in_play": {place: card.title for place, card in sorted(self.in_play.items())},
            "flags": sorted(self.flags),
            "decks": {name: len(cards) for name, cards in sorted(self.decks.items())},
            "discards": {
                name: [card.title for card in cards]
                for name, cards in sorted(self.discards.items())
                if cards
            },
            "turn_over": player.turn_over,
        }
