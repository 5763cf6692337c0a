"""`greedy` and `mcts`: seats that look ahead by playing the turn out, seeing only what they may.

Both play a decision's answers out on copies of the game (`runtime.policies.lookahead`), dealt
afresh in all the seat cannot see (`runtime.policies.view`), to the end of the turn, where the
state is valued (`runtime.policies.evaluation`). Within a playout, every other question (the
seat's own later ones for `greedy`, everyone else's for both) is answered as the rules answer
it where the answer is theirs (`GameModule.guided`: where a step heads) and at random elsewhere.

- `greedy` plays each answer out once and takes the best.
- `mcts:N` is information-set Monte Carlo tree search (Cowling, Powley and Whitehouse, 2012):
  N playouts, each on a fresh determinization, a tree over the seat's own questions in the turn
  keyed by the answers' words (a question offers different answers in different copies, so each
  answer's UCB counts the playouts it was offered in), and the answer played most is taken.
  `mcts:50ms` plays for that long instead: faster machines search more, and the same seed no
  longer gives the same game.

Every playout draws from the seat's seeded stream: with a playout budget, the same seed gives
the same game, on any number of workers.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from runtime.decisions import Decision
from runtime.game import Game
from runtime.policies.base import Seat, best
from runtime.policies.evaluation import scale, value
from runtime.policies.heuristics import procedural
from runtime.policies.lookahead import Lookahead

EXPLORATION = 0.7
"""UCB1's exploration constant, for values between 0 and 1."""

DEFAULT_PLAYOUTS = 16
"""`mcts` with no budget given: playouts a decision. More bought no wins at a turn's horizon,
at two and four times the cost (docs/policies.md gives the figures)."""

MARGIN = 0.02
"""How much better than the rules' answer (a decision's default) another must be worth to be
taken instead, in the units of the generic terms of a state's worth (`evaluation.scale`: a
game's own terms share the worth with them): within the noise of a few playouts, the rules'
answer stands."""


def searched(game: Game, decision: Decision) -> bool:
    """Whether a question is worth playing out: it has a choice, and its default is not the
    rules' own answer (where a step heads, `GameModule.guided`)."""
    return len(decision.choices) > 1 and decision.kind not in game.module.guided


def pick_best(seat: Seat, worths: list[float], decision: Decision, margin: float) -> int:
    """The answer worth the most, the rules' answer unless another beats it by `margin`."""
    default = decision.default
    if default is not None:
        bar = worths[default] + margin
        if not any(worth > bar for worth in worths):
            return default
    return best(seat, worths, decision)


def unsearched_answer(decision: Decision, stream: random.Random) -> int:
    """How a searching seat answers what it does not search (nothing is kept to play out, or
    there is one answer): the rules' answer to a procedural question, any answer to the rest."""
    if procedural(decision):
        assert decision.default is not None
        return decision.default
    return stream.randrange(len(decision.choices))


def rollout_answer(game: Game, decision: Decision, stream: random.Random) -> int:
    """How a playout answers what it does not search: the rules' answer where it is their
    own (`GameModule.guided`), any answer elsewhere (a default that is only the first action
    would take a free action again and again to the turn's cap)."""
    if decision.default is not None and decision.kind in game.module.guided:
        return decision.default
    return stream.randrange(len(decision.choices))


def _lookahead(seat: Seat) -> Lookahead | None:
    look = seat.lookahead
    return look if look is not None and look.can_play() else None


class GreedyPolicy:
    """Plays each answer out once to the end of the turn and takes the best."""

    searches = True

    def decide(self, game: Game, seat: Seat, decision: Decision) -> int:
        """The answer whose playout ended worth the most."""
        look = _lookahead(seat)
        if look is None or not searched(game, decision):
            return unsearched_answer(decision, seat.random)
        stream = seat.random
        scores: list[float] = []
        for answer in range(len(decision.choices)):
            worth = look.playout(decision, seat.index, stream, _Then(answer, stream), value)
            scores.append(-1.0 if worth is None else worth)
        return pick_best(seat, scores, decision, MARGIN * scale(game, seat.index))


class _Then:
    """A playout's answers for `greedy`: this answer to the question, then the rollout's."""

    def __init__(self, answer: int, stream: random.Random) -> None:
        self.answer: int | None = answer
        self.stream = stream

    def __call__(self, fork: Game, decision: Decision, whose: int) -> int:
        answer, self.answer = self.answer, None
        return rollout_answer(fork, decision, self.stream) if answer is None else answer


@dataclass
class _Node:
    """The seat's questions after one path of its answers: each answer's playouts, their
    summed worth, and the playouts it was offered in."""

    worth: dict[str, float] = field(default_factory=dict)
    visits: dict[str, int] = field(default_factory=dict)
    offered: dict[str, int] = field(default_factory=dict)
    children: dict[str, _Node] = field(default_factory=dict)

    def child(self, answer: str) -> _Node:
        """The node after this answer."""
        node = self.children.get(answer)
        if node is None:
            node = self.children[answer] = _Node()
        return node

    def pick(self, choices: tuple[str, ...], stream: random.Random) -> tuple[int, bool]:
        """The answer to play: one never played yet (at random), else the best by UCB over
        the playouts it was offered in; and whether it was new."""
        for answer in choices:
            self.offered[answer] = self.offered.get(answer, 0) + 1
        untried = [i for i, answer in enumerate(choices) if answer not in self.visits]
        if untried:
            return untried[stream.randrange(len(untried))], True
        scores = [
            self.worth[a] / self.visits[a]
            + EXPLORATION * math.sqrt(math.log(self.offered[a]) / self.visits[a])
            for a in choices
        ]
        return max(range(len(choices)), key=scores.__getitem__), False


class MctsPolicy:
    """Information-set MCTS over the turn under way, with a budget of playouts or of time."""

    searches = True

    def __init__(self, playouts: int = DEFAULT_PLAYOUTS, seconds: float | None = None) -> None:
        self.playouts = playouts
        self.seconds = seconds

    def decide(self, game: Game, seat: Seat, decision: Decision) -> int:
        """The answer played out most."""
        look = _lookahead(seat)
        if look is None or not searched(game, decision):
            return unsearched_answer(decision, seat.random)
        root = _Node()
        stream = seat.random
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds
        played = 0
        while played < self.playouts if deadline is None else time.perf_counter() < deadline:
            played += 1
            path: list[tuple[_Node, str]] = []
            then = _iteration(root, seat.index, stream, path)
            worth = look.playout(decision, seat.index, stream, then, value)
            if worth is None:
                continue
            for node, answer in path:
                node.visits[answer] = node.visits.get(answer, 0) + 1
                node.worth[answer] = node.worth.get(answer, 0.0) + worth
        if not root.visits:
            return unsearched_answer(decision, stream)
        return most_played(seat, root, decision, MARGIN * scale(game, seat.index))


def most_played(seat: Seat, root: _Node, decision: Decision, margin: float) -> int:
    """The answer played out most (the robust choice: a mean of few playouts is noisy, and the
    best of noisy means is too good to be true), its mean breaking ties; the rules' answer
    unless the one played most beats its mean by `margin`."""
    visits = [root.visits.get(answer, 0) for answer in decision.choices]
    means = [
        root.worth.get(answer, 0.0) / count if count else -1.0
        for answer, count in zip(decision.choices, visits, strict=True)
    ]
    most = max(visits)
    picked = best(
        seat, [means[i] if count == most else -2.0 for i, count in enumerate(visits)], decision
    )
    default = decision.default
    if default is not None and visits[default] and means[picked] <= means[default] + margin:
        return default
    return picked


def _iteration(
    root: _Node, me: int, stream: random.Random, path: list[tuple[_Node, str]]
) -> Callable[[Game, Decision, int], int]:
    """One playout's answers: down the tree while the seat's questions are in it, one new
    answer added, then the rollout's answers."""
    at: list[_Node | None] = [root]

    def then(fork: Game, decision: Decision, whose: int) -> int:
        node = at[0]
        if whose != me or node is None or not searched(fork, decision):
            return rollout_answer(fork, decision, stream)
        index, new = node.pick(decision.choices, stream)
        answer = decision.choices[index]
        path.append((node, answer))
        at[0] = None if new else node.child(answer)
        return index

    return then


def policy_of_budget(budget: str) -> MctsPolicy:
    """`mcts:200` (playouts) or `mcts:50ms` (time a decision); ValueError for any other."""
    if budget.endswith("ms") and budget[:-2].isdigit() and int(budget[:-2]) > 0:
        return MctsPolicy(seconds=int(budget[:-2]) / 1000)
    if budget.isdigit() and int(budget) > 0:
        return MctsPolicy(int(budget))
    raise ValueError(f"an mcts budget is playouts (mcts:200) or milliseconds (mcts:50ms): {budget}")
