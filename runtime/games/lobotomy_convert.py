"""Lobotomy's Convert (rulebook 1135): a character takes control of a basic or elite monster.

`convert the target`: the target, a monster that is no boss (a boss is never controlled,
1111), becomes the character's, one at a time (a second converted frees the first). Then:
- it is treated as a character: the monsters attack it on its space as they do the
  characters there (by the same order: Defense, then what health it has left), and it holds
  no character on its space;
- it moves no more in the monsters' turn, nor attacks there (a reading: it stays where it was
  taken, as the rulebook gives no move for it);
- it cannot be healed, and it loses 1 HP at the start of its controller's turn;
- it attacks once a round, in its controller's turn, as it starts: its stat-line dice at a
  monster on its space (boss first, then elite, then basic), with no attack table (a reading:
  the player would always take the attack it is allowed).
"""

from __future__ import annotations

from runtime.cards import CardInstance
from runtime.game import Game
from runtime.games.lobotomy_attack import attack_told, target_of
from runtime.games.lobotomy_dice import Attack
from runtime.state import Actor

CONVERTED = "converted"
"""The flag `converted:<monster>:<character>` of a monster a character controls; the bare flag
says some monster was converted in this game."""

HP = "hp"
MONSTER = "monster"
ORDER = ("boss", "elite", "basic")


def controller(game: Game, monster: Actor) -> str | None:
    """The name of the character who controls a monster, if one does."""
    prefix = f"{CONVERTED}:{monster.name}:"
    return next((f[len(prefix) :] for f in game.state.flags if f.startswith(prefix)), None)


def converted(game: Game, actor: Actor) -> bool:
    """Whether an actor is a monster a character controls."""
    # Asked of every monster at every step: the bare flag, set at the first conversion, spares
    # the scan of every flag in the games (most of them) where no monster was ever converted.
    if CONVERTED not in game.state.flags:
        return False
    return actor.kind != game.seated_kind and controller(game, actor) is not None


def convert(game: Game, card: CardInstance) -> None:
    """`convert the target`: a basic or elite monster becomes the character's (1135)."""
    target, actor = game.state.target, game.actor
    if target is None or target.dead or target.kind == game.seated_kind:
        game.event("convert", "no monster to convert")
        return
    if not {"basic", "elite"} & target.keywords or "boss" in target.keywords:
        game.event("convert", f"{target.name} cannot be controlled")
        return
    game.state.flags = {
        f
        for f in game.state.flags
        if not (f.startswith(CONVERTED) and f.endswith(f":{actor.name}"))
    }
    game.state.flags.add(f"{CONVERTED}:{target.name}:{actor.name}")
    game.state.flags.add(CONVERTED)
    game.event("convert", f"{actor.name} takes control of {target.name}", actor=target.name)


def controlled_turn(game: Game, actor: Actor) -> None:
    """The start of a character's turn: the monster they control loses 1 HP, then attacks
    a monster on its space once (1135)."""
    mine = [
        m
        for m in game.actors_of(MONSTER)
        if m.location is not None and not m.dead and controller(game, m) == actor.name
    ]
    for monster in mine:
        game.event("convert", f"{monster.name} weakens under {actor.name}'s control")
        game.change(HP, -1, monster)
        if monster.dead or monster.location is None:
            continue
        enemies = [
            m
            for m in game.actors_of(MONSTER, monster.location)
            if m is not monster and not m.dead and not converted(game, m)
        ]
        if not enemies:
            continue
        enemy = min(enemies, key=_rank)
        attack = Attack(max(monster.stats.get("dice"), 0), monster.stats.get("ar"))
        game.step()
        damage = attack_told(game, monster, enemy, attack, target_of(game, enemy, {}))
        if damage:
            game.change(HP, -damage, enemy)


def _rank(monster: Actor) -> int:
    return next((i for i, word in enumerate(ORDER) if word in monster.keywords), len(ORDER))
