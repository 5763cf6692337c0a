"""The numbers a tune may change, and the card files with some of them changed.

A knob is one number written in a card: an amount (`gain gold 2`), a property (`health 3`),
a threshold in a condition (`if gold >= 3`), a count (`repeat 2`). It is found in the card's
syntax tree, so it has its exact place in the file, and an edit replaces those characters and
nothing else: the file keeps its layout and comments, as `pillbox fmt` writes it. A card's tests
are not knobs (they pin what the card should do), nor is a `variant` number or a die's faces.

A knob may also be a designer value of the pack's own ruleset file: an entry of a derived
stat's table that the ruleset marks `designer_values: true` (a player mat's row), named by the
stat (`--vary STAT`) or all at once (`--vary "designer values"`). Its place is the YAML
scalar's, so an edit again replaces only its characters.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from compiler.yamlio import YamlError, load_yaml, scalar_span
from dsl import nodes as n
from dsl.parser import parse
from dsl.spans import Span

DESIGNER_VALUES = "designer values"
"""What `--vary` names to make every designer value of the pack's ruleset a knob."""

STEPS = (1, -1, 2, -2)
"""How far one move turns a knob, nearest first."""


@dataclass(frozen=True)
class Knob:
    """One number of one card, where it is written."""

    card: str
    file: str
    span: Span
    value: int
    signed: bool  # written with its sign: `+2`, `-1`
    line_text: str

    @property
    def name(self) -> str:
        """How a designer finds it: the card, the line and what is written there."""
        return f"{self.card} {self.file}:{self.span.line}: {self.line_text.strip()}"

    def written(self, value: int) -> str:
        """The number as this knob writes it."""
        return f"{value:+d}" if self.signed else str(value)

    def allows(self, value: int) -> bool:
        """Whether the number can be written here (an unsigned one is never negative)."""
        return self.signed or value >= 0


@dataclass(frozen=True)
class Edit:
    """A knob set to a new value."""

    knob: Knob
    value: int

    @property
    def step(self) -> int:
        """How far it moved."""
        return self.value - self.knob.value

    def describe(self) -> str:
        """`Rusty Scalpel cards/items.card:4: damage 2 → 3`."""
        return f"{self.knob.name} → {self.knob.written(self.value)}"


def find_knobs(texts: Mapping[str, str], vary: Sequence[str]) -> list[Knob]:
    """Every number of the cards `vary` names (a title, or a kind: every card of it), in file
    order."""
    wanted = set(vary)
    found: list[Knob] = []
    for file, text in texts.items():
        if not file.endswith(".card"):
            continue
        tree, _ = parse(text, file)
        lines = text.split("\n")  # the parser's lines
        for card in tree.cards:
            title = card.title.value
            if title not in wanted and card.kind.text not in wanted:
                continue
            for number in _numbers(card.block):
                line = lines[number.span.line - 1] if number.span.line <= len(lines) else ""
                signed = isinstance(number, n.Signed)
                found.append(Knob(title, file, number.span, number.value, signed, line))
    return found


def find_designer_knobs(rulesets: Mapping[str, str], vary: Sequence[str]) -> list[Knob]:
    """Every designer value (an entry of a derived stat's table marked `designer_values`)
    of the ruleset files given, of the stats `vary` names (or all, for `designer values`)."""
    wanted = set(vary)
    found: list[Knob] = []
    for file, text in rulesets.items():
        try:
            document = load_yaml(text, file)
        except YamlError:  # not this tune's to judge: the check says what is wrong
            continue
        derived = document.data.get("derived") if isinstance(document.data, dict) else None
        lines = text.split("\n")
        for stat, entry in (derived or {}).items():
            if not isinstance(entry, dict) or entry.get("designer_values") is not True:
                continue
            if stat not in wanted and DESIGNER_VALUES not in wanted:
                continue
            for at, value in (entry.get("table") or {}).items():
                if isinstance(value, bool) or not isinstance(value, int):
                    continue
                span = scalar_span(document.span(("derived", stat, "table", at)), text)
                line = lines[span.line - 1] if span.line <= len(lines) else ""
                name = f"{stat} at {entry.get('from', '')} {at}".replace("  ", " ")
                found.append(Knob(name, file, span, value, False, line))
    return found


def _numbers(node: Any) -> Iterator[n.Integer | n.Signed]:
    """The numbers under a node, but in its tests, its dice and its outcomes' labels."""
    if isinstance(node, n.Integer | n.Signed):
        yield node
        return
    if isinstance(node, n.Test | n.Dice | n.Outcome):
        if isinstance(node, n.Outcome):
            yield from _numbers(node.block)
        return
    if isinstance(node, tuple):
        for item in node:
            yield from _numbers(item)
        return
    if dataclasses.is_dataclass(node):
        for field in dataclasses.fields(node):
            if field.name != "span":
                yield from _numbers(getattr(node, field.name))


def moves(knob: Knob) -> Iterator[Edit]:
    """The edits one move away from the knob as written."""
    for step in STEPS:
        value = knob.value + step
        if knob.allows(value):
            yield Edit(knob, value)


def edited(texts: Mapping[str, str], edits: Iterable[Edit]) -> dict[str, str]:
    """The card files with the edits made (only the files they touch)."""
    by_file: dict[str, list[Edit]] = {}
    for edit in edits:
        by_file.setdefault(edit.knob.file, []).append(edit)
    changed: dict[str, str] = {}
    for file, file_edits in by_file.items():
        text = texts[file]
        starts = _line_starts(text)
        # From the end of the file back, so that an edit never moves another's place.
        for edit in sorted(
            file_edits, key=lambda e: (e.knob.span.line, e.knob.span.column), reverse=True
        ):
            span = edit.knob.span
            start = starts[span.line - 1] + span.column - 1
            end = starts[span.end_line - 1] + span.end_column - 1
            text = text[:start] + edit.knob.written(edit.value) + text[end:]
        changed[file] = text
    return changed


def _line_starts(text: str) -> list[int]:
    # The parser counts lines at "\n" only (not str.splitlines' other breaks).
    starts = [0]
    for index, character in enumerate(text):
        if character == "\n":
            starts.append(index + 1)
    return starts
