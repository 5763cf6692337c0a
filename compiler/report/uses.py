"""A card that can be used again and again for nothing: a `use` that spends nothing and has no
limit, which the report flags ("endless").

Using the card is walked as a game would use it (`runtime.odds.walk` through `Game.use`, so a
game module's own rule for using a card, which may take action points or a charge, is part of
the walk), every way it can go. The card is flagged when on every path nothing of its user's
is spent (no stat the worse for it, no death), the card is still held, usable and as it was
(not discarded, no token put on it or taken off: charges, wear, a cooldown; no block of it
spent `once`), nothing else in the game changed (a track, a token, a move, a blow: whether
that is a price the engine cannot tell), and on some path its user is the better for it (a
stat, a card drawn, a bonus waiting for a later check): it could be used again at once, as
often as the turn allows. The walk is made at the stats the report is given, and, where it
gains nothing there (a heal at full health), again with every stat halfway up its range. A
stat that neither kills at its lowest nor says `better:` counts as more is better (action
points, dice in a pool). A ruleset whose turn makes every use of a card cost something
(`game: actions:` with the base module's `use_card` procedure and a cost, or taken once a
turn, or a main action) limits every use itself, and no card of it is flagged.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from compiler.ruleset import Ruleset
from runtime.cards import CardDef, CardInstance
from runtime.game import Game
from runtime.odds import ALSO_EVENTS, Budget, Table, walk

USE_TRIGGER = "use"
"""The trigger the engine fires when a card is used."""

BONUS = "bonus"
BESIDES = ALSO_EVENTS - {BONUS}
"""What else a use may do to the game (a bonus on a later check is a gain, as a stat is)."""

USE_PROCEDURE = "use_card"
"""The base module's procedure of an action that uses a card the seat holds."""


def uses_paid_by_the_turn(ruleset: Ruleset) -> bool:
    """Whether the game's turn makes each use of a card cost an action or limits it."""
    game = ruleset.data.get("game")
    actions: Mapping[str, Any] = (game.get("actions") or {}) if isinstance(game, dict) else {}
    return any(
        isinstance(action, dict)
        and action.get("procedure") == USE_PROCEDURE
        and (int(action.get("cost", 0)) > 0 or action.get("once") or action.get("main"))
        for action in actions.values()
    )


def endless_use(
    tables: Sequence[Table], card: CardDef, signs: Mapping[str, int], budget: Budget
) -> str | None:
    """What using the card gains its user each time, when the use spends nothing and has no
    limit, walked from each of the tables' starts in turn until one gains; None when it spends
    or is limited, gains nothing, or cannot be walked."""
    if card.options or not tables or not _used(tables[0], card):
        return None
    for table in tables:
        gained = _gained(table, card, signs, budget)
        if gained is not None:
            return gained
    return None


def halfway(ruleset: Ruleset) -> dict[str, int]:
    """Every stat of the ruleset's own (not one read from a table) halfway up its range."""
    return {name: (rule.low + rule.high) // 2 for name, rule in ruleset.stats.items()}


def _gained(table: Table, card: CardDef, signs: Mapping[str, int], budget: Budget) -> str | None:
    """What one use from the table's start gains when it spends nothing and has no limit."""
    paths: list[tuple[bool, bool]] = []  # each path: could it be used again as it was; a bonus

    def use(game: Game, instance: CardInstance) -> None:
        tokens, seen = dict(instance.tokens), len(game.log.events)
        game.use(instance)
        held = any(instance in (*p.items, *p.owned) for p in game.state.players)
        again = held and instance.tokens == tokens and not instance.spent
        kinds = {event.kind for event in game.log.events[seen:]}
        # A track moved, a token, a move, a blow: what it costs besides is not this flag's to
        # weigh (an enemy a step nearer may be the price), so only a plain gain is flagged.
        paths.append((again and not kinds & BESIDES and game.usable(instance), BONUS in kinds))

    try:
        odds = walk(table, card, USE_TRIGGER, use, carried=True, budget=budget)
    except Exception:  # a card whose walk fails has its charts' error; it is no flag's
        return None
    if not odds.outcomes or len(paths) != len(odds.outcomes) or not all(p[0] for p in paths):
        return None
    gains: dict[str, None] = {}
    for outcome, (_, bonus) in zip(odds.outcomes, paths, strict=True):
        if outcome.death:
            return None
        for stat, change in outcome.changes.items():
            better = signs.get(stat, 1) * change
            if better < 0:
                return None
            if better > 0:
                gains[stat] = None
        for deck in outcome.draws:
            gains[f"a card of the {deck} deck"] = None
        if bonus:
            gains["a bonus on a later check"] = None
    return ", ".join(gains) or None


def _used(table: Table, card: CardDef) -> bool:
    """Whether using the card does anything: a block that using runs, or its kind's own rule
    (not the rule a module gives every kind, which pays for the blocks)."""
    if card.kind in table.module.using:
        return True
    return any(
        (rule := table.rules.blocks.get(block.name)) is not None and rule.trigger == USE_TRIGGER
        for block in card.blocks
    )
