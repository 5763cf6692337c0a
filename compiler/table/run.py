"""`pillbox table PACK`: a whole game of the pack played in the browser, on 127.0.0.1.

The pack is checked and compiled once; the seats are settled as `play --game` settles them
(a person plays `human`, a policy any other); the game starts in its own thread and the server
in another; the main thread waits for Ctrl-C, which calls the game off and stops the server.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from compiler.errors import EXIT_CONTENT, UsageError
from compiler.play.game import HUMAN, GameRequest, settle
from compiler.playing import Emit, load_compiled
from compiler.render import Style, plain
from compiler.table.app import TableServer
from compiler.table.conductor import TableGame
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


def open_table(
    path: Path, ruleset: str | None, request: TableRequest, emit: Emit, style: Style = plain
) -> tuple[TableGame, TableServer] | None:
    """The game and its server, not started yet; None (its errors printed) when the pack
    does not check; UsageError for seats or a port that do not fit."""
    compiled = load_compiled(path, ruleset, emit, style)
    if compiled is None:
        return None
    try:
        whole = whole_game_of(compiled.rules, compiled.whole)
    except NotWhole as error:
        raise UsageError(f"table: {error}") from None
    seats = request.seats
    if seats is None:
        low = whole.players[0]
        players = request.players or max(low, 2 if whole.players[1] >= 2 else 1)
        seats = (HUMAN, *([DEFAULT_BOT] * (players - 1)))
    table = settle(whole, GameRequest(request.pack, request.seed, request.players, seats=seats))
    game = TableGame(compiled, table, request.seed, request.pack, request.pace)
    try:
        server = TableServer(game, request.port)
    except OSError as error:
        raise UsageError(f"--port {request.port}: cannot listen: {error.strerror}") from None
    return game, server


def table_pack(
    path: Path, ruleset: str | None, request: TableRequest, emit: Emit, style: Style = plain
) -> int:
    """Serve a game of the pack at the table until Ctrl-C (KeyboardInterrupt, raised on)."""
    opened = open_table(path, ruleset, request, emit, style)
    if opened is None:
        return EXIT_CONTENT
    game, server = opened
    game.start()
    server.start()
    seats = ", ".join(f"{i + 1}: {name}" for i, name in enumerate(game.table.seats))
    emit(
        f"table of {game.facts.title} at {server.url} (seats {seats}; seed {request.seed}; "
        "Ctrl-C stops)"
    )
    try:
        while True:  # Ctrl-C is heard between sleeps
            time.sleep(POLL_SECONDS)
    finally:
        game.stop()
        server.stop()
    return 0
