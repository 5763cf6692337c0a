"""Coma Ward's map in play: walking the hallways and the stairs, riding the elevator, and
stopping on a room slot that is not yet revealed.

The map itself is the ruleset's data (`places:` with `level`, `area` and `slot`, `paths:`,
`lifts:`); this module is the rulebook's movement over it. Readings taken here:
- A move is spent one space at a time and the player decides each step (or stops); the stairs
  are walking paths, a floor a move. The elevator is tried for one move: on a failing face it
  does not move and the move is lost, and it may be tried again while moves are left.
- Entering a slot that has no room tile yet ends the move there; revealing it is the turn's
  main action. With the room deck empty, such a slot cannot be entered at all.
- Ending the move (its triggers) happens once, where the player stops, and only if they moved.
- A move a card grants (`move to PLACE`) never enters a slot whose room tile is not laid: only
  the movement action reveals tiles (rulebook line 209). The move is refused and logged.
- `move N spaces away` is exactly N moves (rulebook lines 348-350), each a step the player
  picks, by default the one that leaves them farthest from where they began; the stairs and
  the elevator serve as in any move (a failed ride spends its move), and no step enters an
  unrevealed room. It ends early only where no step is open.
- The winner of a fight by a dodge may step to a space next to theirs, or stay (lines 237,
  268): never into an unrevealed room, nor by the elevator. It is no movement action, so no
  move ends there (line 170).
"""

from __future__ import annotations

from collections.abc import Sequence, Set
from dataclasses import dataclass, field
from functools import cached_property

from runtime.game import Game
from runtime.state import Player
from runtime.world import Board, Lift

STOP = "stop"
"""The answer that ends a move before its last space."""

STAY = "stay"
"""The answer of a dodge's winner who does not step away."""

REMEMBERED_BOARDS = 100
"""Boards whose steps are kept (one a pack loaded) before they are all forgotten."""

REMEMBERED_GOALS = 100
"""Sets of goals a place keeps its nearest step towards before it forgets them all: four in
five moves of a long sweep still find theirs, and a board of many places stays small."""


@dataclass(frozen=True)
class Step:
    """One move from where the player stands: walking, or trying a lift."""

    to: str
    lift: Lift | None = None
    slot_deck: str | None = None  # walking into a slot: the deck its room tile comes from

    @cached_property
    def label(self) -> str:
        """How the step is offered to the player."""
        return f"{self.lift.name} to {self.to}" if self.lift else f"walk to {self.to}"


@dataclass(frozen=True)
class _Moves:
    """The steps a board has from one place, whatever the state, and what a move there offers
    when every one of them is open (as until the room deck runs out)."""

    steps: tuple[Step, ...]
    choices: tuple[str, ...]  # STOP, then each step's label
    # The step nearest each set of goals (the board's mask of them): most moves head for a
    # set some move already did.
    towards: dict[int, int | None] = field(default_factory=dict, compare=False)

    def nearest(self, found: Board, goals: int) -> int | None:
        """The index of the step nearest the goals (a mask), when every step is open
        (remembered)."""
        if goals in self.towards:
            return self.towards[goals]
        if len(self.towards) >= REMEMBERED_GOALS:
            self.towards.clear()
        nearest = self.towards[goals] = _nearest(found, self.steps, goals)
        return nearest


# A board never changes, so the steps from each of its places are made once (a turn takes a
# few): by the board's identity, the board kept beside them so that an identity is not reused.
_MOVES: dict[int, tuple[Board, dict[str, _Moves]]] = {}


def board(game: Game) -> Board:
    """The game's board."""
    return game.rules.world.board


def is_hidden(game: Game, place: str) -> bool:
    """Whether a place is a slot whose room tile has not been laid."""
    return place in board(game).slots and place not in game.state.in_play


def refused_move(game: Game, player: Player, place: str) -> str | None:
    """Why a move a card grants may not go to this place: a slot with no room tile yet."""
    if is_hidden(game, place):
        return "a move a card grants never enters an unrevealed room"
    return None


def move_exactly(game: Game, player: Player, moves: int) -> None:
    """`move 3 spaces away`: exactly `moves` moves, each a step the player picks (by default
    the farthest from the start), the elevator tried as in any move; never into an unrevealed
    room. The move ends where the last step leaves the player."""
    start = player.location
    if start is None:
        return
    found = board(game)
    far = found.distances(start)
    for left in range(moves, 0, -1):
        here = player.location
        if here is None or game.ended:
            break
        steps = [s for s in _board_moves(found, here).steps if not is_hidden(game, s.to)]
        if not steps:
            game.event("move", f"no space is open from {here}: the move ends early")
            break
        away = max(range(len(steps)), key=lambda index: far.get(steps[index].to, -1))
        prompt = f"{left} of {moves} moves left from {here}"
        step = steps[game.decide("move", prompt, [s.label for s in steps], default=away)]
        if step.lift is not None:
            face = game.roll_dice(1, step.lift.sides).faces[0]
            if face in step.lift.fails:
                game.event("move", f"the {step.lift.name} rolls {face}: it does not move")
                continue
        game.event("move", f"move: {here} → {step.to}", to=step.to)
        player.location = step.to
    if player.location != start:
        game.hook("move_ended", player)


def step_away(game: Game, player: Player, away_from: str) -> str | None:
    """A dodge won: the defender may step to a space next to theirs, away from the attacker
    (`away_from` names them); the space stepped to, if they did."""
    here = player.location
    if here is None:
        return None
    spaces = [near for near in sorted(board(game).neighbours(here)) if not is_hidden(game, near)]
    if not spaces:
        return None
    prompt = f"{player.name} may move one space away from {away_from}"
    choices = (STAY, *(f"walk to {space}" for space in spaces))
    picked = game.decide("move", prompt, choices, default=0, asked=player)
    if picked == 0:
        return None
    player.location = spaces[picked - 1]
    game.event("move", f"{player.name} steps away: {here} → {player.location}", to=player.location)
    return player.location


def steps_from(game: Game, place: str) -> Sequence[Step]:
    """Every move possible from a place: its neighbours, then the other stops of its lifts."""
    return _open_steps(game, _board_moves(board(game), place))


def _open_steps(game: Game, moves: _Moves) -> Sequence[Step]:
    """The steps open now: a slot with no tile is not entered once its deck is empty. When
    every step is, the board's own tuple (so its choices are known)."""
    laid, decks = game.state.in_play, game.state.decks
    steps = [
        step
        for step in moves.steps
        if step.slot_deck is None or step.to in laid or decks.get(step.slot_deck)
    ]
    return moves.steps if len(steps) == len(moves.steps) else steps


def _board_moves(found: Board, place: str) -> _Moves:
    """Every step the board has from a place, whatever the state: walking to each neighbour
    (a slot's deck named), then riding each lift to its other stops."""
    kept = _MOVES.get(id(found))
    if kept is None or kept[0] is not found:
        if len(_MOVES) >= REMEMBERED_BOARDS:
            _MOVES.clear()
        kept = _MOVES[id(found)] = (found, {})
    moves = kept[1].get(place)
    if moves is None:
        walks = [
            Step(near, slot_deck=found.slots.get(near)) for near in sorted(found.neighbours(place))
        ]
        rides = [
            Step(stop, lift)
            for lift in found.lifts_at(place)
            for stop in lift.places
            if stop != place
        ]
        steps = (*walks, *rides)
        moves = kept[1][place] = _Moves(steps, (STOP, *(step.label for step in steps)))
    return moves


def nearest_goal(game: Game, steps: Sequence[Step], goals: Set[str]) -> int | None:
    """The index of the step that brings the player closest to one of the goals, if any."""
    found = board(game)
    return _nearest(found, steps, found.mask(goals))


def _nearest(found: Board, steps: Sequence[Step], targets: int) -> int | None:
    """`nearest_goal` on a board, the goals already its mask."""
    best: int | None = None
    nearest = 0
    for index, step in enumerate(steps):
        reach = found.reach_mask(step.to, targets)
        if reach is not None and (best is None or reach < nearest):
            best, nearest = index, reach
    return best


def walk(game: Game, player: Player, moves: int, goals: set[str]) -> str | None:
    """Spend up to `moves` moves, each step the player's decision (by default towards the
    nearest of `goals`); the hidden slot the move ended on, if it did."""
    start = player.location
    left = moves
    found = board(game)
    targets = found.mask(goals)  # the goals stay the same: a number, made once
    while left > 0 and not game.ended and player.location is not None:
        options = _board_moves(found, player.location)
        steps = _open_steps(game, options)
        every = steps is options.steps  # every step open: its choices and nearest are known
        if not targets or player.location in goals:
            towards = None
        else:
            towards = options.nearest(found, targets) if every else _nearest(found, steps, targets)
        choices = options.choices if every else (STOP, *(step.label for step in steps))
        picked = game.decide(
            "move",
            f"{left} move{'s' if left > 1 else ''} left from {player.location}",
            choices,
            default=0 if towards is None else towards + 1,
        )
        if picked == 0:
            break
        step = steps[picked - 1]
        left -= 1
        if step.lift is not None:
            face = game.roll_dice(1, step.lift.sides).faces[0]
            if face in step.lift.fails:
                if game.hears("move"):
                    game.event("move", f"the {step.lift.name} rolls {face}: it does not move")
                continue
        if game.hears("move"):
            game.event("move", f"move: {player.location} → {step.to}", to=step.to)
        player.location = step.to
        if is_hidden(game, step.to):
            if game.hears("move"):
                game.event("move", f"{step.to} has no room tile yet: the move ends")
            break
    if player.location != start:
        game.hook("move_ended", player)
    hidden = player.location
    return hidden if hidden is not None and is_hidden(game, hidden) else None
