"""One simulated game, played whole and read into a small record of plain data.

A record is what a worker process sends back: picklable, a few hundred numbers, never the game
or its log. Everything in it is read from the game's `Outcome` and from the data fields of the
log's events (`round`, `turn`'s `actor`, `stat`'s `changed`, `draw`'s `title`, `death`'s
`player`, the whole-game `phase over` marker), so it counts any game that logs them, in the
game's own words.
"""

from __future__ import annotations

import traceback
from collections.abc import Sequence
from dataclasses import dataclass, field

from runtime.cards import CardDef
from runtime.events import Event
from runtime.policies import policy_named, seat_policies
from runtime.rules import GameRules
from runtime.whole import PHASE_OVER, WholeGame, game_seed

OUTSIDE_CARDS = "(no card)"
"""The card of a change or a death that happened while no card resolved (a fight, a rule)."""


@dataclass(frozen=True)
class Sweep:
    """What every game of a sweep shares: how many seats, their policies, the phase to reach."""

    seed: int
    players: int
    policies: tuple[str, ...]  # one per seat
    until: str
    phases: tuple[str, ...] = ()  # the game's phases in order, the last its end


@dataclass
class CardTally:
    """What one card did in one game: times drawn, stat changes while it resolved, deaths."""

    drawn: int = 0
    changes: dict[str, int] = field(default_factory=dict)
    deaths: int = 0


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
    # stat -> the values of the living seats at the end of each round (round 1 first)
    stat_rounds: dict[str, list[list[int]]] = field(default_factory=dict)
    cards: dict[str, CardTally] = field(default_factory=dict)
    error: str | None = None  # what the runtime raised, when the game could not be played
    error_at: tuple[str, int, int] | None = None  # the card file, line and column it raised at


READ = frozenset({"round", "stat", "draw", "death", PHASE_OVER})
"""The kinds of events a game's record is read from (`_read_log`): the game makes no others.
Turns are counted by the state (`GameState.turns`), not from their events: a game makes two
events a turn, more than of all these kinds together."""


def play_game(
    whole: WholeGame, rules: GameRules, cards: Sequence[CardDef], sweep: Sweep, index: int
) -> GameRecord:
    """Play game `index` of the sweep to the end of its phase and read its record; a game
    the runtime fails on gives a record with the error, never an exception."""
    seed = game_seed(sweep.seed, index)
    record = GameRecord(index, seed)
    try:
        game = whole.new_game(rules, cards, sweep.players, seed)
        # The events are read as they happen, not kept: a sweep holds no game's whole log.
        heard: list[Event] = []
        turns_at: list[int] = []  # the seated turns begun when each phase was over

        def hear(event: Event) -> None:
            heard.append(event)
            if event.kind == PHASE_OVER:
                turns_at.append(game.state.turns)

        game.logging = False
        game.listeners.append(hear)
        game.listening = READ
        seat_policies(game, [policy_named(name) for name in sweep.policies])
        starts = {p.name: dict(p.stats.values) for p in game.state.players}
        whole.play(game, sweep.until)
        outcome = whole.outcome(game)
    except Exception as error:  # any failure of the runtime or a card is this game's
        record.error = f"{type(error).__name__}: {error}"
        record.error_at = _card_frame(error, {card.file for card in cards})
        return record
    seats = [p.name for p in game.state.players]
    record.result = outcome.result
    record.winners = tuple(seats.index(name) for name in outcome.winners if name in seats)
    record.labels = dict(outcome.labels)
    record.tallies = dict(outcome.tallies)
    record.stopped = outcome.stopped
    _read_log(record, heard, whole.phases, starts)
    _read_turns(record, whole.phases, turns_at, game.state.turns)
    return record


def _read_log(
    record: GameRecord,
    events: Sequence[Event],
    phases: Sequence[str],
    starts: dict[str, dict[str, int]],
) -> None:
    """Rounds and turns per phase, deaths and their rounds, stats per round, cards' doings."""
    values = {name: dict(stats) for name, stats in starts.items()}
    living = set(values)
    # The stats a round's end shows, in order: the seats' own, the same all game long (a
    # change is counted only for a stat the seat started with).
    shown = sorted({stat for stats in values.values() for stat in stats})
    rows = list(values.values())  # the living seats' values, in seat order
    ends: list[list[list[int]]] = []  # for each shown stat, its values at each round's end
    cards = record.cards
    part = 0  # the index of the phase the events belong to
    this_round = 0
    # A few hundred events a game, read in a worker between games: a sweep's record costs
    # about half what its game does, so this loop is written for speed (kinds by frequency).
    for kind, _, data, card, _ in events:
        if kind == "stat":
            if "changed" not in data:
                continue
            actor = values.get(str(data.get("actor")))
            tally = cards.get(card or OUTSIDE_CARDS) or _tally(record, card)
            changes = tally.changes
            for stat, delta in data["changed"].items():
                if actor is not None and stat in actor:
                    actor[stat] += delta
                changes[stat] = changes.get(stat, 0) + delta
        elif kind == "round":
            if this_round:
                _round_over(record, shown, rows, ends)
            this_round = int(data.get("round", this_round + 1))
            phase = phases[min(part, len(phases) - 1)]
            record.rounds[phase] = record.rounds.get(phase, 0) + 1
        elif kind == "draw":
            if "title" in data:
                _tally(record, str(data["title"])).drawn += 1
        elif kind == "death":
            record.death_rounds.append(this_round)
            _tally(record, card).deaths += 1
            living.discard(str(data.get("player")))
            rows = [stats for name, stats in values.items() if name in living]
        elif kind == PHASE_OVER:
            part += 1
    if this_round:
        _round_over(record, shown, rows, ends)


def _round_over(
    record: GameRecord, shown: list[str], rows: list[dict[str, int]], ends: list[list[list[int]]]
) -> None:
    """Note each shown stat's values of the living seats at a round's end."""
    if not ends:  # the first round's end: the record's lists, in the stats' order
        ends.extend(record.stat_rounds.setdefault(stat, []) for stat in shown)
    for stat, rounds in zip(shown, ends, strict=True):
        rounds.append([stats[stat] for stats in rows])


def _read_turns(
    record: GameRecord, phases: Sequence[str], turns_at: Sequence[int], turns: int
) -> None:
    """The seated turns of each phase: those begun before it was over, less the earlier
    phases'; the phase under way when the game stopped has the rest (a phase with none has
    no entry)."""
    begun = 0
    for part, total in enumerate([*turns_at, turns]):
        phase = phases[min(part, len(phases) - 1)]
        if total > begun:
            record.turns[phase] = record.turns.get(phase, 0) + total - begun
        begun = total


def _card_frame(error: BaseException, files: set[str]) -> tuple[str, int, int] | None:
    """The innermost line of a card's compiled code that the error passed through."""
    found = None
    for frame in traceback.extract_tb(error.__traceback__):
        if frame.filename in files and frame.lineno is not None:
            found = (frame.filename, frame.lineno, (frame.colno or 0) + 1)
    return found


def _tally(record: GameRecord, card: str | None) -> CardTally:
    """The card's tally in the record, made at its first doing."""
    title = card or OUTSIDE_CARDS
    tally = record.cards.get(title)
    if tally is None:
        tally = record.cards[title] = CardTally()
    return tally
