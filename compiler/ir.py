"""The card IR's types: the plain JSON that `compiler.lower` makes of a card, as TypedDicts.

They mirror `schemas/ir.schema.json` (tests/test_ir_schema.py holds each TypedDict to its schema
definition, key for key, required or not) and cost nothing at run time: a card's IR is still a
plain dict, serialized, cached and compared as before.

Where the schema names a word of the ruleset (a verb, a flag, a procedure), the type is `str`:
the ruleset fills those enums in when the schema is loaded. A word that lowering could not match
is `None` in the IR of a card with errors (`"procedure": None`, `"flag": None`, `"value": None`,
`"place": None`); such a card is never compiled, printed or validated, but the passes that run
on every card see it.

An effect is one TypedDict with a key for each of its forms (`verb`, `say`, `rule`, `may`,
`choose`, `if`, `check`, `roll`, `repeat`), as in the schema: a reader tests which key is there
(`"check" in effect`) before it reads it. Conditions and operands are the same.

The module leaves out `from __future__ import annotations`: under it, Python 3.11 cannot
tell a `NotRequired` key from a required one at run time, and the schema test reads them.

`CardFacts` is not in the schema: it is the part of a card that the pack-wide passes read, which
a check caches instead of the whole IR (`compiler.passes.pack_facts`).
"""

from typing import Literal, NotRequired, TypedDict

from compiler.patterns import Value

At = list[int]
"""A node's place in its file: [line, column, end_line, end_column], 1-based."""

Args = dict[str, Value]
"""Slot values by slot name, as a pattern of the ruleset matched them."""

PropertyValue = Value | Args | bool
"""A card property: its one slot's value, its slots by name, or `True` for a bare word."""

Compare = Literal["==", "!=", ">=", "<=", ">", "<"]


class TextEntry(TypedDict):
    """A `rule "..."` or `say "..."` line at the top of a card."""

    text: str
    at: At


class Option(TypedDict):
    """An `option "Title" { ... }`, of a card or of a `choose`."""

    title: str
    at: At
    effects: list["Effect"]


class ModifierEntry(TypedDict):
    """A line of a block that holds modifiers: a modifier or a `rule "..."`."""

    at: At
    modifier: NotRequired[str]
    args: NotRequired[Args]
    rule: NotRequired[str]


class BlockEntry(TypedDict):
    """A block of a card (`when played { ... }`): effects, or modifiers, by the ruleset."""

    block: str
    at: At
    args: NotRequired[Args]
    effects: NotRequired[list["Effect"]]
    modifiers: NotRequired[list[ModifierEntry]]


class May(TypedDict):
    effects: list["Effect"]


class Choose(TypedDict):
    options: list[Option]


class Branch(TypedDict):
    """One `if` or `else if` of an `if` effect."""

    when: "Condition"
    effects: list["Effect"]
    at: At


class If(TypedDict):
    branches: list[Branch]
    otherwise: list["Effect"] | None


class Outcome(TypedDict):
    """One labelled outcome of a check or roll: a count range (`min`, `max`; `max` None for
    `3+`) or a named result (`name`); `invalid` when the label was wrong."""

    at: At
    label_at: At
    effects: list["Effect"]
    min: NotRequired[int]
    max: NotRequired[int | None]
    name: NotRequired[str]
    invalid: NotRequired[bool]


class Check(TypedDict):
    procedure: str | None
    args: Args
    outcomes: list[Outcome]


class Dice(TypedDict):
    count: int
    sides: int


class Roll(TypedDict):
    dice: Dice
    outcomes: list[Outcome]


class Repeat(TypedDict):
    times: int
    effects: list["Effect"]


# `if` is a keyword, so the effect takes the functional form.
Effect = TypedDict(
    "Effect",
    {
        "at": At,
        "keyword_at": NotRequired[At],
        "verb": NotRequired[str],
        "args": NotRequired[Args],
        "say": NotRequired[str],
        "rule": NotRequired[str],
        "may": NotRequired[May],
        "choose": NotRequired[Choose],
        "if": NotRequired[If],
        "check": NotRequired[Check],
        "roll": NotRequired[Roll],
        "repeat": NotRequired[Repeat],
    },
)


class Operand(TypedDict, total=False):
    """A side of a comparison: a value of the ruleset, a number or a place."""

    value: str | None
    args: Args
    const: int
    place: str | None


# `not` is a keyword, so the condition takes the functional form.
Condition = TypedDict(
    "Condition",
    {
        "any": list["Condition"],
        "all": list["Condition"],
        "not": "Condition",
        "flag": str | None,
        "args": Args,
        "compare": Compare,
        "left": Operand,
        "right": Operand,
        "at": At,
    },
    total=False,
)


class Setting(TypedDict):
    """`given VALUE N` in a test."""

    target: Operand
    to: int | str


class Answer(TypedDict, total=False):
    """A test's answer to a question: an option's title, or yes or no."""

    option: str
    answer: Literal["yes", "no"]


class Step(TypedDict):
    """One step of a test: `at` and one action (a sheet's card also keeps its `text`)."""

    at: At
    text: NotRequired[str]
    set: NotRequired[Setting]
    choose: NotRequired[Answer]
    use: NotRequired[str]
    carry: NotRequired[str]
    play: NotRequired[str]
    next_turn: NotRequired[Literal[True]]
    dice: NotRequired[list[int]]
    expect: NotRequired[Condition]


class Test(TypedDict):
    name: str
    at: At
    steps: list[Step]


class Card(TypedDict):
    """One checked card."""

    kind: str
    title: str
    variant: int | None
    file: str
    at: At
    properties: dict[str, PropertyValue]
    property_at: NotRequired[dict[str, At]]
    options: NotRequired[list[Option]]
    blocks: list[BlockEntry]
    rules: list[TextEntry]
    flavour: NotRequired[list[TextEntry]]
    tests: list[Test]


class OptionFacts(TypedDict):
    """An option as the pack-wide passes see it: its title and place."""

    title: str
    at: At


class TestFacts(TypedDict):
    """A test as the pack-wide passes see it: only its steps that name another card."""

    steps: list[Step]


class CardFacts(TypedDict):
    """What the pack-wide passes read of a card, and all a check caches of it."""

    kind: str
    title: str
    variant: int | None
    file: str
    at: At
    properties: dict[str, PropertyValue]
    property_at: NotRequired[dict[str, At]]
    options: NotRequired[list[OptionFacts]]
    tests: list[TestFacts]


AnyCard = Card | CardFacts
"""A card as the pack-wide passes and a check's summary see it: whole, or its facts."""
