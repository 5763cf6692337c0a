"""Combining rulesets: the order in which a ruleset and those it extends merge, and the values
two of them give differently.

A ruleset may extend several (`extends: [house, base]`). They merge in one order, the
ruleset first, then its parents in the order written, each before the rulesets it extends and
a ruleset extended by several (base) after all of them: the C3 order Python gives a class's
bases. Earlier wins, key by key: the ruleset's own values over its parents', a game over the
base it extends, the first parent over the second. Where two rulesets neither of which
extends the other give the same key different values, the order alone would pick one game's
rule over the other's without a word; that is a conflict, which the combining ruleset settles
by stating the key itself (or removing it with null).
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import Any, TypeVar

from compiler.yamlio import YamlDocument

Key = TypeVar("Key", bound=Hashable)

IDENTITY = frozenset({"ruleset", "title", "version", "extends"})
"""Top-level keys that name a ruleset rather than state its rules: never a conflict."""


def linearize(own: Key, lineages: Sequence[Sequence[Key]]) -> list[Key] | None:
    """`own` and then its parents' lineages merged in C3 order; None if they cannot be (a
    parent listed before one that extends it).

    Linear in the lineages' length: a count of where each key still waits in a tail replaces
    searching every tail for each candidate (a chain of many files extending one another made
    that search cubic)."""
    heads = [lineage[0] for lineage in lineages if lineage]
    pending = [deque(sequence) for sequence in (*lineages, heads) if sequence]
    in_tails = Counter(key for sequence in pending for key in islice(sequence, 1, None))
    order = [own]
    while pending:
        head = next((seq[0] for seq in pending if not in_tails[seq[0]]), None)
        if head is None:
            return None
        order.append(head)
        for sequence in pending:
            if sequence[0] == head:  # a head in no tail is at the front wherever it is left
                sequence.popleft()
                if sequence:
                    in_tails[sequence[0]] -= 1
        pending = [sequence for sequence in pending if sequence]
    return order


@dataclass(frozen=True)
class Conflict:
    """An entry two unrelated rulesets define differently, and where each does."""

    entry: tuple[str, ...]  # ("verbs", "hit"), or ("runtime",)
    first: YamlDocument
    second: YamlDocument

    @property
    def name(self) -> str:
        """The entry as a reader finds it: `verbs › hit`."""
        return " › ".join(self.entry)

    def where(self, document: YamlDocument) -> str:
        """`content/house/ruleset.yaml:150`: where a ruleset defines the entry."""
        return f"{document.file}:{document.span(self.entry, key=True).line}"


def conflicts(
    top: YamlDocument,
    documents: Sequence[YamlDocument],
    related: Mapping[int, frozenset[int]],
) -> list[Conflict]:
    """The entries that two rulesets of `documents` (in merge order, `top` not among them),
    neither extending the other (`related`: each index's ancestors), give different values
    and that `top` does not state itself."""
    found: dict[tuple[str, ...], Conflict] = {}
    leaves = [dict(_leaves(document.data)) for document in documents]
    for a, first in enumerate(documents):
        for b in range(a + 1, len(documents)):
            if b in related[a] or a in related[b]:
                continue
            for path in sorted(leaves[a].keys() & leaves[b].keys()):
                if leaves[a][path] == leaves[b][path] or _settled(top.data, path):
                    continue
                entry = path[:2] if isinstance(first.data.get(path[0]), dict) else path[:1]
                found.setdefault(entry, Conflict(entry, first, documents[b]))
    return list(found.values())


def _leaves(data: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    """Every value that is not a mapping, with its path of keys (what the merge picks)."""
    if isinstance(data, dict) and (path or data):
        for key, value in data.items():
            if not path and key in IDENTITY:
                continue
            yield from _leaves(value, (*path, str(key)))
    else:
        yield path, data


def _settled(data: Any, path: tuple[str, ...]) -> bool:
    """Whether the combining ruleset states this value, or replaces what holds it."""
    for key in path:
        if not isinstance(data, dict) or key not in data:
            return False
        data = data[key]
        if not isinstance(data, dict):
            return True
    return True
