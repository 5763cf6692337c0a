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
from runtime.games.lobotomy_attack import (
    WORN,
    PreparedAttack,
    final_blow,
    freeze,
    pay_for_attack,
    target_of,
    wear_out,
)
from runtime.games.lobotomy_monsters import (
    GUARDED_ATTACK,
    STUNNED,
    harmless,
    prepare_guarded,
    stun,
    untouchable,
)
from runtime.games.lobotomy_ranged import sees
from runtime.games.lobotomy_tokens import walls
from runtime.state import Actor

POWER = "power"
FROST = "frost"
AOE = "aoe"
MONSTER = "monster"
HP = "hp"


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
    prepared = prepare_guarded(game, card, call)
    aoe = AOE in (call.arg("symbols") or ())
    if not aoe or target is None or target.location is None or not prepared.attack.dice:
        return prepared
    hit = _area(game, target)
    return replace(prepared, area=tuple(target_of(game, m, call.params) for m in hit))


def _area(game: Game, target: Actor) -> list[Actor]:
    """The monsters an AoE attack on the target's space hits: all there but a Nemesis
    haunting another (737), weakest first."""
    here = [
        m for m in game.actors_of(MONSTER, target.location) if not untouchable(game, game.actor, m)
    ]
    return sorted(here, key=lambda m: m.stats.get(HP))


def share_out(game: Game, card: CardInstance, call: CheckCall, damage: int) -> None:
    """An AoE attack's damage (739): at least 1 to each monster on the space (with less, 1 to
    as many as it reaches, the player picking which), the rest as the player chooses, a point
    at a time (the default: the one nearest its death); one final blow however many it kills
    (741)."""
    target = game.state.target
    hit = _area(game, target) if target is not None else []
    dealt = dict.fromkeys((m.name for m in hit), 0)
    for point in range(damage):
        if not hit:
            break
        if point < len(hit):  # the first points: one to each, none twice
            open_ = [m for m in hit if not dealt[m.name]]
        else:
            open_ = [m for m in hit if m.stats.get(HP) > dealt[m.name]] or hit
        nearest = min(
            range(len(open_)), key=lambda i: open_[i].stats.get(HP) - dealt[open_[i].name]
        )
        picked = nearest
        if len(open_) > 1:
            names = [m.name for m in open_]
            picked = game.decide("aoe", "deal 1 damage to", names, default=nearest)
        dealt[open_[picked].name] += 1
    game.event("attack", "shared out: " + ", ".join(f"{n} {d}" for n, d in dealt.items() if d))
    killed = False
    for monster in hit:
        if dealt[monster.name]:
            game.change(HP, -dealt[monster.name], monster)
            killed = killed or monster.dead
    if killed:
        final_blow(game, card)


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
    if prepared.area:
        if isinstance(rolled.result, int) and rolled.result > 0:
            share_out(game, card, call, rolled.result)
        if isinstance(rolled.after, str) and rolled.after.endswith(WORN):
            wear_out(game, card, call.params)
        return None
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
