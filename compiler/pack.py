"""Content packs: `pack.yaml`, validated by its schema, and the card files it names."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from compiler.bands import TargetError, parse_target
from compiler.printing.sizes import print_problems
from compiler.quickschema import Unsupported, is_valid
from compiler.schemaerrors import schema_diagnostics
from compiler.sources import SOURCES_HELP, SourceGlob, SourceLimit, search_sources
from compiler.yamlio import MAX_MANIFEST_BYTES, YamlDocument, load_valid_yaml, scalar_span
from dsl.spans import Diagnostic, Span

MANIFEST = "pack.yaml"
MAX_CARD_FILE_BYTES = 5_000_000
MAX_FILES = 10_000
DEFAULT_SOURCES = ("**/*.card",)


def display_path(path: Path) -> str:
    """How diagnostics name a file: relative to the working directory where possible."""
    try:
        return os.path.relpath(path)
    except ValueError:
        return str(path)


TOOL_FOLDERS = tuple(
    Path(str(resources.files(package))).resolve()
    for package in ("compiler", "content", "schemas", "dsl", "runtime")
)
"""pillbox's own installed files: an installer may hard-link them from its cache (uv does)."""


def tool_file(path: Path) -> bool:
    """Whether a file is one of pillbox's own (its templates, fonts, bundled packs)."""
    resolved = path.resolve()
    return any(resolved.is_relative_to(folder) for folder in TOOL_FOLDERS)


def resolved(path: Path) -> Path | None:
    """The path with its links followed; None where they loop (RuntimeError on Python 3.11)
    or the name is one the system cannot take (a NUL)."""
    try:
        return path.resolve()
    except (OSError, RuntimeError, ValueError):
        return None


def hard_linked(path: Path, links: int | None = None) -> bool:
    """Whether a pack file has other names: a hard link may be one to a file outside the pack
    (an unpacked archive can make them), which path checks cannot see. pillbox's own files
    are never counted: installers hard-link them. `links`: the count, if already read."""
    count = path.stat().st_nlink if links is None else links
    return count > 1 and not tool_file(path)


def hard_link_refused(shown: str) -> Diagnostic:
    """The problem of a pack file that is a hard link: it is not read, so nothing of it shows."""
    return Diagnostic(
        "E0414",
        "error",
        f"{shown} is a hard link: it may be a file outside the pack, so it is not read",
        Span.whole_file(shown),
        "copy the file instead of linking it (cp, not ln or cp -l)",
    )


@dataclass(frozen=True)
class SheetEntry:
    """One `sheets:` entry of pack.yaml: the sheet file, its template card, the xlsx sheet."""

    file: str
    card: str
    sheet: str | None
    span: Span  # the entry in pack.yaml


@dataclass(frozen=True)
class BalanceBand:
    """A band of `balance:` in pack.yaml: a figure's band, and the sweep that judges it."""

    band: str
    policy: str
    players: int | None
    games: int
    seed: int
    span: Span  # the band's text in pack.yaml


BALANCE_GAMES = 400
"""The most games a band is judged on unless it says."""


@dataclass
class Pack:
    """A loaded pack.yaml: the pack's identity, ruleset reference and source globs."""

    name: str
    title: str
    version: str
    root: Path
    manifest: Path
    ruleset: str
    sources: tuple[str, ...] = DEFAULT_SOURCES
    print_settings: dict[str, Any] = field(default_factory=dict)
    allowed: dict[str, str] = field(default_factory=dict)  # warning code -> why it is silenced
    ruleset_span: Span | None = None  # where pack.yaml names the ruleset
    sources_spans: tuple[Span, ...] = ()
    listed: tuple[Path, ...] | None = None  # loose packs name their files one by one
    sheets: tuple[SheetEntry, ...] = ()  # spreadsheets of cards, each with its template card
    art_spans: dict[str, Span] = field(default_factory=dict)  # `print: art:` kind -> its entry
    balance: tuple[BalanceBand, ...] = ()  # the bands `test --balance` holds the pack to

    @classmethod
    def loose(cls, root: Path, ruleset: str, files: tuple[Path, ...] = ()) -> Pack:
        """A stand-in pack for card files checked without a pack.yaml."""
        name = root.name or "cards"
        return cls(name, "loose card files", "0", root, root / MANIFEST, ruleset, listed=files)


@cache
def _pack_schema() -> dict[str, Any]:
    text = resources.files("schemas").joinpath("pack.schema.json").read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


@cache
def _pack_validator() -> Any:
    from jsonschema import Draft202012Validator

    return Draft202012Validator(_pack_schema())


def _surely_valid(data: object) -> bool:
    """Whether the pack.yaml's data fits its schema, without loading jsonschema to ask."""
    try:
        return is_valid(_pack_schema(), data)
    except Unsupported:
        return False


def read_manifest(manifest: Path) -> tuple[str | None, Diagnostic | None]:
    """Read a pack.yaml as text: a regular file of its own folder, not a link out, not huge."""
    shown = display_path(manifest)
    try:
        resolved = manifest.resolve()
        if resolved.parent != manifest.parent.resolve() or not resolved.is_file():
            return None, Diagnostic(
                "E0404",
                "error",
                f"{shown} is not a plain file in the pack folder (a link elsewhere?); "
                "it is not read",
                Span.whole_file(shown),
            )
        if hard_linked(resolved):
            return None, hard_link_refused(shown)
        if resolved.stat().st_size > MAX_MANIFEST_BYTES:
            return None, Diagnostic(
                "E0406", "error", "this pack.yaml is too large", Span.whole_file(shown)
            )
        raw = resolved.read_bytes()
    except OSError as error:
        return None, Diagnostic(
            "E0402", "error", f"cannot read {shown}: {error.strerror}", Span.whole_file(shown)
        )
    try:
        return _normalise(raw.decode("utf-8-sig")), None
    except UnicodeDecodeError as error:
        return None, decode_error(shown, raw, error)


def load_pack(manifest: Path, text: str) -> tuple[Pack | None, list[Diagnostic]]:
    """Validate a pack.yaml's text; on any problem return None and the diagnostics."""
    shown = display_path(manifest)
    document, problems = load_valid_yaml(text, shown, "pack", _pack_problems)
    if document is None:
        return None, problems
    data = document.data
    sources = tuple(data.get("sources", DEFAULT_SOURCES))
    return (
        Pack(
            name=data["pack"],
            title=data["title"],
            version=str(data["version"]),
            root=manifest.parent,
            manifest=manifest,
            ruleset=data["ruleset"],
            sources=sources,
            print_settings=dict(data.get("print", {})),
            allowed=dict(data.get("allow", {})),
            ruleset_span=scalar_span(document.span(("ruleset",)), text),
            sources_spans=tuple(document.span(("sources", i)) for i in range(len(sources))),
            sheets=tuple(
                SheetEntry(
                    sheet["file"], sheet["card"], sheet.get("sheet"), document.span(("sheets", i))
                )
                for i, sheet in enumerate(data.get("sheets", []))
            ),
            art_spans={
                str(kind): document.span(("print", "art", kind))
                for kind in (data.get("print") or {}).get("art") or {}
            },
            balance=tuple(
                BalanceBand(
                    entry["band"],
                    entry.get("policy", "random"),
                    entry.get("players"),
                    entry.get("games", BALANCE_GAMES),
                    entry.get("seed", 1),
                    scalar_span(document.span(("balance", index, "band")), text),
                )
                for index, entry in enumerate(data.get("balance", []))
            ),
        ),
        [],
    )


def _pack_problems(document: YamlDocument) -> list[Diagnostic]:
    """Everything wrong with a pack.yaml, as its schema sees it."""
    shape = "a mapping with pack, title, version and ruleset"
    problems = []
    if not isinstance(document.data, dict) or not _surely_valid(document.data):
        problems = schema_diagnostics(document, _pack_validator(), "E0403", "pack.yaml", shape)
    if problems or not isinstance(document.data, dict):
        return problems
    settings = document.data.get("print")
    # The values print would refuse, refused here at their line, so `check` gates them too.
    if isinstance(settings, dict):
        problems = [
            Diagnostic(
                "E0403", "error", f"pack.yaml: print: {message}", document.span(("print", key))
            )
            for key, message in print_problems(settings)
        ]
    return problems + list(_balance_problems(document))


def _balance_problems(document: YamlDocument) -> Iterator[Diagnostic]:
    """A band that does not read as one, at its line (its policy is checked when it is
    played: naming every policy here would cost every check their imports)."""
    for index, entry in enumerate(document.data.get("balance", [])):
        try:
            parse_target(entry["band"])
        except TargetError as error:
            where = document.span(("balance", index, "band"))
            yield Diagnostic("E0403", "error", f"pack.yaml: balance: {error}", where)


def find_manifest(start: Path) -> Path | None:
    """The nearest pack.yaml in `start` or a folder above it."""
    folder = start if start.is_dir() else start.parent
    for candidate in (folder, *folder.resolve().parents):
        manifest = candidate / MANIFEST
        if manifest.is_file():
            return manifest
    return None


def card_files(pack: Pack) -> tuple[list[Path], list[Diagnostic]]:
    """The pack's card files, sorted; files outside the pack or in a pack of their own are not."""
    if pack.listed is not None:
        return [p for p in pack.listed if p.is_file()], []
    manifest_span = Span.whole_file(display_path(pack.manifest))
    problems: list[Diagnostic] = []
    globs: list[SourceGlob] = []
    spans: list[Span] = []
    for index, pattern in enumerate(pack.sources):
        where = pack.sources_spans[index] if index < len(pack.sources_spans) else manifest_span
        try:
            globs.append(SourceGlob.compile(pattern))
            spans.append(where)
        except SourceLimit as limit:
            problems.append(Diagnostic("E0413", "error", str(limit), where, SOURCES_HELP))
        except (ValueError, re.error) as error:
            problems.append(
                Diagnostic(
                    "E0403",
                    "error",
                    f"pack.yaml: the sources pattern {pattern!r} cannot be used: {error}",
                    where,
                    "write patterns like '**/*.card' or 'cards/*.card'",
                )
            )
    search = search_sources(pack.root, globs, MANIFEST)
    for index, reason in sorted(search.stopped.items()):
        problems.append(Diagnostic("E0413", "error", reason, spans[index], SOURCES_HELP))
    for index, path in search.outside:
        problems.append(
            Diagnostic(
                "E0404",
                "error",
                f"{display_path(path)} lies outside the pack folder; it is not read",
                spans[index],
            )
        )
    found: dict[Path, None] = {}
    templates = {resolved(pack.root / entry.card) for entry in pack.sheets} - {None}
    for matches in search.matches:
        for path in sorted(matches):
            if templates and resolved(path) in templates:
                continue  # a sheet's template: card text with placeholders, filled by its rows
            found[path] = None
            if len(found) > MAX_FILES:
                problems.append(
                    Diagnostic(
                        "E0405",
                        "error",
                        f"the pack has more than {MAX_FILES} card files",
                        manifest_span,
                    )
                )
                return list(found), problems
    return list(found), problems


def _normalise(text: str) -> str:
    """Every line ending becomes a newline, so lines and columns are the same everywhere."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def read_card_file(path: Path) -> tuple[str | None, Diagnostic | None]:
    """Read a card file as UTF-8 text, or explain why it cannot be read."""
    shown = display_path(path)
    try:
        if hard_linked(path):
            return None, hard_link_refused(shown)
        if path.stat().st_size > MAX_CARD_FILE_BYTES:
            return None, Diagnostic(
                "E0406",
                "error",
                f"this card file is larger than {MAX_CARD_FILE_BYTES // 1_000_000} MB",
                Span.whole_file(shown),
            )
        raw = path.read_bytes()
    except OSError as error:
        return None, Diagnostic(
            "E0402", "error", f"cannot read this file: {error.strerror}", Span.whole_file(shown)
        )
    try:
        text = _normalise(raw.decode("utf-8-sig"))
    except UnicodeDecodeError as error:
        return None, decode_error(shown, raw, error)
    nul = text.find("\0")
    if nul >= 0:
        return None, Diagnostic(
            "E0407",
            "error",
            "this file holds a NUL byte: it looks like a binary file, not card text",
            Span.at_offset(shown, text, nul),
        )
    return text, None


def decode_error(shown: str, raw: bytes, error: UnicodeDecodeError) -> Diagnostic:
    """Point at the first byte that is not UTF-8."""
    before = raw[: error.start]
    line = before.count(b"\n") + 1
    column = error.start - (before.rfind(b"\n") + 1) + 1
    return Diagnostic(
        "E0407",
        "error",
        f"this file is not UTF-8 text: byte 0x{raw[error.start]:02x} cannot be read",
        Span(shown, line, column, line, column + 1),
        "save the file as UTF-8",
    )
