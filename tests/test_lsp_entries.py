"""`pillbox lsp` on a phrase of a card: hover shows the entry of the ruleset the phrase
matched (its pattern, summary and rules text) and go to definition goes to that entry alone,
wherever in the phrase the cursor is: verbs, conditions, values, blocks and their triggers,
checks, properties.

One server serves the whole module, on a thread of this process: starting the command costs a
second or two of imports, and tests/test_lsp.py drives it as an editor does."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.test_lsp import PACK_YAML, Client, serving_here

PHENOMENON = """phenomenon "The Night Round" {
    number 4
    clue order B C A
    mode cooperative
    heads for nurses-station
    when a turn ends {
        if in a room without a pill { place pill here }
    }
    each round {
        the matron moves 2 toward the nearest character
    }
    goals {
        if rooms with pills >= 6 { everyone has won }
    }
}
"""
STAIR = """hallucination "The Stair" {
    situation "Steps go down."
    option "Go down" {
        check dodge +1 {
            0..1 { gain terror 1 }
            2+ { lose terror 1 }
        }
    }
    option "Wait" {
        check focus { 0..1 { gain terror 1 } 2+ { lose terror 1 } }
    }
    test "it rings" {
        given location hallway
        choose "Wait"
        expect location == hallway
    }
}
"""


@pytest.fixture(scope="module")
def pack(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("ward")
    (folder / "pack.yaml").write_text(PACK_YAML)
    (folder / "phenomenon.card").write_text(PHENOMENON)
    (folder / "stair.card").write_text(STAIR)
    return folder


@pytest.fixture(scope="module")
def client(pack: Path) -> Iterator[Client]:
    yield from serving_here(pack)


def _at(text: str, written: str, word: str) -> tuple[int, int]:
    """The 0-based line and character of the middle of a word, the first time a text with
    that word in it is written."""
    before = text[: text.index(written) + written.index(word) + len(word) // 2]
    return before.count("\n"), len(before.split("\n")[-1])


def _definitions(client: Client, uri: str, place: tuple[int, int]) -> list[tuple[str, int, int]]:
    line, character = place
    position = {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}
    found = client.request("textDocument/definition", position)
    return [
        (
            str(Path(f["uri"][len("file://") :]).relative_to(ROOT / "content")),
            f["range"]["start"]["line"],
            f["range"]["start"]["character"],
        )
        for f in found
    ]


def _hover(client: Client, uri: str, place: tuple[int, int]) -> str:
    line, character = place
    position = {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}
    found = client.request("textDocument/hover", position)
    return "" if found is None else str(found["contents"]["value"])


def _entry(ruleset: str, under: str, key: str) -> tuple[str, int, int]:
    """Where a bundled ruleset writes an entry's key: its file, 0-based line and column."""
    lines = (ROOT / "content" / ruleset / "ruleset.yaml").read_text().splitlines()
    section = lines.index(f"{under}:")
    line = next(i for i, text in enumerate(lines) if i > section and text.startswith(f"  {key}:"))
    return f"{ruleset}/ruleset.yaml", line, 2


@pytest.mark.parametrize(
    ("written", "word", "section", "key", "shown"),
    [
        (
            "the matron moves 2 toward the nearest character",
            "toward",
            "verbs",
            "chase",
            [
                "verb `the {actor_kind} moves {amount} toward the nearest character`: "
                "it walks toward the nearest living character",
                "rules text: *the {actor_kind} moves {amount} spaces toward the nearest character*",
                "prints: *The matron moves 2 spaces toward the nearest character.*",
            ],
        ),
        (
            "if in a room without a pill",
            "without",
            "conditions",
            "room_without_pill",
            [
                "condition `in a room without a pill`",
                "rules text: *you are in a room without a pill*",
            ],
        ),
        (
            "if rooms with pills >= 6",
            "with",
            "values",
            "rooms_with_pills",
            ["value `rooms with pills`", "rules text: *the rooms with a pill on them*"],
        ),
        (
            "when a turn ends",
            "turn",
            "blocks",
            "when_a_turn_ends",
            [
                "block `when a turn ends`",
                "rules text: *whenever a player's turn ends*",
                "trigger **any_turn_ends**: a player's turn ends during the phenomenon act",
            ],
        ),
        (
            "heads for nurses-station",
            "for",
            "properties",
            "heads_for",
            ["property `heads for {place}`: where the players head by default in the act"],
        ),
    ],
)
def test_a_phrase_shows_and_goes_to_the_entry_it_matched(
    pack: Path,
    client: Client,
    written: str,
    word: str,
    section: str,
    key: str,
    shown: list[str],
) -> None:
    uri = client.open(pack / "phenomenon.card")
    place = _at(PHENOMENON, written, word)
    assert _definitions(client, uri, place) == [_entry("coma-ward", section, key)]
    paragraphs = _hover(client, uri, place).split("\n\n")
    assert paragraphs[: len(shown)] == shown


def test_a_check_shows_and_goes_to_its_entry(pack: Path, client: Client) -> None:
    uri = client.open(pack / "stair.card")
    attack = _entry("coma-ward", "checks", "dodge")
    for word in ("check", "+1"):  # the keyword and the modifier: not the first word's entry
        place = _at(STAIR, "check dodge +1", word)
        assert _definitions(client, uri, place) == [attack]
        assert _hover(client, uri, place).startswith(
            "check `dodge [{modifier}]`\n\nrules text: *make a dodge check[ ({modifier})]*\n\n"
        )
    # `focus` fills the slot of the pool's pattern `{stat} [{modifier}]`: it is the stat's word
    place = _at(STAIR, "check focus", "focus")
    assert _definitions(client, uri, place) == [_entry("coma-ward", "stats", "focus")]
    shown = _hover(client, uri, place).split("\n\n")
    assert shown[0] == "check `{stat} [{modifier}]`" and "stat **focus**, from 1 to 5" in shown


def test_a_tests_setting_and_expectation_name_their_value(pack: Path, client: Client) -> None:
    uri = client.open(pack / "stair.card")
    location = _entry("base", "values", "location")
    for written in ("given location hallway", "expect location == hallway"):
        place = _at(STAIR, written, "location")
        assert _definitions(client, uri, place) == [location]
        assert _hover(client, uri, place).startswith("value `location`")
    place = _at(STAIR, "expect location == hallway", "hallway")  # a place, not a value
    assert _definitions(client, uri, place) == [_entry("coma-ward", "places", "hallway")]
    assert _hover(client, uri, place).startswith("place **hallway**")


def test_an_ambiguous_first_word_gives_the_entry_its_line_matched(
    pack: Path, client: Client
) -> None:
    uri = client.open(pack / "phenomenon.card")
    the = _at(PHENOMENON, "the matron moves", "the")
    assert _definitions(client, uri, the) == [_entry("coma-ward", "verbs", "chase")]
    shown = _hover(client, uri, the)
    assert shown.startswith("verb `the {actor_kind} moves") and "climbs" not in shown
    when = _at(PHENOMENON, "when a turn ends", "when")
    assert _definitions(client, uri, when) == [_entry("coma-ward", "blocks", "when_a_turn_ends")]
    # a line that matched nothing (being typed) still offers each entry its first word starts
    typed = PHENOMENON.replace("the matron moves 2 toward", "the matron mo")
    uri = client.open(pack / "phenomenon.card", typed)
    assert len(_definitions(client, uri, _at(typed, "the matron mo", "the"))) > 1


RULES = """ruleset: night-ward
title: Night Ward
version: 1
extends: coma-ward
verbs:
  chase:
    pattern: "the {actor_kind} moves {amount} toward the nearest character"
    summary: "it shuffles"
  ring: {pattern: "ring the bell {amount}", summary: "everyone hears it", text: "ring {amount}"}
"""


def _location(client: Client, uri: str, place: tuple[int, int]) -> tuple[str, dict[str, int]]:
    line, character = place
    position = {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}
    (found,) = client.request("textDocument/definition", position)
    return found["uri"], found["range"]["start"]


def test_an_entry_of_a_packs_own_ruleset_is_in_its_file(client: Client, tmp_path: Path) -> None:
    (tmp_path / "pack.yaml").write_text(PACK_YAML.replace("coma-ward", "./rules.yaml"))
    (tmp_path / "rules.yaml").write_text(RULES)
    rules = (tmp_path / "rules.yaml").as_uri()
    text = PHENOMENON.replace("    }\n    goals", "        ring the bell 3\n    }\n    goals")
    uri = client.open(tmp_path / "phenomenon.card", text)
    ring = _at(text, "ring the bell 3", "bell")
    assert _location(client, uri, ring) == (rules, {"line": 8, "character": 2})
    shown = _hover(client, uri, ring)  # under the warning that no code plays it
    assert shown.startswith("**W0330**: verb 'ring' of ruleset 'night-ward' has no code")
    assert "\n\n---\n\nverb `ring the bell {amount}`: everyone hears it\n\n" in shown
    # the pack writes chase again over coma-ward's: its own entry is the one that holds, its
    # rules text still coma-ward's
    chase = _at(text, "the matron moves", "moves")
    assert _location(client, uri, chase) == (rules, {"line": 5, "character": 2})
    assert _hover(client, uri, chase).split("\n\n")[:2] == [
        "verb `the {actor_kind} moves {amount} toward the nearest character`: it shuffles",
        "rules text: *the {actor_kind} moves {amount} spaces toward the nearest character*",
    ]
    # a word of a bundled ruleset the pack's extends is in that ruleset's file
    turn = _at(text, "when a turn ends", "turn")
    assert _definitions(client, uri, turn) == [_entry("coma-ward", "blocks", "when_a_turn_ends")]
