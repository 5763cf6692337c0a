"""A local server for pillbox's pages: an ASGI app on uvicorn, with its guards.

uvicorn (h11) gives an event loop instead of a thread a socket, so an idle connection costs a
file descriptor, not a thread, and a browser that hangs up ends its connection quietly. What
uvicorn leaves open is closed here:

- a connection has `REQUEST_SECONDS` from when it opens (or its last answer ends) to send a
  whole request; bytes trickled in do not restart the clock (uvicorn's keep-alive timer restarts
  at every byte, and it has none before the first request);
- past `MAX_CONNECTIONS` open at once, a new connection is closed as it arrives, so a crowd
  of sockets cannot take every file descriptor;
- a request must name this server in its Host header (a web page elsewhere must not read the
  pages through the user's browser, by DNS rebinding), and every answer says not to sniff
  types, not to be framed and to send no referrer.

The port is bound before the server starts, so a port in use is an error at once.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import threading
from collections.abc import Iterable
from typing import Any

import uvicorn
from starlette.datastructures import Headers
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

HOST = "127.0.0.1"
"""The address served unless the user opts in: the pages show a pack's files."""

REQUEST_SECONDS = 10.0
"""How long a connection may take to send a whole request before it is closed."""

MAX_CONNECTIONS = 1_000
"""Open connections at once; one more is closed as it arrives."""

GRACE_SECONDS = 1.0
"""How long open answers (event streams) get to end when the server stops."""

SECURITY_HEADERS = (
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
)


class DeadlineProtocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol, with a deadline for each request and a cap on connections."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        """Take the connection, unless too many are open; start its clock."""
        super().connection_made(transport)
        if len(self.connections) > MAX_CONNECTIONS:
            transport.abort()
            return
        self._start_clock()

    def connection_lost(self, exc: Exception | None) -> None:
        """Stop the clock of a connection that closed."""
        self._stop_clock()
        super().connection_lost(exc)

    def on_response_complete(self) -> None:
        """An answer ended: the next request has its own deadline."""
        super().on_response_complete()
        if not self.transport.is_closing():
            self._start_clock()

    def _start_clock(self) -> None:
        self._stop_clock()
        self._deadline = self.loop.call_later(REQUEST_SECONDS, self._too_slow)

    def _stop_clock(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        self._deadline = None
        answering = self.cycle is not None and not self.cycle.response_complete
        if not answering and not self.transport.is_closing():
            self.transport.close()


class Guard:
    """ASGI middleware: only this server's names in Host, and the security headers on every
    answer."""

    def __init__(self, app: ASGIApp, hosts: Iterable[str]) -> None:
        self.app = app
        self.hosts = set(hosts)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Refuse another name with 421; add the headers to what the app answers."""
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        if Headers(scope=scope).get("host") not in self.hosts:
            refusal = PlainTextResponse("not this server's name", status_code=421)
            await _with_headers(refusal)(scope, receive, send)
            return
        await self.app(scope, receive, _adding_headers(send))


def _adding_headers(send: Send) -> Send:
    async def sending(message: Any) -> None:
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message.get("headers", ()), *SECURITY_HEADERS]}
        await send(message)

    return sending


def _with_headers(app: ASGIApp) -> ASGIApp:
    async def answering(scope: Scope, receive: Receive, send: Send) -> None:
        await app(scope, receive, _adding_headers(send))

    return answering


def bind(port: int, host: str = HOST) -> socket.socket:
    """A listening socket on host:port (OSError if it cannot be had)."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((host, port))
        listener.listen(128)
    except OSError:
        listener.close()
        raise
    listener.setblocking(False)
    return listener


class LocalServer:
    """An ASGI app served on a bound socket from a thread of its own, until `stop`."""

    def __init__(self, app: ASGIApp, listener: socket.socket, names: Iterable[str] = ()) -> None:
        """`names`: more names a browser may reach the server by (beyond its address and
        localhost), when the user opted in to an address other machines reach."""
        self.listener = listener
        self.host, self.port = listener.getsockname()[:2]
        self.hosts = {f"{self.host}:{self.port}", f"localhost:{self.port}"}
        self.hosts |= {f"{name}:{self.port}" for name in names}
        config = uvicorn.Config(
            Guard(app, self.hosts),
            http=DeadlineProtocol,
            ws="none",
            lifespan="off",
            log_config=None,
            access_log=False,
            server_header=False,
            timeout_keep_alive=int(REQUEST_SECONDS),
            timeout_graceful_shutdown=int(GRACE_SECONDS),
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [listener]}, daemon=True
        )
        # uvicorn's own notes (started, stopping) are not the user's business; its errors are.
        logging.getLogger("uvicorn.error").setLevel(logging.ERROR)

    @property
    def url(self) -> str:
        """The address of the first page."""
        return f"http://{self.host}:{self.port}/"

    def start(self) -> None:
        """Serve from now on, in the background."""
        self._thread.start()

    def stop(self) -> None:
        """Stop serving and wait for the server's thread."""
        self._server.should_exit = True
        if self._thread.is_alive():
            self._thread.join(timeout=GRACE_SECONDS + 5)
        self.listener.close()
