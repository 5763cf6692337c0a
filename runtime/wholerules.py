"""A whole game as data: the seats, setup, actions, end and counted facts a ruleset's `game:`
section declares, with its effects and conditions compiled from the card language.

The compiler (`compiler.wholegame_compile`) builds these from the ruleset; `runtime.datagame`
plays them. Nothing here knows a game: every name is the ruleset's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from runtime.cards import CardDef, Check, Effect, Observe

END_PHASE = "game"
"""The one part a game played from data has: from its setup to its end."""


@dataclass(frozen=True)
class ActionRule:
    """One action a seat may take on its turn: how it is offered, what it does, what it costs."""

    name: str
    text: str  # how the seat is offered it: a title, never what it does
    line: int
    cost: int  # paid from the phase's `actions:` stat; 0 is a free action
    once: bool  # at most once a turn
    main: bool  # the turn's one main action: no other main action follows it that turn
    self_paid: bool  # its effect pays its cost itself: the engine only checks it can be paid
    when: Check | None  # legal only while this holds
    effect: Effect | None  # the effect written in the card language
    procedure: str | None  # or the game module's named procedure
    targets: str | None = None  # the module's list of whom it is taken on: offered for each
    then: str | None = None  # the action taken after it without asking, when it can be
    prefer: str | None = None  # the module's check that makes it the default answer
    unasked: bool = False  # taken only after another (its `then:`), never offered


@dataclass(frozen=True)
class TurnShape:
    """A turn of free actions, each at most once, then one main action: the words of its two
    questions, and what a seat with no main action to take does."""

    free_ask: str
    on: str  # the answer that goes on to the main action, offered first
    free_kind: str
    main_ask: str
    main_kind: str
    fallback: str | None  # the module's procedure run when no main action can be taken
    tally: bool  # whether the actions taken are counted (`took: NAME`)
    free: tuple[ActionRule, ...] = ()  # the free actions offered, in the ruleset's order
    main: tuple[ActionRule, ...] = ()  # the main actions offered, in the ruleset's order
    # the actions taken after another without asking, by name
    follow: Mapping[str, ActionRule] = field(default_factory=dict)


@dataclass(frozen=True)
class Ending:
    """A condition that ends the game the moment it holds after an action or a turn."""

    result: str  # "won" or "lost"
    holds: Check
    text: str  # the condition as written, for the log


@dataclass(frozen=True)
class CountedFact:
    """A fact a simulation counts per game: whether a condition holds at the game's end."""

    name: str
    holds: Check


@dataclass(frozen=True)
class Tally:
    """A number a simulation adds up per game: a value read for each seat at its end."""

    name: str
    value: Observe
    each_seat: bool = True  # read for each seat (its "you") and summed; else read once


@dataclass(frozen=True)
class WorthTerm:
    """A game's own progress, as its ruleset states it (`game: worth:`): what a seat that
    searches adds to the engine's generic worth of a state. Read with the seat as "you": the
    value between `low` (nothing) and `high` (all of `weight`), while `when` holds."""

    name: str
    weight: float
    value: Observe | None = None  # none: the whole weight while `when` holds
    when: Check | None = None  # none: always
    low: float = 0.0
    high: float = 1.0


@dataclass(frozen=True)
class Part:
    """A part of a game (an opening, an act), in order: a module's procedure, or rounds of the
    seats' turns until a check of the module holds, then its `then:` procedure."""

    name: str
    procedure: str | None = None
    until: str | None = None  # the module's check (its `can`) that ends the rounds
    round_limit: int = 200  # the rounds begun at most
    then: str | None = None  # the module's procedure once the rounds are over


@dataclass(frozen=True)
class WholeRules:
    """Everything that makes a game whole, compiled: played by `runtime.datagame`."""

    fewest: int
    most: int
    actions: tuple[ActionRule, ...]
    endings: tuple[Ending, ...]
    round_limit: int
    after_last_round: str | None  # "won", "lost", or None: how the ruleset's last round ends it
    winners: str  # "living": the living seats win; "all": every seat wins with the table
    setup_table: Effect | None = None
    setup_seat: Effect | None = None
    setup_procedure: str | None = None
    turn_starts: Effect | None = None  # run as each seat's turn starts, before its actions
    turn_ends: Effect | None = None  # run at the end of each seat's turn, that seat acting
    facts: tuple[CountedFact, ...] = ()
    tallies: tuple[Tally, ...] = ()
    # actor kind -> what an actor of it no seat plays does on its turn, after its module's rule
    actor_turns: Mapping[str, Effect] = field(default_factory=dict)
    parts: tuple[Part, ...] = ()  # none: the ruleset's rounds, until an ending holds
    notes: str | None = None  # the module's procedure that notes a game's figures at its end
    breakdown: str | None = None  # the label a game's figures are broken down by (a ladder's)
    worth: tuple[WorthTerm, ...] = ()  # the game's own progress, for the seats that search
    card: CardDef | None = None  # the compiled rules, the card every effect above runs for
    turn: TurnShape | None = None  # none: a seat picks among all its legal actions
