"""`cautious` and `bold`: policies that read what the player can see, never the odds.

What a seat sees of a decision is its words: an option's title, a `may`'s rules text, the
labels of items or defences. Two readings of those words, neither a game's own:

- the stakes: each stat the words name, raised or lowered (the nearest word or signed number
  before it says which), counted good or bad by the ruleset's death rules and `better:`
  (`runtime.stats.polarity`): "reduce your health by 1" lowers a good stat, stakes -1;
- the daring: plain English verbs of going at something (open, grab, attack, follow...) less
  those of holding back (leave, wait, hide, dodge, prevent...), counted double.

A `may` is read as its yes (which also counts as daring: it takes on the unknown) against a no
that does nothing. `cautious` keeps the stakes up and the daring down; `bold` goes for daring
and gains and shrugs off losses, until one of its stats is a step from a death rule, when it
decides as `cautious` does.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from runtime.decisions import Decision
from runtime.game import Game
from runtime.policies.base import Seat, best
from runtime.stats import StatRule, polarity

RAISING = frozenset(
    {"gain", "gains", "increase", "increases", "raise", "raises", "add", "adds", "more", "up"}
    | {"restore", "restores", "heal", "heals", "recover", "recovers", "regain", "regains"}
)
"""Words before a stat that say it goes up."""

LOWERING = frozenset(
    {"lose", "loses", "reduce", "reduces", "lower", "lowers", "less", "down", "spend", "spends"}
)
"""Words before a stat that say it goes down."""

DARING = frozenset(
    {"attack", "fight", "strike", "hit", "kick", "smash", "break", "rip", "tear", "shake"}
    | {"grab", "snatch", "steal", "take", "force", "open", "lift", "pull", "unplug", "enter"}
    | {"step", "climb", "follow", "chase", "confront", "answer", "touch", "go", "run", "jump"}
    | {"swallow", "drink", "eat", "taste", "sit", "lie", "knock", "search", "restart", "into"}
)
"""Verbs of going at something: what a bold player does and a cautious one avoids."""

RETREATING = frozenset(
    {"leave", "away", "back", "hide", "wait", "stay", "stop", "still", "shut", "close"}
    | {"ignore", "dodge", "flee", "escape", "retreat", "rest", "quietly", "nothing", "no"}
    | {"past", "off", "silence", "help", "prevent", "protect", "avoid", "refuse", "decline"}
)
"""Words of holding back: what a cautious player does and a bold one avoids."""

LOOK_BACK = 3
"""How many words before a stat's name may say which way it goes."""

_WORD = re.compile(r"[+\-−]\d+|\d+|[a-z_]+")


@dataclass(frozen=True)
class Reading:
    """What the words of one answer say: its stakes (good stats up, bad down) and its daring."""

    stakes: int = 0
    daring: int = 0


def words(text: str, stats: Iterable[str]) -> list[str]:
    """The words of a text, lower case, a stat named in several words (`hit points`) as one."""
    lowered = text.casefold()
    for name in stats:
        lowered = lowered.replace(name.replace("_", " "), name)
    return _WORD.findall(lowered)


def direction(before: list[str]) -> int:
    """Which way the words just before a stat's name move it: +1, -1, or 0 when they say not."""
    for word in reversed(before[-LOOK_BACK:]):
        if word in RAISING or word.startswith("+"):
            return 1
        if word in LOWERING or word[:1] in "-−":
            return -1
    return 0


@lru_cache(maxsize=4096)
def read(text: str, rules: tuple[StatRule, ...]) -> Reading:
    """The stakes and the daring of one answer's words (remembered: a game asks the same
    questions again and again)."""
    signs = polarity(rules)
    found = words(text, signs)
    stakes = sum(
        signs[word] * direction(found[:index]) for index, word in enumerate(found) if word in signs
    )
    daring = sum(1 for word in found if word in DARING)
    daring -= 2 * sum(1 for word in found if word in RETREATING)
    return Reading(stakes, daring)


def readings(seat: Seat, decision: Decision) -> list[Reading]:
    """A reading of each answer: a `may`'s yes is its rules text, and daring; its no nothing."""
    rules = tuple(seat.player.stats.rules.values())
    if decision.kind == "yes-no" and len(decision.choices) == 2:
        said = read(decision.prompt, rules)
        return [Reading(said.stakes, said.daring + 1), Reading()]
    return list(read_all(decision.choices, rules))


@lru_cache(maxsize=4096)
def read_all(texts: tuple[str, ...], rules: tuple[StatRule, ...]) -> tuple[Reading, ...]:
    """The readings of a decision's answers, remembered together: one look-up a decision
    rather than one an answer (each hashes the stat rules again)."""
    return tuple(read(text, rules) for text in texts)


READ_KINDS = frozenset({"option", "yes-no", "item", "defence"})
"""The decisions whose answers' words are a card's or a fight's (`runtime.decisions.Decision`'s
kinds): what the readings read. Any other kind is a game's own procedure (where to step next,
which free action first), whose words (`stop`, `move`) say nothing of stakes or daring."""


def procedural(decision: Decision) -> bool:
    """Whether a decision is one of a game's own procedure with an answer its rules give: the
    heuristics take that answer, as the game's own players do (reading `stop` as holding back,
    a cautious seat would never walk anywhere)."""
    return decision.kind not in READ_KINDS and decision.default is not None


def in_danger(seat: Seat) -> bool:
    """Whether one of the seat's stats is a step from a death rule (its lowest value kills,
    or pushing past its top)."""
    stats = seat.player.stats
    for rule in stats.rules.values():
        value = stats.get(rule.name)
        if rule.at_min == "death" and value - rule.low <= 1:
            return True
        if rule.past_max == "death" and value >= rule.high:
            return True
    return False


def cautious_score(reading: Reading) -> int:
    """Stakes first, losses weighed double against daring."""
    return 2 * reading.stakes - reading.daring


def bold_score(reading: Reading) -> int:
    """Daring and gains; losses do not count."""
    return reading.daring + max(reading.stakes, 0)


class CautiousPolicy:
    """Keeps its stats safe and holds back, reading titles and rules text only."""

    def decide(self, game: Game, seat: Seat, decision: Decision) -> int:
        """The answer whose words risk the least."""
        if procedural(decision):
            assert decision.default is not None
            return decision.default
        return best(seat, [cautious_score(r) for r in readings(seat, decision)], decision)


class BoldPolicy:
    """Goes at things for gains, reading titles and rules text only; cautious near death."""

    def decide(self, game: Game, seat: Seat, decision: Decision) -> int:
        """The answer whose words dare the most, unless a death rule is a step away."""
        if procedural(decision):
            assert decision.default is not None
            return decision.default
        score = cautious_score if in_danger(seat) else bold_score
        return best(seat, [score(r) for r in readings(seat, decision)], decision)
