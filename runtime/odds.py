"""Exact odds of a card: every way its effects can end, with its probability, found by replay.

A block of compiled effects is plain Python that asks the game for dice and decisions. The
walker runs it again and again on fresh games whose dice and decisions it answers itself: each
question is a branch point, and the runs follow every alternative of every branch point, depth
first, until all paths are spent. A check does not branch on each number of successes but on
each outcome the card writes for it (`0..2`, `3+`), with the exact probability of that range
(`runtime.distributions`); the card's code only compares the result with those ranges, so one
representative result per range gives the same run. Draws are counted, never resolved: what a
drawn card would do depends on the deck, not on this card.

A walk is bounded twice: by the paths it ends (`MAX_PATHS`, what a person can read), and by the
work it does (`MAX_WORK`), counted as the steps of every run, each of which replays its path
from the start, plus what the exact odds cost to work out and to multiply along a path (a
check of many dice has odds of thousands of digits). Both stop a walk within a couple of
seconds, with the card line that was running.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import Any

from runtime import distributions
from runtime.cards import CardDef, CardInstance, Effect
from runtime.checks import Arm, Branch, CheckCall, CheckProcedure, Result, Rolled
from runtime.dice import DiceError, Roll
from runtime.game import Game
from runtime.module import GameModule
from runtime.rules import GameRules
from runtime.state import Actor

MAX_PATHS = 5_000
"""Runs a walk may take: a card whose outcomes outnumber this is refused, not ground through."""

MAX_WORK = 200_000
"""Steps the walks of one card may take in all, about two seconds: every step of every run,
and the arithmetic of exact odds counted as the steps it takes as long as. A card of the
bundled pack takes at most a few dozen, a few thousand across every column of the report."""

PRODUCT_BITS = 20
"""Multiplying exact odds of a and b bits costs about a * b >> PRODUCT_BITS steps (its gcds)."""

SUM_BITS = 21
"""Adding exact odds of a bits to others costs about a * a >> SUM_BITS steps."""

OUTCOME_SUMS = 32
"""The sums an outcome's odds go into once walked, at most: the expected change of each stat,
death, and in the report each branch on its path and its bar in each column."""


@dataclass(frozen=True)
class _Alternative:
    label: str
    probability: Fraction | None  # None: a decision, which has no odds
    value: Any


class UnwalkedDice(DiceError):
    """A rule rolled dice outside any check: the walk has no odds to branch on for them."""

    def __init__(self, dice: str) -> None:
        super().__init__(dice)
        self.dice = dice

    def __str__(self) -> str:
        return f"{self.dice} is rolled outside a check, so its odds are not known"


class WalkLimit(Exception):
    """A walk went past one of its limits."""

    words = "{limit}"

    def __init__(self, limit: int) -> None:
        super().__init__(limit)
        self.limit = limit

    def __str__(self) -> str:
        return self.words.format(limit=self.limit)


class TooManyPaths(WalkLimit):
    """A block branches into more paths than a walk takes."""

    words = "its effects branch into more than {limit} paths"


class TooMuchWork(WalkLimit):
    """A walk took more steps in all than a card's walks may."""

    words = "walking its branches takes more than {limit} steps"


class Budget:
    """The work the walks of one card may still do: its blocks, and in the report its walks
    at each value of a stat. The odds of each pool or roll are charged once."""

    def __init__(self, limit: int | None = None) -> None:
        self.limit = MAX_WORK if limit is None else limit
        self.spent = 0
        self._worked: set[tuple[object, ...]] = set()

    def charge(self, work: int) -> None:
        """Count work done; TooMuchWork past the limit."""
        self.spent += work
        if self.spent > self.limit:
            raise TooMuchWork(self.limit)

    def charge_once(self, what: tuple[object, ...], work: Callable[[], int]) -> None:
        """Count the work of something done once and then remembered (as each walk of the card
        would do it again if the process had not)."""
        if what not in self._worked:
            self._worked.add(what)
            self.charge(work())


def product_work(a: Fraction, b: Fraction) -> int:
    """The steps multiplying two exact odds costs: none for short numbers."""
    return _bits(a) * _bits(b) >> PRODUCT_BITS


def sum_work(value: Fraction) -> int:
    """The steps adding these exact odds to others costs: none for short numbers."""
    return _bits(value) ** 2 >> SUM_BITS


def _bits(value: Fraction) -> int:
    return value.numerator.bit_length() + value.denominator.bit_length()


class _Replay:
    """Answers branch points from a prefix of choices, then takes the first alternative."""

    def __init__(self, prefix: list[int], budget: Budget) -> None:
        self.prefix = prefix
        self.budget = budget
        self.taken: list[int] = []
        self.sizes: list[int] = []
        self.path: list[str] = []
        self.probability = Fraction(1)
        self.share = Fraction(1)  # each decision's answers taken with even odds
        self.decisions = 0
        self.procedures: set[str] = set()  # the check procedures the run rolled

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
            self.budget.charge(product_work(self.probability, chosen.probability))
            self.probability *= chosen.probability
        return chosen.value


class OddsGame(Game):
    """A game whose dice and decisions a replay answers, and whose draws are only counted."""

    replay: _Replay
    drawn: dict[str, int]

    def _build_decks(self) -> dict[str, list[CardInstance]]:
        return {deck: [] for deck in self.rules.decks}  # nothing is ever drawn from them

    def step(self) -> None:
        """A step of this run, counted against the run's budget and the walk's."""
        super().step()
        self.replay.budget.charge(1)

    def decide(
        self,
        kind: str,
        prompt: str,
        choices: Sequence[str],
        default: int | None = None,
        asked: Actor | None = None,
        card: CardInstance | None = None,
    ) -> int:
        """Both answers of a `may`, every title of a `choose`: each is a path."""
        self.step()
        verb = {"yes-no": "may", "option": "choose"}.get(kind, kind)
        index: int = self.replay.pick(
            [_Alternative(f"{verb}: {choice}", None, i) for i, choice in enumerate(choices)]
        )
        self.event("decide", f"{prompt}: {choices[index]}", question=prompt, answer=choices[index])
        return index

    def roll_check(self, procedure: CheckProcedure, prepared: Any, call: CheckCall) -> Rolled:
        """One path per outcome the card (or the rule) writes for this check."""
        budget = self.replay.budget
        self.replay.procedures.add(call.rule.procedure)
        budget.charge_once(("odds", procedure, prepared), lambda: procedure.cost(prepared))
        branches = _branches(procedure, prepared)
        budget.charge_once(("arms", procedure, prepared, call.arms), lambda: _summed(branches))
        chosen: _Branched = self.replay.pick(_alternatives(call.header, call.arms, branches))
        self.event("check", chosen.label, check=call.rule.name, result=chosen.result)
        return Rolled(chosen.result, chosen.label, chosen.after)

    def roll_dice(self, count: int, sides: int) -> Roll:
        """Dice rolled outside a check have no odds the walk can branch on."""
        raise UnwalkedDice(f"{count}d{sides}")

    def draw(self, deck: str, count: int = 1) -> None:
        """A draw is counted, not resolved."""
        self.step()
        self.drawn[deck] = self.drawn.get(deck, 0) + count
        self.event("draw", f"draw {count} {deck}", deck=deck, count=count)


@dataclass(frozen=True)
class _Branched:
    """A check's result as a path takes it: the range the card writes, one result of it."""

    label: str
    result: Result
    after: Hashable


@lru_cache(maxsize=1024)
def _branches(procedure: CheckProcedure, prepared: Hashable) -> tuple[Branch, ...]:
    return tuple(procedure.odds(prepared))


def clear_caches() -> None:
    """Forget every worked-out distribution and branch (for timing a cold walk)."""
    _branches.cache_clear()
    _alternatives.cache_clear()
    distributions.clear_caches()


def _summed(branches: Sequence[Branch]) -> int:
    """The work of adding up a distribution's odds into the ranges a card writes."""
    return sum(sum_work(branch.probability) for branch in branches)


@lru_cache(maxsize=1024)
def _alternatives(
    header: str, arms: tuple[Arm, ...], branches: tuple[Branch, ...]
) -> list[_Alternative]:
    """A path per written outcome that can happen, and per thing the dice decide besides
    (`after`) within it; results no outcome covers each get their own."""
    found: list[_Alternative] = []
    left = list(branches)
    for arm in arms:
        inside = [branch for branch in left if arm.holds(branch.result)]
        left = [branch for branch in left if not arm.holds(branch.result)]
        afters = list(dict.fromkeys(branch.after for branch in inside))
        for after in afters:
            part = [branch for branch in inside if branch.after == after]
            label = f"{header}: {arm.text}" + (f" ({after})" if after is not None else "")
            probability = sum((branch.probability for branch in part), Fraction(0))
            found.append(_Alternative(label, probability, _Branched(label, part[0].result, after)))
    for branch in left:
        shown = f" ({branch.after})" if branch.after is not None else ""
        label = f"{header}: {branch.result}{shown}"
        found.append(
            _Alternative(label, branch.probability, _Branched(label, branch.result, branch.after))
        )
    return found


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
    target: dict[str, int] = field(default_factory=dict)  # the target's stat changes
    target_down: bool = False  # the target died (a final blow)


@dataclass
class BlockOdds:
    """Every outcome of one option or block, with the expected change of each stat."""

    name: str
    outcomes: list[Outcome] = field(default_factory=list)
    decisions: bool = False  # some outcome depends on a decision
    procedures: set[str] = field(default_factory=set)  # the check procedures some path rolled

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

    @property
    def final_blow(self) -> Fraction:
        """The chance the target dies, each decision taken with even odds."""
        return sum((o.weight for o in self.outcomes if o.target_down), Fraction(0))


ALSO_EVENTS = frozenset(
    {
        "move",
        "turn",
        "discard",
        "token",
        "tokens",
        "break",
        "track",
        "bonus",
        "search",
        "drop",
        "deal",
        "flip",
        "damage",
    }
)
"""Logged changes an outcome lists besides stats and draws."""


@dataclass(frozen=True)
class Table:
    """What every walk starts from: the game's rules and cards, and the player as given."""

    rules: GameRules
    cards: Sequence[CardDef]
    module: GameModule
    setup: Callable[[Game], None]  # sets the stats the odds are asked for
    against: str | None = None  # the card of the actor the player faces, if one is named

    def game(self, replay: _Replay) -> OddsGame:
        """A fresh game that the replay answers."""
        game = OddsGame(self.rules, self.cards, self.module)
        game.replay, game.drawn = replay, {}
        self.setup(game)
        return game

    def opening(self) -> Game:
        """The game as every walk starts it, to read the given stats from."""
        return self.game(_Replay([], Budget()))

    @property
    def stats(self) -> list[str]:
        """The tracked stats, whose changes the outcomes report."""
        return [rule.name for rule in self.rules.stats]


def card_odds(
    table: Table, card: CardDef, budget: Budget | None = None, implied: bool = False
) -> list[BlockOdds]:
    """The odds of each option of the card, or else of each block of effects it has (and, if
    `implied`, of what its game module says it does unwritten), or else, for a kind whose play
    the module walks (a token searched when found), of playing it; within one budget of work
    (a fresh one of MAX_WORK steps unless given)."""
    budget = budget or Budget()
    if card.options:
        return [
            walk(table, card, option.title, option.run, budget=budget) for option in card.options
        ]
    found = []
    for block in card.blocks:
        rule = table.rules.blocks.get(block.name)
        if block.run is None:
            continue
        name = rule.written(block.args) if rule is not None else block.name
        carried = rule is not None and rule.trigger == "use"
        found.append(walk(table, card, name, block.run, carried, budget))
    unwritten = table.module.implied.get(card.kind) if implied else None
    for name, effect in unwritten(table.rules, card) if unwritten is not None else ():
        found.append(walk(table, card, name, effect, budget=budget))
    walked = table.module.walked.get(card.kind)
    if not found and walked is not None:
        found.append(walk(table, card, walked, _played, budget=budget))
    return found


def _played(game: Game, card: CardInstance) -> None:
    """Bring the card into play as its kind says: the walk of a kind the module plays itself."""
    game.play_instance(card)


def walk(
    table: Table,
    card: CardDef,
    name: str,
    effect: Effect,
    carried: bool = False,
    budget: Budget | None = None,
) -> BlockOdds:
    """Every outcome of running `effect` (an option or block of `card`), exactly."""
    budget = budget or Budget()
    result = BlockOdds(name)
    stats = table.stats
    pending: list[list[int]] = [[]]
    runs = 0
    while pending:
        prefix = pending.pop()
        runs += 1
        if runs > MAX_PATHS:
            raise TooManyPaths(MAX_PATHS)
        budget.charge(1)  # a fresh game for the run
        replay = _Replay(prefix, budget)
        game = table.game(replay)
        before = {stat: game.player.stats.get(stat) for stat in stats}
        foe = game.state.target
        foe_before = dict(foe.stats.values) if foe is not None else {}
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
        budget.charge(OUTCOME_SUMS * sum_work(replay.probability))
        result.decisions = result.decisions or replay.decisions > 0
        result.procedures |= replay.procedures
        result.outcomes.append(
            Outcome(
                path=tuple(replay.path),
                probability=replay.probability,
                weight=replay.probability * replay.share,
                changes={s: after[s] - before[s] for s in stats if after[s] != before[s]},
                draws=dict(sorted(game.drawn.items())),
                also=tuple(e.text for e in game.log.events[seen:] if e.kind in ALSO_EVENTS),
                death=game.player.dead,
                target={
                    stat: value - foe_before[stat]
                    for stat, value in (foe.stats.values.items() if foe is not None else ())
                    if value != foe_before.get(stat, value)
                },
                target_down=foe is not None and foe.dead,
            )
        )
    return result
