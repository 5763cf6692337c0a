"""A card's blocks sorted by the rule that runs or applies them, read once per card and game.

A game asks the same questions of the same cards all the time: which blocks does this trigger
start, which modifiers apply while the card is carried, is this block in force, can the card be
used. The answers depend only on the card's definition and the ruleset's block rules, neither
of which changes during a game, so each card is read once and the answers kept.
"""

from __future__ import annotations

from dataclasses import dataclass

from runtime.cards import BlockDef, CardDef, CardInstance, Effect
from runtime.rules import BlockRule, GameRules
from runtime.stats import Stats


@dataclass(frozen=True)
class Condition:
    """What a block needs to be in force: stats within windows (its rule's `while`, its band),
    and the side the card is turned to when its rule is sided."""

    windows: tuple[tuple[str, int, int], ...] = ()  # (stat, low, high)
    flipped: bool | None = None  # the side the card must show; None: either

    def holds(self, card: CardInstance, stats: Stats) -> bool:
        """Whether the block is in force for this card and these stats now."""
        for stat, low, high in self.windows:
            if not low <= stats.get(stat) <= high:
                return False
        return self.flipped is None or self.flipped == card.flipped


ALWAYS = Condition()
"""The condition of a block always in force: the one object, so that the hot loops that ask
whether a block holds can skip the question with an identity test."""


def condition_of(rules: GameRules, block: BlockDef, rule: BlockRule) -> Condition:
    """The condition a block's rule and its header's slots (band, side) put on it."""
    windows = [rule.while_stat] if rule.while_stat else []
    band = block.args.get("band")
    if band is not None and band in rules.bands:
        windows.append(rules.bands[band])
    side = (block.args.get("side") is not None) if rule.sided else None
    if not windows and side is None:
        return ALWAYS
    return Condition(tuple(windows), side)


@dataclass(frozen=True)
class Started:
    """A block with effects, as a trigger starts it: its rule, effects, condition, header."""

    block: BlockDef
    rule: BlockRule
    run: Effect
    condition: Condition
    header: str  # as the card writes it, for the log


@dataclass(frozen=True)
class Applying:
    """A block of modifiers, as it applies where the card is."""

    block: BlockDef
    condition: Condition


@dataclass(frozen=True)
class CardBlocks:
    """One card's blocks by what starts them (trigger) and where their modifiers apply."""

    definition: CardDef
    started: dict[str, tuple[Started, ...]]  # trigger -> the blocks with effects it runs
    applying: dict[str, tuple[Applying, ...]]  # where the card is ("carried") -> modifiers
    triggers: frozenset[str]  # the triggers any of its blocks is ruled by, effects or none

    def started_by(self, trigger: str) -> tuple[Started, ...]:
        """The blocks with effects that the trigger runs, in the card's order."""
        return self.started.get(trigger, ())

    def applying_when(self, where: str) -> tuple[Applying, ...]:
        """The blocks of modifiers that apply while the card is there, in the card's order."""
        return self.applying.get(where, ())


def read_blocks(rules: GameRules, definition: CardDef) -> CardBlocks:
    """Sort a card's blocks by their rules (a block the ruleset has no rule for is left out,
    as the game never runs it)."""
    started: dict[str, list[Started]] = {}
    applying: dict[str, list[Applying]] = {}
    triggers: set[str] = set()
    for block in definition.blocks:
        rule = rules.blocks.get(block.name)
        if rule is None:
            continue
        condition = condition_of(rules, block, rule)
        if rule.trigger is not None:
            triggers.add(rule.trigger)
            if block.run is not None:
                header = rule.written(block.args)
                entry = Started(block, rule, block.run, condition, header)
                started.setdefault(rule.trigger, []).append(entry)
        if block.modifiers and rule.applies is not None:
            applying.setdefault(rule.applies, []).append(Applying(block, condition))
    return CardBlocks(
        definition,
        {trigger: tuple(found) for trigger, found in started.items()},
        {where: tuple(found) for where, found in applying.items()},
        frozenset(triggers),
    )


class BlockIndex:
    """Every card's blocks, read the first time the game asks about the card."""

    def __init__(self, rules: GameRules) -> None:
        self.rules = rules
        # By id (a definition holds dicts, so it cannot be hashed): each entry keeps its
        # definition or block alive, so no other object can take its id while it is here.
        self.read: dict[int, CardBlocks] = {}
        self._conditions: dict[int, tuple[BlockDef, Condition]] = {}

    def of(self, definition: CardDef) -> CardBlocks:
        """The card's blocks, sorted."""
        known = self.read.get(id(definition))
        if known is None:
            known = self.read[id(definition)] = read_blocks(self.rules, definition)
        return known

    def condition(self, block: BlockDef, rule: BlockRule) -> Condition:
        """What one block needs to be in force (for a block asked about by itself)."""
        known = self._conditions.get(id(block))
        if known is None:
            known = self._conditions[id(block)] = (block, condition_of(self.rules, block, rule))
        return known[1]
