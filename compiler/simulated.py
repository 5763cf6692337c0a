"""Which words of a pack's cards the game's runtime module has no code for.

A pack's own ruleset may declare vocabulary (`verbs: {howl: ...}`) that no module implements:
the cards print it and a run logs it, but nothing happens. `check` says so at the first line
that uses each such word (W0330), and counts the lines that use one as not executable, so
"100 % executable" means every line runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from compiler.gamerules import game_rules
from compiler.ir import Card
from compiler.lower import LoweredCard
from compiler.ruleset import Ruleset
from dsl.spans import Diagnostic, Span
from runtime.games import UnknownGame, game_module
from runtime.module import GameModule
from runtime.rules import GameRules


@dataclass(frozen=True)
class Unsimulated:
    """The words with no code, at their first use, and how many effect lines of each card use
    one."""

    diagnostics: list[Diagnostic]
    lines: list[int]


def unsimulated(ruleset: Ruleset, cards: Sequence[LoweredCard[Card]]) -> Unsimulated:
    """The uses of words the ruleset's game module does not implement."""
    rules = game_rules(ruleset)
    try:
        module = game_module(rules.game)
    except UnknownGame:
        return Unsimulated([], [0] * len(cards))  # reported where the module is looked up
    if every_word_has_code(ruleset, module, rules):
        return Unsimulated([], [0] * len(cards))  # nothing to find: no card needs the walk
    first: dict[tuple[str, str], Span] = {}
    lines: list[int] = []
    known: dict[tuple[str, str], bool] = {}  # a file uses few words, each many times
    for card in cards:
        used: set[int] = set()
        for what, name, where in _uses(card.ir):
            implemented = known.get((what, name))
            if implemented is None:
                implemented = known[what, name] = _implemented(module, rules, what, name)
            if not implemented:
                span = Span.from_list(card.ir["file"], where)
                first.setdefault((what, name), span)
                used.add(span.line)
        lines.append(len(used))
    diagnostics = [
        Diagnostic(
            "W0330",
            "warning",
            f"{what} {name!r} of ruleset {ruleset.name!r} has no code in the "
            f"{module.name!r} runtime: the card prints it, a run logs it, and nothing happens",
            span,
            f"give the {module.name} module a {what} {name!r}, or write the line as "
            '`rule "..."` text for the table',
        )
        for (what, name), span in sorted(
            first.items(), key=lambda item: (item[1].file, item[1].line, item[1].column)
        )
    ]
    return Unsimulated(diagnostics, lines)


def every_word_has_code(ruleset: Ruleset, module: GameModule, rules: GameRules) -> bool:
    """Whether no card of the ruleset can use a word without code: every name its tables can
    put in the IR (the names `_uses` reads) has code."""
    named = (
        ("verb", ruleset.verbs),
        ("condition", ruleset.conditions),
        ("value", ruleset.values),
        ("modifier", ruleset.modifiers),
        ("check", ruleset.checks),
    )
    return all(
        _implemented(module, rules, what, name) for what, table in named for name in table.by_name
    )


def _uses(card: Card) -> list[tuple[str, str, list[int]]]:
    """Every (kind of word, name, position) a card's effects use (its blocks and options;
    its properties and tests are not effects). The walk is generic: it reads any node of
    the tree as a plain mapping and looks only for the keys that name a word."""
    found: list[tuple[str, str, list[int]]] = []
    stack: list[tuple[object, list[int]]] = [(card["blocks"], card["at"])]
    if "options" in card:
        stack.append((card["options"], card["at"]))
    push, pop = stack.append, stack.pop
    while stack:
        node, where = pop()
        if isinstance(node, list):
            stack.extend([(item, where) for item in node if isinstance(item, _CONTAINERS)])
            continue
        if not isinstance(node, dict):
            continue
        at = node.get("at")
        if isinstance(at, list):
            where = at
        for key, what in _WORDS.items():
            word = node.get(key)
            if isinstance(word, str):
                found.append((what, word, where))
        check = node.get("check")
        if isinstance(check, dict) and isinstance(check.get("procedure"), str):
            found.append(("check", check["procedure"], where))
        # Only containers can hold more words: a position is a list of numbers, and its
        # numbers are never pushed (above). A node's `args` are its slots by name, and a slot
        # may be named like a key read here (`{verb:stat}`): its value is never a word, but a
        # node held in it may use one.
        for key, value in node.items():
            if key == "args" and isinstance(value, dict):
                stack.extend(
                    [(held, where) for held in value.values() if isinstance(held, _CONTAINERS)]
                )
            elif isinstance(value, _CONTAINERS) and key != "at":
                push((value, where))
    return found


_CONTAINERS = (dict, list)
"""What can hold more words (made once: `dict | list` would build a union at every node)."""


_WORDS = {"verb": "verb", "flag": "condition", "value": "value", "modifier": "modifier"}
"""The IR keys that name a ruleset word, and what the word is."""


def _implemented(module: GameModule, rules: GameRules, what: str, name: str) -> bool:
    if what == "check":
        rule = rules.procedures.get(name)
        return rule is not None and rule.procedure in module.checks
    table = {
        "verb": module.verbs,
        "condition": module.conditions,
        "value": module.values,
        "modifier": module.modifiers,
    }[what]
    return name in table
