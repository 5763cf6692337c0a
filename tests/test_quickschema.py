"""The quick validator answers as jsonschema does, for pack.yaml's schema and the IR schema of
each bundled ruleset, and any instance.

A check trusts its yes without asking jsonschema, so a yes where jsonschema says no would let a
broken pack.yaml, or a compiled card that does not fit the IR, through: every instance here is
judged by both, and they must agree.
"""

from __future__ import annotations

import copy
import json
import math
import os
import subprocess
import sys
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from compiler.build import load_checked
from compiler.irschema import ir_schema, validator_for
from compiler.pack import _pack_schema, _surely_valid
from compiler.quickschema import ANNOTATIONS, KEYWORDS, Unsupported, is_valid, linked
from compiler.yamlio import YamlError, load_yaml
from tests.conftest import ROOT, TESTS

SCHEMA = _pack_schema()
JSONSCHEMA = Draft202012Validator(SCHEMA)
EXAMPLES = int(os.environ.get("PILLBOX_FUZZ_EXAMPLES", "60"))

ODD_VALUES: list[Any] = [
    None, True, False, 0, 1, -1, 1.0, 1.5, math.nan, math.inf, "", "x", "coma-ward", "A B",
    "a" * 300, "../x", "/abs", "a\x00b", [], ["x"], [1], {}, {"x": 1}, [[]], 10**20,
]  # fmt: skip
"""Values of every JSON type and the edges the schema draws: put in place of each value."""


def _manifests() -> list[Path]:
    bundled = sorted(Path(str(resources.files("content"))).glob("*/pack.yaml"))
    return bundled + sorted((TESTS / "fuzz_corpus").glob("*.pack.yaml"))


def _data(path: Path) -> object:
    try:
        return load_yaml(path.read_text(encoding="utf-8"), path.name).data
    except (YamlError, UnicodeDecodeError):  # made to break the YAML reader: nothing to judge
        return None


def _variants(data: object) -> Iterator[object]:
    """The document, and it with each value replaced by each odd value and each key dropped."""
    yield data
    if isinstance(data, dict):
        for key in data:
            dropped = {k: v for k, v in data.items() if k != key}
            yield dropped
            for odd in ODD_VALUES:
                yield {**data, key: odd}
            for inner in _variants(data[key]):
                yield {**data, key: inner}
        for odd in ODD_VALUES:
            yield {**data, "unknown": odd}
    elif isinstance(data, list):
        for index in range(len(data)):
            for odd in ODD_VALUES:
                changed = copy.copy(data)
                changed[index] = odd
                yield changed


def _agree(instance: object) -> None:
    expected = JSONSCHEMA.is_valid(instance)
    try:
        quick = is_valid(SCHEMA, instance)
    except Unsupported:
        assert not _surely_valid(instance)  # unsure counts as no: jsonschema then decides
        return
    assert quick == expected, json.dumps(instance, default=str)[:300]


def test_every_keyword_of_the_pack_schema_is_implemented() -> None:
    used: set[str] = set()

    def walk(schema: object) -> None:
        if not isinstance(schema, dict):
            return
        used.update(schema)
        for name, value in schema.items():
            if name == "properties":
                for sub in value.values():
                    walk(sub)
            elif name in ("items", "not", "additionalProperties", "propertyNames"):
                walk(value)

    walk(SCHEMA)
    unknown = used - set(KEYWORDS) - ANNOTATIONS
    assert not unknown


def test_a_keyword_it_does_not_know_is_unsupported_never_a_yes() -> None:
    with pytest.raises(Unsupported):
        is_valid({"$ref": "#/x"}, {})
    with pytest.raises(Unsupported):
        is_valid({"additionalProperties": False, "patternProperties": {"a": True}}, {})


@pytest.mark.parametrize("manifest", _manifests(), ids=lambda p: p.name)
def test_each_pack_and_every_variant_of_it_is_judged_as_jsonschema_judges(manifest: Path) -> None:
    data = _data(manifest)
    for variant in _variants(data):
        _agree(variant)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=12,
)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    base=st.sampled_from([d for d in map(_data, _manifests()) if isinstance(d, dict)]),
    key=st.sampled_from(["pack", "title", "version", "ruleset", "sources", "print", "allow"]),
    value=JSON,
)
def test_any_value_in_any_place_is_judged_as_jsonschema_judges(
    base: dict[str, Any], key: str, value: object
) -> None:
    _agree({**base, key: value})
    _agree(value)


def test_a_valid_pack_yaml_never_loads_jsonschema() -> None:
    # The point of the quick validator: a check of a valid pack asks jsonschema nothing.
    code = (
        "import sys; from pathlib import Path; from compiler.pack import load_pack, read_manifest;"
        f"m = Path({str(ROOT / 'content' / 'coma-ward' / 'pack.yaml')!r});"
        "pack, problems = load_pack(m, read_manifest(m)[0]); assert pack and not problems;"
        "print('jsonschema' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


IR_VARIANTS = 100
"""The variants of each bundled pack's largest card judged by both: every so many of them,
spread over the whole card (jsonschema takes about 8 ms a variant)."""


@pytest.mark.parametrize("pack", sorted(p.parent.name for p in _manifests()[:5]))
def test_each_compiled_card_and_variants_of_the_largest_are_judged_as_jsonschema_judges(
    pack: str,
) -> None:
    loaded = load_checked(ROOT / "content" / pack)
    assert loaded.pack is not None
    ruleset = loaded.pack.ruleset
    schema, validator = linked(ir_schema(ruleset)), validator_for(ruleset)
    for card in loaded.pack.cards:  # every card as compiled: valid, and so found by both
        assert is_valid(schema, card) and validator.is_valid(card), card["title"]
    largest = max(loaded.pack.cards, key=lambda card: len(repr(card)))
    variants = list(_variants(json.loads(json.dumps(largest))))
    judged = variants[:: max(1, len(variants) // IR_VARIANTS)]
    for variant in judged:
        expected = validator.is_valid(variant)
        assert is_valid(schema, variant) == expected, json.dumps(variant, default=str)[:300]
    assert len(judged) >= IR_VARIANTS and not all(map(validator.is_valid, judged[1:]))


def test_references_are_linked_and_read_as_jsonschema_reads_them() -> None:
    tree = {
        "$defs": {
            "node": {
                "type": "object",
                "properties": {"next": {"$ref": "#/$defs/node"}, "tag": {"$ref": "#/$defs/tag"}},
                "additionalProperties": False,
            },
            "tag": {"oneOf": [{"type": "integer"}, {"type": "number", "minimum": 0}]},
            "never": False,
        },
        "anyOf": [{"$ref": "#/$defs/node"}, {"allOf": [{"type": "string"}, {"minLength": 2}]}],
    }
    quick, slow = linked(tree), Draft202012Validator(tree)
    for instance in [
        {}, {"next": {"next": {}}}, {"next": {"next": 1}}, {"tag": 1}, {"tag": 1.5},
        {"tag": -1.5}, {"tag": True}, {"other": 1}, "ab", "a", 1, None, [],
    ]:  # fmt: skip
        assert is_valid(quick, instance) == slow.is_valid(instance), instance
    with pytest.raises(Unsupported):
        linked({"$ref": "#/$defs/missing"})
    with pytest.raises(Unsupported):
        linked({"$defs": {"a": {}}, "items": {"$ref": "other.json#/a"}})
    assert is_valid(linked({"$defs": {"never": False}, "$ref": "#/$defs/never"}), 1) is False
    # a property may be named as a keyword is: it stays a property, its schema asked
    named = {"properties": {"$defs": {"type": "string"}, "$ref": {"const": {"$ref": "x"}}}}
    quick, slow = linked(named), Draft202012Validator(named)
    for instance in [{"$defs": 1}, {"$defs": "a"}]:
        assert is_valid(quick, instance) == slow.is_valid(instance), instance
