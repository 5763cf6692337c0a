"""Semantic passes over the lowered cards of a pack: each a small function yielding diagnostics."""

from __future__ import annotations

import functools
import itertools
import json
import math
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from importlib import resources
from typing import Any, Literal, overload

from compiler.ir import AnyCard, Card, CardFacts, Effect, Option, Outcome, TestFacts
from compiler.lower import MAX_DICE, MAX_DIE_SIDES, LoweredCard
from compiler.patterns import did_you_mean, with_article
from compiler.ruleset import Ruleset
from dsl.spans import Diagnostic, Span

Pass = Callable[[Ruleset, Sequence[LoweredCard[Card]]], Iterator[Diagnostic]]
"""A pass over whole cards, as a file's check lowers them."""

PackCards = Sequence[LoweredCard[Card]] | Sequence[LoweredCard[CardFacts]]
"""A pack's cards as the pack-wide passes take them: whole, or only their cached facts."""

PackPass = Callable[[Ruleset, PackCards], Iterator[Diagnostic]]
"""A pass that reads only the facts of cards, so that it also runs on a check's cache."""


def span_of(card: AnyCard, where: list[int]) -> Span:
    """Rebuild a span from an IR `at` inside a card."""
    return Span.from_list(card["file"], where)


def kind_span(card: AnyCard) -> Span:
    """The span of a card's kind word, where warnings about the whole card point."""
    line, column = card["at"][:2]
    return Span(card["file"], line, column, line, column + len(card["kind"]))


def _error(code: str, message: str, span: Span, help: str | None = None) -> Diagnostic:
    return Diagnostic(code, "error", message, span, help)


def _warning(code: str, message: str, span: Span, help: str | None = None) -> Diagnostic:
    return Diagnostic(code, "warning", message, span, help)


def walk_effects(effects: Sequence[Effect]) -> Iterator[Effect]:
    """Yield every effect node inside a list of effects, depth first, without recursion."""
    stack = list(reversed(effects))
    while stack:
        effect = stack.pop()
        yield effect
        children = _children(effect)
        if children:
            stack.extend(reversed(children))


def _children(effect: Effect) -> Sequence[Effect]:
    """The effects directly inside one effect, in order (a list, not a generator: this runs for
    every effect node of every pass that walks them)."""
    if "may" in effect:
        return effect["may"]["effects"]
    if "choose" in effect:
        return [e for option in effect["choose"]["options"] for e in option["effects"]]
    if "if" in effect:
        inside = [e for branch in effect["if"]["branches"] for e in branch["effects"]]
        return inside + (effect["if"]["otherwise"] or [])
    if "check" in effect or "roll" in effect:
        body = effect.get("check") or effect["roll"]
        return [e for outcome in body["outcomes"] for e in outcome["effects"]]
    if "repeat" in effect:
        return effect["repeat"]["effects"]
    return ()


def card_effects(card: Card) -> Iterator[Effect]:
    """Every effect node of a card: its options' and its blocks'."""
    for option in card.get("options", []):
        yield from walk_effects(option["effects"])
    for block in card["blocks"]:
        yield from walk_effects(block.get("effects", []))


# ---------------------------------------------------------------- outcome coverage


Interval = tuple[int, int]


def _describe(runs: Sequence[Interval], unit: tuple[str, str] | None) -> str:
    """`[(2, 2)]` -> '2 successes', `[(5, 6)]` -> '5..6'."""
    parts = [str(a) if a == b else f"{a}..{b}" for a, b in runs]
    text = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    if unit is None:
        return text
    single = len(runs) == 1 and runs[0] == (1, 1)
    return f"{text} {unit[0] if single else unit[1]}"


def _merge(intervals: Sequence[Interval]) -> list[Interval]:
    """Sort and join touching or overlapping intervals."""
    merged: list[Interval] = []
    for a, b in sorted(intervals):
        if merged and a <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], b))
        else:
            merged.append((a, b))
    return merged


def _label(outcome: Outcome) -> str:
    if "name" in outcome:
        return str(outcome["name"])
    if outcome["max"] is None:
        return f"{outcome['min']}+"
    if outcome["min"] == outcome["max"]:
        return str(outcome["min"])
    return f"{outcome['min']}..{outcome['max']}"


def _coverage(
    card: Card, node: Effect, what: str, low: int, high: int, unit: tuple[str, str] | None
) -> Iterator[Diagnostic]:
    """Ranges must cover low..high exactly once; works on intervals, so huge numbers are cheap."""
    body = node.get("check") or node["roll"]
    seen: list[tuple[Interval, str]] = []
    for outcome in body["outcomes"]:
        if "min" not in outcome:
            continue
        first = outcome["min"]
        last = outcome["max"] if outcome["max"] is not None else max(high, first)
        if first > last:
            yield _error(
                "E0303",
                f"the range {first}..{last} is empty: it runs backwards",
                span_of(card, outcome["label_at"]),
                f"write {last}..{first}",
            )
            first, last = last, first  # read as meant, so no gap is reported on top
        here = (max(first, low), min(last, high))
        if here[0] > here[1]:
            continue
        clashes = [
            ((max(here[0], a), min(here[1], b)), label)
            for (a, b), label in seen
            if a <= here[1] and here[0] <= b
        ]
        if clashes:
            others = sorted({label for _, label in clashes})
            yield _error(
                "E0302",
                f"outcomes overlap: {' and '.join(others)} and {_label(outcome)} "
                f"both cover {_describe(_merge([run for run, _ in clashes]), unit)}",
                span_of(card, outcome["label_at"]),
                "each outcome must be covered by exactly one label",
            )
        seen.append((here, _label(outcome)))
    missing: list[Interval] = []
    cursor = low
    for a, b in _merge([run for run, _ in seen]):
        if a > cursor:
            missing.append((cursor, a - 1))
        cursor = max(cursor, b + 1)
    if cursor <= high:
        missing.append((cursor, high))
    if missing:
        yield _error(
            "E0301",
            f"{what} does not cover {_describe(missing, unit)}",
            span_of(card, node["keyword_at"]),
            f"add an outcome for {_describe(missing, None)}",
        )


def outcome_coverage(ruleset: Ruleset, cards: Sequence[LoweredCard[Card]]) -> Iterator[Diagnostic]:
    """Every check and roll handles each possible result exactly once."""
    for lowered in cards:
        card = lowered.ir
        for effect in card_effects(card):
            body = effect.get("roll") or effect.get("check")
            # A wrong label was reported already; its gaps would only repeat that error.
            if body is None or any(o.get("invalid") for o in body["outcomes"]):
                continue
            if "roll" in effect:
                count, sides = effect["roll"]["dice"]["count"], effect["roll"]["dice"]["sides"]
                if not (1 <= count <= MAX_DICE and 2 <= sides <= MAX_DIE_SIDES):
                    continue  # already reported as out of range
                notation = f"{count if count != 1 else ''}d{sides}"
                yield from _coverage(card, effect, f"roll {notation}", count, count * sides, None)
            elif (procedure := effect["check"]["procedure"]) is not None:
                yield from _check_coverage(ruleset, card, effect, procedure)


UNITS = {"successes": ("success", "successes"), "damage": ("damage", "damage")}
"""How coverage messages count a check's results, by what it gives (totals and faces: bare)."""


def _check_coverage(
    ruleset: Ruleset, card: Card, effect: Effect, name: str
) -> Iterator[Diagnostic]:
    """Coverage of a check whose procedure, `name`, lowering found."""
    check = effect["check"]
    procedure = ruleset.procedures[name]
    args = check["args"]
    what = "check " + ruleset.checks.by_name[name].phrase(args)
    if not procedure.counted:
        seen: dict[str, Outcome] = {}
        for outcome in check["outcomes"]:
            name = outcome["name"]
            if name in seen:
                yield _error(
                    "E0302",
                    f"outcomes overlap: '{name}' is handled twice",
                    span_of(card, outcome["label_at"]),
                )
            seen[name] = outcome
        missing = [name for name in procedure.names if name not in seen]
        if missing:
            yield _error(
                "E0301",
                f"{what} does not cover {', '.join(repr(m) for m in missing)}",
                span_of(card, effect["keyword_at"]),
            )
        return
    bounds = ruleset.check_bounds(name, args)
    if bounds is None:
        return  # the procedure does not say which numbers it gives
    unit = UNITS.get(procedure.result)
    yield from _coverage(card, effect, what, bounds.low, bounds.high, unit)
    closed = [o for o in check["outcomes"] if "min" in o]
    if bounds.open and closed and all(o["max"] is not None for o in closed):
        top = max(closed, key=lambda o: o["max"] or 0)  # every max is a number here
        if top["max"] == bounds.high:
            yield _warning(
                "W0304",
                f"bonus dice can roll more than {bounds.high}"
                + (f" {unit[1]}" if unit else "")
                + ", and no outcome covers them",
                span_of(card, top["label_at"]),
                f"make the last outcome open: {top['min']}+",
            )


# ---------------------------------------------------------------- titles and variants


def titles_and_variants(ruleset: Ruleset, cards: PackCards) -> Iterator[Diagnostic]:
    """Titles are unique, except for numbered variants of one card, which must look alike."""
    by_title: dict[str, list[AnyCard]] = {}
    for lowered in cards:
        by_title.setdefault(lowered.ir["title"], []).append(lowered.ir)
    for title, group in by_title.items():
        first = group[0]
        if len(group) == 1:
            if first["variant"] is not None:
                kind = ruleset.kinds[first["kind"]]
                if kind.variants_same is None:
                    yield _error(
                        "E0312",
                        f"{kind.name} cards have no variants",
                        span_of(first, first["at"]),
                    )
            continue
        numbered = [c for c in group if c["variant"] is not None]
        if len(numbered) != len(group):
            for card in group[1:]:
                yield _error(
                    "E0310",
                    f'duplicate card title "{title}"',
                    span_of(card, card["at"]),
                    f"first defined at {first['file']}:{first['at'][0]}:{first['at'][1]}; "
                    "give each card its own title, or number the versions with `variant N`",
                )
            continue
        yield from _variants(ruleset, title, group)


def look_alike_titles(ruleset: Ruleset, cards: PackCards) -> Iterator[Diagnostic]:
    """Different titles that print alike: the same once in Unicode's compatibility form
    (NFKC: a full-width `Ｋ` is a `K`) and without invisible characters (a zero-width space, a
    soft hyphen, a direction mark), W0316. A card test or `guarded by` names one of them;
    the table sees two cards of one name."""
    first_of: dict[str, AnyCard] = {}
    for lowered in cards:
        card = lowered.ir
        first = first_of.setdefault(printed_title(card["title"]), card)
        if first["title"] != card["title"]:
            yield _warning(
                "W0316",
                f"title {card['title']!r} prints like {first['title']!r}, another card's",
                span_of(card, card["at"]),
                f"first at {first['file']}:{first['at'][0]}:{first['at'][1]}; write the same "
                "title with the same characters, or give the cards titles that read apart",
            )


def printed_title(title: str) -> str:
    """A title as it reads in print: NFKC, with the characters that print nothing left out and
    each letter of another script that looks like an ASCII one read as that one."""
    if title.isascii():  # NFKC leaves ASCII as it is, and no ASCII character is a format (Cf)
        return title
    shown = "".join(
        c for c in unicodedata.normalize("NFKC", title) if unicodedata.category(c) != "Cf"
    )
    if shown.isascii():
        return shown
    looks = _ascii_look_alikes()
    return "".join(looks.get(c, c) for c in shown)


@functools.cache
def _ascii_look_alikes() -> dict[str, str]:
    """Each non-ASCII character Unicode's confusables table (UTS #39, as confusable_homoglyphs
    ships it) says looks like an ASCII one, and that one. ASCII itself is left as typed: an
    `l` and a `1` written on purpose are the designer's, a Cyrillic `і` pasted in is not."""
    table = resources.files("confusable_homoglyphs").joinpath("confusables.json")
    looks: dict[str, str] = {}
    for character, alikes in json.loads(table.read_text(encoding="utf-8")).items():
        if len(character) != 1 or character.isascii():
            continue
        ascii_alikes = sorted(a["c"] for a in alikes if len(a["c"]) == 1 and a["c"].isascii())
        if ascii_alikes:
            looks[character] = ascii_alikes[0]
    return looks


def _variants(ruleset: Ruleset, title: str, group: list[AnyCard]) -> Iterator[Diagnostic]:
    first = group[0]
    kind = ruleset.kinds[first["kind"]]
    seen_numbers: dict[int | None, AnyCard] = {}
    for card in group:
        if card["kind"] != first["kind"]:
            yield _error(
                "E0310",
                f'duplicate card title "{title}": {with_article(card["kind"])} and '
                f"{with_article(first['kind'])}",
                span_of(card, card["at"]),
            )
            return
        if card["variant"] in seen_numbers:
            yield _error(
                "E0311",
                f'"{title}" has two cards numbered variant {card["variant"]}',
                span_of(card, card["at"]),
            )
        seen_numbers[card["variant"]] = card
    if kind.variants_same is None:
        yield _error("E0312", f"{kind.name} cards have no variants", span_of(first, first["at"]))
        return
    for card in group[1:]:
        for prop in kind.variants_same:
            if card["properties"].get(prop) != first["properties"].get(prop):
                where = card.get("property_at", {}).get(prop, card["at"])
                yield _error(
                    "E0313",
                    f'variant {card["variant"]} of "{title}" shows a different {prop} '
                    f"from variant {first['variant']}",
                    span_of(card, where),
                    "variants must look the same until an option is chosen",
                )
        if kind.variants_same_options:
            yield from _same_options(title, first, card)


def _same_options(title: str, first: AnyCard, card: AnyCard) -> Iterator[Diagnostic]:
    expected = [o["title"] for o in first.get("options", [])]
    actual = [o["title"] for o in card.get("options", [])]
    expected_set, actual_set = set(expected), set(actual)
    label = f'variant {card["variant"]} of "{title}"'
    for option in card.get("options", []):
        if option["title"] not in expected_set:
            yield _error(
                "E0314",
                f'{label} offers option "{option["title"]}", which variant '
                f"{first['variant']} does not: variants must show the same option titles",
                span_of(card, option["at"]),
                "players could tell the variants apart",
            )
    for name in expected:
        if name not in actual_set:
            yield _error(
                "E0314",
                f'{label} lacks option "{name}": variants must show the same option titles',
                span_of(card, card["at"]),
            )
    if sorted(expected) == sorted(actual) and expected != actual:
        yield _error(
            "E0314",
            f"{label} lists its option titles in another order than variant {first['variant']}",
            span_of(card, card["at"]),
        )


def duplicate_options(ruleset: Ruleset, cards: Sequence[LoweredCard[Card]]) -> Iterator[Diagnostic]:
    """Option titles within one card, or one `choose`, are unique."""
    for lowered in cards:
        card = lowered.ir
        groups = [card.get("options", [])]
        groups += [e["choose"]["options"] for e in card_effects(card) if "choose" in e]
        for options in groups:
            seen: dict[str, Option] = {}
            for option in options:
                if option["title"] in seen:
                    yield _error(
                        "E0315",
                        f'duplicate option title "{option["title"]}"',
                        span_of(card, option["at"]),
                        f"first used on line {seen[option['title']]['at'][0]}",
                    )
                seen.setdefault(option["title"], option)


# ---------------------------------------------------------------- charts


def charts(ruleset: Ruleset, cards: PackCards) -> Iterator[Diagnostic]:
    """Chart keys (orders of symbols) are unique, use defined symbols, and gaps are listed."""
    for chart in ruleset.charts:
        entries = [c.ir for c in cards if c.ir["kind"] == chart.kind]
        keyed = [
            (c, value) for c in entries if isinstance(value := c["properties"].get(chart.key), list)
        ]
        if not keyed:
            continue
        symbols = {
            str(c.ir["properties"][chart.symbol_property])
            for c in cards
            if c.ir["kind"] == chart.symbol_kind and chart.symbol_property in c.ir["properties"]
        }
        label = chart.key.replace("_", " ")
        seen: dict[tuple[str, ...], AnyCard] = {}
        for card, value in keyed:
            key = tuple(value)
            where = span_of(card, card.get("property_at", {}).get(chart.key, card["at"]))
            written = f"{label} {' '.join(key)}"
            if len(set(key)) != len(key):
                yield _error("E0321", f"{written} repeats a symbol", where)
            undefined = [s for s in key if symbols and s not in symbols]
            if undefined:
                yield _error(
                    "E0322",
                    f"{written} uses {', '.join(undefined)}, which no {chart.symbol_kind} card "
                    "of this pack defines",
                    where,
                )
            if key in seen:
                other = seen[key]
                yield _error(
                    "E0320",
                    f'{written} is already used by {other["kind"]} "{other["title"]}"',
                    where,
                    f"defined at {other['file']}:{other['at'][0]}:{other['at'][1]}; "
                    f"each {label} picks one "
                    f"{chart.kind}",
                )
            seen.setdefault(key, card)
        yield from _unassigned(chart.kind, label, symbols, seen, keyed[0][0])


def _unassigned(
    kind: str,
    label: str,
    symbols: set[str],
    seen: dict[tuple[str, ...], AnyCard],
    anchor: AnyCard,
) -> Iterator[Diagnostic]:
    length = max(len(k) for k in seen)
    pool = sorted(symbols or {s for key in seen for s in key})
    total = math.perm(len(pool), length) if len(pool) >= length else 0
    unassigned_count = total - sum(1 for k in seen if len(k) == length and set(k) <= set(pool))
    if unassigned_count <= 0:
        return
    listed: list[str] = []
    if total <= 5000:
        for order in itertools.permutations(pool, length):
            if order not in seen:
                listed.append("-".join(order))
    shown = ", ".join(listed[:12]) + (f" and {len(listed) - 12} more" if len(listed) > 12 else "")
    yield _warning(
        "W0323",
        f"{unassigned_count} {label}{'s lead' if unassigned_count != 1 else ' leads'} to no {kind}"
        + (f": {shown}" if shown else ""),
        span_of(anchor, anchor.get("property_at", {}).get(label.replace(" ", "_"), anchor["at"])),
        f"add a {kind} for each {label} that can happen in play",
    )


# ---------------------------------------------------------------- tests


def test_choices(ruleset: Ruleset, cards: Sequence[LoweredCard[Card]]) -> Iterator[Diagnostic]:
    """A test chooses options its own card has (unless it plays another card)."""
    for lowered in cards:
        card = lowered.ir
        options = {o["title"] for o in card.get("options", [])}
        options |= {
            o["title"] for e in card_effects(card) if "choose" in e for o in e["choose"]["options"]
        }
        for test in card["tests"]:
            if any("play" in step for step in test["steps"]):
                continue  # its answers may be for the other card played; the run checks them
            for step in test["steps"]:
                choose = step.get("choose", {})
                if "option" in choose and choose["option"] not in options:
                    yield _error(
                        "E0242",
                        f'the test chooses "{choose["option"]}", but "{card["title"]}" '
                        "has no such option",
                        span_of(card, step["at"]),
                        did_you_mean(choose["option"], options)
                        or f"its options are: {', '.join(sorted(options)) or 'none'}",
                    )


_USES: tuple[tuple[Literal["use", "carry", "play"], str], ...] = (
    ("use", "uses"),
    ("carry", "carries"),
    ("play", "plays"),
)
"""The test steps that name a card of the pack, and the verb a message says of each."""


def test_uses(ruleset: Ruleset, cards: PackCards) -> Iterator[Diagnostic]:
    """A test uses cards the pack has."""
    titles = {c.ir["title"] for c in cards}
    for lowered in cards:
        card = lowered.ir
        for test in card["tests"]:
            for step in test["steps"]:
                for action, verb in _USES:
                    if action in step and step[action] not in titles:
                        yield _error(
                            "E0243",
                            f'the test {verb} "{step[action]}", but the pack has no such card',
                            span_of(card, step["at"]),
                            did_you_mean(step[action], titles),
                        )


def named_cards(ruleset: Ruleset, cards: PackCards) -> Iterator[Diagnostic]:
    """A property whose slot holds a card's title names a card of the pack of those kinds."""
    kinds_of: dict[str, set[str]] = {}
    for lowered in cards:
        kinds_of.setdefault(lowered.ir["title"], set()).add(lowered.ir["kind"])
    for lowered in cards:
        card = lowered.ir
        for name, value in card["properties"].items():
            pattern = ruleset.properties.by_name.get(name)
            slots = [s for s in pattern.slots if s.type.titles] if pattern is not None else []
            for slot in slots:
                named = value.get(slot.name) if isinstance(value, dict) else value
                wanted = slot.type.titles
                for title in named if isinstance(named, list) else [named]:
                    if not isinstance(title, str) or kinds_of.get(title, set()) & set(wanted):
                        continue
                    titles = {t for t, k in kinds_of.items() if k & set(wanted)}
                    yield _error(
                        "E0420",
                        f'"{title}" is no {" or ".join(wanted)} card of the pack',
                        span_of(card, card["property_at"].get(name, card["at"])),
                        did_you_mean(title, titles)
                        or f"name one of its {' or '.join(wanted)} cards by its title",
                    )


def block_needs(ruleset: Ruleset, cards: Sequence[LoweredCard[Card]]) -> Iterator[Diagnostic]:
    """A block whose header the ruleset says is there for a verb (`needs:`) uses it, or at
    least says in printed text what it does (`rule "..."`)."""
    blocks = ruleset.data.get("blocks") or {}
    for lowered in cards:
        card = lowered.ir
        for block in card["blocks"]:
            needs = (blocks.get(block["block"]) or {}).get("needs")
            pattern = ruleset.verbs.by_name.get(needs) if isinstance(needs, str) else None
            if pattern is None:
                continue
            effects = list(walk_effects(block.get("effects", [])))
            if any(e.get("verb") == needs or "rule" in e for e in effects):
                continue
            header = ruleset.blocks.by_name[block["block"]].source
            yield _error(
                "E0430",
                f"this '{header}' block never says '{pattern.source}', so it can never do "
                "what it is for",
                span_of(card, block["at"]),
                f"say it where its condition holds: if ... {{ {pattern.source} }}",
            )


def pack_facts(card: AnyCard) -> CardFacts:
    """What the pack-wide passes read of a card: identity, properties, options, test uses."""
    tests: list[TestFacts] = [
        {"steps": [s for s in t["steps"] if {"use", "carry", "play"} & s.keys()]}
        for t in card["tests"]
    ]
    if "options" not in card:
        return {
            "kind": card["kind"],
            "title": card["title"],
            "variant": card["variant"],
            "file": card["file"],
            "at": card["at"],
            "properties": card["properties"],
            "property_at": card["property_at"],
            "tests": tests,
        }
    return {
        "kind": card["kind"],
        "title": card["title"],
        "variant": card["variant"],
        "file": card["file"],
        "at": card["at"],
        "properties": card["properties"],
        "property_at": card["property_at"],
        "options": [{"title": o["title"], "at": o["at"]} for o in card["options"]],
        "tests": tests,
    }


CARD_PASSES: tuple[Pass, ...] = (outcome_coverage, duplicate_options, test_choices, block_needs)
"""Passes that look at one card at a time: they run per file, and their results are cached."""

PACK_PASSES: tuple[PackPass, ...] = (
    titles_and_variants,
    look_alike_titles,
    charts,
    test_uses,
    named_cards,
)
"""Passes that compare cards across the whole pack: they run on every check."""


@overload
def run_passes(
    ruleset: Ruleset, cards: Sequence[LoweredCard[CardFacts]], passes: Sequence[PackPass]
) -> list[Diagnostic]: ...


@overload
def run_passes(
    ruleset: Ruleset,
    cards: Sequence[LoweredCard[Card]],
    passes: Sequence[Pass] = CARD_PASSES + PACK_PASSES,
) -> list[Diagnostic]: ...


def run_passes(
    ruleset: Ruleset,
    cards: PackCards,
    passes: Sequence[Callable[[Ruleset, Any], Iterator[Diagnostic]]] = CARD_PASSES + PACK_PASSES,
) -> list[Diagnostic]:
    """Run semantic passes (by default all of them) over cards: the passes of whole cards over
    whole cards only, the pack-wide ones over either (the overloads say which)."""
    found: list[Diagnostic] = []
    for semantic_pass in passes:
        found.extend(semantic_pass(ruleset, cards))
    return found
