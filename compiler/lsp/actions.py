"""Code actions: each diagnostic whose help names the change to make, as a quick fix that
makes it (a "did you mean", `==` for `=`, a closing quote or `}`, a range the right way
round, a text put in quotes, `else` after its `}`, a missing property's example line)."""

from __future__ import annotations

import re
from collections.abc import Callable

from lsprotocol import types
from pygls.workspace import TextDocument

from compiler.lsp.incremental import stretch_at
from compiler.lsp.positions import lsp_range
from dsl.spans import Diagnostic, Span

Fix = tuple[str, Span, str]
"""A quick fix: its title, the span it replaces (empty to insert) and the text put there."""

_MEANT = re.compile(r"^did you mean '([^'\n]+)'\?$")
"""The help `did_you_mean` writes: a fix when it is all the help there is."""

_WRITE = re.compile(r"^write (\S+)$")
"""A help that is the one word to write instead (a range the right way round)."""

_EXAMPLE = re.compile(r"^add a line like: (.+)$")
"""The help of a missing property: a line that gives it."""

_STATEMENT_END = re.compile(r"\s*(?:[{};#].*)?$")
"""What ends a statement's words on a line: a brace, a `;`, a comment."""


def quick_fixes(
    document: TextDocument, found: list[Diagnostic], asked: types.Range
) -> list[types.CodeAction]:
    """A fix for each diagnostic in the range asked about whose help says what to change."""
    actions = []
    for diagnostic in found:
        where = lsp_range(document, diagnostic.span)
        if where.end < asked.start or asked.end < where.start:
            continue
        for fixer in FIXERS:
            fix = fixer(document, diagnostic)
            if fix is None:
                continue
            title, span, new_text = fix
            edit = types.TextEdit(range=lsp_range(document, span), new_text=new_text)
            actions.append(
                types.CodeAction(
                    title=title,
                    kind=types.CodeActionKind.QuickFix,
                    is_preferred=True,
                    edit=types.WorkspaceEdit(changes={document.uri: [edit]}),
                )
            )
            break
    return actions


def _written(document: TextDocument, span: Span) -> str:
    """The text of a one-line span ('' for a span over several lines)."""
    if span.line != span.end_line or span.line > len(document.lines):
        return ""
    return document.lines[span.line - 1][span.column - 1 : span.end_column - 1]


def _line(document: TextDocument, number: int) -> str:
    """A 1-based line of the document without its line break."""
    return document.lines[number - 1].rstrip("\r\n") if number <= len(document.lines) else ""


def _at(span: Span, line: int, column: int) -> Span:
    """The empty span at a place: where an insertion goes."""
    return Span(span.file, line, column, line, column)


def _did_you_mean(document: TextDocument, found: Diagnostic) -> Fix | None:
    meant = _MEANT.match(found.help or "") or _WRITE.match(found.help or "")
    written = _written(document, found.span)
    if meant is None or not written or " " in written.strip():
        return None
    return f"Change '{written}' to '{meant[1]}'", found.span, meant[1]


def _comparison(document: TextDocument, found: Diagnostic) -> Fix | None:
    if found.code != "E0101" or "did you mean `==`?" not in (found.help or ""):
        return None
    if _written(document, found.span) != "=":
        return None
    return "Change '=' to '=='", found.span, "=="


def _closing_quote(document: TextDocument, found: Diagnostic) -> Fix | None:
    if found.code != "E0102":
        return None
    end = len(_line(document, found.span.line).rstrip()) + 1
    return 'Close the text with "', _at(found.span, found.span.line, end), '"'


def _quoted(document: TextDocument, found: Diagnostic) -> Fix | None:
    wanted = "expected a quoted text"
    if not (found.message.startswith(f"{wanted}, found") or found.help == wanted):
        return None
    line = _line(document, found.span.line)
    start = found.span.column - 1
    stop = _STATEMENT_END.search(line, start)
    words = line[start : stop.start() if stop else len(line)]
    if not words or '"' in words:
        return None
    span = Span(
        found.span.file, found.span.line, start + 1, found.span.line, start + 1 + len(words)
    )
    return f"Put '{words}' in quotes", span, f'"{words}"'


def _else_after_brace(document: TextDocument, found: Diagnostic) -> Fix | None:
    if found.code != "E0105" or found.span.line < 2:
        return None
    above = found.span.line - 1
    while above > 1 and not _line(document, above).strip():
        above -= 1
    closing = _line(document, above).rstrip()
    if not closing.endswith("}"):
        return None
    span = Span(found.span.file, above, len(closing) + 1, found.span.line, found.span.column)
    return "Write `else` after the `}` it follows", span, " "


def _closing_brace(document: TextDocument, found: Diagnostic) -> Fix | None:
    if found.code != "E0103" or not (found.help or "").startswith("add the missing '}'"):
        return None
    text = document.source
    end = len(text)
    if found.help == "add the missing '}' at the end of the card":
        stretch = stretch_at(text, found.span.line)
        end = stretch[1] if stretch is not None else end
    end = len(text[:end].rstrip())
    line = text.count("\n", 0, end) + 1
    column = end - (text.rfind("\n", 0, end) + 1) + 1
    return "Add the missing '}'", _at(found.span, line, column), "\n}"


def _missing_property(document: TextDocument, found: Diagnostic) -> Fix | None:
    example = _EXAMPLE.match(found.help or "")
    header = _line(document, found.span.line)
    if found.code != "E0213" or example is None or not header.rstrip().endswith("{"):
        return None
    indent = header[: len(header) - len(header.lstrip())] + "    "
    where = _at(found.span, found.span.line + 1, 1)
    return f"Add '{example[1]}'", where, f"{indent}{example[1]}\n"


FIXERS: tuple[Callable[[TextDocument, Diagnostic], Fix | None], ...] = (
    _did_you_mean,
    _comparison,
    _closing_quote,
    _quoted,
    _else_after_brace,
    _closing_brace,
    _missing_property,
)
"""Each kind of fix, tried in turn; a diagnostic gets the first that applies."""
