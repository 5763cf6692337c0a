"""Card tests: run a card's `test` blocks over a fresh game with forced dice and answers.

A test's `given` lines set values at once; `choose` and `dice` lines queue answers and faces;
`use` lines queue an action. The actions (or, with no `use` line, playing the card itself) run
at the first `expect` after them, so dice may be written after the action that rolls them.
Dice or answers left over, or missing, fail the test.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from dataclasses import dataclass, field

from runtime.cards import CardDef, CardInstance, TestDef, TestStep
from runtime.decisions import DecisionError, ScriptedDecisions
from runtime.dice import DiceError, ForcedDice
from runtime.game import Game, RunawayError

TEST_SEED = 0
"""Decks are shuffled with this seed in every test, so draws are the same run after run."""

NewGame = Callable[..., Game]


class TestFailure(Exception):
    """A test step did not hold; the message says what was expected and what happened."""

    def __init__(self, message: str, line: int, column: int = 1) -> None:
        super().__init__(message)
        self.line = line
        self.column = column


@dataclass
class TestResult:
    """The result of one test of one card."""

    card: CardDef
    test: TestDef
    failure: str | None = None
    line: int = 0
    column: int = 1
    log: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        """Whether every step held."""
        return self.failure is None

    @property
    def name(self) -> str:
        """`event "Title" › test name`."""
        return f"{self.card.label} › {self.test.name}"


def run_test(new_game: NewGame, card: CardDef, test: TestDef) -> TestResult:
    """Run one test of a card in a fresh game."""
    dice = ForcedDice([])
    answers = ScriptedDecisions([])
    game = new_game(seed=TEST_SEED, dice=dice, decisions=answers)
    result = TestResult(card, test, line=test.line)
    try:
        _run_steps(game, card, test, dice, answers)
        if dice.unused:
            raise TestFailure(
                f"{_count(len(dice.unused), 'forced die was', 'forced dice were')} never "
                f"rolled: {' '.join(map(str, dice.unused))}",
                test.line,
            )
        if answers.unused:
            raise TestFailure(
                f"{_count(len(answers.unused), 'answer was', 'answers were')} never asked for: "
                + ", ".join(repr(a) for a in answers.unused),
                test.line,
            )
    except TestFailure as failure:
        result.failure, result.line, result.column = str(failure), failure.line, failure.column
    except (DiceError, DecisionError, RunawayError) as error:
        result.failure = str(error)
        result.line, result.column = card_line(error, card.file) or (test.line, 1)
    except Exception as error:  # one broken card must not stop the other tests
        result.failure = runtime_failure(error)
        result.line, result.column = card_line(error, card.file) or (test.line, 1)
    result.log = game.log.lines()
    return result


def _run_steps(
    game: Game, card: CardDef, test: TestDef, dice: ForcedDice, answers: ScriptedDecisions
) -> None:
    this = game.new_instance(card)
    uses_cards = any(step.action in ("use", "play") for step in test.steps)
    pending: list[TestStep] = []
    acted = False

    def act() -> None:
        nonlocal acted
        if not uses_cards and not acted:
            game.play_instance(this)
        for step in pending:
            if step.action == "play":
                _play(game, this, step)
            else:
                _use(game, this, step)
        pending.clear()
        acted = True

    for step in test.steps:
        if step.action == "set":
            assert step.setter is not None
            step.setter(game, this, step.value)
        elif step.action == "choose":
            answers.add(step.answer)
        elif step.action == "dice":
            dice.add(step.faces)
        elif step.action in ("use", "play"):
            pending.append(step)
        elif step.action == "carry":
            _carry(game, this, step)
        elif step.action == "turn":
            if pending or not acted:
                act()
            _next_turn(game)
        elif step.action == "expect":
            if pending or not acted:
                act()
            _expect(game, this, step)
    if pending or not acted:
        act()


def _use(game: Game, this: CardInstance, step: TestStep) -> None:
    """`use "Card"`: the player gets that card (or uses the one carried), then uses it."""
    carried = [c for c in game.player.items if c.title == step.answer]
    card = carried[0] if carried else _carry(game, this, step)
    if not game.usable(card):
        raise TestFailure(f"{card.definition.label} has nothing to use", step.line, step.column)
    game.use(card)


def _carry(game: Game, this: CardInstance, step: TestStep) -> CardInstance:
    """`carry "Card"`: the player has that card from now on, as if it had been drawn before
    (carried, or owned for the kinds a player owns rather than carries)."""
    if step.answer == this.title:
        card = this
    else:
        definition = game.find(step.answer)
        if definition is None:
            raise TestFailure(f"no card of the pack is titled {step.answer!r}", step.line)
        card = game.new_instance(definition)
    owned = game.module.owned.get(card.kind, False)
    pile = game.player.owned if owned else game.player.items
    if card not in pile:
        pile.append(card)
        game.event("given", f"{'owning' if owned else 'carrying'} {card.definition.label}")
    return card


def _next_turn(game: Game) -> None:
    """`next turn`: the turn ends (its end-of-turn effects run) and the player's next begins."""
    game.end_turn()
    game.player.turn_over = False
    game.event("turn", f"{game.player.name}'s next turn begins")


def _play(game: Game, this: CardInstance, step: TestStep) -> None:
    """`play "Card"`: another card of the pack comes into play, as `pillbox play` plays it."""
    if step.answer == this.title:
        game.play_instance(this)
        return
    definition = game.find(step.answer)
    if definition is None:
        raise TestFailure(f"no card of the pack is titled {step.answer!r}", step.line)
    game.play(definition)


def _expect(game: Game, this: CardInstance, step: TestStep) -> None:
    assert step.check is not None
    if step.check(game, this):
        return
    seen = ", ".join(f"{label} is {_shown(observe(game, this))}" for label, observe in step.observe)
    raise TestFailure(
        f"expected {step.text.removeprefix('expect').strip()}"
        + (f", but {seen}" if seen else ", but it is not so"),
        step.line,
        step.column,
    )


def _shown(value: object) -> str:
    return "nowhere" if value is None else str(value)


def _count(number: int, one: str, many: str) -> str:
    return f"{number} {one if number == 1 else many}"


def card_line(error: BaseException, file: str) -> tuple[int, int] | None:
    """Where in the card file an error happened (line, column), from the compiled frames."""
    found = None
    for frame in traceback.extract_tb(error.__traceback__):
        if frame.filename == file and frame.lineno is not None:
            found = (frame.lineno, (frame.colno or 0) + 1)
    return found


def runtime_failure(error: BaseException) -> str:
    """What to say when the runtime itself failed on a card line."""
    return (
        f"the runtime failed here: {type(error).__name__}: {error} (a bug in pillbox, or a "
        "ruleset whose vocabulary its runtime module cannot run)"
    )
