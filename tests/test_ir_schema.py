"""compiler/ir.py's TypedDicts and schemas/ir.schema.json say the same of the IR, and the IR that
the bundled packs compile to fits both: the types mypy checks the compiler against are the
shapes the schema checks at run time."""

from __future__ import annotations

import json
import types
import typing
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from compiler import ir
from compiler.build import load_checked
from compiler.irschema import validate_card

ROOT = Path(__file__).resolve().parent.parent
PACKS = sorted(p.name for p in (ROOT / "content").iterdir() if (p / "pack.yaml").is_file())

SCHEMA_OF: dict[Any, str] = {
    ir.Card: "/$defs/card",
    ir.TextEntry: "/$defs/textEntry",
    ir.Option: "/$defs/option",
    ir.BlockEntry: "/$defs/blockEntry",
    ir.ModifierEntry: "/$defs/modifierEntry",
    ir.Effect: "/$defs/effect",
    ir.May: "/$defs/effect/properties/may",
    ir.Choose: "/$defs/effect/properties/choose",
    ir.If: "/$defs/effect/properties/if",
    ir.Branch: "/$defs/effect/properties/if/properties/branches/items",
    ir.Check: "/$defs/effect/properties/check",
    ir.Roll: "/$defs/effect/properties/roll",
    ir.Dice: "/$defs/effect/properties/roll/properties/dice",
    ir.Repeat: "/$defs/effect/properties/repeat",
    ir.Outcome: "/$defs/outcome",
    ir.Condition: "/$defs/condition",
    ir.Operand: "/$defs/operand",
    ir.Test: "/$defs/test",
    ir.Step: "/$defs/test/properties/steps/items",
    ir.Setting: "/$defs/test/properties/steps/items/properties/set",
    ir.Answer: "/$defs/test/properties/steps/items/properties/choose",
}
"""Each TypedDict of the IR, and the JSON pointer of the schema definition it stands for."""

LITERALS = {
    (ir.Condition, "compare"): "/$defs/condition/properties/compare",
    (ir.Answer, "answer"): "/$defs/test/properties/steps/items/properties/choose/properties/answer",
}
"""Keys whose type is a Literal, and the schema's enum they must list."""


@cache
def schema() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((ROOT / "schemas" / "ir.schema.json").read_text())
    return loaded


def pointed(pointer: str) -> dict[str, Any]:
    node: Any = schema()
    for part in pointer.strip("/").split("/"):
        node = node[part]
    assert isinstance(node, dict)
    return node


def typed_dicts() -> set[Any]:
    """Every TypedDict compiler/ir.py declares for the schema (the facts of a card are not)."""
    found = {value for value in vars(ir).values() if typing.is_typeddict(value)}
    return found - {ir.CardFacts, ir.OptionFacts, ir.TestFacts}


def test_every_typed_dict_is_mapped() -> None:
    assert typed_dicts() == set(SCHEMA_OF)


@pytest.mark.parametrize("typed", list(SCHEMA_OF), ids=lambda t: t.__name__)
def test_keys_match_the_schema(typed: Any) -> None:
    definition = pointed(SCHEMA_OF[typed])
    assert definition.get("additionalProperties") is False
    assert set(typing.get_type_hints(typed)) == set(definition["properties"])
    assert typed.__required_keys__ == set(definition.get("required", []))
    assert typed.__optional_keys__ == set(definition["properties"]) - typed.__required_keys__


@pytest.mark.parametrize(("typed", "key"), list(LITERALS), ids=lambda k: str(k))
def test_literals_match_the_schema_enums(typed: Any, key: str) -> None:
    hint = typing.get_type_hints(typed)[key]
    assert set(typing.get_args(hint)) == set(pointed(LITERALS[typed, key])["enum"])


def _unknown_keys(value: object, hint: Any, where: str) -> list[str]:
    """Keys of `value` (at `where`) that its type does not declare, looked for all the way
    down through lists, unions and nested TypedDicts."""
    if typing.is_typeddict(hint):
        assert isinstance(value, dict), where
        hints = typing.get_type_hints(hint)
        found = [f"{where}/{key}" for key in value if key not in hints]
        for key, item in value.items():
            if key in hints:
                found += _unknown_keys(item, hints[key], f"{where}/{key}")
        return found
    origin = typing.get_origin(hint)
    if origin is list and isinstance(value, list):
        (item_hint,) = typing.get_args(hint)
        return [
            k
            for i, item in enumerate(value)
            for k in _unknown_keys(item, item_hint, f"{where}/{i}")
        ]
    if origin in (typing.Union, types.UnionType):
        nested = [
            h
            for h in typing.get_args(hint)
            if typing.is_typeddict(h) or typing.get_origin(h) is list
        ]
        if len(nested) == 1:
            return _unknown_keys(value, nested[0], where)
    return []


@pytest.mark.parametrize("pack", PACKS)
def test_bundled_packs_fit_the_schema_and_the_types(pack: str) -> None:
    loaded = load_checked(ROOT / "content" / pack)
    assert loaded.pack is not None, [d.message for d in loaded.diagnostics]
    assert loaded.pack.cards
    for card in loaded.pack.cards:
        assert [d.message for d in validate_card(loaded.pack.ruleset, card)] == []
        assert _unknown_keys(card, ir.Card, card["title"]) == []


def test_a_card_found_valid_and_then_changed_is_walked_again() -> None:
    loaded = load_checked(ROOT / "content" / "supply-room")
    assert loaded.pack is not None
    card, ruleset = loaded.pack.cards[0], loaded.pack.ruleset
    assert list(validate_card(ruleset, card)) == []
    assert list(validate_card(ruleset, card)) == []  # the second time from what was found
    card["file"] = 7  # type: ignore[typeddict-item]  # a string elsewhere was found valid
    assert [d.code for d in validate_card(ruleset, card)] == ["E0500"]
    card["file"] = "elsewhere/cards.card"
    assert list(validate_card(ruleset, card)) == []
    card["kind"] = "no such kind"  # type: ignore[typeddict-item]
    assert [d.code for d in validate_card(ruleset, card)] == ["E0500"]
    card["kind"] = ["a list for a string"]  # type: ignore[typeddict-item]
    assert [d.code for d in validate_card(ruleset, card)] == ["E0500"]
