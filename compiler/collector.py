"""When Python's cycle collector may run: not through work that makes many objects and frees few.

Checking a pack builds trees, IR and diagnostics that stay alive to its end, and each full
collection walks all of them again: a cold check of 1,000 cards ran three, a tenth of its time.
Nothing a check makes needs the collector to be freed in time, so it waits until the work ends.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Within this block the cycle collector does not run; after it, as it did before."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
