"""Lobotomy's attack test as a check procedure: the dice of `lobotomy_dice`, against the target.

`check attack 5 fire precision { ... }` rolls five attack dice for the actor whose turn it is
against the state's target (a monster the card or the turn has targeted; with none, a target of
no Defense). The test deals its damage itself (rulebook, Combat: damage tokens on the target),
fires `final_blow` on the card when the target dies, and wears the card when an attack die
shows a natural 1; the card's outcomes add what else the damage brings. A Chaos Die waiting
from `add chaos die` joins the attack and is used up (one at most: `add chaos die` is refused
while one waits, as it is never used twice for the same attack, 835).

An attack action costs 1 AP unless its card says otherwise (rulebook 317, 607): a card that
prints `cost N ap` has paid that when it was used; an attack made by a card that prints no cost
(bare fists, a weapon without a cost line) pays the ruleset's `cost` first (`pay_for_attack`).

The ruleset's `params:` name the stats and tokens it reads: `rating` (the attacker's AR),
`defense` (the target's), `wear` (the token kind a natural 1 adds on the card), `durability`
(the card's property: at that much wear the weapon breaks), `damages` (actor kind -> the stat
damage lowers), `chaos_faces` (the Chaos Die, [skulls, bonus] a face: designer values) and
`cost` (the AP of an attack whose card prints none: 1, line 607).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from runtime.cards import CardInstance
from runtime.checks import Bounds, Branch, CheckCall, CheckProcedure, Rolled, RulesView
from runtime.dice import DiceSource
from runtime.game import Game
from runtime.games.lobotomy_clash import defies_gravity
from runtime.games.lobotomy_dice import (
    CHAOS_FACES,
    SIDES,
    Attack,
    AttackRolled,
    ChaosFace,
    Target,
    area_wear_distribution,
    attack_wear_distribution,
    roll_area_attack,
    roll_attack,
)
from runtime.games.lobotomy_inventory import running
from runtime.state import Actor

COOLDOWN = "cooldown"
"""The token kind on a skill that counts the turns until it can be used again."""

CHAOS = "chaos"
"""The name under which a waiting Chaos Die is kept among an actor's bonuses."""

WORN = "a 1 wears the weapon"
"""What else the dice decided: an attack die showed a natural 1."""

DAMAGES = {"character": "health", "monster": "hp"}
"""What damage lowers, by actor kind, unless the params say otherwise."""

FROZEN = "frozen"
"""The flag of an actor a Frost attack hurt: it pays 1 AP to thaw at the start of its turn."""

THAWED = "thawed"
"""The flag of a monster that thawed this turn: its first attack rolls a die fewer (723)."""

AP = "ap"
COST = "cost"
"""The card's property of the AP a use takes, and the attack test's param of the AP an attack
takes when its card prints none."""

ATTACK_COST = 1
PAID = "attack paid"
"""The flag `attack paid:NAME` while a card that paid for it makes a weapon's attack (701)."""
"""An attack action costs 1 AP unless a card says otherwise (607), when the params say nothing."""


def attack_cost(params: Mapping[str, Any]) -> int:
    """The AP an attack takes whose card prints no cost: the ruleset's, else 1."""
    value = params.get(COST, ATTACK_COST)
    return value if isinstance(value, int) and not isinstance(value, bool) else ATTACK_COST


def pay_for_attack(game: Game, card: CardInstance, params: Mapping[str, Any]) -> bool:
    """Pay for an attack action before its dice (317, 607): a card that prints its cost has
    paid it on use (as has a skill's weapon attack, 701); any other attack (fists, a weapon
    with no cost line) costs the ruleset's `cost`, refused to a character without the AP or
    who runs (running spends AP on moving alone). False when the attack is not made."""
    if COST in card.definition.properties or f"{PAID}:{game.actor.name}" in game.state.flags:
        return True
    cost = attack_cost(params)
    attacker = game.actor
    if not cost or AP not in attacker.stats.names():
        return True
    if running(game, attacker) or game.stat(AP, attacker) < cost:
        why = "is running" if running(game, attacker) else f"has {game.stat(AP, attacker)} AP"
        game.event("attack", f"an attack costs {cost} AP; {attacker.name} {why}: no attack")
        return False
    game.change(AP, -cost, attacker)
    return True


def freeze(game: Game, actor: Actor) -> None:
    """A Frost Token next to the actor (rulebook 721)."""
    game.state.flags.add(f"{FROZEN}:{actor.name}")
    game.event("frost", f"{actor.name} is frozen", actor=actor.name)


def thaws(game: Game, actor: Actor) -> bool:
    """A frozen actor loses its Frost Token at the start of its turn, which costs it 1 AP;
    until its first attack of the turn, it is recovering."""
    flag = f"{FROZEN}:{actor.name}"
    if flag not in game.state.flags:
        return False
    game.state.flags.discard(flag)
    game.state.flags.add(f"{THAWED}:{actor.name}")
    game.event("frost", f"{actor.name} thaws", actor=actor.name)
    return True


def recovering(game: Game, actor: Actor) -> int:
    """The dice a recovering monster's first attack this turn loses (1 or 0), used up."""
    flag = f"{THAWED}:{actor.name}"
    if flag not in game.state.flags:
        return 0
    game.state.flags.discard(flag)
    return 1


@dataclass(frozen=True)
class PreparedAttack:
    """An attack test ready to roll: its dice and symbols, and what it meets."""

    attack: Attack
    target: Target
    label: str
    area: tuple[Target, ...] = ()  # an AoE attack's: every monster on the target's space


def chaos_faces(params: Mapping[str, Any]) -> tuple[ChaosFace, ...]:
    """The Chaos Die the ruleset describes, or the designer's default."""
    faces = params.get("chaos_faces")
    if not faces:
        return CHAOS_FACES
    return tuple(ChaosFace(int(skulls), int(bonus)) for skulls, bonus in faces)


def damaged_stat(params: Mapping[str, Any], actor: Actor) -> str:
    """The stat damage lowers for an actor of this kind."""
    return str({**DAMAGES, **(params.get("damages") or {})}.get(actor.kind, "health"))


def attack_told(game: Game, monster: Actor, victim: Actor, attack: Attack, target: Target) -> int:
    """A monster's attack on `victim` rolled and told (whatever its damage then hurts): the
    damage it deals."""
    rolled = roll_attack(attack, target, game.dice)
    game.event(
        "attack",
        f"{monster.name} attacks {victim.name}: {rolled.text}",
        attacker=monster.name,
        target=victim.name,
        damage=rolled.outcome,
    )
    return rolled.outcome


def target_of(game: Game, actor: Actor | None, params: Mapping[str, Any]) -> Target:
    """What an attack meets: the actor's Defense, whether it is ethereal."""
    if actor is None:
        return Target()
    defense = str(params.get("defense", "defense"))
    value = game.stat(defense, actor) if defense in actor.stats.names() else 0
    return Target(max(value, 0), ethereal="ethereal" in actor.keywords)


def prepare_attack(game: Game, card: CardInstance, call: CheckCall) -> PreparedAttack:
    """The attacker's dice, rating and waiting Chaos Dice, the symbols, the target's Defense."""
    attacker = game.actor
    rating_stat = str(call.params.get("rating", "ar"))
    rating = game.stat(rating_stat, attacker) if rating_stat in attacker.stats.names() else 4
    chaos = sum(dice for name, dice in attacker.bonuses if name == CHAOS)
    attacker.bonuses = [(name, dice) for name, dice in attacker.bonuses if name != CHAOS]
    symbols = set(call.arg("symbols") or ())
    attack = Attack(
        int(call.arg("dice", 0)),
        rating,
        chaos_dice=min(chaos, 10),
        fire="fire" in symbols,
        holy="holy" in symbols,
        ghostly="ghostly" in symbols,
        precision="precision" in symbols,
        critical="critical" in symbols,
        chaos_faces=chaos_faces(call.params),
    )
    return PreparedAttack(attack, target_of(game, game.state.target, call.params), call.header)


class _Then:
    """Faces given in order, then another source's (or ones, for a roll only weighed)."""

    def __init__(self, faces: list[int], then: DiceSource | None) -> None:
        self.faces = faces
        self.then = then

    def roll(self, sides: int) -> int:
        """The next face given, else the other source's."""
        if self.faces:
            return self.faces.pop(0)
        return self.then.roll(sides) if self.then is not None else 1


def _turned(prepared: PreparedAttack, rolled: AttackRolled) -> list[int] | None:
    """The roll's faces with the one attack die turned up by one that deals the most more
    damage, if a turn deals more (Defy Gravity, 894: never a Chaos or Defense Die)."""
    attack, target = prepared.attack, prepared.target
    first = min(target.defense_dice, 10)  # the Defense Dice are rolled first
    faces = list(rolled.faces)
    best, found = rolled.outcome, None
    tried = set()
    for index in range(first, min(first + attack.dice, len(faces))):
        if faces[index] >= SIDES or faces[index] in tried:
            continue
        tried.add(faces[index])
        turned = [*faces[:index], faces[index] + 1, *faces[index + 1 :]]
        damage = roll_attack(attack, target, _Then(list(turned), None)).outcome
        if damage > best:
            best, found = damage, turned
    return found


def roll_prepared(game: Game, prepared: PreparedAttack) -> Rolled:
    """Roll the attack test: the damage is the result, a natural 1 what follows besides. An
    attack die a turn from more damage may be turned by Defy Gravity (894)."""
    if prepared.area:  # the damage to share out (737): no die turned for it here
        rolled = roll_area_attack(prepared.attack, prepared.area, game.dice)
        return Rolled(
            rolled.outcome,
            f"{prepared.label}: {rolled.text}",
            after=damage_after(rolled.outcome, rolled.rolled_a_one),
            data=(("dice", list(rolled.faces)), ("damage", rolled.outcome)),
        )
    rolled = roll_attack(prepared.attack, prepared.target, game.dice)
    turned = _turned(prepared, rolled) if game.state.target is not None else None
    if turned is not None and defies_gravity(game, "deal more damage", default=1):
        rolled = roll_attack(prepared.attack, prepared.target, _Then(turned, game.dice))
    return Rolled(
        rolled.outcome,
        f"{prepared.label}: {rolled.text}",
        after=damage_after(rolled.outcome, rolled.rolled_a_one),
        data=(("dice", list(rolled.faces)), ("damage", rolled.outcome)),
    )


def attack_odds(prepared: PreparedAttack) -> list[Branch]:
    """The exact damage, apart by whether the weapon wears."""
    if prepared.area:
        table = area_wear_distribution(prepared.attack, prepared.area)
    else:
        table = attack_wear_distribution(prepared.attack, prepared.target)
    return [
        Branch(damage, p, after=damage_after(damage, one))
        for (damage, one), p in sorted(table.items())
    ]


def damage_after(damage: int, worn: bool) -> str:
    """What the settling needs besides the outcome the card writes: the exact damage (an
    outcome `1..2` deals one or two) and whether the weapon wears."""
    return f"{damage} damage" + (f", {WORN}" if worn else "")


def settle_attack(
    game: Game, card: CardInstance, call: CheckCall, prepared: PreparedAttack, rolled: Rolled
) -> None:
    """Deal the damage to the target, and wear the weapon on a natural 1."""
    target = game.state.target
    damage = rolled.result
    if target is not None and isinstance(damage, int) and damage > 0:
        game.change(damaged_stat(call.params, target), -damage, target)
        if target.dead:
            final_blow(game, card)
    if isinstance(rolled.after, str) and rolled.after.endswith(WORN):
        wear_out(game, card, call.params)


def final_blow(game: Game, card: CardInstance) -> None:
    """An attack of this card killed: its `on final blow` runs, and one of the attacker's
    skills cools down a turn sooner (the attacker picks which). Once an attack, whether it
    killed one monster or more (645, 681, 741): a caller that kills several calls it once."""
    game.fire("final_blow", [card])
    attacker = game.actor
    cooling = [c for c in [*attacker.items, *attacker.owned] if c.tokens.get(COOLDOWN, 0) > 0]
    if not cooling:
        return
    index = 0
    if len(cooling) > 1:
        labels = [c.definition.label for c in cooling]
        index = game.decide("option", "the final blow cools down", labels)
    game.add_tokens(cooling[index], COOLDOWN, -1)


def wear_out(game: Game, card: CardInstance, params: Mapping[str, Any]) -> None:
    """A natural 1: one more wear on the card; at its durability it breaks."""
    durability = card.definition.properties.get(str(params.get("durability", "durability")))
    if not isinstance(durability, int):
        return  # indestructible
    token = str(params.get("wear", "wear"))
    game.add_tokens(card, token, 1)
    if card.tokens.get(token, 0) >= durability:
        game.event("break", f"{card.definition.label} breaks", uid=card.uid)
        game.discard(card)


def attack_bounds(params: Mapping[str, Any], args: Mapping[str, Any], rules: RulesView) -> Bounds:
    """No damage up to two a die (critical sixes), more with Chaos Dice."""
    return Bounds(0, 2 * int(args.get("dice", 0)), open=True)


def _validate(params: Mapping[str, Any], stats: Collection[str]) -> list[str]:
    problems = []
    for key in ("rating", "defense"):
        if key in params and params[key] not in stats:
            problems.append(f"{key} names a stat, not {params[key]!r}")
    faces = params.get("chaos_faces")
    if faces is not None:
        shaped = isinstance(faces, list) and 1 <= len(faces) <= 20
        pairs = shaped and all(
            isinstance(face, list)
            and len(face) == 2
            and all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 6 for v in face)
            for face in faces
        )
        if not pairs:
            problems.append("chaos_faces lists 1 to 20 faces, each [skulls, bonus] from 0 to 6")
    cost = params.get(COST, ATTACK_COST)
    if not isinstance(cost, int) or isinstance(cost, bool) or not 0 <= cost <= 9:
        problems.append(f"cost is the AP of an attack, a whole number from 0 to 9, not {cost!r}")
    return problems


ATTACK = CheckProcedure(
    prepare_attack,
    roll_prepared,
    attack_odds,
    settle=settle_attack,
    bounds=attack_bounds,
    validate=_validate,
    cost=lambda prepared: prepared.attack.dice + 10 * prepared.attack.chaos_dice,
    stats=lambda params, args, rules: [str(params.get("rating", "ar"))],
    results=frozenset({"damage"}),
)
"""`lobotomy-attack`: the attack test against the target, with exact odds."""
