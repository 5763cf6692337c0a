"""`pillbox table` follows the pack's edits, as `serve` does: after an edit the next game is
dealt from the new cards, the game under way keeps the cards it started with, and a version
that does not check is not dealt from. Over a copy of Cool Name; one test with the real
watcher."""

from __future__ import annotations

import json
import queue
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from compiler.render import plain
from compiler.serve.watch import watch_folder
from compiler.table.app import TOKEN_HEADER
from compiler.table.conductor import TableGame
from compiler.table.live import follow_edits
from compiler.table.run import Opened, TableRequest, open_table
from tests.test_table import COOL, ask, next_view

NEW_CARD = 'condition "Fresh Bruise" {\n    harsh 1\n}\n'


@pytest.fixture
def table(tmp_path: Path) -> Iterator[tuple[Path, Opened, list[str]]]:
    pack = tmp_path / "cool"
    shutil.copytree(COOL, pack)
    said: list[str] = []
    request = TableRequest(str(pack), 4, seats=("human", "random"), port=0, pace=0)
    opened = open_table(pack, None, request, said.append, plain)
    assert opened is not None
    yield pack, opened, said
    opened.server.session.stop()
    opened.server.stop()


def titles(game: object) -> set[str]:
    assert isinstance(game, TableGame)
    return {card.title for card in game.compiled.cards}


def test_the_next_game_is_dealt_from_the_edited_pack(
    table: tuple[Path, Opened, list[str]],
) -> None:
    pack, opened, said = table
    session, live = opened.server.session, opened.live
    assert live is not None
    first = session.game
    first.start()
    next_view(first, 0)
    (pack / "cards" / "bruises.card").write_text(NEW_CARD, encoding="utf-8")
    assert live.reload()
    assert said[-1].startswith("[1] the pack changed") and "game under way keeps" in said[-1]
    assert live.note is not None and "New game deals from it" in live.note
    assert "Fresh Bruise" not in titles(first)  # the game under way keeps its cards
    assert first.view()["status"] == "playing"
    assert session.new_game()
    second = session.game
    assert second is not first and "Fresh Bruise" in titles(second)
    assert second.seed == first.seed + 1 and second.version > first.version
    assert live.note is None  # dealt: nothing more to say
    # an edit that does not check is not dealt from; the page is told
    (pack / "cards" / "bruises.card").write_text('condition "Broken" {\n', encoding="utf-8")
    assert not live.reload()
    assert "does not check" in said[-1] and live.note and "does not check" in live.note
    assert session.new_game()
    assert "Fresh Bruise" in titles(session.game)


def test_the_watcher_hears_a_saved_edit(table: tuple[Path, Opened, list[str]]) -> None:
    pack, opened, said = table
    live = opened.live
    assert live is not None
    changes: queue.Queue[int] = queue.Queue()
    stop = threading.Event()
    watcher = threading.Thread(target=watch_folder, args=(pack, changes, stop), daemon=True)
    follower = threading.Thread(target=follow_edits, args=(live, changes, stop), daemon=True)
    watcher.start()
    follower.start()
    try:
        time.sleep(0.3)  # the watcher is watching
        (pack / "cards" / "bruises.card").write_text(NEW_CARD, encoding="utf-8")
        deadline = time.monotonic() + 20
        while "Fresh Bruise" not in {c.title for c in live.current.compiled.cards}:
            assert time.monotonic() < deadline, said
            time.sleep(0.05)
        assert said[-1].startswith("[1] the pack changed"), said
    finally:
        stop.set()
        watcher.join(timeout=5)
        follower.join(timeout=5)


def test_new_game_is_asked_for_with_the_token(table: tuple[Path, Opened, list[str]]) -> None:
    _, opened, _ = table
    server = opened.server
    server.game.start()
    server.start()
    first = server.game
    next_view(first, 0)
    assert ask(server, "POST", "/new", {})[0] == 403  # not without the table's token
    assert server.game is first
    status, _, body = ask(server, "POST", "/new", {}, **{TOKEN_HEADER: server.token})
    assert status == 200 and json.loads(body) == {"dealt": True}
    view = json.loads(ask(server, "GET", f"/state?after={first.version}")[2])
    assert view["version"] > first.version and view["can_deal"]
    assert next_view(server.game, 0)["facts"]["seed"] == 5
