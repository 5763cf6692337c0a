"""Canonical rules text: the English of a checked card, rendered from its IR and the ruleset.

Every word comes from the ruleset: each vocabulary entry's `text:` template and the `wording:`
table (the base ruleset states the defaults, a game states what differs). This module only
knows how sentences are put together, so that what is printed is what is simulated.

The templates themselves are `compiler.texttemplates`; an entry without `text:` reads as its
pattern, filled in.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from compiler.ir import (
    Card,
    Check,
    Compare,
    Condition,
    Effect,
    If,
    ModifierEntry,
    Operand,
    Outcome,
    PropertyValue,
    Roll,
)
from compiler.patterns import PatternTable, SlotType
from compiler.ruleset import Ruleset
from compiler.texttemplates import fill


def _head(template: str, values: Mapping[str, str]) -> str:
    """A control form's template without its `{effects}`: the label of its own line."""
    before, found, after = template.partition("{effects}")
    return fill(before.rstrip(" ,:;") + after if found else template, values)


def _number(value: int) -> str:
    return str(value).replace("-", "−")  # a real minus sign, as printed cards have


def _signed(value: int) -> str:
    return f"{value:+d}".replace("-", "−")


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _sentence(text: str, mark: str) -> str:
    return _capital(text) + ("" if text.endswith((".", "!", "?")) else mark)


def _item(label: str, body: Sequence[str], join: str) -> list[str]:
    """A labelled line (an outcome, a branch, an option) with the rest of its body indented."""
    first, *rest = body or [""]
    return [(_capital(label) + join + first).rstrip(), *("  " + line for line in rest)]


# ---------------------------------------------------------------- effects


@dataclass(frozen=True, slots=True)
class _Piece:
    """One effect written out, before it is put into sentences."""

    text: str  # a clause to be joined with others, or finished text when `clause` is False
    clause: bool = True
    closes: bool = False  # control forms end their sentence: nothing after reads as inside them
    lines: tuple[str, ...] = ()  # lines below the text: outcomes, branches, options
    verb: str | None = None  # the verb a plain clause says, for costs and outcome lists
    short: str = ""  # its short form inside a list of outcomes on one line


def _chain_only(pieces: Sequence[_Piece]) -> bool:
    """Whether the pieces read as one run of clauses, so a control form can hold them inline."""
    return all(p.clause and not p.lines for p in pieces) and not any(p.closes for p in pieces[:-1])


_OPPOSITE: dict[Compare, Compare] = {
    "==": "!=",
    "!=": "==",
    ">=": "<",
    "<": ">=",
    "<=": ">",
    ">": "<=",
}


class _Reader:
    """Writes out the effects of one card in the ruleset's words."""

    def __init__(self, ruleset: Ruleset, kind: str | None) -> None:
        self.ruleset = ruleset
        self.words: dict[str, Any] = ruleset.wording.table
        self.names: dict[str, str] = self.words.get("names") or {}
        self.this = self.name(kind) if kind else self.word("card")
        self.then = self.word("join", "then")
        self.label = self.word("join", "label")

    def word(self, *path: str) -> str:
        """A phrase of the wording table, or "" where the table has none."""
        node: Any = self.words
        for key in path:
            node = node.get(key) if isinstance(node, dict) else None
        return node if isinstance(node, str) else ""

    def name(self, word: str) -> str:
        """How a word of a vocabulary (a stat, a place, a deck) is printed."""
        return self.names.get(word, word)

    def value(self, slot: SlotType | None, value: Any) -> str:
        """A slot's value as printed: display names, signed numbers, lists."""
        if isinstance(value, list):
            return self.word("join", "list").join(self.value(slot, v) for v in value)
        if isinstance(value, bool):
            return ""
        if isinstance(value, int):
            return _signed(value) if slot is not None and slot.signed else _number(value)
        if slot is not None and slot.text:
            return str(value)  # quoted text is the designer's own words
        return self.name(str(value))

    def entry(
        self, section: str, name: str | None, args: Mapping[str, Any], template: str | None = None
    ) -> str:
        """A vocabulary entry's phrase: its `text:`, else its pattern filled in."""
        table: PatternTable = getattr(self.ruleset, section)
        pattern = table.by_name.get(name or "")
        if template is None:
            template = self.ruleset.wording.texts.get(section, {}).get(name or "")
        if template is None:
            template = pattern.source if pattern else (name or "").replace("_", " ")
        slots = pattern.slot_types if pattern else {}
        values = {key: self.value(slots.get(key), arg) for key, arg in args.items()}
        return fill(template, {"this": self.this, **values})

    # ------------------------------------------------------------ pieces

    def pieces(self, effects: Iterable[Effect]) -> list[_Piece]:
        """Each effect written out, leaving out those whose text is empty."""
        return [p for p in (self.piece(e) for e in effects) if p is not None]

    def piece(self, effect: Effect) -> _Piece | None:
        """One effect written out."""
        if "verb" in effect:
            name, args = effect["verb"], effect.get("args") or {}
            text = self.entry("verbs", name, args)
            short = self.words.get("short", {}).get(name)
            brief = self.entry("verbs", name, args, short) if short else text
            return _Piece(text, verb=name, short=brief) if text else None
        if "say" in effect:
            return _Piece(effect["say"], clause=False)  # the designer's words, as written
        if "rule" in effect:
            return _Piece(effect["rule"], clause=False)
        if "may" in effect:
            return self.wrapped(self.word("may"), {}, effect["may"]["effects"])
        if "repeat" in effect:
            repeat = effect["repeat"]
            times = {"times": _number(repeat["times"])}
            return self.wrapped(self.word("repeat"), times, repeat["effects"])
        if "choose" in effect:
            lines = [
                line
                for option in effect["choose"]["options"]
                for line in _item(option["title"], self.lines(option["effects"]), self.label)
            ]
            return _Piece(fill(self.word("choose"), {}), closes=True, lines=tuple(lines))
        if "if" in effect:
            return self.branches(effect["if"])
        if "check" in effect:
            return self.check(effect["check"])
        if "roll" in effect:
            return self.roll(effect["roll"])
        return None

    def wrapped(self, template: str, values: Mapping[str, str], effects: list[Effect]) -> _Piece:
        """`may` and `repeat`: their effects inline when they are plain clauses."""
        pieces = self.pieces(effects)
        if _chain_only(pieces):
            return _Piece(fill(template, {**values, "effects": self.run(pieces)}), closes=True)
        head, body = _head(template, values), self.lines_of(pieces)
        if len(body) == 1:
            return _Piece(_capital(head) + self.label + body[0], clause=False)
        return _Piece(head, closes=True, lines=tuple(body))

    def run(self, pieces: Sequence[_Piece]) -> str:
        """Clauses one after another, or the wording for nothing at all."""
        return self.then.join(p.text for p in pieces) or self.word("nothing")

    def branches(self, node: If) -> _Piece:
        """`if / else if / else`: a sentence a branch, or a line a branch when any tells more."""
        arms: list[tuple[str, dict[str, str], list[_Piece]]] = []
        for index, branch in enumerate(node["branches"]):
            template = self.word("if" if index == 0 else "else_if")
            condition = {"condition": self.condition(branch["when"])}
            arms.append((template, condition, self.pieces(branch["effects"])))
        otherwise = node.get("otherwise")
        if otherwise is not None:
            arms.append((self.word("else"), {}, self.pieces(otherwise)))
        if all(_chain_only(pieces) for _, _, pieces in arms):
            sentences = (
                _sentence(fill(template, {**values, "effects": self.run(pieces)}), ".")
                for template, values, pieces in arms
            )
            return _Piece(" ".join(sentences), clause=False)
        lines = [
            line
            for template, values, pieces in arms
            for line in _item(_head(template, values), self.lines_of(pieces), self.label)
        ]
        return _Piece("", clause=False, lines=tuple(lines))

    def check(self, check: Check) -> _Piece:
        """A check: its phrase, then its outcomes labelled by count or by name."""
        name = check.get("procedure")
        procedure = self.ruleset.procedures.get(name or "")
        unit = procedure.result if procedure is not None and procedure.counted else None
        head = self.entry("checks", name, check.get("args") or {}) if name else ""
        return self.outcomes(head, check["outcomes"], unit)

    def roll(self, roll: Roll) -> _Piece:
        """A roll table: how many dice, then its outcomes labelled by faces."""
        dice = roll["dice"]
        plain = dice["sides"] == self.words.get("roll", {}).get("plain_sides")
        values = {"count": _number(dice["count"]), "sides": _number(dice["sides"])}
        head = fill(self.word("roll", "plain" if plain else "other"), values)
        return self.outcomes(head, roll["outcomes"], None)

    def outcome_label(self, outcome: Outcome, unit: str | None) -> str:
        """`1–2`, `5+`, `0–1 successes`, `1 success`, or an outcome's display name."""
        if "name" in outcome:
            return self.name(outcome["name"])
        low, high = outcome["min"], outcome.get("max")
        if high is None:
            faces = fill(self.word("labels", "open"), {"min": _number(low)})
        elif low == high:
            faces = _number(low)
        else:
            faces = fill(self.word("labels", "range"), {"min": _number(low), "max": _number(high)})
        # A check's results read with their unit where the wording has one (`2+ successes`).
        template = (self.words.get("labels") or {}).get(unit) if unit else None
        return fill(template, {"count": faces}) if isinstance(template, str) else faces

    def outcomes(self, head: str, outcomes: list[Outcome], unit: str | None) -> _Piece:
        """Outcomes on one line when each only changes things; else one line an outcome."""
        labelled = [
            (self.outcome_label(o, unit), self.pieces(o["effects"]))
            for o in outcomes
            if not o.get("invalid")
        ]
        if all(p.verb is not None for _, pieces in labelled for p in pieces):
            parts = (
                label
                + self.label
                + (self.word("join", "and").join(p.short for p in pieces) or self.word("nothing"))
                for label, pieces in labelled
            )
            inline = self.label + self.word("join", "outcomes").join(parts)
            return _Piece(head + inline, closes=True)
        lines = [
            line
            for label, pieces in labelled
            for line in _item(label, self.lines_of(pieces), self.label)
        ]
        return _Piece(head, closes=True, lines=tuple(lines))

    # ------------------------------------------------------------ conditions

    def condition(self, node: Condition) -> str:
        """A condition in words: `your Health is 4 or more`."""
        if "all" in node:
            return self.word("join", "all").join(self.condition(c) for c in node["all"])
        if "any" in node:
            return self.word("join", "any").join(self.condition(c) for c in node["any"])
        if "not" in node:
            inner = node["not"]
            if inner.get("compare") in _OPPOSITE:  # `not health >= 4` reads `less than 4`
                return self.condition({**inner, "compare": _OPPOSITE[inner["compare"]]})
            return fill(self.word("not"), {"condition": self.condition(inner)})
        if "flag" in node:
            return self.entry("conditions", node["flag"], node.get("args") or {})
        if "compare" in node:
            sides = {"left": self.operand(node["left"]), "right": self.operand(node["right"])}
            return fill(self.word("compare", node["compare"]), sides)
        return ""

    def operand(self, node: Operand) -> str:
        """One side of a comparison: a value, a number or a place."""
        if "const" in node:
            return _number(node["const"])
        if "place" in node:
            return self.name(node["place"] or "")
        return self.entry("values", node.get("value"), node.get("args") or {})

    # ------------------------------------------------------------ sentences

    def lines_of(self, pieces: Sequence[_Piece], joiner: str | None = None) -> list[str]:
        """Put pieces into sentences and lines: clauses joined, narration as written."""
        joiner = self.then if joiner is None else joiner
        lines: list[str] = []
        line: list[str] = []  # finished sentences of the line being written
        clauses: list[str] = []  # clauses of the sentence being written

        def end_sentence(mark: str) -> None:
            if clauses:
                line.append(_sentence(joiner.join(clauses), mark))
                clauses.clear()

        def end_line() -> None:
            end_sentence(".")
            if line:
                lines.append(" ".join(line))
                line.clear()

        for piece in pieces:
            if piece.clause:
                clauses.append(piece.text)
            else:
                end_sentence(".")
                if piece.text:
                    line.append(piece.text)
            if piece.lines:
                end_sentence(self.label.rstrip())
                end_line()
                indent = "  " if piece.clause else ""  # lines under a head belong to it
                lines.extend(indent + text for text in piece.lines)
            elif piece.closes:
                end_sentence(".")
        end_line()
        nothing = self.word("nothing")
        return lines or ([_sentence(nothing, ".")] if nothing else [])

    def lines(self, effects: Iterable[Effect], block: str | None = None) -> list[str]:
        """A body of effects as lines; a block the player chooses to use may open with a cost."""
        pieces = self.pieces(effects)
        cost = self.words.get("cost") or {}
        if (
            block in (cost.get("blocks") or [])
            and len(pieces) >= 2
            and pieces[0].verb in (cost.get("verbs") or [])
            and pieces[1].clause
        ):
            paid = {"cost": pieces[0].text, "effects": pieces[1].text}
            pieces = [replace(pieces[1], text=fill(cost.get("join", ""), paid)), *pieces[2:]]
        return self.lines_of(pieces)

    def modifiers(self, modifiers: Iterable[ModifierEntry]) -> list[str]:
        """A block of modifiers (`+1 Speed`) and the rules among them."""
        pieces = [
            _Piece(m["rule"], clause=False)
            if "rule" in m
            else _Piece(self.entry("modifiers", m["modifier"], m.get("args") or {}))
            for m in modifiers
        ]
        return self.lines_of([p for p in pieces if p.text], self.word("join", "modifiers"))

    def property(self, name: str, value: PropertyValue) -> str:
        """A property as printed on the card; "" for one the ruleset does not print."""
        pattern = self.ruleset.properties.by_name.get(name)
        slots = pattern.slots if pattern else ()
        if isinstance(value, dict):
            args: dict[str, Any] = value
        else:  # the IR keeps a one-slot property's value bare, and a slotless one as true
            args = {slots[0].name: value} if slots and not isinstance(value, bool) else {}
        return _capital(self.entry("properties", name, args))


# ---------------------------------------------------------------- public API


@dataclass(frozen=True, slots=True)
class CardText:
    """The printed words of one card, in the order a card lays them out."""

    title: str
    kind: str
    variant: int | None
    properties: tuple[tuple[str, str], ...]  # (property name, printed text), printed ones only
    options: tuple[tuple[str, str], ...]  # (option title, outcome text)
    blocks: tuple[tuple[str, str], ...]  # (header, body)
    rules: tuple[str, ...]
    flavour: tuple[str, ...] = ()


def card_text(ruleset: Ruleset, card: Card) -> CardText:
    """Render every printed part of a checked card from its IR."""
    reader = _Reader(ruleset, card.get("kind"))
    properties = []
    for name, value in (card.get("properties") or {}).items():  # in the order they are written
        text = reader.property(name, value)
        if text:
            properties.append((name, text))
    blocks = []
    for block in card.get("blocks") or []:
        header = _capital(reader.entry("blocks", block["block"], block.get("args") or {}))
        if not header:
            continue  # a block whose text is empty plays what the card's printed lines say
        if "modifiers" in block:
            body = reader.modifiers(block["modifiers"])
        else:
            body = reader.lines(block.get("effects") or [], block["block"])
        blocks.append((header, "\n".join(body)))
    return CardText(
        title=card.get("title", ""),
        kind=card.get("kind", ""),
        variant=card.get("variant"),
        properties=tuple(properties),
        options=tuple(
            (option["title"], "\n".join(reader.lines(option["effects"])))
            for option in card.get("options") or []
        ),
        blocks=tuple(blocks),
        rules=tuple(rule["text"] for rule in card.get("rules") or []),
        flavour=tuple(say["text"] for say in card.get("flavour") or []),
    )


def effects_text(
    ruleset: Ruleset, effects: list[Effect], *, kind: str | None = None, block: str | None = None
) -> str:
    """Render a list of effects; `kind` names what "this" is, `block` where they stand."""
    return "\n".join(_Reader(ruleset, kind).lines(effects, block))


def card_listing(ruleset: Ruleset, text: CardText) -> list[str]:
    """The lines of one card in a plain-text listing, in the narrator's order."""
    reader = _Reader(ruleset, text.kind)
    values = {"title": text.title, "kind": reader.name(text.kind)}
    if text.variant is not None:
        heading = fill(reader.word("listing", "variant"), {**values, "variant": str(text.variant)})
    else:
        heading = fill(reader.word("listing", "heading"), values)
    lines = [heading, *(printed for _, printed in text.properties)]
    # The narrator reads the option titles first and an outcome only once one is picked.
    lines += [fill(reader.word("listing", "option"), {"title": t}) for t, _ in text.options]
    for label, body in (*text.options, *text.blocks):
        lines += _item(label, body.split("\n"), reader.label)
    return [*lines, *text.rules, *text.flavour]


def pack_text(ruleset: Ruleset, cards: Iterable[Card]) -> str:
    """A plain-text listing of every card, a blank line between cards (`build --text`)."""
    listings = ("\n".join(card_listing(ruleset, card_text(ruleset, card))) for card in cards)
    return "\n\n".join(listings) + "\n"
