"""The files a print writes: checked before anything is made, made in a capped worker, then put
in place together.

Imposing the sheets (pikepdf) and drawing the PNG previews (pdfium) read what the layout made,
and a page can hold what takes them gigabytes (a shading of a million stops is a few hundred
kilobytes of PDF); so they run in a worker of their own, capped like the layout's. It writes
each file whole under a temporary name beside its target (the previews of a `--png` folder
that is not there yet in a hidden folder of their own); only when all are written are they
renamed into place, the PNGs (or their new folder) first and the PDF last, each old file set
aside under a hidden name until the last rename is done (the Tabletop Simulator folder of
`--tts` is written as the previews are, and put in place after them). A print that fails, or
is interrupted, before then removes what it wrote and puts back what it had set aside, so
every file it would have replaced is as it was and no new folder is left. A print killed
outright (SIGKILL) cannot clean up: its temporary names carry its process number, and the
next print into the same folders removes those whose process is gone.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
from collections.abc import Sequence
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

from compiler.files import write_whole
from compiler.printing.impose import impose
from compiler.printing.layout import PageSpec
from compiler.printing.pdf import pdf_to_pngs
from compiler.printing.tts import TtsExport
from compiler.printing.workers import can_fork, run_in_workers

FINISH_MEMORY_MB = 1024
"""The worker that imposes the sheets and draws the previews may grow by this much at most."""


def unwritable(
    target: Path | None, png_folder: Path | None, tts_folder: Path | None = None
) -> str | None:
    """Why the PDF (`-o`), the PNG folder (`--png`) or the Tabletop Simulator folder (`--tts`)
    could not be written, checked before any is; or None."""
    if target is not None:
        problem = _unwritable_pdf(target)
        if problem is not None:
            return problem
    if png_folder is not None and tts_folder is not None and _nested(png_folder, tts_folder):
        return f"--png {png_folder} and --tts {tts_folder}: give each a folder of its own"
    for option, folder in (("--png", png_folder), ("--tts", tts_folder)):
        problem = _unwritable_folder(option, folder) if folder is not None else None
        if problem is not None:
            return problem
    return None


def _nested(one: Path, other: Path) -> bool:
    """Whether two folders are the same, or one is inside the other."""
    first, second = one.resolve(), other.resolve()
    return first == second or first in second.parents or second in first.parents


def _unwritable_pdf(target: Path) -> str | None:
    try:
        return _pdf_problem(target)
    except OSError as error:  # a name the system cannot take: too long, say
        return f"-o {target}: {error.strerror or error}"


def _pdf_problem(target: Path) -> str | None:
    folder = target.parent
    if target.suffix.lower() != ".pdf":
        return f"-o {target}: the output is a PDF file, e.g. cards.pdf"
    if not folder.is_dir():
        return f"-o {target}: folder {folder} does not exist"
    if target.is_dir():
        return f"-o {target}: is a folder; name a .pdf file"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"-o {target}: folder {folder} is not writable"
    return None


def _unwritable_folder(option: str, folder: Path) -> str | None:
    try:
        return _folder_problem(option, folder)
    except OSError as error:  # a name the system cannot take: too long, say
        return f"{option} {folder}: {error.strerror or error}"


def _folder_problem(option: str, folder: Path) -> str | None:
    if folder.exists() and not folder.is_dir():
        return f"{option} {folder}: is a file, not a folder"
    existing = _nearest_folder(folder)
    if not existing.exists():
        return f"{option} {folder}: {existing} is a broken symbolic link"
    if not existing.is_dir():
        return f"{option} {folder}: {existing} is a file, not a folder"
    if not os.access(existing, os.W_OK | os.X_OK):
        return f"{option} {folder}: folder {existing} is not writable"
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


@dataclass
class _Staged:
    """A folder's files as they are drawn: each one's temporary and final path, the renames
    that put them in place, and the hidden folder they are drawn in if the folder is new."""

    pairs: list[tuple[Path, Path]]
    renames: list[tuple[Path, Path]]
    new_folder: Path | None

    @classmethod
    def of(cls, folder: Path, names: Sequence[str], token: str) -> _Staged:
        """Temporary names beside each file, or all in a new hidden folder if there is none."""
        finals = [folder / name for name in names]
        if folder.is_dir():
            pairs = [(_temporary(final, token), final) for final in finals]
            return cls(pairs, list(pairs), None)
        new_folder = _temporary(_nearest_folder(folder) / folder.name, token)
        pairs = [(new_folder / final.name, final) for final in finals]
        return cls(pairs, [(new_folder, folder)], new_folder)


def write_outputs(
    chunks: Sequence[bytes],
    where: Sequence[tuple[int, int]],
    pages: Sequence[PageSpec],
    target: Path | None,
    previews: Previews | None,
    deadline: float,
    more: Sequence[TtsExport] = (),
) -> list[Path]:
    """Impose the sheets into `target` (if any), draw the previews and the Tabletop Simulator
    folders (`more`); the PNG previews written.

    Raises WorkerFailed (out of memory or time: nothing was written), or OSError naming the
    file that could not be written (nothing was replaced).
    """
    token = f"{os.getpid()}-{secrets.token_hex(6)}"  # whose it is: a later print may tell
    pdf = _temporary(target, token) if target is not None else None
    folders: list[tuple[Path, Sequence[str]]] = [(files.folder, files.names) for files in more]
    if previews is not None or more:
        # Loaded before the fork: a capped worker may not map them.
        import PIL.Image  # noqa: F401
        import pypdfium2  # noqa: F401
    if previews is not None:
        folders.insert(0, (previews.folder, previews.names))
    staged = [_Staged.of(folder, names, token) for folder, names in folders]
    drawn = staged[1:] if previews is not None else staged
    for place in {
        *([target.parent] if target is not None else []),
        *(folder for folder, _ in folders),
        *(_nearest_folder(folder) for folder, _ in folders),
    }:
        _remove_abandoned(place)

    def make(_: int) -> None:
        if pdf is not None and target is not None:
            write_whole(pdf, impose(chunks, where, pages), target)
        if previews is not None:
            pdf_to_pngs(chunks, previews.where, staged[0].pairs, previews.dpi, previews.bleed)
        for files, stage in zip(more, drawn, strict=True):
            files.draw(chunks, where, stage.pairs)

    try:
        for stage in staged:
            if stage.new_folder is not None:
                stage.new_folder.mkdir()
        if can_fork():
            run_in_workers(make, 1, 1, deadline, FINISH_MEMORY_MB, 1024)
        else:
            make(0)
        made: list[Path] = []
        renames = [rename for stage in staged for rename in stage.renames]
        if pdf is not None and target is not None:
            renames.append((pdf, target))  # the PDF last: all, or none
        try:
            for stage in staged:
                if stage.new_folder is not None:
                    made += _parents_made(stage.renames[0][1])
            _put_in_place(renames, token)
        except BaseException:
            _remove_folders(made)
            raise
    finally:
        temporaries = [temporary for stage in staged for temporary, _ in stage.pairs]
        for temporary in [*([pdf] if pdf is not None else []), *temporaries]:
            temporary.unlink(missing_ok=True)
        for stage in staged:
            if stage.new_folder is not None:
                shutil.rmtree(stage.new_folder, ignore_errors=True)
    return [final for _, final in staged[0].pairs] if previews is not None else []


_ABANDONED = re.compile(r"\.(?P<name>.+)\.(?P<pid>[0-9]+)-[0-9a-f]{12}\.tmp")
"""A file or folder a print writes before renaming it into place (`_temporary`)."""


def _remove_abandoned(folder: Path) -> None:
    """Remove what a killed print left half-written in `folder`: a `.tmp` whose process is
    gone. One of a print still running is left alone; set-aside `.old` files are never
    touched (one may be the only copy of what a print was replacing)."""
    try:
        entries = list(folder.iterdir())
    except OSError:
        return
    for entry in entries:
        found = _ABANDONED.fullmatch(entry.name)
        if found is None or _running(int(found["pid"])):
            continue
        with suppress(OSError):
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry)
            else:
                entry.unlink()


def _running(pid: int) -> bool:
    """Whether a process of that number is alive (one that cannot be asked counts as alive)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (OSError, OverflowError):
        return True
    return True


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
    try:
        _rename(final, aside, shown=final)
    except FileNotFoundError:
        # Another print of the same file set it aside since it was seen: nothing is there.
        return None
    return aside


def _rename(source: Path, target: Path, shown: Path | None = None) -> None:
    """os.replace, with an error that names the file the user asked for."""
    try:
        os.replace(source, target)
    except OSError as error:
        raise OSError(error.errno, error.strerror, str(shown or target)) from None
