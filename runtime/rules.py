"""The rules of one game as plain data: what the compiler hands the runtime from a ruleset.

The runtime never reads YAML nor imports the compiler; everything it needs to know about a
game arrives here, built by `compiler.build` from the checked ruleset.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from runtime.stats import DerivedRule, StatRule
from runtime.world import Board, World


@dataclass(frozen=True)
class ProcedureRule:
    """A `check` entry of the ruleset: the procedure that runs it, what it gives, its data."""

    name: str
    procedure: str  # the game module's procedure
    result: str  # "successes", "total", "face", "damage", or "named"
    names: tuple[str, ...] = ()  # a named check's outcomes
    params: Mapping[str, Any] = field(default_factory=dict, hash=False, compare=False)


@dataclass(frozen=True)
class BlockRule:
    """When a block of a card runs (a trigger) or applies (modifiers)."""

    name: str
    body: str  # "effects" or "modifiers"
    trigger: str | None = None  # the event that runs the block: "drawn", "use", ...
    once: bool = False  # only the first time, per card in play
    applies: str | None = None  # for modifiers: "carried", "owned", ...
    while_stat: tuple[str, int, int] | None = None  # modifiers apply while a stat is in range
    header: str = ""  # its pattern: how the block reads on the card, for the log
    sided: bool = False  # its pattern has a {side} slot: it holds on one side of the card only

    def written(self, args: Mapping[str, Any]) -> str:
        """The header as a card writes it: `flipped calm when your turn ends`."""

        def group(found: re.Match[str]) -> str:
            slots = _SLOT_RE.findall(found.group(1))
            return found.group(1) if all(slot in args for slot in slots) else ""

        text = _GROUP_RE.sub(group, self.header or self.name)
        text = _SLOT_RE.sub(lambda found: str(args.get(found.group(1), "")), text)
        return " ".join(text.split())


_GROUP_RE = re.compile(r"\[([^\[\]]*)\]")
_SLOT_RE = re.compile(r"\{([a-z][a-z0-9_]*)(?::[a-z_]+)?\}")


@dataclass(frozen=True)
class ChartRule:
    """Cards of `kind` picked by the sequence of symbols found (a chart keyed by symbols)."""

    name: str
    kind: str
    key: str
    symbol_kind: str | None
    symbol_property: str | None


@dataclass(frozen=True)
class GameRules:
    """Everything the runtime needs to know about a game, as data."""

    name: str
    game: str  # the runtime module of verbs and procedures ("base", or a game's)
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
    bands: dict[str, tuple[str, int, int]] = field(default_factory=dict)
    """band word -> (stat, low, high): a block whose {band} slot names it holds only then."""
    narrated: dict[str, str] = field(default_factory=dict)
    """kind -> the property the narrator reads before the options."""
    hidden: frozenset[str] = frozenset()
    """The kinds dealt face down: a seat sees the cards of them it holds, never another's."""
    shown_when: dict[str, str] = field(default_factory=dict)
    """hidden kind -> the condition once which a card of it is face up to every seat."""
    world: World = field(default_factory=lambda: World({}, Board(())))
    """Kinds of actor, the board, tracks and the round."""
