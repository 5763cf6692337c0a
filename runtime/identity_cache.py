"""What is worked out once from data that never changes in play but cannot be hashed (a
ruleset's params hold lists, a board holds dicts), kept by the object's identity.

Each entry keeps its object alive, so no other object can take its id while it is kept; past a
handful of objects (a process compiles a few packs) everything is forgotten and worked out again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

Key = TypeVar("Key")
Value = TypeVar("Value")


class IdentityCache(Generic[Key, Value]):
    """`make(key)`, worked out the first time a key is asked about, then kept by its id."""

    def __init__(self, make: Callable[[Key], Value], size: int = 64) -> None:
        self.make = make
        self.size = size
        self._known: dict[int, tuple[Key, Value]] = {}

    def __call__(self, key: Key) -> Value:
        """The value of this object, worked out once."""
        known = self._known.get(id(key))
        if known is None:
            if len(self._known) >= self.size:
                self._known.clear()
            known = self._known[id(key)] = (key, self.make(key))
        return known[1]

    def clear(self) -> None:
        """Forget every value."""
        self._known.clear()
