"""Which entry of the ruleset the phrase under the cursor matched: an effect's verb, a
comparison's condition or value, a block's header, a check's procedure, a property, a
modifier, a test's setting.

Nothing is matched here: the card under the cursor is parsed and lowered alone at its place
in the file, as `check` does it. The parse says where each phrase is written; the IR, which
entry lowering matched it to, found by the node's `at` (and, for a comparison, its side).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from compiler.ir import Card, Condition
from compiler.lower import lower_file
from compiler.lsp.incremental import stretch_at
from compiler.lsp.positions import contains
from compiler.passes import card_effects
from compiler.ruleset import Ruleset
from dsl import nodes as n
from dsl.parser import parse
from dsl.spans import Span

Key = tuple[tuple[int, ...], str]
"""A lowered node by its `at` and the part of it meant: '' the node itself, 'left' or
'right' a side of a comparison, 'set' the value a test's `given` sets."""

Named = tuple[str, str]
"""An entry of the ruleset: its section ('verbs', 'conditions'...) and its name."""


@dataclass(frozen=True)
class Matched:
    """The entry a phrase of a card matched, and where the phrase is written."""

    section: str
    name: str
    span: Span


def matched_at(ruleset: Ruleset, shown: str, text: str, line: int, column: int) -> Matched | None:
    """The entry the phrase at a 0-based line and column of a card file matched; None off a
    phrase, or on one that matched nothing (a typo, a line being typed)."""
    stretch = stretch_at(text, line + 1)
    if stretch is None:
        return None
    start, end, first = stretch
    # blank lines before the card put its spans where they are in the file
    parsed, _ = parse("\n" * (first - 1) + text[start:end], shown)
    lowered, _ = lower_file(ruleset, parsed, shown)
    by_place = {tuple(card.ir["at"]): card.ir for card in lowered}
    for card in parsed.cards:
        ir = by_place.get(tuple(card.span.as_list()))
        if ir is None or not contains(card.span, line, column):
            continue
        names = dict(_card_names(ir))
        here = [(span, keys) for span, keys in _card_phrases(card) if contains(span, line, column)]
        if not here:
            return None
        span, keys = min(here, key=lambda found: _extent(found[0]))  # the innermost
        named = next((names[key] for key in keys if key in names), None)
        return None if named is None else Matched(*named, span)
    return None


def _extent(span: Span) -> tuple[int, int]:
    return span.end_line - span.line, span.end_column - span.column


# ---------------------------------------------------------------- where phrases are written


def _card_phrases(card: n.Card) -> Iterator[tuple[Span, list[Key]]]:
    """Each phrase of a card matched against the ruleset: its span, and the keys of the
    lowered node it may have become (a card's line is a property, else an effect)."""
    yield from _block_phrases(card.block)


def _block_phrases(block: n.Block | None) -> Iterator[tuple[Span, list[Key]]]:
    for statement in block.body if block is not None else ():
        yield from _statement_phrases(statement)


def _statement_phrases(statement: n.Statement) -> Iterator[tuple[Span, list[Key]]]:
    if isinstance(statement, n.PhraseLine):
        yield statement.phrase.span, [_key(statement.span), _key(statement.phrase.span)]
    elif isinstance(statement, n.HeaderBlock):
        yield statement.header.span, [_key(statement.span)]
        yield from _block_phrases(statement.block)
    elif isinstance(statement, n.Option | n.Choose | n.Repeat):
        yield from _block_phrases(statement.block)
    elif isinstance(statement, n.May):
        if statement.phrase is not None:
            yield statement.phrase.span, [_key(statement.span)]
        yield from _block_phrases(statement.block)
    elif isinstance(statement, n.If):
        for branch in statement.branches:
            yield from _condition_phrases(branch.condition)
            yield from _block_phrases(branch.block)
        yield from _block_phrases(statement.otherwise)
    elif isinstance(statement, n.Check | n.Roll):
        if isinstance(statement, n.Check):  # `check` itself names the check too
            yield statement.keyword_span.to(statement.phrase.span), [_key(statement.span)]
        for outcome in statement.outcomes:
            yield from _block_phrases(outcome.block)
    elif isinstance(statement, n.Test):
        for step in statement.steps:
            if isinstance(step, n.Given):
                yield from ((p.span, [_key(p.span, "set")]) for p in step.settings)
            elif isinstance(step, n.Expect):
                yield from _condition_phrases(step.condition)


def _condition_phrases(condition: n.Condition) -> Iterator[tuple[Span, list[Key]]]:
    for group in condition.any_of:
        for comparison in group:
            if comparison.op is None:  # a flag: `not` and all
                yield comparison.span, [_key(comparison.span)]
                continue
            yield comparison.left.span, [_key(comparison.span, "left")]
            if comparison.right is not None:
                yield comparison.right.span, [_key(comparison.span, "right")]


def _key(where: Span | Sequence[int], part: str = "") -> Key:
    """The key of a node written at a span (or lowered with that `at`)."""
    return tuple(where.as_list() if isinstance(where, Span) else where), part


# ---------------------------------------------------------------- what lowering matched


def _card_names(card: Card) -> Iterator[tuple[Key, Named]]:
    """Each node of a card's IR that names an entry of the ruleset, by its key."""
    for name, where in card.get("property_at", {}).items():
        yield _key(where), ("properties", name)
    for block in card["blocks"]:
        yield _key(block["at"]), ("blocks", block["block"])
        for modifier in block.get("modifiers", []):
            if "modifier" in modifier:
                yield _key(modifier["at"]), ("modifiers", modifier["modifier"])
    for effect in card_effects(card):
        if "verb" in effect:
            yield _key(effect["at"]), ("verbs", effect["verb"])
        elif "check" in effect and effect["check"]["procedure"] is not None:
            yield _key(effect["at"]), ("checks", effect["check"]["procedure"])
        elif "if" in effect:
            for branch in effect["if"]["branches"]:
                yield from _condition_names(branch["when"])
    for test in card["tests"]:
        for step in test["steps"]:
            if "set" in step and step["set"]["target"].get("value"):
                yield _key(step["at"], "set"), ("values", str(step["set"]["target"]["value"]))
            elif "expect" in step:
                yield from _condition_names(step["expect"])


def _condition_names(condition: Condition) -> Iterator[tuple[Key, Named]]:
    for inner in [*condition.get("any", []), *condition.get("all", [])]:
        yield from _condition_names(inner)
    if "not" in condition:
        yield from _condition_names(condition["not"])
    if condition.get("flag"):
        yield _key(condition["at"]), ("conditions", str(condition["flag"]))
    if "compare" in condition:
        sides = {"left": condition["left"], "right": condition["right"]}
        for side, operand in sides.items():
            if operand.get("value"):
                yield _key(condition["at"], side), ("values", str(operand["value"]))
