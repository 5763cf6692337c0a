"""`pillbox table PACK`: a whole game of the pack played in the browser, on 127.0.0.1 (or,
with `--share`, on an address other machines reach, each human seat by a join code).

The pack is checked and compiled; the seats are settled as `play --game` settles them (a
person plays `human`, a policy any other); the game starts in its own thread and the server in
another; the main thread waits for Ctrl-C, which calls the game off and stops the server.
**New game** deals the next game, its seed one past the last, from the pack as it is then: the
table follows the pack's edits (`compiler.table.live`). With `--record FILE` the table steps
through a record instead (`compiler.table.stepping`).
"""

from __future__ import annotations

import queue
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from compiler.build import CompiledPack
from compiler.errors import EXIT_CONTENT, UsageError
from compiler.kept import keep_in_this_process
from compiler.play.game import HUMAN, GameRequest, Table, settle, table_of_record
from compiler.play.records import RecordError, pack_digest, read_record
from compiler.playing import Emit, load_compiled
from compiler.render import Style, plain, render_text
from compiler.serve.server import HOST
from compiler.serve.watch import pack_folder, watch_folder
from compiler.table.app import TableServer
from compiler.table.conductor import TableGame, human_seats
from compiler.table.live import Dealable, LivePack, follow_edits
from compiler.table.session import AtTable, Session
from compiler.table.share import Access, share_address
from compiler.table.stepping import RecordedGame
from runtime.datagame import whole_game_of
from runtime.whole import NotWhole

POLL_SECONDS = 0.5
"""How often the main thread looks up from waiting (Ctrl-C is heard then)."""

DEFAULT_BOT = "random"
"""Who plays the seats `--seats` does not name: the first is a person's."""


@dataclass(frozen=True)
class TableRequest:
    """What `pillbox table` was asked."""

    pack: str
    seed: int
    players: int | None = None
    seats: tuple[str, ...] | None = None
    port: int = 8000
    pace: float = 0.6
    share: str | None = None  # the address to share the table on, when the user opts in
    record: Path | None = None  # a record to step through instead of a game to play


@dataclass(frozen=True)
class Opened:
    """A table ready to start: its first game (or record), its server, and the pack it follows
    (None for a record)."""

    game: AtTable
    server: TableServer
    live: LivePack | None


def open_table(
    path: Path, ruleset: str | None, request: TableRequest, emit: Emit, style: Style = plain
) -> Opened | None:
    """The game (or record) and its server, not started yet; None (its errors printed) when
    the pack does not check or the record cannot be stepped through; UsageError for seats or
    a port that do not fit."""
    if request.record is not None and request.share is not None:
        raise UsageError("--record and --share: a record is stepped through at one screen")
    if request.record is not None and (request.seats or request.players):
        raise UsageError("--record plays the record's seats: leave out --seats and --players")
    compiled = load_compiled(path, ruleset, emit, style)
    if compiled is None:
        return None
    if request.record is not None:
        recorded = _recorded(compiled, path, request, emit, style)
        if recorded is None:
            return None
        return Opened(recorded, _server(Session(recorded), request, None, HOST), None)
    try:
        whole = whole_game_of(compiled.rules, compiled.whole)
    except NotWhole as error:
        raise UsageError(f"table: {error}") from None
    seats = request.seats
    if seats is None:
        low = whole.players[0]
        players = request.players or max(low, 2 if whole.players[1] >= 2 else 1)
        seats = (HUMAN, *([DEFAULT_BOT] * (players - 1)))
    asked = GameRequest(request.pack, request.seed, request.players, seats=seats)
    table = settle(whole, asked)
    address, access, apart = HOST, None, None
    if request.share is not None:
        address = share_address(request.share)
        apart = human_seats(table.seats)
        if not apart:
            raise UsageError("--share: no seat is a person's; name one `human` in --seats")
        access = Access.shared(apart)
    live = LivePack(path, ruleset, asked, Dealable(compiled, table), emit, style)
    seeds = [request.seed]

    def deal(version: int) -> TableGame:
        seeds.append(seeds[-1] + 1)
        now = live.dealt()
        return _game(now.compiled, now.table, seeds[-1], request, apart, version)

    game = _game(compiled, table, request.seed, request, apart, 0)
    session = Session(game, deal, anytime=apart is None, notes=lambda: live.note)
    return Opened(game, _server(session, request, access, address), live)


def _server(
    session: Session, request: TableRequest, access: Access | None, address: str
) -> TableServer:
    try:
        return TableServer(session, request.port, access, address)
    except OSError as error:
        where = f"{address}:{request.port}" if address != HOST else f"--port {request.port}"
        raise UsageError(f"{where}: cannot listen: {error.strerror}") from None


def _recorded(
    compiled: CompiledPack, path: Path, request: TableRequest, emit: Emit, style: Style
) -> RecordedGame | None:
    """The record played through, to step through; None (the diagnostic printed) if it is
    not a record of this pack's game."""
    assert request.record is not None
    shown = str(request.record)
    text = ""
    try:
        record, text = read_record(request.record, shown)
        table = table_of_record(compiled, record, path, shown, text)
    except RecordError as error:
        emit(render_text(error.diagnostic, {shown: text} if text else {}, style))
        return None
    if pack_digest(compiled) != record.pack_digest:
        emit(
            style("note:", "note")
            + f" {path} changed since the record was made; it is shown as the pack plays it now"
        )
    return RecordedGame(compiled, table, record, request.pack)


def _game(
    compiled: CompiledPack,
    table: Table,
    seed: int,
    request: TableRequest,
    apart: list[int] | None,
    version: int,
) -> TableGame:
    return TableGame(compiled, table, seed, request.pack, request.pace, apart, version)


def table_pack(
    path: Path, ruleset: str | None, request: TableRequest, emit: Emit, style: Style = plain
) -> int:
    """Serve a game of the pack at the table until Ctrl-C (KeyboardInterrupt, raised on)."""
    changes: queue.Queue[int] = queue.Queue()
    stop = threading.Event()
    try:
        if request.record is None:  # watched from before the first check: no save is missed
            keep_in_this_process()  # every save loads and compiles the pack again
            folder = pack_folder(path, ruleset)
            threading.Thread(target=watch_folder, args=(folder, changes, stop), daemon=True).start()
        opened = open_table(path, ruleset, request, emit, style)
        if opened is None:
            return EXIT_CONTENT
        return _serve(opened, request, changes, emit)
    finally:
        stop.set()


def _serve(opened: Opened, request: TableRequest, changes: queue.Queue[int], emit: Emit) -> int:
    """Start the table and keep it until Ctrl-C, following the pack's edits."""
    game, server = opened.game, opened.server
    game.start()
    server.start()
    seats = ", ".join(f"{i + 1}: {name}" for i, name in enumerate(game.facts.seats))
    if isinstance(game, RecordedGame):
        emit(
            f"the record {request.record} of {game.facts.title} at {server.url} "
            f"(seats {seats}; seed {game.seed}; back and forward step; Ctrl-C stops)"
        )
        if game.problem is not None:
            emit(f"{request.record}: {game.problem}")
    elif server.access.is_shared:
        emit(
            f"table of {game.facts.title} shared on {server.host}:{server.port} (seats "
            f"{seats}; seed {request.seed}; Ctrl-C stops); each person opens their seat's link:"
        )
        for seat, link in server.links():
            emit(f"  seat {seat + 1}: {link}")
    else:
        emit(
            f"table of {game.facts.title} at {server.url} (seats {seats}; seed {request.seed}; "
            "Ctrl-C stops)"
        )
    try:
        if opened.live is not None:
            follow_edits(opened.live, changes, threading.Event())  # until Ctrl-C
        while True:  # Ctrl-C is heard between sleeps
            time.sleep(POLL_SECONDS)
    finally:
        server.session.stop()
        server.stop()
    return 0
