"""What the runtime needs of a checked ruleset, and what the check needs of the runtime.

`game_rules` turns a ruleset into the plain rules a game runs by; the check reads the same
rules to tell which words have no code (`compiler.simulated`) and which the module cannot call
as the ruleset writes them (`runtime_problems`). Both the check and the build stand on this.
"""

from __future__ import annotations

import inspect
from typing import Any

from compiler.patterns import PatternTable
from compiler.ruleset import Ruleset
from dsl.spans import Diagnostic, Span
from runtime.module import GameModule
from runtime.rules import BlockRule, ChartRule, GameRules, ProcedureRule
from runtime.stats import DerivedRule


def game_rules(ruleset: Ruleset) -> GameRules:
    """The plain rules the runtime needs, taken from a checked ruleset."""
    data = ruleset.data
    places = data.get("places") or {}
    start = next((name for name, p in places.items() if (p or {}).get("start")), None)
    procedures = {
        name: ProcedureRule(name, rule.procedure, rule.result, rule.names, rule.params)
        for name, rule in ruleset.procedures.items()
    }
    blocks = {}
    for name, block in (data.get("blocks") or {}).items():
        if block is None:
            continue
        window = block.get("while_stat")
        while_stat = None
        if window:
            stat, (low, high) = next(iter(window.items()))
            while_stat = (stat, int(low), int(high))
        blocks[name] = BlockRule(
            name,
            block["body"],
            block.get("trigger"),
            bool(block.get("once", False)),
            block.get("applies"),
            while_stat,
            block["pattern"],
            sided=any(slot.name == "side" for slot in ruleset.blocks.by_name[name].slots),
        )
    return GameRules(
        name=ruleset.name,
        game=str(data.get("runtime", "base")),
        stats=tuple(ruleset.stats.values()),
        derived=tuple(DerivedRule(d.name, d.source, d.table) for d in ruleset.derived.values()),
        decks=dict(ruleset.decks),
        places=ruleset.places,
        start_place=start,
        procedures=procedures,
        blocks=blocks,
        charts=tuple(
            ChartRule(c.name, c.kind, c.key, c.symbol_kind, c.symbol_property)
            for c in ruleset.charts
        ),
        kind_decks={k.name: k.deck for k in ruleset.kinds.values() if k.deck is not None},
        bands={
            name: (stat, int(low), int(high))
            for name, band in (data.get("bands") or {}).items()
            if band
            for stat, (low, high) in band.items()
        },
        world=ruleset.world,
        narrated={k.name: k.narrated for k in ruleset.kinds.values() if k.narrated is not None},
        hidden=frozenset(k.name for k in ruleset.kinds.values() if k.hidden),
        shown_when={
            k.name: k.shown_when for k in ruleset.kinds.values() if k.shown_when is not None
        },
        deck_tops={
            name: (tuple(top["kinds"]), int(top["cards"]))
            for name, deck in (data.get("decks") or {}).items()
            if (top := (deck or {}).get("shuffle_into_top"))
        },
    )


def runtime_problems(ruleset: Ruleset, module: GameModule, rules: GameRules) -> list[Diagnostic]:
    """Vocabulary the runtime module has but cannot call with the slots its pattern gives.

    A pack's own ruleset may redefine a verb's pattern (`rummage {place}`) that the module's
    function does not take: that is found here, before any card runs, not as a crash mid-game.
    """
    problems: list[Diagnostic] = []
    where = Span.whole_file(ruleset.file)

    def fits(section: str, name: str, function: Any, fixed: int, table: PatternTable) -> None:
        pattern = table.by_name.get(name)
        if pattern is None or function is None:
            return
        slots = {slot.name: None for slot in pattern.slots}
        try:
            inspect.signature(function).bind(*([None] * fixed), **slots)
        except TypeError as error:
            problems.append(
                Diagnostic(
                    "E0603",
                    "error",
                    f"the {module.name} runtime cannot run {section} {name!r} as the ruleset "
                    f"writes it ({pattern.source!r}): {error}",
                    where,
                    "keep the pattern's slots as the runtime takes them, or give the phrase "
                    "another name (an unknown name is printed and logged, not run)",
                )
            )

    for name in ruleset.verbs.by_name:
        fits("verb", name, module.verbs.get(name), 2, ruleset.verbs)
    for name in ruleset.conditions.by_name:
        fits("condition", name, module.conditions.get(name), 2, ruleset.conditions)
    for name in ruleset.values.by_name:
        value = module.values.get(name)
        if value is not None:
            fits("value", name, value.get, 2, ruleset.values)
            if value.set is not None and name in ruleset.settable_values:
                fits("value", name, value.set, 3, ruleset.values)
    return problems
