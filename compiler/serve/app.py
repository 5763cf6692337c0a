"""The HTTP side of `pillbox serve`: the pages of the latest snapshot, face pictures, events.

The app answers GET alone: `/` (the pack), `/card/<slug>` (a card), `/faces/<sha256>.png` (a
face picture, only a name the pictures folder gives, never a path), `/live.js` (pillbox's
script) and `/events`, a stream of server-sent events that says `update` with the generation
of each new snapshot. Anything else is 404. Pages are made in the server's worker threads, each
reading the snapshot published last, which is never changed once published; `server.py` serves
the app on 127.0.0.1 with its guards.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator
from importlib import resources
from pathlib import Path

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route

from compiler.serve.pages import LIVE_POLICY, SCRIPT, Snapshot
from compiler.serve.pictures import PICTURE_NAME
from compiler.serve.server import LocalServer, bind

KEEPALIVE_SECONDS = 15.0
"""An event stream says something this often, so a client gone away is noticed."""


class Published:
    """The latest snapshot, and the wake-up call the event streams wait on for the next.

    The snapshot is published from the thread that checks the pack; the streams wait in the
    server's event loop, which `attach` names, so a publish wakes them through that loop."""

    def __init__(self, snapshot: Snapshot, pictures: Path) -> None:
        self.snapshot = snapshot
        self.pictures = pictures
        self.closing = False
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._changed: asyncio.Event | None = None

    def publish(self, snapshot: Snapshot) -> None:
        """Show this snapshot from now on, and tell every event stream."""
        with self._lock:
            self.snapshot = snapshot
        self._wake()

    def close(self) -> None:
        """End every event stream."""
        self.closing = True
        self._wake()

    def _wake(self) -> None:
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._ring)

    def _ring(self) -> None:
        """In the loop: wake whoever waits now; later waiters wait for the next change."""
        if self._changed is not None:
            self._changed.set()
        self._changed = asyncio.Event()

    def waiter(self) -> asyncio.Event:
        """In the loop: the event the next publish sets."""
        if self._loop is None:
            self._loop = asyncio.get_running_loop()
        if self._changed is None:
            self._changed = asyncio.Event()
        return self._changed

    async def next_after(self, generation: int | None, seconds: float) -> int | None:
        """The generation of the snapshot after `generation`, waiting up to `seconds`; None if
        none came (or the server closes)."""
        waiter = self.waiter()
        if not self.closing and self.snapshot.generation == generation:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(waiter.wait(), seconds)
        if self.closing or self.snapshot.generation == generation:
            return None
        return self.snapshot.generation


def preview_app(published: Published) -> Starlette:
    """The preview's pages, pictures, script and events, from whatever is published."""

    async def page(request: Request) -> Response:
        path = request.url.path
        if path.startswith("/faces/"):
            return await run_in_threadpool(_picture, published.pictures, path[len("/faces/") :])
        snapshot = published.snapshot
        # A card page is made on its first request: in a worker thread, not the event loop.
        made = (
            snapshot.page(path)
            if snapshot.ready(path)
            else await run_in_threadpool(snapshot.page, path)
        )
        if made is None:
            return _not_found()
        return Response(made, media_type="text/html; charset=utf-8", headers=_PAGE_HEADERS)

    async def script(request: Request) -> Response:
        return Response(_SCRIPT_TEXT, media_type="text/javascript; charset=utf-8")

    async def events(request: Request) -> Response:
        return StreamingResponse(
            _event_stream(published),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-store"},
        )

    routes = [
        Route("/events", events, methods=["GET"]),
        Route(SCRIPT, script, methods=["GET"]),
        Route("/{path:path}", page, methods=["GET"]),
    ]
    return Starlette(routes=routes)


async def _event_stream(published: Published) -> AsyncIterator[bytes]:
    generation: int | None = None
    while not published.closing:
        sent = await published.next_after(generation, KEEPALIVE_SECONDS)
        if sent is None:
            yield b": still here\n\n"
        else:
            generation = sent
            yield f"event: update\ndata: {sent}\n\n".encode()


def _picture(folder: Path, name: str) -> Response:
    if not PICTURE_NAME.fullmatch(name):
        return _not_found()
    try:
        data = (folder / name).read_bytes()
    except OSError:
        return _not_found()
    # A picture's name is the hash of what it shows: it never changes.
    return Response(
        data,
        media_type="image/png",
        headers={"Cache-Control": "public, max-age=31536000, immutable"},
    )


def _not_found() -> Response:
    return PlainTextResponse("no such page", status_code=404)


_PAGE_HEADERS = {"Cache-Control": "no-store", "Content-Security-Policy": LIVE_POLICY}


class PreviewServer(LocalServer):
    """The preview's server on 127.0.0.1: the port bound at once (OSError if taken)."""

    def __init__(self, port: int, published: Published) -> None:
        super().__init__(preview_app(published), bind(port))
        self.published = published

    def stop(self) -> None:
        """End the event streams, then the server."""
        self.published.close()
        super().stop()


_SCRIPT_TEXT = resources.files("compiler.serve").joinpath("templates", "live.js").read_text()
