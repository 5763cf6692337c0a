"""Lobotomy at the table: what its whole game (the ruleset's `game:`) needs that data cannot say.

The players' turn is data: each action of the rulebook's list (Available Actions, lines 312-325)
is an entry of the ruleset's `game: actions:`, with its cost in AP. Here are the procedures
those entries name, and the board's setup:

- **The board** (Board Setup, 225-243): the token decks (lockers, bodies, doors) are laid face
  down on spaces picked at random, a body on the pentagram of the central piece first; two
  memory tokens go on each quarter; a basic monster comes onto each quarter, and two more with
  four characters or more (the rulebook's patients, scavengers and nurses: the pack's monster
  deck, top card first). The board has no highlighted areas nor doorways, so "at random" is
  the reading for where a token lies, and a door stands between its space and the next
  (`lobotomy_tokens.door_between`). Places are picked by a stream seeded from the game's seed,
  not the game's dice, so that a forced-dice test starts at the first turn.
- **Memory tokens** (492-494; step 3, 393-395): a flag `memory token:SPACE`; a character on its
  space picks it up for 1 AP and draws from their own memory deck. At most 12 lie on the board.
- **Moving** (a step of 1 AP): to a space next to yours that no door in the way shuts
  (`lobotomy_tokens.door_in_the_way`); the Warden and monsters do not stop a move.
- **Revealing a door** on your space (1 AP, paid by `lobotomy_tokens.reveal`).
- The difficulty is the number of scenarios played in a row (the `scenarios` track's most: a
  pack's ruleset sets 1 to 4); the game notes it, and the first scenario's title, for the
  figures of a simulation.
"""

from __future__ import annotations

import random

from runtime.cards import CardInstance
from runtime.game import Game
from runtime.games.lobotomy_inventory import (
    can_discard,
    can_trade,
    discard_item,
    memory_deck,
    trade,
)
from runtime.games.lobotomy_monsters import spawn_top_monster
from runtime.games.lobotomy_scenarios import SCENARIOS, active, can_interact, interact
from runtime.games.lobotomy_tokens import (
    DOOR,
    door_in_the_way,
    place_token,
    reveal,
    revealed,
    tokens_at,
)
from runtime.module import GameModule
from runtime.state import Player

QUARTERS = "ABCD"
SPACES = 12
"""The board's quarters and the numbered spaces of each (the Warden's patrol walks them)."""
MEMORY_TOKEN = "memory token"
"""The flag of a memory token on a space: `memory token:A7`."""
MEMORY_TOKENS_AT_SETUP = 2
"""Memory tokens on each quarter at setup (240)."""
MOST_MEMORY_TOKENS = 12
"""Memory tokens in the box: none spawns while all are on the board (395)."""
MORE_MONSTERS_FROM = 4
"""Characters from which two more basic monsters come at setup (the nurses, 241)."""
TOKEN_DECKS = ("bodies", "lockers", "doors")
CENTRAL_BODY = "bodies"
"""The deck whose first token lies on the pentagram of the central piece (236)."""
DIFFICULTY = "difficulty"
FIRST_SCENARIO = "first scenario"


def layout(game: Game, what: str) -> random.Random:
    """The stream that picks where things go on the board: seeded by the game and by what is
    placed, so that the game's dice are left to the turns."""
    return random.Random(f"board:{game.seed}:{what}:{game.state.round}")


def spaces(game: Game, quarter: str | None = None) -> list[str]:
    """The numbered spaces of the board (of one quarter), in the board's order."""
    board = game.rules.world.board.places
    return [p for p in board if p[:1] in QUARTERS and (quarter is None or p[:1] == quarter)]


def set_the_board(game: Game, player: Player) -> None:
    """The board's setup: tokens, memory tokens and the basic monsters, then the notes."""
    picker = layout(game, "tokens")
    numbered = spaces(game)
    start = game.rules.start_place
    for deck in TOKEN_DECKS:
        pile = game.state.decks.get(deck) or []
        while pile:
            token = game.from_deck(pile.pop())
            if deck == CENTRAL_BODY and start is not None and not game.state.floor.get(start):
                where = start
            else:
                where = picker.choice(numbered)
            place_token(game, token, where)
    for quarter in QUARTERS:
        for space in picker.sample(spaces(game, quarter), MEMORY_TOKENS_AT_SETUP):
            lay_memory_token(game, space)
    monsters = len(QUARTERS) + (2 if len(game.state.players) >= MORE_MONSTERS_FROM else 0)
    for index in range(monsters):
        quarter = QUARTERS[index % len(QUARTERS)]
        spawn_top_monster(game, picker.choice(spaces(game, quarter)))
    note_the_game(game)


def note_the_game(game: Game) -> None:
    """The difficulty and the first scenario, for the figures of a simulation."""
    rule = game.rules.world.tracks.get(SCENARIOS)
    game.state.labels[DIFFICULTY] = str(rule.high) if rule is not None else "none"
    scenarios = active(game)
    game.state.labels[FIRST_SCENARIO] = scenarios[0].title if scenarios else "none"


def lay_memory_token(game: Game, space: str) -> None:
    """A memory token on a space, unless one lies there or all are on the board."""
    flag = f"{MEMORY_TOKEN}:{space}"
    laid = sum(1 for f in game.state.flags if f.startswith(f"{MEMORY_TOKEN}:"))
    if flag in game.state.flags or laid >= MOST_MEMORY_TOKENS:
        return
    game.state.flags.add(flag)
    game.event("memory", f"a memory token appears on {space}", place=space)


def spawn_memory_token(game: Game) -> None:
    """Step 3 of a movement card with the memory symbol: a memory token at random (395)."""
    lay_memory_token(game, layout(game, MEMORY_TOKEN).choice(spaces(game)))


def memory_here(game: Game, player: Player) -> bool:
    """Whether a memory token lies on the player's space."""
    return f"{MEMORY_TOKEN}:{player.location}" in game.state.flags


def pick_up_memory(game: Game, player: Player) -> None:
    """Pick up the memory token here (1 AP, paid by the action): a card of your memory deck."""
    flag = f"{MEMORY_TOKEN}:{player.location}"
    if flag not in game.state.flags:
        return
    game.state.flags.discard(flag)
    game.event("memory", f"{player.name} picks up the memory token on {player.location}")
    deck = memory_deck(player)
    if deck in game.state.decks:
        game.draw(deck)


def open_ways(game: Game, player: Player) -> list[str]:
    """The spaces next to the player's that no door shuts off."""
    here = player.location
    if here is None:
        return []
    near = sorted(game.rules.world.board.neighbours(here))
    return [place for place in near if door_in_the_way(game, player, place) is None]


def walk(game: Game, player: Player) -> None:
    """Move one space (1 AP, paid by the action), to a space next to yours the seat picks."""
    ways = open_ways(game, player)
    if not ways:
        return
    picked = game.decide("step", "move to", ways, default=0)
    game.move(ways[picked])


def can_walk(game: Game, player: Player) -> bool:
    """Whether a space next to the player's is open to them."""
    return bool(open_ways(game, player))


def _face_down_doors(game: Game, player: Player) -> list[CardInstance]:
    return [d for d in tokens_at(game, player.location, (DOOR,)) if not revealed(game, d)]


def reveal_door(game: Game, player: Player) -> None:
    """Turn the face-down door on your space up (1 AP, paid by revealing it)."""
    doors = _face_down_doors(game, player)
    if doors:
        reveal(game, doors[0])


def can_reveal_door(game: Game, player: Player) -> bool:
    """Whether a face-down door lies on the player's space."""
    return bool(_face_down_doors(game, player))


def extend(module: GameModule) -> GameModule:
    """The module with the procedures the whole game's data names."""
    return module.extend(
        module.name,
        procedures={
            "set_the_board": set_the_board,
            "walk": walk,
            "reveal_door": reveal_door,
            "pick_up_memory": pick_up_memory,
            "trade": trade,
            "discard_item": discard_item,
            "interact": interact,
        },
        can={
            "walk": can_walk,
            "reveal_door": can_reveal_door,
            "pick_up_memory": memory_here,
            "trade": can_trade,
            "discard_item": can_discard,
            "interact": can_interact,
        },
    )
