"""`pillbox vocab`: what a card may say, read from the ruleset, for a newcomer writing one."""

from __future__ import annotations

import json

import pytest

from tests.conftest import ROOT
from tests.helpers import run

COMA_WARD = ROOT / "content" / "coma-ward"


def test_a_kind_lists_its_properties_and_blocks_then_every_effect_word() -> None:
    code, output = run("vocab", "item", str(COMA_WARD))
    assert code == 0, output
    lines = output.splitlines()
    assert lines[0] == "Coma Ward (ruleset coma-ward)"
    assert "item cards: drawn from the item deck" in lines
    assert any(line.split() == ["type", "{item_type}", "(required)"] for line in lines)
    assert any(line.startswith("    charges {charges}") and "uses before" in line for line in lines)
    # The verbs with the ruleset's summaries, and what each slot takes.
    assert any(
        line.startswith("  gain {stat:tracked_stat} {amount}") and "raise a stat" in line
        for line in lines
    )
    assert any(
        "{item_type}" in line and "one of: clothing, clue, food, medicine, weapon" in line
        for line in lines
    )
    assert any(line.startswith("stats: health 0..5, terror 0..5") for line in lines)
    assert "hallucination cards" not in output  # one kind asked, one kind shown


@pytest.mark.parametrize("ruleset", ["base", "coma-ward", "lobotomy", "comanauts", "cool-name"])
def test_every_bundled_ruleset_gives_its_vocabulary_as_json(ruleset: str) -> None:
    code, output = run("vocab", "--ruleset", ruleset, "--json")
    assert code == 0, output
    found = json.loads(output)
    assert found["ruleset"] == ruleset and (found["kinds"] or ruleset == "base")
    assert all(entry["pattern"] for entry in found["verbs"])
    assert set(found) >= {"verbs", "conditions", "values", "checks", "stats", "places", "decks"}


def test_a_misspelt_kind_or_no_pack_is_a_usage_error_that_says_what_to_do(
    tmp_path: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, output = run("vocab", "--ruleset", "lobotomy", "monstr")
    assert code == 2 and "did you mean 'monster'?" in output and "the kinds: body," in output
    monkeypatch.chdir(str(tmp_path))
    code, output = run("vocab")
    assert code == 2 and "name a pack, or a ruleset with --ruleset" in output
    monkeypatch.chdir(COMA_WARD)  # the pack of the folder you are in
    code, output = run("vocab", "room")
    assert code == 0 and "room cards: drawn from the room deck" in output
