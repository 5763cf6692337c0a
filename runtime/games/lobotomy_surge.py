"""Lobotomy's Surge: the special events of a scenario with Slashers (rulebook 383-389).

- Green (385): `bring out "The Slasher" up to 3`: a copy of that monster card comes onto a
  random space and moves this monsters' turn, unless that many of it are on the board. The
  space comes from the board's own stream (`lobotomy_table.layout`), as setup's do, so that a
  card's odds need not branch on it.
- Blue (387): `lock the doors by the characters`: the rulebook locks the doors of the rooms
  with characters in them, laying random door tokens on their door spaces. The board has no
  rooms (docs/readings.md): a random door token of the doors deck is laid face down on each
  space with a character on it that has none (the central piece, no room, is left), between
  it and the next space; the characters must open it to go that way.
- Red (389): `surge "The Slasher"`: until the monsters' turn ends, each monster of that card
  is ethereal (it walks through doors; its attacks are as any other's, the board having no
  walls for them to pass) and has 1 AP more.
"""

from __future__ import annotations

from runtime.cards import CardInstance
from runtime.game import Game
from runtime.games.lobotomy_monsters import MONSTER
from runtime.games.lobotomy_table import layout, spaces
from runtime.games.lobotomy_tokens import DOOR, place_token, tokens_at
from runtime.module import GameModule, step_then

ETHEREAL = "ethereal"
AP = "ap"
DOORS = "doors"
LAST_STEP = "monsters_attack"
SURGING = "surging"
"""The flag `surging:<monster>:<made ethereal: 1 or 0>` of a monster in a red Surge."""


def bring_out(game: Game, card: CardInstance, *, title: str, most: int) -> None:
    """`bring out "The Slasher" up to 3`: a copy of the card at a random space (385)."""
    standing = [
        m
        for m in game.actors_of(MONSTER)
        if m.location is not None and m.sheet is not None and m.sheet.title == title
    ]
    if len(standing) >= most:
        game.event("spawn", f"{len(standing)} of {title} on the board already: no more")
        return
    definition = next((c for c in game.cards if c.kind == MONSTER and c.title == title), None)
    if definition is None:
        game.event("spawn", f"the pack has no monster {title}")
        return
    place = layout(game, f"{title}:{len(standing)}").choice(spaces(game))
    game.spawn(MONSTER, place, game.new_instance(definition))


def lock_doors(game: Game, card: CardInstance) -> None:
    """`lock the doors by the characters`: a random door token face down on each character's
    space that has none (387, the reading of the module's docstring)."""
    spaces = sorted(
        {
            c.location
            for c in game.actors_of(game.seated_kind)
            if c.location is not None and c.location != game.rules.start_place
        }
    )
    for place in spaces:
        pile = game.state.decks.get(DOORS) or []
        if tokens_at(game, place, (DOOR,)):
            continue
        if not pile:
            game.event("door", "the door tokens are all on the board")
            return
        place_token(game, game.from_deck(pile.pop()), place)


def surge(game: Game, card: CardInstance, *, title: str) -> None:
    """`surge "The Slasher"`: each monster of the card ethereal, with 1 AP more, until the
    monsters' turn ends (389)."""
    for monster in game.actors_of(MONSTER):
        if monster.location is None or monster.sheet is None or monster.sheet.title != title:
            continue
        made = ETHEREAL not in monster.keywords
        monster.keywords = monster.keywords | {ETHEREAL}
        game.state.flags.add(f"{SURGING}:{monster.name}:{int(made)}")
        game.change(AP, 1, monster)
        game.event("surge", f"{monster.name} surges: ethereal, 1 AP more", actor=monster.name)


def surge_ends(game: Game) -> None:
    """The monsters' turn is over: the surging monsters are as their cards say again."""
    for flag in sorted(f for f in game.state.flags if f.startswith(SURGING + ":")):
        game.state.flags.discard(flag)
        _, name, made = flag.rsplit(":", 2)
        for monster in game.actors_of(MONSTER):
            if monster.name == name:
                if made == "1":
                    monster.keywords = monster.keywords - {ETHEREAL}
                if not monster.dead:
                    game.change(AP, -1, monster)


def extend(module: GameModule) -> GameModule:
    """The module with the Surge's verbs, and its red event ended with the monsters' turn."""
    return module.extend(
        module.name,
        verbs={"bring_out": bring_out, "lock_doors": lock_doors, "surge": surge},
        steps={LAST_STEP: step_then(module.steps.get(LAST_STEP), surge_ends)},
    )
