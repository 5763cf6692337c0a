"""Whole games: the contract `play --game` and `simulate` play a game by, from its setup to
its end.

A game is played whole when its ruleset says how (`game:`); `runtime.datagame` makes the
`WholeGame` from that data. The engine knows nothing else of the game: the parts a game has
(`phases`, its acts) and the facts worth counting over many games (`Outcome.labels`: which
ending came up) are the game's own words.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from runtime.cards import CardDef
from runtime.events import PHASE_OVER
from runtime.game import Game
from runtime.rules import GameRules


@dataclass(frozen=True)
class Outcome:
    """How one game ended: its result, who won, and the game's own facts to count."""

    result: str | None  # "won", "lost", or None when the phase played to has no winner
    winners: tuple[str, ...] = ()  # the names of the seats that won
    labels: Mapping[str, str] = field(default_factory=dict)  # fact -> value, counted per value
    # the phase the game stopped in, and why when it was cut short ("round limit")
    stopped: str | None = None
    # the game's own numbers of one game (how often something happened), summed up over games
    tallies: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class WholeGame:
    """A game's rules for playing it whole: its seats, its parts, how to play and read it."""

    players: tuple[int, int]  # the fewest and most seats
    phases: tuple[str, ...]  # the parts of a game in order; the last one is its end
    new_game: Callable[[GameRules, Sequence[CardDef], int, int], Game]  # rules, cards, seats, seed
    play: Callable[[Game, str], None]  # set the game up and play it to the end of that phase
    outcome: Callable[[Game], Outcome]


def phase_over(game: Game, phase: str) -> None:
    """Log the end of one of the game's phases, so that a log can be read phase by phase."""
    game.event(PHASE_OVER, f"the {phase} is over", phase=phase)


class NotWhole(LookupError):
    """The game has no whole-game rules: only its cards can be played."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name

    def __str__(self) -> str:
        return f"the game {self.name!r} can play single cards only, not whole games"


def game_seed(seed: int, index: int) -> int:
    """The seed of game `index` of a sweep seeded `seed`: stable across runs, machines and
    worker counts (a digest, never Python's salted `hash`)."""
    digest = hashlib.blake2b(f"{seed}:{index}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1
