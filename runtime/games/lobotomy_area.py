"""Lobotomy's AoE attack of a character (rulebook 677, 737-741) and the weapon attack (701).

`check area 4 fire at range 1 { ... }` rolls 4 dice for each monster on the target's space
(the attacker's own with no target), at the attacker's AR, with a waiting Chaos Die; with no
monster there, the dice of one against no Defense, as an attack test with no target. The
successes are reduced by the highest Defense on the space after the symbols (737); the
outcome is the damage to share out: 1 to each monster first, or, with too little, 1 to each
of as many monsters as the player picks; the rest as the player chooses (739), a point at a
time. Characters on the space are never hurt. One final blow, however many it kills (741). A
natural 1 wears the card. The attack costs what `lobotomy_attack.pay_for_attack` says, and
its range and sight are those of any attack (`lobotomy_symbols`). A monster's immunity takes
its symbol off for all (the highest Defense is read with the symbols the attack keeps for
every monster on the space); a Nemesis haunting another is not hurt, and an unholy monster asks
for no imagination test (a reading: the test is for an attack on a target).

`attack with one of your weapons [adding 2 dice]` (the weapon-attack symbol, 701): the
player picks one of their weapons that attacks, and its `use` runs with the skill's dice
added to its attack test, and its own cost, wear and blocks (`on final blow`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from runtime.cards import CardInstance
from runtime.checks import Bounds, Branch, CheckCall, CheckProcedure, Rolled, RulesView
from runtime.game import Game
from runtime.games.lobotomy_attack import (
    ATTACK,
    CHAOS,
    WORN,
    chaos_faces,
    damage_after,
    damaged_stat,
    final_blow,
    pay_for_attack,
    target_of,
    wear_out,
)
from runtime.games.lobotomy_dice import Attack, Target, area_wear_distribution, roll_area_attack
from runtime.games.lobotomy_monsters import (
    MONSTER,
    STUNNED,
    SYMBOLS,
    attack_numbers,
    only,
    untouchable,
    words,
)
from runtime.games.lobotomy_ranged import in_sight
from runtime.state import Actor

IMMUNE = "immune"
WEAPON = "weapon"
USE = "use"
WEAPON_DICE = "weapon attack"
"""The name under which a weapon attack's extra dice wait among the attacker's bonuses."""


@dataclass(frozen=True)
class PreparedArea:
    """An AoE attack ready to roll: its dice, the monsters on the space and what they meet."""

    attack: Attack
    targets: tuple[Target, ...]
    monsters: tuple[str, ...]
    label: str


def _space(game: Game) -> str | None:
    target = game.state.target
    if target is not None and target.kind == MONSTER and target.location is not None:
        return target.location
    return game.actor.location


def _nothing(call: CheckCall) -> PreparedArea:
    return PreparedArea(Attack(0, 6), (), (), call.header)


def prepare_area(game: Game, card: CardInstance, call: CheckCall) -> PreparedArea:
    """The dice for each monster on the space, paid for, within range and sight."""
    attacker, space = game.actor, _space(game)
    if not pay_for_attack(game, card, call.params) or space is None:
        return _nothing(call)
    reach = int(call.arg("range", 0) or 0)
    if attacker.location is None or not in_sight(game, attacker.location, space, reach):
        game.event("attack", f"{space} is out of reach or sight: no attack")
        return _nothing(call)
    monsters = [
        m
        for m in game.actors_of(MONSTER, space)
        if not m.dead and not untouchable(game, attacker, m)
    ]
    rating_stat = str(call.params.get("rating", "ar"))
    rating = game.stat(rating_stat, attacker) if rating_stat in attacker.stats.names() else 4
    chaos = sum(dice for name, dice in attacker.bonuses if name == CHAOS)
    attacker.bonuses = [(name, dice) for name, dice in attacker.bonuses if name != CHAOS]
    symbols = set(call.arg("symbols") or ())
    for monster in monsters:  # an immunity takes its symbol off for all
        sheet = monster.sheet
        symbols -= set(words(sheet.definition.properties.get(IMMUNE)) if sheet else ())
    every = Attack(
        int(call.arg("dice", 0)) * max(len(monsters), 1),
        rating,
        chaos_dice=min(chaos, 10),
        fire=True,
        holy=True,
        ghostly=True,
        precision=True,
        critical=True,
        chaos_faces=chaos_faces(call.params),
    )
    # no monster there: the dice of one, against no Defense, as an attack with no target
    targets = tuple(_target(game, m, call.params) for m in monsters) or (Target(),)
    attack = only(every, symbols & set(SYMBOLS))
    return PreparedArea(attack, targets, tuple(m.name for m in monsters), call.header)


def _target(game: Game, monster: Actor, params: Mapping[str, Any]) -> Target:
    target = target_of(game, monster, params)
    if f"{STUNNED}:{monster.name}" in game.state.flags:
        return replace(target, defense=0, avoidance=None)
    return target


def roll_area(game: Game, prepared: PreparedArea) -> Rolled:
    """Roll the AoE attack: the damage to share out is the result."""
    if not prepared.targets:
        return Rolled(0, f"{prepared.label}: no attack", after=damage_after(0, False))
    rolled = roll_area_attack(prepared.attack, prepared.targets, game.dice)
    return Rolled(
        rolled.outcome,
        f"{prepared.label}: {rolled.text}",
        after=damage_after(rolled.outcome, rolled.rolled_a_one),
        data=(("dice", list(rolled.faces)), ("damage", rolled.outcome)),
    )


def area_odds(prepared: PreparedArea) -> list[Branch]:
    """The exact damage to share out, apart by whether the card wears."""
    if not prepared.targets:
        return [Branch(0, Fraction(1), damage_after(0, False))]
    table = area_wear_distribution(prepared.attack, prepared.targets)
    return [Branch(d, p, damage_after(d, one)) for (d, one), p in sorted(table.items())]


def share_out(game: Game, monsters: Sequence[Actor], damage: int) -> dict[str, int]:
    """The damage each monster takes (739): 1 to each first (with too little, to the ones the
    player picks, none twice), the rest a point at a time where the player says. The rule's
    answer, without one: the monster nearest its death."""
    shares = dict.fromkeys((m.name for m in monsters), 0)
    left = {m.name: game.stat("hp", m) if "hp" in m.stats.names() else 1 for m in monsters}
    for point in range(damage):
        open_ = [m.name for m in monsters if point >= len(monsters) or not shares[m.name]]
        if not open_:
            break
        alive = [left[n] - shares[n] for n in open_]
        first = min(range(len(open_)), key=lambda i: (alive[i] < 1, alive[i]))
        index = 0
        if len(open_) > 1:
            index = game.decide("option", "a point of the AoE's damage to", open_, default=first)
        shares[open_[index]] += 1
    return shares


def settle_area(
    game: Game, card: CardInstance, call: CheckCall, prepared: PreparedArea, rolled: Rolled
) -> None:
    """The damage shared out and dealt; one final blow for all it kills; a 1 wears the card."""
    damage = rolled.result if isinstance(rolled.result, int) else 0
    monsters = [a for a in game.actors_of(MONSTER) if a.name in prepared.monsters and not a.dead]
    killed = False
    for name, share in share_out(game, monsters, damage).items():
        monster = next(m for m in monsters if m.name == name)
        if share:
            game.change(damaged_stat(call.params, monster), -share, monster)
            killed = killed or monster.dead
    if killed:
        final_blow(game, card)
    if isinstance(rolled.after, str) and rolled.after.endswith(WORN):
        wear_out(game, card, call.params)


def area_bounds(params: Mapping[str, Any], args: Mapping[str, Any], rules: RulesView) -> Bounds:
    """No damage up to two a die; how many monsters share the space is open."""
    return Bounds(0, 2 * int(args.get("dice", 0)), open=True)


AREA = CheckProcedure(
    prepare_area,
    roll_area,
    area_odds,
    settle=settle_area,
    bounds=area_bounds,
    validate=ATTACK.validate,
    cost=lambda prepared: prepared.attack.dice + 10 * prepared.attack.chaos_dice,
    stats=lambda params, args, rules: [str(params.get("rating", "ar"))],
    results=frozenset({"damage"}),
)
"""`lobotomy-area`: a character's AoE attack on every monster of a space, with exact odds."""


def weapon_attack(game: Game, card: CardInstance, *, extra: int = 0) -> None:
    """`attack with one of your weapons adding 2 dice`: a weapon of the player's that attacks,
    picked by the player, used with the skill's dice added (701)."""
    actor = game.actor
    weapons = [c for c in actor.items if c.kind == WEAPON and attack_numbers(game, c)[0] > 0]
    if not weapons:
        game.event("attack", f"{actor.name} has no weapon to attack with")
        return
    index = 0
    if len(weapons) > 1:
        labels = [w.definition.label for w in weapons]
        index = game.decide("option", "attack with", labels, card=card)
    weapon = weapons[index]
    if extra:
        actor.bonuses.append((WEAPON_DICE, extra))
    try:
        for block in weapon.definition.blocks:
            rule = game.rules.blocks.get(block.name)
            if block.run is not None and rule is not None and rule.trigger == USE:
                game.resolve(weapon, block.run, USE)
    finally:
        actor.bonuses = [(name, n) for name, n in actor.bonuses if name != WEAPON_DICE]


def weapon_dice(actor: Actor) -> int:
    """The dice a weapon attack adds to the attack test it makes, used up."""
    extra = sum(n for name, n in actor.bonuses if name == WEAPON_DICE)
    actor.bonuses = [(name, n) for name, n in actor.bonuses if name != WEAPON_DICE]
    return extra
