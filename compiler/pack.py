"""Content packs: `pack.yaml`, validated by its schema, and the card files it names."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from compiler.schemaerrors import explain
from compiler.yamlio import YamlDocument, load_valid_yaml
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
    ruleset_span: Span | None = None  # where pack.yaml names the ruleset

    @classmethod
    def loose(cls, root: Path, ruleset: str) -> Pack:
        """A stand-in pack for card files checked without a pack.yaml."""
        return cls(root.name or "cards", "loose card files", "0", root, root / MANIFEST, ruleset)


@cache
def _pack_validator() -> Any:
    from jsonschema import Draft202012Validator

    text = resources.files("schemas").joinpath("pack.schema.json").read_text(encoding="utf-8")
    return Draft202012Validator(json.loads(text))


def load_pack(manifest: Path) -> tuple[Pack | None, list[Diagnostic]]:
    """Read and validate a pack.yaml; on any problem return None and the diagnostics."""
    shown = display_path(manifest)
    try:
        raw = manifest.read_bytes()
        text = raw.decode("utf-8-sig")
    except OSError as error:
        return None, [
            Diagnostic(
                "E0402", "error", f"cannot read {shown}: {error.strerror}", Span.whole_file(shown)
            )
        ]
    except UnicodeDecodeError as error:
        return None, [decode_error(shown, raw, error)]
    document, problems = load_valid_yaml(text, shown, "pack", _pack_problems)
    if document is None:
        return None, problems
    data = document.data
    return (
        Pack(
            name=data["pack"],
            title=data["title"],
            version=str(data["version"]),
            root=manifest.parent,
            manifest=manifest,
            ruleset=data["ruleset"],
            sources=tuple(data.get("sources", DEFAULT_SOURCES)),
            print_settings=dict(data.get("print", {})),
            ruleset_span=document.span(("ruleset",)),
        ),
        [],
    )


def _pack_problems(document: YamlDocument) -> list[Diagnostic]:
    """Everything wrong with a pack.yaml, as its schema sees it."""
    from jsonschema.exceptions import relevance

    if not isinstance(document.data, dict):
        return [
            Diagnostic(
                "E0403",
                "error",
                "pack.yaml must be a mapping with pack, title, version and ruleset",
                Span.whole_file(document.file),
            )
        ]
    errors = sorted(_pack_validator().iter_errors(document.data), key=relevance)
    diagnostics = []
    for schema_error in errors[:20]:
        message, help_text = explain(schema_error)
        diagnostics.append(
            Diagnostic(
                "E0403",
                "error",
                f"pack.yaml: {message}",
                document.schema_error_span(schema_error),
                help_text,
            )
        )
    return diagnostics


def find_manifest(start: Path) -> Path | None:
    """The nearest pack.yaml in `start` or a folder above it."""
    folder = start if start.is_dir() else start.parent
    for candidate in (folder, *folder.resolve().parents):
        manifest = candidate / MANIFEST
        if manifest.is_file():
            return manifest
    return None


def card_files(pack: Pack) -> tuple[list[Path], list[Diagnostic]]:
    """The pack's card files, sorted; files that resolve outside the pack are refused."""
    root = pack.root.resolve()
    found: dict[Path, None] = {}
    problems: list[Diagnostic] = []
    for pattern in pack.sources:
        for path in sorted(pack.root.glob(pattern)):
            if not path.is_file():
                continue
            resolved = path.resolve()
            if root not in resolved.parents:
                problems.append(
                    Diagnostic(
                        "E0404",
                        "error",
                        f"{display_path(path)} lies outside the pack folder; it is not read",
                        Span.whole_file(display_path(pack.manifest)),
                    )
                )
                continue
            found[path] = None
            if len(found) > MAX_FILES:
                problems.append(
                    Diagnostic(
                        "E0405",
                        "error",
                        f"the pack has more than {MAX_FILES} card files",
                        Span.whole_file(display_path(pack.manifest)),
                    )
                )
                return list(found), problems
    return list(found), problems


def read_card_file(path: Path) -> tuple[str | None, Diagnostic | None]:
    """Read a card file as UTF-8 text, or explain why it cannot be read."""
    shown = display_path(path)
    try:
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
        return raw.decode("utf-8-sig").replace("\r\n", "\n"), None
    except UnicodeDecodeError as error:
        return None, decode_error(shown, raw, error)


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
