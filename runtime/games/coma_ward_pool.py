"""The Coma Ward pool: the check every stat check, search and blow of the game rolls.

Roll as many dice as the pool; success faces are set aside, and suspense faces are rolled
again with a failed die (`runtime.games.coma_ward_dice.roll_pool`, as
docs/readings.md#coma-ward-pool-check reads the rule). Its exact odds are
`runtime.games.coma_ward_odds.pool_distribution`. What a ruleset's entry says is in its `params:`:

- `faces: {success: [5, 6], suspense: [4], failure: [1, 2, 3]}`;
- `dice: [stat, modifier]`: the slots of the phrase whose values make the pool;
- `base: {stats: [dexterity], dice: 2}`: dice rolled whatever the phrase says (the best of
  these stats, plus a number), as a dodge rolls dexterity plus two;
- `bonus_dice: true`: carried items and waiting bonuses add dice past the stat;
- `passes: {focus: 3}`: the successes that pass a check of that stat, which fires the
  `<stat>_passed` or `<stat>_failed` trigger on the player's own cards.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from runtime.cards import CardInstance
from runtime.checks import (
    Arm,
    Bounds,
    Branch,
    CheckCall,
    CheckProcedure,
    Rolled,
    RulesView,
    stats_named,
)
from runtime.dice import pool_size
from runtime.game import Game
from runtime.games.coma_ward_dice import PoolFaces
from runtime.games.coma_ward_dice import roll_pool as roll_faces
from runtime.games.coma_ward_odds import check_outcomes, pool_work
from runtime.identity_cache import IdentityCache
from runtime.rules import ProcedureRule
from runtime.state import Player

POOL_PROCEDURE = "coma-ward-pool"
"""The procedure of the stat check, which searching a room and combat roll too."""

FACE_KINDS = ("success", "suspense", "failure")


@dataclass(frozen=True)
class Pool:
    """A prepared pool check: its dice and faces, and whose it is, as the log names it."""

    dice: int
    faces: PoolFaces
    label: str
    player: str
    passes: tuple[str, int] | None = None  # a stat passed at so many successes, where it matters

    def __init__(
        self,
        dice: int,
        faces: PoolFaces,
        label: str,
        player: str,
        passes: tuple[str, int] | None = None,
    ) -> None:
        # Written out for mypyc (runtime/native.py): made hundreds of times a game.
        object.__setattr__(self, "dice", dice)
        object.__setattr__(self, "faces", faces)
        object.__setattr__(self, "label", label)
        object.__setattr__(self, "player", player)
        object.__setattr__(self, "passes", passes)


def make_pool(
    dice: int,
    params: Mapping[str, Any],
    label: str,
    player: str,
    passes: tuple[str, int] | None = None,
) -> Pool:
    """A prepared pool of the check's faces (PoolTooLarge past the most dice a pool rolls)."""
    return Pool(pool_size(dice, label), faces_of(params), label, player, passes)


def faces_of(params: Mapping[str, Any]) -> PoolFaces:
    """The faces a check's params give its pool (read once per ruleset entry: every pool of
    a game asks, and a ruleset's params do not change)."""
    return _faces_of_params(params)


def _read_faces(params: Mapping[str, Any]) -> PoolFaces:
    faces = params.get("faces") or {}
    return _faces(tuple((kind, tuple(faces.get(kind, ()))) for kind in FACE_KINDS))


_faces_of_params = IdentityCache(_read_faces)


@lru_cache(maxsize=64)
def _faces(faces: tuple[tuple[str, tuple[int, ...]], ...]) -> PoolFaces:
    return PoolFaces.from_ruleset(dict(faces))


def pool_rule(game: Game) -> ProcedureRule:
    """The ruleset's check run by the pool procedure (whatever the ruleset names it)."""
    for rule in game.rules.procedures.values():
        if rule.procedure == POOL_PROCEDURE:
            return rule
    raise LookupError(f"the ruleset has no check run by {POOL_PROCEDURE!r}")


def passing(rule: ProcedureRule, stat: str) -> int | None:
    """The successes that pass a check of this stat, if the ruleset says."""
    passes = rule.params.get("passes") or {}
    found = passes.get(stat)
    return int(found) if found is not None else None


def take_bonuses(game: Game, player: Player, check: str) -> int:
    """Use up the bonuses that wait for the next check of this name."""
    dice = sum(d for name, d in player.bonuses if name == check)
    if dice:
        player.bonuses = [(name, d) for name, d in player.bonuses if name != check]
        game.event("bonus", f"bonus on this {check} check: {dice:+d} dice", check=check, dice=dice)
    prefix = waiting_prefix(player, check)  # made once, not once a flag
    spent = {flag for flag in game.state.flags if flag.startswith(prefix)}
    if spent:
        game.state.flags -= spent
    return dice


def waiting_prefix(player: Player, check: str) -> str:
    """The start of the flags that say which card gave a bonus waiting for a check, and when."""
    return f"bonus-waits:{player.seat}:{check}:"


def roll_pool(game: Game, pool: Pool) -> Rolled:
    """Roll a prepared pool: the successes, with suspense re-rolls."""
    result = roll_faces(pool.dice, pool.faces, game.dice, pool.label)
    data = (
        ("player", pool.player),
        ("dice", result.dice),
        ("rounds", result.rounds),
        ("successes", result.successes),
    )
    # Explaining every re-roll takes as long as rolling them: only for a log that is read.
    text = result.explain() if game.hears("check") else ""
    return Rolled(result.successes, text, data=data)


def pool_odds(pool: Pool) -> list[Branch]:
    """Every number of successes of a prepared pool, exactly; where the check passes or fails
    a stat that a card answers, that is decided besides (an outcome across the mark is two)."""
    return [
        Branch(successes, p, _passed(pool.passes, successes))
        for successes, p in check_outcomes(pool.dice, pool.faces)
    ]


def _passed(passes: tuple[str, int] | None, successes: int) -> str | None:
    if passes is None:
        return None
    stat, needed = passes
    return f"{stat} passed" if successes >= needed else f"{stat} failed"


def pool_cost(pool: Pool) -> int:
    """What working out a pool's odds costs the odds walker."""
    return pool_work(pool.dice)


def roll_prepared(game: Game, pool: Pool, rule: ProcedureRule, header: str) -> int:
    """Roll a pool that a rule of the game (a fight, a search) prepared itself: the successes."""
    game.step()
    successes = game.roll_check(POOL, pool, CheckCall(rule, header=header)).result
    assert isinstance(successes, int)
    return successes


# ---------------------------------------------------------------- the checks cards call for


def most_dice(params: Mapping[str, Any], args: Mapping[str, Any], rules: RulesView) -> int:
    """The most dice a check rolls before bonus dice: its base and the stats it names."""
    base = params.get("base") or {}
    pool = int(base.get("dice", 0)) + max(
        (rules.stat_range(s)[1] for s in base.get("stats", ()) if s in rules.stat_names),
        default=0,
    )
    for slot in params.get("dice", ()):
        value = args.get(slot)
        if isinstance(value, str) and value in rules.stat_names:
            pool += rules.stat_range(value)[1]
        elif isinstance(value, int):
            pool += value
    return max(pool, 0)


def pool_bounds(params: Mapping[str, Any], args: Mapping[str, Any], rules: RulesView) -> Bounds:
    """From no success to one a die, and past that with bonus dice."""
    return Bounds(0, most_dice(params, args, rules), open=bool(params.get("bonus_dice")))


def pool_stats(params: Mapping[str, Any], args: Mapping[str, Any], rules: RulesView) -> list[str]:
    """The stats a pool check rolls: those its slots name, else its base stats."""
    named = stats_named(params, args, rules)
    base = [s for s in (params.get("base") or {}).get("stats", ()) if s in rules.stat_names]
    return named or base


def validate_pool(params: Mapping[str, Any], stats: Collection[str]) -> list[str]:
    """The faces of a pool are each of one kind, some face succeeds, its stats exist."""
    base = params.get("base") or {}
    if not isinstance(base, Mapping):
        return ["its base is a mapping: {stats: [..], dice: N}"]
    based = base.get("stats", ())
    if isinstance(based, str) or not isinstance(based, Sequence):
        return ["its base stats are a list of stat names"]
    if not all(isinstance(s, str) for s in based):
        return ["its base stats are a list of stat names"]
    if not isinstance(base.get("dice", 0), int):
        return ["its base dice are a whole number"]
    problems = [f"it rolls unknown stat {stat!r}" for stat in based if stat not in stats]
    faces = params.get("faces")
    if not isinstance(faces, Mapping):
        return [*problems, "a pool needs its faces: {success: [..], suspense: [..], failure: [..]}"]
    seen: dict[int, str] = {}
    for kind in FACE_KINDS:
        numbers = faces.get(kind, ())
        if not isinstance(numbers, Sequence) or not all(isinstance(f, int) for f in numbers):
            problems.append(f"the {kind} faces are not a list of numbers")
            continue
        for face in numbers:
            if face in seen and seen[face] != kind:
                problems.append(f"face {face} is both {seen[face]} and {kind}")
            seen[face] = kind
    unknown = sorted(set(faces) - set(FACE_KINDS))
    if unknown:
        problems.append(f"faces are {', '.join(FACE_KINDS)}, not {', '.join(unknown)}")
    if not faces.get("success"):
        problems.append("no face succeeds")
    return problems


def prepare_stat(game: Game, card: CardInstance, call: CheckCall) -> Pool:
    """`check focus`, `check dexterity -1`: the stat's dice, the modifier and waiting bonuses."""
    player = game.player
    stat = str(call.arg("stat"))
    modifier = int(call.arg("modifier", 0) or 0)
    dice = game.stat(stat, player) + modifier + take_bonuses(game, player, stat)
    label = f"check {stat}" + (f" {modifier:+d}" if modifier else "")
    needed = passing(call.rule, stat)
    answered = needed is not None and game.listens(
        (f"{stat}_passed", f"{stat}_failed"), player.owned
    )
    passes = (stat, needed) if answered and needed is not None else None
    return make_pool(dice, call.params, label, player.name, passes)


def settle_stat(
    game: Game, card: CardInstance, call: CheckCall, pool: Pool, rolled: Rolled
) -> None:
    """A check of a stat that passes at some number of successes tells the player's cards."""
    stat = str(call.arg("stat"))
    needed = passing(call.rule, stat)
    if needed is None:
        return
    passed = isinstance(rolled.result, int) and rolled.result >= needed
    game.fire(f"{stat}_passed" if passed else f"{stat}_failed", list(game.player.owned))


POOL = CheckProcedure(
    prepare_stat,
    roll_pool,
    pool_odds,
    settle=settle_stat,
    bounds=pool_bounds,
    validate=validate_pool,
    cost=pool_cost,
    stats=pool_stats,
    results=frozenset({"successes"}),
)
"""`check <stat> [±N]`: the pool of a stat, with suspense re-rolls."""


def stat_check(game: Game, card: CardInstance, stat: str, arms: tuple[Arm, ...] = ()) -> int:
    """A check of a stat that a rule of the game makes (a search), as a card's would be made."""
    rule = pool_rule(game)
    successes = game.check(card, CheckCall(rule, (("stat", stat),), arms, f"check {stat}"))
    assert isinstance(successes, int)
    return successes
