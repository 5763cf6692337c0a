"""Code actions: the "did you mean" of a diagnostic, as a quick fix that makes the change."""

from __future__ import annotations

import re

from lsprotocol import types
from pygls.workspace import TextDocument

from compiler.lsp.positions import lsp_range
from dsl.spans import Diagnostic

_MEANT = re.compile(r"^did you mean '([^'\n]+)'\?$")
"""The help `did_you_mean` writes: a fix when it is all the help there is."""


def quick_fixes(
    document: TextDocument, found: list[Diagnostic], asked: types.Range
) -> list[types.CodeAction]:
    """A fix for each diagnostic in the range asked about whose help names one word for the
    words it points at (and no more: a longer help is advice, not an edit)."""
    fixes = []
    for diagnostic in found:
        meant = _MEANT.match(diagnostic.help or "")
        where = lsp_range(document, diagnostic.span)
        if meant is None or diagnostic.span.line != diagnostic.span.end_line:
            continue
        if where.end < asked.start or asked.end < where.start:
            continue
        written = document.lines[diagnostic.span.line - 1][
            diagnostic.span.column - 1 : diagnostic.span.end_column - 1
        ]
        if not written or " " in written.strip():
            continue
        fixes.append(
            types.CodeAction(
                title=f"Change '{written}' to '{meant[1]}'",
                kind=types.CodeActionKind.QuickFix,
                is_preferred=True,
                edit=types.WorkspaceEdit(
                    changes={document.uri: [types.TextEdit(range=where, new_text=meant[1])]}
                ),
            )
        )
    return fixes
