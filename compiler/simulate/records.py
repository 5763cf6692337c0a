"""`simulate --include-records DIR`: the games people played (at `pillbox table`, or with
`play --game --record`), counted beside the simulated ones and named apart.

Each `*.json` in the folder is a record: it is played again from its seed with its answers
to its end, as `pillbox replay` plays it, and read into the same figures a simulated game
gives (`runtime.simulation.record.read_game`). A record must be of this very pack (the same
pack digest), of as many players and to the same phase as the sweep; else it is refused, by
a diagnostic that names its file, and nothing is counted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from compiler.build import CompiledPack
from compiler.errors import UsageError
from compiler.play.game import stale_record, table_of_record
from compiler.play.records import Diverged, Record, RecordError, Replay, pack_digest, read_record
from compiler.play.records import record_span as record_line
from dsl.spans import Diagnostic
from runtime.simulation.reading import LogReader
from runtime.simulation.record import GameRecord, Sweep, read_game
from runtime.simulation.totals import Totals
from runtime.whole import WholeGame

NOT_COUNTED = "E0469"

MIXED = "mixed"
"""The policy shown for a seat the records do not all give to one player or policy."""


@dataclass(frozen=True)
class Counted:
    """The records of a folder counted: their sweep (seats, phase) and totals."""

    folder: Path
    sweep: Sweep
    totals: Totals


class NotCounted(Exception):
    """A record that cannot be counted: its diagnostic, and the text it points into."""

    def __init__(self, diagnostic: Diagnostic, sources: dict[str, str]) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic
        self.sources = sources


def record_files(folder: Path) -> list[Path]:
    """The records of a folder, by name; UsageError if it is no folder or holds none."""
    if not folder.is_dir():
        raise UsageError(f"--include-records {folder}: not a folder")
    files = sorted(p for p in folder.glob("*.json") if p.is_file())
    if not files:
        raise UsageError(f"--include-records {folder}: no record (*.json) in it")
    return files


def count_records(
    folder: Path, path: Path, compiled: CompiledPack, whole: WholeGame, sweep: Sweep
) -> Counted:
    """Every record of the folder played again and counted; NotCounted for the first that
    cannot be."""
    digest = pack_digest(compiled)
    totals = Totals()
    seats: list[tuple[str, ...]] = []
    for index, file in enumerate(record_files(folder)):
        shown = str(file)
        text = ""
        try:
            record, text = read_record(file, shown)
            table_of_record(compiled, record, path, shown, text)
        except RecordError as error:
            raise NotCounted(error.diagnostic, {shown: text} if text else {}) from None
        _fits(record, digest, sweep, shown, text)
        totals.add(_replayed(record, compiled, whole, index, shown, text))
        seats.append(record.seats)
    played = Sweep(0, sweep.players, _policies(seats), sweep.until, sweep.phases)
    return Counted(folder, played, totals)


def _fits(record: Record, digest: str, sweep: Sweep, shown: str, text: str) -> None:
    """NotCounted unless the record is of this pack, with the sweep's players and phase."""
    if record.pack_digest != digest:
        problem = (
            "pack_digest",
            "the record is of another version of the pack (its pack digest differs): "
            "its games are not this pack's",
            "count records of the pack as it is now; replay it with pillbox replay to see where "
            "it parts",
        )
    elif record.players != sweep.players:
        problem = (
            "players",
            f"the record is a game of {record.players} players; the sweep plays {sweep.players}",
            f"count it with --players {record.players}, or leave it out of the folder",
        )
    elif record.until != sweep.until:
        problem = (
            "until",
            f"the record is played to the end of the {record.until}; the sweep to the end of "
            f"the {sweep.until}",
            f"count it with --until {record.until}, or leave it out of the folder",
        )
    else:
        return
    field, message, help_text = problem
    where = record_line(shown, text, (field,))
    raise NotCounted(Diagnostic(NOT_COUNTED, "error", message, where, help_text), {shown: text})


def _replayed(
    record: Record, compiled: CompiledPack, whole: WholeGame, index: int, shown: str, text: str
) -> GameRecord:
    """The record played again to its end, read as a simulated game is."""
    game = whole.new_game(compiled.rules, compiled.cards, record.players, record.seed)
    # a replay checks the log between moves, so the log is kept whole; the reader is told of
    # the steps it counts as in a sweep
    moves = Replay(game, record.moves)
    game.decisions = moves
    reader = game.figures = LogReader(game, whole.phases)
    counted = GameRecord(index, record.seed)
    try:
        whole.play(game, record.until)
        moves.finish(record.final)
    except Diverged as error:
        raise NotCounted(stale_record(error, record, shown, text), {shown: text}) from None
    except Exception as error:  # the game failed where it once played: this pillbox's change
        diverged = Diverged(len(moves.moves) + 1, f"the game failed: {error}")
        raise NotCounted(stale_record(diverged, record, shown, text), {shown: text}) from None
    read_game(counted, whole.outcome(game), reader)
    return counted


def _policies(seats: Sequence[tuple[str, ...]]) -> tuple[str, ...]:
    """Each seat's player in the records: one name where they agree, else `mixed`."""
    if not seats:
        return ()
    return tuple(names[0] if len(set(names)) == 1 else MIXED for names in zip(*seats, strict=True))
