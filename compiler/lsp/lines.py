"""Hover on a card's line: its rules text as the card prints it, and for a `check` or `roll`,
the exact odds of the option or block it is in, as `pillbox odds` prints them.

Only the card under the cursor is checked (with its full IR) and compiled: the odds walk
counts draws and never plays another card, so the card alone gives the same table.
"""

from __future__ import annotations

from compiler.build import CheckedFile, CheckedPack, compile_pack
from compiler.codegen import written_header
from compiler.ir import Card, Effect
from compiler.lower import LoweredCard
from compiler.lsp.incremental import stretch_at
from compiler.odds import odds_table, odds_text, walk_failed
from compiler.passes import card_effects
from compiler.pipeline import check_file
from compiler.ruleset import Ruleset
from compiler.rulestext import card_text, effects_text
from runtime.odds import card_odds


def line_notes(ruleset: Ruleset, shown: str, text: str, line: int) -> list[str]:
    """What to show of a 1-based line of a file's text: the rules text of the effect or
    property that starts there, and a check's or roll's odds (Markdown paragraphs)."""
    card = _card_at(ruleset, shown, text, line)
    if card is None or card.has_errors:
        return []
    node = next((e for e in card_effects(card.ir) if e.get("at", [0])[0] == line), None)
    if node is None:
        printed = dict(card_text(ruleset, card.ir).properties)
        written = [name for name, at in card.ir["property_at"].items() if at[0] == line]
        return [f"prints: *{printed[name]}*" for name in written if printed.get(name)]
    notes = []
    printed_line = effects_text(ruleset, [node], kind=card.ir["kind"])
    if printed_line:
        notes.append(f"prints: *{printed_line}*")
    if "check" in node or "roll" in node:
        notes.append("```\n" + "\n".join(_odds(ruleset, shown, text, card, node)) + "\n```")
    return notes


def _card_at(ruleset: Ruleset, shown: str, text: str, line: int) -> LoweredCard[Card] | None:
    """The card a line is in, checked alone at its place in the file, with its full IR."""
    stretch = stretch_at(text, line)
    if stretch is None:
        return None
    start, end, first = stretch
    cards = check_file(ruleset, shown, "\n" * (first - 1) + text[start:end]).cards
    return next((c for c in cards if c.ir["at"][0] <= line <= c.ir["at"][2]), None)


def _odds(
    ruleset: Ruleset, shown: str, text: str, card: LoweredCard[Card], node: Effect
) -> list[str]:
    """The odds table of the options and blocks whose paths take this check or roll."""
    compiled = compile_pack(CheckedPack(shown, ruleset, [CheckedFile(shown, text, [card.ir])]))
    (played,) = compiled.cards
    table = odds_table(compiled, [])
    try:
        blocks = card_odds(table, played, implied=True)
    except Exception as error:  # a card's code failing is what `odds` reports too
        return [f"the odds cannot be worked out: {walk_failed(played, error)[1]}"]
    header = f"{written_header(ruleset, node)}: "
    taking = [
        block
        for block in blocks
        if any(step.startswith(header) for o in block.outcomes for step in o.path)
    ]
    return odds_text(played, taking, table)
