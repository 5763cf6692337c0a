"""One simulated game, played whole and read into a small record of plain data.

A record is a few hundred numbers, never the game or its log; a worker adds records up into
totals (`runtime.simulation.totals`) and sends those back. Everything in it is read from the
game's `Outcome` and from the steps the engine tells a game's figure listener of (a stat change,
a round, a draw, a death, the end of a whole game's phase; counted by
`runtime.simulation.reading`, which `make compiled` compiles), so it counts any game the engine
plays, in the game's own words.
"""

from __future__ import annotations

import traceback
from collections.abc import Sequence
from dataclasses import dataclass, field

from runtime.cards import CardDef
from runtime.policies import policy_named, seat_policies
from runtime.rules import GameRules
from runtime.simulation.reading import CardTally, LogReader
from runtime.whole import Outcome, WholeGame, game_seed


@dataclass(frozen=True)
class Sweep:
    """What every game of a sweep shares: how many seats, their policies, the phase to reach."""

    seed: int
    players: int
    policies: tuple[str, ...]  # one per seat
    until: str
    phases: tuple[str, ...] = ()  # the game's phases in order, the last its end


@dataclass
class GameRecord:
    """The figures of one game of a sweep: its index and seed, so it can be replayed."""

    index: int
    seed: int
    result: str | None = None
    winners: tuple[int, ...] = ()  # seat indices
    labels: dict[str, str] = field(default_factory=dict)
    tallies: dict[str, int] = field(default_factory=dict)
    stopped: str | None = None
    rounds: dict[str, int] = field(default_factory=dict)  # phase -> rounds played in it
    turns: dict[str, int] = field(default_factory=dict)  # phase -> seated turns in it
    death_rounds: list[int] = field(default_factory=list)  # the round of each death
    # stat -> the sum of the living seats' values at the end of each round (round 1 first)
    stat_sums: dict[str, list[int]] = field(default_factory=dict)
    seated: list[int] = field(default_factory=list)  # the living seats at each round's end
    # stat -> the living seats' values at the end of the last round
    stat_ends: dict[str, list[int]] = field(default_factory=dict)
    cards: dict[str, CardTally] = field(default_factory=dict)
    error: str | None = None  # what the runtime raised, when the game could not be played
    error_at: tuple[str, int, int] | None = None  # the card file, line and column it raised at


def play_game(
    whole: WholeGame, rules: GameRules, cards: Sequence[CardDef], sweep: Sweep, index: int
) -> GameRecord:
    """Play game `index` of the sweep to the end of its phase and read its record; a game
    the runtime fails on gives a record with the error, never an exception."""
    seed = game_seed(sweep.seed, index)
    record = GameRecord(index, seed)
    try:
        game = whole.new_game(rules, cards, sweep.players, seed)
        # No event is made nor kept: the reader is told of the steps it counts as they come.
        game.logging = False
        seat_policies(game, [policy_named(name) for name in sweep.policies])
        reader = game.figures = LogReader(game, whole.phases)
        whole.play(game, sweep.until)
        outcome = whole.outcome(game)
    except Exception as error:  # any failure of the runtime or a card is this game's
        record.error = f"{type(error).__name__}: {error}"
        record.error_at = _card_frame(error, {card.file for card in cards})
        return record
    read_game(record, outcome, reader)
    return record


def read_game(record: GameRecord, outcome: Outcome, reader: LogReader) -> None:
    """Fill a record in from a game played to its end: its outcome, and what its reader
    counted while it was played."""
    seats = [p.name for p in reader.game.state.players]
    record.result = outcome.result
    record.winners = tuple(seats.index(name) for name in outcome.winners if name in seats)
    record.labels = dict(outcome.labels)
    record.tallies = dict(outcome.tallies)
    record.stopped = outcome.stopped
    reader.finish()
    record.rounds, record.turns = reader.rounds, reader.turns
    record.death_rounds = reader.death_rounds
    record.stat_sums, record.seated, record.stat_ends = (
        reader.stat_sums,
        reader.seated,
        reader.stat_ends,
    )
    record.cards = reader.cards


def _card_frame(error: BaseException, files: set[str]) -> tuple[str, int, int] | None:
    """The innermost line of a card's compiled code that the error passed through."""
    found = None
    for frame in traceback.extract_tb(error.__traceback__):
        if frame.filename in files and frame.lineno is not None:
            found = (frame.filename, frame.lineno, (frame.colno or 0) + 1)
    return found
