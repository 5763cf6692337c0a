"""`pillbox table --share`: a join code per human seat admits a browser, and only as that
seat. Without a code, or with a wrong one, every page of the game is refused (403, nothing of
the game in it); with one seat's code, another seat's hidden cards stay face down in the view,
its question cannot be answered and its answer cannot be taken back. The codes are compared in
constant time, against every code. All in this process, over HTTP."""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from click.testing import CliRunner

from compiler.cli import main
from compiler.errors import UsageError
from compiler.render import plain
from compiler.table import share
from compiler.table.app import TOKEN_HEADER, TableServer
from compiler.table.conductor import TableGame
from compiler.table.run import TableRequest, open_table
from compiler.table.session import Session
from compiler.table.share import Access, share_address
from compiler.table.view import asked_on_the_page, log_on_the_page
from tests.test_table import COOL, WARD, _player, ask, pack_of, table_game

SEATS = ("human", "human")


def seat_view(game: Any, seat: int, after: int) -> dict[str, Any]:
    """The first view of `seat` newer than `after` that asks a person."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        view: dict[str, Any] = game.view(seat)
        if view["version"] > after and (view.get("question") or {}).get("human"):
            return view
        time.sleep(0.002)
    raise AssertionError("the table asked nothing within 30 s")


@pytest.fixture
def shared() -> Iterator[TableServer]:
    game = table_game(WARD, 259, SEATS)
    game.apart = (0, 1)
    server = TableServer(Session(game, anytime=False), 0, Access.shared([0, 1]))
    game.start()
    server.start()
    seat_view(game, 0, 0)
    yield server
    server.stop()
    game.stop()


def code(server: TableServer, seat: int) -> dict[str, str]:
    return {TOKEN_HEADER: server.access.code_of(seat)}


def hidden_titles(server: TableServer, seat: int) -> set[str]:
    """The titles of the cards dealt face down that `seat` holds."""
    actor = _player(server.game, seat)  # type: ignore[arg-type]
    hidden = pack_of(WARD).rules.hidden
    return {c.definition.title for c in [*actor.items, *actor.owned] if c.definition.kind in hidden}


def test_without_a_code_or_with_a_wrong_one_nothing_of_the_game_is_sent(
    shared: TableServer,
) -> None:
    for headers in ({}, {TOKEN_HEADER: "wrong"}, {TOKEN_HEADER: ""}):
        for path in ("/", "/state?after=-1", "/record.json", "/?join=wrong"):
            status, _, body = ask(shared, "GET", path, **headers)
            assert status == 403, (path, headers)
            assert body == b"a join code is needed: open the link your seat was given"
        for path, posted in (("/answer", {"question": 1, "choice": 0}), ("/undo", {})):
            assert ask(shared, "POST", path, posted, **headers)[0] == 403
        assert ask(shared, "POST", "/new", {}, **headers)[0] == 403
    assert shared.game.view(0)["moves"] == 0  # nothing answered
    # the script and style are pillbox's own files, the same for everyone: no game in them
    assert ask(shared, "GET", "/table.js")[0] == 200
    # a seat's link admits it, its code written into its page
    join = shared.access.code_of(1)
    status, _, page = ask(shared, "GET", f"/?join={join}")
    assert status == 200 and join.encode() in page
    assert shared.access.code_of(0).encode() not in page
    # the record's link carries the code too (an anchor sends no header): not over yet
    assert ask(shared, "GET", f"/record.json?join={join}")[0] == 409


def test_a_seat_sees_only_its_own_hidden_cards(shared: TableServer) -> None:
    mine, theirs = hidden_titles(shared, 1), hidden_titles(shared, 0)
    assert mine and theirs and not mine & theirs
    status, _, body = ask(shared, "GET", "/state?after=-1", **code(shared, 1))
    assert status == 200
    view = json.loads(body)
    assert view["you"] == 1 and view["seeing"] == 1
    text = body.decode()
    assert all(title not in text for title in theirs)  # nowhere: seats, log, question
    assert all(title in text for title in mine)
    down = [c for c in view["seats"][0]["cards"] if c["hidden"]]
    assert down and all(c["title"] is None for c in down)
    # and the other way round
    body = ask(shared, "GET", "/state?after=-1", **code(shared, 0))[2]
    assert all(title not in body.decode() for title in mine)


def test_a_seat_cannot_act_for_another(shared: TableServer) -> None:
    view = shared.game.view(0)
    question = view["question"]
    assert question["seat"] == 0 and question["human"]
    answer = {"question": question["number"], "choice": 0}
    status, _, said = ask(shared, "POST", "/answer", answer, **code(shared, 1))
    assert status == 403 and b"seat 1's" in said
    assert shared.game.view(0)["moves"] == 0
    assert ask(shared, "POST", "/answer", answer, **code(shared, 0))[0] == 200
    after = seat_view(shared.game, 0, view["version"])
    assert after["moves"] == 1
    # seat 2 cannot take seat 1's answer back; seat 1 can
    assert json.loads(ask(shared, "POST", "/undo", {}, **code(shared, 1))[2]) == {"undone": False}
    assert not shared.game.view(1)["undoable"] and shared.game.view(0)["undoable"]
    assert json.loads(ask(shared, "POST", "/undo", {}, **code(shared, 0))[2]) == {"undone": True}
    # a new game is not dealt while this one is played
    assert json.loads(ask(shared, "POST", "/new", {}, **code(shared, 1))[2]) == {"dealt": False}


def test_the_page_says_who_is_connected(shared: TableServer) -> None:
    ask(shared, "GET", "/state?after=-1", **code(shared, 0))
    view = json.loads(ask(shared, "GET", "/state?after=-1", **code(shared, 1))[2])
    assert view["present"] == [0, 1]


def test_codes_are_compared_in_constant_time_with_every_code(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    access = Access.shared([0, 2, 3])
    assert len(set(access.codes.values())) == 3
    assert all(len(c) >= 16 for c in access.codes.values())
    compared: list[tuple[str, str]] = []

    def counting(given: str, known: str) -> bool:
        compared.append((given, known))
        return secrets.compare_digest(given.encode(), known.encode())

    monkeypatch.setattr(share, "compare_digest", counting)
    first = access.code_of(0)
    assert access.seat_of(first) == 0 and len(compared) == 3  # no stop at the match
    assert access.seat_of("nope") is None and len(compared) == 6
    assert not access.is_shared or access.seat_of(Access.one_screen().code_of(-1)) is None


def test_share_is_asked_for_and_checked(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="not an IPv4 address"):
        share_address("my-laptop")
    with pytest.raises(UsageError, match="IPv4 address only"):
        share_address("::1")
    runner = CliRunner()
    result = runner.invoke(main, ["table", str(COOL), "--share", "nowhere", "--port", "0"])
    assert result.exit_code == 2 and "--share nowhere: not an IPv4 address" in result.output
    assert "Traceback" not in result.output
    seats = ["--seats", "random,random"]
    result = runner.invoke(main, ["table", str(COOL), "--share", *seats, "--port", "0"])
    assert result.exit_code == 2 and "no seat is a person's" in result.output
    # opted in on an address, the links carry a code a seat
    request = TableRequest(str(WARD), 259, seats=SEATS, port=0, share="127.0.0.1")
    opened = open_table(WARD, None, request, lambda _: None, plain)
    assert opened is not None
    game, server = opened.game, opened.server
    try:
        links = server.links()
        assert [seat for seat, _ in links] == [0, 1]
        for seat, link in links:
            assert link.startswith(f"http://127.0.0.1:{server.port}/?join=")
            assert link.endswith(server.access.code_of(seat))
        assert isinstance(game, TableGame) and game.apart == (0, 1)
        assert server.access.is_shared
    finally:
        server.listener.close()


def test_the_tables_own_notes_keep_hidden_titles_face_down() -> None:
    game = SimpleNamespace(log=SimpleNamespace(events=[]))
    note = "undo: seat 2's answer 'Fresh Air' to 'use \"Fresh Air\"?' taken back"
    shown = log_on_the_page(game, [(0, note), (5, note)], {"Fresh Air"})  # type: ignore[arg-type]
    assert [line["text"] for line in shown["lines"]] == [
        "undo: seat 2's answer '(face down)' to 'use (face down)?' taken back"
    ] * 2


def test_a_question_keeps_hidden_titles_face_down() -> None:
    question = {
        "number": 3,
        "seat": 1,
        "kind": "may",
        "prompt": 'use "Fresh Air" now?',
        "choices": ["yes, Fresh Air", "no"],
        "card": "Fresh Air",
        "human": False,
    }
    shown = asked_on_the_page(question, {"Fresh Air"})
    assert shown is not None and "Fresh Air" not in json.dumps(shown)
    assert shown["card"] == "(face down)" and shown["choices"][1] == "no"
    assert asked_on_the_page(question, set()) == question
