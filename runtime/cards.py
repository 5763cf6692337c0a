"""Compiled cards: a card's data and the callables its effects were compiled to."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from runtime.card_blocks import Started
    from runtime.game import Game

Effect = Callable[["Game", "CardInstance"], None]
"""A compiled block of effects: it runs over the game, for one card in play."""

Check = Callable[["Game", "CardInstance"], bool]
"""A compiled condition, as a test's `expect` line has it."""

Observe = Callable[["Game", "CardInstance"], Any]
"""A compiled value, read to explain a failed expectation."""

Setter = Callable[["Game", "CardInstance", Any], None]
"""Sets a value, as a test's `given` line does."""


@dataclass(frozen=True)
class OptionDef:
    """One option of a card that offers a choice (its options)."""

    title: str
    run: Effect
    line: int


@dataclass(frozen=True)
class ModifierDef:
    """A continuous modifier (`speed +1`), active while its block applies."""

    name: str
    args: dict[str, Any]


@dataclass(frozen=True)
class BlockDef:
    """A block of a card: effects that a trigger runs, or modifiers that apply."""

    name: str
    line: int
    run: Effect | None = None
    modifiers: tuple[ModifierDef, ...] = ()
    args: dict[str, Any] = field(default_factory=dict)  # the header's slots: band, side


@dataclass(frozen=True)
class TestStep:
    """One line of a card test."""

    action: str  # "set", "choose", "use", "carry", "play", "turn", "dice", "expect"
    line: int
    column: int
    text: str = ""  # what the line says, for messages
    answer: str = ""  # choose: an option title, yes or no; use: a card title
    faces: tuple[int, ...] = ()  # dice
    value: Any = None  # set: the value given
    setter: Setter | None = None
    check: Check | None = None
    observe: tuple[tuple[str, Observe], ...] = ()


@dataclass(frozen=True)
class TestDef:
    """A `test` block: a name and its steps."""

    name: str
    line: int
    steps: tuple[TestStep, ...]


@dataclass(frozen=True)
class CardDef:
    """A checked, compiled card."""

    kind: str
    title: str
    variant: int | None
    file: str
    line: int
    properties: dict[str, Any]
    options: tuple[OptionDef, ...] = ()
    blocks: tuple[BlockDef, ...] = ()
    tests: tuple[TestDef, ...] = ()

    @property
    def label(self) -> str:
        """How messages name the card: `item "Scalpel"`, `event "X" variant 2`."""
        variant = f" variant {self.variant}" if self.variant is not None else ""
        return f'{self.kind} "{self.title}"{variant}'

    @property
    def copies(self) -> int:
        """How many of this card its deck holds."""
        copies = self.properties.get("copies", 1)
        return copies if isinstance(copies, int) and copies > 0 else 1

    def block(self, name: str) -> BlockDef | None:
        """The block of that name, if the card has one."""
        for block in self.blocks:
            if block.name == name:
                return block
        return None


@dataclass(eq=False)
class CardInstance:
    """One copy of a card in play, with the tokens on it and what it has used up."""

    definition: CardDef
    uid: int
    tokens: dict[str, int] = field(default_factory=dict)
    spent: set[str] = field(default_factory=set)  # blocks that run only the first time
    flipped: bool = False  # a two-sided card (a strip with two faces) turned to its other side
    # The card's modifier plans carried and owned (`runtime.game`), looked up once a copy:
    # a stat is asked for hundreds of times a turn, and each asks every card held.
    carried_plan: tuple[Any, ...] | None = field(default=None, init=False, repr=False)
    owned_plan: tuple[Any, ...] | None = field(default=None, init=False, repr=False)
    # The blocks each trigger starts (`runtime.card_blocks`), looked up once a copy too.
    started: dict[str, tuple[Started, ...]] | None = field(default=None, init=False, repr=False)
    # A card of a copy kept for playouts to borrow its piles from (`runtime.fork`): whoever
    # takes it out of a pile takes a copy of it (`Game.from_deck`), never the card itself.
    lent: bool = field(default=False, init=False, repr=False)

    def __init__(
        self,
        definition: CardDef,
        uid: int,
        tokens: dict[str, int] | None = None,
        spent: set[str] | None = None,
        flipped: bool = False,
    ) -> None:
        # Written out for mypyc (runtime/native.py): made hundreds of times a game.
        self.definition = definition
        self.uid = uid
        self.tokens = {} if tokens is None else tokens
        self.spent = set() if spent is None else spent
        self.flipped = flipped
        self.carried_plan = None
        self.owned_plan = None
        self.started = None
        self.lent = False

    @property
    def title(self) -> str:
        """The card's title."""
        return self.definition.title

    @property
    def kind(self) -> str:
        """The card's kind."""
        return self.definition.kind

    def copy(self) -> CardInstance:
        """Another copy of the same card as it stands: its tokens, what it has used up, its side
        (and what was read off its definition, which is the same for both)."""
        copy = CardInstance(self.definition, self.uid, dict(self.tokens), set(self.spent))
        copy.flipped = self.flipped
        copy.carried_plan = self.carried_plan
        copy.owned_plan = self.owned_plan
        copy.started = self.started
        return copy

    def __repr__(self) -> str:
        return f"<{self.definition.label} #{self.uid}>"
