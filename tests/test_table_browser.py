"""`pillbox table` in a real browser: Playwright drives Debian's Chromium through a whole
two-seat game of Coma Ward (a person in seat 1 clicking the first answer, `random` in seat 2),
undoes an answer on the way, downloads the record and replays it to the same end. One browser
launch, the server in this process. With PILLBOX_TABLE_SCREENSHOTS=1 its screenshots (the
start, mid-game, the end) are written to docs/images/ for docs/table.md.
Skipped, saying why, where there is no Chromium (as tests/test_report_browser.py is)."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from compiler.cli import main
from compiler.play.game import GameRequest, settle, whole_rules
from compiler.table.app import TableServer
from compiler.table.conductor import TableGame
from compiler.table.session import Session
from compiler.table.share import Access
from compiler.table.stepping import RecordedGame
from runtime.policies.view import face_down
from tests.conftest import ROOT
from tests.test_report_browser import BROWSER
from tests.test_serve_browser import CHROMIUM_ARGS
from tests.test_table import WARD, a_record, pack_of

pytestmark = pytest.mark.skipif(
    BROWSER is None,
    reason="no headless Chromium on this machine: `apt-get install chromium` (as .ci/run does)",
)

SEED = 259
"""A won game: seat 1 answering every question with its first answer wins, in 60 answers (16
when the seed was chosen; docs/table.md and its screenshots are of this game)."""
LOBOTOMY_SEED = 10
"""A short Lobotomy game of three characters (the rulebook's fewest), seat 1 answering first
every time beside two random seats: about ten answers of seat 1's."""

WAIT_S = 20.0
UNDO_AFTER = 3
MID_AT = 9
IMAGES = ROOT / "docs" / "images"
LOBOTOMY = ROOT / "content" / "lobotomy"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One Chromium for the module (a launch costs a second or so); each test opens its own
    context, with its own cookies, storage and downloads."""
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=BROWSER, args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


def until(page: Any, expression: str) -> None:
    """Wait until the expression is true on the page (polled through `evaluate`, which the
    page's Content Security Policy lets through)."""
    started = time.monotonic()
    while not page.evaluate(expression):
        if time.monotonic() - started > WAIT_S:
            raise AssertionError(f"not within {WAIT_S} s: {expression}")
        time.sleep(0.01)


ASKED = "document.querySelector('#ask.human .choice:not([disabled])') !== null"
OVER = "document.body.dataset.status === 'over'"


def asked_or_over(page: Any) -> bool:
    until(page, f"({ASKED}) || ({OVER})")
    return not page.evaluate(OVER)


def number(page: Any) -> int:
    return int(page.evaluate("document.getElementById('ask').dataset.number"))


def play_in_page(
    browser: Any,
    folder: Path,
    seats: list[str],
    seed: int,
    tmp_path: Path,
    shots: Path | None = None,
) -> tuple[Path, str]:
    """Play a whole game of the pack in Chromium, seat 1 clicking the first answer every
    time and undoing its third; the record downloaded, and the end's headline."""
    pack = pack_of(folder)
    table = settle(whole_rules(pack), GameRequest(str(folder), seed, seats=seats))
    # named as a designer would type it, from the repository's folder
    game = TableGame(pack, table, seed, f"content/{folder.name}", pace=0)
    server = TableServer(Session(game), 0)
    game.start()
    server.start()
    try:
        try:
            page = browser.new_page(viewport={"width": 1440, "height": 940})
            problems: list[str] = []
            page.on("console", lambda message: problems.append(message.text))
            page.on("pageerror", lambda error: problems.append(str(error)))
            page.goto(server.url)
            assert asked_or_over(page)
            assert page.locator("#undo").is_disabled()
            if shots:
                page.screenshot(path=str(shots / "table-start.png"))
            answers = 0
            while asked_or_over(page):
                asked = number(page)
                page.locator("#ask.human .choice").first.click()
                answers += 1
                if answers == UNDO_AFTER:
                    until(page, "!document.getElementById('undo').disabled")
                    page.locator("#undo").click()
                    until(page, "document.querySelector('#log .k-table') !== null")
                    assert asked_or_over(page) and number(page) == asked
                    assert "taken back" in page.locator("#log .k-table").last.inner_text()
                    continue
                elif answers == MID_AT and shots:
                    assert asked_or_over(page)
                    page.screenshot(path=str(shots / "table-mid.png"))
                until(page, f"document.getElementById('ask').dataset.number != '{asked}'")
            headline = page.locator("#ask-prompt").inner_text()
            if shots:
                page.screenshot(path=str(shots / "table-end.png"))
            with page.expect_download() as download:
                page.locator("#record").click()
            record = tmp_path / f"{folder.name}.json"
            download.value.save_as(record)
            assert not problems, problems
        finally:
            for context in browser.contexts:  # this test's own
                context.close()
    finally:
        server.stop()
        game.stop()
    return record, headline


def test_a_whole_game_is_played_undone_and_recorded_in_chromium(
    browser: Any, tmp_path: Path
) -> None:
    shots = IMAGES if os.environ.get("PILLBOX_TABLE_SCREENSHOTS") else tmp_path
    record, headline = play_in_page(browser, WARD, ["human", "random"], SEED, tmp_path, shots)
    assert headline == "Won by player 1"
    result = CliRunner().invoke(main, ["replay", str(record), "--pack", str(WARD)])
    assert result.exit_code == 0, result.output
    assert "the same final state" in result.output


def test_a_seat_of_lobotomy_is_played_whole_in_chromium(browser: Any, tmp_path: Path) -> None:
    # whatever its rules say now: the game ends, and its record replays to the same end
    seats = ["human", "random", "random"]
    record, headline = play_in_page(browser, LOBOTOMY, seats, LOBOTOMY_SEED, tmp_path)
    assert headline
    result = CliRunner().invoke(main, ["replay", str(record), "--pack", str(LOBOTOMY)])
    assert result.exit_code == 0, result.output
    assert "the same final state" in result.output


def test_a_shared_table_admits_each_seat_by_its_code_alone(browser: Any) -> None:
    pack = pack_of(WARD)
    seats = ["human", "human"]
    table = settle(whole_rules(pack), GameRequest(str(WARD), SEED, seats=seats))
    game = TableGame(pack, table, SEED, "content/coma-ward", pace=0, apart=[0, 1])
    server = TableServer(Session(game, anytime=False), 0, Access.shared([0, 1]))
    links = dict(server.links())
    game.start()
    server.start()
    theirs = {c.definition.title for c in _hidden_cards(game, 0)}
    mine = {c.definition.title for c in _hidden_cards(game, 1)}
    try:
        try:
            first = browser.new_context().new_page()
            first.goto(links[0])
            assert asked_or_over(first)  # seat 1 is asked first
            second = browser.new_context(viewport={"width": 1440, "height": 940}).new_page()
            second.goto(links[1])
            until(second, "document.querySelectorAll('.tag.here').length === 2")
            if os.environ.get("PILLBOX_TABLE_SCREENSHOTS"):
                second.screenshot(path=str(IMAGES / "table-shared.png"))
            text = second.locator("body").inner_text()
            assert "is deciding, at their own screen" in text
            assert "connected: seat 1, seat 2 (you)" in text
            assert all(title not in text for title in theirs)
            assert all(title in text for title in mine)
            assert second.locator("#choices button:not([disabled])").count() == 0
            # a browser with no code, or a wrong one, gets nothing of the game
            stranger = browser.new_context().new_page()
            for url in (server.url, f"{server.url}?join=wrong"):
                response = stranger.goto(url)
                assert response is not None and response.status == 403
                assert "Coma Ward" not in stranger.locator("body").inner_text()
            state = stranger.request.get(f"{server.url}state?after=-1")
            assert state.status == 403 and "seat" not in state.text().split(":")[0]
            # seat 2's browser cannot answer seat 1's question, even by hand
            answered = second.evaluate(
                """async () => (await fetch('/answer', {method: 'POST', headers: {
                    'Content-Type': 'application/json',
                    'X-Table-Token': document.querySelector('meta[name=table-token]').content},
                    body: JSON.stringify({question: 1, choice: 0})})).status"""
            )
            assert answered == 403
            first.locator("#ask.human .choice").first.click()
            until(first, "document.getElementById('ask').dataset.number !== '1'")
        finally:
            for context in browser.contexts:  # this test's own
                context.close()
    finally:
        server.stop()
        game.stop()


def _hidden_cards(game: TableGame, seat: int) -> list[Any]:
    deadline = time.monotonic() + WAIT_S
    while game._run is None or game._run.game is None:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    actor = game._run.game.state.players[seat]
    return [c for c in [*actor.items, *actor.owned] if face_down(game._run.game, c)]


def test_a_record_is_stepped_through_in_the_page(browser: Any) -> None:
    record = a_record(WARD, SEED)
    pack = pack_of(WARD)
    table = settle(whole_rules(pack), GameRequest(str(WARD), SEED, seats=record.seats))
    steps = RecordedGame(pack, table, record, "content/coma-ward")
    server = TableServer(Session(steps), 0)
    server.start()
    at = "document.getElementById('at').textContent"
    try:
        try:
            page = browser.new_page()
            page.goto(server.url)
            of = len(record.moves)
            until(page, f"{at} === 'move 0 of {of}'")
            assert page.locator("#undo").is_hidden() and page.locator("#back").is_disabled()
            assert page.locator("#ask-prompt").inner_text() == record.moves[0].prompt
            picked = page.locator("#choices .choice.picked")
            assert picked.inner_text() == record.moves[0].answer
            page.locator("#forward").click()
            until(page, f"{at} === 'move 1 of {of}'")
            page.locator("#forward").click()
            until(page, f"{at} === 'move 2 of {of}'")
            assert page.locator("#ask-prompt").inner_text() == record.moves[2].prompt
            page.locator("#back").click()
            until(page, f"{at} === 'move 1 of {of}'")
            assert page.locator("#choices .choice:not([disabled])").count() == 0
            # the last step is the end, every card face up
            steps.step(of)
            until(page, OVER)
            assert "face down" not in page.locator("#seats").inner_text()
            assert page.locator("#forward").is_disabled()
        finally:
            for context in browser.contexts:  # this test's own
                context.close()
    finally:
        server.stop()
