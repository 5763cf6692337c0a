"""`pillbox lsp`'s later features: the card-by-card re-check, ruleset definitions, odds in
hovers, slot completion, quick fixes and the diagnostics of pack.yaml and the ruleset.

One server (and one pack) serves the whole module, on a thread of this process: starting the
command costs a second or two of imports, and tests/test_lsp.py drives it as an editor does."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.workspace import TextDocument

from compiler.check import check_paths
from compiler.lsp.packs import PackChecker
from compiler.odds import OddsRequest, show_odds
from compiler.pack import display_path
from dsl.spans import Diagnostic
from tests.conftest import ROOT
from tests.test_lsp import HALLUCINATION, ITEM, PACK_YAML, Client, serving_here


@pytest.fixture(scope="module")
def pack(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("desk")
    (folder / "pack.yaml").write_text(PACK_YAML)
    (folder / "cards").mkdir()
    (folder / "cards" / "item.card").write_text(ITEM)
    (folder / "cards" / "hallucination.card").write_text(HALLUCINATION)
    return folder


@pytest.fixture(scope="module")
def client(pack: Path) -> Iterator[Client]:
    yield from serving_here(pack)


BELL = HALLUCINATION
EDITS = [
    # a typo in the first card, then lines typed above every card: the others only move
    lambda t: t.replace("gain health 1", "gain helth 1", 1),
    lambda t: "# the bells\n\n" + t,
    # an option given twice (its message names a line) moved down by a line typed above it
    lambda t: t.replace('option "Let it ring"', 'option "Answer it"'),
    lambda t: "\n" + t,
    # an unclosed card swallows nothing after it; then it is closed again
    lambda t: t.replace('    option "Answer it" { gain helth 1 }\n', '    option "Answer it" {\n'),
    lambda t: t.replace('    option "Answer it" {\n', '    option "Answer it" { gain 1 }\n', 1),
    # two cards on one line, a comment after a `}`, a card's title taken by the other file
    lambda t: t.replace("}\n\n", '} room "Attic" { number 9 }\n', 1),
    lambda t: t.replace('} room "Attic"', '} # the attic\nroom "Attic"'),
    lambda t: t + ITEM,
    # a title given twice in the file (E0310 names the first card's place), then both move
    lambda t: t + BELL.replace("The Bell", "The Gong"),
    lambda t: "\n\n\n" + t,
    lambda t: t.replace("\n", "\r\n"),  # as saved on Windows
    lambda t: "\r\n" + t.replace("number 9", "number 99"),
    # every card deleted but a comment, then the file is empty
    lambda t: "# nothing yet\n",
    lambda t: "",
]


def test_the_card_by_card_recheck_says_what_check_says(pack: Path) -> None:
    path = pack / "cards" / "hallucination.card"
    shown = display_path(path)
    checker = PackChecker()
    text = "\n".join([BELL, BELL.replace("The Bell", "The Gong"), BELL.replace("Bell", "Drum")])
    codes = set()
    try:
        for number, edit in enumerate([lambda t: t, *EDITS]):
            text = edit(text)
            found = checker.diagnostics(TextDocument(path.as_uri(), text))
            path.write_text(text)
            checked = check_paths([path], use_cache=False).diagnostics
            mine = {d: None for d in checked if d.span.file == shown}
            assert found == sorted(mine, key=Diagnostic.sort_key), f"edit {number}: {text!r}"
            codes |= {d.code for d in found}
    finally:
        path.write_text(HALLUCINATION)
    assert {"E0201", "E0310", "E0315", "E0103", "W0408"} <= codes, codes  # the edits found these


def _definitions(client: Client, uri: str, line: int, character: int) -> list[tuple[str, int]]:
    position = {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}
    found = client.request("textDocument/definition", position)
    return [
        (Path(f["uri"][len("file://") :]).parent.name, f["range"]["start"]["line"]) for f in found
    ]


def _yaml_line(ruleset: str, key: str, under: str) -> int:
    """The 0-based line of a key under a top-level section of a bundled ruleset."""
    lines = (ROOT / "content" / ruleset / "ruleset.yaml").read_text().splitlines()
    section = lines.index(f"{under}:")
    return next(i for i, line in enumerate(lines) if i > section and line.startswith(f"  {key}:"))


def test_definition_of_a_ruleset_word_is_its_entry(pack: Path, client: Client) -> None:
    uri = client.open(pack / "cards" / "item.card")
    # `gain` is base's verb, coma-ward extends base; `health` coma-ward's stat
    assert _definitions(client, uri, 2, 12) == [("base", _yaml_line("base", "gain", "verbs"))]
    assert _definitions(client, uri, 2, 19) == [
        ("coma-ward", _yaml_line("coma-ward", "health", "stats"))
    ]
    assert _definitions(client, uri, 0, 2) == [
        ("coma-ward", _yaml_line("coma-ward", "item", "kinds"))
    ]
    assert _definitions(client, uri, 1, 5) == [
        ("coma-ward", _yaml_line("coma-ward", "type", "properties"))
    ]
    assert _definitions(client, uri, 4, 16) == [  # `given health 4` in a test
        ("coma-ward", _yaml_line("coma-ward", "health", "stats"))
    ]
    assert _definitions(client, uri, 4, 10) == []  # `given`: the grammar's word
    assert _definitions(client, uri, 0, 9) == []  # in the title
    commented = ITEM.replace("type clothing", "type clothing  # health")
    assert _definitions(client, client.open(pack / "cards" / "item.card", commented), 1, 26) == []


def _hover(client: Client, uri: str, line: int, character: int) -> str:
    position = {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}
    found = client.request("textDocument/hover", position)
    return "" if found is None else str(found["contents"]["value"])


CHECKED = """hallucination "The Stair" {
    situation "Steps go down."
    option "Go down" {
        check focus {
            0..1 { gain terror 1 }
            2+ { lose terror 1 }
        }
    }
    option "Stay" { move to stairs }
}
"""


def test_hover_shows_what_a_line_prints_and_a_checks_odds(pack: Path, client: Client) -> None:
    uri = client.open(pack / "cards" / "stair.card", CHECKED)
    assert "prints: *Move to the stairs.*" in _hover(client, uri, 8, 22)
    assert "prints: *Increase your Terror by 1.*" in _hover(client, uri, 4, 20)
    shown = _hover(client, uri, 3, 10)  # on `check focus`: the odds of "Go down" alone
    assert "prints: *Make a Focus check:" in shown
    odds = shown.split("```\n")[1]
    assert odds.startswith('hallucination "The Stair", given health 5, terror 1,')
    assert "37.3 %  check focus: 0..1  terror +1" in odds and "62.7 %" in odds
    assert "Go down" in odds and "Stay" not in odds
    assert "```" not in _hover(client, uri, 4, 20)  # an effect line has no odds


def test_a_checks_odds_in_a_hover_are_what_odds_prints(client: Client, tmp_path: Path) -> None:
    (tmp_path / "pack.yaml").write_text(PACK_YAML)
    (tmp_path / "stair.card").write_text(CHECKED)
    printed: list[str] = []
    request = OddsRequest("The Stair", None, (), as_json=False)
    assert show_odds(tmp_path, None, request, printed.append) == 0
    uri = client.open(tmp_path / "stair.card")
    shown = _hover(client, uri, 3, 10).split("```\n")[1].rstrip("`\n").split("\n")
    assert shown == printed[: printed.index("  Stay") - 1]  # the table of "Go down"


def _complete(client: Client, uri: str, line: int, character: int) -> set[str]:
    position = {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}
    return {item["label"] for item in client.request("textDocument/completion", position)}


def _after(text: str, written: str) -> tuple[int, int]:
    """The 0-based line and character just after the first place a text is written."""
    before = text[: text.index(written) + len(written)]
    return before.count("\n"), len(before.split("\n")[-1])


def test_completion_after_a_first_word_offers_what_its_slots_take(
    pack: Path, client: Client
) -> None:
    text = CHECKED.replace("move to stairs", "move to st").replace("gain terror 1", "gain ")
    uri = client.open(pack / "cards" / "stair.card", text)
    assert {"stairs", "f1-stairs", "hallway"} <= _complete(client, uri, *_after(text, "to st"))
    assert _complete(client, uri, *_after(text, "gain ")) == {"health", "terror"}  # tracked
    assert "for" in _complete(client, uri, *_after(text, "lose terror 1 "))  # `[for {subject}]`
    assert {"focus", "attack", "dodge"} <= _complete(client, uri, *_after(text, "check "))
    assert _complete(client, uri, *_after(text, "situation ")) == set()  # a text goes there
    typed = text.replace("gain ", "gain health 1 for ")
    uri = client.open(pack / "cards" / "stair.card", typed)
    assert {"you", "each character"} <= _complete(client, uri, *_after(typed, "1 for "))


def _fixed(client: Client, pack: Path, text: str, code: str) -> tuple[str, str]:
    """The title of the quick fix of a text's diagnostic of a code, and the text it makes."""
    uri = client.open(pack / "cards" / "fix.card", text)
    (found,) = [d for d in client.diagnostics(uri) if d["code"] == code]
    asked = {"textDocument": {"uri": uri}, "range": found["range"], "context": {"diagnostics": []}}
    (fix,) = client.request("textDocument/codeAction", asked)
    assert fix["kind"] == "quickfix"
    (edit,) = fix["edit"]["changes"][uri]
    document = TextDocument(uri, text)
    start, end = (
        document.offset_at_position(types.Position(**edit["range"][e])) for e in ("start", "end")
    )
    return fix["title"], text[:start] + edit["newText"] + text[end:]


@pytest.mark.parametrize(
    ("broken", "code", "title", "meant"),
    [
        ("expect health == 5", "E0101", "Change '=' to '=='", "expect health = 5"),
        ('situation "It rings"', "E0102", 'Close the text with "', 'situation "It rings'),
        ('situation "It rings"', "E0201", "Put 'It rings' in quotes", "situation It rings"),
        ('say "to the stairs"', "E0101", "Put 'to the stairs' in quotes", "say to the stairs"),
        ("2..3 { lose terror 1 }", "E0303", "Change '3..2' to '2..3'", "3..2 { lose terror 1 }"),
        ("} else {", "E0105", "Write `else` after the `}` it follows", "}\n        else {"),
        (" }\n}\nroom", "E0103", "Add the missing '}'", " }\nroom"),
    ],
)
def test_a_diagnostic_whose_help_names_the_change_is_a_quick_fix(
    pack: Path, client: Client, broken: str, code: str, title: str, meant: str
) -> None:
    clean = FIXABLE.replace("expect terror", "expect health == 5; expect terror")
    assert broken in clean
    text = clean.replace(broken, meant, 1)
    assert _fixed(client, pack, text, code) == (title, clean)


FIXABLE = """hallucination "The Echo" {
    situation "It rings"
    option "Listen" {
        check focus {
            0..1 { gain terror 1 }
            2..3 { lose terror 1 }
            4+ {
                if terror > 1 {
                    lose terror 1
                } else {
                    gain health 1
                }
            }
        }
    }
    option "Leave" { move to stairs; say "to the stairs" }
    test "t" { choose "Leave"; expect terror == 1 }
}
room "Attic" {
    number 9
}
"""


def test_a_missing_property_is_added_by_its_example(pack: Path, client: Client) -> None:
    text = 'item "Towel" {\n    use { gain health 1 }\n}\n'
    title, fixed = _fixed(client, pack, text, "E0213")
    assert title.startswith("Add 'type ") and fixed.startswith('item "Towel" {\n    type ')
    uri = client.open(pack / "cards" / "fix.card", fixed)
    assert client.diagnostics(uri) == []


def test_a_broken_pack_yaml_or_ruleset_is_shown_on_its_file(client: Client, tmp_path: Path) -> None:
    (tmp_path / "pack.yaml").write_text(PACK_YAML.replace("version:", "verzion:"))
    card = client.open(tmp_path / "item.card", ITEM)
    assert client.diagnostics(card) == []  # no pack to check it in: nothing said of it
    found = client.diagnostics((tmp_path / "pack.yaml").as_uri())  # as `check` says
    assert [(d["code"], d["range"]["start"]["line"]) for d in found] == [("E0403", 0), ("E0403", 2)]
    assert "unknown key 'verzion'" in found[1]["message"]
    manifest = (tmp_path / "pack.yaml").as_uri()
    context = {"diagnostics": []}
    asked = {"textDocument": {"uri": manifest}, "range": found[1]["range"], "context": context}
    (fix,) = client.request("textDocument/codeAction", asked)  # pack.yaml's did-you-mean
    assert fix["title"] == "Change 'verzion' to 'version'"
    (tmp_path / "pack.yaml").write_text(PACK_YAML.replace("coma-ward", "./rules.yaml"))
    (tmp_path / "rules.yaml").write_text("ruleset: own\ntitle: Own\nversion: 1\nstats: [\n")
    change = {"textDocument": {"uri": card, "version": 2}, "contentChanges": [{"text": ITEM}]}
    client.notify("textDocument/didChange", change)
    assert client.diagnostics(card) == []
    (broken,) = client.diagnostics((tmp_path / "rules.yaml").as_uri())
    assert broken["code"] == "E0401" and broken["range"]["start"]["line"] == 4
    assert client.diagnostics((tmp_path / "pack.yaml").as_uri()) == []  # fixed: cleared


def test_a_card_is_checked_again_when_its_ruleset_changes(tmp_path: Path) -> None:
    (tmp_path / "pack.yaml").write_text(PACK_YAML)
    path, saved = tmp_path / "item.card", tmp_path / "saved.card"
    path.write_text(ITEM)
    saved.write_text(ITEM.replace("Iron Pole", "Tin Pole"))
    checker = PackChecker()
    assert checker.diagnostics(TextDocument(path.as_uri(), ITEM)) == []
    assert checker.diagnostics(TextDocument(saved.as_uri(), saved.read_text())) == []
    (tmp_path / "pack.yaml").write_text(PACK_YAML.replace("coma-ward", "lobotomy"))
    found = checker.diagnostics(TextDocument(path.as_uri(), ITEM))
    checked = check_paths([tmp_path], use_cache=False).diagnostics
    assert found and found == [d for d in checked if d.span.file == found[0].span.file]
    pack = checker.checked(path, ITEM)
    assert pack is not None
    other = display_path(saved)  # the saved file's result is new too
    assert pack.results[other].diagnostics == [d for d in checked if d.span.file == other] != []


def test_a_card_right_after_another_is_its_own_stretch() -> None:
    """The line after a card's `}` is the next card's, with no blank line between them: the
    missing `}` of the second card goes after it, not after the first."""
    from compiler.lsp.incremental import stretch_at

    text = 'item "A" {\n    type food\n}\nitem "B" {\n    type food\n'
    assert stretch_at(text, 3) == (0, 27, 1)
    assert stretch_at(text, 4) == (27, len(text), 4)
    assert stretch_at(text, 5) == (27, len(text), 4)
