"""What a ruleset is once built: a game's stats, kinds, checks and pattern tables."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from compiler.patterns import PatternTable, Slot, SlotType
from dsl.spans import Diagnostic
from runtime.checks import COUNTED, Bounds, CheckProcedure
from runtime.games import game_module
from runtime.stats import StatRule
from runtime.world import World


@dataclass(frozen=True, slots=True)
class Derived:
    """A stat read from a table by the value of another stat."""

    name: str
    source: str
    table: dict[int, int]

    @property
    def low(self) -> int:
        """The smallest value the table gives."""
        return min(self.table.values())

    @property
    def high(self) -> int:
        """The largest value the table gives."""
        return max(self.table.values())


@dataclass(frozen=True, slots=True)
class Kind:
    """A card kind: its deck, properties, blocks and variant rules."""

    name: str
    deck: str | None
    options: bool
    properties: dict[str, bool]  # property name -> required
    blocks: tuple[str, ...]
    variants_same: tuple[str, ...] | None
    variants_same_options: bool
    narrated: str | None = None  # the property the narrator reads first
    hidden: bool = False  # dealt face down: a seat sees its own, never another's
    shown_when: str | None = None  # the condition once which every seat sees them
    marks: tuple[str, ...] = ()  # properties and card tokens printed as boxes to mark


@dataclass(frozen=True, slots=True)
class CheckRule:
    """A `check` entry: its procedure in the game module, what it gives, and its params."""

    name: str
    procedure: str
    result: str  # "successes", "total", "face", "damage", or "named"
    names: tuple[str, ...]  # a named check's outcomes
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def counted(self) -> bool:
        """Whether its outcomes are counts and ranges rather than names."""
        return self.result in COUNTED


@dataclass(frozen=True, slots=True)
class Chart:
    """Cards of `kind` are picked by the value of `key` (a chart keyed by symbols)."""

    name: str
    kind: str
    key: str
    symbol_kind: str | None
    symbol_property: str | None


@dataclass(frozen=True, slots=True)
class Wording:
    """How rules text reads: the entries' `text:` templates and the `wording:` table."""

    texts: dict[str, dict[str, str]]  # section ("verbs", "checks"...) -> entry name -> template
    table: dict[str, Any]  # the merged `wording:` mapping, shaped by the schema


@dataclass
class Ruleset:
    """Everything the compiler knows about one game, ready to match phrases against."""

    name: str
    title: str
    file: str
    path: str  # the ruleset file, absolute, for worker processes to load it again
    digest: str
    stats: dict[str, StatRule]
    derived: dict[str, Derived]
    decks: dict[str, tuple[str, ...]]
    places: tuple[str, ...]
    world: World
    slot_types: dict[str, SlotType]
    verbs: PatternTable
    modifiers: PatternTable
    conditions: PatternTable
    properties: PatternTable
    values: PatternTable
    blocks: PatternTable
    checks: PatternTable
    value_types: dict[str, str]
    settable_values: frozenset[str]
    block_bodies: dict[str, str]
    procedures: dict[str, CheckRule]
    kinds: dict[str, Kind]
    charts: tuple[Chart, ...]
    wording: Wording
    runtime: str = "base"  # the game module's name
    data: dict[str, Any] = field(default_factory=dict)  # the merged tables, as plain data

    def slots(self) -> Iterator[Slot]:
        """The slots of every phrase table's patterns that an effect's IR holds, table by
        table."""
        tables = [self.verbs, self.modifiers, self.conditions, self.values, self.checks]
        for table in [*tables, self.blocks]:
            for pattern in table.patterns:
                yield from pattern.slots

    def check_procedure(self, check: str) -> CheckProcedure | None:
        """The game module's procedure that runs one of the ruleset's checks."""
        rule = self.procedures.get(check)
        if rule is None:
            return None
        return game_module(self.runtime).checks.get(rule.procedure)

    def check_bounds(self, check: str, args: dict[str, Any]) -> Bounds | None:
        """The results a check can give with these slots, if its procedure says."""
        procedure = self.check_procedure(check)
        if procedure is None or procedure.bounds is None:
            return None
        return procedure.bounds(self.procedures[check].params, args, self)

    def stat_range(self, name: str) -> tuple[int, int]:
        """The lowest and highest value a stat or derived stat can take."""
        if name in self.stats:
            return self.stats[name].low, self.stats[name].high
        derived = self.derived[name]
        return derived.low, derived.high

    @property
    def stat_names(self) -> list[str]:
        """Tracked and derived stats, in declaration order."""
        return [*self.stats, *self.derived]


class RulesetError(Exception):
    """A ruleset could not be loaded; carries every diagnostic found."""

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        super().__init__(diagnostics[0].message if diagnostics else "ruleset error")
        self.diagnostics = diagnostics
