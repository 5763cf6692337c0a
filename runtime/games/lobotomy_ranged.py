"""Lobotomy's monsters at a distance: line of sight, ranged monsters, Blood Bond (rulebook
339-341, 805, 819-821, 966-970, 1147).

- *Line of sight* between two spaces is a straight line, blocked by walls, door tokens and
  obstacles, never by figures (339-341, 729). The board has no walls (docs/readings.md): the
  straight line is a shortest way along the board, and a door token on the board (face down or
  revealed, 966) standing between two spaces of it blocks that way. Two spaces see each other
  when some shortest way between them crosses no door; an opened door is off the board and
  blocks nothing (968-970: the rooms it opens onto are not modelled).
- *Ranged monsters* (`is ranged`, `range 2`): in the monsters' movement one stops as soon as a
  character it sees is within its range; one nearer a character than its range steps away,
  to be as far from every character as it can while one is still in its range and sight
  (819-821). It attacks from there, adding the Overwhelm of the space it attacks (805).
- *Blood Bond* (1147): a monster within 4 spaces of another monster of its own card has +1 to
  its attack rolls and one more attack.
"""

from __future__ import annotations

from collections.abc import Sequence

from runtime.game import Game
from runtime.games.lobotomy_tokens import DOOR, moves_to, spaces_of
from runtime.state import Actor

RANGED = "ranged"
"""The keyword of a monster that attacks from afar."""

REACH = "reach"
"""The monster card's property of its range (`range 2`)."""

BOND = "bond"
"""The monster card's property of a Blood Bond."""

BOND_SPACES = 4
"""Blood Bond (1147): how near another monster of its card a monster must be."""


def reach(monster: Actor) -> int:
    """How many spaces away a ranged monster attacks from (0: it is not ranged)."""
    if RANGED not in monster.keywords or monster.sheet is None:
        return 0
    value = monster.sheet.definition.properties.get(REACH)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def door_lines(game: Game) -> set[frozenset[str]]:
    """The pairs of spaces a door token on the board stands between: no line passes them."""
    found: set[frozenset[str]] = set()
    for cards in game.state.floor.values():
        for token in cards:
            if token.kind == DOOR:
                spaces = spaces_of(game, token)
                if len(spaces) == 2:
                    found.add(frozenset(spaces))
    return found


def sees(game: Game, here: str, there: str) -> bool:
    """Whether there is a line of sight between two spaces: a shortest way crossing no door."""
    if here == there:
        return True
    away = game.rules.world.board.distance(here, there)
    if away is None:
        return False
    blocked = door_lines(game)
    return not blocked or moves_to(game, there, blocked).get(here) == away


def in_sight(game: Game, here: str, there: str, most: int) -> bool:
    """Whether a space is within `most` spaces of another and seen from it."""
    away = game.rules.world.board.distance(here, there)
    return away is not None and away <= most and sees(game, here, there)


def in_range(game: Game, monster: Actor, characters: Sequence[Actor]) -> list[Actor]:
    """The characters a ranged monster can attack from where it stands."""
    here, most = monster.location, reach(monster)
    if here is None:
        return []
    return [c for c in characters if c.location and in_sight(game, here, c.location, most)]


def _nearest(game: Game, place: str, characters: Sequence[Actor]) -> int:
    board = game.rules.world.board
    away = [board.distance(place, c.location or "") for c in characters]
    return min((a for a in away if a is not None), default=0)


def keeps_range(game: Game, monster: Actor, characters: Sequence[Actor]) -> str | None:
    """Where a ranged monster with a character in range steps (None: it stays): away from the
    nearest character while it is nearer than its range, to the space farthest from them all
    from which one is still in range and sight (ties: board order). Unlike characters, it
    leaves a space with characters on it freely (823)."""
    here, most = monster.location, reach(monster)
    if here is None or _nearest(game, here, characters) >= most:
        return None
    board = game.rules.world.board
    order = {place: index for index, place in enumerate(board.places)}
    options = [
        place
        for place in board.neighbours(here)
        if any(c.location and in_sight(game, place, c.location, most) for c in characters)
        and _nearest(game, place, characters) > _nearest(game, here, characters)
    ]
    return min(
        options, key=lambda p: (-_nearest(game, p, characters), order.get(p, 0)), default=None
    )


def bonded(game: Game, monster: Actor) -> bool:
    """Blood Bond (1147): another monster of its card on the board within 4 spaces."""
    sheet, here = monster.sheet, monster.location
    if sheet is None or here is None or not sheet.definition.properties.get(BOND):
        return False
    board = game.rules.world.board
    return any(
        other is not monster
        and other.sheet is not None
        and other.sheet.title == sheet.title
        and other.location is not None
        and board.distances(here).get(other.location, BOND_SPACES + 1) <= BOND_SPACES
        for other in game.actors_of(monster.kind)
    )
