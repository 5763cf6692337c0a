"""The HTTP side of `pillbox table`: the page, its script and style, the game's view, answers,
undo, new games, stepping through a record, and the record.

GET `/` (the page), `/table.js`, `/table.css`, `/state?after=N` (the view of the game, waiting
up to `POLL_SECONDS` for one newer than N) and `/record.json` (the game's record, once it has
ended). POST `/answer` (`{"question": number, "choice": index}`), `/undo`, `/new` (the next
game) and `/step` (`{"to": move}`, in a record) change the game, and each must carry the
table's token in the `X-Table-Token` header: a random token written into the page, which
another page open in the same browser cannot read, so it cannot post in the player's name (and
a header of its own makes a browser ask first, which this server never grants). At a shared
table (`--share`) every request but the script and style must carry a seat's join code (in
that header, or as `?join=` in a link): without one, or with a wrong one, it gets 403 and
nothing of the game; with one, it sees that seat's view and acts for that seat alone (the
codes: `compiler.table.share`). Anything else is 404. `server.py` of `serve` serves the app
with its guards (Host check, deadlines, the cap on connections, security headers).
"""

from __future__ import annotations

import asyncio
import json
import threading
from importlib import resources
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from compiler.report.report import template_environment
from compiler.serve.server import HOST, LocalServer, bind
from compiler.table.conductor import NotAsked, NotYours
from compiler.table.session import AtTable, Session
from compiler.table.share import EVERY_SEAT, Access, Presence, names_of

POLL_SECONDS = 8.0
"""How long `/state` waits for a newer view before it answers with the one it has."""

TICK_SECONDS = 0.05
"""How often a waiting `/state` looks for a newer view."""

MAX_BODY = 4_096
"""The most a POST's body may hold: an answer is a few dozen bytes."""

TOKEN_HEADER = "x-table-token"

POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
"""The page's Content Security Policy: its own script, style and fetches only."""

_PAGE_HEADERS = {"Cache-Control": "no-store", "Content-Security-Policy": POLICY}


def _asset(name: str) -> str:
    return resources.files("compiler.table").joinpath("templates", name).read_text("utf-8")


def table_app(
    session: Session, access: Access, closing: threading.Event, presence: Presence
) -> Starlette:
    """The table's routes for its session's games, its requests admitted by `access`; a
    `/state` waiting for a newer view answers at once when `closing` is set."""
    first = session.game.facts
    template = template_environment("compiler.table").get_template("table.html")
    pages = {
        seat: template.render(
            title=first.title, pack=first.pack, token=code, shared=access.is_shared
        )
        for seat, code in access.codes.items()
    }
    script, style = _asset("table.js"), _asset("table.css")
    refused = "a join code is needed: open the link your seat was given"

    def seat_of(request: Request, query: bool) -> int | None:
        """The seat a request acts for (EVERY_SEAT at one screen), or None if refused."""
        given = request.headers.get(TOKEN_HEADER) or (
            request.query_params.get("join", "") if query else ""
        )
        return access.seat_of(given)

    def looker(request: Request) -> int | None:
        """Who may look: anyone at one screen (127.0.0.1), a seat's code at a shared table."""
        return seat_of(request, query=True) if access.is_shared else EVERY_SEAT

    async def page(request: Request) -> Response:
        seat = looker(request)
        if seat is None:
            return PlainTextResponse(refused, status_code=403)
        return Response(pages[seat], media_type="text/html; charset=utf-8", headers=_PAGE_HEADERS)

    async def js(request: Request) -> Response:
        return Response(script, media_type="text/javascript; charset=utf-8")

    async def css(request: Request) -> Response:
        return Response(style, media_type="text/css; charset=utf-8")

    async def state(request: Request) -> Response:
        seat = looker(request)
        if seat is None:
            return PlainTextResponse(refused, status_code=403)
        try:
            after = int(request.query_params.get("after", "-1"))
        except ValueError:
            return PlainTextResponse("after: a number", status_code=400)
        if access.is_shared:
            presence.seen(seat)
        here = presence.present()
        waited = 0.0
        while (
            session.game.version <= after
            and waited < POLL_SECONDS
            and not closing.is_set()
            and presence.present() == here
        ):
            await asyncio.sleep(TICK_SECONDS)
            waited += TICK_SECONDS
        game = session.game
        view = game.view(None if seat == EVERY_SEAT else seat)
        said = {
            **view,
            "you": None if seat == EVERY_SEAT else seat,
            "present": presence.present() if access.is_shared else None,
            "can_deal": session.can_deal,
            "pack_note": session.note(),
        }
        return JSONResponse(said, headers={"Cache-Control": "no-store"})

    async def answer(request: Request) -> Response:
        body = await _guarded(request, access)
        if isinstance(body, Response):
            return body
        seat, data = body
        number, choice = data.get("question"), data.get("choice")
        if not (isinstance(number, int) and isinstance(choice, int)) or _flag(number, choice):
            return PlainTextResponse("question and choice: whole numbers", status_code=400)
        try:
            session.game.answer(number, choice, None if seat == EVERY_SEAT else seat)
        except NotYours as error:
            return PlainTextResponse(str(error), status_code=403)
        except NotAsked as error:
            return PlainTextResponse(str(error), status_code=409)
        return JSONResponse({"answered": number})

    async def undo(request: Request) -> Response:
        body = await _guarded(request, access)
        if isinstance(body, Response):
            return body
        seat, _ = body
        game = session.game
        # An undo replays the game to the question taken back: not in the event loop.
        undone = await asyncio.to_thread(game.undo, None if seat == EVERY_SEAT else seat)
        return JSONResponse({"undone": undone})

    async def new(request: Request) -> Response:
        body = await _guarded(request, access)
        if isinstance(body, Response):
            return body
        dealt = await asyncio.to_thread(session.new_game)
        return JSONResponse({"dealt": dealt})

    async def step(request: Request) -> Response:
        body = await _guarded(request, access)
        if isinstance(body, Response):
            return body
        to = body[1].get("to")
        if not isinstance(to, int) or _flag(to):
            return PlainTextResponse("to: a whole number", status_code=400)
        return JSONResponse({"stepped": session.game.step(to)})

    async def record(request: Request) -> Response:
        if looker(request) is None:
            return PlainTextResponse(refused, status_code=403)
        game = session.game
        made = game.record()
        if made is None:
            return PlainTextResponse("the game has not ended yet", status_code=409)
        name = f"{game.facts.pack.rstrip('/').rsplit('/', 1)[-1] or 'table'}-{game.seed}.json"
        safe = "".join(c if c.isalnum() or c in "-_." else "-" for c in name)
        return Response(
            made.to_text(),
            media_type="application/json; charset=utf-8",
            headers={"Content-Disposition": f'attachment; filename="{safe}"'},
        )

    async def not_found(request: Request) -> Response:
        return PlainTextResponse("no such page", status_code=404)

    routes = [
        Route("/", page, methods=["GET"]),
        Route("/table.js", js, methods=["GET"]),
        Route("/table.css", css, methods=["GET"]),
        Route("/state", state, methods=["GET"]),
        Route("/record.json", record, methods=["GET"]),
        Route("/answer", answer, methods=["POST"]),
        Route("/undo", undo, methods=["POST"]),
        Route("/new", new, methods=["POST"]),
        Route("/step", step, methods=["POST"]),
        Route("/{path:path}", not_found),
    ]
    return Starlette(routes=routes)


def _flag(*values: Any) -> bool:
    """Whether any is a bool, which JSON's true and false become (a bool is an int)."""
    return any(isinstance(value, bool) for value in values)


async def _guarded(request: Request, access: Access) -> tuple[int, dict[str, Any]] | Response:
    """The seat a POST acts for (by the token or join code in its header) and its JSON body;
    else the refusal to send."""
    seat = access.seat_of(request.headers.get(TOKEN_HEADER, ""))
    if seat is None:
        return PlainTextResponse("the table's token is missing or wrong", status_code=403)
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        return PlainTextResponse("send JSON", status_code=415)
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            return PlainTextResponse("too large", status_code=413)
    try:
        data = json.loads(body or b"{}")
    except (ValueError, RecursionError):
        return PlainTextResponse("not JSON", status_code=400)
    if not isinstance(data, dict):
        return PlainTextResponse("a JSON object, please", status_code=400)
    return seat, data


class TableServer(LocalServer):
    """The table's server, on 127.0.0.1 unless told another address: the port bound at once
    (OSError if it cannot be had)."""

    def __init__(
        self,
        session: Session,
        port: int,
        access: Access | None = None,
        address: str = HOST,
    ) -> None:
        self.session = session
        self.access = access or Access.one_screen()
        self.closing = threading.Event()
        self.presence = Presence()
        self.names = names_of(address) if address != HOST else []
        app = table_app(session, self.access, self.closing, self.presence)
        super().__init__(app, bind(port, address), [*self.names, HOST])

    @property
    def game(self) -> AtTable:
        """The game on the table now."""
        return self.session.game

    @property
    def token(self) -> str:
        """The one screen's token (at a shared table, there is none)."""
        return self.access.codes.get(EVERY_SEAT, "")

    def links(self) -> list[tuple[int, str]]:
        """Each shared seat's link (0-based seat, address with its join code)."""
        where = self.names[0] if self.names else self.host
        return [
            (seat, f"http://{where}:{self.port}/?join={code}")
            for seat, code in sorted(self.access.codes.items())
            if seat != EVERY_SEAT
        ]

    def stop(self) -> None:
        """End the waiting requests, then the server."""
        self.closing.set()
        super().stop()
