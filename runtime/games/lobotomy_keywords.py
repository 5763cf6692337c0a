"""Lobotomy's keywords of the glossary that change a turn rather than an attack (rulebook
1103, 1131-1137: Convert's own rules are `lobotomy_convert`'s) and a monster's AoE attack
(809-815).

- *Aura of Despair* (1131): while a monster with it is on the board, each character starts
  their turn with 1 AP less. *Aura of Reality* (1133): each loses 1 health at the start of
  their turn. Two monsters with the same aura count once (the aura is active or not).
- *Burrow* (1137): a monster with it that took damage in the round goes to a random space at
  the end of the monsters' turn. Damage is read off its HP: lower than at the start of the
  round (or than its card's, for one that came on the board since).
- *Inspiring Presence* (1103): a character whose card has it gives every other character on
  their space an attack die more.
- *A monster's AoE attack* (`strike everyone there 4`, 809-815): one roll of the row's dice
  (with Overwhelm) at every character on its target's space, each taking off their own
  Defense; no character's modifier to attack rolls changes it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from runtime.cards import CardInstance
from runtime.checks import CheckCall
from runtime.game import Game
from runtime.games.lobotomy_attack import PreparedAttack, recovering, target_of
from runtime.games.lobotomy_convert import controlled_turn, convert, converted
from runtime.games.lobotomy_dice import Attack, roll_attack_on_each
from runtime.games.lobotomy_monsters import (
    OVERWHELM,
    STUNNED,
    _attacker,
    _characters,
    _victim_now,
    _victims,
    prop,
    random_place,
)
from runtime.games.lobotomy_ranged import bonded
from runtime.games.lobotomy_symbols import SYMBOL_ATTACK, prepare_in_reach
from runtime.module import GameModule, Step, step_then
from runtime.state import Actor
from runtime.world import Phase

MONSTER = "monster"
CHARACTER = "character"
HEALTH = "health"
HP = "hp"
AP = "ap"
ATTACK_PROCEDURE = "lobotomy-attack"
LAST_STEP = "monsters_attack"
"""The monsters' turn's last step, after which a burrowing monster goes elsewhere."""

DESPAIR, REALITY, BURROW, INSPIRING = "despair", "reality", "burrow", "inspiring"
"""The card properties (the ruleset's `properties:` names) this module reads."""

HEALING_STEPS = ("event_effects", "special_event")
"""The monsters' turn's steps whose events may heal monsters (a converted one is not)."""

HP_AT_START = "hp at the round's start"
"""The flag `hp at the round's start:<monster>:<hp>` a burrowing monster's damage is read by."""


def _on_board(game: Game, name: str) -> list[Actor]:
    return [m for m in game.actors_of(MONSTER) if m.location is not None and prop(m, name)]


def auras(game: Game, actor: Actor) -> None:
    """At the start of a character's turn: 1 AP less under an Aura of Despair, 1 health less
    under an Aura of Reality (1131, 1133)."""
    for name, stat, aura in ((DESPAIR, AP, "Despair"), (REALITY, HEALTH, "Reality")):
        found = _on_board(game, name)
        if found and not actor.dead:
            game.event("aura", f"{found[0].name}'s Aura of {aura}: {actor.name} loses 1 {stat}")
            game.change(stat, -1, actor)


def _printed_hp(monster: Actor) -> int:
    value = prop(monster, HP)
    return value if isinstance(value, int) else monster.stats.get(HP)


def round_begins(game: Game) -> None:
    """The round starts: each burrowing monster's HP is noted, to tell whether it is hurt."""
    game.state.flags = {f for f in game.state.flags if not f.startswith(HP_AT_START + ":")}
    for monster in _on_board(game, BURROW):
        game.state.flags.add(f"{HP_AT_START}:{monster.name}:{monster.stats.get(HP)}")


def _hp_at_start(game: Game, monster: Actor) -> int:
    prefix = f"{HP_AT_START}:{monster.name}:"
    noted = [int(f[len(prefix) :]) for f in game.state.flags if f.startswith(prefix)]
    return noted[0] if noted else _printed_hp(monster)


def burrow(game: Game) -> None:
    """The monsters' turn ends: each burrowing monster hurt this round goes to a random
    space (1137)."""
    for monster in _on_board(game, BURROW):
        if monster.stats.get(HP) < _hp_at_start(game, monster):
            game.step()
            monster.location = random_place(game)
            game.event("move", f"{monster.name} burrows to {monster.location}", actor=monster.name)


def inspired(game: Game, actor: Actor) -> bool:
    """Whether another character on the actor's space has Inspiring Presence (1103)."""
    if actor.kind != CHARACTER or actor.location is None:
        return False
    return any(c is not actor and prop(c, INSPIRING) for c in _characters(game, actor.location))


def prepare_inspired(game: Game, card: CardInstance, call: CheckCall) -> PreparedAttack:
    """The attack test as the symbols prepare it, with a die more for an inspired attacker."""
    prepared = prepare_in_reach(game, card, call)
    if prepared.attack.dice <= 0 or not inspired(game, game.actor):
        return prepared
    game.event("bonus", f"{game.actor.name} is inspired: an attack die more", check="attack")
    return replace(prepared, attack=replace(prepared.attack, dice=prepared.attack.dice + 1))


INSPIRED_ATTACK = replace(SYMBOL_ATTACK, prepare=prepare_inspired)
"""`lobotomy-attack` with Inspiring Presence."""


def strike_all(
    game: Game, card: CardInstance, *, dice: int, symbols: Sequence[str] | None = None
) -> None:
    """`strike everyone there 4`: a monster's AoE attack (811): one roll at every character on
    its target's space, each by their own Defense (stunned: none)."""
    attacker = _attacker(game, card)
    victim = _victim_now(game)
    victims = _victims(game, attacker, victim.location) if attacker is not None else [victim]
    if attacker is not None:
        dice += sum(n for name, n in attacker.bonuses if name == OVERWHELM)
        dice -= recovering(game, attacker)
    shown = set(symbols or ())
    rating = attacker.stats.get("ar") if attacker is not None else 4
    bonus = 1 if attacker is not None and bonded(game, attacker) else 0
    attack = Attack(
        max(dice, 0),
        rating,
        bonus,
        fire="fire" in shown,
        holy="holy" in shown,
        ghostly="ghostly" in shown,
        precision="precision" in shown,
        critical="critical" in shown,
    )
    targets = [target_of(game, v, {}) for v in victims]
    targets = [
        replace(t, defense=0, avoidance=None) if f"{STUNNED}:{v.name}" in game.state.flags else t
        for t, v in zip(targets, victims, strict=True)
    ]
    game.step()
    rolled = roll_attack_on_each(attack, targets, game.dice)
    name = attacker.name if attacker is not None else card.definition.title
    game.event(
        "attack",
        f"{name} attacks everyone on {victim.location}: {rolled.text}",
        attacker=name,
        damage=sum(rolled.outcome),
    )
    for hurt, damage in zip(victims, rolled.outcome, strict=True):
        if damage:
            game.change(HEALTH, -damage, hurt)


def extend(module: GameModule) -> GameModule:
    """The module with the auras at each character's turn, Burrow at the end of the monsters'
    turn, Inspiring Presence in the attack test, the AoE row of an attack table and Convert."""
    turn = module.turns.get(CHARACTER)

    def character_turn(game: Game, actor: Actor) -> None:
        """What a character's turn begins with, then the auras and their monster's turn."""
        if turn is not None:
            turn(game, actor)
        auras(game, actor)
        controlled_turn(game, actor)

    def unhealed(step: Step | None) -> Step:
        def run(game: Game, phase: Phase) -> None:
            """The step, after which a converted monster has no more HP than before (1135)."""
            before = {m.name: m.stats.get(HP) for m in game.actors_of(MONSTER)}
            if step is not None:
                step(game, phase)
            for monster in game.actors_of(MONSTER):
                if converted(game, monster) and monster.stats.get(HP) > before.get(monster.name, 0):
                    monster.stats.set(HP, before[monster.name])

        return run

    return module.extend(
        module.name,
        verbs={"strike_all": strike_all, "convert": convert},
        checks={ATTACK_PROCEDURE: INSPIRED_ATTACK},
        turns={CHARACTER: character_turn},
        steps={
            LAST_STEP: step_then(module.steps.get(LAST_STEP), burrow),
            **{name: unhealed(module.steps.get(name)) for name in HEALING_STEPS},
        },
        reactions={"round_starts": round_begins},
    )
