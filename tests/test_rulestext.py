"""Rules text: the canonical English of a card, rendered from its IR and the ruleset's wording."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from compiler.pipeline import check_file
from compiler.ruleset import Ruleset, RulesetError, load_ruleset
from compiler.rulestext import card_text, effects_text, pack_text
from compiler.texttemplates import TemplateError, fill
from tests.conftest import TESTS
from tests.test_golden import GOLDEN, compare

SPECIMENS = sorted((TESTS / "specimens" / "coma-ward").glob("*.card"))
HOUSE = "ruleset: house\ntitle: House\nversion: 1\nextends: coma-ward\n"


@pytest.fixture
def coma_ward() -> Ruleset:
    return load_ruleset("coma-ward")


def cards(ruleset: Ruleset, text: str, path: str = "t.card") -> list[dict[str, Any]]:
    """The IR of every card of a text that must check without errors."""
    result = check_file(ruleset, path, text)
    assert not [d for d in result.diagnostics if d.is_error], result.diagnostics
    return [card.ir for card in result.cards]


def specimen(ruleset: Ruleset, file: str, title: str) -> dict[str, Any]:
    """One specimen card's IR, by its title."""
    path = TESTS / "specimens" / "coma-ward" / file
    found = [c for c in cards(ruleset, path.read_text(encoding="utf-8")) if c["title"] == title]
    return found[0]


def block_text(ruleset: Ruleset, body: str, block: str = "when revealed") -> str:
    """The rules text of one room block holding `body`."""
    card = cards(ruleset, f'room "R" {{\n number 9\n {block} {{\n{body}\n }}\n}}\n')[0]
    return card_text(ruleset, card).blocks[0][1]


def house(tmp_path: Path, extra: str) -> Ruleset:
    (tmp_path / "house.yaml").write_text(HOUSE + extra, encoding="utf-8")
    return load_ruleset("house.yaml", base_dir=tmp_path)


def test_effects_in_a_row_make_one_sentence(coma_ward: Ruleset) -> None:
    assert block_text(coma_ward, "gain terror 1\nmove to hallway") == (
        "Increase your Terror by 1, then move to the hallway."
    )
    room = cards(coma_ward, 'room "R" { number 9; when revealed { gain terror 1; lose health 2 } }')
    effects = room[0]["blocks"][0]["effects"]
    assert effects_text(coma_ward, effects) == (
        "Increase your Terror by 1, then reduce your Health by 2."
    )


def test_the_vial_pays_its_cost_then_lists_its_roll(coma_ward: Ruleset) -> None:
    text = card_text(coma_ward, specimen(coma_ward, "items.card", "Unlabeled Vial"))
    assert text.blocks == (
        (
            "Use",
            "Discard this item to roll a die: 1–2: −1 Health; 3–4: +1 Terror; "
            "5–6: +1 Health and −1 Terror.",
        ),
    )
    assert text.properties == (("type", "Medicine"),)


def test_a_cost_reads_as_one_only_where_the_player_chooses(coma_ward: Ruleset) -> None:
    vial = specimen(coma_ward, "items.card", "Unlabeled Vial")
    effects = [*vial["blocks"][0]["effects"][:1], {"verb": "end_turn", "args": {}}]
    assert effects_text(coma_ward, effects, kind="item", block="use") == (
        "Discard this item to end your turn."
    )
    assert effects_text(coma_ward, effects) == "Discard this card, then end your turn."


def test_open_ranges_and_counted_labels(coma_ward: Ruleset) -> None:
    text = block_text(coma_ward, "roll d6 { 1 { end turn } 2..4 { } 5+ { draw item 2 } }")
    assert text == "Roll a die: 1: end your turn; 2–4: nothing happens; 5+: draw 2 items."
    check = block_text(coma_ward, "check focus -1 { 1 { end turn } 0 { } 2+ { draw item 1 } }")
    assert check == (
        "Make a Focus check (−1): 1 success: end your turn; 0 successes: nothing happens; "
        "2+ successes: draw an item."
    )
    dice = block_text(coma_ward, "roll 2d8 { 2..9 { end turn } 10+ { gain health 1 } }")
    assert dice == "Roll 2d8 and add them up: 2–9: end your turn; 10+: +1 Health."


def test_outcomes_with_narration_get_a_line_each(coma_ward: Ruleset) -> None:
    figure = card_text(
        coma_ward, specimen(coma_ward, "hallucinations.card", "The Figure at the End of the Hall")
    )
    assert [title for title, _ in figure.options] == [
        "Call out to it",
        "Walk toward it",
        "Back away",
    ]
    assert figure.properties[0][0] == "situation"
    assert figure.options[2][1].split("\n") == [
        "Make a Dexterity check:",
        "  0–1 successes: It is suddenly beside you. You fall back into the hall, and it is "
        "gone. Increase your Terror by 1, then move to the hallway.",
        "  2+ successes: You throw yourself aside as it lunges. Its wail sinks into the walls. "
        "You may search the room.",
    ]


def test_named_outcomes_pass_and_fail(tmp_path: Path) -> None:
    ruleset = house(
        tmp_path,
        "checks:\n  nerve:\n    pattern: nerve\n    text: test your nerve\n"
        "    procedure: target\n    outcomes: [pass, fail]\n"
        "    params: {count: 2, sides: 6, target: 7, wins: at_most}\n"
        "wording:\n  names: {pass: if you pass, fail: if you fail}\n",
    )
    text = block_text(ruleset, "check nerve { pass { gain health 1 } fail { lose health 1 } }")
    assert text == "Test your nerve: if you pass: +1 Health; if you fail: −1 Health."


def test_may(coma_ward: Ruleset) -> None:
    assert block_text(coma_ward, "may rummage") == "You may search the room."
    assert block_text(coma_ward, "may { lose terror 2; draw hallucination }\nend turn") == (
        "You may reduce your Terror by 2, then draw a hallucination. End your turn."
    )
    assert block_text(coma_ward, 'may { say "Go on."; draw item }') == (
        "You may: Go on. Draw an item."
    )


def test_choose(coma_ward: Ruleset) -> None:
    text = block_text(
        coma_ward, 'choose {\n option "Run" { move to roof }\n option "Hide" { end turn }\n}'
    )
    assert text == "Choose one:\n  Run: Move to the roof.\n  Hide: End your turn."


def test_if_else_if_else(coma_ward: Ruleset) -> None:
    clue = card_text(coma_ward, specimen(coma_ward, "items.card", "Clue A"))
    assert clue.blocks == (
        (
            "When drawn",
            "If the phenomenon has been revealed, discard this clue, then draw an item. "
            "Otherwise, if the number of clues found is 3, reveal the phenomenon. "
            "Otherwise, add +1 to your next attack check.",
        ),
    )
    lines = block_text(
        coma_ward,
        'if not terror >= 4 and location == roof {\n say "Wind."\n} else { end turn }',
    )
    assert lines == (
        "If your Terror is less than 4 and your location is the roof: Wind.\n"
        "Otherwise: End your turn."
    )


def test_repeat(coma_ward: Ruleset) -> None:
    assert block_text(coma_ward, "repeat 3 { draw item; lose terror 1 }") == (
        "Repeat 3 times: draw an item, then reduce your Terror by 1."
    )


def test_a_verb_without_a_text_reads_as_its_pattern(tmp_path: Path) -> None:
    ruleset = house(tmp_path, "verbs:\n  hum: {pattern: 'hum {amount} bars of {stat}'}\n")
    assert block_text(ruleset, "hum 2 bars of focus") == "Hum 2 bars of Focus."


def test_an_empty_text_is_not_printed(coma_ward: Ruleset) -> None:
    shoes = card_text(coma_ward, specimen(coma_ward, "items.card", "Running Shoes"))
    assert [name for name, _ in shoes.properties] == ["type"]  # not its copies
    assert shoes.blocks == (("While carried", "+1 Dexterity."),)
    assert shoes.rules == ("Every pair after the first counts toward your carry limit.",)


def test_template_forms() -> None:
    counted = "draw [{count} {deck}s|a {deck}]"
    assert fill(counted, {"deck": "item"}) == "draw an item"
    assert fill(counted, {"deck": "item", "count": "1"}) == "draw an item"
    assert fill(counted, {"deck": "room", "count": "3"}) == "draw 3 rooms"
    assert fill("check[ ({modifier})] now", {}) == "check now"
    assert fill("check[ ({modifier})]", {"modifier": "+1"}) == "check (+1)"


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        ("verbs:\n  hum: {pattern: hum, text: 'hum {tune}'}\n", "tune"),
        ("verbs:\n  hum: {pattern: hum, text: 'hum [loudly'}\n", "unclosed"),
        ("wording:\n  short: {hum: '+1'}\n", "hum"),
        ("wording:\n  cost: {blocks: [sneeze]}\n", "sneeze"),
        ("wording:\n  may: 'you may {effects'\n", "brace"),
    ],
)
def test_wording_mistakes_are_reported(tmp_path: Path, extra: str, words: str) -> None:
    with pytest.raises(RulesetError) as caught:
        house(tmp_path, extra)
    assert words in " ".join(d.message for d in caught.value.diagnostics)


def test_template_errors_are_value_errors() -> None:
    assert issubclass(TemplateError, ValueError)


@pytest.mark.parametrize("path", SPECIMENS, ids=lambda p: p.stem)
def test_golden_rules_text(path: Path, coma_ward: Ruleset, update_goldens: bool) -> None:
    shown = f"specimens/coma-ward/{path.name}"
    text = pack_text(coma_ward, cards(coma_ward, path.read_text(encoding="utf-8"), shown))
    compare(text, GOLDEN / "rulestext" / path.with_suffix(".txt").name, update_goldens)
