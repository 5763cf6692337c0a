"""`pillbox export PACK --csv`: the properties of a pack's cards as a sheet.

The columns are `kind`, `title`, `variant` (when a card has one) and each property by its name
in the IR, so a template with `{title}` and `{copies}` placeholders reads the sheet back: the
round trip of `sheets:` in pack.yaml.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Sequence
from pathlib import Path

from compiler.build import load_checked
from compiler.errors import EXIT_CLEAN, UsageError
from compiler.files import write_atomically
from compiler.ir import Card
from compiler.playing import Emit, report_errors
from compiler.render import Style, counted

_FORMULA = re.compile(r"^(?:[=@\t\r]|[+-](?!\d+(?:\.\.\d+)?$))")
"""What a spreadsheet would run as a formula: such a value is written after an apostrophe."""


def export_csv(
    path: Path,
    ruleset: str | None,
    kind: str | None,
    output: Path | None,
    emit: Emit,
    style: Style,
    data: Emit | None = None,
) -> int:
    """Check a pack and write its cards' properties as CSV, to `output` or to stdout (through
    `data`: a CSV is data, not terminal text)."""
    loaded = load_checked(path, ruleset)
    if loaded.pack is None:
        return report_errors(loaded, path, emit, style)
    cards = [card for card in loaded.pack.cards if kind is None or card["kind"] == kind]
    if kind is not None and not cards:
        kinds = sorted({card["kind"] for card in loaded.pack.cards})
        raise UsageError(f"--kind {kind!r}: the pack has no such cards; its kinds: {kinds}")
    text = sheet_text(cards)
    if output is None:
        (data or emit)(text.rstrip("\n"))
        return EXIT_CLEAN
    try:
        write_atomically(output, text.encode("utf-8"))
    except OSError as error:
        raise UsageError(f"-o {output}: cannot write there ({error.strerror or error})") from None
    emit(f"wrote {counted(len(cards), 'card')} to {output}")
    return EXIT_CLEAN


def sheet_text(cards: Sequence[Card]) -> str:
    """The cards as CSV text: a header row, then a row per card."""
    columns = ["kind", "title"]
    if any(card.get("variant") is not None for card in cards):
        columns.append("variant")
    for card in cards:
        for name in card["properties"]:
            if name not in columns:
                columns.append(name)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    for card in cards:
        values: dict[str, object] = {
            **card["properties"],
            "kind": card["kind"],
            "title": card["title"],
        }
        values["variant"] = card.get("variant")
        writer.writerow([_cell(values.get(column)) for column in columns])
    return out.getvalue()


def _cell(value: object) -> str:
    """A property's value as the text a template puts back: words and numbers as written."""
    if value is None:
        text = ""
    elif value is True:
        text = "yes"
    elif isinstance(value, list):
        text = " ".join(str(item) for item in value)
    elif isinstance(value, dict):
        text = json.dumps(value, ensure_ascii=False)
    else:
        text = str(value)
    return "'" + text if _FORMULA.match(text) else text
