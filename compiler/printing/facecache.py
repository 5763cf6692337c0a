"""Face pages laid out before, kept between prints so that a re-print lays out only what changed.

WeasyPrint takes nearly all of a print's time, tens of milliseconds a face. A face's page is
found again by a key made of everything its layout depends on: the face's HTML, background
class and image, the card design (cards.css), the page geometry (card size and bleed), and
the versions of WeasyPrint and of pillbox's own code. The chunk PDF that holds the page is
kept whole, because its pages share their fonts, and it is named by its SHA-256, checked when
it is read back. The pack files a chunk read (images, fonts) are kept with their hashes: a
chunk whose files changed is not used. A chunk that refused a URL is never kept (that print
fails anyway).

The cache sits beside the check cache (`compiler.cache.cache_dir`), a folder per pack. It holds
PDFs that pillbox wrote and one JSON index; nothing in it is executed. A damaged entry is a
miss. `--no-cache` turns it off. Fonts installed on the machine are not part of the key: after
changing them, print once with `--no-cache`.
"""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeGuard

from compiler import cache
from compiler.printing.layout import Face
from compiler.printing.render import Chunk

_FORMAT = 1
_DIGEST = re.compile(r"[0-9a-f]{64}")

MAX_BYTES = 64 * 1024 * 1024
"""Chunk PDFs a pack's cache keeps at most; the chunks used least recently go first (though
never those of the print that is saving)."""


@dataclass(frozen=True)
class Hit:
    """Where a face's page was laid out before, and whether its text was clipped then."""

    chunk: str  # the chunk PDF's SHA-256
    page: int
    clipped: bool


@dataclass
class FaceCache:
    """The face pages of one pack's earlier prints, for one card design and geometry."""

    folder: Path
    design: str  # a hash of the stylesheet and the page geometry
    faces: dict[str, list[Any]] = field(default_factory=dict)  # key -> [chunk, page, clipped, t]
    chunks: dict[str, dict[str, str]] = field(default_factory=dict)  # digest -> files read
    used: set[str] = field(default_factory=set)  # chunks this print read or wrote
    _checked: dict[str, bool] = field(default_factory=dict)
    _hashes: dict[str, str | None] = field(default_factory=dict)

    @classmethod
    def open(cls, pack_root: Path, design: str) -> FaceCache | None:
        """The cache of a pack's face pages; None when caches are off."""
        if not cache.is_enabled():
            return None
        name = hashlib.sha256(str(pack_root.resolve()).encode()).hexdigest()[:24]
        opened = cls(
            cache.cache_dir() / f"print-{name}", hashlib.sha256(design.encode()).hexdigest()
        )
        index = cache.read_json(opened.folder / "index.json", _stamp())
        if isinstance(index, dict):
            faces, chunks = index.get("faces"), index.get("chunks")
            if isinstance(faces, dict) and isinstance(chunks, dict):
                opened.faces, opened.chunks = faces, chunks
        return opened

    def key(self, face: Face) -> str:
        """What the face's page depends on, hashed (not which card it is: that is not drawn)."""
        digest = hashlib.sha256(self.design.encode())
        for part in (face.kind, face.html, face.image):
            digest.update(b"\0" + part.encode())
        return digest.hexdigest()

    def find(self, face: Face) -> Hit | None:
        """The face's page from an earlier print, if its chunk is still as it was written."""
        entry = self.faces.get(self.key(face))
        if not _well_formed(entry) or not self._usable(entry[0]):
            return None
        entry[3] = time.time()
        self.used.add(entry[0])
        return Hit(entry[0], entry[1], entry[2])

    def read(self, digest: str) -> bytes | None:
        """A chunk PDF, if it is whole (its name is its hash)."""
        try:
            data = (self.folder / f"{digest}.pdf").read_bytes()
        except OSError:
            return None
        return data if hashlib.sha256(data).hexdigest() == digest else None

    def keep(self, faces: Sequence[Face], chunk: Chunk) -> None:
        """Remember a newly laid-out chunk, which holds these faces' pages in order."""
        if chunk.refused or not chunk.data:
            return
        digest = hashlib.sha256(chunk.data).hexdigest()
        if not cache.write_file(self.folder / f"{digest}.pdf", chunk.data):
            return
        self.chunks[digest] = dict(chunk.fetched)
        self._checked[digest] = True
        self.used.add(digest)
        now = time.time()
        for page, face in enumerate(faces):
            self.faces[self.key(face)] = [digest, page, face.key in chunk.clipped, now]

    def save(self) -> None:
        """Write the index, dropping the chunks used least recently past MAX_BYTES."""
        last_use: dict[str, float] = {}
        for entry in self.faces.values():
            if _well_formed(entry):
                last_use[entry[0]] = max(last_use.get(entry[0], 0.0), entry[3])
        kept: set[str] = set()
        total = 0
        for digest in sorted(last_use, key=lambda d: (d not in self.used, -last_use[d])):
            size = _size(self.folder / f"{digest}.pdf")
            if size is None or (total + size > MAX_BYTES and digest not in self.used):
                continue
            kept.add(digest)
            total += size
        self.faces = {k: e for k, e in self.faces.items() if _well_formed(e) and e[0] in kept}
        self.chunks = {d: files for d, files in self.chunks.items() if d in kept}
        cache.write_json(
            self.folder / "index.json", _stamp(), {"faces": self.faces, "chunks": self.chunks}
        )
        for stale in self.folder.glob("*.pdf"):
            if stale.stem not in kept:
                stale.unlink(missing_ok=True)

    def _usable(self, digest: str) -> bool:
        """Whether a chunk is on disk and every file it read is unchanged (checked once)."""
        if digest not in self._checked:
            files = self.chunks.get(digest)
            self._checked[digest] = (
                isinstance(files, dict)
                and (self.folder / f"{digest}.pdf").is_file()
                and all(self._hash(path) == sha for path, sha in files.items())
            )
        return self._checked[digest]

    def _hash(self, path: str) -> str | None:
        """A file's SHA-256, read once a print however many chunks read it (fonts: all)."""
        if path not in self._hashes:
            self._hashes[path] = _file_hash(Path(path))
        return self._hashes[path]


def _stamp() -> dict[str, Any]:
    from weasyprint import __version__ as weasyprint_version

    return {"format": _FORMAT, "tool": cache.tool_fingerprint(), "weasyprint": weasyprint_version}


def _well_formed(entry: Any) -> TypeGuard[list[Any]]:
    return (
        isinstance(entry, list)
        and len(entry) == 4
        and isinstance(entry[0], str)
        and _DIGEST.fullmatch(entry[0]) is not None  # a file name in the cache folder, no path
        and isinstance(entry[1], int)
        and isinstance(entry[2], bool)
        and isinstance(entry[3], (int, float))
    )


def _file_hash(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def _size(path: Path) -> int | None:
    try:
        return path.stat().st_size
    except OSError:
        return None
