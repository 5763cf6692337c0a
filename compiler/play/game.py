"""What `pillbox play PACK --game` and `pillbox replay FILE` do: one whole game, through the
game's whole-game rules (`runtime.whole`), seat by seat.

Each seat is played by a policy, or by a person at the terminal (`human`): hot-seat, each
asked their own decisions with the log read out before them. The same seed, seats and phase
as a game of `pillbox simulate` play that game again, move by move. Nothing here knows a
game's words: the phases, the seats and the outcome's labels are the game's.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from compiler.build import CompiledPack
from compiler.errors import UsageError
from compiler.files import write_atomically
from compiler.pack import MANIFEST, display_path
from compiler.play.records import (
    READ,
    Diverged,
    Record,
    Recorder,
    RecordError,
    Replay,
    pack_digest,
    read_record,
    record_span,
    state_digest,
)
from compiler.playing import Emit, Narrator, load_compiled
from compiler.render import Style, plain, render_text
from compiler.terminal import echo
from dsl.spans import Diagnostic, Span
from runtime.datagame import whole_game_of
from runtime.decisions import Decision, DecisionError
from runtime.dice import DiceError
from runtime.game import Game, RunawayError
from runtime.policies import (
    POLICIES,
    Policy,
    PolicyError,
    Seat,
    UnknownPolicy,
    policy_named,
    seat_policies,
)
from runtime.testing import card_line, runtime_failure
from runtime.whole import NotWhole, Outcome, WholeGame

EXIT_CLEAN, EXIT_CONTENT, EXIT_INTERRUPTED = 0, 1, 130

HUMAN = "human"
"""The seat name of a person at the terminal, beside the policies' names."""

FAILED = "E0465"
STALE = "E0467"
NO_PACK = "E0468"


@dataclass
class GameRequest:
    """What `pillbox play --game` was asked."""

    pack: str  # as named on the command line, for the record and the line to play it again
    seed: int
    players: int | None = None
    policy: str | None = None
    seats: Sequence[str] | None = None
    until: str | None = None
    as_json: bool = False
    record: Path | None = None
    interactive: bool = False  # a person is at the terminal


@dataclass(frozen=True)
class Table:
    """A game's seats settled: how many, the policy (or human) of each, the phase to reach."""

    whole: WholeGame
    players: int
    seats: tuple[str, ...]
    until: str


def settle(whole: WholeGame, request: GameRequest) -> Table:
    """The seats and phase a request asks for, each checked against the game's rules; a
    UsageError naming what does not fit."""
    if request.policy is not None and request.seats is not None:
        raise UsageError("--policy and --seats: give one policy for all, or one per seat")
    low, high = whole.players
    players = request.players or (len(request.seats) if request.seats else low)
    if not low <= players <= high:
        raise UsageError(f"--players {players}: this game is played by {low} to {high}")
    if request.seats is not None:
        seats = tuple(name.strip() for name in request.seats)
        if len(seats) != players:
            raise UsageError(f"--seats names {len(seats)} seats for {players} players")
    else:
        default = HUMAN if request.interactive and not request.as_json else "random"
        seats = (request.policy or default,) * players
    for name in seats:
        if name == HUMAN:
            continue
        try:
            policy_named(name)
        except UnknownPolicy:
            known = ", ".join(sorted([*POLICIES, HUMAN]))
            raise UsageError(f"unknown seat {name!r}: a seat is one of {known}") from None
        except PolicyError as error:
            raise UsageError(f"seat {name!r}: {error}") from None
    if request.as_json and HUMAN in seats:
        raise UsageError("--json plays no human seat: give each seat a policy")
    until = request.until or whole.phases[-1]
    if until not in whole.phases:
        raise UsageError(f"--until {until}: this game's phases are {', '.join(whole.phases)}")
    return Table(whole, players, seats, until)


def whole_rules(compiled: CompiledPack) -> WholeGame:
    """The pack's game played whole; a UsageError if its game plays single cards only."""
    try:
        return whole_game_of(compiled.rules, compiled.whole)
    except NotWhole as error:
        raise UsageError(f"--game: {error}") from None


class HumanSeat:
    """A person at the terminal playing one seat: the log read out, then the question."""

    def __init__(self, narrator: Narrator, emit: Emit) -> None:
        self._narrator = narrator
        self._emit = emit

    def watch(self, game: Game) -> None:
        """Read this game's log out before each question."""
        self._narrator.log = game.log.lines

    def flush(self) -> None:
        """Read out what the log says since the last question."""
        self._narrator.flush()

    def decide(self, game: Game, seat: Seat, decision: Decision) -> int:
        """Show what happened, whose decision it is, the answers; read the pick."""
        self._narrator.flush()
        self._emit(f"-- {seat.player.name} (seat {seat.index + 1}) decides --")
        return self._narrator(decision)


@dataclass
class Played:
    """A whole game played: the game, its moves, and what stopped it, if anything did."""

    game: Game
    table: Table
    moves: Recorder | Replay
    problem: Diagnostic | None = None  # the game failed
    diverged: Diverged | None = None  # a replay parted from its record


def play_whole(
    compiled: CompiledPack,
    table: Table,
    seed: int,
    humans: HumanSeat | None = None,
    replay: Record | None = None,
) -> Played:
    """Play one game to the end of the table's phase: the seats' policies answer (and every
    move is recorded), or a record's moves do. A failure of the game is its diagnostic."""
    whole = table.whole
    game = whole.new_game(compiled.rules, compiled.cards, table.players, seed)
    moves: Recorder | Replay
    if replay is not None:
        moves = Replay(game, replay.moves)
    else:
        moves = Recorder(game, seat_policies(game, _policies(table, game, humans)))
    game.decisions = moves
    played = Played(game, table, moves)
    try:
        whole.play(game, table.until)
        if isinstance(moves, Replay) and replay is not None:
            moves.finish(replay.final)
    except Diverged as error:
        played.diverged = error
    except Exception as error:  # any failure of the runtime or a card stops this game
        played.problem = _failure(compiled, game, moves, error)
    return played


def _policies(table: Table, game: Game, humans: HumanSeat | None) -> list[Policy]:
    """A fresh policy for each seat, or the person at the terminal for a human one."""
    if humans is not None:
        humans.watch(game)
    policies: list[Policy] = []
    for name in table.seats:
        if name != HUMAN:
            policies.append(policy_named(name))
        elif humans is not None:
            policies.append(humans)
        else:
            raise UsageError("a human seat is played at a terminal, or with answers piped in")
    return policies


def _failure(
    compiled: CompiledPack, game: Game, moves: Recorder | Replay, error: Exception
) -> Diagnostic:
    """A game that failed: the card line it failed on, or the pack, and when."""
    known = isinstance(error, (DecisionError, DiceError, RunawayError))
    message = str(error) if known else runtime_failure(error)
    span = _the_pack(compiled)
    for file in compiled.files:
        line = card_line(error, file.file)
        if line is not None:
            span = Span(file.file, line[0], line[1], line[0], line[1] + 1)
    when = f"after {len(moves.moves)} moves, in round {game.state.round}"
    return Diagnostic(FAILED, "error", f"the game failed {when}: {message}", span)


def _the_pack(compiled: CompiledPack) -> Span:
    """Where a failure at no card line is told: the line of pack.yaml that names the ruleset
    (the game as a whole), or pack.yaml, not the pack's folder."""
    checked = compiled.checked
    if checked.ruleset_span is not None:
        return checked.ruleset_span
    if checked.root is not None and (checked.root / MANIFEST).is_file():
        return Span.whole_file(display_path(checked.root / MANIFEST))
    return Span.whole_file(str(checked.root or checked.name))


def outcome_text(outcome: Outcome, until: str) -> str:
    """How the game ended, in one line: its result, winners, labels and where it stopped."""
    parts = [f"outcome after the {until}: {outcome.result or 'no result'}"]
    if outcome.winners:
        parts.append(f"won by {', '.join(outcome.winners)}")
    parts += [f"{name}: {value}" for name, value in outcome.labels.items()]
    if outcome.stopped:
        parts.append(f"stopped: {outcome.stopped}")
    return "; ".join(parts)


def again(request_pack: str, table: Table, seed: int) -> str:
    """The command line that plays this game again."""
    seats = set(table.seats)
    chosen = f"--policy {table.seats[0]}" if len(seats) == 1 else f"--seats {','.join(table.seats)}"
    return (
        f"pillbox play {request_pack} --game --players {table.players} --seed {seed} "
        f"{chosen} --until {table.until}"
    )


def play_game(
    path: Path,
    ruleset: str | None,
    request: GameRequest,
    emit: Emit,
    ask: Callable[[str], str],
    style: Style = plain,
) -> int:
    """Play one whole game and show it move by move, then its outcome; record it if asked."""
    if request.record is not None:
        _check_writable(request.record)
    report_to = emit if not request.as_json else echo(style, err=True)
    compiled = load_compiled(path, ruleset, report_to, style)
    if compiled is None:
        return EXIT_CONTENT
    table = settle(whole_rules(compiled), request)
    humans = HumanSeat(Narrator(emit, ask), emit) if HUMAN in table.seats else None
    try:
        played = play_whole(compiled, table, request.seed, humans)
    except KeyboardInterrupt:
        # Ctrl-C or Ctrl-D at a question: stop quietly; nothing is recorded.
        emit("")
        return EXIT_INTERRUPTED
    if request.record is not None and played.problem is None:
        record = record_of(compiled, request.pack, played, request.seed)
        _write(request.record, record.to_text())
    if request.as_json:
        emit(json.dumps(_game_json(played, request.seed), indent=2, ensure_ascii=False))
        return EXIT_CONTENT if played.problem else EXIT_CLEAN
    _show(played, humans, emit)
    emit(f"(seed {request.seed}: {again(request.pack, table, request.seed)} plays it again)")
    if request.record is not None and played.problem is None:
        emit(f"recorded {len(played.moves.moves)} moves in {request.record}")
    return _problem(played, compiled, emit, style)


def _show(played: Played, humans: HumanSeat | None, emit: Emit) -> None:
    """The log (what the narrator has not read out yet), then the outcome."""
    if humans is not None:
        humans.flush()
    else:
        for line in played.game.log.lines():
            emit(line)
    emit("")
    if played.problem is None and played.diverged is None:
        emit(outcome_text(played.table.whole.outcome(played.game), played.table.until))


def _problem(played: Played, compiled: CompiledPack, emit: Emit, style: Style) -> int:
    if played.problem is None:
        return EXIT_CLEAN
    emit("")
    emit(render_text(played.problem, compiled.sources(), style))
    return EXIT_CONTENT


def _game_json(played: Played, seed: int) -> dict[str, Any]:
    """The game as data: its seats, the log, the outcome and the final state."""
    table, game = played.table, played.game
    problem = played.problem
    return {
        "game": game.rules.game,
        "seed": seed,
        "players": table.players,
        "seats": list(table.seats),
        "until": table.until,
        "moves": len(played.moves.moves),
        "log": game.log.to_json(),
        "outcome": None if problem else asdict(table.whole.outcome(game)),
        "state": game.snapshot(),
        "error": problem.to_json() if problem else None,
    }


def record_of(compiled: CompiledPack, pack: str, played: Played, seed: int) -> Record:
    """The record of a game played: enough to play it again, move by move."""
    table = played.table
    return Record(
        game=compiled.rules.game,
        pack=pack,
        pack_digest=pack_digest(compiled),
        seed=seed,
        players=table.players,
        seats=table.seats,
        until=table.until,
        moves=tuple(played.moves.moves),
        final=state_digest(played.game),
    )


def _check_writable(target: Path) -> None:
    """Refuse a record file that could not be written, before a game is played for it."""
    if target.is_dir():
        raise UsageError(f"--record {target}: is a folder; name a file, e.g. game.json")
    if not target.parent.is_dir():
        raise UsageError(f"--record {target}: the folder {target.parent} does not exist")


def _write(target: Path, text: str) -> None:
    """Write the record whole or not at all."""
    try:
        write_atomically(target, text.encode("utf-8"))
    except OSError as error:
        raise UsageError(
            f"--record {target}: cannot write it ({error.strerror or error})"
        ) from None


# -- pillbox replay --------------------------------------------------------------------------


def replay_game(
    file: Path,
    pack: Path | None,
    ruleset: str | None,
    as_json: bool,
    emit: Emit,
    style: Style = plain,
) -> int:
    """Play a record back, answering from it, and show the log; exit 1 naming the first move
    that differs if the pack no longer plays to the same state."""
    report_to = emit if not as_json else echo(style, err=True)
    shown = str(file)
    try:
        record, text = read_record(file, shown)
    except RecordError as error:
        report_to(render_text(error.diagnostic, {}, style))
        return EXIT_CONTENT
    path = pack if pack is not None else Path(record.pack)
    if not path.exists():
        where = record_span(shown, text, ("pack",))
        missing = f"the record's pack {record.pack!r} is not there"
        problem = Diagnostic(NO_PACK, "error", missing, where, "name the pack with --pack PATH")
        report_to(render_text(problem, {shown: text}, style))
        return EXIT_CONTENT
    compiled = load_compiled(path, ruleset, report_to, style)
    if compiled is None:
        return EXIT_CONTENT
    try:
        table = table_of_record(compiled, record, path, shown, text)
    except RecordError as error:
        report_to(render_text(error.diagnostic, {shown: text}, style))
        return EXIT_CONTENT
    if pack_digest(compiled) != record.pack_digest:
        echo(style, err=True)(
            style("note:", "note")
            + f" {path} changed since the record was made; replaying to see if it plays the same"
        )
    played = play_whole(compiled, table, record.seed, replay=record)
    stale = None
    if played.diverged is not None:
        stale = stale_record(played.diverged, record, shown, text)
    if as_json:
        data = _game_json(played, record.seed)
        failed = stale or played.problem
        data["replayed"] = failed is None
        data["error"] = failed.to_json() if failed is not None else None
        emit(json.dumps(data, indent=2, ensure_ascii=False))
        return EXIT_CLEAN if failed is None else EXIT_CONTENT
    _show(played, None, emit)
    if stale is not None:
        emit(render_text(stale, {shown: text}, style))
        return EXIT_CONTENT
    if played.problem is None:
        emit(f"replayed {len(record.moves)} moves of {shown}: the same final state")
    return _problem(played, compiled, emit, style)


def table_of_record(
    compiled: CompiledPack, record: Record, path: Path, shown: str, text: str
) -> Table:
    """The seats and phase of a record, checked against the pack's game; RecordError at the
    record's line if they do not fit it."""
    if compiled.rules.game != record.game:
        where = record_span(shown, text, ("game",))
        message = f"the record is a game of {record.game}; {path} is a {compiled.rules.game} pack"
        raise RecordError(Diagnostic(NO_PACK, "error", message, where, "name its pack with --pack"))
    request = GameRequest(str(path), record.seed, seats=record.seats, until=record.until)
    try:
        return settle(whole_rules(compiled), request)
    except UsageError as error:
        said = str(error)
        field = next((f for f in ("until", "players") if said.startswith(f"--{f}")), "seats")
        message = f"the record does not fit the game: {said.removeprefix('--')}"
        raise RecordError(
            Diagnostic(READ, "error", message, record_span(shown, text, (field,)))
        ) from None


def stale_record(diverged: Diverged, record: Record, shown: str, text: str) -> Diagnostic:
    """The first move a replay parted from its record at, placed on that move's line."""
    path: tuple[str | int, ...] = ("moves", min(diverged.move, len(record.moves)) - 1)
    span = record_span(shown, text, path) if record.moves else Span.whole_file(shown)
    return Diagnostic(
        STALE,
        "error",
        f"the record no longer replays: {diverged.message}",
        span,
        "the pack or pillbox changed since the record was made; record the game again",
    )
