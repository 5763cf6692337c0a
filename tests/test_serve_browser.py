"""`pillbox serve` in a real browser: Playwright drives Debian's Chromium on the page of a small
pack served from a copy in tmp_path; a saved edit shows on the page, an error appears with its
code beside the other card's face and goes away when fixed, and Ctrl-C stops the server
quietly. One browser launch.
Skipped, saying why, where there is no Chromium (as tests/test_report_browser.py is)."""

from __future__ import annotations

import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import pytest

from tests.helpers import make_pack
from tests.test_report_browser import BROWSER
from tests.test_serve import HALLUCINATION, ROOM

pytestmark = pytest.mark.skipif(
    BROWSER is None,
    reason="no headless Chromium on this machine: `apt-get install chromium` (as .ci/run does)",
)

WAIT_MS = 10_000
"""A change must show on the page within this long (it takes about a second)."""

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
]


class Served:
    """A `pillbox serve` process and the lines it prints."""

    def __init__(self, pack: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "compiler", "--debug", "serve", str(pack), "--port", "0"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        assert self.process.stdout is not None
        threading.Thread(target=self._read, args=(self.process.stdout,), daemon=True).start()

    def _read(self, stream: IO[str]) -> None:
        for line in stream:
            self.lines.put(line)

    def url(self) -> str:
        """The address it prints once it listens."""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=max(deadline - time.monotonic(), 0.01))
            except queue.Empty:
                break
            found = re.search(r"at (http://127\.0\.0\.1:\d+/) ", line)
            if found:
                return found.group(1)
        self.process.kill()
        raise AssertionError(f"no URL printed: {self.process.communicate()}")


def until(page: Any, expression: str) -> float:
    """Wait until the expression is true on the page; how long it took. Polled through
    `evaluate`, which the page's Content Security Policy lets through where Playwright's own
    `wait_for_function` (a string it evaluates in the page) is refused."""
    started = time.monotonic()
    while not page.evaluate(expression):
        if time.monotonic() - started > WAIT_MS / 1000:
            raise AssertionError(f"not within {WAIT_MS} ms: {expression}")
        time.sleep(0.02)
    return time.monotonic() - started


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Path, Served]]:
    """A copy of a small pack, served; killed if a test leaves it running."""
    pack = make_pack(tmp_path / "pack", hallucinations=HALLUCINATION, rooms=ROOM)
    server = Served(pack)
    yield pack, server
    if server.process.poll() is None:
        server.process.kill()
        server.process.communicate()


def test_the_page_follows_edits_and_errors_in_chromium(
    served: tuple[Path, Served], tmp_path: Path
) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    pack, server = served
    url = server.url()
    rooms = pack / "rooms.card"
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=BROWSER, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 1400})
            page.goto(url)
            # The faces as print lays them out: a PNG each, drawn by the browser.
            pictures = "img.r-face[src^='/faces/']"
            drawn_pictures = (
                f'[...document.querySelectorAll("{pictures}")]'
                ".filter(i => i.complete && i.naturalWidth > 0).length == 2"
            )
            until(page, drawn_pictures)
            assert page.locator("iframe").count() == 0

            rooms.write_text(ROOM.replace('"Chapel"', '"Chapel of Rest"'))
            shown = until(page, "document.body.textContent.includes('Chapel of Rest')")
            drawn = shown + until(page, drawn_pictures)

            rooms.write_text(ROOM.replace("    number 2", "    numbr 2"))
            page.wait_for_selector("text=error[E0211]", timeout=WAIT_MS)
            assert "rooms.card:2:5" in page.inner_text("#diagnostics")
            # Only the broken file is left out: the other card's face stays, drawn.
            figure = page.locator("img.r-face[alt^='hallucination']")
            assert figure.count() == 1 and page.locator(".r-face").count() == 1
            assert figure.evaluate("i => i.complete && i.naturalWidth > 0")
            marked = page.inner_text("#left-out")
            assert "Chapel" in marked and "error[E0211]" in marked
            page.screenshot(path=str(tmp_path / "broken.png"), full_page=True)

            rooms.write_text(ROOM)
            until(page, drawn_pictures)
            assert "E0211" not in page.inner_text("body")
            page.screenshot(path=str(tmp_path / "serve.png"), full_page=True)
        finally:
            browser.close()
    for shot in ("broken.png", "serve.png"):
        assert (tmp_path / shot).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    print(f"save to page: {shown:.2f} s; to the face laid out as print does: {drawn:.2f} s")
    assert shown < WAIT_MS / 1000

    # Ctrl-C stops it quietly: no traceback, the exit code of an interrupted command.
    server.process.send_signal(signal.SIGINT)
    _, errors = server.process.communicate(timeout=30)
    assert server.process.returncode == 128 + signal.SIGINT, errors
    assert "Traceback" not in errors and "interrupted" in errors
    assert os.environ.get("PILLBOX_CACHE_DIR")  # the face cache was the test's own
