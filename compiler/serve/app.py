"""The HTTP side of `pillbox serve`: the pages of the latest snapshot, face pictures, events.

The server listens on 127.0.0.1 only and answers GET alone: `/` (the pack), `/card/<slug>` (a
card), `/faces/<sha256>.png` (a face picture, only a name the pictures folder gives, never a
path), `/live.js` (pillbox's script) and `/events`, a stream of server-sent events that says
`update` with the generation of each new snapshot. Anything else is 404. Requests are served by
threads, each reading the snapshot published last, which is never changed once published.
"""

from __future__ import annotations

import sys
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from compiler.serve.pages import SCRIPT, Snapshot
from compiler.serve.pictures import PICTURE_NAME

HOST = "127.0.0.1"
"""The only address served: the page shows a pack's files to whoever can reach it."""

KEEPALIVE_SECONDS = 15.0
"""An event stream says something this often, so a client gone away is noticed."""


class Published:
    """The latest snapshot, and a condition the event streams wait on for the next."""

    def __init__(self, snapshot: Snapshot, pictures: Path) -> None:
        self.snapshot = snapshot
        self.pictures = pictures
        self.changed = threading.Condition()
        self.closing = False

    def publish(self, snapshot: Snapshot) -> None:
        """Show this snapshot from now on, and tell every event stream."""
        with self.changed:
            self.snapshot = snapshot
            self.changed.notify_all()

    def close(self) -> None:
        """End every event stream."""
        with self.changed:
            self.closing = True
            self.changed.notify_all()

    def next_after(self, generation: int | None, seconds: float) -> int | None:
        """The generation of the snapshot after `generation`, waiting up to `seconds`; None if
        none came (or the server closes)."""
        with self.changed:
            self.changed.wait_for(
                lambda: self.closing or self.snapshot.generation != generation, seconds
            )
            if self.closing or self.snapshot.generation == generation:
                return None
            return self.snapshot.generation


REQUEST_SECONDS = 10.0
"""How long a connection may send or take nothing before it is closed."""


class Handler(BaseHTTPRequestHandler):
    """One request to the preview."""

    server: PreviewServer
    server_version = "pillbox-serve"
    sys_version = ""
    # A connection that sends nothing (or reads nothing) for this long is closed: idle
    # connections held a thread each for ever.
    timeout = REQUEST_SECONDS

    def do_GET(self) -> None:
        """Answer a page, a picture, the script or the events; 404 for anything else."""
        if self.headers.get("Host") not in self.server.hosts:
            # Another name for this address (DNS rebinding): a web page elsewhere must not
            # read the pack through the user's browser.
            self.send_error(HTTPStatus.MISDIRECTED_REQUEST, "not this server's name")
            return
        path = unquote(urlsplit(self.path).path)
        published = self.server.published
        if path == "/events":
            self._events(published)
            return
        if path == SCRIPT:
            self._send(_SCRIPT_TEXT.encode(), "text/javascript; charset=utf-8")
            return
        if path.startswith("/faces/"):
            self._picture(published.pictures, path.removeprefix("/faces/"))
            return
        page = published.snapshot.page(path)
        if page is None:
            self._not_found()
            return
        self._send(page.encode("utf-8"), "text/html; charset=utf-8")

    def do_HEAD(self) -> None:
        """No HEAD: only what a browser showing the page asks for is answered."""
        self.send_error(HTTPStatus.METHOD_NOT_ALLOWED)

    def _picture(self, folder: Path, name: str) -> None:
        if not PICTURE_NAME.fullmatch(name):
            self._not_found()
            return
        try:
            data = (folder / name).read_bytes()
        except OSError:
            self._not_found()
            return
        # A picture's name is the hash of what it shows: it never changes.
        self._send(data, "image/png", "public, max-age=31536000, immutable")

    def _events(self, published: Published) -> None:
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        generation: int | None = None
        try:
            while not published.closing:
                sent = published.next_after(generation, KEEPALIVE_SECONDS)
                if sent is None:
                    self.wfile.write(b": still here\n\n")
                else:
                    generation = sent
                    self.wfile.write(f"event: update\ndata: {sent}\n\n".encode())
                self.wfile.flush()
        except OSError:  # the page went away
            return

    def _send(self, data: bytes, kind: str, cache: str = "no-store") -> None:
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", cache)
        self.send_header("X-Content-Type-Options", "nosniff")
        self.end_headers()
        self.wfile.write(data)

    def _not_found(self) -> None:
        self.send_error(HTTPStatus.NOT_FOUND, "no such page")

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the terminal shows the pack's checks, not every request."""


class PreviewServer(ThreadingHTTPServer):
    """The preview's server: a thread a request, none kept waiting at exit."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, port: int, published: Published) -> None:
        super().__init__((HOST, port), Handler)
        self.published = published
        chosen = self.server_address[1]
        self.hosts = {f"{HOST}:{chosen}", f"localhost:{chosen}"}

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A browser that hangs up (a page reloaded while it loads) or goes quiet is no error:
        only what else goes wrong prints its traceback."""
        if isinstance(sys.exc_info()[1], ConnectionError | TimeoutError):
            return
        super().handle_error(request, client_address)

    @property
    def url(self) -> str:
        """The address of the pack page."""
        return f"http://{HOST}:{self.server_address[1]}/"


_SCRIPT_TEXT = resources.files("compiler.serve").joinpath("templates", "live.js").read_text()
