"""Check procedures as plug-ins: what a game module gives for each kind of check it runs.

A ruleset's `checks:` entry names a procedure of its game module, declares what the check's
result is (`successes`, `total`, `face`, `damage`, or named outcomes such as pass and fail) and
gives it `params:`, free data the procedure validates. The module gives, per procedure, the
steps of one check, split so that play and exact odds share all but the dice:

- `prepare` reads the state, takes what the check uses up (bonuses) and asks what the player
  decides (weapons), and returns what the dice need: a hashable value, the *prepared* check;
- `roll` rolls the prepared check with the game's dice;
- `odds` gives its exact distribution, every result with its probability as a Fraction;
- `settle` does what follows from the result (a durability token, a trigger), in play and in
  the odds walk alike; it may amend the result, when a decision after the dice changes it (a
  die turned by one), by returning the new one.

A result can come with an `after`: something else the dice decided besides the result (a
natural 1 that costs a weapon durability), which `settle` is told and the odds walk keeps apart.
The engine (`Game.check`) runs the steps; the odds walker (`runtime.odds`) runs the same
`prepare` and `settle` and branches on `odds` where play would roll. `bounds` tells the
checker statically which results can happen, for the coverage of a card's outcomes.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Protocol

from runtime.distributions import roll_outcomes, roll_work
from runtime.rules import ProcedureRule

if TYPE_CHECKING:
    from runtime.cards import CardInstance
    from runtime.game import Game

Result = int | str
"""What a check gives: a number (successes, a total, a face, damage) or an outcome's name."""

COUNTED = frozenset({"successes", "total", "face", "damage"})
"""The result kinds that are numbers; any other check has named outcomes."""


@dataclass(frozen=True)
class Arm:
    """One outcome of a check or roll as a card writes it: a range of results, or a name."""

    low: int
    high: int | None  # None: open, as `3+` is
    text: str  # as the card reads: "0..2", "3+", "4", "pass"
    name: str | None = None  # a named outcome: it holds for that result alone

    def holds(self, result: Result) -> bool:
        """Whether this outcome covers the result."""
        if self.name is not None or isinstance(result, str):
            return result == self.name
        return self.low <= result and (self.high is None or result <= self.high)


def named_arm(name: str) -> Arm:
    """The outcome of a check with named results that holds for `name`."""
    return Arm(0, 0, name, name)


@dataclass(frozen=True)
class CheckCall:
    """One check as a card (or a verb) makes it: its ruleset entry, slots and written outcomes."""

    rule: ProcedureRule
    args: tuple[tuple[str, Any], ...] = ()
    arms: tuple[Arm, ...] = ()
    header: str = ""  # how the card writes it: "check speed -1", "roll 2d6"

    def __init__(
        self,
        rule: ProcedureRule,
        args: tuple[tuple[str, Any], ...] = (),
        arms: tuple[Arm, ...] = (),
        header: str = "",
    ) -> None:
        # Written out for mypyc (runtime/native.py): made hundreds of times a game.
        object.__setattr__(self, "rule", rule)
        object.__setattr__(self, "args", args)
        object.__setattr__(self, "arms", arms)
        object.__setattr__(self, "header", header)

    def arg(self, name: str, default: Any = None) -> Any:
        """The value of one slot of the phrase."""
        for key, value in self.args:
            if key == name:
                return value
        return default

    @property
    def params(self) -> Mapping[str, Any]:
        """The ruleset's `params:` of the check."""
        return self.rule.params


@dataclass(frozen=True)
class Rolled:
    """A prepared check rolled: its result, the log line, and what else the dice decided."""

    result: Result
    text: str
    after: Hashable = None
    data: tuple[tuple[str, Any], ...] = ()  # logged with the event
    kind: str = "check"  # the event's kind

    def __init__(
        self,
        result: Result,
        text: str,
        after: Hashable = None,
        data: tuple[tuple[str, Any], ...] = (),
        kind: str = "check",
    ) -> None:
        # Written out for mypyc (runtime/native.py): made hundreds of times a game.
        object.__setattr__(self, "result", result)
        object.__setattr__(self, "text", text)
        object.__setattr__(self, "after", after)
        object.__setattr__(self, "data", data)
        object.__setattr__(self, "kind", kind)


@dataclass(frozen=True)
class Branch:
    """One result of a prepared check with its exact probability (and its `after`)."""

    result: Result
    probability: Fraction
    after: Hashable = None


@dataclass(frozen=True)
class Bounds:
    """The results a check can give, as the checker knows them before play."""

    low: int
    high: int
    open: bool = False  # results above `high` can happen too (bonus dice)


class RulesView(Protocol):
    """What `bounds` may read of the ruleset: the stats and their ranges."""

    @property
    def stat_names(self) -> Collection[str]:
        """Every stat, tracked and derived."""
        ...

    def stat_range(self, name: str) -> tuple[int, int]:
        """A stat's lowest and highest value."""
        ...


Prepare = Callable[["Game", "CardInstance", CheckCall], Hashable]
Roll = Callable[["Game", Any], Rolled]
Odds = Callable[[Any], Sequence[Branch]]
Settle = Callable[["Game", "CardInstance", CheckCall, Any, Rolled], "Result | None"]
BoundsOf = Callable[[Mapping[str, Any], Mapping[str, Any], RulesView], Bounds]
Validate = Callable[[Mapping[str, Any], Collection[str]], Sequence[str]]
StatsOf = Callable[[Mapping[str, Any], Mapping[str, Any], RulesView], Sequence[str]]


def _no_problems(params: Mapping[str, Any], stats: Collection[str]) -> Sequence[str]:
    return ()


def _one_step(prepared: Any) -> int:
    return 1


def stats_named(params: Mapping[str, Any], args: Mapping[str, Any], rules: RulesView) -> list[str]:
    """The stats a check's slots name: what it reads, unless its procedure says otherwise."""
    return [
        value for value in args.values() if isinstance(value, str) and value in rules.stat_names
    ]


@dataclass(frozen=True, eq=False)
class CheckProcedure:
    """How a game runs one kind of check: its steps, its exact odds, and what it can give."""

    prepare: Prepare
    roll: Roll
    odds: Odds
    settle: Settle | None = None
    bounds: BoundsOf | None = None  # None: the checker knows nothing of its numbers
    validate: Validate = _no_problems  # problems with the ruleset's `params:` (given the stats)
    cost: Callable[[Any], int] = _one_step  # the work of `odds`, in the odds walker's steps
    stats: StatsOf = field(default=stats_named)  # the stats it reads (a report charts them)
    results: frozenset[str] = frozenset()  # the result kinds it can give; empty: any


# ---------------------------------------------------------------- roll tables


ROLL_TABLE = ProcedureRule("roll", "roll", "total")
"""The rule of a card's `roll NdS { ... }` table: the dice summed."""


def _prepare_roll(game: Game, card: CardInstance, call: CheckCall) -> tuple[int, int]:
    return int(call.arg("count", 1)), int(call.arg("sides", 6))


def _roll_table(game: Game, prepared: tuple[int, int]) -> Rolled:
    count, sides = prepared
    rolled = game.roll_dice(count, sides)
    return Rolled(
        rolled.total,
        rolled.explain(),
        data=(("dice", list(rolled.faces)), ("total", rolled.total)),
        kind="roll",
    )


def _roll_odds(prepared: tuple[int, int]) -> list[Branch]:
    return [Branch(total, p) for total, p in roll_outcomes(*prepared)]


ROLL = CheckProcedure(
    _prepare_roll,
    _roll_table,
    _roll_odds,
    bounds=lambda params, args, rules: Bounds(args["count"], args["count"] * args["sides"]),
    cost=lambda prepared: roll_work(*prepared),
    results=frozenset({"total"}),
)
"""Every game's roll tables: the sum of the dice."""


def roll_call(count: int, sides: int, arms: tuple[Arm, ...]) -> CheckCall:
    """The call of a card's roll table."""
    notation = f"{count if count != 1 else ''}d{sides}"
    return CheckCall(ROLL_TABLE, (("count", count), ("sides", sides)), arms, f"roll {notation}")
