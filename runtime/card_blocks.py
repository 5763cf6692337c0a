"""A card's blocks sorted by the rule that runs or applies them, read once per card and game.

A game asks the same questions of the same cards all the time: which blocks does this trigger
start, which modifiers apply while the card is carried, can it be used. The answers depend
only on the card's definition and the ruleset's block rules, neither of which changes during a
game, so each card is read once and the answers kept.
"""

from __future__ import annotations

from dataclasses import dataclass

from runtime.cards import BlockDef, CardDef, Effect
from runtime.rules import BlockRule, GameRules

Ruled = tuple[tuple[BlockDef, BlockRule], ...]
"""Blocks of a card with their rules, in the card's order."""

Window = tuple[str, int, int]
"""A stat and the range it must be in: (stat, low, high)."""

Started = tuple[tuple[BlockDef, BlockRule, Effect], ...]
"""Blocks of a card with their rules and their effects, in the card's order."""


@dataclass(frozen=True)
class CardBlocks:
    """One card's blocks by what starts them (trigger) and where their modifiers apply."""

    definition: CardDef
    triggered: dict[str, Started]  # trigger -> the blocks with effects it runs
    applying: dict[str, Ruled]  # where the card is ("carried", "owned") -> modifier blocks
    triggers: frozenset[str]  # the triggers any of its blocks is ruled by, effects or none

    def started_by(self, trigger: str) -> Started:
        """The blocks with effects that the trigger runs."""
        return self.triggered.get(trigger, ())

    def applying_when(self, where: str) -> Ruled:
        """The blocks of modifiers that apply while the card is there."""
        return self.applying.get(where, ())


def read_blocks(rules: GameRules, definition: CardDef) -> CardBlocks:
    """Sort a card's blocks by their rules (a block the ruleset has no rule for is left out,
    as the game never runs it)."""
    triggered: dict[str, list[tuple[BlockDef, BlockRule, Effect]]] = {}
    applying: dict[str, list[tuple[BlockDef, BlockRule]]] = {}
    triggers: set[str] = set()
    for block in definition.blocks:
        rule = rules.blocks.get(block.name)
        if rule is None:
            continue
        if rule.trigger is not None:
            triggers.add(rule.trigger)
        if block.run is not None and rule.trigger is not None:
            triggered.setdefault(rule.trigger, []).append((block, rule, block.run))
        if block.modifiers and rule.applies is not None:
            applying.setdefault(rule.applies, []).append((block, rule))
    return CardBlocks(
        definition,
        {trigger: tuple(found) for trigger, found in triggered.items()},
        {where: tuple(found) for where, found in applying.items()},
        frozenset(triggers),
    )


class BlockIndex:
    """Every card's blocks, read the first time the game asks about the card."""

    def __init__(self, rules: GameRules) -> None:
        self.rules = rules
        # By the definition's id (a definition holds dicts, so it cannot be hashed); each entry
        # keeps its definition, so that id is never reused while the entry is here.
        self._read: dict[int, CardBlocks] = {}
        self._headers: dict[int, tuple[BlockDef, str]] = {}
        self._conditions: dict[int, tuple[BlockDef, tuple[Window, ...], bool | None]] = {}

    def of(self, definition: CardDef) -> CardBlocks:
        """The card's blocks, sorted."""
        known = self._read.get(id(definition))
        if known is None or known.definition is not definition:
            known = self._read[id(definition)] = read_blocks(self.rules, definition)
        return known

    def header(self, block: BlockDef, rule: BlockRule) -> str:
        """The block's header as the card writes it, for the log."""
        known = self._headers.get(id(block))
        if known is None or known[0] is not block:
            known = self._headers[id(block)] = (block, rule.written(block.args))
        return known[1]

    def condition(self, block: BlockDef, rule: BlockRule) -> tuple[tuple[Window, ...], bool | None]:
        """What a block needs to be in force: the stat windows (its rule's, its band's) and
        the side the card must be turned to (True: flipped), or None when either side does."""
        known = self._conditions.get(id(block))
        if known is None or known[0] is not block:
            windows = [rule.while_stat] if rule.while_stat else []
            band = block.args.get("band")
            if band is not None and band in self.rules.bands:
                windows.append(self.rules.bands[band])
            side = (block.args.get("side") is not None) if rule.sided else None
            known = self._conditions[id(block)] = (block, tuple(windows), side)
        return known[1], known[2]
