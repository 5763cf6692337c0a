"""`pillbox check`: resolve the inputs to packs, then parse, lower, validate and run the passes."""

from __future__ import annotations

import contextlib
import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from compiler import __version__
from compiler.cache import CheckCache, FileResult
from compiler.irschema import validate_card
from compiler.lower import LoweredCard, lower_file
from compiler.pack import (
    MANIFEST,
    Pack,
    card_files,
    display_path,
    find_manifest,
    load_pack,
    read_card_file,
)
from compiler.passes import run_passes
from compiler.ruleset import Ruleset, RulesetError, load_ruleset
from dsl.parser import parse
from dsl.spans import Diagnostic, Span


class UsageError(Exception):
    """The command line names something that does not exist or cannot be checked."""


@dataclass
class PackResult:
    """What checking one pack found."""

    pack: Pack
    ruleset: Ruleset | None
    files: list[str] = field(default_factory=list)
    cards: list[LoweredCard] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def errors(self) -> int:
        """How many errors this pack has."""
        return sum(1 for d in self.diagnostics if d.is_error)

    @property
    def warnings(self) -> int:
        """How many warnings this pack has."""
        return len(self.diagnostics) - self.errors

    @property
    def executable(self) -> float:
        """The share of this pack's effect lines that compile to code."""
        return executable_share(self.cards)


def executable_share(cards: list[LoweredCard]) -> float:
    """The share of effect lines that compile to code rather than `rule` text."""
    total = sum(c.effect_lines for c in cards)
    rules = sum(c.rule_lines for c in cards)
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
        return sum(len(p.cards) for p in self.packs)

    @property
    def executable(self) -> float:
        """The share of effect lines that compile to code rather than `rule` text."""
        return executable_share([c for p in self.packs for c in p.cards])


@dataclass
class _Target:
    """One pack to check, and which of its files to report on (None: all)."""

    pack: Pack | None
    manifest: Path | None
    selected: set[Path] | None
    problems: list[Diagnostic] = field(default_factory=list)


def resolve_targets(paths: list[Path], ruleset_override: str | None) -> list[_Target]:
    """Group the command line's paths by pack: folders, pack.yaml files and loose cards."""
    targets: dict[Path, _Target] = {}
    loose: dict[Path, set[Path]] = {}
    for path in paths:
        if not path.exists():
            raise UsageError(f"no such file or folder: {path}")
        if path.is_dir():
            manifest = path / MANIFEST
            if manifest.is_file():
                targets.setdefault(
                    manifest.resolve(), _Target(None, manifest, None)
                ).selected = None
            elif ruleset_override:
                loose.setdefault(path.resolve(), set()).update(
                    p.resolve() for p in sorted(path.glob("**/*.card"))
                )
            else:
                raise UsageError(f"{path} has no {MANIFEST}; name a ruleset with --ruleset")
        elif path.name == MANIFEST:
            targets.setdefault(path.resolve(), _Target(None, path, None)).selected = None
        else:
            found = None if ruleset_override else find_manifest(path)
            if found is None:
                if not ruleset_override:
                    raise UsageError(
                        f"{path} belongs to no pack: no {MANIFEST} above it; "
                        "name a ruleset with --ruleset"
                    )
                loose.setdefault(path.parent.resolve(), set()).add(path.resolve())
                continue
            target = targets.setdefault(found.resolve(), _Target(None, found, set()))
            if target.selected is not None:
                target.selected.add(path.resolve())
    for root, files in loose.items():
        assert ruleset_override is not None
        pack = Pack.loose(root, ruleset_override)
        pack.sources = tuple(str(f.relative_to(root)) for f in sorted(files))
        targets[root / MANIFEST] = _Target(pack, None, None)
    return list(targets.values())


def check_paths(
    paths: list[Path], ruleset_override: str | None = None, use_cache: bool = True
) -> CheckReport:
    """Check every pack the paths name; the report holds all diagnostics of all files."""
    report = CheckReport()
    if ruleset_override is not None:
        try:
            load_ruleset(ruleset_override)
        except RulesetError as error:
            first = error.diagnostics[0]
            if first.code == "E0410":
                raise UsageError(f"--ruleset: {first.message}; {first.help}") from None
    for target in resolve_targets(paths, ruleset_override):
        report.packs.append(_check_target(target, ruleset_override, report, use_cache))
    return report


def _check_target(
    target: _Target, ruleset_override: str | None, report: CheckReport, use_cache: bool
) -> PackResult:
    pack = target.pack
    if pack is None:
        assert target.manifest is not None
        _remember_source(report, target.manifest)
        pack, problems = load_pack(target.manifest)
        if pack is None:
            stand_in = Pack.loose(target.manifest.parent, ruleset_override or "?")
            return PackResult(stand_in, None, diagnostics=problems)
    try:
        if ruleset_override is not None:
            ruleset = load_ruleset(ruleset_override)
        else:
            ruleset = load_ruleset(pack.ruleset, base_dir=pack.root)
    except RulesetError as error:
        return PackResult(
            pack, None, diagnostics=[_at_manifest(d, pack) for d in error.diagnostics]
        )
    result = PackResult(pack, ruleset)
    paths, problems = card_files(pack)
    result.diagnostics.extend(problems)
    cache = CheckCache.open(pack.root, ruleset.digest) if use_cache else None
    for path in paths:
        shown = display_path(path)
        text, problem = read_card_file(path)
        if text is None:
            assert problem is not None
            result.diagnostics.append(problem)
            result.files.append(shown)
            continue
        report.sources[shown] = text
        key = _file_key(ruleset, shown, text)
        cached = cache.get(key) if cache is not None else None
        file_result = cached or _check_file(ruleset, shown, text)
        if cache is not None and cached is None:
            cache.put(key, file_result)
        result.files.append(shown)
        result.cards.extend(file_result.cards)
        result.diagnostics.extend(file_result.diagnostics)
    result.diagnostics.extend(run_passes(ruleset, result.cards))
    if cache is not None:
        cache.save()
    if target.selected is not None:
        chosen = {display_path(p) for p in target.selected}
        result.files = [f for f in result.files if f in chosen]
        result.cards = [c for c in result.cards if c.ir["file"] in chosen]
        result.diagnostics = [d for d in result.diagnostics if d.span.file in chosen]
    return result


def _remember_source(report: CheckReport, path: Path) -> None:
    """Keep a YAML file's text so its diagnostics can show the line."""
    with contextlib.suppress(OSError):
        report.sources[display_path(path)] = path.read_text(encoding="utf-8", errors="replace")


def _at_manifest(diagnostic: Diagnostic, pack: Pack) -> Diagnostic:
    """Ruleset problems found before any file is known point at the pack.yaml."""
    if diagnostic.span.file != "pack.yaml":
        return diagnostic
    span = pack.ruleset_span or Span.whole_file(display_path(pack.manifest))
    return Diagnostic(
        diagnostic.code, diagnostic.severity, diagnostic.message, span, diagnostic.help
    )


def _file_key(ruleset: Ruleset, shown: str, text: str) -> str:
    digest = hashlib.sha256()
    for part in (__version__, ruleset.digest, shown, text):
        digest.update(part.encode("utf-8", "surrogatepass"))
        digest.update(b"\0")
    return digest.hexdigest()


def _check_file(ruleset: Ruleset, shown: str, text: str) -> FileResult:
    """Parse, lower and schema-check one file; everything here depends on its text alone."""
    parsed, diagnostics = parse(text, shown)
    cards, lowering = lower_file(ruleset, parsed, shown)
    diagnostics.extend(lowering)
    for card in cards:
        if not card.has_errors:
            diagnostics.extend(validate_card(ruleset, card.ir))
    return FileResult(cards, diagnostics)
