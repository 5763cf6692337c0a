"""Decision makers: who answers when a card asks the player to choose.

Scripted answers drive card tests, a seeded random maker drives simulations, and an interactive
one asks a person at the terminal. Each decision says what is asked and which answers exist;
the maker returns the index of the answer.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Protocol

from runtime.cards import CardDef

YES_NO = ("yes", "no")


@dataclass(frozen=True)
class Decision:
    """A question to the player: its kind, a prompt and the answers to pick from."""

    kind: str  # "option" (titles), "yes-no" (a may), "item" (which item), "defence"
    prompt: str
    choices: tuple[str, ...]
    default: int | None = None  # the rule's answer when a card test gives none
    seat: int | None = None  # the seat asked, when not the one whose turn it is (a defender)
    card: CardDef | None = None  # the card whose options are offered, when it is one


class DecisionError(Exception):
    """A decision could not be made: no answer is left, or the answer does not fit."""

    def __init__(self, decision: Decision, answer: str | None = None) -> None:
        super().__init__(decision, answer)
        self.decision = decision
        self.answer = answer  # None: there was no answer at all

    def __str__(self) -> str:
        asked = f"{self.decision.prompt} ({' / '.join(self.decision.choices)})"
        if self.answer is None:
            return f"no answer left for: {asked}"
        return f"answer {self.answer!r} does not fit: {asked}"


class DecisionMaker(Protocol):
    """Answers decisions."""

    def decide(self, decision: Decision) -> int:
        """The index of the chosen answer in `decision.choices`."""
        ...


class ScriptedDecisions:
    """Answers given in advance, in order, as a card test's `choose` lines do."""

    def __init__(self, answers: Iterable[str]) -> None:
        self._answers = list(answers)
        self._next = 0

    def decide(self, decision: Decision) -> int:
        """Take the next answer; it must be one of the choices offered. With none left, the
        decision's default, if it has one."""
        if self._next >= len(self._answers):
            if decision.default is not None:
                return decision.default
            raise DecisionError(decision)
        answer = self._answers[self._next]
        folded = [c.casefold() for c in decision.choices]
        if answer.casefold() not in folded:
            raise DecisionError(decision, answer)
        self._next += 1
        return folded.index(answer.casefold())

    def add(self, answer: str) -> None:
        """Script one more answer, after those already given."""
        self._answers.append(answer)

    @property
    def unused(self) -> list[str]:
        """Answers nobody asked for; a test that leaves some fails."""
        return self._answers[self._next :]


class RandomDecisions:
    """Answers picked by a seeded generator: the same seed, the same answers."""

    def __init__(self, seed: int | str) -> None:
        self._random = random.Random(seed)

    def decide(self, decision: Decision) -> int:
        """Any answer, uniformly."""
        return self._random.randrange(len(decision.choices))


class FirstChoice:
    """Always the first answer: a fixed policy for benchmarks and odds."""

    def decide(self, decision: Decision) -> int:
        """The first answer."""
        return 0


class Defaults:
    """The rule's answer where a decision has one, else the first: a whole game with no answers
    given still runs, the same way each time."""

    def decide(self, decision: Decision) -> int:
        """The decision's default, or its first answer."""
        return decision.default if decision.default is not None else 0


class InteractiveDecisions:
    """Asks a person; `ask` shows the question and returns the index picked."""

    def __init__(self, ask: Callable[[Decision], int]) -> None:
        self._ask = ask

    def decide(self, decision: Decision) -> int:
        """Whatever the person picks."""
        return self._ask(decision)


class PresetThenAsk:
    """Scripted answers first (`--choose`), then another maker for the rest."""

    def __init__(self, answers: Iterable[str], then: DecisionMaker) -> None:
        self.script = ScriptedDecisions(answers)
        self._then = then

    def decide(self, decision: Decision) -> int:
        """A preset answer while any are left, then ask."""
        if self.script.unused:
            return self.script.decide(decision)
        return self._then.decide(decision)
