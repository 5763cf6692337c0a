"""Decision makers: who answers when a card asks the player to choose.

Scripted answers drive card tests, a seeded random maker drives simulations, and an interactive
one asks a person at the terminal. Each decision says what is asked and which answers exist;
the maker returns the index of the answer.
"""

from __future__ import annotations

import difflib
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from runtime.cards import CardDef
from runtime.dice import draws_below
from runtime.native import mypyc_attr

YES_NO = ("yes", "no")


@dataclass
class Decision:
    """A question to the player: its kind, a prompt and the answers to pick from (a plain
    dataclass, not a frozen one nor a named tuple: a game asks hundreds a turn, and it is made
    fastest, interpreted or compiled, where mypyc makes it a native class)."""

    kind: str  # "option" (titles), "yes-no" (a may), "item" (which item), "defence"
    prompt: str
    choices: tuple[str, ...]
    default: int | None = None  # the rule's answer when a card test gives none
    seat: int | None = None  # the seat asked, when not the one whose turn it is (a defender)
    card: CardDef | None = None  # the card whose options are offered, when it is one

    def __init__(
        self,
        kind: str,
        prompt: str,
        choices: tuple[str, ...],
        default: int | None = None,
        seat: int | None = None,
        card: CardDef | None = None,
    ) -> None:
        # Written out for mypyc (runtime/native.py): made hundreds of times a game.
        self.kind = kind
        self.prompt = prompt
        self.choices = choices
        self.default = default
        self.seat = seat
        self.card = card


@mypyc_attr(allow_interpreted_subclasses=True)  # `pillbox play` raises its own
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


def reads_defaults(maker: object) -> bool:
    """Whether a decision maker ever answers with a decision's default: if not, the rule's
    answer need not be worked out (where a move heads, most of a random turn's cost). A maker
    says so with a `reads_defaults = False` attribute; any other may read them."""
    return bool(getattr(maker, "reads_defaults", True))


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

    reads_defaults = False  # uniform: a decision's default is never looked at

    def __init__(self, seed: int | str) -> None:
        self._random = random.Random(seed)
        self._below = draws_below(self._random)

    def decide(self, decision: Decision) -> int:
        """Any answer, uniformly."""
        return self._below(len(decision.choices))


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


def answer_index(choices: Sequence[str], reply: str) -> int | str:
    """The index of the answer a reply picks: its number, its words, or the start of its
    words when only one answer starts so; otherwise what to say to the person."""
    if reply.isdigit() and 1 <= int(reply) <= len(choices):
        return int(reply) - 1
    folded = [choice.casefold() for choice in choices]
    wanted = reply.casefold()
    if wanted in folded:
        return folded.index(wanted)
    starting = sorted({choice for choice in folded if wanted and choice.startswith(wanted)})
    if len(starting) == 1:
        return folded.index(starting[0])
    if len(starting) > 1:
        return f"{reply!r} could be any of {len(starting)} answers: type more, or a number"
    close = difflib.get_close_matches(wanted, folded, n=1, cutoff=0.6)
    if close:
        return f"did you mean {choices[folded.index(close[0])]!r}?"
    return f"answer with a number from 1 to {len(choices)}, or the words of an answer"


class RefusedAnswer(DecisionError):
    """A `--choose` answer that fits none of the answers offered, and why."""

    def __init__(self, decision: Decision, answer: str, why: str) -> None:
        super().__init__(decision, answer)
        self.why = why

    def __str__(self) -> str:
        return f"{super().__str__()}; {self.why}"


class _AnyForm(ScriptedDecisions):
    """Answers given in advance as a person types them: a number, the words, their start."""

    def decide(self, decision: Decision) -> int:
        """The next answer, in any form the prompt takes; a refusal that says what fits."""
        if self._next >= len(self._answers):
            return super().decide(decision)
        answer = self._answers[self._next]
        picked = answer_index(decision.choices, answer)
        if isinstance(picked, str):
            raise RefusedAnswer(decision, answer, picked)
        self._next += 1
        return picked


class PresetThenAsk:
    """Scripted answers first (`--choose`, in any form the prompt takes), then another maker
    for the rest."""

    def __init__(self, answers: Iterable[str], then: DecisionMaker) -> None:
        self.script: ScriptedDecisions = _AnyForm(answers)
        self._then = then

    def decide(self, decision: Decision) -> int:
        """A preset answer while any are left, then ask."""
        if self.script.unused:
            return self.script.decide(decision)
        return self._then.decide(decision)
