"""The world of a game as plain data: kinds of actor, the board, tracks and the shape of a round.

The compiler builds these from a ruleset's `actors:`, `places:`/`paths:`, `tracks:` and
`turns:` sections; the runtime reads them and knows no game by name. A game with none of those
sections still has one actor kind (the players' characters, whose stat block is `stats:`), a
board of places none of which is next to another, no tracks and a round of the players' turns.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from runtime.stats import DerivedRule, StatRule

SEATED = "character"
"""The actor kind of the players' characters when a ruleset names none."""


@dataclass(frozen=True)
class ActorKind:
    """A kind of actor (the players' characters, a monster) and its own stat block."""

    name: str
    stats: tuple[StatRule, ...]
    derived: tuple[DerivedRule, ...] = ()
    seated: bool = False  # the players' characters: one per seat, taking the players' turns
    sheet: str | None = None  # the card kind whose cards are actors of this kind (a monster card)
    starts: Mapping[str, str] = field(default_factory=dict)  # stat -> the sheet's property
    maxima: Mapping[str, str] = field(default_factory=dict)  # stat -> property of its max
    keywords: frozenset[str] = frozenset()  # words an actor of this kind may carry (ethereal)


@dataclass(frozen=True)
class Lift:
    """A link joining each of its places to every other at one move, each attempt rolling a die
    that wastes the move on its failing faces."""

    name: str
    places: tuple[str, ...]
    sides: int = 6
    fails: frozenset[int] = frozenset()


@dataclass(frozen=True)
class Board:
    """Places and which are next to which (both ways); distances count moves between them.

    A slot is a place that is not there until it is first entered: the top card of its deck is
    laid on it then, and entering it ends the move. Lifts join places too, at a die's mercy; the
    distances below count walking only."""

    places: tuple[str, ...]
    adjacent: Mapping[str, frozenset[str]] = field(default_factory=dict)
    levels: Mapping[str, str] = field(default_factory=dict)  # place -> its level (a floor)
    areas: Mapping[str, str] = field(default_factory=dict)  # space -> the place it is part of
    slots: Mapping[str, str] = field(default_factory=dict)  # slot -> the deck laid on it
    lifts: tuple[Lift, ...] = ()
    # A board never changes: each place's distances are walked once, when first asked for,
    # and so are its rings (below).
    _walked: dict[str, Mapping[str, int]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    _bits: dict[str, int] = field(default_factory=dict, init=False, repr=False, compare=False)
    _rings: dict[str, tuple[int, ...]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def lifts_at(self, place: str) -> tuple[Lift, ...]:
        """The lifts that stop at a place."""
        return tuple(lift for lift in self.lifts if place in lift.places)

    def is_in(self, place: str, area: str) -> bool:
        """Whether a place is the area or one of its spaces."""
        return place == area or self.areas.get(place) == area

    def neighbours(self, place: str) -> frozenset[str]:
        """The places one move away."""
        return self.adjacent.get(place, frozenset())

    def distance(self, start: str, end: str) -> int | None:
        """The fewest moves from one place to another, or None if no path joins them."""
        return self.distances(start).get(end)

    def distances(self, start: str) -> Mapping[str, int]:
        """Every place reachable from `start`, with the fewest moves to reach it."""
        walked = self._walked.get(start)
        if walked is None:
            walked = self._walked[start] = self._walk(start)
        return walked

    def reach(self, start: str, targets: frozenset[str]) -> int | None:
        """The fewest moves from `start` to the nearest of `targets`, or None if none can be
        walked to."""
        return self.reach_mask(start, self.mask(targets))

    def mask(self, places: Iterable[str]) -> int:
        """A set of places as one number, a bit each, for `reach_mask`: a default move asks
        how near each step is to the same goals, and numbers hash and compare at once where
        sets of names do not."""
        mask = 0
        for place in places:
            mask |= self._bit(place)
        return mask

    def _bit(self, place: str) -> int:
        bit = self._bits.get(place)
        if bit is None:  # given out as first asked for: the board's places, and any other
            bit = self._bits[place] = 1 << len(self._bits)
        return bit

    def reach_mask(self, start: str, targets: int) -> int | None:
        """`reach` with the targets a `mask`: the first of the start's rings (the places at
        each distance) that holds one."""
        rings = self._rings.get(start)
        if rings is None:
            rings = self._rings[start] = self._rings_of(start)
        for distance, ring in enumerate(rings):
            if ring & targets:
                return distance
        return None

    def _rings_of(self, start: str) -> tuple[int, ...]:
        rings: list[int] = []
        for place, distance in self.distances(start).items():
            while len(rings) <= distance:
                rings.append(0)
            rings[distance] |= self._bit(place)
        return tuple(rings)

    def _walk(self, start: str) -> dict[str, int]:
        found = {start: 0}
        queue = deque([start])
        while queue:
            place = queue.popleft()
            for near in sorted(self.neighbours(place)):
                if near not in found:
                    found[near] = found[place] + 1
                    queue.append(near)
        return found

    def within(self, start: str, moves: int) -> list[str]:
        """The places at most `moves` moves away, nearest first (ties in board order)."""
        order = {place: index for index, place in enumerate(self.places)}
        near = [(d, order.get(p, 0), p) for p, d in self.distances(start).items() if d <= moves]
        return [place for _, _, place in sorted(near)]


@dataclass(frozen=True)
class TrackRule:
    """A counter that is not an actor's stat: the game's own (a track on the board) or a token
    kind on each card (durability, charges, cooldown)."""

    name: str
    low: int
    high: int
    start: int
    on: str = "game"  # "game": one counter; "card": one per card in play
    at_max: str | None = None  # the trigger fired when it reaches its maximum
    at_min: str | None = None  # the trigger fired when it reaches its minimum
    past_max: str | None = None  # the trigger fired when it is pushed past its maximum
    each_turn: int = 0  # on a card: added at the start of its owner's turn (-1: a cooldown)
    blocks_use: bool = False  # on a card: while any is on it, the card cannot be used


@dataclass(frozen=True)
class Phase:
    """One part of a round: each actor of a kind takes a turn, or the module's steps run."""

    name: str
    actors: str | None = None  # the actor kind each of whom takes a turn, in order
    steps: tuple[str, ...] = ()  # the module's steps, in order (a monsters' turn in seven)
    trigger: str | None = None  # fired on the cards of an actor whose turn starts
    actions: str | None = None  # the stat set back to its start when an actor's turn starts
    rotates: bool = False  # each round the next of its actors goes first (a token passed on)


@dataclass(frozen=True)
class Turns:
    """The shape of a round, and the trigger that starts it."""

    phases: tuple[Phase, ...] = (Phase("players", actors=SEATED),)
    round_trigger: str | None = None
    last_round: int | None = None  # a game that ends after so many rounds


@dataclass(frozen=True)
class World:
    """Everything the runtime knows about a game besides its cards, decks and checks."""

    actors: Mapping[str, ActorKind]
    board: Board
    tracks: Mapping[str, TrackRule] = field(default_factory=dict)
    turns: Turns = field(default_factory=Turns)

    @property
    def seated(self) -> ActorKind:
        """The kind of the players' characters."""
        return next(kind for kind in self.actors.values() if kind.seated)

    def sheet_kind(self, card_kind: str) -> ActorKind | None:
        """The actor kind a card of this kind is the sheet of, if any."""
        return next((a for a in self.actors.values() if a.sheet == card_kind), None)


def subject_phrases(kinds: Mapping[str, ActorKind]) -> tuple[str, ...]:
    """The subjects a verb may name: `you`, `the target`, `each monster here`..."""
    phrases = ["you", "the target"]
    for kind in kinds:
        phrases += [f"each {kind} here", f"each other {kind} here", f"each {kind}"]
    return tuple(phrases)
