"""The attack symbols that act after the dice, and the reach of an attack (rulebook 693-729).

- *Power*: an attack of at least 1 damage stuns the target (a boss never), as `stun the
  target` does (`lobotomy_monsters`); the player may then push the stunned monster a space,
  not through a revealed, shut door (715; the board has no walls).
- *Frost*: an attack of at least 1 damage freezes the target: at the start of its next turn it
  pays 1 AP to thaw, and a monster's first attack that turn rolls one die fewer.
- *Range*: an attack is made on the attacker's space, or, written `at range 2`, on a target at
  most that many spaces away and in sight (727): a door token between the two blocks it, the
  figures between do not (729; `lobotomy_ranged.sees`, the board has no walls).

Before all of it the attack action is paid for (`lobotomy_attack.pay_for_attack`: 1 AP unless
the card says otherwise, 607); an attack out of reach or on an untouchable monster is spent.

This wraps the attack test on a monster (`GUARDED_ATTACK`); its exact odds are unchanged, since
what the symbols do follows from the damage, which the odds already branch on.
"""

from __future__ import annotations

from dataclasses import replace

from runtime.cards import CardInstance
from runtime.checks import CheckCall, Result, Rolled
from runtime.game import Game
from runtime.games.lobotomy_attack import PreparedAttack, freeze, pay_for_attack
from runtime.games.lobotomy_monsters import (
    GUARDED_ATTACK,
    MONSTER,
    STUNNED,
    harmless,
    prepare_guarded,
    stun,
)
from runtime.games.lobotomy_ranged import sees
from runtime.games.lobotomy_tokens import walls
from runtime.state import Actor

POWER = "power"
FROST = "frost"


def prepare_in_reach(game: Game, card: CardInstance, call: CheckCall) -> PreparedAttack:
    """The attack test, paid for, or no attack at all where it is not paid for or the target
    is out of its reach."""
    if not pay_for_attack(game, card, call.params):
        return harmless(call.header)
    target, attacker = game.state.target, game.actor
    reach = int(call.arg("range", 0) or 0)
    if target is not None and attacker.location is not None and target.location is not None:
        away = game.rules.world.board.distance(attacker.location, target.location)
        if away is None or away > reach:
            where = "another space" if not reach else f"more than {reach} spaces away"
            game.event("attack", f"{target.name} is out of reach: {where}", actor=target.name)
            return harmless(call.header)
        if not sees(game, attacker.location, target.location):
            why = f"{target.name} is out of sight: a door between"
            game.event("attack", why, actor=target.name)
            return harmless(call.header)
    return prepare_guarded(game, card, call)


def push(game: Game, monster: Actor) -> None:
    """A stunned monster may be pushed a space (715): the player picks where, or leaves it;
    not through a revealed, shut door."""
    here = monster.location
    if here is None or monster.dead or monster.kind != MONSTER:
        return
    shut = walls(game)
    board = game.rules.world.board
    order = {place: index for index, place in enumerate(board.places)}
    places = sorted(
        (p for p in board.neighbours(here) if frozenset((here, p)) not in shut),
        key=lambda p: order.get(p, 0),
    )
    if not places:
        return
    choices = ["leave it where it lies", *(f"push it to {p}" for p in places)]
    index = game.decide("option", f"push {monster.name}", choices, default=0)
    if index:
        game.step()
        monster.location = places[index - 1]
        game.event("move", f"{monster.name} is pushed to {monster.location}", actor=monster.name)


def stun_and_push(game: Game, card: CardInstance) -> None:
    """`stun the target`, and a stunned monster may be pushed a space (715)."""
    stun(game, card)
    target = game.state.target
    if target is not None and f"{STUNNED}:{target.name}" in game.state.flags:
        push(game, target)


def settle_symbols(
    game: Game, card: CardInstance, call: CheckCall, prepared: PreparedAttack, rolled: Rolled
) -> Result | None:
    """The damage as the attack test deals it, then what a Power or Frost attack that hurt
    does to a target it did not kill."""
    target = game.state.target
    settle = GUARDED_ATTACK.settle
    amended = settle(game, card, call, prepared, rolled) if settle is not None else None
    damage = rolled.result if amended is None else amended
    if target is None or target.dead or not isinstance(damage, int) or damage < 1:
        return amended
    symbols = set(call.arg("symbols") or ())
    if POWER in symbols:
        stun_and_push(game, card)
    if FROST in symbols:
        freeze(game, target)
    return amended


SYMBOL_ATTACK = replace(GUARDED_ATTACK, prepare=prepare_in_reach, settle=settle_symbols)
"""`lobotomy-attack` with its reach and its Power and Frost symbols."""
