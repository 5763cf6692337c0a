"""Hover: the explanation of a diagnostic at the cursor, else the summary of the word there
and what its line prints (with a check's odds: `compiler.lsp.lines`)."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.workspace import TextDocument

from compiler.errors import UsageError
from compiler.lsp.completion import leading_words
from compiler.lsp.context import place_at
from compiler.lsp.lines import line_notes
from compiler.lsp.packs import PackChecker
from compiler.lsp.positions import contains, cursor, lsp_range
from compiler.pack import display_path
from compiler.vocab import SECTIONS, vocabulary
from dsl.spans import Diagnostic

DIAGNOSTICS_DOC = Path(__file__).resolve().parents[2] / "docs" / "diagnostics.md"
"""Where a source checkout keeps the explanation of every code (an installed wheel has none)."""

_WORD_START, _WORD_END = re.compile(r"[\w'-]*$"), re.compile(r"^[\w'-]*")


def hover(
    checker: PackChecker,
    document: TextDocument,
    at: types.Position,
    found: list[Diagnostic],
) -> types.Hover | None:
    """What to show for the cursor: the diagnostics it is on, or what the word there means."""
    line, column = cursor(document, at)
    here = [d for d in found if contains(d.span, line, column)]
    if here:
        return types.Hover(
            contents=types.MarkupContent(
                kind=types.MarkupKind.Markdown,
                value="\n\n---\n\n".join(_explained(d) for d in here),
            ),
            range=lsp_range(document, here[0].span),
        )
    word = document.word_at_position(at, _WORD_START, _WORD_END)
    pack = checker.of_document(document)
    if pack is None:
        return None
    kind = place_at(document.source, document.offset_at_position(at)).kind
    try:
        words = vocabulary(pack.ruleset, kind)
    except UsageError:
        words = vocabulary(pack.ruleset)
    lines = _meanings(word, words) if word else []
    lines += line_notes(pack.ruleset, display_path(Path(document.path)), document.source, line + 1)
    if not lines:
        return None
    return types.Hover(
        contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value="\n\n".join(lines))
    )


def _explained(found: Diagnostic) -> str:
    explanation = explanations().get(found.code) or (found.help or "")
    return f"**{found.code}**: {found.message}" + (f"\n\n{explanation}" if explanation else "")


@cache
def explanations() -> dict[str, str]:
    """The first paragraph of each code's section of docs/diagnostics.md, by code."""
    if not DIAGNOSTICS_DOC.is_file():
        return {}
    found: dict[str, str] = {}
    for section in DIAGNOSTICS_DOC.read_text(encoding="utf-8").split("\n## ")[1:]:
        heading, _, body = section.partition("\n")
        code = heading.split(":")[0].strip()
        paragraph = body.strip().split("\n\n")[0]
        if re.fullmatch(r"[EW]\d{4}", code) and not paragraph.startswith("```"):
            found[code] = " ".join(paragraph.split())
    return found


def _meanings(word: str, words: dict[str, Any]) -> list[str]:
    """A line for each entry of the vocabulary a word starts, or names."""
    lines = [
        f"card kind **{k['kind']}**: "
        + (f"drawn from the {k['deck']} deck" if k["deck"] else "in no deck")
        for k in words["kinds"]
        if k["kind"] == word
    ]
    entries = [e for k in words["kinds"] for e in k["properties"] + k["blocks"]]
    entries += [e for _, heading, _ in SECTIONS for e in words[heading]]
    lines += [
        f"`{e['pattern']}`" + (f": {e['summary']}" if e["summary"] else "")
        for e in entries
        if leading_words(e["pattern"]).split()[:1] == [word]
    ]
    if word in words["stats"]:
        stat = words["stats"][word]
        lines.append(f"stat **{word}**, from {stat['from']} to {stat['to']}")
    if word in words["places"]:
        lines.append(f"place **{word}**")
    if word in words["decks"]:
        lines.append(f"deck **{word}**: {', '.join(words['decks'][word])} cards")
    return list(dict.fromkeys(lines))
