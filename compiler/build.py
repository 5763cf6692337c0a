"""From a pack on disk to compiled cards the runtime can play: check, then generate code.

`pillbox test`, `play` and `build` start here. A pack with errors does not compile: the caller
gets the diagnostics instead, as `pillbox check` would print them.
"""

from __future__ import annotations

import inspect
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from compiler.check import (
    UsageError,
    allow_warnings,
    open_target,
    read_card_texts,
    resolve_targets,
)
from compiler.codegen import CompiledFile, compile_file
from compiler.patterns import PatternTable
from compiler.pipeline import FileResult
from compiler.ruleset import Ruleset
from compiler.sheets import expand_sheets, remap_results
from dsl.spans import Diagnostic, Span
from runtime.cards import CardDef
from runtime.game import Game
from runtime.games import game_module
from runtime.library import Library
from runtime.module import GameModule
from runtime.rules import BlockRule, ChartRule, GameRules, ProcedureRule
from runtime.stats import DerivedRule

IR = dict[str, Any]


@dataclass
class CheckedFile:
    """One card file: its text and the IR of its cards."""

    file: str
    text: str
    cards: list[IR]
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

    @property
    def cards(self) -> list[IR]:
        """Every card's IR, in file order."""
        return [card for f in self.files for card in f.cards]


@dataclass
class LoadResult:
    """A checked pack, or the diagnostics that stopped it, with the sources to show them."""

    pack: CheckedPack | None
    diagnostics: list[Diagnostic]
    sources: dict[str, str]
    # files with errors left out because none of their cards was asked for (`only`)
    left_out: tuple[str, ...] = ()


def load_checked(
    path: Path, ruleset_override: str | None = None, only: str | None = None
) -> LoadResult:
    """Check one pack completely (no cache: the full IR is needed) and keep its IR.

    With `only` (the title or kind one command is about), card files with errors that hold
    no such card are left out, so one broken file does not stop playing a clean card."""
    from compiler.passes import PACK_PASSES, run_passes
    from compiler.pipeline import check_files

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
    errors = [d for d in diagnostics if d.severity == "error"]
    left_out: tuple[str, ...] = ()
    if errors and only is not None:
        kept = _without_broken(texts, results, errors, only)
        if kept is not None:
            left_out = tuple(shown for shown in texts if shown not in kept)
            texts = {shown: texts[shown] for shown in kept}
            results = [kept[shown] for shown in texts]
            lowered = [card for r in results for card in r.cards]
            diagnostics = problems + [d for r in results for d in r.diagnostics]
            diagnostics += run_passes(ruleset, lowered, PACK_PASSES)
            if any(d.severity == "error" for d in diagnostics):
                left_out = ()  # the rest has errors of its own: report them all, as before
            else:
                errors = []
    if errors or any(card.has_errors for card in lowered):
        return LoadResult(None, errors, sources)
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
        ),
        [],
        sources,
        left_out,
    )


def _without_broken(
    texts: dict[str, str], results: list[FileResult], errors: list[Diagnostic], only: str
) -> dict[str, FileResult] | None:
    """The files to keep when those with errors are left out; None when that cannot be done:
    an error outside the card files (pack.yaml), or a broken file that holds the card asked."""
    broken = {d.span.file for d in errors}
    by_file = dict(zip(texts, results, strict=True))
    if not broken <= set(by_file):
        return None
    for shown in broken:
        if any(
            only in (card.ir.get("title"), card.ir.get("kind")) for card in by_file[shown].cards
        ):
            return None
    return {shown: result for shown, result in by_file.items() if shown not in broken}


def game_rules(ruleset: Ruleset) -> GameRules:
    """The plain rules the runtime needs, taken from a checked ruleset."""
    data = ruleset.data
    places = data.get("places") or {}
    start = next((name for name, p in places.items() if (p or {}).get("start")), None)
    procedures = {
        name: ProcedureRule(name, rule.procedure, rule.result, rule.names, rule.params)
        for name, rule in ruleset.procedures.items()
    }
    blocks = {}
    for name, block in (data.get("blocks") or {}).items():
        if block is None:
            continue
        window = block.get("while_stat")
        while_stat = None
        if window:
            stat, (low, high) = next(iter(window.items()))
            while_stat = (stat, int(low), int(high))
        blocks[name] = BlockRule(
            name,
            block["body"],
            block.get("trigger"),
            bool(block.get("once", False)),
            block.get("applies"),
            while_stat,
            block["pattern"],
            sided=any(slot.name == "side" for slot in ruleset.blocks.by_name[name].slots),
        )
    return GameRules(
        name=ruleset.name,
        game=str(data.get("runtime", "base")),
        stats=tuple(ruleset.stats.values()),
        derived=tuple(DerivedRule(d.name, d.source, d.table) for d in ruleset.derived.values()),
        decks=dict(ruleset.decks),
        places=ruleset.places,
        start_place=start,
        procedures=procedures,
        blocks=blocks,
        charts=tuple(
            ChartRule(c.name, c.kind, c.key, c.symbol_kind, c.symbol_property)
            for c in ruleset.charts
        ),
        kind_decks={k.name: k.deck for k in ruleset.kinds.values() if k.deck is not None},
        bands={
            name: (stat, int(low), int(high))
            for name, band in (data.get("bands") or {}).items()
            if band
            for stat, (low, high) in band.items()
        },
        world=ruleset.world,
        narrated={k.name: k.narrated for k in ruleset.kinds.values() if k.narrated is not None},
        deck_tops={
            name: (tuple(top["kinds"]), int(top["cards"]))
            for name, deck in (data.get("decks") or {}).items()
            if (top := (deck or {}).get("shuffle_into_top"))
        },
    )


@dataclass
class CompiledPack:
    """A pack's cards compiled against its game's runtime module."""

    checked: CheckedPack
    rules: GameRules
    module: GameModule
    library: Library
    files: list[CompiledFile]

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
    return CompiledPack(checked, rules, module, library, files)


def runtime_problems(ruleset: Ruleset, module: GameModule, rules: GameRules) -> list[Diagnostic]:
    """Vocabulary the runtime module has but cannot call with the slots its pattern gives.

    A pack's own ruleset may redefine a verb's pattern (`rummage {place}`) that the module's
    function does not take: that is found here, before any card runs, not as a crash mid-game.
    """
    problems: list[Diagnostic] = []
    where = Span.whole_file(ruleset.file)

    def fits(section: str, name: str, function: Any, fixed: int, table: PatternTable) -> None:
        pattern = table.by_name.get(name)
        if pattern is None or function is None:
            return
        slots = {slot.name: None for slot in pattern.slots}
        try:
            inspect.signature(function).bind(*([None] * fixed), **slots)
        except TypeError as error:
            problems.append(
                Diagnostic(
                    "E0603",
                    "error",
                    f"the {module.name} runtime cannot run {section} {name!r} as the ruleset "
                    f"writes it ({pattern.source!r}): {error}",
                    where,
                    "keep the pattern's slots as the runtime takes them, or give the phrase "
                    "another name (an unknown name is printed and logged, not run)",
                )
            )

    for name in ruleset.verbs.by_name:
        fits("verb", name, module.verbs.get(name), 2, ruleset.verbs)
    for name in ruleset.conditions.by_name:
        fits("condition", name, module.conditions.get(name), 2, ruleset.conditions)
    for name in ruleset.values.by_name:
        value = module.values.get(name)
        if value is not None:
            fits("value", name, value.get, 2, ruleset.values)
            if value.set is not None and name in ruleset.settable_values:
                fits("value", name, value.set, 3, ruleset.values)
    return problems
