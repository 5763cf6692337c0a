"""A game's log read into the figures of its record as the game is played: the part of a sweep's
record that `make compiled` compiles (hundreds of events a game, read in a worker between games,
cost as much as a fifth of a compiled game interpreted).

Only plain data comes out (counts, lists, a card's tally), which `runtime.simulation.record`
puts in the game's record; the record, the sweep and the totals a worker pickles for a parent
that may run the pure runtime stay interpreted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from runtime.events import Event
from runtime.game import Game
from runtime.whole import PHASE_OVER

OUTSIDE_CARDS = "(no card)"
"""The card of a change or a death that happened while no card resolved (a fight, a rule)."""

READ = frozenset({"round", "stat", "draw", "death", PHASE_OVER})
"""The kinds of events a game's record is read from (`LogReader`): the game makes no others.
Turns are counted by the state (`GameState.turns`), not from their events: a game makes two
events a turn, more than of all these kinds together."""


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


class LogReader:
    """A game's listener: keeps the events of the kinds a record reads (`READ`) as they happen,
    with the seated turns begun when each phase was over; `read` reads them into figures."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.events: list[Event] = []
        self.turns_at: list[int] = []  # the seated turns begun when each phase was over
        self.rounds: dict[str, int] = {}  # phase -> rounds played in it
        self.turns: dict[str, int] = {}  # phase -> seated turns in it
        self.death_rounds: list[int] = []  # the round of each death
        # stat -> the values of the living seats at the end of each round (round 1 first)
        self.stat_rounds: dict[str, list[list[int]]] = {}
        self.cards: dict[str, CardTally] = {}

    def __call__(self, event: Event) -> None:
        """Keep one event (the game tells only the kinds of `READ`)."""
        self.events.append(event)
        if event.kind == PHASE_OVER:
            self.turns_at.append(self.game.state.turns)

    def read(self, phases: Sequence[str], starts: dict[str, dict[str, int]]) -> None:
        """Rounds and turns per phase, deaths and their rounds, stats per round, cards' doings,
        from the events kept and the seats' stats at the start."""
        self._read_log(phases, starts)
        self._read_turns(phases, self.game.state.turns)

    def _read_log(self, phases: Sequence[str], starts: dict[str, dict[str, int]]) -> None:
        values = {name: dict(stats) for name, stats in starts.items()}
        living = set(values)
        # The stats a round's end shows, in order: the seats' own, the same all game long (a
        # change is counted only for a stat the seat started with).
        shown = sorted({stat for stats in values.values() for stat in stats})
        rows = list(values.values())  # the living seats' values, in seat order
        ends: list[list[list[int]]] = []  # for each shown stat, its values at each round's end
        part = 0  # the index of the phase the events belong to
        this_round = 0
        for event in self.events:  # the kinds by how often they come
            kind, data = event.kind, event.data
            if kind == "stat":
                if "changed" not in data:
                    continue
                actor = values.get(str(data.get("actor")))
                changes = self._tally(event.card).changes
                changed: dict[str, int] = data["changed"]
                for stat, delta in changed.items():
                    if actor is not None and stat in actor:
                        actor[stat] += delta
                    changes[stat] = changes.get(stat, 0) + delta
            elif kind == "round":
                if this_round:
                    self._round_over(shown, rows, ends)
                this_round = int(data.get("round", this_round + 1))
                phase = phases[min(part, len(phases) - 1)]
                self.rounds[phase] = self.rounds.get(phase, 0) + 1
            elif kind == "draw":
                if "title" in data:
                    self._tally(str(data["title"])).drawn += 1
            elif kind == "death":
                died = str(data.get("player"))
                if died not in values:  # an actor no seat plays (a monster killed) is no loss
                    continue
                self.death_rounds.append(this_round)
                self._tally(event.card).deaths += 1
                living.discard(died)
                rows = [stats for name, stats in values.items() if name in living]
            elif kind == PHASE_OVER:
                part += 1
        if this_round:
            self._round_over(shown, rows, ends)

    def _round_over(
        self, shown: list[str], rows: list[dict[str, int]], ends: list[list[list[int]]]
    ) -> None:
        """Note each shown stat's values of the living seats at a round's end."""
        if not ends:  # the first round's end: the lists of the figures, in the stats' order
            for stat in shown:
                ends.append(self.stat_rounds.setdefault(stat, []))
        for index, stat in enumerate(shown):
            ends[index].append([stats[stat] for stats in rows])

    def _read_turns(self, phases: Sequence[str], turns: int) -> None:
        """The seated turns of each phase: those begun before it was over, less the earlier
        phases'; the phase under way when the game stopped has the rest (a phase with none has
        no entry)."""
        begun = 0
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
