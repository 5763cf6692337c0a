"""From a pack on disk to compiled cards the runtime can play: check, then generate code.

`pillbox test`, `play` and `build` start here. A pack with errors does not compile: the caller
gets the diagnostics instead, as `pillbox check` would print them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from compiler.check import allow_warnings
from compiler.codegen import CompiledFile, compile_file
from compiler.errors import UsageError
from compiler.gameneeds import game_needs_problems, pack_counts
from compiler.gamerules import game_rules
from compiler.ir import Card
from compiler.opening import open_target, read_card_texts, resolve_targets
from compiler.pack import BalanceBand, display_path
from compiler.passes import PACK_PASSES, run_passes
from compiler.pipeline import FileResult, check_files
from compiler.printing.art import art_problems, art_references
from compiler.ruleset import UNPLACED, Ruleset
from compiler.sheets import expand_sheets, remap_results
from compiler.wholegame_compile import compile_whole
from dsl.spans import Diagnostic, Span
from runtime.cards import CardDef
from runtime.game import Game
from runtime.games import game_module
from runtime.library import Library
from runtime.module import GameModule
from runtime.rules import GameRules
from runtime.wholerules import WholeRules


@dataclass
class CheckedFile:
    """One card file: its text and the IR of its cards."""

    file: str
    text: str
    cards: list[Card]
    from_sheet: bool = False  # its text is made from a sheet's rows: no lines to show


@dataclass
class CheckedPack:
    """A pack whose every card checked, with its ruleset; `selected` narrows what to report."""

    name: str
    ruleset: Ruleset
    files: list[CheckedFile]
    root: Path | None = None  # the pack folder
    title: str = ""
    print_settings: dict[str, Any] = field(default_factory=dict)  # pack.yaml's `print:`
    selected: set[str] | None = None  # shown paths of the files the command line named
    warnings: list[Diagnostic] = field(default_factory=list)
    ruleset_span: Span | None = None  # where pack.yaml names the ruleset, if it does
    balance: tuple[BalanceBand, ...] = ()  # pack.yaml's bands, for `test --balance`

    @property
    def cards(self) -> list[Card]:
        """Every card's IR, in file order."""
        return [card for f in self.files for card in f.cards]


@dataclass
class LoadResult:
    """A checked pack, or the diagnostics that stopped it, with the sources to show them."""

    pack: CheckedPack | None
    diagnostics: list[Diagnostic]
    sources: dict[str, str]
    # files with errors left out (`only`, `rest`); then `diagnostics` holds their errors
    left_out: tuple[str, ...] = ()
    left_out_cards: dict[str, list[Card]] = field(default_factory=dict)  # their cards' IR


def load_checked(
    path: Path, ruleset_override: str | None = None, only: str | None = None, rest: bool = False
) -> LoadResult:
    """Check one pack completely (no cache: the full IR is needed) and keep its IR.

    With `only` (the title or kind one command is about), card files with errors that hold
    no such card are left out, so one broken file does not stop playing a clean card. With
    `rest`, every file with errors is left out (`pillbox serve` shows the rest): only an error
    in pack.yaml, or in the ruleset, stops the pack."""
    targets = resolve_targets([path], ruleset_override)
    if len(targets) != 1:
        raise UsageError(f"{path} holds more than one pack; name one")
    target = targets[0]
    sources: dict[str, str] = {}
    opened = open_target(target, ruleset_override, sources)
    if opened.ruleset is None:
        return LoadResult(None, opened.problems, sources)
    ruleset = opened.ruleset
    problems = list(opened.problems)
    texts = read_card_texts(opened.paths, problems)
    sources.update(texts)
    sheets = expand_sheets(opened.pack, problems, sources)
    texts.update({shown: sheet.text for shown, sheet in sheets.items()})
    validate = os.environ.get("PILLBOX_VALIDATE_IR") == "1"
    results = check_files(ruleset, list(texts.items()), validate, full_ir=True)
    results = remap_results(sheets, list(texts), results)
    diagnostics = problems + [d for r in results for d in r.diagnostics]
    lowered = [card for r in results for card in r.cards]
    diagnostics += run_passes(ruleset, lowered, PACK_PASSES)
    art = art_references(card.ir for card in lowered)
    diagnostics += art_problems(opened.pack, ruleset.kinds, art)
    errors = [d for d in diagnostics if d.severity == "error"]
    by_file = dict(zip(texts, results, strict=True))
    kept: dict[str, FileResult[Card]] | None = by_file
    gone: set[str] = set()  # the files left out
    leaving: list[Diagnostic] = []  # the errors that left them out
    rest_errors = errors
    while rest_errors and kept is not None and (rest or (only is not None and not gone)):
        # Leaving a file out may break one that names its cards: `rest` leaves that out too.
        broken = {d.span.file for d in rest_errors}
        kept = _without_broken(kept, broken, only, display_path(opened.pack.manifest))
        if kept is not None:
            gone |= broken
            leaving += rest_errors
            lowered = [card for r in kept.values() for card in r.cards]
            diagnostics = [d for d in problems if d.span.file not in gone]
            diagnostics += [d for r in kept.values() for d in r.diagnostics]
            diagnostics += run_passes(ruleset, lowered, PACK_PASSES)
            kept_art = art_references(card.ir for card in lowered)
            diagnostics += art_problems(opened.pack, ruleset.kinds, kept_art)
            rest_errors = [d for d in diagnostics if d.severity == "error"]
    left_out: tuple[str, ...] = ()
    left_out_cards: dict[str, list[Card]] = {}
    if gone and kept is not None and not rest_errors:
        left_out = tuple([f for f in texts if f in gone] + sorted(gone - set(texts)))
        left_out_cards = {f: [c.ir for c in by_file[f].cards] for f in texts if f in gone}
        texts = {shown: texts[shown] for shown in kept}
        results = list(kept.values())
        errors = []
    elif gone:  # the rest has errors of its own: report them all, as before
        lowered = [card for r in results for card in r.cards]
    if errors or any(card.has_errors for card in lowered):
        return LoadResult(None, errors, sources)
    if not left_out:  # the whole pack: what its game lacks (W0324), as `check` says
        diagnostics += game_needs_problems(
            opened.pack, ruleset, *pack_counts(card.ir for card in lowered)
        )
    files = [
        CheckedFile(shown, text, [card.ir for card in result.cards], shown in sheets)
        for (shown, text), result in zip(texts.items(), results, strict=True)
    ]
    selected = None
    if target.selected is not None:
        selected = {shown for shown in texts if Path(shown).resolve() in target.selected}
    return LoadResult(
        CheckedPack(
            opened.pack.name,
            ruleset,
            files,
            opened.pack.root,
            opened.pack.title,
            dict(opened.pack.print_settings),
            selected,
            allow_warnings(diagnostics, opened.pack)[0],
            opened.pack.ruleset_span,
            opened.pack.balance,
        ),
        leaving if left_out else [],
        sources,
        left_out,
        left_out_cards,
    )


def _without_broken(
    by_file: dict[str, FileResult[Card]], broken: set[str], only: str | None, manifest: str
) -> dict[str, FileResult[Card]] | None:
    """The files to keep when those with errors are left out; None when that cannot be done:
    an error in pack.yaml (or one not placed in any file), or, for `only`, an error outside
    the card files or in a file that holds the card asked."""
    if broken & {manifest, UNPLACED}:
        return None
    if only is not None:
        if not broken <= set(by_file):
            return None
        for shown in broken:
            if any(
                only in (card.ir.get("title"), card.ir.get("kind")) for card in by_file[shown].cards
            ):
                return None
    return {shown: result for shown, result in by_file.items() if shown not in broken}


@dataclass
class CompiledPack:
    """A pack's cards compiled against its game's runtime module."""

    checked: CheckedPack
    rules: GameRules
    module: GameModule
    library: Library
    files: list[CompiledFile]
    whole: WholeRules | None = None  # the game played whole, when its ruleset says how

    @property
    def cards(self) -> list[CardDef]:
        """Every compiled card, in file order."""
        return [card for f in self.files for card in f.cards]

    def sources(self) -> dict[str, str]:
        """The text of each card file, by its shown path, for rendering diagnostics."""
        return {f.file: f.text for f in self.checked.files if not f.from_sheet}

    def new_game(self, **options: Any) -> Game:
        """A fresh game over this pack's cards (options as `Game` takes them)."""
        return Game(self.rules, self.cards, self.module, **options)


def compile_pack(checked: CheckedPack) -> CompiledPack:
    """Generate and load the module of every card file of a checked pack."""
    rules = game_rules(checked.ruleset)
    module = game_module(rules.game)
    library = Library(module, rules)
    files = [compile_file(checked.ruleset, f.cards, f.file, f.text, library) for f in checked.files]
    whole = compile_whole(checked.ruleset, library)
    return CompiledPack(checked, rules, module, library, files, whole)
