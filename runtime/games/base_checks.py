"""The check procedures every game may use as data: count dice that hit, or roll against a target.

A ruleset names one in a `checks:` entry and says the numbers in its `params:`. Amounts
(`dice`, `at`, `subtract`, `target`) are lists of slots, stats and numbers, added up: a slot of
the phrase counts as its value (a stat it names as the stat's value now), a stat as its value
now, a number as itself.

- `count` gives successes: roll `dice` dice of `sides` (6) faces, count those showing `at` or
  more, take away `subtract` (a defense), never below nothing. `bonus_dice: true` says that
  dice can be added past the phrase, so counts above the most can happen.
  (Lobotomy's search test: imagination d6, 4 to 6 succeed.)
- `target` gives two named outcomes, passing first: roll `count` dice of `sides` faces and add
  them up; the check passes when the total is at most `target` (`wins: at_most`) or at least
  it (`wins: at_least`, the default). (Lobotomy's imagination test: 2d6 at most imagination.)

Both have exact odds: the binomial count and the sum of the dice, as Fractions.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from fractions import Fraction
from math import comb
from typing import Any

from runtime.cards import CardInstance
from runtime.checks import Bounds, Branch, CheckCall, CheckProcedure, Rolled, RulesView
from runtime.dice import pool_size
from runtime.distributions import roll_outcomes, roll_work
from runtime.game import Game

AMOUNTS = ("dice", "at", "subtract", "target")
"""The params that are amounts: slots and numbers added up."""


def amount(game: Game, call: CheckCall, key: str, default: int = 0) -> int:
    """An amount of the check's params, read from the phrase's slots and the state."""
    parts = call.params.get(key)
    if parts is None:
        return default
    total = 0
    slots = dict(call.args)
    for part in parts if isinstance(parts, list) else [parts]:
        # A part names a slot of the phrase, or else a stat; or it is a number.
        value = slots.get(part, part) if isinstance(part, str) else part
        if isinstance(value, bool) or value is None:
            continue
        if isinstance(value, str):
            total += game.stat(value)
        elif isinstance(value, int):
            total += value
    return total


def most(params: Mapping[str, Any], key: str, args: Mapping[str, Any], rules: RulesView) -> int:
    """The largest an amount can be, from the stats' ranges, before play."""
    parts = params.get(key)
    total = 0
    for part in parts if isinstance(parts, list) else [] if parts is None else [parts]:
        value = args.get(part, part) if isinstance(part, str) else part
        if isinstance(value, str) and value in rules.stat_names:
            total += rules.stat_range(value)[1]
        elif isinstance(value, int) and not isinstance(value, bool):
            total += value
    return total


def _validate_amounts(params: Mapping[str, Any], stats: Collection[str]) -> list[str]:
    problems = []
    for key in AMOUNTS:
        parts = params.get(key)
        if parts is None:
            continue
        for part in parts if isinstance(parts, list) else [parts]:
            if isinstance(part, bool) or not isinstance(part, (int, str)):
                problems.append(f"{key} adds up slots and numbers, not {part!r}")
    sides = params.get("sides", 6)
    if isinstance(sides, bool) or not isinstance(sides, int) or not 2 <= sides <= 1000:
        problems.append(f"sides is a number of faces from 2 to 1000, not {sides!r}")
    return problems


# ---------------------------------------------------------------- count


@dataclass(frozen=True)
class Count:
    """A prepared count: dice of so many sides, the face that hits, what is taken away."""

    dice: int
    sides: int
    at: int
    subtract: int
    label: str


def prepare_count(game: Game, card: CardInstance, call: CheckCall) -> Count:
    """Read the dice, the face that hits and the defense from the phrase and the state."""
    sides = int(call.params.get("sides", 6))
    dice = pool_size(amount(game, call, "dice"), call.header)
    at = amount(game, call, "at", sides)
    return Count(dice, sides, at, max(amount(game, call, "subtract"), 0), call.header)


def roll_count(game: Game, count: Count) -> Rolled:
    """Roll the dice and count the hits, less what is taken away."""
    faces = game.roll_dice(count.dice, count.sides).faces if count.dice else ()
    hits = sum(1 for face in faces if face >= count.at)
    result = max(hits - count.subtract, 0)
    less = f" − {count.subtract}" if count.subtract else ""
    shown = " ".join(map(str, faces)) or "no dice"
    text = f"{count.label} ({count.dice}d{count.sides}, {count.at}+): {shown} → {hits}{less}"
    return Rolled(result, f"{text} = {result}", data=(("dice", list(faces)), ("hits", hits)))


def count_odds(count: Count) -> list[Branch]:
    """The binomial count of hits, shifted down by what is taken away."""
    hit = Fraction(max(min(count.sides - count.at + 1, count.sides), 0), count.sides)
    odds: dict[int, Fraction] = {}
    for hits in range(count.dice + 1):
        p = comb(count.dice, hits) * hit**hits * (1 - hit) ** (count.dice - hits)
        result = max(hits - count.subtract, 0)
        odds[result] = odds.get(result, Fraction(0)) + p
    return [Branch(result, p) for result, p in sorted(odds.items()) if p]


def count_bounds(params: Mapping[str, Any], args: Mapping[str, Any], rules: RulesView) -> Bounds:
    """No hit up to a hit a die (no defense assumed), more with bonus dice."""
    return Bounds(0, most(params, "dice", args, rules), open=bool(params.get("bonus_dice")))


COUNT = CheckProcedure(
    prepare_count,
    roll_count,
    count_odds,
    bounds=count_bounds,
    validate=_validate_amounts,
    cost=lambda count: count.dice,
    results=frozenset({"successes", "damage"}),
)
"""`count`: dice that show a face or more, less a defense."""


# ---------------------------------------------------------------- target


@dataclass(frozen=True)
class Target:
    """A prepared roll against a target: the dice, the number, which side of it passes."""

    count: int
    sides: int
    target: int
    at_most: bool
    passed: str
    failed: str
    label: str


def prepare_target(game: Game, card: CardInstance, call: CheckCall) -> Target:
    """Read the dice and the target from the params, the phrase and the state."""
    count = pool_size(int(call.params.get("count", 1)), call.header)
    sides = int(call.params.get("sides", 6))
    at_most = call.params.get("wins", "at_least") == "at_most"
    passed, failed = (*call.rule.names, "pass", "fail")[:2]
    target = amount(game, call, "target")
    return Target(count, sides, target, at_most, passed, failed, call.header)


def _passes(target: Target, total: int) -> bool:
    return total <= target.target if target.at_most else total >= target.target


def roll_target(game: Game, target: Target) -> Rolled:
    """Roll the dice, add them up, compare with the target."""
    rolled = game.roll_dice(target.count, target.sides)
    outcome = target.passed if _passes(target, rolled.total) else target.failed
    need = f"{'at most' if target.at_most else 'at least'} {target.target}"
    text = f"{target.label} ({rolled.notation}, {need}): {rolled.explain()} → {outcome}"
    return Rolled(outcome, text, data=(("dice", list(rolled.faces)), ("total", rolled.total)))


def target_odds(target: Target) -> list[Branch]:
    """The sum of the dice, split at the target."""
    passed = sum(
        (p for total, p in roll_outcomes(target.count, target.sides) if _passes(target, total)),
        Fraction(0),
    )
    return [
        Branch(name, p) for name, p in ((target.passed, passed), (target.failed, 1 - passed)) if p
    ]


def _validate_target(params: Mapping[str, Any], stats: Collection[str]) -> list[str]:
    problems = _validate_amounts(params, stats)
    if params.get("wins", "at_least") not in ("at_least", "at_most"):
        problems.append(f"wins is at_least or at_most, not {params.get('wins')!r}")
    count = params.get("count", 1)
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= 100:
        problems.append(f"count is a number of dice from 1 to 100, not {count!r}")
    if "target" not in params:
        problems.append("a target check needs its target: slots and numbers to add up")
    return problems


TARGET = CheckProcedure(
    prepare_target,
    roll_target,
    target_odds,
    validate=_validate_target,
    cost=lambda target: roll_work(target.count, target.sides),
    results=frozenset({"named"}),
)
"""`target`: dice added up, at most or at least a number, pass or fail."""


BASE_CHECKS = {"count": COUNT, "target": TARGET}
"""The check procedures the base module offers every game."""
