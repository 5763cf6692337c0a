"""Diagnostics that say what was expected say it against what was written: a table of wrong
lines and the message each gets, checked in one run of the checker over one pack.

`given health -3` once said "expected a number, found '-3'", as `copies -3` did before: -3 is
a number, only not one that line takes. Every message that says "expected a number" about a
number written with a sign is caught by the last test, for lines not in the table too.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from compiler.check import check_paths
from dsl.spans import Diagnostic
from tests.helpers import house_rules_pack, make_pack, run
from tests.test_world import KEEP

EFFECTS: list[tuple[str, str]] = [
    ("gain health", "expected an amount after 'gain health'"),
    ("gain health lots", "expected a number from 1 to 10, found 'lots'"),
    ("gain health -2", "expected a number from 1 to 10, written without a sign, found '-2'"),
    ("gain health +2", "expected a number from 1 to 10, written without a sign, found '+2'"),
    ("take -2 damage", "expected a number from 1 to 10, written without a sign, found '-2'"),
    ("take 2 hurt", "expected 'damage', found 'hurt'"),
    ("bonus next focus 2", "expected a number with its sign, like +2, found '2'"),
    ("bonus next focus two", "expected a signed number like +1, found 'two'"),
    ("say hello", "unexpected 'hello' [a quoted text]"),
    ("repeat -2 { gain health 1 }", "unexpected '-2' [written without a sign, like 2]"),
]
"""An effect line of an option, and the message (then, in brackets, the help) it gets."""

STEPS: list[tuple[str, str]] = [
    ("given health -3", "-3 is out of range: the health here must be from 0 to 5"),
    ("given health +3", "`given` sets health to a value, it does not add to it: write 3, not +3"),
    ("given health lots", "`given health` takes a number from 0 to 5; found 'lots'"),
    ("given health 1..2", "`given health` takes a number from 0 to 5; found '1..2'"),
    (
        "given clues found -1",
        "`given clues found` takes a number of 0 or more, written without a sign; found '-1'",
    ),
    ("dice -1", "unexpected '-1' [written without a sign, like 1]"),
    ("dice two", "unexpected 'two' [expected a number]"),
    ("choose 3", "unexpected '3' [by its title in quotes, or answers yes or no]"),
]
"""A test step, and the message (then, in brackets, the help) it gets."""


@pytest.fixture(scope="module")
def found(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Diagnostic]]:
    """Each line of the tables in a card file of its own, all checked in one run."""
    cards: dict[str, str] = {}
    for index, (line, _) in enumerate(EFFECTS):
        cards[f"e{index:02}"] = (
            f'hallucination "E{index}" {{\n    situation "s"\n    option "A" {{ {line} }}\n'
            '    option "B" { gain health 1 }\n}\n'
        )
    for index, (step, _) in enumerate(STEPS):
        cards[f"s{index:02}"] = (
            f'hallucination "S{index}" {{\n    situation "s"\n'
            '    option "A" { gain health 1 }\n    option "B" { lose health 1 }\n'
            f'    test "t" {{\n        {step}\n        choose "A"\n        expect health == 5\n'
            "    }\n}\n"
        )
    pack = make_pack(tmp_path_factory.mktemp("messages") / "p", **cards)
    by_file: dict[str, list[Diagnostic]] = {}
    for diagnostic in check_paths([pack], use_cache=False).diagnostics:
        by_file.setdefault(Path(diagnostic.span.file).stem, []).append(diagnostic)
    return by_file


def _said(diagnostics: list[Diagnostic]) -> str:
    return " | ".join(f"{d.message} [{d.help}]" for d in diagnostics)


@pytest.mark.parametrize(("index", "wanted"), list(enumerate(m for _, m in EFFECTS)))
def test_an_effect_line_s_message(
    found: dict[str, list[Diagnostic]], index: int, wanted: str
) -> None:
    said = _said(found.get(f"e{index:02}", []))
    message, _, help_text = wanted.partition(" [")
    assert message in said and help_text.rstrip("]") in said, said


@pytest.mark.parametrize(("index", "wanted"), list(enumerate(m for _, m in STEPS)))
def test_a_test_step_s_message(found: dict[str, list[Diagnostic]], index: int, wanted: str) -> None:
    said = _said(found.get(f"s{index:02}", []))
    message, _, help_text = wanted.partition(" [")
    assert message in said and help_text.rstrip("]") in said, said


NUMBER_CALLED_NOT_ONE = re.compile(r"expected (a|an) [^;]*?number[^;]*?, found '([+-]?\d+)'")
"""A message that says a number was expected and found one: it must say what is wrong with it
(its sign, its range), never only "expected a number"."""


def test_no_message_says_a_number_was_expected_where_one_was_written(
    found: dict[str, list[Diagnostic]],
) -> None:
    for diagnostics in found.values():
        for diagnostic in diagnostics:
            text = f"{diagnostic.message} [{diagnostic.help}]"
            called = NUMBER_CALLED_NOT_ONE.search(text)
            assert called is None or re.search(r"sign|from -?\d+ to", called.group(0)), text
            assert not re.search(r"'[+-]\d+'.*\[expected a number\]", text), text


def test_given_sets_a_stat_below_zero_where_its_range_goes_there(tmp_path: Path) -> None:
    rules = KEEP.replace("  ap: {min: 0", "  mood: {min: -3, max: 3, start: 0}\n  ap: {min: 0")
    card = """relic "Charm" {
    use { gain mood 1 }
    test "from below zero" {
        given mood -2
        use "Charm"
        expect mood == -1
    }
}
"""
    code, output = run("test", str(house_rules_pack(tmp_path / "keep", "keep", rules, card)))
    assert code == 0, output
    assert "1 passed" in output
