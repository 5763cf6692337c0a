"""The files a print writes: checked before anything is made, made in a capped worker, then put
in place together.

Imposing the sheets (pikepdf) and drawing the PNG previews (pdfium) read what the layout made,
and a page can hold what takes them gigabytes (a shading of a million stops is a few hundred
kilobytes of PDF); so they run in a worker of their own, capped like the layout's. It writes
each file whole under a temporary name beside its target (the previews of a `--png` folder
that is not there yet in a hidden folder of their own); only when all are written are they
renamed into place, the PNGs (or their new folder) first and the PDF last, each old file set
aside under a hidden name until the last rename is done. A print that fails, or is
interrupted, before then removes what it wrote and puts back what it had set aside, so every
file it would have replaced is as it was and no new folder is left.
"""

from __future__ import annotations

import os
import secrets
import shutil
from collections.abc import Sequence
from contextlib import suppress
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
    file that could not be written (nothing was replaced).
    """
    token = secrets.token_hex(6)
    pdf = _temporary(target, token)
    pngs: list[tuple[Path, Path]] = []  # (temporary, final) of each preview
    new_folder = None  # where the previews of a --png folder not there yet are drawn
    renames = []
    if previews is not None:
        import pypdfium2  # noqa: F401  (loaded before the fork: a capped worker may not map it)

        finals = [previews.folder / name for name in previews.names]
        if previews.folder.is_dir():
            pngs = [(_temporary(final, token), final) for final in finals]
            renames = list(pngs)
        else:
            new_folder = _temporary(_nearest_folder(previews.folder) / previews.folder.name, token)
            pngs = [(new_folder / final.name, final) for final in finals]
            renames = [(new_folder, previews.folder)]

    def make(_: int) -> None:
        write_whole(pdf, impose(chunks, where, pages), target)
        if previews is not None:
            pdf_to_pngs(chunks, previews.where, pngs, previews.dpi, previews.bleed)

    try:
        if new_folder is not None:
            new_folder.mkdir()
        if can_fork():
            run_in_workers(make, 1, 1, deadline, FINISH_MEMORY_MB, 1024)
        else:
            make(0)
        made = _parents_made(renames[0][1]) if new_folder is not None else []
        try:
            _put_in_place([*renames, (pdf, target)], token)  # the PDF last: all, or none
        except BaseException:
            _remove_folders(made)
            raise
    finally:
        for temporary in [pdf, *(temporary for temporary, _ in pngs)]:
            temporary.unlink(missing_ok=True)
        if new_folder is not None:
            shutil.rmtree(new_folder, ignore_errors=True)
    return [final for _, final in pngs]


def _temporary(final: Path, token: str) -> Path:
    """The hidden name beside `final` that it is written under before it is renamed."""
    return final.parent / f".{final.name}.{token}.tmp"


def _parents_made(folder: Path) -> list[Path]:
    """Make the folders missing above `folder` (not it), outermost first; those made. If one
    cannot be made, those made are removed again and the OSError names it."""
    missing = []
    parent = folder.parent
    while not parent.exists():
        missing.append(parent)
        parent = parent.parent
    made: list[Path] = []
    try:
        for path in reversed(missing):
            path.mkdir()
            made.append(path)
    except BaseException:
        _remove_folders(made)
        raise
    return made


def _remove_folders(made: Sequence[Path]) -> None:
    """Remove the folders `_parents_made` made, innermost first, as far as they are empty."""
    for path in reversed(made):
        with suppress(OSError):
            path.rmdir()


def _put_in_place(renames: Sequence[tuple[Path, Path]], token: str) -> None:
    """Rename each temporary file (or folder) onto its final name, in order, setting aside what
    each name held; the old files are removed only once every rename is done.

    If a rename fails (or the print is stopped), those done are undone: each new file goes
    back to its temporary name (removed by the caller) and each old one to its own name.
    """
    done: list[tuple[Path, Path, Path | None]] = []
    try:
        for temporary, final in renames:
            aside = _set_aside(final, token)
            try:
                _rename(temporary, final)
            except BaseException:
                if aside is not None:
                    with suppress(OSError):
                        os.replace(aside, final)
                raise
            done.append((temporary, final, aside))
    except BaseException:
        for temporary, final, aside in reversed(done):
            with suppress(OSError):
                os.replace(final, temporary)
                if aside is not None:
                    os.replace(aside, final)
        raise
    for _, _, aside in done:
        if aside is not None:
            with suppress(OSError):
                aside.unlink()


def _set_aside(final: Path, token: str) -> Path | None:
    """Rename the file `final` names, if any, to a hidden name beside it; that name, or None
    (nothing there, or a folder: the rename onto it fails and says so)."""
    if not final.is_symlink() and (not final.exists() or final.is_dir()):
        return None
    aside = final.parent / f".{final.name}.{token}.old"
    _rename(final, aside, shown=final)
    return aside


def _rename(source: Path, target: Path, shown: Path | None = None) -> None:
    """os.replace, with an error that names the file the user asked for."""
    try:
        os.replace(source, target)
    except OSError as error:
        raise OSError(error.errno, error.strerror, str(shown or target)) from None
