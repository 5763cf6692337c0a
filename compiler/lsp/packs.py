"""The pack an edited file belongs to, and every file of it checked, as `check` would.

An editor sends a file's text as it is typed; the rest of the pack is read from disk. Each
saved file's result is kept by its text, and the edited file's by each card's text
(`compiler.lsp.incremental`), so a keystroke re-checks one card and the pack-wide passes.
The problems of the pack's pack.yaml and ruleset files are kept apart, for the editor to show
on those files (`setup_problems`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pygls.workspace import TextDocument

from compiler.check import allow_warnings
from compiler.ir import CardFacts
from compiler.lower import LoweredCard
from compiler.lsp.incremental import CardChecker
from compiler.opening import OpenedPack, card_size_of, open_pack, read_card_texts
from compiler.pack import display_path, find_manifest
from compiler.passes import PACK_PASSES, run_passes
from compiler.pipeline import FileResult, check_file
from compiler.ruleset import Ruleset
from dsl.spans import Diagnostic

CARD_SUFFIX = ".card"
"""How a card file's name ends; the problems of other files are the pack's setup's."""

_KEPT_RESULTS = 4096
"""How many (file, text) results are kept: a few large packs' worth."""


@dataclass
class CheckedPack:
    """One pack as the editor sees it: its ruleset and each file's result, the edited one's
    from the text typed."""

    opened: OpenedPack
    ruleset: Ruleset
    results: dict[str, FileResult[CardFacts]]

    @property
    def cards(self) -> list[LoweredCard[CardFacts]]:
        """Every card of the pack, in file order."""
        return [card for result in self.results.values() for card in result.cards]

    @property
    def titles(self) -> list[str]:
        """The title of every card of the pack, each once, sorted."""
        return sorted({str(card.ir["title"]) for card in self.cards})


class PackChecker:
    """Checks edited files in their pack, remembering each file's result by its text."""

    def __init__(self) -> None:
        self._results: dict[tuple[object, ...], FileResult[CardFacts]] = {}
        self._cards = CardChecker()

    def of_document(self, document: TextDocument) -> CheckedPack | None:
        """The pack of an open document; None for one not saved as a file (`untitled:`)."""
        if not document.uri.startswith("file:"):
            return None
        return self.checked(Path(document.path), document.source)

    def checked(self, path: Path, text: str) -> CheckedPack | None:
        """The pack of a file with its edited text in place of the saved; None for a file in
        no pack or a pack whose pack.yaml or ruleset does not load."""
        manifest = find_manifest(path)
        if manifest is None:
            return None
        opened = open_pack(manifest, {})
        if opened.ruleset is None:
            return None
        texts = read_card_texts(opened.paths, opened.problems)
        edited = display_path(path)
        texts[edited] = text
        size = card_size_of(opened.pack)
        results = {
            name: self._cards.check(opened.ruleset, name, body, size)
            if name == edited
            else self._result(opened.ruleset, name, body, size)
            for name, body in texts.items()
        }
        return CheckedPack(opened, opened.ruleset, results)

    def setup_problems(self, document: TextDocument) -> tuple[Path, dict[str, list[Diagnostic]]]:
        """The pack.yaml of a document's pack, and what is wrong with it and with the ruleset
        files it names, by file (a card file's problems are its own diagnostics)."""
        manifest = find_manifest(Path(document.path)) if document.uri.startswith("file:") else None
        if manifest is None:
            return Path(document.path), {}
        found: dict[str, list[Diagnostic]] = {}
        for problem in open_pack(manifest, {}).problems:
            if not problem.span.file.endswith(CARD_SUFFIX):
                found.setdefault(problem.span.file, []).append(problem)
        return manifest, found

    def diagnostics(self, document: TextDocument) -> list[Diagnostic]:
        """What `check` reports for a document's file, its text as edited standing for the
        saved."""
        pack = self.of_document(document)
        if pack is None:
            return []
        found = pack.opened.problems + [d for r in pack.results.values() for d in r.diagnostics]
        found += run_passes(pack.ruleset, pack.cards, PACK_PASSES)
        kept, _ = allow_warnings(found, pack.opened.pack)
        shown = display_path(Path(document.path))
        unique = {d: None for d in kept if d.span.file == shown}
        return sorted(unique, key=Diagnostic.sort_key)

    def _result(
        self, ruleset: Ruleset, shown: str, text: str, size: tuple[float, float] | None
    ) -> FileResult[CardFacts]:
        key = (ruleset.digest, size, shown, text)  # an edited ruleset or card size: new results
        found = self._results.get(key)
        if found is None:
            if len(self._results) >= _KEPT_RESULTS:
                self._results.clear()
            found = check_file(ruleset, shown, text, card_size=size).facts()
            self._results[key] = found
        return found
