"""Coma Ward's enemies and board tokens of the phenomenon act: actors that no one plays (the
matron, the waterline, the portals), put on the board by a setup and moved by a round's rules.

Readings taken here:
- "Toward the nearest character": the living character fewest walking moves away (the stairs,
  not the elevator; never through a room slot with no tile), the first in seat order on a tie.
  The enemy walks a shortest path to them, one space a move, and stops on their space.
- An enemy "attacks with N dice": it rolls N dice of the attack check against one character on
  its space (the one it walked toward, else the first in seat order), who dodges or
  counter-attacks as in any fight. If it wins, the character takes an unarmed blow's damage;
  the enemies have no Health, so a counter-attack that wins only fends it off; a dodge that
  wins lets the character step one space away, as in any fight.
- The waterline "climbs one floor": to the next space on another floor that it has not stood on
  (the stairs above it); "below it" are the floors it has risen past.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

from runtime.cards import CardInstance
from runtime.game import Game
from runtime.games.coma_ward_combat import (
    ATTACK,
    DEFENCES,
    DODGE,
    UNARMED_DAMAGE,
    attack_pool,
    choose_loadout,
    combat_rule,
    dodge_pool,
    hurt,
)
from runtime.games.coma_ward_map import board, is_hidden, step_away
from runtime.games.coma_ward_pool import make_pool, roll_prepared
from runtime.state import Actor, Player

STOOD = "stood at:"
"""The flag of a place an enemy has stood on: `stood at:waterline:f1-stairs`."""


def _stood(game: Game, actor: Actor, place: str) -> str:
    return f"{STOOD}{actor.name}:{place}"


def place_actor(game: Game, card: CardInstance, *, actor_kind: str, place: str) -> None:
    """`place matron at nurses-station`: the enemy or token comes onto the board there."""
    space = game.nearest_space(place, None)
    actor = game.spawn(actor_kind, space)
    game.state.flags.add(_stood(game, actor, space))


def _living(game: Game) -> list[Player]:
    return [p for p in game.state.players if not p.dead]


def _path(game: Game, start: str, end: str) -> list[str]:
    """A shortest walk from `start` to `end` (both included), or [] when none joins them."""
    came: dict[str, str | None] = {start: None}
    queue = deque([start])
    while queue:
        place = queue.popleft()
        if place == end:
            path = [place]
            while (before := came[path[-1]]) is not None:
                path.append(before)
            return path[::-1]
        for near in sorted(board(game).neighbours(place)):
            if near not in came and not is_hidden(game, near):
                came[near] = place
                queue.append(near)
    return []


def nearest_character(game: Game, actor: Actor) -> tuple[Player, list[str]] | None:
    """The living character fewest moves from the actor, and the walk to them."""
    if actor.location is None:
        return None
    walks = [(p, _path(game, actor.location, p.location or "")) for p in _living(game)]
    reachable = [(p, walk) for p, walk in walks if walk]
    if not reachable:
        return None
    return min(reachable, key=lambda found: len(found[1]))


def chase(game: Game, card: CardInstance, *, actor_kind: str, amount: int) -> None:
    """`the matron moves 2 toward the nearest character`."""
    for actor in game.actors_of(actor_kind):
        game.step()
        found = nearest_character(game, actor)
        if found is None:
            game.event("enemy", f"{actor.name} finds no one to walk toward", actor=actor.name)
            continue
        prey, walk = found
        game.target(prey)
        start, actor.location = actor.location, walk[min(amount, len(walk) - 1)]
        game.event(
            "enemy",
            f"{actor.name} walks toward {prey.name}: {start} → {actor.location}",
            actor=actor.name,
            to=actor.location,
            toward=prey.name,
        )


def strike(game: Game, card: CardInstance, *, actor_kind: str, amount: int) -> None:
    """`the matron attacks with 4 dice`: a character on its space defends."""
    for actor in game.actors_of(actor_kind):
        here = [p for p in _living(game) if p.location == actor.location]
        if not here:
            game.event("enemy", f"{actor.name} has no one to attack", actor=actor.name)
            continue
        target = game.state.target
        defender = target if target in here and isinstance(target, Actor) else here[0]
        fight(game, actor, defender, amount)


def fight(game: Game, enemy: Actor, defender: Player, dice: int) -> bool:
    """An enemy's attack of `dice` dice against a character; whether it hurt them."""
    game.step()
    game.event(
        "combat",
        f"{enemy.name} attacks {defender.name} with {dice} dice",
        action="attack",
        attacker=enemy.name,
        defender=defender.name,
    )
    rule = combat_rule(game, ATTACK)
    label = f"{enemy.name} attacks"
    hits = roll_prepared(game, make_pool(dice, rule.params, label, enemy.name), rule, label)
    prompt = f"{defender.name} defends against {enemy.name}"
    defence = DEFENCES[game.decide("defence", prompt, DEFENCES, default=0, asked=defender)]
    if defence == "dodge":
        pool = dodge_pool(game, defender)
        blocks = roll_prepared(game, pool, combat_rule(game, DODGE), pool.label)
    else:
        gear = choose_loadout(game, defender, "counter-attacks")
        label = f"{defender.name} counter-attacks"
        pool = attack_pool(game, defender, gear, label, ("attack", "counter-attack"))
        blocks = roll_prepared(game, pool, rule, label)
    if hits <= blocks:
        game.event(
            "combat",
            f"{defender.name} holds off {enemy.name}, {hits} to {blocks}",
            winner=defender.name,
        )
        if defence == "dodge" and hits < blocks:
            step_away(game, defender, enemy.name)
        return False
    game.event(
        "combat",
        f"{enemy.name} wins {hits} to {blocks}: {defender.name} takes {UNARMED_DAMAGE} damage",
        winner=enemy.name,
        damage=UNARMED_DAMAGE,
    )
    hurt(game, defender, UNARMED_DAMAGE)
    return True


def climb(game: Game, card: CardInstance, *, actor_kind: str) -> None:
    """`the waterline climbs a floor`: to the next floor's space it has not stood on."""
    levels = board(game).levels
    for actor in game.actors_of(actor_kind):
        game.step()
        here = actor.location or ""
        up = [
            near
            for near in sorted(board(game).neighbours(here))
            if levels.get(near) != levels.get(here)
            and _stood(game, actor, near) not in game.state.flags
        ]
        if not up:
            game.event("enemy", f"{actor.name} can climb no higher", actor=actor.name)
            continue
        actor.location = up[0]
        game.state.flags.add(_stood(game, actor, up[0]))
        game.event("enemy", f"{actor.name} climbs: {here} → {up[0]}", actor=actor.name, to=up[0])


def below(game: Game, actor: Actor) -> set[str]:
    """The floors an actor has risen past."""
    levels = board(game).levels
    prefix = f"{STOOD}{actor.name}:"
    passed = {levels.get(f.removeprefix(prefix)) for f in game.state.flags if f.startswith(prefix)}
    return {level for level in passed if level is not None} - {levels.get(actor.location or "")}


def flood(game: Game, card: CardInstance, *, actor_kind: str, amount: int) -> None:
    """`flood below the waterline 1`: each character on a floor below it loses Health."""
    levels = board(game).levels
    for actor in game.actors_of(actor_kind):
        drowned = below(game, actor)
        for player in _living(game):
            if levels.get(player.location or "") in drowned:
                game.event("enemy", f"{actor.name} is above {player.name}", actor=actor.name)
                game.change("health", -amount, player)


def everyone_on(game: Game, card: CardInstance, *, actor_kind: str) -> bool:
    """`everyone living is on a portal`."""
    spaces = {actor.location for actor in game.actors_of(actor_kind)}
    alive = _living(game)
    return bool(alive) and all(player.location in spaces for player in alive)


def actor_at(game: Game, card: CardInstance, *, actor_kind: str, place: str) -> bool:
    """`the waterline is at f3-stairs`."""
    return any(game.at_place(a.location, place) for a in game.actors_of(actor_kind))


ENEMY_VERBS: dict[str, Callable[..., None]] = {
    "place_actor": place_actor,
    "climb": climb,
    "flood": flood,
    "chase": chase,
    "strike": strike,
}
"""The verbs that put and move the act's enemies."""
