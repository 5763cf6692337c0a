"""The HTTP side of `pillbox table`: the page, its script and style, the game's view, answers,
undo and the record.

GET `/` (the page), `/table.js`, `/table.css`, `/state?after=N` (the view of the game, waiting
up to `POLL_SECONDS` for one newer than N) and `/record.json` (the game's record, once it has
ended). POST `/answer` (`{"question": number, "choice": index}`) and `/undo` change the game,
and each must carry the table's token in the `X-Table-Token` header: a random token written
into the page, which another page open in the same browser cannot read, so it cannot post to
127.0.0.1 in the player's name (and a header of its own makes a browser ask first, which this
server never grants). Anything else is 404. `server.py` of `serve` serves the app with its
guards (Host check, deadlines, the cap on connections, security headers).
"""

from __future__ import annotations

import asyncio
import json
import secrets
import threading
from importlib import resources
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from compiler.report.report import template_environment
from compiler.serve.server import HOST, LocalServer, bind
from compiler.table.conductor import NotAsked, TableGame

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


def table_app(game: TableGame, token: str, closing: threading.Event) -> Starlette:
    """The table's routes for one game, its POSTs guarded by `token`; a `/state` waiting
    for a newer view answers at once when `closing` is set."""
    page_text = (
        template_environment("compiler.table")
        .get_template("table.html")
        .render(title=game.facts.title, pack=game.facts.pack, token=token)
    )
    script, style = _asset("table.js"), _asset("table.css")

    async def page(request: Request) -> Response:
        return Response(page_text, media_type="text/html; charset=utf-8", headers=_PAGE_HEADERS)

    async def js(request: Request) -> Response:
        return Response(script, media_type="text/javascript; charset=utf-8")

    async def css(request: Request) -> Response:
        return Response(style, media_type="text/css; charset=utf-8")

    async def state(request: Request) -> Response:
        try:
            after = int(request.query_params.get("after", "-1"))
        except ValueError:
            return PlainTextResponse("after: a number", status_code=400)
        waited = 0.0
        while game.version <= after and waited < POLL_SECONDS and not closing.is_set():
            await asyncio.sleep(TICK_SECONDS)
            waited += TICK_SECONDS
        return JSONResponse(game.view(), headers={"Cache-Control": "no-store"})

    async def answer(request: Request) -> Response:
        body = await _guarded(request, token)
        if isinstance(body, Response):
            return body
        number, choice = body.get("question"), body.get("choice")
        if not (isinstance(number, int) and isinstance(choice, int)) or _flag(number, choice):
            return PlainTextResponse("question and choice: whole numbers", status_code=400)
        try:
            game.answer(number, choice)
        except NotAsked as error:
            return PlainTextResponse(str(error), status_code=409)
        return JSONResponse({"answered": number})

    async def undo(request: Request) -> Response:
        body = await _guarded(request, token)
        if isinstance(body, Response):
            return body
        # An undo replays the game to the question taken back: not in the event loop.
        undone = await asyncio.to_thread(game.undo)
        return JSONResponse({"undone": undone})

    async def record(request: Request) -> Response:
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
        Route("/{path:path}", not_found),
    ]
    return Starlette(routes=routes)


def _flag(*values: Any) -> bool:
    """Whether any is a bool, which JSON's true and false become (a bool is an int)."""
    return any(isinstance(value, bool) for value in values)


async def _guarded(request: Request, token: str) -> dict[str, Any] | Response:
    """The JSON body of a POST that carries the table's token; else the refusal to send."""
    given = request.headers.get(TOKEN_HEADER, "")
    if not secrets.compare_digest(given.encode(), token.encode()):
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
    return data


class TableServer(LocalServer):
    """The table's server on 127.0.0.1: the port bound at once (OSError if taken)."""

    def __init__(self, game: TableGame, port: int, token: str | None = None) -> None:
        self.token = token or secrets.token_urlsafe(24)
        self.closing = threading.Event()
        super().__init__(table_app(game, self.token, self.closing), bind(port, HOST))
        self.game = game

    def stop(self) -> None:
        """End the waiting requests, then the server."""
        self.closing.set()
        super().stop()
