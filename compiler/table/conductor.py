"""The game at `pillbox table`: one whole game played in a thread of its own, its human seats
answered from the page, its other seats by their policies at a pace a person can follow.

The game is the same whole game `play --game` plays (`compiler.play.game`), seat by seat, every
move written down by the same recorder, so its record is one `pillbox replay` plays back. A
human seat's question is published and the game's thread waits until the page answers it. The
game is deterministic given its seed and its answers, so an undo calls the game off and plays
it again from its seed, answering from the moves before the human answer taken back, until that
question is asked again. What the page shows is made in the game's thread whenever a question
is asked and when the game ends (`compiler.table.view`), and published whole: the server's
threads only ever read a published view. At a shared table (`--share`) a view is made for each
human seat, in which that seat alone sees its hidden cards, and a seat answers and takes back
only its own questions.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from compiler.build import CompiledPack
from compiler.play.game import HUMAN, Played, Table, record_of
from compiler.play.records import Move, Record, Recorder
from compiler.table.view import TableFacts, game_view, outcome_view
from runtime.decisions import Decision, DecisionError
from runtime.dice import DiceError
from runtime.game import Game, RunawayError
from runtime.policies import Policy, Seat, policy_named, seat_policies
from runtime.testing import runtime_failure


class CalledOff(BaseException):
    """The game in the thread is called off (an undo, a new game, the table closing): a
    BaseException, so no `except Exception` of a card's or the engine's code holds it up."""


class NotAsked(Exception):
    """An answer to a question that is not the one asked now, or out of its range."""


class NotYours(NotAsked):
    """At a shared table, an answer to the question of another seat."""


@dataclass(frozen=True)
class Question:
    """A decision as the page asks it: its number (the move it makes), the seat asked, and
    what is asked; the card's title and option titles only, never the variant drawn."""

    number: int
    seat: int  # 0-based
    kind: str
    prompt: str
    choices: tuple[str, ...]
    card: str | None
    human: bool

    def to_json(self) -> dict[str, Any]:
        """The question as plain data."""
        return {
            "number": self.number,
            "seat": self.seat,
            "kind": self.kind,
            "prompt": self.prompt,
            "choices": list(self.choices),
            "card": self.card,
            "human": self.human,
        }


@dataclass
class _Run:
    """One playing of the game from its seed: the answers it starts with, and its thread's
    state. An undo starts a new run; the old one is called off."""

    preset: list[int]
    game: Game | None = None
    recorder: Recorder | None = None
    called_off: bool = False
    asked: Question | None = None
    answer: int | None = None
    finished: bool = False
    problem: str | None = None
    thread: threading.Thread | None = field(default=None, repr=False)


class TableGame:
    """A game at the table: start it, answer its human seats, undo, read its record."""

    def __init__(
        self,
        compiled: CompiledPack,
        table: Table,
        seed: int,
        pack: str,
        pace: float = 0.6,
        apart: Sequence[int] | None = None,
        first_version: int = 0,
    ) -> None:
        self.compiled = compiled
        self.table = table
        self.seed = seed
        self.pack = pack
        self.pace = pace
        self.facts = TableFacts.of(compiled, table, pack, seed)
        self._lock = threading.Condition()
        self._run: _Run | None = None
        self._notes: list[tuple[int, str]] = []  # (log length when said, what the table said)
        # the seats that each see the game on a screen of their own (None: one screen)
        self.apart = tuple(apart) if apart is not None else None
        self._version = first_version
        self._view: dict[str, Any] = {"version": first_version, "status": "starting"}
        self._views: dict[int, dict[str, Any]] = {}

    # -- what the server calls -----------------------------------------------------------

    @property
    def version(self) -> int:
        """How many views have been published: the page asks for one after the last it saw."""
        return self._version

    def view(self, seat: int | None = None) -> dict[str, Any]:
        """The view published last (never changed once published): at a shared table, the
        view of `seat`."""
        if seat is None:
            return self._view
        return self._views.get(seat, self._view)

    def start(self) -> None:
        """Play the game from its seed, in the background."""
        self._begin([])

    def answer(self, number: int, choice: int, seat: int | None = None) -> None:
        """Answer the human question asked now; NotAsked if it is not the one asked, NotYours
        if it is not `seat`'s (when one is named)."""
        with self._lock:
            run = self._run
            asked = run.asked if run is not None else None
            if run is None or asked is None or not asked.human or asked.number != number:
                raise NotAsked(f"question {number} is not the one asked now")
            if seat is not None and asked.seat != seat:
                raise NotYours(f"question {number} is seat {asked.seat + 1}'s to answer")
            if not 0 <= choice < len(asked.choices):
                raise NotAsked(f"question {number} has no answer {choice}")
            run.answer = choice
            self._lock.notify_all()

    def undo(self, seat: int | None = None) -> bool:
        """Take back the last human answer and play to its question again; False if no human
        answer has been given yet, or (when `seat` is named) the last is another seat's."""
        with self._lock:
            run = self._run
            if run is None or run.recorder is None:
                return False
            moves = list(run.recorder.moves)
            humans = [i for i, m in enumerate(moves) if self.table.seats[m.seat - 1] == HUMAN]
            asked = run.asked
            if asked is not None and asked.human and run.answer is not None:
                # answered, and the game has not written the move down yet: that is the last
                back = asked.number - 1
                taken = Move(
                    asked.seat + 1, asked.kind, asked.prompt, asked.choices, run.answer + 1, ""
                )
            elif humans:
                back = humans[-1]
                taken = moves[back]
            else:
                return False
            if seat is not None and taken.seat - 1 != seat:
                return False
            logged = len(run.game.log.events) if run.game is not None else 0
        self._call_off()
        with self._lock:
            self._notes.append(
                (
                    logged,
                    f"undo: seat {taken.seat}'s answer {taken.answer!r} to "
                    f"{taken.prompt!r} taken back; the game is played again to that question",
                )
            )
        self._begin([move.number - 1 for move in moves[:back]])
        return True

    def step(self, to: int) -> bool:
        """A game played is not a record to step through."""
        return False

    def record(self) -> Record | None:
        """The record of the game, once it has ended whole (None before, or if it failed)."""
        with self._lock:
            run = self._run
            if run is None or not run.finished or run.problem is not None:
                return None
            assert run.game is not None and run.recorder is not None
            played = Played(run.game, self.table, run.recorder)
            return record_of(self.compiled, self.pack, played, self.seed)

    def moves(self) -> list[Move]:
        """The moves made so far in the game under way."""
        with self._lock:
            run = self._run
            return list(run.recorder.moves) if run and run.recorder else []

    def stop(self) -> None:
        """Call the game off; its thread ends."""
        self._call_off()

    # -- the game's thread ---------------------------------------------------------------

    def _begin(self, preset: list[int]) -> None:
        run = _Run(preset)
        run.thread = threading.Thread(target=self._play, args=(run,), daemon=True)
        with self._lock:
            self._run = run
        run.thread.start()

    def _call_off(self) -> None:
        with self._lock:
            run = self._run
            if run is None:
                return
            run.called_off = True
            self._lock.notify_all()
        if run.thread is not None and run.thread is not threading.current_thread():
            run.thread.join(timeout=30)

    def _play(self, run: _Run) -> None:
        whole, compiled = self.table.whole, self.compiled
        game = whole.new_game(compiled.rules, compiled.cards, self.table.players, self.seed)
        policies: list[Policy] = []
        for index, name in enumerate(self.table.seats):
            inner = None if name == HUMAN else policy_named(name)
            policies.append(_SeatAnswer(self, run, index, inner))
        recorder = Recorder(game, seat_policies(game, policies))
        game.decisions = recorder
        with self._lock:
            run.game, run.recorder = game, recorder
        try:
            whole.play(game, self.table.until)
        except CalledOff:
            return
        except Exception as error:  # the game's failure is shown on the page, not raised
            known = isinstance(error, (DecisionError, DiceError, RunawayError))
            run.problem = str(error) if known else runtime_failure(error)
        with self._lock:
            if run.called_off:
                return
            run.finished = True
            run.asked = None
            self._publish(run)

    def _ask(self, run: _Run, seat: int, decision: Decision, inner: Policy | None, at: Seat) -> int:
        """The answer to one decision: preset while an undo replays, else the page's or the
        seat's policy's, after a pause so the page shows what the bot is asked."""
        game = run.game
        assert game is not None and run.recorder is not None
        number = len(run.recorder.moves) + 1
        if number <= len(run.preset):
            if inner is not None and not getattr(inner, "searches", False):
                # a cheap policy draws from its seat's stream as it did the first time, so the
                # game goes on as it went if the person answers as they did
                inner.decide(game, at, decision)
            return run.preset[number - 1]
        question = Question(
            number,
            seat,
            decision.kind,
            decision.prompt,
            decision.choices,
            decision.card.title if decision.card is not None else None,
            inner is None,
        )
        with self._lock:
            self._check(run)
            run.asked = question
            run.answer = None
            self._publish(run)
            if inner is None:
                while run.answer is None:
                    self._lock.wait()
                    self._check(run)
                # `asked` stays until the next question: an undo now takes this answer back
                return run.answer
            if self.pace > 0:
                deadline = time.monotonic() + self.pace
                while (left := deadline - time.monotonic()) > 0:
                    self._lock.wait(left)
                    self._check(run)
        return inner.decide(game, at, decision)

    def _check(self, run: _Run) -> None:
        if run.called_off:
            raise CalledOff

    def _publish(self, run: _Run) -> None:
        """Make the view of the game now and publish it (the lock held, in the game's thread)."""
        assert run.game is not None and run.recorder is not None
        self._version += 1
        outcome = None
        if run.finished and run.problem is None:
            outcome = outcome_view(self.table.whole.outcome(run.game), self.table.until)
        asked = run.asked.to_json() if run.asked is not None else None
        views: dict[int, dict[str, Any]] = {}
        for seat in self.apart or ():
            views[seat] = game_view(
                self.facts,
                run.game,
                asked,
                run.recorder.moves,
                self._notes,
                finished=run.finished,
                problem=run.problem,
                outcome=outcome,
                seat=seat,
            )
            views[seat]["version"] = self._version
        view = (
            game_view(
                self.facts,
                run.game,
                asked,
                run.recorder.moves,
                self._notes,
                finished=run.finished,
                problem=run.problem,
                outcome=outcome,
            )
            if self.apart is None
            # a shared table's one-screen view is never sent: it is only the version
            else dict[str, Any](status="playing" if not run.finished else "over")
        )
        view["version"] = self._version
        self._views = views
        self._view = view


class _SeatAnswer:
    """The policy of one seat at the table: the page for a human seat, else the seat's own
    policy, each through the table (which replays an undo's answers and sets the pace)."""

    def __init__(self, table: TableGame, run: _Run, seat: int, inner: Policy | None) -> None:
        self._table = table
        self._run = run
        self._seat = seat
        self._inner = inner
        # a search policy plays the turn out: it is told of every answer (runtime.policies)
        self.searches = bool(getattr(inner, "searches", False))
        self.reads_defaults = True

    def decide(self, game: Game, seat: Seat, decision: Decision) -> int:
        """The answer of this seat."""
        return self._table._ask(self._run, self._seat, decision, self._inner, seat)


def human_seats(seats: Sequence[str]) -> list[int]:
    """The 0-based seats a person plays."""
    return [index for index, name in enumerate(seats) if name == HUMAN]
