"""Hover: the explanation of a diagnostic at the cursor, else the entry of the ruleset the
phrase there matched (`compiler.lsp.entries`: its pattern, summary and rules text) or the
summary of the word there, and what its line prints (with a check's odds: `compiler.lsp.lines`)."""

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
from compiler.lsp.entries import Matched, matched_at
from compiler.lsp.lines import line_notes
from compiler.lsp.packs import PackChecker
from compiler.lsp.positions import contains, cursor, lsp_range
from compiler.pack import display_path
from compiler.ruleset import Ruleset
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
    """What to show for the cursor: the diagnostics it is on, then what the phrase or word
    there means and what its line prints."""
    line, column = cursor(document, at)
    here = [d for d in found if contains(d.span, line, column)]
    notes, matched = _notes(checker, document, at)
    parts = [_explained(d) for d in here] + (["\n\n".join(notes)] if notes else [])
    if not parts:
        return None
    span = here[0].span if here else None if matched is None else matched.span
    return types.Hover(
        contents=types.MarkupContent(
            kind=types.MarkupKind.Markdown, value="\n\n---\n\n".join(parts)
        ),
        range=None if span is None else lsp_range(document, span),
    )


def _notes(
    checker: PackChecker, document: TextDocument, at: types.Position
) -> tuple[list[str], Matched | None]:
    """The paragraphs on the entry the phrase at the cursor matched (else on each entry the
    word there starts) and the word's stat, place or deck, then on what the line prints;
    with the entry matched."""
    pack = checker.of_document(document)
    if pack is None:
        return [], None
    line, column = cursor(document, at)
    word = document.word_at_position(at, _WORD_START, _WORD_END)
    kind = place_at(document.source, document.offset_at_position(at)).kind
    try:
        words = vocabulary(pack.ruleset, kind)
    except UsageError:
        words = vocabulary(pack.ruleset)
    shown = display_path(Path(document.path))
    matched = matched_at(pack.ruleset, shown, document.source, line, column)
    if matched is not None:
        lines = _entry_notes(pack.ruleset, matched) + (_named(word, words) if word else [])
    else:
        lines = _meanings(word, words) if word else []
    return lines + line_notes(pack.ruleset, shown, document.source, line + 1), matched


_NOUNS = {
    "verbs": "verb",
    "conditions": "condition",
    "values": "value",
    "checks": "check",
    "blocks": "block",
    "properties": "property",
    "modifiers": "modifier",
}
"""What an entry of each section of the ruleset is called."""


def _entry_notes(ruleset: Ruleset, matched: Matched) -> list[str]:
    """An entry a phrase matched: its pattern and summary, its rules text, and for a block
    the event it answers to."""
    pattern = getattr(ruleset, matched.section).by_name[matched.name]
    lines = [
        f"{_NOUNS[matched.section]} `{pattern.source}`"
        + (f": {pattern.summary}" if pattern.summary else "")
    ]
    template = ruleset.wording.texts.get(matched.section, {}).get(matched.name)
    if template:
        lines.append(f"rules text: *{template}*")
    entry = (ruleset.data.get(matched.section) or {}).get(matched.name)
    trigger = entry.get("trigger") if isinstance(entry, dict) else None  # a block's event
    if trigger:
        event = (ruleset.data.get("triggers") or {}).get(trigger)
        summary = event.get("summary") if isinstance(event, dict) else None
        lines.append(f"trigger **{trigger}**" + (f": {summary}" if summary else ""))
    return lines


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
    return list(dict.fromkeys(lines + _named(word, words)))


def _named(word: str, words: dict[str, Any]) -> list[str]:
    """A line for the stat, place or deck a word names: what a slot of a phrase takes."""
    lines = []
    if word in words["stats"]:
        stat = words["stats"][word]
        lines.append(f"stat **{word}**, from {stat['from']} to {stat['to']}")
    if word in words["places"]:
        lines.append(f"place **{word}**")
    if word in words["decks"]:
        lines.append(f"deck **{word}**: {', '.join(words['decks'][word])} cards")
    return lines
