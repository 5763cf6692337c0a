"""The running totals of a sweep: records added up into counts of values, never kept whole.

A `Totals` holds, for every figure, how many games (or seats, or deaths) gave each value: its
size grows with the number of different values, not with the number of games, so a sweep of
millions of games fits where one of thousands does. The games that failed are counted, and only
the first `KEPT_FAILURES` of them kept whole (a pack whose every game fails would otherwise keep
a record of each). Adding and merging are sums of counts (and the first failures of a union
are the first of its parts' first), so totals added up in any order, or merged from any split
of the games among workers, are equal.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TypeVar

from runtime.simulation.reading import add_cards, add_rounds, count_each
from runtime.simulation.record import GameRecord

K = TypeVar("K")
V = TypeVar("V")

KEPT_FAILURES = 100
"""The failed games kept whole (index, seed, error), the first by index: enough to replay any
of them; the others are only counted."""

NO_RESULT = "none"
"""The result of a game played to a phase that has no winner."""


@dataclass
class CardTotals:
    """What one card did over the sweep."""

    drawn: int = 0
    games: int = 0  # games it was drawn in
    changes: Counter[str] = field(default_factory=Counter)  # stat -> summed change
    deaths: int = 0

    def merge(self, other: CardTotals) -> None:
        """Add another's counts to these."""
        self.drawn += other.drawn
        self.games += other.games
        self.changes.update(other.changes)
        self.deaths += other.deaths


@dataclass
class Failure:
    """A game the runtime failed on: enough to name it and replay it."""

    index: int
    seed: int
    error: str
    at: tuple[str, int, int] | None  # the card file, line and column


@dataclass
class Totals:
    """Counts of every figure's values over the games added so far."""

    games: int = 0
    played: int = 0
    failed: int = 0  # games - played: every failed game, kept whole or not
    failures: list[Failure] = field(default_factory=list)  # the first KEPT_FAILURES, by index
    results: Counter[str] = field(default_factory=Counter)
    stopped: Counter[str] = field(default_factory=Counter)
    rounds: dict[str, Counter[int]] = field(default_factory=dict)  # phase -> games by rounds
    turns: dict[str, Counter[int]] = field(default_factory=dict)
    labels: dict[str, Counter[str]] = field(default_factory=dict)
    label_results: dict[tuple[str, str], Counter[str]] = field(default_factory=dict)
    tallies: dict[str, Counter[int]] = field(default_factory=dict)  # name -> games by value
    deaths: Counter[int] = field(default_factory=Counter)  # games by deaths
    death_rounds: Counter[int] = field(default_factory=Counter)
    # stat -> round -> (sum, count) of the living seats' values at the end of the round
    stat_rounds: dict[str, dict[int, list[int]]] = field(default_factory=dict)
    stat_ends: dict[str, Counter[int]] = field(default_factory=dict)
    decided: int = 0  # games with a result
    wins: Counter[int] = field(default_factory=Counter)  # seat -> games won
    cards: dict[str, CardTotals] = field(default_factory=dict)

    def add(self, record: GameRecord) -> None:
        """Count one game."""
        self.games += 1
        if record.error is not None:
            self.failed += 1
            failure = Failure(record.index, record.seed, record.error, record.error_at)
            self._keep([failure])
            return
        self.played += 1
        self.results[record.result or NO_RESULT] += 1
        if record.stopped:
            self.stopped[record.stopped] += 1
        for phase, rounds in record.rounds.items():
            _counts(self.rounds, phase)[rounds] += 1
        for phase, turns in record.turns.items():
            _counts(self.turns, phase)[turns] += 1
        for label, value in record.labels.items():
            _counts(self.labels, label)[value] += 1
            if record.result is not None:
                _counts(self.label_results, (label, value))[record.result] += 1
        for name, number in record.tallies.items():
            _counts(self.tallies, name)[number] += 1
        self.deaths[len(record.death_rounds)] += 1
        count_each(self.death_rounds, record.death_rounds)
        for stat, sums in record.stat_sums.items():  # a stat with a round ended, at least
            add_rounds(self.stat_rounds.setdefault(stat, {}), sums, record.seated)
            count_each(_counts(self.stat_ends, stat), record.stat_ends[stat])
        if record.result is not None:
            self.decided += 1
            count_each(self.wins, record.winners)
        add_cards(self.cards, record.cards, CardTotals)

    def _keep(self, failures: list[Failure]) -> None:
        """Keep the first of these failures and of those kept, by index."""
        kept = self.failures
        if len(kept) >= KEPT_FAILURES and all(f.index > kept[-1].index for f in failures):
            return  # the common case of a pack whose every game fails: nothing to sort
        kept += failures
        kept.sort(key=lambda failure: failure.index)
        del kept[KEPT_FAILURES:]

    def merge(self, other: Totals) -> None:
        """Add another's counts (another batch of the same sweep) to these."""
        self.games += other.games
        self.played += other.played
        self.failed += other.failed
        self._keep(other.failures)
        self.results.update(other.results)
        self.stopped.update(other.stopped)
        _merge(self.rounds, other.rounds)
        _merge(self.turns, other.turns)
        _merge(self.labels, other.labels)
        _merge(self.label_results, other.label_results)
        _merge(self.tallies, other.tallies)
        _merge(self.stat_ends, other.stat_ends)
        self.deaths.update(other.deaths)
        self.death_rounds.update(other.death_rounds)
        for stat, rounds in other.stat_rounds.items():
            by_round = self.stat_rounds.setdefault(stat, {})
            for number, (total, count) in rounds.items():
                sums = by_round.setdefault(number, [0, 0])
                sums[0] += total
                sums[1] += count
        self.decided += other.decided
        self.wins.update(other.wins)
        for title, card in other.cards.items():
            self.cards.setdefault(title, CardTotals()).merge(card)


def _merge(mine: dict[K, Counter[V]], theirs: dict[K, Counter[V]]) -> None:
    for key, counts in theirs.items():
        mine.setdefault(key, Counter()).update(counts)


def total(records: Iterable[GameRecord]) -> Totals:
    """The totals of some records."""
    totals = Totals()
    for record in records:
        totals.add(record)
    return totals


def _counts(counts: dict[K, Counter[V]], key: K) -> Counter[V]:
    """The counts of a key, new at its first value (not made for every value to be thrown
    away, as `setdefault(key, Counter())` would: a Counter is made by Python code)."""
    found = counts.get(key)
    if found is None:
        found = counts[key] = Counter()
    return found
