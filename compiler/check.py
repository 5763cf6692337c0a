"""`pillbox check`: resolve the inputs to packs, then parse, lower, validate and run the passes."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from compiler.cache import CheckCache, tool_fingerprint
from compiler.cache import enabled as cache_enabled
from compiler.collector import collector_paused
from compiler.errors import UsageError
from compiler.gameneeds import game_needs_problems, pack_counts
from compiler.ir import CardFacts
from compiler.opening import Target, card_size_of, open_target, read_card_texts, resolve_targets
from compiler.pack import (
    Pack,
    display_path,
    resolved,
)
from compiler.passes import PACK_PASSES, kind_span, run_passes
from compiler.pipeline import FileResult, check_files
from compiler.printing.art import art_problems, art_references
from compiler.ruleset import Ruleset, RulesetError, load_ruleset
from compiler.sheets import Expansion, expand_sheets, remap_results
from compiler.wholegame import whole_game_problems
from dsl.spans import Diagnostic


@dataclass(frozen=True)
class FileStats:
    """How many cards and effect lines one checked file holds."""

    file: str
    cards: int
    effect_lines: int
    rule_lines: int


@dataclass
class PackResult:
    """What checking one pack found."""

    pack: Pack
    ruleset: Ruleset | None
    files: list[FileStats] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    allowed: int = 0  # warnings pack.yaml's `allow:` silenced
    untested: list[Diagnostic] = field(default_factory=list)  # W0331, shown with --strict-tests

    @property
    def errors(self) -> int:
        """How many errors this pack has."""
        return sum(1 for d in self.diagnostics if d.is_error)

    @property
    def warnings(self) -> int:
        """How many warnings this pack has."""
        return len(self.diagnostics) - self.errors

    @property
    def card_count(self) -> int:
        """How many card definitions were checked."""
        return sum(f.cards for f in self.files)

    @property
    def executable(self) -> float:
        """The share of this pack's effect lines that compile to code."""
        return executable_share(self.files)


def allow_warnings(diagnostics: list[Diagnostic], pack: Pack) -> tuple[list[Diagnostic], int]:
    """The diagnostics without the warnings whose code pack.yaml allows, and how many those
    were; errors are never silenced."""
    kept = [d for d in diagnostics if d.is_error or d.code not in pack.allowed]
    return kept, len(diagnostics) - len(kept)


def executable_share(files: list[FileStats]) -> float:
    """The share of effect lines that compile to code rather than `rule` text."""
    total = sum(f.effect_lines for f in files)
    rules = sum(f.rule_lines for f in files)
    return 1.0 if total == 0 else (total - rules) / total


@dataclass
class CheckReport:
    """Everything one `pillbox check` run found, across every pack it was given."""

    packs: list[PackResult] = field(default_factory=list)
    sources: dict[str, str] = field(default_factory=dict)

    @property
    def diagnostics(self) -> list[Diagnostic]:
        """All diagnostics, sorted by file and position, without duplicates."""
        unique = {d: None for p in self.packs for d in p.diagnostics}
        return sorted(unique, key=Diagnostic.sort_key)

    @property
    def errors(self) -> int:
        """How many errors were found."""
        return sum(1 for d in self.diagnostics if d.is_error)

    @property
    def warnings(self) -> int:
        """How many warnings were found."""
        return sum(1 for d in self.diagnostics if not d.is_error)

    @property
    def files(self) -> int:
        """How many card files were checked."""
        return sum(len(p.files) for p in self.packs)

    @property
    def cards(self) -> int:
        """How many card definitions were checked."""
        return sum(p.card_count for p in self.packs)

    @property
    def executable(self) -> float:
        """The share of effect lines that compile to code rather than `rule` text."""
        return executable_share([f for p in self.packs for f in p.files])


def check_paths(
    paths: list[Path],
    ruleset_override: str | None = None,
    use_cache: bool = True,
    validate_ir: bool | None = None,
    strict_tests: bool = False,
) -> CheckReport:
    """Check every pack the paths name; the report holds all diagnostics of all files (and,
    with `strict_tests`, a warning for each card with effects and no test).

    `validate_ir` also checks every card's IR against the IR schema: it only finds bugs in
    pillbox itself and costs more than the rest of the check, so it is off unless asked for
    (or PILLBOX_VALIDATE_IR=1).
    """
    if validate_ir is None:
        validate_ir = os.environ.get("PILLBOX_VALIDATE_IR") == "1"
    report = CheckReport()
    if ruleset_override is not None:
        try:
            with cache_enabled(use_cache):
                load_ruleset(ruleset_override)
        except RulesetError as error:
            first = error.diagnostics[0]
            if first.code == "E0410":
                raise UsageError(f"--ruleset: {first.message}; {first.help}") from None
    with cache_enabled(use_cache), collector_paused():
        for target in resolve_targets(paths, ruleset_override):
            result = _check_target(target, ruleset_override, report, use_cache, validate_ir)
            if strict_tests:
                result.diagnostics = sorted(
                    [*result.diagnostics, *result.untested], key=Diagnostic.sort_key
                )
            report.packs.append(result)
    return report


def _check_target(
    target: Target,
    ruleset_override: str | None,
    report: CheckReport,
    use_cache: bool,
    validate_ir: bool,
) -> PackResult:
    opened = open_target(target, ruleset_override, report.sources)
    pack, ruleset, paths, problems = opened.pack, opened.ruleset, opened.paths, opened.problems
    if ruleset is None:
        return PackResult(pack, None, diagnostics=problems)
    result = _check_pack_files(pack, ruleset, paths, problems, report, use_cache, validate_ir)
    result.diagnostics, result.allowed = allow_warnings(result.diagnostics, pack)
    if target.selected is not None:
        by_resolved = {p.resolve(): display_path(p) for p in paths}
        for entry in pack.sheets:  # a sheet names the cards its rows make, and their template
            sheet, template = pack.root / entry.file, pack.root / entry.card
            sheet_at, template_at = resolved(sheet) or sheet, resolved(template) or template
            by_resolved.setdefault(sheet_at, display_path(sheet))
            if sheet_at in target.selected:
                target.selected.add(template_at)
                by_resolved.setdefault(template_at, display_path(template))
        outside = sorted(str(p) for p in target.selected if p not in by_resolved)
        if outside:
            raise UsageError(
                f"{outside[0]} is not one of the card files of pack {pack.name!r} "
                f"(see 'sources' in {display_path(pack.manifest)})"
            )
        chosen = {by_resolved[p] for p in target.selected}
        result.files = [f for f in result.files if f.file in chosen]
        result.diagnostics = [d for d in result.diagnostics if d.span.file in chosen]
        result.untested = [d for d in result.untested if d.span.file in chosen]
    return result


def _check_pack_files(
    pack: Pack,
    ruleset: Ruleset,
    paths: list[Path],
    problems: list[Diagnostic],
    report: CheckReport,
    use_cache: bool,
    validate_ir: bool,
) -> PackResult:
    """Check every file of a pack, from the cache where nothing changed, then the pack passes."""
    texts = read_card_texts(paths, problems)
    report.sources.update(texts)
    sheets = expand_sheets(pack, problems, report.sources)
    texts.update({shown: sheet.text for shown, sheet in sheets.items()})
    size = card_size_of(pack)
    cache = CheckCache.open(pack.root, ruleset.digest) if use_cache else None
    # A key hashes pillbox's own code (tool_fingerprint reads every file of it): only a cache
    # needs them, and `--no-cache` is the run that must start fast.
    keys = {
        shown: _file_key(
            ruleset,
            shown,
            sheets[shown].fingerprint() if shown in sheets else text,
            validate_ir,
            size,
        )
        for shown, text in texts.items()
        if cache is not None
    }
    pack_key = _combined_key(keys, problems)
    summary = cache.summary(pack_key) if cache is not None else None
    if summary is None:
        summary = _run_checks(ruleset, texts, keys, problems, cache, validate_ir, size, sheets)
        if cache is not None:
            cache.put_summary(pack_key, summary)
    # The art files are looked at every time: the cache knows the card text, not the images.
    art = art_problems(pack, ruleset.kinds, summary.get("art", []))
    whole = whole_game_problems(ruleset, report.sources)
    diagnostics = [Diagnostic.from_json(d) for d in summary["diagnostics"]] + art + whole
    if not any(d.is_error for d in diagnostics):  # cards that did not read are not counted
        diagnostics += game_needs_problems(pack, ruleset, summary["kinds"], summary["titles"])
    return PackResult(
        pack,
        ruleset,
        files=[FileStats(**f) for f in summary["files"]],
        diagnostics=diagnostics,
        untested=[Diagnostic.from_json(d) for d in summary.get("untested", [])],
    )


def _run_checks(
    ruleset: Ruleset,
    texts: dict[str, str],
    keys: dict[str, str],
    problems: list[Diagnostic],
    cache: CheckCache | None,
    validate_ir: bool,
    card_size: tuple[float, float] | None,
    sheets: dict[str, Expansion],
) -> dict[str, Any]:
    """Check the files the cache does not know, then run the passes across the pack."""
    results: dict[str, FileResult[CardFacts]] = {}
    missing: list[tuple[str, str]] = []
    for shown, text in texts.items():
        cached = cache.get(keys[shown]) if cache is not None else None
        if cached is not None:
            results[shown] = FileResult.from_json(cached)
        else:
            missing.append((shown, text))
    fresh_results = remap_results(
        sheets,
        [shown for shown, _ in missing],
        check_files(ruleset, missing, validate_ir, card_size=card_size),
    )
    for (shown, _), fresh in zip(missing, fresh_results, strict=True):
        results[shown] = fresh
        if cache is not None:
            cache.put(keys[shown], fresh.to_json())
    if cache is not None:
        cache.save()
    cards = [card for shown in texts for card in results[shown].cards]
    diagnostics = problems + [d for shown in texts for d in results[shown].diagnostics]
    diagnostics += run_passes(ruleset, cards, PACK_PASSES)
    files = [
        {
            "file": shown,
            "cards": len(results[shown].cards),
            "effect_lines": sum(c.effect_lines for c in results[shown].cards),
            "rule_lines": sum(c.rule_lines for c in results[shown].cards),
        }
        for shown in texts
    ]
    files += [
        {"file": d.span.file, "cards": 0, "effect_lines": 0, "rule_lines": 0}
        for d in problems
        if d.span.file not in texts and d.code in UNREADABLE_FILE_CODES
    ]
    untested = [_untested(card.ir) for card in cards if card.effect_lines and not card.ir["tests"]]
    kinds, titles = pack_counts(card.ir for card in cards)
    return {
        "files": files,
        "kinds": kinds,
        "titles": titles,
        "diagnostics": [d.to_json() for d in diagnostics],
        "untested": [d.to_json() for d in untested],
        "art": art_references(card.ir for card in cards),
    }


def _untested(card: CardFacts) -> Diagnostic:
    return Diagnostic(
        "W0331",
        "warning",
        f"{card['kind']} {card['title']!r} has effects and no test",
        kind_span(card),
        'add a test block, e.g. test "what it does" { expect ... }',
    )


UNREADABLE_FILE_CODES = frozenset({"E0402", "E0406", "E0407"})
"""Problems that stop a card file from being read; the file still counts as checked."""


def _file_key(
    ruleset: Ruleset, shown: str, text: str, validate_ir: bool, size: tuple[float, float] | None
) -> str:
    digest = hashlib.sha256()
    for part in (tool_fingerprint(), ruleset.digest, shown, str(validate_ir), str(size), text):
        digest.update(part.encode("utf-8", "surrogatepass"))
        digest.update(b"\0")
    return digest.hexdigest()


def _combined_key(keys: dict[str, str], problems: list[Diagnostic]) -> str:
    """One key for the whole pack: every file's key, and the problems met reading them."""
    digest = hashlib.sha256()
    for shown, key in keys.items():
        digest.update(f"{shown}\0{key}\0".encode("utf-8", "surrogatepass"))
    for problem in problems:
        digest.update(repr(problem).encode("utf-8", "surrogatepass"))
    return digest.hexdigest()
