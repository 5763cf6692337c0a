"""Which seats a tune plays with when none are named: the strongest rung that fits its time.

Figures read under random seats say how a game goes for players who choose at random; a
designer's band is about players who try. So a tune with no `--policy` takes the strongest rung
of the ladder (search, then greedy, then random) whose games, timed on the pack as written,
would let the whole search end within `--minutes`. The search's cost is foreseen from its
budget: each round plays every candidate on the first games and then halves them, which costs
about (candidates × first games × halving stages) games a round, a round per edit, and the
fresh-seed confirmations on top.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from compiler.tune.evaluate import Lab
from compiler.tune.knobs import STEPS, Knob
from compiler.tune.search import MORE_GAMES, Budget

RUNGS = ("mcts:16", "greedy", "random")
"""The ladder's rungs, strongest first: the first whose search fits the time is taken."""

PROBE_GAMES = 3
"""Games timed under each rung to foresee the search's time."""


def foreseen_games(knobs: int, budget: Budget) -> int:
    """About how many games the search plays, at most."""
    stages = 1 + max(0, math.ceil(math.log2(max(budget.most_games / budget.first_games, 1))))
    per_round = knobs * len(STEPS) * budget.first_games * stages
    # At worst the best is played again on fresh seeds and on more games, doubling up to
    # MORE_GAMES times the budget: 1 + 2 + 2 + 4 + 4 sweeps of the most games.
    doublings = max(0, math.ceil(math.log2(MORE_GAMES)))
    confirming = budget.most_games * (1 + sum(2 * 2**d for d in range(1, int(doublings) + 1)))
    return int(per_round * budget.most_edits + confirming)


def strongest_in_time(
    lab: Lab,
    knobs: Sequence[Knob],
    budget: Budget,
    minutes: float,
    workers: int,
    report: Callable[[str], None],
) -> str:
    """The strongest rung whose foreseen search ends within `minutes` on `workers` cores."""
    games = foreseen_games(len(knobs), budget)
    for rung in RUNGS:
        seconds = lab.seconds_a_game(rung, PROBE_GAMES)
        foreseen = seconds * games / max(workers, 1)
        fits = foreseen <= minutes * 60
        report(
            f"seats {rung}: {seconds:.3f} s a game, about {games:,} games: "
            f"{foreseen / 60:.1f} min{'' if fits else f' (over {minutes:g})'}"
        )
        if fits:
            return rung
    return RUNGS[-1]
