"""Diagnostics while typing: the edited text checked in its pack, as `check` reports it, and
the problems of the pack's pack.yaml and ruleset files, shown on those files."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from lsprotocol import types
from pygls.workspace import TextDocument

from compiler.lsp.packs import PackChecker
from compiler.lsp.positions import lsp_range
from dsl.spans import Diagnostic

SOURCE = "pillbox"


def lsp_diagnostics(
    checker: PackChecker, document: TextDocument
) -> tuple[list[Diagnostic], list[types.Diagnostic]]:
    """Our diagnostics of an open document, and the same as the client shows them."""
    found = checker.diagnostics(document)
    return found, [_shown(document, d) for d in found]


def setup_diagnostics(
    checker: PackChecker, document: TextDocument, open_document: Callable[[str], TextDocument]
) -> tuple[Path, dict[str, tuple[list[Diagnostic], list[types.Diagnostic]]]]:
    """The pack.yaml of an open document's pack, and the diagnostics of that pack.yaml and
    its ruleset files by URI: ours, and the same as the client shows them."""
    manifest, found = checker.setup_problems(document)
    shown = {}
    for file, problems in found.items():
        uri = Path(file).resolve().as_uri()
        ours = sorted(problems, key=Diagnostic.sort_key)
        shown[uri] = (ours, [_shown(open_document(uri), d) for d in ours])
    return manifest, shown


def _shown(document: TextDocument, found: Diagnostic) -> types.Diagnostic:
    message = found.message if found.help is None else f"{found.message}\nhelp: {found.help}"
    return types.Diagnostic(
        range=lsp_range(document, found.span),
        message="\n".join([message, *found.notes]),
        severity=types.DiagnosticSeverity.Error
        if found.is_error
        else types.DiagnosticSeverity.Warning,
        code=found.code,
        source=SOURCE,
    )
