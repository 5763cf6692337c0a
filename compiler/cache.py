"""The incremental check cache: per-file results as JSON, keyed by content, ruleset and version.

It lives in a folder the user owns (`$PILLBOX_CACHE_DIR`, else `$XDG_CACHE_HOME/pillbox`, else
`~/.cache/pillbox`), never in a shared temporary folder, and holds only JSON: nothing in it is
ever executed or unpickled. A damaged or foreign cache file is ignored and rewritten.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from compiler import __version__
from compiler.lower import LoweredCard
from dsl.spans import Diagnostic

_FORMAT = 1


@dataclass
class FileResult:
    """What checking one file on its own found: its cards' IR and its diagnostics."""

    cards: list[LoweredCard]
    diagnostics: list[Diagnostic]

    def to_json(self) -> dict[str, Any]:
        """The cache's JSON form."""
        return {
            "cards": [
                {
                    "ir": c.ir,
                    "effect_lines": c.effect_lines,
                    "rule_lines": c.rule_lines,
                    "has_errors": c.has_errors,
                }
                for c in self.cards
            ],
            "diagnostics": [d.to_json() for d in self.diagnostics],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> FileResult:
        """Rebuild a result from the cache; the AST is not kept, the IR is enough."""
        cards = [
            LoweredCard(None, c["ir"], c["effect_lines"], c["rule_lines"], c["has_errors"])
            for c in data["cards"]
        ]
        return cls(cards, [Diagnostic.from_json(d) for d in data["diagnostics"]])


def cache_dir() -> Path:
    """The folder this user's caches live in."""
    explicit = os.environ.get("PILLBOX_CACHE_DIR")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "pillbox"


@dataclass
class CheckCache:
    """The cached file results of one pack, loaded once and saved once per run."""

    path: Path
    ruleset_digest: str
    entries: dict[str, Any]
    used: dict[str, Any] = field(default_factory=dict)
    dirty: bool = False

    @classmethod
    def open(cls, pack_root: Path, ruleset_digest: str) -> CheckCache:
        """Load the cache file of a pack, or start an empty one."""
        name = hashlib.sha256(str(pack_root.resolve()).encode()).hexdigest()[:24]
        path = cache_dir() / f"check-{name}.json"
        entries: dict[str, Any] = {}
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if (
                isinstance(data, dict)
                and data.get("format") == _FORMAT
                and data.get("version") == __version__
                and data.get("ruleset") == ruleset_digest
                and isinstance(data.get("files"), dict)
            ):
                entries = data["files"]
        except (OSError, ValueError):
            pass
        return cls(path, ruleset_digest, entries)

    def get(self, key: str) -> FileResult | None:
        """The cached result for a file key, if any."""
        found = self.entries.get(key)
        if found is None:
            return None
        try:
            result = FileResult.from_json(found)
        except (KeyError, TypeError, ValueError):
            return None
        self.used[key] = found
        return result

    def put(self, key: str, result: FileResult) -> None:
        """Remember a fresh result."""
        self.used[key] = result.to_json()
        self.dirty = True

    def save(self) -> None:
        """Write the entries used this run, atomically; failure to write is not an error."""
        if not self.dirty and len(self.used) == len(self.entries):
            return
        payload = {
            "format": _FORMAT,
            "version": __version__,
            "ruleset": self.ruleset_digest,
            "files": self.used,
        }
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            handle, temporary = tempfile.mkstemp(
                prefix=".check-", suffix=".tmp", dir=self.path.parent
            )
            try:
                with os.fdopen(handle, "w", encoding="utf-8") as out:
                    json.dump(payload, out, separators=(",", ":"))
                os.replace(temporary, self.path)
            finally:
                if os.path.exists(temporary):
                    os.unlink(temporary)
        except OSError:
            return
