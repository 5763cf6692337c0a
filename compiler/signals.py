"""A signal turned into an exception raised wherever the program is, for the block of a `with`."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def raising(signum: int, error: type[BaseException]) -> Iterator[bool]:
    """Within the block the signal raises `error`; yields whether it does (only the main
    thread can handle signals: elsewhere the block runs as it is)."""
    if threading.current_thread() is not threading.main_thread():
        yield False
        return

    def handle(number: int, frame: object) -> None:
        raise error

    previous = signal.signal(signum, handle)
    try:
        yield True
    finally:
        signal.signal(signum, previous)
