"""A game read into the figures of its record as it is played: the part of a sweep's record
that `make compiled` compiles (hundreds of steps a game, read in a worker between games, cost as
much as a fifth of a compiled game interpreted).

The reader is the game's `FigureListener`: the game tells it of each step it counts (a stat
change, a round, a draw, a death, a phase's end), with no event made where no one hears it, and
it counts the step there and then; nothing of the game is kept to be read after it. Only plain
data comes out (counts, lists, a card's tally), which `runtime.simulation.record` puts in the
game's record; the record, the sweep and the totals a worker pickles for a parent that may run
the pure runtime stay interpreted, but for the loops that add a record to the totals (over its
rounds and its cards: `add_rounds`, `add_cards`, `count_each`), which take and give plain data.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

from runtime.events import FigureListener
from runtime.game import Game

K = TypeVar("K")
C = TypeVar("C", bound="CardCounts")

OUTSIDE_CARDS = "(no card)"
"""The card of a change or a death that happened while no card resolved (a fight, a rule)."""


@dataclass
class CardTally:
    """What one card did in one game: times drawn, stat changes while it resolved, deaths."""

    drawn: int = 0
    changes: dict[str, int] = field(default_factory=dict)
    deaths: int = 0

    def __init__(
        self, drawn: int = 0, changes: dict[str, int] | None = None, deaths: int = 0
    ) -> None:
        # Written out for mypyc (runtime/native.py): a game makes dozens.
        self.drawn = drawn
        self.changes = {} if changes is None else changes
        self.deaths = deaths


class LogReader(FigureListener):
    """A game's figure listener (`Game.figures`), made as the game's play begins: counts what
    its seats' stats do, its rounds and turns per phase, its deaths and its cards' doings as
    they happen; `finish` closes the figures once the game is over."""

    def __init__(self, game: Game, phases: Sequence[str]) -> None:
        self.game = game
        self.phases = list(phases)  # the game's phases in order, the last its end
        self.part = 0  # the index of the phase under way
        self.round = 0  # the round under way (0: none yet)
        self.turns_at: list[int] = []  # the seated turns begun when each phase was over
        self.rounds: dict[str, int] = {}  # phase -> rounds played in it
        self.turns: dict[str, int] = {}  # phase -> seated turns in it
        self.death_rounds: list[int] = []  # the round of each death
        # stat -> the sum of the living seats' values at the end of each round (round 1 first)
        self.stat_sums: dict[str, list[int]] = {}
        self.seated: list[int] = []  # the living seats at the end of each round
        # stat -> the living seats' values at the end of the last round (none: no round ended)
        self.stat_ends: dict[str, list[int]] = {}
        self.cards: dict[str, CardTally] = {}
        # Each seat's stats as the changes told say, from their values now: only a stat the
        # seat starts with is followed, and a round's end shows these, the same all game long.
        self.values = {p.name: dict(p.stats.values) for p in game.state.players}
        self.living = set(self.values)  # the seats not dead yet
        self.shown = sorted({stat for stats in self.values.values() for stat in stats})
        self.rows = list(self.values.values())  # the living seats' values, in seat order
        self.sums: list[list[int]] = []  # each shown stat's sums at round ends, in its order

    def stat_changed(self, actor: str, card: str | None, changed: dict[str, int]) -> None:
        """Follow a seat's stats, and tally the change to the card."""
        values = self.values.get(actor)
        changes = self._tally(card).changes
        for stat, delta in changed.items():
            if values is not None and stat in values:
                values[stat] += delta
            changes[stat] = changes.get(stat, 0) + delta

    def round_begun(self, number: int | None) -> None:
        """Close the round before (its stats), count the new one in its phase."""
        if self.round:
            self._round_over()
        self.round = self.round + 1 if number is None else number
        phase = self.phases[min(self.part, len(self.phases) - 1)]
        self.rounds[phase] = self.rounds.get(phase, 0) + 1

    def drawn(self, title: str) -> None:
        """Tally the card drawn."""
        self._tally(title).drawn += 1

    def died(self, actor: str, card: str | None) -> None:
        """A seat's death, in its round and to the card's tally (an actor no seat plays, a
        monster killed, is no loss)."""
        if actor not in self.values:
            return
        self.death_rounds.append(self.round)
        self._tally(card).deaths += 1
        self.living.discard(actor)
        self.rows = [stats for name, stats in self.values.items() if name in self.living]

    def phase_over(self) -> None:
        """The next events are the next phase's; note the seated turns begun so far."""
        self.part += 1
        self.turns_at.append(self.game.state.turns)

    def finish(self) -> None:
        """Close the figures of a game played to its end: the last round's stats, and the
        seated turns of each phase."""
        if self.round:
            self._round_over()
            self.stat_ends = {stat: [stats[stat] for stats in self.rows] for stat in self.shown}
        self._read_turns(self.game.state.turns)

    def _round_over(self) -> None:
        """Note each shown stat's sum over the living seats at a round's end, and how many
        they are (sums, not each seat's value: a list a stat a round was a tenth of what a
        record cost, made, collected and added up)."""
        sums = self.sums
        if not sums:  # the first round's end: the lists of the figures, in the stats' order
            for stat in self.shown:
                sums.append(self.stat_sums.setdefault(stat, []))
        rows = self.rows
        for index, stat in enumerate(self.shown):
            total = 0
            for stats in rows:
                total += stats[stat]
            sums[index].append(total)
        self.seated.append(len(rows))

    def _read_turns(self, turns: int) -> None:
        """The seated turns of each phase: those begun before it was over, less the earlier
        phases'; the phase under way when the game stopped has the rest (a phase with none has
        no entry)."""
        begun = 0
        phases = self.phases
        for part, total in enumerate([*self.turns_at, turns]):
            phase = phases[min(part, len(phases) - 1)]
            if total > begun:
                self.turns[phase] = self.turns.get(phase, 0) + total - begun
            begun = total

    def _tally(self, card: str | None) -> CardTally:
        """The card's tally, made at its first doing."""
        title = card or OUTSIDE_CARDS
        tally = self.cards.get(title)
        if tally is None:
            tally = self.cards[title] = CardTally()
        return tally


def add_rounds(by_round: dict[int, list[int]], sums: list[int], seated: list[int]) -> None:
    """Add one game's sums of a stat at each round's end, and the living seats they are of, to
    a sweep's (round -> [sum, seats]): here, compiled, not in the totals a worker pickles (a
    loop over every round of every stat, per game)."""
    for index, total in enumerate(sums):
        pair = by_round.get(index + 1)
        if pair is None:
            pair = by_round[index + 1] = [0, 0]
        pair[0] += total
        pair[1] += seated[index]


def count_each(counts: dict[K, int], values: Iterable[K]) -> None:
    """Count each value once more: Counter.update's own count, without its check of whether
    it was given a mapping (an abc isinstance, dearer than the count, per game of a sweep)."""
    for value in values:
        counts[value] = counts.get(value, 0) + 1


class CardCounts(Protocol):
    """What a sweep counts of a card (`runtime.simulation.totals.CardTotals`)."""

    drawn: int
    games: int  # games it was drawn in
    deaths: int

    @property
    def changes(self) -> dict[str, int]:
        """Stat -> summed change."""


def add_cards(cards: dict[str, C], tallies: dict[str, CardTally], new: Callable[[], C]) -> None:
    """Add one game's card tallies to a sweep's counts of each card (made by `new` at a
    card's first doing): here, compiled, a loop over some fifty cards a game."""
    for title, tally in tallies.items():
        card = cards.get(title)
        if card is None:
            card = cards[title] = new()
        card.drawn += tally.drawn
        if tally.drawn > 0:
            card.games += 1
        changes = card.changes
        for stat, amount in tally.changes.items():
            changes[stat] = changes.get(stat, 0) + amount
        card.deaths += tally.deaths
