"""The rules of one game as plain data: what the compiler hands the runtime from a ruleset.

The runtime never reads YAML nor imports the compiler; everything it needs to know about a
game arrives here, built by `compiler.build` from the checked ruleset.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from runtime.dice import PoolFaces
from runtime.stats import DerivedRule, StatRule


@dataclass(frozen=True)
class ProcedureRule:
    """A `check` entry of the ruleset: which procedure runs it and the data it needs."""

    name: str
    procedure: str
    dice: tuple[str, ...] = ()  # the slots whose values add up to the pool
    faces: PoolFaces | None = None


@dataclass(frozen=True)
class BlockRule:
    """When a block of a card runs (a trigger) or applies (modifiers)."""

    name: str
    body: str  # "effects" or "modifiers"
    trigger: str | None = None  # the event that runs the block: "drawn", "use", ...
    once: bool = False  # only the first time, per card in play
    applies: str | None = None  # for modifiers: "carried", "owned", ...
    while_stat: tuple[str, int, int] | None = None  # modifiers apply while a stat is in range
    header: str = ""  # how the block reads on the card, for the log


@dataclass(frozen=True)
class ChartRule:
    """Cards of `kind` picked by the sequence of symbols found (the phenomenon chart)."""

    name: str
    kind: str
    key: str
    symbol_kind: str | None
    symbol_property: str | None


@dataclass(frozen=True)
class GameRules:
    """Everything the runtime needs to know about a game, as data."""

    name: str
    game: str  # the runtime module of verbs and procedures ("base", "coma-ward")
    stats: tuple[StatRule, ...]
    derived: tuple[DerivedRule, ...]
    decks: dict[str, tuple[str, ...]]  # deck -> the kinds of card it holds
    places: tuple[str, ...]
    start_place: str | None
    procedures: dict[str, ProcedureRule]
    blocks: dict[str, BlockRule]
    charts: tuple[ChartRule, ...] = ()
    kind_decks: dict[str, str] = field(default_factory=dict)  # kind -> its deck
    deck_tops: dict[str, tuple[tuple[str, ...], int]] = field(default_factory=dict)
    """deck -> (kinds, N): at setup those kinds are shuffled into the deck's top N cards."""
