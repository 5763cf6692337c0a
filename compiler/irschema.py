"""Validate card IR against `schemas/ir.schema.json`, with the ruleset's names as enums."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from functools import cache
from importlib import resources
from typing import Any

from compiler.ir import Card
from compiler.kept import Kept, keeping
from compiler.patterns import PatternTable, SlotType
from compiler.quickschema import Schema, Unsupported, is_valid, linked
from compiler.ruleset import Ruleset
from dsl.spans import Diagnostic, Span


@cache
def _template() -> dict[str, Any]:
    text = resources.files("schemas").joinpath("ir.schema.json").read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


def _names(table: PatternTable) -> dict[str, Any]:
    return {"enum": sorted(p.name for p in table.patterns)}


def _slot_schema(slot: SlotType) -> dict[str, Any]:
    if slot.vocabulary is not None:
        words = {"enum": sorted(slot.words)}
        return {"type": "array", "items": words, "minItems": 1} if slot.repeat else words
    if slot.text:
        return {"type": "string"}
    low, high = slot.integer or slot.signed or (0, 0)
    return {"type": "integer", "minimum": low, "maximum": high}


def ir_schema(ruleset: Ruleset) -> dict[str, Any]:
    """The IR schema with this ruleset's names filled in."""
    schema = copy.deepcopy(_template())
    defs = schema["$defs"]
    defs["kind"] = {"enum": sorted(ruleset.kinds)}
    defs["verb"] = _names(ruleset.verbs)
    defs["modifier"] = _names(ruleset.modifiers)
    defs["flag"] = _names(ruleset.conditions)
    defs["value"] = _names(ruleset.values)
    defs["block"] = _names(ruleset.blocks)
    defs["procedure"] = _names(ruleset.checks)
    defs["property"] = _names(ruleset.properties)
    defs["place"] = {"enum": sorted(ruleset.places)}
    # One slot name may take different types in different patterns (`stat` is any stat in a
    # check, a tracked stat in `gain`): its schema is then any of them.
    kinds_of_slot: dict[str, dict[str, Any]] = {}
    for slot in ruleset.slots():
        schema_of = _slot_schema(slot.type)
        key = json.dumps(schema_of, sort_keys=True)
        kinds_of_slot.setdefault(slot.name, {}).setdefault(key, schema_of)
    slots = {
        name: next(iter(found.values())) if len(found) == 1 else {"anyOf": list(found.values())}
        for name, found in kinds_of_slot.items()
    }
    defs["args"] = {"type": "object", "properties": slots, "additionalProperties": False}
    return schema


_VALIDATORS: dict[str, Any] = {}
_LINKED: dict[str, Schema | None] = {}


def validator_for(ruleset: Ruleset) -> Any:
    """One reused Draft202012Validator per ruleset."""
    found = _VALIDATORS.get(ruleset.digest)
    if found is None:
        from jsonschema import Draft202012Validator

        found = _VALIDATORS[ruleset.digest] = Draft202012Validator(ir_schema(ruleset))
    return found


def _quickly_valid(ruleset: Ruleset, card: Card) -> bool:
    """Whether the quick validator finds the card valid: a yes is jsonschema's yes (a no, a
    schema it cannot read, or a card nested deeper than its recursion reaches, is asked of
    jsonschema, for the errors)."""
    if ruleset.digest not in _LINKED:
        try:
            _LINKED[ruleset.digest] = linked(ir_schema(ruleset))
        except Unsupported:
            _LINKED[ruleset.digest] = None
    schema = _LINKED[ruleset.digest]
    if schema is None:
        return False
    try:
        return is_valid(schema, card)
    except (Unsupported, RecursionError):
        return False


_found_valid: Kept[bool] = Kept(4096)
"""The cards found valid, by ruleset and `repr`, where the process keeps results: the same card
checked again (an edit elsewhere in its pack, the next test of a suite) is not walked again."""


def validate_card(ruleset: Ruleset, card: Card) -> Iterator[Diagnostic]:
    """Yield a diagnostic for each schema error, placed at the nearest node with a span."""
    # repr, not JSON: it tells a tuple from a list, which the schema does too. The schema asks
    # only that the file be a string, so a card of a pack copied elsewhere is the same card.
    key = None
    if keeping():
        shown = card.get("file")
        key = (ruleset.digest, repr({**card, "file": None} if isinstance(shown, str) else card))
        if _found_valid.get(key):
            return
    if _quickly_valid(ruleset, card):
        if key is not None:
            _found_valid.put(key, True)
        return
    from jsonschema.exceptions import relevance  # loaded only for a card that does not fit

    errors = sorted(validator_for(ruleset).iter_errors(card), key=relevance)
    if not errors and key is not None:
        _found_valid.put(key, True)
    for error in errors:
        path = list(error.absolute_path)
        yield Diagnostic(
            "E0500",
            "error",
            f"the compiled card does not fit the IR schema at /{'/'.join(map(str, path))}: "
            f"{error.message}",
            span_for_path(card, path),
            "this is a bug in pillbox or its ruleset; please report it",
        )


def span_for_path(card: Card, path: list[Any]) -> Span:
    """The span of the deepest node along `path` that records one."""
    node: Any = card
    best = card["at"]
    for step in path:
        try:
            node = node[step]
        except (KeyError, IndexError, TypeError):
            break
        if isinstance(node, dict) and isinstance(node.get("at"), list):
            best = node["at"]
    return Span.from_list(str(card.get("file", "<ir>")), best)
