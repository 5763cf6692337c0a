"""Exact odds of a card: every way its effects can end, with its probability, found by replay.

A block of compiled effects is plain Python that asks the game for dice and decisions. The
walker runs it again and again on fresh games whose dice and decisions it answers itself: each
question is a branch point, and the runs follow every alternative of every branch point, depth
first, until all paths are spent. A check does not branch on each number of successes but on
each outcome the card writes for it (`0..2`, `3+`), with the exact probability of that range
(`runtime.distributions`); the card's code only compares the result with those ranges, so one
representative result per range gives the same run. Draws are counted, never resolved: what a
drawn card would do depends on the deck, not on this card.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import Any

from runtime import distributions
from runtime.cards import CardDef, CardInstance, Effect
from runtime.dice import Arm, PoolFaces, PoolResult, Roll
from runtime.distributions import check_outcomes, roll_outcomes
from runtime.game import Game
from runtime.games import GameModule
from runtime.rules import GameRules

MAX_PATHS = 5_000
"""Runs a walk may take: a card whose outcomes outnumber this is refused, not ground through."""


@dataclass(frozen=True)
class BranchPoint:
    """A check or roll as the card writes it: its header and its outcomes' ranges."""

    header: str  # "check focus", "roll d6"
    arms: tuple[Arm, ...]


Branches = Mapping[tuple[str, int], BranchPoint]
"""(card file, line) -> the check or roll written there: the compiler reads them off the IR."""


@dataclass(frozen=True)
class _Alternative:
    label: str
    probability: Fraction | None  # None: a decision, which has no odds
    value: Any


class TooManyPaths(Exception):
    """A block branches into more paths than a walk takes."""

    def __init__(self, limit: int) -> None:
        super().__init__(limit)
        self.limit = limit

    def __str__(self) -> str:
        return f"its effects branch into more than {self.limit} paths"


class _Replay:
    """Answers branch points from a prefix of choices, then takes the first alternative."""

    def __init__(self, prefix: list[int]) -> None:
        self.prefix = prefix
        self.taken: list[int] = []
        self.sizes: list[int] = []
        self.path: list[str] = []
        self.probability = Fraction(1)
        self.share = Fraction(1)  # each decision's answers taken with even odds
        self.decisions = 0

    def pick(self, alternatives: Sequence[_Alternative]) -> Any:
        depth = len(self.taken)
        index = self.prefix[depth] if depth < len(self.prefix) else 0
        chosen = alternatives[index]
        self.taken.append(index)
        self.sizes.append(len(alternatives))
        self.path.append(chosen.label)
        if chosen.probability is None:
            self.decisions += 1
            self.share /= len(alternatives)
        else:
            self.probability *= chosen.probability
        return chosen.value


class OddsGame(Game):
    """A game whose dice and decisions a replay answers, and whose draws are only counted."""

    replay: _Replay
    branches: Branches
    drawn: dict[str, int]

    def _build_decks(self) -> dict[str, list[CardInstance]]:
        return {deck: [] for deck in self.rules.decks}  # nothing is ever drawn from them

    def decide(self, kind: str, prompt: str, choices: Sequence[str]) -> int:
        """Both answers of a `may`, every title of a `choose`: each is a path."""
        self.step()
        verb = {"yes-no": "may", "option": "choose"}.get(kind, kind)
        index: int = self.replay.pick(
            [_Alternative(f"{verb}: {choice}", None, i) for i, choice in enumerate(choices)]
        )
        self.event("decide", f"{prompt}: {choices[index]}", question=prompt, answer=choices[index])
        return index

    def roll_pool(
        self, dice: int, faces: PoolFaces, label: str, arms: tuple[Arm, ...] = ()
    ) -> PoolResult:
        """One path per outcome the card (or the rule) writes for this check."""
        point = self._written(label, arms)
        successes: int = self.replay.pick(_pool_alternatives(point, dice, faces))
        return PoolResult(label, max(dice, 0), [[]], [], [successes])

    def roll_dice(self, count: int, sides: int) -> Roll:
        """One path per outcome of the card's roll table."""
        notation = f"{count if count != 1 else ''}d{sides}"
        point = self._written(f"roll {notation}", ())
        total: int = self.replay.pick(_roll_alternatives(point, count, sides))
        return Roll(notation, _faces_summing_to(total, count, sides))

    def draw(self, deck: str, count: int = 1) -> None:
        """A draw is counted, not resolved."""
        self.step()
        self.drawn[deck] = self.drawn.get(deck, 0) + count
        self.event("draw", f"draw {count} {deck}", deck=deck, count=count)

    def _written(self, label: str, arms: tuple[Arm, ...]) -> BranchPoint:
        """The check or roll as the card that runs it writes it, found by its line."""
        if arms:
            return BranchPoint(label, arms)
        frame = sys._getframe(2)
        while frame is not None:
            written = self.branches.get((frame.f_code.co_filename, frame.f_lineno))
            if written is not None:
                return written
            frame = frame.f_back  # type: ignore[assignment]
        return BranchPoint(label, ())


@lru_cache(maxsize=1024)
def _pool_alternatives(point: BranchPoint, dice: int, faces: PoolFaces) -> list[_Alternative]:
    return _alternatives(point, check_outcomes(dice, faces))


@lru_cache(maxsize=1024)
def _roll_alternatives(point: BranchPoint, count: int, sides: int) -> list[_Alternative]:
    return _alternatives(point, roll_outcomes(count, sides))


def clear_caches() -> None:
    """Forget every worked-out distribution and branch (for timing a cold walk)."""
    _pool_alternatives.cache_clear()
    _roll_alternatives.cache_clear()
    distributions.clear_caches()


def _alternatives(point: BranchPoint, odds: list[tuple[int, Fraction]]) -> list[_Alternative]:
    """A path per written range that can happen; results no range covers each get their own."""
    found: list[_Alternative] = []
    left = list(odds)
    for arm in point.arms:
        inside = [(result, p) for result, p in left if arm.holds(result)]
        if inside:
            probability = sum((p for _, p in inside), Fraction(0))
            found.append(_Alternative(f"{point.header}: {arm.text}", probability, inside[0][0]))
            left = [pair for pair in left if not arm.holds(pair[0])]
    found += [_Alternative(f"{point.header}: {result}", p, result) for result, p in left]
    return found


def _faces_summing_to(total: int, count: int, sides: int) -> tuple[int, ...]:
    """Some faces that add up to the total, for the log of a walked roll."""
    faces = [1] * count
    extra = total - count
    for index in range(count):
        step = min(extra, sides - 1)
        faces[index] += step
        extra -= step
    return tuple(faces)


@dataclass
class Outcome:
    """One way a block can end: the branches taken, its odds and what it changed."""

    path: tuple[str, ...]
    probability: Fraction  # given the decisions on its path
    weight: Fraction  # its share when each decision is taken with even odds
    changes: dict[str, int]
    draws: dict[str, int]
    also: tuple[str, ...]  # other effects on the state, as the log words them
    death: bool


@dataclass
class BlockOdds:
    """Every outcome of one option or block, with the expected change of each stat."""

    name: str
    outcomes: list[Outcome] = field(default_factory=list)
    decisions: bool = False  # some outcome depends on a decision

    def expected(self, stats: Sequence[str]) -> dict[str, Fraction]:
        """The mean change of each stat, each decision taken with even odds."""
        return {
            stat: sum((o.weight * o.changes.get(stat, 0) for o in self.outcomes), Fraction(0))
            for stat in stats
        }

    @property
    def death(self) -> Fraction:
        """The chance the player dies, each decision taken with even odds."""
        return sum((o.weight for o in self.outcomes if o.death), Fraction(0))


ALSO_EVENTS = frozenset(
    {"move", "turn", "discard", "token", "bonus", "search", "drop", "deal", "flip", "damage"}
)
"""Logged changes an outcome lists besides stats and draws."""


@dataclass(frozen=True)
class Table:
    """What every walk starts from: the game's rules and cards, and the player as given."""

    rules: GameRules
    cards: Sequence[CardDef]
    module: GameModule
    branches: Branches
    setup: Callable[[Game], None]  # sets the stats the odds are asked for

    def game(self, replay: _Replay) -> OddsGame:
        """A fresh game that the replay answers."""
        game = OddsGame(self.rules, self.cards, self.module)
        game.replay, game.branches, game.drawn = replay, self.branches, {}
        self.setup(game)
        return game

    def opening(self) -> Game:
        """The game as every walk starts it, to read the given stats from."""
        return self.game(_Replay([]))

    @property
    def stats(self) -> list[str]:
        """The tracked stats, whose changes the outcomes report."""
        return [rule.name for rule in self.rules.stats]


def card_odds(table: Table, card: CardDef) -> list[BlockOdds]:
    """The odds of each option of the card, or else of each block of effects it has."""
    if card.options:
        return [walk(table, card, option.title, option.run) for option in card.options]
    found = []
    for block in card.blocks:
        rule = table.rules.blocks.get(block.name)
        if block.run is None:
            continue
        name = rule.written(block.args) if rule is not None else block.name
        carried = rule is not None and rule.trigger == "use"
        found.append(walk(table, card, name, block.run, carried))
    return found


def walk(
    table: Table, card: CardDef, name: str, effect: Effect, carried: bool = False
) -> BlockOdds:
    """Every outcome of running `effect` (an option or block of `card`), exactly."""
    result = BlockOdds(name)
    stats = table.stats
    pending: list[list[int]] = [[]]
    runs = 0
    while pending:
        prefix = pending.pop()
        runs += 1
        if runs > MAX_PATHS:
            raise TooManyPaths(MAX_PATHS)
        replay = _Replay(prefix)
        game = table.game(replay)
        before = {stat: game.player.stats.get(stat) for stat in stats}
        seen = len(game.log.events)
        instance = game.new_instance(card)
        if carried:
            game.player.items.append(instance)
        game.resolve(instance, effect, name)
        # The other alternatives of each new branch point, pushed so that the walk pops the
        # deepest and lowest first: outcomes come out in the order the card reads.
        for depth in range(len(prefix), len(replay.taken)):
            for alternative in range(replay.sizes[depth] - 1, replay.taken[depth], -1):
                pending.append([*replay.taken[:depth], alternative])
        after = {stat: game.player.stats.get(stat) for stat in stats}
        result.decisions = result.decisions or replay.decisions > 0
        result.outcomes.append(
            Outcome(
                path=tuple(replay.path),
                probability=replay.probability,
                weight=replay.probability * replay.share,
                changes={s: after[s] - before[s] for s in stats if after[s] != before[s]},
                draws=dict(sorted(game.drawn.items())),
                also=tuple(e.text for e in game.log.events[seen:] if e.kind in ALSO_EVENTS),
                death=game.player.dead,
            )
        )
    return result
