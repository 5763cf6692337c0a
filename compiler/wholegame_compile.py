"""A ruleset's whole game compiled: its `game:` section, lowered and checked clean by
`compiler.wholegame`, made into the rules `runtime.datagame` plays.

A module of its own so that a check, which only lowers the section, never imports what plays it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from compiler.codegen import compile_file
from compiler.ruleset_model import Ruleset
from compiler.wholegame import RULES_KIND, SECTION, lowered_whole
from runtime.cards import CardDef
from runtime.wholerules import (
    ActionRule,
    CountedFact,
    Ending,
    Part,
    Tally,
    TurnShape,
    WholeRules,
    WorthTerm,
)

DEFAULT_ROUND_LIMIT = 200
"""A game still going after this many rounds is stopped and counted as such."""


def compile_whole(ruleset: Ruleset, library: Any) -> WholeRules | None:
    """The ruleset's whole game, compiled; None when it declares none. The ruleset checked
    clean (`whole_game_problems` found none) before it is compiled."""
    lowered = lowered_whole(ruleset)
    if lowered is None:
        return None
    section: dict[str, Any] = ruleset.data[SECTION]
    blocks: dict[str, Any] = {}
    checks: dict[str, Any] = {}
    observers: dict[str, Any] = {}
    card: CardDef | None = None
    for _path, (shown, text, ir) in lowered.cards.items():
        compiled = compile_file(ruleset, [ir], shown, text, library)
        card = compiled.cards[0]
        blocks.update({block.name: block.run for block in card.blocks})
        checks.update({test.name: test.steps[0].check for test in card.tests})
        observers.update(
            {test.name: test.steps[0].observe[0][1] for test in card.tests if test.steps[0].observe}
        )
    if card is None:  # every part is a procedure: a card with no blocks runs them
        card = CardDef(RULES_KIND, ruleset.title, None, ruleset.file, 1, {})
    actions = []
    for name, action in lowered.in_written_order(
        section.get("actions") or {}, (SECTION, "actions")
    ):
        action = action or {}
        actions.append(
            ActionRule(
                name=name,
                text=str(action.get("text") or name.replace("_", " ")),
                line=0,
                cost=int(action.get("cost", 0)),
                once=bool(action.get("once", False)),
                main=bool(action.get("main", False)),
                self_paid=bool(action.get("self_paid", False)),
                when=checks.get(f"when {name}"),
                effect=blocks.get(f"action {name}"),
                procedure=action.get("procedure"),
                targets=action.get("targets"),
                then=action.get("then"),
                prefer=action.get("prefer"),
            )
        )
    end = section.get("end") or {}
    turn = section.get("turn")
    shape = None
    if isinstance(turn, dict):
        followed = {a.then for a in actions if a.then is not None}
        actions = [replace(a, unasked=a.name in followed) for a in actions]
        free, main = turn.get("free") or {}, turn.get("main") or {}
        shape = TurnShape(
            free_ask=str(free.get("ask", "")),
            on=str(free.get("on", "")),
            free_kind=str(free.get("kind", "free")),
            main_ask=str(main.get("ask", "")),
            main_kind=str(main.get("kind", "main")),
            fallback=main.get("fallback"),
            tally=bool(turn.get("tally", True)),
            free=tuple(a for a in actions if not a.main and not a.unasked),
            main=tuple(a for a in actions if a.main and not a.unasked),
            follow={a.name: a for a in actions if a.unasked},
        )
    endings = tuple(
        Ending(result, checks[result], str(end[result]))
        for result in ("lost", "won")
        if result in checks
    )
    seats = section.get("seats") or {}
    setup = section.get("setup") or {}
    return WholeRules(
        fewest=int(seats.get("fewest", 1)),
        most=int(seats.get("most", 1)),
        actions=tuple(actions),
        endings=endings,
        round_limit=int(end.get("round_limit", DEFAULT_ROUND_LIMIT)),
        after_last_round=end.get("after_last_round"),
        winners=str(end.get("winners", "living")),
        setup_table=blocks.get("setup table"),
        setup_seat=blocks.get("setup seat"),
        setup_procedure=setup.get("procedure"),
        turn_starts=blocks.get("turn starts"),
        turn_ends=blocks.get("turn ends"),
        facts=tuple(
            CountedFact(name, checks[f"count {name}"])
            for name in (section.get("count") or {})
            if f"count {name}" in checks
        ),
        tallies=tuple(
            Tally(name, observers[f"tally {name}"], _each_seat(entry))
            for name, entry in (section.get("tally") or {}).items()
            if f"tally {name}" in observers
        ),
        card=card,
        turn=shape,
        parts=tuple(
            Part(
                name,
                procedure=(entry or {}).get("procedure"),
                until=(entry or {}).get("until"),
                round_limit=int((entry or {}).get("round_limit", DEFAULT_ROUND_LIMIT)),
                then=(entry or {}).get("then"),
            )
            for name, entry in lowered.in_written_order(
                section.get("parts") or {}, (SECTION, "parts")
            )
        ),
        notes=section.get("notes"),
        breakdown=section.get("breakdown"),
        worth=tuple(
            WorthTerm(
                name,
                float(term["weight"]),
                observers.get(f"worth {name}"),
                checks.get(f"worth when {name}"),
                float(term.get("from", 0)),
                float(term.get("to", 1)),
            )
            for name, term in lowered.in_written_order(
                section.get("worth") or {}, (SECTION, "worth")
            )
        ),
        actor_turns={
            kind: blocks[f"turn {kind}"]
            for kind in (section.get("turns") or {})
            if f"turn {kind}" in blocks
        },
    )


def _each_seat(entry: object) -> bool:
    """Whether a tally is read for each seat and summed (its short form), or once."""
    return not isinstance(entry, dict) or bool(entry.get("each_seat", True))
