"""The abstract syntax tree of a card file: frozen, slotted dataclasses, each with its span."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from dsl.spans import Span

# ---------------------------------------------------------------- atoms of a phrase


@dataclass(frozen=True, slots=True)
class Word:
    """A bare word: a verb, a stat, a place, an outcome name..."""

    text: str
    span: Span


@dataclass(frozen=True, slots=True)
class Integer:
    """A non-negative whole number as written (it may be too large for any table)."""

    value: int
    span: Span


@dataclass(frozen=True, slots=True)
class Signed:
    """A signed modifier such as `+1` or `-2`."""

    value: int
    span: Span


@dataclass(frozen=True, slots=True)
class Range:
    """A closed range `1..3`."""

    low: int
    high: int
    span: Span


@dataclass(frozen=True, slots=True)
class OpenRange:
    """An open range `3+`: that number or more."""

    low: int
    span: Span


@dataclass(frozen=True, slots=True)
class Dice:
    """Dice such as `d6` or `2d6`."""

    count: int
    sides: int
    span: Span


@dataclass(frozen=True, slots=True)
class Text:
    """A quoted string, with its escapes resolved."""

    value: str
    span: Span


Atom = Word | Integer | Signed | Range | OpenRange | Dice | Text


@dataclass(frozen=True, slots=True)
class Phrase:
    """A run of atoms that the compiler matches against the ruleset's patterns."""

    atoms: tuple[Atom, ...]
    span: Span

    @property
    def words(self) -> str:
        """The phrase as written, atoms joined by single spaces."""
        return " ".join(atom_source(a) for a in self.atoms)


def atom_source(atom: Atom) -> str:
    """Return an atom as it would be written in a card file."""
    if isinstance(atom, Word):
        return atom.text
    if isinstance(atom, Integer):
        return str(atom.value)
    if isinstance(atom, Signed):
        return f"{atom.value:+d}"
    if isinstance(atom, Range):
        return f"{atom.low}..{atom.high}"
    if isinstance(atom, OpenRange):
        return f"{atom.low}+"
    if isinstance(atom, Dice):
        return f"{atom.count if atom.count != 1 else ''}d{atom.sides}"
    return '"' + atom.value.replace("\\", "\\\\").replace('"', '\\"') + '"'


# ---------------------------------------------------------------- conditions


@dataclass(frozen=True, slots=True)
class Comparison:
    """`left op right`, or a lone phrase (`door open`) when `op` is None."""

    left: Phrase
    op: str | None
    right: Phrase | None
    negated: bool
    span: Span


@dataclass(frozen=True, slots=True)
class Condition:
    """Alternatives joined by `or`, each a conjunction of comparisons joined by `and`."""

    any_of: tuple[tuple[Comparison, ...], ...]
    span: Span


# ---------------------------------------------------------------- statements


@dataclass(frozen=True, slots=True)
class Block:
    """`{ ... }`: statements in order. `too_deep` marks a body cut off by the nesting limit."""

    body: tuple[Statement, ...]
    span: Span
    too_deep: bool = False


@dataclass(frozen=True, slots=True)
class PhraseLine:
    """A property, an effect or a modifier; the ruleset decides which."""

    phrase: Phrase
    span: Span


@dataclass(frozen=True, slots=True)
class HeaderBlock:
    """A block under a header phrase: `when revealed { }`, `use { }`, `while carried { }`."""

    header: Phrase
    block: Block
    span: Span


@dataclass(frozen=True, slots=True)
class Option:
    """`option "Title" { }`: one choice of a card that offers options, or of a `choose`."""

    title: Text
    block: Block
    span: Span


@dataclass(frozen=True, slots=True)
class Choose:
    """`choose { option ... }`: the player picks one option."""

    block: Block
    span: Span


@dataclass(frozen=True, slots=True)
class May:
    """`may { }` or `may <phrase>`: the player may do it, or not."""

    block: Block | None
    phrase: Phrase | None
    span: Span


@dataclass(frozen=True, slots=True)
class Branch:
    """One `if` or `else if` arm."""

    condition: Condition
    block: Block
    span: Span


@dataclass(frozen=True, slots=True)
class If:
    """`if ... { } else if ... { } else { }`."""

    branches: tuple[Branch, ...]
    otherwise: Block | None
    span: Span


@dataclass(frozen=True, slots=True)
class Outcome:
    """One labelled arm of a check or roll: `0..1 { }`, `3+ { }`, `pass { }`."""

    label: Integer | Range | OpenRange | Word
    block: Block
    span: Span


@dataclass(frozen=True, slots=True)
class Check:
    """`check <procedure phrase> { outcomes }`."""

    phrase: Phrase
    outcomes: tuple[Outcome, ...]
    span: Span
    keyword_span: Span


@dataclass(frozen=True, slots=True)
class Roll:
    """`roll <dice> { outcomes }`."""

    dice: Dice
    outcomes: tuple[Outcome, ...]
    span: Span
    keyword_span: Span


@dataclass(frozen=True, slots=True)
class Repeat:
    """`repeat N { }`."""

    times: Integer
    block: Block
    span: Span


@dataclass(frozen=True, slots=True)
class Say:
    """`say "..."`: narration, shown and logged."""

    text: Text
    span: Span


@dataclass(frozen=True, slots=True)
class Rule:
    """`rule "..."`: printed, not simulated."""

    text: Text
    span: Span


# ---------------------------------------------------------------- card tests


@dataclass(frozen=True, slots=True)
class Given:
    """`given speed 4, health 2`."""

    settings: tuple[Phrase, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class Answer:
    """`choose "Title"` or `choose yes|no` inside a test."""

    answer: Text | Word
    span: Span


@dataclass(frozen=True, slots=True)
class Use:
    """`use "Card"` inside a test (`carry "Card"`: the player has it, unused; `play "Card"`:
    another card is played)."""

    card: Text
    span: Span
    action: Literal["use", "carry", "play"] = "use"


@dataclass(frozen=True, slots=True)
class ForceDice:
    """`dice 1 4 5 6`: the next dice, in order."""

    faces: tuple[Integer, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class Expect:
    """`expect <condition>`."""

    condition: Condition
    span: Span


@dataclass(frozen=True, slots=True)
class NextTurn:
    """`next turn` inside a test: the turn ends, if it has not, and a new one begins."""

    span: Span


TestStep = Given | Answer | Use | NextTurn | ForceDice | Expect


@dataclass(frozen=True, slots=True)
class Test:
    """`test "name" { steps }`: a content unit test next to its card."""

    name: Text
    steps: tuple[TestStep, ...]
    span: Span


Statement = (
    PhraseLine
    | HeaderBlock
    | Option
    | Choose
    | May
    | If
    | Check
    | Roll
    | Repeat
    | Say
    | Rule
    | Test
)


# ---------------------------------------------------------------- cards and files


@dataclass(frozen=True, slots=True)
class Card:
    """`KIND "Title" [variant N] { ... }`."""

    kind: Word
    title: Text
    variant: Integer | None
    block: Block
    span: Span

    @property
    def header_span(self) -> Span:
        """The span of `KIND "Title"`, where card-level diagnostics point."""
        return self.kind.span.to(self.title.span)


@dataclass(frozen=True, slots=True)
class File:
    """A parsed card file: the cards that parsed, in order."""

    path: str
    cards: tuple[Card, ...]
