"""Face pages laid out before, kept between prints so that a re-print lays out only what changed.

WeasyPrint takes nearly all of a print's time, tens of milliseconds a face. A face's page is
found again by a key made of everything its layout depends on: the face's HTML, background class
and image, the card design (cards.css), the page geometry (card size and bleed), and the
versions of WeasyPrint, Pango and pillbox's own code. The chunk PDF that holds the page is kept
whole, because its pages share their fonts, and it is named by its SHA-256, checked when it is
read back. A print takes a chunk only whole, for the very faces it holds in their order
(`find_chunk`): a page's fonts are subsets of what its chunk's faces use, so a face taken from a
chunk of other neighbours would print other bytes than a print without the cache. `serve`, which
draws each face as a picture, takes single pages (`find`). The files a chunk read (images,
fonts) are kept by the path asked for, with the file it led to and its hash: a chunk is used
only while every such path leads to the same regular file with the same bytes, inside the
folders the fence allows. A chunk that refused a URL is never kept (that print fails anyway).

A design that styles a face by where it sits among the others (`:nth-child`, sibling
combinators, `data-card`, `@page`) would make a page depend on its neighbours: then nothing is
cached.

The cache sits beside the check cache (`compiler.cache.cache_dir`), a folder per pack. It holds
PDFs that pillbox wrote and one JSON index; nothing in it is executed, and anything wrong with
it (damaged, foreign, unwritable) only costs a layout. `--no-cache` turns it off. Fonts
installed on the machine are not part of the key: after changing them, print once with
`--no-cache`.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import math
import os
import re
import stat
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from compiler import cache
from compiler.pack import hard_linked
from compiler.printing.layout import Face
from compiler.printing.pdf import MAX_RESOURCE_BYTES
from compiler.printing.render import Chunk

_FORMAT = 3
_DIGEST = re.compile(r"[0-9a-f]{64}")

MAX_BYTES = 64 * 1024 * 1024
"""Chunk PDFs a pack's cache keeps at most; the chunks used least recently go first (though
never those of the print that is saving)."""

ORPHAN_SECONDS = 3600.0
"""A chunk file the index does not name (another print of the pack may still be running) is
removed only once it is this old."""

POSITIONAL = re.compile(r"nth-|-child|-of-type|[~+]|data-card|@page", re.IGNORECASE)
"""What in a stylesheet may style a face by its place among the others (or `+` in a calc(),
which costs only the cache)."""

_STYLE = re.compile(r"<style\b(.*?)</style", re.IGNORECASE | re.DOTALL)


@dataclass(frozen=True)
class Hit:
    """Where a face's page was laid out before, and whether its text was clipped then."""

    chunk: str  # the chunk PDF's SHA-256
    page: int
    clipped: bool


@dataclass
class _Entry:
    """A face's page in the index."""

    chunk: str
    page: int
    clipped: bool
    used: float

    @classmethod
    def parse(cls, raw: Any) -> _Entry | None:
        """An entry from the index's JSON, or None if it is not one."""
        if not (isinstance(raw, list) and len(raw) == 4):
            return None
        chunk, page, clipped, used = raw
        if not (isinstance(chunk, str) and _DIGEST.fullmatch(chunk)):  # a name, never a path
            return None
        if type(page) is not int or type(clipped) is not bool:
            return None
        if type(used) not in (int, float):
            return None
        try:
            when = float(used)
        except OverflowError:  # an integer of hundreds of digits
            return None
        return cls(chunk, page, clipped, when) if math.isfinite(when) else None

    def dump(self) -> list[Any]:
        """The entry as the index's JSON holds it."""
        return [self.chunk, self.page, self.clipped, self.used]


@dataclass
class _ChunkInfo:
    """A kept chunk: its page count, each path its layout read -> (file, SHA-256), the key of
    the face on each page, and the pages whose text was clipped."""

    pages: int
    files: dict[str, tuple[str, str]]
    faces: list[str]
    clipped: list[int]

    @classmethod
    def parse(cls, raw: Any) -> _ChunkInfo | None:
        """A chunk's record from the index's JSON, or None if it is not one."""
        if not isinstance(raw, dict) or type(raw.get("pages")) is not int:
            return None
        files, faces, clipped = raw.get("files"), raw.get("faces"), raw.get("clipped")
        if not isinstance(files, dict) or not isinstance(faces, list):
            return None
        if len(faces) != raw["pages"] or not all(isinstance(key, str) for key in faces):
            return None
        if not isinstance(clipped, list):
            return None
        if not all(type(page) is int and 0 <= page < len(faces) for page in clipped):
            return None
        parsed: dict[str, tuple[str, str]] = {}
        for asked, target in files.items():
            if not (isinstance(target, list) and len(target) == 2):
                return None
            if not all(isinstance(part, str) for part in target):
                return None
            parsed[asked] = (target[0], target[1])
        return cls(raw["pages"], parsed, faces, clipped)

    def dump(self) -> dict[str, Any]:
        """The record as the index's JSON holds it."""
        files = {k: list(v) for k, v in self.files.items()}
        return {"pages": self.pages, "files": files, "faces": self.faces, "clipped": self.clipped}


@dataclass
class FaceCache:
    """The face pages of one pack's earlier prints, for one card design and geometry."""

    folder: Path
    design: str  # a hash of the stylesheet and the page geometry
    roots: tuple[Path, ...]  # the folders the fence lets a layout read
    faces: dict[str, _Entry] = field(default_factory=dict)
    chunks: dict[str, _ChunkInfo] = field(default_factory=dict)
    used: set[str] = field(default_factory=set)  # chunks this print read or wrote
    _usable_chunks: dict[str, bool] = field(default_factory=dict)
    _by_faces: dict[tuple[str, ...], str] | None = None  # each chunk by its faces' keys
    _files: dict[str, tuple[str, str] | None] = field(default_factory=dict)

    @classmethod
    def open(
        cls, pack_root: Path, stylesheet: str, geometry: str, roots: Sequence[Path]
    ) -> FaceCache | None:
        """The cache of a pack's face pages; None when caches are off or cannot serve."""
        if not cache.is_enabled() or POSITIONAL.search(stylesheet):
            return None
        name = hashlib.sha256(str(pack_root.resolve()).encode()).hexdigest()[:24]
        design = hashlib.sha256(f"{stylesheet}\0{geometry}".encode()).hexdigest()
        resolved = tuple(root.resolve() for root in roots)
        opened = cls(cache.cache_dir() / f"print-{name}", design, resolved)
        opened.faces, opened.chunks = _read_index(opened.folder)
        return opened

    def key(self, face: Face) -> str:
        """What the face's page depends on, hashed (not which card it is: that is not drawn)."""
        return face_key(self.design, face)

    def find_chunk(self, faces: Sequence[Face]) -> list[Hit] | None:
        """The pages of a chunk laid out before from these very faces in this order, if it is
        still as it was written; None if there is none."""
        if not faces or any(_positional(face) for face in faces):
            return None
        keys = [self.key(face) for face in faces]
        if self._by_faces is None:
            self._by_faces = {tuple(info.faces): d for d, info in self.chunks.items()}
        digest = self._by_faces.get(tuple(keys))
        if digest is None or not self._usable(digest):
            return None
        clipped = set(self.chunks[digest].clipped)
        now = time.time()
        for page, key in enumerate(keys):  # so that the cache keeps the chunk as used
            self.faces[key] = _Entry(digest, page, page in clipped, now)
        self.used.add(digest)
        return [Hit(digest, page, page in clipped) for page in range(len(keys))]

    def find(self, face: Face) -> Hit | None:
        """The face's page from an earlier print, if its chunk is still as it was written
        (whichever faces were its neighbours there)."""
        if _positional(face):
            return None
        entry = self.faces.get(self.key(face))
        if entry is None:
            return None
        info = self.chunks.get(entry.chunk)
        if info is None or not 0 <= entry.page < info.pages or not self._usable(entry.chunk):
            return None
        entry.used = time.time()
        self.used.add(entry.chunk)
        return Hit(entry.chunk, entry.page, entry.clipped)

    def read(self, digest: str) -> bytes | None:
        """A chunk PDF, if it is whole (its name is its hash) and has the pages the index says
        (an index edited or damaged may say otherwise)."""
        info = self.chunks.get(digest)
        try:
            data = (self.folder / f"{digest}.pdf").read_bytes()
        except OSError:
            return None
        if info is None or hashlib.sha256(data).hexdigest() != digest:
            return None
        return data if _pages(data) == info.pages else None

    def keep(self, faces: Sequence[Face], chunk: Chunk) -> None:
        """Remember a newly laid-out chunk, which holds these faces' pages in order."""
        if chunk.refused or not chunk.data or any(_positional(face) for face in faces):
            return
        digest = hashlib.sha256(chunk.data).hexdigest()
        if not cache.write_file(self.folder / f"{digest}.pdf", chunk.data):
            return
        keys = [self.key(face) for face in faces]
        clipped = [page for page, face in enumerate(faces) if face.key in chunk.clipped]
        self.chunks[digest] = _ChunkInfo(len(faces), dict(chunk.fetched), keys, clipped)
        if self._by_faces is not None:
            self._by_faces[tuple(keys)] = digest
        self._usable_chunks[digest] = True
        self.used.add(digest)
        now = time.time()
        for page, key in enumerate(keys):
            self.faces[key] = _Entry(digest, page, page in clipped, now)

    def save(self) -> None:
        """Write the index, merged with any other print's, and drop what it no longer names.

        The chunks used least recently go past MAX_BYTES. Nothing here may fail a print.
        """
        with _locked(self.folder):
            faces, chunks = _read_index(self.folder)  # another print may have saved meanwhile
            faces.update(self.faces)
            chunks.update(self.chunks)
            kept, evicted = self._within_budget(faces)
            faces = {k: e for k, e in faces.items() if e.chunk in kept and e.chunk in chunks}
            chunks = {d: info for d, info in chunks.items() if d in kept}
            data = {
                "faces": {k: e.dump() for k, e in faces.items()},
                "chunks": {d: info.dump() for d, info in chunks.items()},
            }
            cache.write_json(self.folder / "index.json", _stamp(), data)
            self._remove_unnamed(kept, evicted)

    def _within_budget(self, faces: dict[str, _Entry]) -> tuple[set[str], set[str]]:
        """The chunks to keep (this print's, then the most recently used, up to MAX_BYTES),
        and those named that are not kept."""
        last_use: dict[str, float] = {}
        for entry in faces.values():
            last_use[entry.chunk] = max(last_use.get(entry.chunk, 0.0), entry.used)
        for digest in self.used:  # one whose every face another chunk also holds, say
            last_use.setdefault(digest, time.time())
        kept: set[str] = set()
        total = 0
        for digest in sorted(last_use, key=lambda d: (d not in self.used, -last_use[d])):
            size = _size(self.folder / f"{digest}.pdf")
            if size is None or (total + size > MAX_BYTES and digest not in self.used):
                continue
            kept.add(digest)
            total += size
        return kept, set(last_use) - kept

    def _remove_unnamed(self, kept: set[str], evicted: set[str]) -> None:
        """Remove evicted chunk files, and others the index does not name once they are old."""
        now = time.time()
        try:
            stale = list(self.folder.glob("*.pdf"))
        except OSError:
            return
        for path in stale:
            if path.stem in kept:
                continue
            age = now - (_mtime(path) or now)
            if path.stem in evicted or age > ORPHAN_SECONDS:
                with contextlib.suppress(OSError):
                    path.unlink()

    def _usable(self, digest: str) -> bool:
        """Whether a chunk is on disk and every file it read is unchanged (checked once)."""
        if digest not in self._usable_chunks:
            info = self.chunks[digest]
            self._usable_chunks[digest] = (self.folder / f"{digest}.pdf").is_file() and all(
                self._file(asked) == target for asked, target in info.files.items()
            )
        return self._usable_chunks[digest]

    def _file(self, asked: str) -> tuple[str, str] | None:
        """The regular file a path leads to inside the allowed folders, and its SHA-256."""
        if asked not in self._files:
            self._files[asked] = _regular_file(Path(asked), self.roots)
        return self._files[asked]


def _positional(face: Face) -> bool:
    """Whether a face brings a style of its own that may depend on its neighbours."""
    return "<style" in face.html.lower() and any(
        POSITIONAL.search(css) for css in _STYLE.findall(face.html)
    )


def _pages(data: bytes) -> int | None:
    """The number of pages of a PDF; None if it is not one."""
    import pikepdf

    try:
        with pikepdf.open(io.BytesIO(data)) as pdf:
            return len(pdf.pages)
    except (pikepdf.PdfError, ValueError, RuntimeError):
        return None


def _regular_file(path: Path, roots: Sequence[Path]) -> tuple[str, str] | None:
    """As the fence would read it: the file a path leads to, if it is a regular file inside the
    roots, of one link (or pillbox's own), not too large; with its SHA-256. Never blocks on a
    FIFO or device, never reads past the size limit."""
    try:
        target = path.resolve()
        if not any(target.is_relative_to(root) for root in roots):
            return None
        handle = os.open(target, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    except (OSError, RuntimeError, ValueError):  # a loop of symbolic links; a NUL in the path
        return None
    try:
        status = os.fstat(handle)
        if not stat.S_ISREG(status.st_mode) or status.st_size > MAX_RESOURCE_BYTES:
            return None
        if hard_linked(target, status.st_nlink):
            return None
        digest = hashlib.sha256()
        with os.fdopen(os.dup(handle), "rb") as stream:
            digest.update(stream.read(MAX_RESOURCE_BYTES + 1))
        return str(target), digest.hexdigest()
    except OSError:
        return None
    finally:
        os.close(handle)


def _read_index(folder: Path) -> tuple[dict[str, _Entry], dict[str, _ChunkInfo]]:
    """The index's entries that make sense; nothing from a damaged or foreign index."""
    index = cache.read_json(folder / "index.json", _stamp())
    faces: dict[str, _Entry] = {}
    chunks: dict[str, _ChunkInfo] = {}
    if isinstance(index, dict) and isinstance(index.get("faces"), dict):
        for key, raw in index["faces"].items():
            entry = _Entry.parse(raw)
            if entry is not None:
                faces[key] = entry
    if isinstance(index, dict) and isinstance(index.get("chunks"), dict):
        for digest, raw in index["chunks"].items():
            info = _ChunkInfo.parse(raw)
            if info is not None and _DIGEST.fullmatch(digest):
                chunks[digest] = info
    return faces, chunks


@contextlib.contextmanager
def _locked(folder: Path) -> Iterator[None]:
    """Hold the pack's cache lock (where the system has one) while its index is rewritten."""
    try:
        import fcntl

        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        handle = os.open(folder / ".lock", os.O_RDWR | os.O_CREAT, 0o600)
    except (ImportError, OSError):
        yield
        return
    try:
        with contextlib.suppress(OSError):
            fcntl.flock(handle, fcntl.LOCK_EX)
        yield
    finally:
        os.close(handle)


def _stamp() -> dict[str, Any]:
    from weasyprint import __version__ as weasyprint_version
    from weasyprint.text.ffi import pango

    return {
        "format": _FORMAT,
        "tool": cache.tool_fingerprint(),
        "weasyprint": weasyprint_version,
        "pango": pango.pango_version(),
    }


def _size(path: Path) -> int | None:
    try:
        return path.stat().st_size
    except OSError:
        return None


def _mtime(path: Path) -> float | None:
    try:
        return path.stat().st_mtime
    except OSError:
        return None


def face_key(design: str, face: Face) -> str:
    """A face and the design it is laid out in, hashed: not which card it is, not drawn."""
    digest = hashlib.sha256(design.encode("utf-8", "surrogatepass"))
    for part in (face.kind, face.html, face.image):
        digest.update(b"\0" + part.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()
