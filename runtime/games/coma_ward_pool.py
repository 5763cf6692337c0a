"""The Coma Ward pool: the check every stat check, search and blow of the game rolls.

The faces come from the ruleset's data; the suspense re-rolls are `runtime.dice.roll_pool`.
"""

from __future__ import annotations

from runtime.dice import Arm, PoolResult
from runtime.game import Game
from runtime.rules import ProcedureRule
from runtime.state import Player

POOL_PROCEDURE = "coma-ward-pool"
"""The procedure of the stat check, which searching a room and combat roll too."""


def pool_rule(game: Game) -> ProcedureRule:
    """The ruleset's check run by the pool procedure (whatever the ruleset names it)."""
    for rule in game.rules.procedures.values():
        if rule.procedure == POOL_PROCEDURE and rule.faces is not None:
            return rule
    raise LookupError(f"the ruleset has no check run by {POOL_PROCEDURE!r} with faces")


def take_bonuses(game: Game, player: Player, check: str) -> int:
    """Use up the bonuses that wait for the next check of this name."""
    dice = sum(d for name, d in player.bonuses if name == check)
    if dice:
        player.bonuses = [(name, d) for name, d in player.bonuses if name != check]
        game.event("bonus", f"bonus on this {check} check: {dice:+d} dice", check=check, dice=dice)
    return dice


def roll_check(
    game: Game,
    player: Player,
    dice: int,
    label: str,
    check: str,
    rule: ProcedureRule,
    arms: tuple[Arm, ...] = (),
) -> PoolResult:
    """Roll a pool with the rule's faces and log the roll, for any check of the game."""
    game.step()
    assert rule.faces is not None, "the pool procedure needs faces"
    result = game.roll_pool(dice, rule.faces, label, arms)
    game.event(
        "check",
        result.explain(),
        check=check,
        player=player.name,
        dice=result.dice,
        rounds=result.rounds,
        successes=result.successes,
    )
    return result
