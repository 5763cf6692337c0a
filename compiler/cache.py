"""The incremental check cache: plain JSON, keyed by content, ruleset and pillbox version.

It lives in a folder the user owns (`$PILLBOX_CACHE_DIR`, else `$XDG_CACHE_HOME/pillbox`, else
`~/.cache/pillbox`), never in a shared temporary folder, and holds only JSON: nothing in it is
ever executed or unpickled. A damaged or foreign cache file is ignored and rewritten.

Each pack has two files. `*.files.json` keeps every file's result (its cards' IR and
diagnostics) so a changed file is the only one checked again. `*.summary.json` keeps the whole
report of the last run under one key made of every file's key: when nothing changed, a re-check
reads only that small file.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from compiler import __version__
from compiler.collector import collector_paused

_FORMAT = 2
_ENABLED = [True]


@contextlib.contextmanager
def enabled(on: bool) -> Iterator[None]:
    """Within this block, read and write the caches only if `on` (`--no-cache` turns it off)."""
    before = _ENABLED[0]
    _ENABLED[0] = on
    try:
        yield
    finally:
        _ENABLED[0] = before


def is_enabled() -> bool:
    """Whether caches are read and written here (not inside `enabled(False)`)."""
    return _ENABLED[0]


@functools.cache
def tool_fingerprint() -> str:
    """A hash of pillbox's own code and data: any edit to them makes every cache entry stale."""
    digest = hashlib.sha256(__version__.encode())
    # runtime: `check` reports the words a game's module has no code for
    for package in ("dsl", "compiler", "runtime", "schemas", "content"):
        root = Path(str(resources.files(package)))
        for path in sorted(root.rglob("*")):
            if path.suffix in (".py", ".lark", ".json", ".yaml") and path.is_file():
                digest.update(str(path.relative_to(root)).encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()[:32]


def cache_dir() -> Path:
    """The folder this user's caches live in."""
    explicit = os.environ.get("PILLBOX_CACHE_DIR")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "pillbox"


def read_json(path: Path, stamp: dict[str, Any]) -> Any:
    """A cache file's data, or None if it is missing, damaged or stamped otherwise."""
    try:
        with collector_paused():  # a big JSON document makes many objects
            data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or any(data.get(k) != v for k, v in stamp.items()):
        return None
    return data.get("data")


def write_json(path: Path, stamp: dict[str, Any], data: Any) -> None:
    """Write a stamped cache file atomically; a cache that cannot be written is not an error."""
    write_file(path, json.dumps({**stamp, "data": data}, separators=(",", ":")).encode())


def write_file(path: Path, data: bytes) -> bool:
    """Write a cache file atomically, in a folder only this user may read; False if it cannot."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        handle, temporary = tempfile.mkstemp(prefix=".cache-", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(data)
            os.replace(temporary, path)
        finally:
            if os.path.exists(temporary):
                os.unlink(temporary)
    except OSError:
        return False
    return True


@dataclass
class CheckCache:
    """The cached results of one pack; the per-file part is read only when needed."""

    base: Path
    stamp: dict[str, Any]
    _files: dict[str, Any] | None = None
    used: dict[str, Any] = field(default_factory=dict)
    dirty: bool = False

    @classmethod
    def open(cls, pack_root: Path, ruleset_digest: str) -> CheckCache:
        """The cache of a pack, for one ruleset and this version of pillbox."""
        name = hashlib.sha256(str(pack_root.resolve()).encode()).hexdigest()[:24]
        stamp = {"format": _FORMAT, "tool": tool_fingerprint(), "ruleset": ruleset_digest}
        return cls(cache_dir() / f"check-{name}", stamp)

    def summary(self, key: str) -> dict[str, Any] | None:
        """The whole report of the last run, if every file is as it was then."""
        found = read_json(self.base.with_suffix(".summary.json"), self.stamp)
        if isinstance(found, dict) and found.get("key") == key:
            report = found.get("report")
            return report if isinstance(report, dict) else None
        return None

    def put_summary(self, key: str, report: dict[str, Any]) -> None:
        """Remember this run's whole report."""
        write_json(
            self.base.with_suffix(".summary.json"), self.stamp, {"key": key, "report": report}
        )

    def get(self, key: str) -> dict[str, Any] | None:
        """The cached result of one file, by its key."""
        if self._files is None:
            found = read_json(self.base.with_suffix(".files.json"), self.stamp)
            self._files = found if isinstance(found, dict) else {}
        result = self._files.get(key)
        if isinstance(result, dict):
            self.used[key] = result
            return result
        return None

    def put(self, key: str, result: dict[str, Any]) -> None:
        """Remember one file's fresh result."""
        self.used[key] = result
        self.dirty = True

    def save(self) -> None:
        """Keep the results used this run, dropping those of files that changed or went."""
        if self.dirty or (self._files is not None and len(self.used) != len(self._files)):
            write_json(self.base.with_suffix(".files.json"), self.stamp, self.used)


MAX_DOCUMENTS = 64


def remembered_document(kind: str, text: str) -> dict[str, Any] | None:
    """A YAML document (pack.yaml, a ruleset) that passed its schema before, as plain data."""
    if not _ENABLED[0]:
        return None
    found = read_json(cache_dir() / "documents.json", _document_stamp())
    if not isinstance(found, dict):
        return None
    entry = found.get(_document_key(kind, text))
    return entry if isinstance(entry, dict) else None


def remember_document(kind: str, text: str, payload: dict[str, Any]) -> None:
    """Keep a document that passed its schema, so the next run skips YAML and the schema."""
    if not _ENABLED[0]:
        return
    path = cache_dir() / "documents.json"
    found = read_json(path, _document_stamp())
    entries = dict(found) if isinstance(found, dict) else {}
    entries[_document_key(kind, text)] = payload
    while len(entries) > MAX_DOCUMENTS:
        entries.pop(next(iter(entries)))
    write_json(path, _document_stamp(), entries)


def _document_stamp() -> dict[str, Any]:
    return {"format": _FORMAT, "tool": tool_fingerprint()}


def _document_key(kind: str, text: str) -> str:
    return hashlib.sha256(f"{kind}\0{text}".encode("utf-8", "surrogatepass")).hexdigest()
