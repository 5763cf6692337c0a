"""A player's stats: bounds, overflow into another stat, death at a bound, derived tables.

The rules come in as plain data (the compiler builds them from the ruleset); the runtime knows
no game by name. Every change returns the sentences that explain it, for the event log.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class StatRule:
    """A tracked stat: its bounds, start, and what happens at or past them."""

    name: str
    low: int
    high: int
    start: int
    at_min: str = "nothing"  # "death": reaching the minimum kills the character
    above_max: str | None = None  # the stat that loses what would pass the maximum
    past_max: str = "nothing"  # "death": pushed past the maximum while at it kills
    better: str | None = None  # "more" or "less": whether more of it is good, where no rule says


def polarity(rules: Iterable[StatRule]) -> dict[str, int]:
    """+1 for each stat more of which is good, -1 where more is bad: a stat whose lowest value
    kills is good, one whose excess is taken from a good stat is bad, and `better:` or a death
    past its top says it for the rest. Other stats count as neither."""
    stats = list(rules)
    signs: dict[str, int] = {}
    for stat in stats:
        if stat.at_min == "death":
            signs[stat.name] = 1  # its lowest value kills: more of it is better
    for stat in stats:
        if stat.name not in signs and stat.above_max and signs.get(stat.above_max) == 1:
            signs[stat.name] = -1  # what passes its maximum is taken from a good stat
    for stat in stats:
        if stat.name in signs:
            continue
        if stat.better in ("more", "less"):
            signs[stat.name] = 1 if stat.better == "more" else -1
        elif stat.past_max == "death":
            signs[stat.name] = -1  # pushed past its top, it kills: more of it is worse
    return signs


def change_text(name: str, before: int, after: int, delta: int, cut: bool = True) -> str:
    """The log line of a bounded change: the change made, and what the bound cut off (when `cut`:
    not where another line says where the rest went), as `gold 1 → 0 (-1; 1 more cut off at 0)`.
    """
    made = after - before
    if made == delta or not cut:
        return f"{name} {before} → {after} ({made:+d})"
    if made == 0:
        return f"{name} {before} → {after} ({delta:+d} cut off at {after})"
    return f"{name} {before} → {after} ({made:+d}; {abs(delta - made)} more cut off at {after})"


@dataclass(frozen=True)
class DerivedRule:
    """A stat read from a table by another stat's value (the player mat)."""

    name: str
    source: str
    table: dict[int, int]


@dataclass
class Stats:
    """The current values of one player's stats."""

    rules: dict[str, StatRule]
    derived: dict[str, DerivedRule]
    values: dict[str, int] = field(default_factory=dict)
    pinned: dict[str, int] = field(default_factory=dict)  # derived values a test fixed
    dead: bool = False

    def __init__(
        self,
        rules: dict[str, StatRule],
        derived: dict[str, DerivedRule],
        values: dict[str, int] | None = None,
        pinned: dict[str, int] | None = None,
        dead: bool = False,
    ) -> None:
        # Written out for mypyc (runtime/native.py): every playout's fork makes each actor's.
        self.rules = rules
        self.derived = derived
        self.values = {} if values is None else values
        self.pinned = {} if pinned is None else pinned
        self.dead = dead

    @classmethod
    def start(cls, rules: Iterable[StatRule], derived: Iterable[DerivedRule] = ()) -> Stats:
        """Every stat at its starting value."""
        by_name = {r.name: r for r in rules}
        return cls(by_name, {d.name: d for d in derived}, {n: r.start for n, r in by_name.items()})

    def names(self) -> list[str]:
        """Tracked stats, then derived ones, in the order the ruleset gives them."""
        return [*self.rules, *self.derived]

    def get(self, name: str) -> int:
        """A stat's value; a derived stat is read from its table unless a test pinned it."""
        value = self.values.get(name)  # one look-up: asked hundreds of times a turn
        if value is not None:
            return value
        value = self.pinned.get(name)
        if value is not None:
            return value
        rule = self.derived[name]
        return rule.table[self.get(rule.source)]

    def set(self, name: str, value: int) -> None:
        """Set a stat as a test's `given` does: a derived stat is pinned for that test."""
        if name in self.rules:
            rule = self.rules[name]
            self.values[name] = max(rule.low, min(rule.high, value))
            if self.values[name] == rule.low and rule.at_min == "death":
                self.dead = True
        else:
            self.pinned[name] = value

    def change(self, name: str, delta: int, told: bool = True) -> list[str]:
        """Add `delta` (which may be negative) within the bounds; return what happened, in
        sentences (none when not `told`: a game no one hears need not format them)."""
        rule = self.rules[name]
        before = self.values[name]
        wanted = before + delta
        after = max(rule.low, min(rule.high, wanted))
        self.values[name] = after
        overflow = wanted - rule.high
        spilled = overflow > 0 and rule.above_max is not None  # the next line says where it went
        events = [change_text(name, before, after, delta, cut=not spilled)] if told else []
        if overflow > 0 and rule.above_max is not None:
            if told:
                events.append(f"{overflow} {name} past {rule.high} is lost as {rule.above_max}")
            events += self.change(rule.above_max, -overflow, told)
        if before == rule.high and overflow > 0 and rule.past_max == "death" and not self.dead:
            self.dead = True
            if told:
                events.append(f"{name} pushed past {rule.high}: the character dies")
        if after == rule.low and rule.at_min == "death" and not self.dead:
            self.dead = True
            if told:
                events.append(f"{name} {rule.low}: the character dies")
        return events
