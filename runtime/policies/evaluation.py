"""What a game's state is worth to a seat, read from the game's own data.

A game that is over is worth 1 to a seat among its winners and 0 to any other. Before its end,
a playout stops at a horizon (the end of the turn) and the state is valued between the two, from
what every ruleset states: the stats' polarity (`runtime.stats.polarity`: more of a stat whose
lowest value kills is good) of the seat itself, of the seats beside it and of the actors no seat
plays (what is good for a monster is bad for the seats), how many seats still stand, and the
cards the game keeps as found (its goals count them). Their weights are the same for every
game; a ruleset says what its own progress is in `game: worth:` (a track, a goal's count, the
foes down), and its terms are added to these, each weighed against the generic ones' 1.
"""

from __future__ import annotations

from runtime.game import Game
from runtime.state import Actor
from runtime.stats import polarity

ALIVE = 0.25
"""The worth of the seat itself standing."""

SEATS_ALIVE = 0.15
"""The worth of every seat standing, shared out among them."""

OWN_STATS = 0.15
"""The worth of the seat's own stats at their best."""

SEATS_STATS = 0.1
"""The worth of every standing seat's stats at their best, on average."""

FOUND = 0.2
"""The worth of the cards the game keeps as found, approached as more are found."""

FOES = 0.15
"""The worth of the actors no seat plays at their worst (dead, or their stats at their worst)."""

FOUND_HALF = 3
"""Found cards at which half of `FOUND` is reached."""


def standing(actor: Actor) -> float:
    """How well an actor stands: its stats between their worst and best, on average (0.5
    when none of its stats has a polarity)."""
    stats = actor.stats
    signs = polarity(stats.rules.values())
    total, counted = 0.0, 0
    for name, sign in signs.items():
        rule = stats.rules[name]
        if rule.high <= rule.low:
            continue
        share = (stats.values.get(name, rule.start) - rule.low) / (rule.high - rule.low)
        total += share if sign > 0 else 1 - share
        counted += 1
    return total / counted if counted else 0.5


def scale(game: Game, seat: int) -> float:
    """How much of the worth between lost and won the generic terms span: 1, less where the
    game's own terms (`game: worth:`) share it. A margin in the generic terms' units is this
    much in a state's worth."""
    progress = game.module.progress
    return 1.0 if progress is None else 1 / (1 + progress(game, seat)[1])


def value(game: Game, seat: int) -> float:
    """The state's worth to the seat: 1 won, 0 lost, between the two while it goes on."""
    state = game.state
    me = state.players[seat]
    if state.over is not None:
        won = state.over == "won" and (not state.winners or me.name in state.winners)
        return 1.0 if won else 0.0
    seats = state.players
    alive = [player for player in seats if not player.dead]
    worth = 0.0 if me.dead else ALIVE + OWN_STATS * standing(me)
    worth += SEATS_ALIVE * len(alive) / len(seats)
    if alive:
        worth += SEATS_STATS * sum(standing(player) for player in alive) / len(alive)
    found = len(state.found)
    worth += FOUND * found / (found + FOUND_HALF)
    foes = state.others
    if foes:
        worth += FOES * sum(1.0 if foe.dead else 1 - standing(foe) for foe in foes) / len(foes)
    else:
        worth += FOES / 2
    progress = game.module.progress
    if progress is not None:  # the game's own terms, weighed against the generic ones' 1
        earned, weights = progress(game, seat)
        worth = (worth + earned) / (1 + weights)
    return 0.05 + 0.9 * worth
