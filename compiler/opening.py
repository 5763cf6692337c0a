"""Opening a pack: the command line's paths grouped by pack, its pack.yaml read, its ruleset
loaded, its card files listed and read. Every command that reads cards starts here (check,
build, the editor's server, the live preview, vocab); what it then does with them is its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from compiler.errors import UsageError
from compiler.pack import (
    MANIFEST,
    Pack,
    card_files,
    display_path,
    find_manifest,
    load_pack,
    read_card_file,
    read_manifest,
)
from compiler.printing.sizes import OptionError, card_size
from compiler.ruleset import UNPLACED, Ruleset, RulesetError, load_ruleset
from compiler.sources import SourceGlob, search_sources
from dsl.spans import Diagnostic, Span


@dataclass
class Target:
    """One pack to check, and which of its files to report on (None: all)."""

    pack: Pack | None
    manifest: Path | None
    selected: set[Path] | None
    problems: list[Diagnostic] = field(default_factory=list)


def _loose_cards(folder: Path) -> list[Path]:
    """The card files below a folder that is no pack, found as a pack's sources are."""
    search = search_sources(folder, [SourceGlob.compile("**/*.card")], MANIFEST)
    if search.stopped:
        raise UsageError(f"{folder}: {search.stopped[0]}")
    if search.outside:
        outside = display_path(search.outside[0][1])
        raise UsageError(f"{outside} links out of {folder}; name the file it leads to instead")
    return [path.resolve() for path in sorted(search.matches[0])]


def resolve_targets(paths: list[Path], ruleset_override: str | None) -> list[Target]:
    """Group the command line's paths by pack: folders, pack.yaml files and loose cards."""
    targets: dict[Path, Target] = {}
    loose: dict[Path, set[Path]] = {}
    for path in paths:
        if not path.exists():
            raise UsageError(f"no such file or folder: {path}")
        if path.is_dir():
            manifest = path / MANIFEST
            if manifest.is_file():
                targets.setdefault(manifest.resolve(), Target(None, manifest, None)).selected = None
            elif ruleset_override:
                loose.setdefault(path.resolve(), set()).update(_loose_cards(path))
            else:
                # A folder inside a pack (its cards/, say) is the pack, as a folder inside a
                # repository is the repository to git.
                above = find_manifest(path)
                if above is None:
                    raise UsageError(
                        f"{path} has no {MANIFEST}, nor any folder above it; "
                        "name a ruleset with --ruleset"
                    )
                targets.setdefault(above.resolve(), Target(None, above, None)).selected = None
        elif path.name == MANIFEST:
            targets.setdefault(path.resolve(), Target(None, path, None)).selected = None
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
            target = targets.setdefault(found.resolve(), Target(None, found, set()))
            if target.selected is not None:
                target.selected.add(path.resolve())
    for root, files in loose.items():
        assert ruleset_override is not None
        pack = Pack.loose(root, ruleset_override, tuple(sorted(files)))
        targets[root / MANIFEST] = Target(pack, None, None)
    return list(targets.values())


@dataclass
class OpenedPack:
    """A pack's manifest read and its ruleset loaded: what every command starts from."""

    pack: Pack
    ruleset: Ruleset | None
    paths: list[Path]
    problems: list[Diagnostic]


def open_target(
    target: Target, ruleset_override: str | None, sources: dict[str, str]
) -> OpenedPack:
    """Read a target's pack.yaml and ruleset and list its card files; problems are kept."""
    pack = target.pack
    if pack is None:
        assert target.manifest is not None
        stand_in = Pack.loose(target.manifest.parent, ruleset_override or "?")
        text, problem = read_manifest(target.manifest)
        if text is None:
            assert problem is not None
            return OpenedPack(stand_in, None, [], [problem])
        sources[display_path(target.manifest)] = text
        pack, problems = load_pack(target.manifest, text)
        if pack is None:
            return OpenedPack(stand_in, None, [], problems)
    try:
        if ruleset_override is not None:
            ruleset = load_ruleset(ruleset_override)
        else:
            ruleset = load_ruleset(pack.ruleset, base_dir=pack.root)
    except RulesetError as error:
        return OpenedPack(pack, None, [], [_at_manifest(d, pack) for d in error.diagnostics])
    paths, problems = card_files(pack)
    if not paths and not problems and not pack.sheets:
        problems.append(
            Diagnostic(
                "W0409",
                "warning",
                f"pack {pack.name!r} has no card files",
                pack.sources_spans[0]
                if pack.sources_spans
                else Span.whole_file(display_path(pack.manifest)),
                "card files end in .card; 'sources' in pack.yaml says where they are",
            )
        )
    return OpenedPack(pack, ruleset, paths, problems)


def open_pack(manifest: Path, sources: dict[str, str]) -> OpenedPack:
    """Read one pack.yaml and its ruleset and list its card files (the editor's server)."""
    return open_target(Target(None, manifest, None), None, sources)


def read_card_texts(paths: list[Path], problems: list[Diagnostic]) -> dict[str, str]:
    """The text of each card file by its shown path; files that cannot be read add problems."""
    texts: dict[str, str] = {}
    for path in paths:
        shown = display_path(path)
        text, problem = read_card_file(path)
        if text is None:
            assert problem is not None
            problems.append(problem)
        else:
            texts[shown] = text
    return texts


def _at_manifest(diagnostic: Diagnostic, pack: Pack) -> Diagnostic:
    """Ruleset problems found before any file is known point at the pack.yaml."""
    if diagnostic.span.file != UNPLACED:
        return diagnostic
    span = pack.ruleset_span or Span.whole_file(display_path(pack.manifest))
    return Diagnostic(
        diagnostic.code, diagnostic.severity, diagnostic.message, span, diagnostic.help
    )


def card_size_of(pack: Pack) -> tuple[float, float] | None:
    """The card size the pack prints at, which the fit estimate needs; None when pack.yaml
    names none that is valid (that error is the pack.yaml's own)."""
    try:
        return card_size(str(pack.print_settings.get("card", "poker")))
    except OptionError:
        return None
