"""The files a print writes: checked before anything is made, made in a capped worker, then put
in place together.

Imposing the sheets (pikepdf) and drawing the PNG previews (pdfium) read what the layout made,
and a page can hold what takes them gigabytes (a shading of a million stops is a few hundred
kilobytes of PDF); so they run in a worker of their own, capped like the layout's. It writes
each file whole under a temporary name beside its target; only when all are written are they
renamed into place, the PDF first. A print that fails, or is interrupted, removes them and
leaves every file it would have replaced as it was.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from compiler.printing.impose import impose
from compiler.printing.layout import PageSpec
from compiler.printing.pdf import pdf_to_pngs, write_whole
from compiler.printing.workers import can_fork, run_in_workers

FINISH_MEMORY_MB = 1024
"""The worker that imposes the sheets and draws the previews may grow by this much at most."""


def unwritable(target: Path, png_folder: Path | None) -> str | None:
    """Why the PDF (`-o`) or the PNG folder (`--png`) could not be written, checked before any
    is; or None."""
    folder = target.parent
    if target.suffix.lower() != ".pdf":
        return f"-o {target}: the output is a PDF file, e.g. cards.pdf"
    if not folder.is_dir():
        return f"-o {target}: folder {folder} does not exist"
    if target.is_dir():
        return f"-o {target}: is a folder; name a .pdf file"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"-o {target}: folder {folder} is not writable"
    if png_folder is None:
        return None
    if png_folder.exists() and not png_folder.is_dir():
        return f"--png {png_folder}: is a file, not a folder"
    existing = _nearest_folder(png_folder)
    if not existing.exists():
        return f"--png {png_folder}: {existing} is a broken symbolic link"
    if not existing.is_dir():
        return f"--png {png_folder}: {existing} is a file, not a folder"
    if not os.access(existing, os.W_OK | os.X_OK):
        return f"--png {png_folder}: folder {existing} is not writable"
    return None


def _nearest_folder(folder: Path) -> Path:
    """The folder itself or its nearest parent that is there (perhaps a file), where the rest
    would be made; or the broken symbolic link on the way."""
    existing = folder
    while not existing.exists() and not existing.is_symlink():
        existing = existing.parent
    return existing


@dataclass(frozen=True)
class Previews:
    """The PNG previews to draw: each face page (its chunk and page) and its file's name."""

    folder: Path
    where: Sequence[tuple[int, int]]
    names: Sequence[str]
    dpi: int
    bleed: float


def write_outputs(
    chunks: Sequence[bytes],
    where: Sequence[tuple[int, int]],
    pages: Sequence[PageSpec],
    target: Path,
    previews: Previews | None,
    deadline: float,
) -> list[Path]:
    """Impose the sheets into `target` and draw the previews; the PNGs written.

    Raises WorkerFailed (out of memory or time: nothing was written), or OSError naming the
    file that could not be written.
    """
    finals = [target]
    if previews is not None:
        import pypdfium2  # noqa: F401  (loaded before the fork: a capped worker may not map it)

        previews.folder.mkdir(parents=True, exist_ok=True)
        finals += [previews.folder / name for name in previews.names]
    token = secrets.token_hex(6)
    pairs = [(final.parent / f".{final.name}.{token}.tmp", final) for final in finals]

    def make(_: int) -> None:
        write_whole(pairs[0][0], impose(chunks, where, pages), target)
        if previews is not None:
            pdf_to_pngs(chunks, previews.where, pairs[1:], previews.dpi, previews.bleed)

    try:
        if can_fork():
            run_in_workers(make, 1, 1, deadline, FINISH_MEMORY_MB, 1024)
        else:
            make(0)
        for temporary, final in pairs:
            _rename(temporary, final)
    finally:
        for temporary, _ in pairs:
            temporary.unlink(missing_ok=True)
    return finals[1:]


def _rename(temporary: Path, final: Path) -> None:
    try:
        os.replace(temporary, final)
    except OSError as error:
        raise OSError(error.errno, error.strerror, str(final)) from None
