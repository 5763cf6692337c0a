"""Rulesets as data: loading, merging over a base, validation, and the IR schema built from them."""

from __future__ import annotations

import copy
import json
import re
import shutil
from importlib import resources
from pathlib import Path

import pytest

from compiler.irschema import ir_schema, span_for_path, validate_card
from compiler.patterns import PatternError, compile_pattern
from compiler.pipeline import check_file
from compiler.ruleset import PRECOMPILED, RulesetError, load_ruleset, precompile, source_digest
from compiler.yamlio import YamlDocument, in_key_order
from runtime.games.coma_ward_game import play_prologue
from tests.conftest import ROOT, TESTS
from tests.helpers import compiled, whole_game

ITEMS = (TESTS / "specimens" / "coma-ward" / "items.card").read_text(encoding="utf-8")


def test_coma_ward_extends_base_and_states_its_tables() -> None:
    ruleset = load_ruleset("coma-ward")
    assert ruleset.stat_range("terror") == (0, 5)
    assert ruleset.stat_range("focus") == (1, 5)
    assert ruleset.stats["terror"].above_max == "health"
    assert ruleset.derived["focus"].table[4] == 2
    assert "gain" in ruleset.verbs.by_name  # from base
    assert "rummage" in ruleset.verbs.by_name  # from coma-ward
    assert set(ruleset.kinds) == {
        "hallucination",
        "item",
        "clue",
        "room",
        "quirk",
        "phenomenon",
        "neurosis",
        "role",
        "record",
        "special",
    }


def test_nothing_game_specific_in_the_compiler_core() -> None:
    core = Path(__file__).parent.parent
    words = (
        "terror",
        "hallucination",
        "phenomenon",
        "clue",
        "focus",
        "health",
        "situation",
        "insanity",
        "monster",
        "warden",
        "insomnia",
        "cooldown",
        "durability",
        "wound",
        "vitality",
        "threat",
        "purple",
        "enemy",
    )
    # Every stage, the printing and the report too, and the engine, apart from the game
    # modules in runtime/games/ (which are the games' own).
    for folder in ("dsl", "compiler", "runtime"):
        for source in (core / folder).rglob("*.py"):
            if source.name == "_lark_parser.py" or "games" in source.relative_to(core).parts:
                continue
            text = source.read_text(encoding="utf-8").lower()
            code = "\n".join(
                line for line in text.splitlines() if not line.strip().startswith(("#", '"'))
            )
            for word in words:
                assert f'"{word}"' not in code, f"{source.name} names {word!r}"


def test_a_ruleset_with_errors_is_reported_at_its_line(tmp_path: Path) -> None:
    (tmp_path / "rules.yaml").write_text(
        "ruleset: house\ntitle: House\nversion: 1\nextends: coma-ward\n"
        "stats:\n  sanity: {min: 0, max: 5}\n"
    )
    with pytest.raises(RulesetError) as caught:
        load_ruleset("rules.yaml", base_dir=tmp_path)
    diagnostic = caught.value.diagnostics[0]
    assert diagnostic.span.line == 6
    assert "start" in diagnostic.message


def test_pattern_syntax() -> None:
    ruleset = load_ruleset("coma-ward")
    pattern = compile_pattern("draw", "draw {deck} [{n:count}]", ruleset.slot_types)
    assert [s.name for s in pattern.slots] == ["deck", "n"]
    with pytest.raises(PatternError):
        compile_pattern("bad", "draw [{deck}", ruleset.slot_types)
    with pytest.raises(PatternError):
        compile_pattern("bad", "draw {nothing}", ruleset.slot_types)


def test_ir_schema_has_the_ruleset_names_as_enums() -> None:
    schema = ir_schema(load_ruleset("coma-ward"))
    stat = schema["$defs"]["args"]["properties"]["stat"]  # any stat in checks, tracked in gain
    assert sorted(sorted(s["enum"]) for s in stat["anyOf"]) == [
        ["dexterity", "focus", "health", "strength", "terror"],
        ["health", "terror"],
    ]
    assert "hallway" in schema["$defs"]["place"]["enum"]
    assert "gain" in schema["$defs"]["verb"]["enum"]


def test_valid_ir_passes_the_schema() -> None:
    ruleset = load_ruleset("coma-ward")
    result = check_file(ruleset, "items.card", ITEMS)
    assert result.diagnostics == []
    for card in result.cards:
        assert list(validate_card(ruleset, card.ir)) == []


def test_schema_errors_map_back_to_the_card_line() -> None:
    ruleset = load_ruleset("coma-ward")
    cards = check_file(ruleset, "items.card", ITEMS).cards
    granola = next(c.ir for c in cards if c.ir["title"] == "Granola Bar")
    broken = copy.deepcopy(granola)
    broken["blocks"][0]["effects"][1]["args"]["stat"] = "sanity"
    found = list(validate_card(ruleset, broken))
    assert len(found) == 1
    assert found[0].code == "E0500"
    assert (found[0].span.file, found[0].span.line) == ("items.card", 33)  # gain health 1
    assert "sanity" in found[0].message


def test_span_for_path_stops_at_the_deepest_node_with_a_span() -> None:
    card = {"file": "f.card", "at": [1, 1, 9, 2], "blocks": [{"at": [3, 5, 4, 6], "x": [1]}]}
    assert span_for_path(card, ["blocks", 0, "x", 0]).line == 3
    assert span_for_path(card, ["nowhere"]).line == 1


HOUSE = "ruleset: {name}\ntitle: House\nversion: 1\nextends: coma-ward\n"


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        ("derived:\n  luck: {from: health, table: {}}\n", "table"),
        ("stats:\n  luck: {min: 5, max: 1, start: 3}\n", "min <= start <= max"),
        ("stats:\n  luck: {min: 0, max: 5, start: 1, above_max: mana}\n", "mana"),
        ("slots:\n  odd: {integer: [9, 1]}\n", "wrong way round"),
        ("blocks:\n  test_phase: {pattern: test phase, body: effects}\n", "reserves"),
        ("values:\n  not_here: {pattern: not here, type: number}\n", "reserves"),
        ("kinds:\n  item:\n    blocks: [use, when_sneezing]\n", "when_sneezing"),
        ("kinds:\n  item:\n    shown_when: phenomenon_revealed\n", "is not dealt face down"),
        (
            "kinds:\n  quirk:\n    hidden: true\n    shown_when: sneezing\n",
            "'sneezing', which is not one of the ruleset's `conditions:`",
        ),
        ("derived:\n  luck: {from: health, table: {5: 1}}\n", "no value for health 0, 1"),
        (
            "checks:\n  pool: {pattern: '{stat}', procedure: coma-ward-pool, outcomes: successes,"
            " params: {faces: {success: [4, 5, 6], suspense: [4], failure: [1, 2, 3]}}}\n",
            "face 4 is both success and suspense",
        ),
        (
            "blocks:\n  calm: {pattern: calm, body: modifiers, applies: owned,"
            " while_stat: {sanity: [1, 2]}}\n",
            "unknown stat 'sanity'",
        ),
        ("verbs:\n  zap: {pattern: 'zap {game:stat}'}\n", "slot names are lower-case"),
        ("verbs:\n  zap: {pattern: 'zap {Zap:stat}'}\n", "slot names are lower-case"),
    ],
)
def test_ruleset_mistakes_are_reported_not_crashed(tmp_path: Path, extra: str, words: str) -> None:
    (tmp_path / "house.yaml").write_text(HOUSE.format(name="house") + extra)
    with pytest.raises(RulesetError) as caught:
        load_ruleset("house.yaml", base_dir=tmp_path)
    assert words in " ".join(d.message for d in caught.value.diagnostics)


def test_a_pack_ruleset_named_base_may_extend_a_bundled_one(tmp_path: Path) -> None:
    (tmp_path / "house.yaml").write_text(HOUSE.format(name="base"))
    assert load_ruleset("house.yaml", base_dir=tmp_path).name == "base"


def test_value_slots_need_not_be_called_stat(tmp_path: Path) -> None:
    (tmp_path / "house.yaml").write_text(
        HOUSE.format(name="house")
        + "values:\n  counter:\n    pattern: 'counter {kind:item_type}'\n"
        + "    type: number\n    settable: true\n"
    )
    ruleset = load_ruleset("house.yaml", base_dir=tmp_path)
    text = (
        'item "Bell" {\n  type clothing\n  use { end turn }\n'
        '  test "t" { given counter weapon 3; use "Bell" }\n}\n'
    )
    assert check_file(ruleset, "b.card", text).diagnostics == []


def test_an_edited_ruleset_is_read_again(tmp_path: Path) -> None:
    rules = tmp_path / "house.yaml"
    rules.write_text(HOUSE.format(name="house"))
    assert "sneeze" not in load_ruleset("house.yaml", base_dir=tmp_path).verbs.by_name
    rules.write_text(HOUSE.format(name="house") + "verbs:\n  sneeze: {pattern: sneeze}\n")
    assert "sneeze" in load_ruleset("house.yaml", base_dir=tmp_path).verbs.by_name


def test_precompiled_bundled_rulesets_are_fresh() -> None:
    root = Path(str(resources.files("content")))
    for source in root.glob("*/ruleset.yaml"):
        compiled_json = json.loads((source.parent / PRECOMPILED).read_text())
        text = source.read_text(encoding="utf-8").replace("\r\n", "\n")
        assert compiled_json["source_sha256"] == source_digest(text), (
            f"run `make rulesets` ({source})"
        )
        fresh = precompile(source)["document"]
        assert compiled_json["document"] == fresh, source
        assert json.dumps(compiled_json["document"]["data"]) == json.dumps(fresh["data"]), source


def test_a_ruleset_s_keys_are_put_in_order_even_of_several_types() -> None:
    # JSON's own sort refuses `1:` beside `name:`; a user's YAML may write both in one mapping
    document = YamlDocument("rules.yaml", {"b": [{"y": 2, "x": 1}], 10: 0, 9: 0, "a": None})
    data = in_key_order(document).data
    assert list(data) == ["10", "9", "a", "b"] and list(data["b"][0]) == ["x", "y"]
    numbers = in_key_order(YamlDocument("rules.yaml", {10: 0, 9: 0})).data
    assert list(numbers) == ["9", "10"]  # as `json.dumps(sort_keys=True)` writes them


def test_a_copy_of_a_bundled_ruleset_plays_as_the_bundled_one(tmp_path: Path) -> None:
    # The engine meets some of a ruleset's mappings in order: a copy read from its YAML, keys
    # in the order the file writes them, once played other seeded games than the bundled one
    # read from its precompiled JSON, keys sorted, and four of its room card tests failed (a
    # clue's bonus die lost).
    bundled = ROOT / "content" / "coma-ward"
    copy = tmp_path / "coma-ward"
    shutil.copytree(bundled, copy, ignore=shutil.ignore_patterns(PRECOMPILED))
    manifest = copy / "pack.yaml"
    text = re.sub(r"^ruleset: .*$", "ruleset: ./ruleset.yaml", manifest.read_text(), flags=re.M)
    assert "ruleset: ./ruleset.yaml" in text  # the copy reads its own YAML, not the bundled JSON
    manifest.write_text(text)
    logs = []
    for folder in (bundled, copy):
        pack = compiled(folder)
        game = whole_game(pack, 4, 3)
        play_prologue(game)
        logs.append(json.dumps(game.log.to_json(), sort_keys=True, default=repr))
    assert copy.joinpath("ruleset.yaml").is_file() and not copy.joinpath(PRECOMPILED).exists()
    assert logs[0] == logs[1]
