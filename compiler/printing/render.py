"""WeasyPrint runs that lay out the face pages: here for a few faces, else in worker processes.

The faces are cut into chunks, contiguous slices each laid out as one WeasyPrint document (one
page a face); forked workers lay the chunks out side by side and send back the PDF, the URLs
the fence refused and the cards whose text was clipped. A worker that overruns the deadline is
killed, which stops a layout (and the PDF drawing after it) wherever it is.
"""

from __future__ import annotations

import gc
import math
import multiprocessing
import os
import signal
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from compiler.printing.faces import _deadline
from compiler.printing.layout import Face, face_css, face_pages
from compiler.printing.pdf import Refusal, render_pdf
from compiler.printing.sizes import PrintOptions

PARALLEL_FACES = 32
"""Fewer faces than this are laid out in this process: a fork and a second font setup cost more
than the second core saves on a small job."""

CHUNK_FACES = 12
"""A chunk holds at least this many faces: each document has fixed costs (its stylesheets, its
fonts, the PDF's frame)."""

Progress = Callable[[int, int], None]


@dataclass
class Chunk:
    """One laid-out document: its PDF, the URLs refused, the files read, the cards cut off."""

    data: bytes
    refused: list[Refusal] = field(default_factory=list)
    clipped: set[str] = field(default_factory=set)
    fetched: dict[str, tuple[str, str]] = field(default_factory=dict)  # as Rendered's
    too_deep: bool = False  # WeasyPrint recursed past Python's limit
    pages: int = 0  # faces laid out in it, a page each


class LayoutStopped(Exception):
    """The layout overran its deadline or nested too deeply; nothing was made."""

    def __init__(self, too_deep: bool) -> None:
        super().__init__("nested too deeply" if too_deep else "too slow")
        self.too_deep = too_deep


class _Expired(BaseException):
    """The deadline, in this process (not an Exception: WeasyPrint catches those, and OSError)."""


def document(faces: Sequence[Face], options: PrintOptions, stylesheet: str) -> str:
    """The HTML of a face document: the design first, so the tool's geometry wins."""
    return (
        '<!DOCTYPE html><html><head><meta charset="utf-8">'
        f"<style>{_css_text(stylesheet)}</style><style>{face_css(options)}</style>"
        f"</head><body>{face_pages(list(faces), options)}</body></html>"
    )


def _css_text(css: str) -> str:
    """A stylesheet safe to put inside <style>: it cannot close the element."""
    return css.replace("</", "<\\/")


GC_THRESHOLD = (100_000, 50, 100)
"""Python's cyclic collector, by default run every 700 new objects, walks WeasyPrint's boxes
over and over: about a sixth of a layout's time. During a layout it runs far less often."""


@contextmanager
def _fewer_collections() -> Iterator[None]:
    """Collect cycles rarely, and never walk the objects that were there before."""
    before = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLD)
    try:
        yield
    finally:
        gc.set_threshold(*before)
        gc.unfreeze()


def _lay_out(html: str, base: Path, roots: Sequence[Path]) -> Chunk:
    """Lay out one document and draw its PDF (in a worker, or here under the deadline)."""
    try:
        with _fewer_collections():
            rendered = render_pdf(html, base, roots)
            data = rendered.data
    except RecursionError:
        return Chunk(b"", too_deep=True)
    # Read after drawing: drawing (SVG images, attachments) may fetch or refuse more.
    return Chunk(data, list(rendered.refused), set(rendered.clipped), dict(rendered.fetched))


def chunks_of(faces: Sequence[Face], workers: int) -> list[Sequence[Face]]:
    """Contiguous slices of the faces, large first and smaller towards the end.

    Each takes a share of what is left, so the workers run out of work at about the same
    time: how long a face takes varies with its text, and with what else runs on its core.
    """
    slices: list[Sequence[Face]] = []
    start = 0
    while start < len(faces):
        size = max(CHUNK_FACES, math.ceil((len(faces) - start) / (2 * workers)))
        slices.append(faces[start : start + size])
        start += size
    return slices


def lay_out_faces(
    faces: Sequence[Face],
    options: PrintOptions,
    stylesheet: str,
    base: Path,
    roots: Sequence[Path],
    seconds: float,
    progress: Progress | None = None,
) -> list[Chunk]:
    """Every face as a page of its own, in order across the chunks.

    Raises LayoutStopped past the deadline or for too deep a nesting, and leaves nothing
    running.
    """
    cores = _cores()
    parts = chunks_of(faces, cores) if len(faces) >= PARALLEL_FACES and cores > 1 else [faces]
    htmls = [document(part, options, stylesheet) for part in parts]
    if len(htmls) == 1:
        chunks = [_here(htmls[0], base, roots, seconds)]
    else:
        sizes = [len(part) for part in parts]
        chunks = _in_workers(htmls, sizes, base, roots, seconds, min(cores, len(htmls)), progress)
    if any(chunk.too_deep for chunk in chunks):
        raise LayoutStopped(too_deep=True)
    for chunk, part in zip(chunks, parts, strict=True):
        chunk.pages = len(part)
    if progress is not None:
        progress(len(faces), len(faces))
    return chunks


def _cores() -> int:
    """The cores this process may run on, if it can fork workers at all (1 if not)."""
    if "fork" not in multiprocessing.get_all_start_methods():
        return 1
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on every system
        return os.cpu_count() or 1


def _here(html: str, base: Path, roots: Sequence[Path], seconds: float) -> Chunk:
    import weasyprint  # noqa: F401  (not under the deadline: its first import takes a while)

    try:
        with _deadline(seconds, _Expired):
            return _lay_out(html, base, roots)
    except _Expired:
        raise LayoutStopped(too_deep=False) from None


def _quiet_worker() -> None:
    """Ctrl-C is the parent's to handle: it stops the workers itself."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _in_workers(
    htmls: list[str],
    sizes: list[int],
    base: Path,
    roots: Sequence[Path],
    seconds: float,
    workers: int,
    progress: Progress | None,
) -> list[Chunk]:
    import time

    import weasyprint  # noqa: F401  (imported once here, so the forked workers have it)

    # Fork: the workers start at once with WeasyPrint, the fence and the templates loaded.
    context = multiprocessing.get_context("fork")
    pool = context.Pool(workers, initializer=_quiet_worker)
    try:
        deadline = time.monotonic() + seconds
        results = pool.imap(partial(_lay_out, base=base, roots=list(roots)), htmls)
        chunks, done = [], 0
        for size in sizes:
            try:
                chunk = results.next(timeout=max(deadline - time.monotonic(), 0.0))
            except multiprocessing.TimeoutError:
                raise LayoutStopped(too_deep=False) from None
            chunks.append(chunk)
            done += size
            if progress is not None:
                progress(done, sum(sizes))
        return chunks
    finally:
        # Kill whatever still runs (past the deadline, or on an error here) and reap it all.
        pool.terminate()
        pool.join()
