"""`pillbox vocab [KIND]`: what a card may say under a ruleset, read from the ruleset itself.

Every entry is shown by its pattern (`gain {stat} {amount}`) and the ruleset's `summary:` of
it; then the game's words a pattern's slots take (stats, places, decks). Nothing here is
written by hand: a pack's own ruleset lists its own words.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from compiler.errors import UsageError
from compiler.opening import open_target, resolve_targets
from compiler.patterns import Pattern, PatternTable, SlotType, did_you_mean
from compiler.ruleset import Kind, Ruleset, RulesetError, bundled_names, load_ruleset

SECTIONS = (
    ("verbs", "verbs", "what an effect does"),
    ("conditions", "conditions", "what `if` and `when ... if` test"),
    ("values", "values", "what a condition or `expect` reads"),
    ("checks", "checks", "the rolls a card makes, with outcomes by result"),
    ("modifiers", "modifiers", "what an always-on block adds"),
)
"""The tables any kind's effects share: (ruleset table, heading, what it is for)."""


def vocabulary(ruleset: Ruleset, kind: str | None = None) -> dict[str, Any]:
    """The words of a ruleset (for one kind, its properties and blocks first), as data."""
    if kind is not None and kind not in ruleset.kinds:
        hint = did_you_mean(kind, ruleset.kinds) or ""
        raise UsageError(
            f"{ruleset.name} has no card kind {kind!r}; {hint + ' ' if hint else ''}"
            f"the kinds: {', '.join(sorted(ruleset.kinds))}"
        )
    kinds = [ruleset.kinds[kind]] if kind is not None else list(ruleset.kinds.values())
    found: dict[str, Any] = {
        "ruleset": ruleset.name,
        "title": ruleset.title,
        "kinds": [_kind(ruleset, k) for k in kinds],
    }
    for table, heading, _ in SECTIONS:
        found[heading] = _entries(getattr(ruleset, table))
    found["stats"] = {
        **{s.name: {"from": s.low, "to": s.high, "start": s.start} for s in ruleset.stats.values()},
        **{
            d.name: {"from": d.low, "to": d.high, "read from": d.source}
            for d in ruleset.derived.values()
        },
    }
    found["slots"] = {
        name: _slot(slot) for name, slot in sorted(ruleset.slot_types.items()) if _slot(slot)
    }
    found["places"] = list(ruleset.places)
    found["decks"] = {deck: list(kinds_of) for deck, kinds_of in ruleset.decks.items()}
    return found


def _slot(slot: SlotType) -> str:
    """What a `{slot}` of a pattern takes, in a few words; empty for the game's own lists."""
    if slot.integer is not None:
        return f"a whole number from {slot.integer[0]} to {slot.integer[1]}"
    if slot.signed is not None:
        return f"a signed number from {slot.signed[0]:+d} to {slot.signed[1]:+d}"
    if slot.text:
        return "a text in quotes" + (
            f", the title of a {' or '.join(slot.titles)} card" if slot.titles else ""
        )
    if slot.words and slot.vocabulary not in ("stats", "places", "decks"):
        words = sorted(slot.words)
        more = f" and {len(words) - 30} more" if len(words) > 30 else ""
        return ("one or more of: " if slot.repeat else "one of: ") + ", ".join(words[:30]) + more
    return ""


def _kind(ruleset: Ruleset, kind: Kind) -> dict[str, Any]:
    properties = [
        {**_entry(ruleset.properties.by_name[name]), "required": required}
        for name, required in kind.properties.items()
        if name in ruleset.properties.by_name
    ]
    blocks = [
        _entry(ruleset.blocks.by_name[name])
        for name in kind.blocks
        if name in ruleset.blocks.by_name
    ]
    return {
        "kind": kind.name,
        "deck": kind.deck,
        "options": kind.options,
        "properties": properties,
        "blocks": blocks,
    }


def _entries(table: PatternTable) -> list[dict[str, str]]:
    return [_entry(pattern) for pattern in sorted(table.patterns, key=lambda p: p.source)]


def _entry(pattern: Pattern) -> dict[str, str]:
    return {"pattern": pattern.source, "example": pattern.example(), "summary": pattern.summary}


def vocabulary_text(found: dict[str, Any]) -> list[str]:
    """The vocabulary for a person: a heading per part, a line per word."""
    out = [f"{found['title']} (ruleset {found['ruleset']})"]
    for kind in found["kinds"]:
        deck = f"drawn from the {kind['deck']} deck" if kind["deck"] else "in no deck"
        options = '; it has options (option "Title" { ... })' if kind["options"] else ""
        out += ["", f"{kind['kind']} cards: {deck}{options}"]
        out += _rows("properties", kind["properties"], required=True)
        out += _rows("blocks", kind["blocks"])
    purposes = {heading: purpose for _, heading, purpose in SECTIONS}
    for heading, purpose in purposes.items():
        out += ["", f"{heading} ({purpose}):"]
        out += _rows(None, found[heading])
    stats = [
        f"{name} {stat['from']}..{stat['to']}"
        + (f" (from {stat['read from']})" if "read from" in stat else "")
        for name, stat in found["stats"].items()
    ]
    out += ["", "what a {slot} takes:"]
    width = max((len(name) + 2 for name in found["slots"]), default=0)
    out += [f"  {'{' + name + '}':<{width}}  {takes}" for name, takes in found["slots"].items()]
    out += ["", "stats: " + ", ".join(stats)]
    out += ["places: " + ", ".join(found["places"])]
    out += [
        "decks: "
        + ", ".join(f"{deck} ({', '.join(kinds)})" for deck, kinds in found["decks"].items())
    ]
    return out


def _rows(heading: str | None, entries: list[dict[str, Any]], required: bool = False) -> list[str]:
    if heading is not None:
        if not entries:
            return [f"  {heading}: none"]
        lines = [f"  {heading}:"]
    else:
        lines = []
    indent = "    " if heading is not None else "  "
    width = max((len(e["pattern"]) for e in entries), default=0)
    for entry in entries:
        mark = " (required)" if required and entry.get("required") else ""
        summary = f"  {entry['summary']}" if entry["summary"] else ""
        lines.append(f"{indent}{entry['pattern']:<{width}}{summary}{mark}".rstrip())
    return lines


def show_vocabulary(
    words: tuple[str, ...], ruleset_name: str | None, as_json: bool, emit: Callable[[str], None]
) -> int:
    """`pillbox vocab [KIND] [PACK] [--ruleset NAME]`: a pack folder among the words names the
    ruleset (else --ruleset, else the pack of the folder you are in); the other word a kind."""
    paths = [word for word in words if Path(word).exists()]
    kinds = [word for word in words if word not in paths]
    if len(paths) > 1 or len(kinds) > 1:
        raise UsageError("give at most one kind and one pack (or --ruleset NAME)")
    ruleset = _ruleset_of(Path(paths[0]) if paths else None, ruleset_name, emit)
    if ruleset is None:
        return 1
    found = vocabulary(ruleset, kinds[0] if kinds else None)
    if as_json:
        emit(json.dumps(found, indent=2, ensure_ascii=False))
    else:
        for line in vocabulary_text(found):
            emit(line)
    return 0


def _ruleset_of(pack: Path | None, name: str | None, emit: Callable[[str], None]) -> Ruleset | None:
    """The ruleset named, or the one of the pack (the current folder's when none is named)."""
    if name is not None:
        if pack is not None:
            raise UsageError("name a pack or --ruleset, not both")
        try:
            return load_ruleset(name)
        except RulesetError as error:
            first = error.diagnostics[0]
            raise UsageError(
                f"--ruleset: {first.message}; {first.help or ''}".rstrip("; ")
            ) from None
    folder = pack if pack is not None else Path(".")
    if not (folder / "pack.yaml").exists() and folder.suffix != ".yaml":
        raise UsageError(
            f"{folder} is no pack folder: name a pack, or a ruleset with --ruleset "
            f"(the bundled: {', '.join(bundled_names())})"
        )
    (target,) = resolve_targets([folder], None)
    opened = open_target(target, None, {})
    if opened.ruleset is None:
        for problem in opened.problems:
            emit(
                f"{problem.span.file}:{problem.span.line}:{problem.span.column}: {problem.message}"
            )
        return None
    return opened.ruleset
