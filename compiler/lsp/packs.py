"""The pack an edited file belongs to, and every file of it checked, as `check` would.

An editor sends a file's text as it is typed; the rest of the pack is read from disk. Each
file's result is kept by its text, so re-checking one edited file re-parses only that file.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from compiler.check import OpenedPack, allow_warnings, card_size_of, open_pack, read_card_texts
from compiler.pack import display_path, find_manifest
from compiler.passes import PACK_PASSES, run_passes
from compiler.pipeline import FileResult, check_file
from compiler.ruleset import Ruleset
from dsl.spans import Diagnostic

_KEPT_RESULTS = 4096
"""How many (file, text) results are kept: a few large packs' worth."""


@dataclass
class PackView:
    """One pack as the editor sees it: its ruleset and the text of each of its files."""

    opened: OpenedPack
    texts: dict[str, str]

    @property
    def ruleset(self) -> Ruleset | None:
        """The pack's ruleset; None when it or pack.yaml does not load."""
        return self.opened.ruleset


class PackChecker:
    """Checks edited files in their pack, remembering each file's result by its text."""

    def __init__(self) -> None:
        self._results: dict[tuple[str, str], FileResult] = {}

    def view(self, path: Path, text: str) -> PackView | None:
        """The pack of a file with its edited text in place; None for a file in no pack."""
        manifest = find_manifest(path)
        if manifest is None:
            return None
        opened = open_pack(manifest, {})
        texts = read_card_texts(opened.paths, opened.problems) if opened.ruleset else {}
        texts[display_path(path)] = text
        return PackView(opened, texts)

    def diagnostics(self, path: Path, text: str) -> list[Diagnostic]:
        """What `check` reports for this file, with the edited text standing for the saved."""
        pack = self.view(path, text)
        if pack is None or pack.ruleset is None:
            return []
        ruleset, shown = pack.ruleset, display_path(path)
        size = card_size_of(pack.opened.pack)
        results = {
            name: self._result(ruleset, name, body, size) for name, body in pack.texts.items()
        }
        cards = [card for result in results.values() for card in result.cards]
        found = pack.opened.problems + [d for r in results.values() for d in r.diagnostics]
        found += run_passes(ruleset, cards, PACK_PASSES)
        kept, _ = allow_warnings(found, pack.opened.pack)
        unique = {d: None for d in kept if d.span.file == shown}
        return sorted(unique, key=Diagnostic.sort_key)

    def _result(
        self, ruleset: Ruleset, shown: str, text: str, size: tuple[float, float] | None
    ) -> FileResult:
        key = (shown, text)
        found = self._results.get(key)
        if found is None:
            if len(self._results) >= _KEPT_RESULTS:
                self._results.clear()
            found = check_file(ruleset, shown, text, card_size=size).facts()
            self._results[key] = found
        return found
