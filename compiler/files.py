"""Writing output files whole or not at all: what every command that writes a file shares."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path


class ChangedMeanwhile(Exception):
    """The file was changed by someone else while its new text was made: it is left as is."""


def write_atomically(
    target: Path,
    data: bytes,
    *,
    mode: int | None = None,
    unchanged: Callable[[], bool] | None = None,
) -> None:
    """Write a whole file or nothing: a temporary file beside it, synced, then renamed.

    `mode`: the new file's permissions (else as a new file gets them). `unchanged`: asked last,
    just before the rename; when it says no, nothing is written and ChangedMeanwhile is raised,
    so an edit saved while the data was made is never overwritten.
    """
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=".", suffix=".tmp")
    try:
        os.close(handle)
        write_whole(Path(temporary), data, target)
        if mode is not None:
            os.chmod(temporary, mode)
        if unchanged is not None and not unchanged():
            raise ChangedMeanwhile(str(target))
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def write_whole(path: Path, data: bytes, shown: Path) -> None:
    """Write and sync a file that is renamed into place later, readable as an output file is.

    An error (a full disk) names `shown`, the file the user asked for, not the temporary one.
    """
    try:
        with open(path, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(path, 0o666 & ~current_umask())  # as a new file would be, not mkstemp's 0600
    except OSError as error:
        raise OSError(error.errno, error.strerror, str(shown)) from None


def current_umask() -> int:
    """The process's umask (reading it means setting it: it is put straight back)."""
    umask = os.umask(0)
    os.umask(umask)
    return umask
