"""What a game module is: tables of the verbs, values and procedures a ruleset's data cannot say.

A ruleset names its module (`runtime: house`); content never names Python. Each module
states only what differs from the base module, through merged tables, as a ruleset does. The
modules themselves live in `runtime.games`, found by name; the engine (`runtime.game`) knows
this shape and no module.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from runtime.checks import CheckProcedure

if TYPE_CHECKING:
    from runtime.cards import CardDef, CardInstance, Effect
    from runtime.game import Game
    from runtime.rules import GameRules
    from runtime.state import Player
    from runtime.world import Phase

Verb = Callable[..., None]
"""A verb: `verb(game, card, **slots)`."""

Condition = Callable[..., bool]
"""A condition: `condition(game, card, **slots)`."""

Modifier = Callable[["Game", "Player", dict[str, Any]], "tuple[str, int] | None"]
"""A continuous modifier: the stat it changes and by how much, or None."""

Play = Callable[["Game", "CardInstance"], None]
"""How a card of one kind comes into play when a player plays it."""

Drawn = Callable[["Game", "CardInstance"], bool]
"""What drawing a card of one kind does; False ends the draw (a card that stops `draw item 2`)."""


Hook = Callable[["Game", "Player"], None]
"""What a game does at one of the engine's moments, for the player it concerns:
`death` (the player just died), `move_ended` (the player just moved), `turn_ended`, `spawned`
(an actor no one plays just came into play: a monster)."""

Refusal = Callable[["Game", "Player", str], "str | None"]
"""Why a game forbids an action to a player (the reason, logged), or None: for `move`, the
place the player would move to."""

Setup = Callable[["Game"], None]
"""Something done to a fresh game before a card's odds are worked out from it."""

Step = Callable[["Game", "Phase"], None]
"""One step of a phase of the round that the game module runs (a monsters' turn in steps)."""

TrackMoved = Callable[["Game", int, int], None]
"""What a game does when one of its tracks moves, from where to where (a foe moves along it)."""

UseRule = Callable[["Game", "CardInstance", Callable[[], None]], None]
"""How using a card of one kind goes: the rule pays for it and calls the last argument (which
runs the card's `use` blocks), or refuses, saying why in the log (a cost the actor cannot pay)."""

Procedure = Callable[["Game", "Player"], None]
"""A whole game's named procedure, for what its data cannot say: an action's or a setup's,
run for the seat it concerns."""

TurnRule = Callable[["Game", "Player"], None]
"""What an actor does on its turn, once the engine has started it (a policy's choices...)."""

Implied = Callable[["GameRules", "CardDef"], "Sequence[tuple[str, Effect]]"]
"""What a card of one kind does that it does not write, as named blocks of effects for
`pillbox odds` to walk (a monster card's attack from its stat line)."""
Reaction = Callable[["Game"], None]
"""What a game does when one of its triggers fires, before the blocks of the cards it starts
(a last act begins: a foe comes onto the board)."""

ENGINE_TRIGGERS = frozenset({"use"})
"""The triggers the engine fires itself: using a card."""


@dataclass(frozen=True)
class ValueDef:
    """A value a condition can read, and how a test's `given` sets it (if it can)."""

    get: Callable[..., Any]
    set: Callable[..., None] | None = None


@dataclass(frozen=True)
class OddsVariant:
    """Another start for a card's odds (the player adds a die first): `pillbox odds` shows a
    card's odds again from it when the card rolls one of its procedures."""

    setup: Setup
    procedures: frozenset[str]


@dataclass(frozen=True)
class GameModule:
    """The Python half of a game: tables of verbs, values, conditions and procedures."""

    name: str
    verbs: Mapping[str, Verb] = field(default_factory=dict)
    values: Mapping[str, ValueDef] = field(default_factory=dict)
    conditions: Mapping[str, Condition] = field(default_factory=dict)
    checks: Mapping[str, CheckProcedure] = field(default_factory=dict)  # by procedure name
    modifiers: Mapping[str, Modifier] = field(default_factory=dict)
    drawn: Mapping[str, Drawn] = field(default_factory=dict)  # kind -> what drawing it does
    played: Mapping[str, Play] = field(default_factory=dict)  # kind -> what playing it does
    owned: Mapping[str, bool] = field(default_factory=dict)  # kinds a player owns, not carries
    hooks: Mapping[str, Hook] = field(default_factory=dict)  # a moment of the engine -> the rule
    refusals: Mapping[str, Refusal] = field(default_factory=dict)  # an engine action -> its limit
    steps: Mapping[str, Step] = field(default_factory=dict)  # a phase's steps, by name
    on_track: Mapping[str, TrackMoved] = field(default_factory=dict)  # track -> its reaction
    turns: Mapping[str, TurnRule] = field(default_factory=dict)  # actor kind -> its turn
    procedures: Mapping[str, Procedure] = field(default_factory=dict)  # a `game:` names them
    # procedure (or an action's `prefer:` check) -> whether it holds for a seat now (none:
    # whenever its `when:` holds)
    can: Mapping[str, Callable[[Game, Player], bool]] = field(default_factory=dict)
    # an action's `targets:` -> whom the seat can take it on now, each offered apart
    targets: Mapping[str, Callable[[Game, Player], Sequence[Player]]] = field(default_factory=dict)
    # the tables this module's game adds when it is played whole, merged in as `extend` merges
    # them (a turn of its own, what drawing a card does at a table with a narrator)
    whole: Mapping[str, Any] = field(default_factory=dict)
    odds_variants: Mapping[str, OddsVariant] = field(default_factory=dict)  # by its name
    implied: Mapping[str, Implied] = field(default_factory=dict)  # card kind -> unwritten blocks
    using: Mapping[str, UseRule] = field(default_factory=dict)  # kind ("*": any) -> its use
    # kind -> what the odds call playing a card of it, for kinds whose play is the module's
    # procedure (a token searched when found): a card of one with no blocks has those odds
    walked: Mapping[str, str] = field(default_factory=dict)
    reactions: Mapping[str, Reaction] = field(default_factory=dict)  # trigger -> the rule it runs
    announces: frozenset[str] = frozenset()  # the triggers this module fires
    # The kinds of decision whose `default` is the rules' own answer (where a step heads): a
    # seat that searches takes it, as it is, rather than play every answer out.
    guided: frozenset[str] = frozenset()
    # What the game calls a part of the state the engine keeps for it, as a command shows the
    # state ("found": the label of `GameState.found`); a part it does not name keeps its own.
    words: Mapping[str, str] = field(default_factory=dict)
    # A game's own progress for a seat, as its ruleset states it (`game: worth:`): what its
    # terms earned and their weights in all, added to the generic worth a search reads.
    progress: Callable[[Game, int], tuple[float, float]] | None = None

    def extend(self, name: str, **tables: Any) -> GameModule:
        """A module that is this one with some entries added or replaced (and triggers added
        to those it announces); a rule for a moment (`hooks`, `reactions`) that this one has a
        rule for already runs after it, so each part of a game adds its own."""
        merged: dict[str, Any] = {}
        for key, table in tables.items():
            current = getattr(self, key)
            if isinstance(current, frozenset):
                merged[key] = current | table
            elif key in MOMENTS:
                merged[key] = {
                    **current,
                    **{
                        m: _both(current[m], rule) if m in current else rule
                        for m, rule in table.items()
                    },
                }
            else:
                merged[key] = {**current, **table}
        return replace(self, name=name, **merged)


MOMENTS = frozenset({"hooks", "reactions"})
"""The tables of rules for moments of the game, which add up when a module is extended."""


def step_then(step: Step | None, then: Callable[[Game], None]) -> Step:
    """A step that runs `step` (when there is one), then a rule of the game's own that ends it:
    how a part of a game adds to a step another part wrote, where `extend` replaces steps."""

    def run(game: Game, phase: Phase) -> None:
        if step is not None:
            step(game, phase)
        then(game)

    return run


def _both(first: Callable[..., None], then: Callable[..., None]) -> Callable[..., None]:
    """A rule that runs one rule, then the other, with the same arguments."""

    def both(*args: Any) -> None:
        first(*args)
        then(*args)

    return both
