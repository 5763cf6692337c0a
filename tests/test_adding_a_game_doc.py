"""The ruleset docs/adding-a-game.md shows with every key is a real one: it loads, its cards
check and pass their tests, and it shows each top-level key the ruleset schema allows.

A newcomer copies the shapes from that page; a shape written wrong there (a mapping shown as a
list) would be copied into every new game.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from tests.conftest import ROOT
from tests.helpers import run

PAGE = ROOT / "docs" / "adding-a-game.md"
HEADING = "### Every key in its real shape"


def _blocks() -> tuple[str, str]:
    """The page's example ruleset and its cards, as written there."""
    text = PAGE.read_text(encoding="utf-8")
    section = text[text.index(HEADING) :]
    rules = re.search(r"```yaml\n(.*?)```", section, re.S)
    cards = re.search(r"```text\n(.*?)```", section, re.S)
    assert rules is not None and cards is not None, "the section lost its yaml or text block"
    return rules.group(1), cards.group(1)


@pytest.fixture(scope="module")
def pack(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The page's game written out as a pack."""
    rules, cards = _blocks()
    folder = tmp_path_factory.mktemp("doc") / "night-shift"
    (folder / "cards").mkdir(parents=True)
    (folder / "ruleset.yaml").write_text(rules, encoding="utf-8")
    (folder / "cards" / "events.card").write_text(cards, encoding="utf-8")
    (folder / "pack.yaml").write_text(
        "pack: night-shift\ntitle: Night Shift\nversion: 0.1.0\nruleset: ruleset.yaml\n",
        encoding="utf-8",
    )
    return folder


def test_the_example_shows_every_top_level_key_of_the_schema() -> None:
    schema = json.loads((ROOT / "schemas" / "ruleset.schema.json").read_text(encoding="utf-8"))
    shown = YAML(typ="safe").load(_blocks()[0])
    assert sorted(set(schema["properties"]) - set(shown)) == []


def test_the_example_checks_clean_and_its_card_tests_pass(pack: Path) -> None:
    code, output = run("check", "--strict", str(pack))
    assert code == 0, output
    assert "0 errors, 0 warnings" in output
    code, output = run("test", str(pack))
    assert code == 0, output


def test_the_example_needs_no_python(pack: Path) -> None:
    shown = YAML(typ="safe").load(_blocks()[0])
    assert shown["runtime"] == "base"


def test_the_example_plays_whole_and_simulates(pack: Path) -> None:
    """The page's walk: `play --game` and `simulate` on the game it builds, no Python."""
    code, output = run("play", str(pack), "--game", "--players", "2", "--seed", "3")
    assert code == 0, output
    assert "walk on" in output and "outcome after the game:" in output
    code, output = run("simulate", str(pack), "--games", "60", "--players", "2", "--seed", "1")
    assert code == 0, output
    assert "results:" in output and "took: steady" in output and "fatigue at dawn" in output


def test_the_turn_of_free_then_main_actions_shown_is_coma_wards_own() -> None:
    """The page shows `game: turn:` and the action keys that serve it as Coma Ward writes
    them: every line of that block is in the bundled ruleset, so it is a real shape."""
    text = PAGE.read_text(encoding="utf-8")
    block = re.search(r"```yaml\n(  turn:\n.*?)```", text, re.S)
    assert block is not None, "the page lost its block of Coma Ward's turn"
    ruleset = (ROOT / "content" / "coma-ward" / "ruleset.yaml").read_text(encoding="utf-8")
    lines = ruleset.splitlines()
    for line in block.group(1).splitlines():
        assert line in lines, line
