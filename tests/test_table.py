"""`pillbox table`: the game at the table (answers, undo, the record that replays), what the
page is shown of it (hidden cards face down), the board's layout, and the server's guards
(Host check, the token a POST needs, 404s), all in this process."""

from __future__ import annotations

import http.client
import json
import re
import time
from collections.abc import Iterator
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from compiler.build import CompiledPack
from compiler.cli import main
from compiler.play.game import GameRequest, play_whole, record_of, settle, whole_rules
from compiler.play.records import Record, parse_record, state_digest
from compiler.ruleset import load_ruleset
from compiler.serve.server import bind
from compiler.table.app import TOKEN_HEADER, TableServer
from compiler.table.board import layout
from compiler.table.conductor import NotAsked, TableGame
from compiler.table.session import AtTable, Session
from compiler.table.share import Access
from compiler.table.stepping import RecordedGame
from compiler.table.view import TableFacts, game_view, said_on_the_page
from runtime.datagame import whole_game_of
from tests.conftest import ROOT
from tests.helpers import compiled, make_pack

COOL = ROOT / "content" / "cool-name"
WARD = ROOT / "content" / "coma-ward"
WAIT = 30.0


@cache
def pack_of(folder: Path) -> CompiledPack:
    return compiled(folder)


def table_game(folder: Path, seed: int, seats: tuple[str, ...] = ("human", "random")) -> TableGame:
    pack = pack_of(folder)
    table = settle(whole_rules(pack), GameRequest(str(folder), seed, seats=seats))
    return TableGame(pack, table, seed, str(folder), pace=0)


def next_view(game: AtTable, after: int) -> dict[str, Any]:
    """The first view newer than `after` that asks a person, or ends the game."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        view = game.view()
        question = view.get("question")
        if view["version"] > after and (
            view["status"] == "over" or (question and question["human"])
        ):
            return view
        time.sleep(0.002)
    raise AssertionError("the table asked nothing within 30 s")


def play_out(game: TableGame, undo_after: int | None = None) -> dict[str, Any]:
    """Answer every human question with its first answer to the end; undo once, if asked,
    after that many answers (and answer the question again)."""
    view = next_view(game, 0)
    answered = 0
    while view["status"] != "over":
        game.answer(view["question"]["number"], 0)
        answered += 1
        if answered == undo_after:
            before = view["question"]["number"]
            assert game.undo()
            view = next_view(game, game.version - 1)
            assert view["question"]["number"] == before
            said = [line["text"] for line in view["log"]["lines"] if line["kind"] == "table"]
            assert said and said[-1].startswith("undo: seat 1's answer"), said
            continue
        view = next_view(game, view["version"])
    return view


@pytest.fixture
def started() -> Iterator[list[TableGame]]:
    games: list[TableGame] = []
    yield games
    for game in games:
        game.stop()


def test_a_whole_game_at_the_table_records_what_replay_plays_back(
    started: list[TableGame],
) -> None:
    game = table_game(COOL, 4)
    started.append(game)
    game.start()
    view = play_out(game)
    assert view["outcome"]["text"].startswith("outcome after the game:")
    record = game.record()
    assert record is not None and record.seats == ("human", "random")
    # the record is the format `play --game --record` writes: `replay` plays it to its end
    again, _ = parse_record(record.to_text().encode(), "table.json")
    pack = pack_of(COOL)
    table = settle(whole_rules(pack), GameRequest(str(COOL), again.seed, seats=again.seats))
    replayed = play_whole(pack, table, again.seed, replay=again)
    assert replayed.diverged is None and replayed.problem is None
    assert state_digest(replayed.game) == record.final


def test_undo_takes_back_the_last_human_answer_and_says_so(started: list[TableGame]) -> None:
    plain = table_game(WARD, 259)
    undone = table_game(WARD, 259)
    started += [plain, undone]
    plain.start()
    undone.start()
    end = play_out(plain)
    end_undone = play_out(undone, undo_after=3)
    # answered again as before, the game goes on as it went: the same end, the same record
    first, second = plain.record(), undone.record()
    assert first is not None and second is not None
    assert first.final == second.final and first.moves == second.moves
    assert end["outcome"] == end_undone["outcome"]


def test_an_answer_must_be_to_the_question_asked(started: list[TableGame]) -> None:
    game = table_game(COOL, 4)
    started.append(game)
    assert not game.undo()  # no game yet
    game.start()
    view = next_view(game, 0)
    number = view["question"]["number"]
    with pytest.raises(NotAsked):
        game.answer(number + 1, 0)
    with pytest.raises(NotAsked):
        game.answer(number, len(view["question"]["choices"]))
    assert not game.undo()  # nothing answered yet
    assert game.record() is None  # not over


def test_another_seats_hidden_cards_are_face_down_until_the_end(
    started: list[TableGame],
) -> None:
    game = table_game(WARD, 259)
    started.append(game)
    game.start()
    view = next_view(game, 0)
    mine, theirs = view["seats"]
    assert view["seeing"] == 0
    own = [c for c in mine["cards"] if c["hidden"]]
    down = [c for c in theirs["cards"] if c["hidden"]]
    assert own and all(c["title"] for c in own)
    assert down and all(c["title"] is None and not c["tokens"] for c in down)
    pack = pack_of(WARD)
    secret = {
        c.definition.title
        for c in [*_player(game, 1).items, *_player(game, 1).owned]
        if c.definition.kind in pack.rules.hidden
    }
    said = " ".join(line["text"] for line in view["log"]["lines"])
    assert secret and not any(title in said for title in secret)
    assert "(face down)" in said
    end = play_out(game)
    assert all(c["title"] for seat in end["seats"] for c in seat["cards"])


def test_a_hidden_card_the_game_has_shown_is_face_up_to_every_seat() -> None:
    """Coma Ward's quirks are shown when the phenomenon is revealed (`shown_when:`): after the
    prologue, the seat that sees finds another seat's quirk face up, and its title in the log."""
    pack = pack_of(WARD)
    whole = whole_game_of(pack.rules, pack.whole)
    game = whole.new_game(pack.rules, pack.cards, 4, 2)
    whole.play(game, whole.phases[0])
    seats = ("human", "random", "random", "random")
    facts = TableFacts("Ward", "ward", 2, seats, "end", None, {})
    view = game_view(facts, game, None, [], [], False, None, None, seat=0)
    quirks = [
        card for seat in view["seats"][1:] for card in seat["cards"] if card["kind"] == "quirk"
    ]
    assert quirks and all(card["title"] and not card["hidden"] for card in quirks)
    said = " ".join(line["text"] for line in view["log"]["lines"])
    assert all(card["title"] in said for card in quirks) and "(face down)" not in said


def _player(game: TableGame, seat: int) -> Any:
    run = game._run
    assert run is not None and run.game is not None
    return run.game.state.players[seat]


def test_no_variant_is_named_on_the_page() -> None:
    assert (
        said_on_the_page('draw event: event "Dark" variant 2', set()) == 'draw event: event "Dark"'
    )


def test_the_board_is_laid_out_with_every_place_apart() -> None:
    for name in ("coma-ward", "comanauts", "lobotomy"):
        board = load_ruleset(name).world.board
        drawn = layout(board)
        assert drawn is not None
        points = list(drawn.points.values())
        assert len(set(points)) == len(points), name
        for a, b in drawn.edges:
            assert b in board.neighbours(a)
    assert layout(load_ruleset("cool-name").world.board) is None
    ward = layout(load_ruleset("coma-ward").world.board)
    assert ward is not None
    assert [name for name, _, _ in ward.bands] == ["roof", "floor-3", "floor-2", "floor-1"]


# -- the server ----------------------------------------------------------------------------


@pytest.fixture
def served(started: list[TableGame]) -> Iterator[TableServer]:
    game = table_game(COOL, 4)
    started.append(game)
    server = TableServer(Session(game), 0, Access.one_screen("the-token"))
    game.start()
    server.start()
    yield server
    server.stop()


def ask(
    server: TableServer, method: str, path: str, body: Any = None, **headers: str
) -> tuple[int, dict[str, str], bytes]:
    connection = http.client.HTTPConnection(server.host, server.port, timeout=20)
    try:
        sent = {"Host": f"127.0.0.1:{server.port}", **headers}
        data = json.dumps(body).encode() if body is not None else None
        if data is not None:
            sent.setdefault("Content-Type", "application/json")
        connection.request(method, path, body=data, headers=sent)
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


def test_the_page_carries_its_token_and_policy(served: TableServer) -> None:
    status, headers, body = ask(served, "GET", "/")
    assert status == 200
    assert "script-src 'self'" in headers["content-security-policy"]
    assert "unsafe-inline" not in headers["content-security-policy"].split("style-src")[0]
    assert headers["x-frame-options"] == "DENY"
    assert re.search(rb'name="table-token" content="the-token"', body)
    assert b"<script>" not in body  # no inline script
    for asset in ("/table.js", "/table.css"):
        assert ask(served, "GET", asset)[0] == 200


def test_a_post_without_the_token_is_refused(served: TableServer) -> None:
    view = next_view(served.game, 0)
    number = view["question"]["number"]
    answer = {"question": number, "choice": 0}
    assert ask(served, "POST", "/answer", answer)[0] == 403
    assert ask(served, "POST", "/answer", answer, **{TOKEN_HEADER: "wrong"})[0] == 403
    assert ask(served, "POST", "/undo", {})[0] == 403
    plain = {TOKEN_HEADER: "the-token", "Content-Type": "text/plain"}
    assert ask(served, "POST", "/answer", answer, **plain)[0] == 415
    token = {TOKEN_HEADER: "the-token"}
    assert ask(served, "POST", "/answer", {"question": number + 5, "choice": 0}, **token)[0] == 409
    assert ask(served, "POST", "/answer", {"question": True, "choice": 0}, **token)[0] == 400
    assert served.game.view()["moves"] == view["moves"]  # nothing answered
    assert ask(served, "POST", "/answer", answer, **token)[0] == 200
    assert ask(served, "POST", "/undo", {}, **token)[0] == 200


def test_another_host_name_and_other_paths_get_nothing(served: TableServer) -> None:
    assert ask(served, "GET", "/", Host="evil.example:80")[0] == 421
    assert ask(served, "GET", "/state", Host="evil.example:80")[0] == 421
    for path in ("/../etc/passwd", "/nothing", "/templates/table.html", "/answer"):
        assert ask(served, "GET", path)[0] in (404, 405), path
    assert ask(served, "GET", "/record.json")[0] == 409  # not over yet
    status, _, body = ask(served, "GET", "/state?after=-1")
    assert status == 200 and json.loads(body)["facts"]["title"]


def test_the_command_line_refuses_what_does_not_fit(tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(main, ["table", str(COOL), "--seats", "human,nobody", "--port", "0"])
    assert result.exit_code == 2 and "unknown seat 'nobody'" in result.output
    cards_only = make_pack(tmp_path / "base", "pack: t\ntitle: T\nversion: 0.1.0\nruleset: base\n")
    result = runner.invoke(main, ["table", str(cards_only), "--port", "0"])
    assert result.exit_code == 2 and "single cards only" in result.output
    result = runner.invoke(main, ["table", str(COOL), "--players", "9", "--port", "0"])
    assert result.exit_code == 2 and "--players 9" in result.output
    taken = bind(0)
    try:
        port = str(taken.getsockname()[1])
        result = runner.invoke(main, ["table", str(COOL), "--port", port])
    finally:
        taken.close()
    assert result.exit_code == 2 and f"--port {port}: cannot listen" in result.output


# -- a record stepped through ----------------------------------------------------------------


def a_record(folder: Path, seed: int, seats: tuple[str, ...] = ("random", "random")) -> Record:
    """The record of a game of the pack played by these policies."""
    pack = pack_of(folder)
    table = settle(whole_rules(pack), GameRequest(str(folder), seed, seats=seats))
    return record_of(pack, str(folder), play_whole(pack, table, seed), seed)


def test_a_record_is_stepped_through_move_by_move() -> None:
    record = a_record(COOL, 4)
    pack = pack_of(COOL)
    table = settle(whole_rules(pack), GameRequest(str(COOL), 4, seats=record.seats))
    steps = RecordedGame(pack, table, record, str(COOL))
    assert steps.problem is None
    first = steps.view()
    answer = record.moves[0].number - 1
    assert first["replay"] == {"answer": answer, "at": 0, "of": len(record.moves)}
    assert first["question"]["prompt"] == record.moves[0].prompt and first["moves"] == 0
    assert steps.step(2) and steps.view()["question"]["prompt"] == record.moves[2].prompt
    assert steps.view()["version"] == 1
    steps.step(10_000)
    end = steps.view()
    assert end["status"] == "over" and end["replay"]["at"] == len(record.moves)
    assert end["outcome"]["text"].startswith("outcome after the game:")
    assert steps.step(-5) and steps.view()["replay"]["at"] == 0
    assert not steps.undo() and steps.record() is record
    with pytest.raises(NotAsked):
        steps.answer(1, 0)
    # a record the pack no longer plays the same is shown up to where it parts
    tampered = replace(record, final="0" * 32)
    parted = RecordedGame(pack, table, tampered, str(COOL))
    assert parted.problem is not None and "no longer replays" in parted.problem
    parted.step(10_000)
    assert parted.view()["problem"] == parted.problem


def test_the_record_option_refuses_what_it_cannot_step_through(tmp_path: Path) -> None:
    runner = CliRunner()
    file = tmp_path / "game.json"
    file.write_text(a_record(COOL, 4).to_text(), encoding="utf-8")
    for extra, said in (
        (["--share"], "--record and --share"),
        (["--seats", "human,random"], "leave out --seats"),
    ):
        result = runner.invoke(main, ["table", str(COOL), "--record", str(file), *extra])
        assert result.exit_code == 2 and said in result.output, result.output
    result = runner.invoke(main, ["table", str(COOL), "--record", str(tmp_path / "none.json")])
    assert result.exit_code == 1 and "E0466" in result.output and "cannot read" in result.output
    result = runner.invoke(main, ["table", str(WARD), "--record", str(file), "--port", "0"])
    assert result.exit_code == 1 and "the record is a game of" in result.output
    assert "Traceback" not in result.output
