"""The game state: actors, decks and discards, places, tracks, the round, counters and flags."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from runtime.cards import CardInstance
from runtime.stats import Stats
from runtime.world import SEATED


@dataclass
class Actor:
    """A player's character, or an actor no one plays: stats, where it is, what it carries and
    owns."""

    name: str
    stats: Stats
    location: str | None = None
    kind: str = SEATED
    seat: int | None = None  # the player's seat, for the players' characters
    sheet: CardInstance | None = None  # the card this actor is (a monster card)
    keywords: frozenset[str] = frozenset()
    items: list[CardInstance] = field(default_factory=list)  # carried cards
    owned: list[CardInstance] = field(default_factory=list)  # kinds owned, not carried
    bonuses: list[tuple[str, int]] = field(default_factory=list)  # (check name, dice) until used
    turn_over: bool = False

    def __init__(
        self,
        name: str,
        stats: Stats,
        location: str | None = None,
        kind: str = SEATED,
        seat: int | None = None,
        sheet: CardInstance | None = None,
        keywords: frozenset[str] = frozenset(),
        items: list[CardInstance] | None = None,
        owned: list[CardInstance] | None = None,
        bonuses: list[tuple[str, int]] | None = None,
        turn_over: bool = False,
    ) -> None:
        # Written out for mypyc (runtime/native.py): every playout's fork makes each actor.
        self.name = name
        self.stats = stats
        self.location = location
        self.kind = kind
        self.seat = seat
        self.sheet = sheet
        self.keywords = keywords
        self.items = [] if items is None else items
        self.owned = [] if owned is None else owned
        self.bonuses = [] if bonuses is None else bonuses
        self.turn_over = turn_over

    @property
    def dead(self) -> bool:
        """Whether the character has died."""
        return self.stats.dead

    def to_json(self, stat_of: Any) -> dict[str, Any]:
        """This actor as plain data, its stats read with every modifier."""
        return {
            "name": self.name,
            "kind": self.kind,
            "stats": {name: stat_of(name, self) for name in self.stats.names()},
            "dead": self.dead,
            "location": self.location,
            "items": [card.title for card in self.items],
            "owned": [card.title for card in self.owned],
            "keywords": sorted(self.keywords),
            "tokens": {
                card.title: dict(sorted(card.tokens.items()))
                for card in [*self.items, *self.owned, *([self.sheet] if self.sheet else [])]
                if card.tokens
            },
        }


Player = Actor
"""The actor a player plays: the older name, kept for the game modules that say it."""


@dataclass
class GameState:
    """Everything that changes during a run."""

    players: list[Actor]  # the seated characters, in turn order
    current: int = 0
    others: list[Actor] = field(default_factory=list)  # actors no one plays
    tracks: dict[str, int] = field(default_factory=dict)  # the game's counters
    round: int = 0  # rounds begun; 0 before the first
    turns: int = 0  # the seated actors' turns begun, all rounds together
    phase: str | None = None  # the part of the round under way
    acting: Actor | None = None  # an actor not seated whose turn it is (a monster)
    target: Actor | None = None  # what `the target` names
    decks: dict[str, list[CardInstance]] = field(default_factory=dict)  # top card last
    discards: dict[str, list[CardInstance]] = field(default_factory=dict)
    floor: dict[str, list[CardInstance]] = field(default_factory=dict)  # items dropped, by place
    in_play: dict[str, CardInstance] = field(default_factory=dict)  # laid out, by place or role
    # Cards a game module keeps as found, in the order found: what its own goals and values
    # count. The engine only keeps the list, and takes a card out of it when the card leaves play.
    found: list[CardInstance] = field(default_factory=list)
    flags: set[str] = field(default_factory=set)
    over: str | None = None  # the game is over: how it ended ("won", "lost")
    winners: list[str] = field(default_factory=list)  # the names of the seats that won
    tallies: dict[str, int] = field(default_factory=dict)  # a game's own counts (actions taken)
    labels: dict[str, str] = field(default_factory=dict)  # a game's own notes (its difficulty)
    stopped: str | None = None  # why a game was cut short of its end ("round limit")
    rules_card: CardInstance | None = None  # the card a whole game's own rules run on
    # What a game's procedures note for the rest of a seat's turn (whom it traded with),
    # emptied as each turn of the data's starts; not part of the state a command shows.
    marks: set[str] = field(default_factory=set)
    # Whom the seat's action under way is taken on, when its data offers it for each of its
    # `targets:` (an effect reads it as `the target`)
    aim: Actor | None = None

    def __init__(
        self,
        players: list[Actor],
        current: int = 0,
        others: list[Actor] | None = None,
        tracks: dict[str, int] | None = None,
        round: int = 0,
        turns: int = 0,
        phase: str | None = None,
        acting: Actor | None = None,
        target: Actor | None = None,
        decks: dict[str, list[CardInstance]] | None = None,
        discards: dict[str, list[CardInstance]] | None = None,
        floor: dict[str, list[CardInstance]] | None = None,
        in_play: dict[str, CardInstance] | None = None,
        found: list[CardInstance] | None = None,
        flags: set[str] | None = None,
        over: str | None = None,
        winners: list[str] | None = None,
        tallies: dict[str, int] | None = None,
        labels: dict[str, str] | None = None,
        stopped: str | None = None,
        rules_card: CardInstance | None = None,
        marks: set[str] | None = None,
        aim: Actor | None = None,
    ) -> None:
        # Written out for mypyc (runtime/native.py): every playout's fork makes one.
        self.players = players
        self.current = current
        self.others = [] if others is None else others
        self.tracks = {} if tracks is None else tracks
        self.round = round
        self.turns = turns
        self.phase = phase
        self.acting = acting
        self.target = target
        self.decks = {} if decks is None else decks
        self.discards = {} if discards is None else discards
        self.floor = {} if floor is None else floor
        self.in_play = {} if in_play is None else in_play
        self.found = [] if found is None else found
        self.flags = set() if flags is None else flags
        self.over = over
        self.winners = [] if winners is None else winners
        self.tallies = {} if tallies is None else tallies
        self.labels = {} if labels is None else labels
        self.stopped = stopped
        self.rules_card = rules_card
        self.marks = set() if marks is None else marks
        self.aim = aim

    def count(self, name: str, amount: int = 1) -> None:
        """Count one more of something a game counts (a death check failed, an action taken),
        for the figures of a simulation."""
        self.tallies[name] = self.tallies.get(name, 0) + amount

    @property
    def player(self) -> Actor:
        """The player whose turn it is."""
        return self.players[self.current]

    @property
    def actors(self) -> list[Actor]:
        """Every actor: the players' characters first, then the others in the order they came."""
        return [*self.players, *self.others]

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
            "round": self.round,
            "phase": self.phase,
            "tracks": dict(sorted(self.tracks.items())),
            "actors": [actor.to_json(stat_of) for actor in self.actors],
            "target": self.target.name if self.target else None,
            "over": self.over,
            "winners": list(self.winners),
        }


def seat_index(players: list[Player], player: Player) -> int:
    """Where this very player is in the list: by identity, not `list.index`, which asks the
    dataclass's field-by-field `==` of every player before it."""
    for index, other in enumerate(players):
        if other is player:
            return index
    raise ValueError(f"{player.name} is not among the players")
