"""What every policy shares: the seat it decides for, the protocol, and the plug into a game.

A game asks one decision maker; a policy decides for one seat. `seat_policies` puts one
policy (or one per seat) in the game's place of decision maker: each decision goes to the
policy of the seat being asked, with that seat's own random stream, seeded from the game's
seed, so a game is reproducible from its seed whatever the policies.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Protocol

from runtime.decisions import Decision, DecisionError, reads_defaults
from runtime.dice import draws_below
from runtime.game import Game
from runtime.policies.lookahead import Lookahead, asked_seat
from runtime.state import Actor


@dataclass
class Seat:
    """The seat a decision is asked of: its index, its character and its random stream."""

    index: int
    player: Actor
    random: random.Random
    # The turn under way, kept for a seat that searches to play out (none for the others)
    lookahead: Lookahead | None = field(default=None, repr=False, compare=False)
    # randrange of the seat's stream, drawn faster (`runtime.dice.draws_below`)
    below: Callable[[int], int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.below = draws_below(self.random)


class Policy(Protocol):
    """Decides for a seat: the index of the answer it picks in `decision.choices`."""

    def decide(self, game: Game, seat: Seat, decision: Decision) -> int:
        """The index of the chosen answer."""
        ...


class PolicyError(ValueError):
    """Policies that do not fit the game: as many as the seats, or one for all."""


class SeatedPolicies:
    """The game's decision maker: each decision answered by the asked seat's policy."""

    def __init__(self, game: Game, policies: Sequence[Policy]) -> None:
        self.game = game
        self.policies = tuple(policies)
        self.seats = [
            Seat(index, player, random.Random(f"policy:{game.seed}:{index}"))
            for index, player in enumerate(game.state.players)
        ]
        self.reads_defaults = any(reads_defaults(policy) for policy in self.policies)
        # Seats that search play the turn under way out again: it is kept as it begins.
        self.lookahead: Lookahead | None = None
        if any(getattr(policy, "searches", False) for policy in self.policies):
            self.lookahead = Lookahead(game, self.reads_defaults)
            for seat in self.seats:
                seat.lookahead = self.lookahead

    def decide(self, decision: Decision) -> int:
        """The answer of the asked seat's policy; one out of range is refused."""
        if not decision.choices:
            raise DecisionError(decision)
        seat = self.seats[asked_seat(self.game, decision)]
        seat.player = self.game.state.players[seat.index]  # a game may seat a new character
        index = self.policies[seat.index].decide(self.game, seat, decision)
        if not 0 <= index < len(decision.choices):
            raise DecisionError(decision, str(index))
        if self.lookahead is not None:
            self.lookahead.answered(index)
        return index


def seat_policies(game: Game, policies: Policy | Sequence[Policy]) -> SeatedPolicies:
    """Let policies decide for the game's seats: one for every seat, or one per seat in seat
    order. The game's decision maker is replaced; the maker is returned."""
    seats = len(game.state.players)
    seated = policies if isinstance(policies, Sequence) else [policies] * seats
    if len(seated) != seats:
        raise PolicyError(f"{len(seated)} policies for {seats} seats: give one, or one per seat")
    maker = SeatedPolicies(game, seated)
    game.decisions = maker
    return maker


def best(seat: Seat, scores: Sequence[Fraction | float], decision: Decision) -> int:
    """The index of the highest score; a tie goes to the decision's default if it is among
    the best, else to the seat's random stream."""
    top = max(scores)
    tied = [index for index, score in enumerate(scores) if score == top]
    if decision.default is not None and decision.default in tied:
        return decision.default
    return tied[0] if len(tied) == 1 else seat.random.choice(tied)


class RandomPolicy:
    """Uniform over the legal answers, from the seat's seeded stream."""

    reads_defaults = False

    def decide(self, game: Game, seat: Seat, decision: Decision) -> int:
        """Any answer, each as likely."""
        return seat.below(len(decision.choices))
