"""WeasyPrint runs that lay out the face pages, always in forked worker processes.

The faces are cut into chunks, contiguous slices each laid out as one WeasyPrint document (one
page a face); workers (`workers`) lay the chunks out side by side and send back the PDF, the
URLs the fence refused and the cards whose text was clipped. A face page's fonts are subsets of
what its whole chunk uses, so where the cuts fall shows in the printed PDF's bytes: they follow
from the faces alone (`chunks_of`), never from the machine or from what the face cache holds. A
layout runs in a child even for one face: only a child can be stopped wherever it is
(WeasyPrint's SVG drawing swallows any exception raised in it, an alarm or Ctrl-C too), and only
a child's memory can be capped. The parent kills its workers at the deadline, when one fails,
and when it is itself interrupted.
"""

from __future__ import annotations

import gc
import hashlib
import os
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from compiler.printing.faces import _deadline
from compiler.printing.layout import Face, face_css, face_pages
from compiler.printing.pdf import Refusal, render_pdf
from compiler.printing.sizes import PrintOptions
from compiler.printing.workers import WorkerFailed, can_fork, run_in_workers

PARALLEL_FACES = 32
"""Fewer faces than this are laid out as one chunk, by one worker: a second worker's font setup
costs more than the second core saves on a small job."""

CHUNK_FACES = 12
"""A chunk holds at least this many faces (but the last): each document has fixed costs (its
stylesheets, its fonts, the PDF's frame)."""

CUT_ODDS = 12
"""Past CHUNK_FACES, a chunk ends after a face whose hash is a multiple of this: chunks of about
two dozen faces. A cut depends on the face there, not on its place in the pack, so an edited,
added or removed card moves the cuts around it only, and a re-print finds the other chunks in
the face cache."""

MAX_CHUNK_FACES = 100
"""A chunk holds at most this many faces: a worker's memory grows with its document (about
200 MB for a hundred faces), and the cap below is a worker's."""

LAYOUT_MEMORY_MB = 1024
"""A layout worker may grow by this much memory at most: a 60,000-box design, or a gradient of
a million stripes, would take gigabytes."""

MAX_CHUNK_BYTES = 128 * 1024 * 1024
"""A chunk's PDF may be this large at most (a face's images are in it, each once)..."""

MAX_LAID_OUT_BYTES = 512 * 1024 * 1024
"""...and the chunks of one print this large together, so what the workers send back cannot
fill the printing process."""

Progress = Callable[[int, int], None]


@dataclass
class Chunk:
    """One laid-out document: its PDF, the URLs refused, the files read, the cards cut off."""

    data: bytes
    refused: list[Refusal] = field(default_factory=list)
    clipped: set[str] = field(default_factory=set)
    fetched: dict[str, tuple[str, str]] = field(default_factory=dict)  # as Rendered's
    too_deep: bool = False  # WeasyPrint recursed past Python's limit
    broken: str = ""  # WeasyPrint's arithmetic failed on the sizes asked of it: its error
    pages: int = 0  # faces laid out in it, a page each


class LayoutStopped(WorkerFailed):
    """The layout nested too `deep`, ran past its deadline (`time`), needed more `memory`
    than `memory_mb`, made too `large` a PDF, asked for `sizes` WeasyPrint cannot compute (its
    error in `detail`), or could not `start` a worker; nothing was made."""


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
    except ArithmeticError as error:  # sizes such as 1e30px overflow or vanish inside it
        return Chunk(b"", broken=f"{type(error).__name__}: {error}")
    # Read after drawing: drawing (SVG images, attachments) may fetch or refuse more.
    return Chunk(data, list(rendered.refused), set(rendered.clipped), dict(rendered.fetched))


def chunks_of(faces: Sequence[Face]) -> list[Sequence[Face]]:
    """Contiguous slices of the faces, the same for the same faces on any machine and whatever
    was printed before: one for a few faces, else cut where the faces' hashes say."""
    if len(faces) < PARALLEL_FACES:
        return [faces] if faces else []
    slices: list[Sequence[Face]] = []
    start = 0
    for index, face in enumerate(faces):
        size = index + 1 - start
        if size >= MAX_CHUNK_FACES or (size >= CHUNK_FACES and _cuts_after(face)):
            slices.append(faces[start : index + 1])
            start = index + 1
    if start < len(faces):
        slices.append(faces[start:])
    return slices


def _cuts_after(face: Face) -> bool:
    """Whether a chunk may end after this face: by its content, never by which card it is."""
    digest = hashlib.sha256()
    for part in (face.kind, face.html, face.image):
        digest.update(part.encode("utf-8", "surrogatepass") + b"\0")
    return int.from_bytes(digest.digest()[:8], "big") % CUT_ODDS == 0


def lay_out_faces(
    parts: Sequence[Sequence[Face]],
    options: PrintOptions,
    stylesheet: str,
    base: Path,
    roots: Sequence[Path],
    seconds: float,
    progress: Progress | None = None,
) -> list[Chunk]:
    """Each part (a chunk of `chunks_of`) as a document, a face a page, in order.

    Raises LayoutStopped past the deadline, for too deep a nesting, too much memory or too
    large a PDF, and leaves nothing running.
    """
    htmls = [document(part, options, stylesheet) for part in parts]
    if can_fork():
        chunks = _in_workers(htmls, [len(part) for part in parts], base, roots, seconds, progress)
    else:
        chunks = [_here(html, base, roots, seconds) for html in htmls]
    if any(chunk.too_deep for chunk in chunks):
        raise LayoutStopped("deep")
    broken = next((chunk.broken for chunk in chunks if chunk.broken), None)
    if broken is not None:
        raise LayoutStopped("sizes", detail=broken)
    for chunk, part in zip(chunks, parts, strict=True):
        chunk.pages = len(part)
    if progress is not None:
        faces = sum(len(part) for part in parts)
        progress(faces, faces)
    return chunks


def _cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on every system
        return os.cpu_count() or 1


def _here(html: str, base: Path, roots: Sequence[Path], seconds: float) -> Chunk:
    """Where no worker can be forked (Windows): in this process, under an alarm where there is
    one; that cannot stop every layout, nor cap its memory."""
    import weasyprint  # noqa: F401  (not under the deadline: its first import takes a while)

    try:
        with _deadline(seconds, _Expired):
            return _lay_out(html, base, roots)
    except _Expired:
        raise LayoutStopped("time") from None


def _in_workers(
    htmls: list[str],
    sizes: list[int],
    base: Path,
    roots: Sequence[Path],
    seconds: float,
    progress: Progress | None,
) -> list[Chunk]:
    import weasyprint  # noqa: F401  (imported once here, so the forked workers have it)

    received = [0, 0]  # faces laid out, bytes of PDF held
    # The largest chunks first, so that the workers run out of work at about the same time.
    order = sorted(range(len(htmls)), key=lambda index: -sizes[index])

    def done(task: int, chunk: Chunk) -> None:
        received[0] += sizes[order[task]]
        received[1] += len(chunk.data)
        if received[1] > MAX_LAID_OUT_BYTES:
            raise LayoutStopped("large")
        if progress is not None:
            progress(received[0], sum(sizes))

    # Forked: the workers start at once with WeasyPrint, the fence and the documents loaded.
    try:
        laid = run_in_workers(
            lambda task: _lay_out(htmls[order[task]], base, roots),
            len(htmls),
            _cores(),
            time.monotonic() + seconds,
            LAYOUT_MEMORY_MB,
            MAX_CHUNK_BYTES,
            done,
        )
    except WorkerFailed as failed:
        raise LayoutStopped(failed.reason, failed.memory_mb, failed.detail) from None
    chunks: list[Chunk] = [Chunk(b"")] * len(htmls)
    for task, chunk in zip(order, laid, strict=True):
        chunks[task] = chunk
    return chunks
