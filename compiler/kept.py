"""What a process keeps of its own work for the next time it is asked the same.

Only a process that asks again gains by it: `serve` loads and compiles the pack at every save,
the language server at every keystroke. A command that runs once would only pay for the keys
and copies, so keeping is off until such a process turns it on.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable
from typing import Any, Generic, TypeVar

V = TypeVar("V")

_keeping = [False]


def keep_in_this_process(on: bool = True) -> None:
    """Keep results from now on (or, `on=False`, stop and forget them all)."""
    _keeping[0] = on
    if not on:
        for kept in _every:
            kept.clear()


def keeping() -> bool:
    """Whether this process keeps results."""
    return _keeping[0]


class Kept(Generic[V]):
    """The last `size` results by their keys, the least recently used dropped first."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[Hashable, V] = OrderedDict()
        _every.append(self)

    def get(self, key: Hashable) -> V | None:
        """The result kept for the key, if any."""
        found = self._items.get(key)
        if found is not None:
            self._items.move_to_end(key)
        return found

    def put(self, key: Hashable, value: V) -> None:
        """Keep a result."""
        self._items[key] = value
        if len(self._items) > self.size:
            self._items.popitem(last=False)

    def clear(self) -> None:
        """Forget every result."""
        self._items.clear()


_every: list[Kept[Any]] = []
