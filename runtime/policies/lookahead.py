"""Lookahead: the turn under way kept as it began, and playouts of it from there.

A seat that searches cannot copy the game at the moment it is asked: the question comes from
deep inside a card's effect, and what follows the answer is the rest of that Python call. So
the game is copied where a turn begins (`Game.turn_watch`, a fork: `runtime.fork`), and every
answer given and die rolled since is written down. A playout forks that copy again, deals it
what the seat cannot see afresh (`runtime.policies.view`), plays the turn again with the same
answers and dice up to the question, answers it, and plays on to the end of the turn with
fresh dice, where the game's state is valued (`runtime.policies.evaluation`). A fork is a copy
of the state at the turn's start, never a replay of the game from its start: what is replayed
is the turn so far.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from runtime.decisions import Decision, DecisionError, FirstChoice
from runtime.dice import DiceError, DiceSource, draws_below
from runtime.fork import fork, shuffle_from
from runtime.game import Game, RunawayError, RunEnded
from runtime.policies.view import Dealer
from runtime.rounds import take_turn
from runtime.state import Actor
from runtime.world import Phase


def asked_seat(game: Game, decision: Decision) -> int:
    """The seat a decision is asked of: the one it names (a defender), else the seated actor
    whose turn it is, else the current player (a monster's turn is played by the table)."""
    if decision.seat is not None:
        return decision.seat
    actor = game.actor
    if actor.seat is not None:
        return actor.seat
    return game.state.current


class Diverged(Exception):
    """A playout's replay of the turn so far did not ask what the game asked."""


class _NoDice:
    """The dice of a copy kept only to be copied again: it is never played."""

    def roll(self, sides: int) -> int:
        """Never called."""
        raise DiceError("a kept copy of a game is never played")


class RecordingDice:
    """The game's own dice, every face written down for the turn under way."""

    def __init__(self, inner: DiceSource) -> None:
        self.inner = inner
        self.faces: list[int] = []

    def roll(self, sides: int) -> int:
        """The game's face, kept."""
        face = self.inner.roll(sides)
        self.faces.append(face)
        return face


class ReplayDice:
    """The faces the turn has shown so far, then fresh ones from the playout's stream."""

    def __init__(self, faces: Sequence[int], stream: random.Random) -> None:
        self.faces = faces
        self.next = 0
        self.below = draws_below(stream)

    def roll(self, sides: int) -> int:
        """The next face seen, else a fresh one."""
        if self.next < len(self.faces):
            face = self.faces[self.next]
            self.next += 1
            if face > sides:
                raise Diverged(f"a d{sides} showed {face}")
            return face
        return self.below(sides) + 1


@dataclass
class Checkpoint:
    """A turn as it began: a copy of the game then, whose turn it is, and what happened since."""

    game: Game
    actor: int  # the index, among the game's actors, of the actor whose turn it is
    phase: Phase
    shuffles: int  # the game's shuffles then
    answers: list[int] = field(default_factory=list)


Chooser = Callable[[Game, Decision, int], int]
"""How a playout answers once the turn so far is replayed: given the fork, the decision and
the seat it is asked of (the first one is the question being searched)."""


class _Replay:
    """A playout's decision maker: the answers given so far, then the question, then `then`."""

    def __init__(
        self,
        answers: list[int],
        root: Decision,
        then: Chooser,
        reads_defaults: bool,
        stream: random.Random | None,
    ) -> None:
        self.answers = answers
        self.stream = stream  # shuffle from it once the question is reached, if not already
        self.next = 0
        self.root = root
        self.then = then
        self.fork: Game | None = None
        # A game asks differently of a maker that reads the rules' answers (a move's
        # heading): the replay must read them as the game's own maker did.
        self.reads_defaults = reads_defaults

    def decide(self, decision: Decision) -> int:
        """The answer given, or the chooser's."""
        if self.next < len(self.answers):
            answer = self.answers[self.next]
            self.next += 1
            if answer >= len(decision.choices):
                raise Diverged(f"{decision.prompt}: no answer {answer}")
            return answer
        game = self.fork
        assert game is not None
        if self.next == len(self.answers):
            self.next += 1
            if decision.choices != self.root.choices or decision.kind != self.root.kind:
                raise Diverged(f"asked {decision.prompt!r}, not {self.root.prompt!r}")
            if self.stream is not None:
                shuffle_from(game, self.stream)
        return self.then(game, decision, asked_seat(game, decision))


class Lookahead:
    """The turn under way of one game, kept for its seats to play again."""

    def __init__(self, game: Game, reads_defaults: bool) -> None:
        self.game = game
        self.reads_defaults = reads_defaults
        self.dice = RecordingDice(game.dice)
        game.dice = self.dice
        game.turn_watch = self.turn_begins
        self.checkpoint: Checkpoint | None = None
        self._dealer: tuple[Decision, Dealer] | None = None  # the question dealt for last
        self.playouts = 0  # playouts played, for the bench
        self.diverged = 0  # playouts whose replay went elsewhere (none should)
        # playouts whose turn ended before the question came: a question asked between turns
        # (a phase's steps, a round's start), which the turn kept cannot reach
        self.unreached = 0

    def turn_begins(self, actor: Actor, phase: Phase) -> None:
        """Keep the game as this turn begins."""
        game = self.game
        kept = fork(game, FirstChoice(), _NoDice(), lends=True)
        index = next(i for i, one in enumerate(game.state.actors) if one is actor)
        self.checkpoint = Checkpoint(kept, index, phase, game.shuffles)
        self.dice.faces = []

    def _dealer_for(self, decision: Decision, seat: int, checkpoint: Checkpoint) -> Dealer:
        """The dealer of the question being searched, worked out at its first playout."""
        if self._dealer is None or self._dealer[0] is not decision:
            self._dealer = (decision, Dealer(checkpoint.game, self.game, decision, seat))
        return self._dealer[1]

    def answered(self, index: int) -> None:
        """One more answer given in the turn under way."""
        if self.checkpoint is not None:
            self.checkpoint.answers.append(index)

    def can_play(self) -> bool:
        """Whether a turn is kept to play again (none before the first turn: the setup)."""
        return self.checkpoint is not None

    def playout(
        self,
        decision: Decision,
        seat: int,
        stream: random.Random,
        then: Chooser,
        value: Callable[[Game, int], float],
    ) -> float | None:
        """Play the turn again from its start with what the seat cannot see dealt afresh, the
        answers given so far, `then` for the rest; the state at its end valued for the seat.
        None when the replay went elsewhere."""
        checkpoint = self.checkpoint
        assert checkpoint is not None, "a playout needs a turn under way"
        self.playouts += 1
        # Shuffles from the seat's stream, unless the game shuffled since the turn began: then
        # the replay must shuffle as the game did, from a copy of the game's stream, up to the
        # question.
        shuffled = self.game.shuffles != checkpoint.shuffles
        replay = _Replay(
            checkpoint.answers, decision, then, self.reads_defaults, stream if shuffled else None
        )
        dice = ReplayDice(self.dice.faces, stream)
        # The kept copy is never played itself: the cards of its decks and discard piles are
        # lent, each copied only as the playout takes it out of such a pile.
        copy = fork(checkpoint.game, replay, dice, None if shuffled else stream, lend_decks=True)
        replay.fork = copy
        self._dealer_for(decision, seat, checkpoint).deal(copy, stream)
        actor = copy.state.actors[checkpoint.actor]
        try:
            take_turn(copy, actor, checkpoint.phase)
        except RunEnded:
            pass
        except (Diverged, DecisionError, DiceError, RunawayError):
            self.diverged += 1
            return None
        finally:
            # The copy and its maker hold each other: let go, so that the copy is freed as the
            # playout ends and not left to the cycle collector, whose passes over a worker's
            # heap took a fifth of a searching game's time.
            replay.fork = None
        if replay.next <= len(checkpoint.answers):
            self.unreached += 1
            return None
        return value(copy, seat)
