"""A record stepped through at the table (`pillbox table PACK --record FILE`): the game played
once more from the record's seed, each decision answered from the record, with a view of the
game made before every move and one at the end; the page goes back and forth among them.

A record is of a game already played, so every card is face up. A record the pack no longer
plays the same (an edit since) is shown up to the move where it parts, with what went another
way, as `pillbox replay` says it.
"""

from __future__ import annotations

from typing import Any

from compiler.build import CompiledPack
from compiler.play.game import HUMAN, Table
from compiler.play.records import Diverged, Move, Record, Replay
from compiler.table.conductor import NotAsked
from compiler.table.view import TableFacts, game_view, outcome_view
from runtime.decisions import Decision, DecisionError
from runtime.dice import DiceError
from runtime.game import Game, RunawayError
from runtime.policies import asked_seat
from runtime.testing import runtime_failure


class _Watched(Replay):
    """The record's answers, a view of the game taken before each."""

    def __init__(self, game: Game, recorded: Record, steps: RecordedGame) -> None:
        super().__init__(game, recorded.moves)
        self._steps = steps

    def decide(self, decision: Decision) -> int:
        """The recorded answer, after a view of the game as it was asked."""
        number = len(self.moves) + 1
        seat = asked_seat(self.game, decision)
        question = {
            "number": number,
            "seat": seat,
            "kind": decision.kind,
            "prompt": decision.prompt,
            "choices": list(decision.choices),
            "card": decision.card.title if decision.card is not None else None,
            "human": self._steps.table.seats[seat] == HUMAN,
        }
        index = super().decide(decision)
        self._steps.take(self.game, question, self.moves[:-1], index)
        return index


class RecordedGame:
    """A record at the table: its views, one before each move and one at the end, and the
    one shown now."""

    def __init__(
        self,
        compiled: CompiledPack,
        table: Table,
        record: Record,
        pack: str,
        first_version: int = 0,
    ) -> None:
        self.table = table
        self.seed = record.seed
        self.facts = TableFacts.of(compiled, table, pack, record.seed)
        self._record = record
        self._views: list[dict[str, Any]] = []
        self._version = first_version
        self._at = 0
        self.problem = self._play(compiled)

    def take(self, game: Game, question: dict[str, Any], moves: list[Move], answer: int) -> None:
        """Keep a view of the game now, as `question` is asked (answered with `answer`)."""
        view = game_view(self.facts, game, question, moves, [], False, None, None, reveal=True)
        view["replay"] = {"answer": answer}
        self._views.append(view)

    def _play(self, compiled: CompiledPack) -> str | None:
        """Play the record through, its views kept; what stopped it short, if anything."""
        whole = self.table.whole
        game = whole.new_game(compiled.rules, compiled.cards, self.table.players, self.seed)
        moves = _Watched(game, self._record, self)
        game.decisions = moves
        problem = None
        outcome = None
        try:
            whole.play(game, self.table.until)
            moves.finish(self._record.final)
        except Diverged as error:
            problem = f"the record no longer replays: {error}"
        except Exception as error:  # the game's failure is shown on the page, not raised
            known = isinstance(error, (DecisionError, DiceError, RunawayError))
            problem = str(error) if known else runtime_failure(error)
        if problem is None:
            outcome = outcome_view(whole.outcome(game), self.table.until)
        last = game_view(self.facts, game, None, moves.moves, [], True, problem, outcome)
        last["replay"] = {"answer": None}
        self._views.append(last)
        for at, view in enumerate(self._views):
            view["replay"] |= {"at": at, "of": len(self._views) - 1}
            view["undoable"] = False
        return problem

    @property
    def version(self) -> int:
        """The number of the view shown now: each step shows a new one."""
        return self._version

    def view(self, seat: int | None = None) -> dict[str, Any]:
        """The view at the move shown now."""
        return {**self._views[self._at], "version": self._version}

    def step(self, to: int) -> bool:
        """Show the game as it was before move `to + 1` (the end, past the last move)."""
        at = min(max(to, 0), len(self._views) - 1)
        self._at = at
        self._version += 1
        return True

    def answer(self, number: int, choice: int, seat: int | None = None) -> None:
        """A record is not answered: it was."""
        raise NotAsked("this is a record: step through it with back and forward")

    def undo(self, seat: int | None = None) -> bool:
        """A record has nothing to take back."""
        return False

    def record(self) -> Record | None:
        """The record stepped through."""
        return self._record

    def start(self) -> None:
        """Nothing to start: the record was played through when it was read."""

    def stop(self) -> None:
        """Nothing runs."""
