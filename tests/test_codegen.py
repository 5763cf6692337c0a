"""Code generation: content stays data, code points at card lines, the output is pinned."""

from __future__ import annotations

import ast
import re
import traceback
from pathlib import Path
from typing import Any

import pytest

from compiler.build import CompiledPack, compile_pack, load_checked
from runtime.decisions import FirstChoice, ScriptedDecisions
from runtime.dice import ForcedDice
from runtime.game import RunawayError
from tests.conftest import TESTS
from tests.helpers import ROOT_PACKS, make_pack

SPECIMENS = TESTS / "specimens" / "coma-ward"
GOLDEN = TESTS / "golden" / "python"

HOSTILE = '''
hallucination "\\"); __import__('os').system('echo pwned') #" {
    situation "{CARDS} __builtins__ \\\\ ' \\" \\n"
    option "'''
HOSTILE += """'); import os; ('" {
        say "\\")\\n__import__('os').system('echo pwned')\\n(\\""
        gain terror 1
    }
    option "Leave" { end turn }
}
"""

IDENTIFIER = re.compile(
    r"^(game|card|value|runtime|_|CARDS|say|rule|choose|may|roll|repeat|no_outcome|"
    r"(verb|value|setter|condition|check)_[a-z0-9_]+|(picked|result|rolled)_\d+|"
    r"card_\d+_[a-z0-9_]+)$"
)


def compiled(folder: Path) -> CompiledPack:
    """Check and compile a pack folder; it must have no errors."""
    loaded = load_checked(folder)
    assert loaded.pack is not None, [d.message for d in loaded.diagnostics]
    return compile_pack(loaded.pack)


def test_content_reaches_the_code_only_as_constants(tmp_path: Path) -> None:
    pack = compiled(make_pack(tmp_path, cards=HOSTILE))
    source = pack.files[0].source()
    tree = ast.parse(source)
    names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    functions = {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}
    assert all(IDENTIFIER.match(name) for name in names | functions), names | functions
    assert not any(isinstance(node, (ast.Import, ast.ImportFrom)) for node in ast.walk(tree))
    game = pack.new_game(decisions=FirstChoice())
    game.play(pack.cards[0])
    said = [e.text for e in game.log.events if e.kind == "say"]
    assert said == ["“\")\n__import__('os').system('echo pwned')\n(\"”"]
    assert game.stat("terror") == 2


def test_generated_code_has_no_builtins() -> None:
    pack = compiled(SPECIMENS)
    function = pack.cards[0].options[0].run
    assert function.__globals__["__builtins__"] == {}


def test_a_traceback_inside_an_effect_points_at_the_card_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pack = compiled(SPECIMENS)
    game = pack.new_game(dice=ForcedDice([1, 2, 3]), decisions=ScriptedDecisions(["Back away"]))
    monkeypatch.setattr(game, "budget", 3)
    with pytest.raises(RunawayError) as caught:
        game.play(pack.cards[0])
    frames = [
        f for f in traceback.extract_tb(caught.value.__traceback__) if f.filename.endswith(".card")
    ]
    assert frames, "no frame of the card file in the traceback"
    last = frames[-1]
    assert last.filename == "tests/specimens/coma-ward/hallucinations.card"
    assert last.lineno == 20  # the `say` line, which took the fourth step
    assert last.line is not None and last.line.startswith('say "It is suddenly beside you.')
    assert last.colno == 16  # 0-based, as Python counts columns


def test_statements_carry_card_positions() -> None:
    pack = compiled(SPECIMENS)
    module = pack.files[0].module
    back_away = next(
        node
        for node in module.body
        if isinstance(node, ast.FunctionDef) and node.name == "card_1_option_3"
    )
    assert back_away.lineno == 17
    check = back_away.body[1]
    assert isinstance(check, ast.Assign)
    assert (check.lineno, check.col_offset, check.end_lineno) == (18, 8, 28)


@pytest.mark.parametrize("pack", ["coma-ward", "lobotomy", "comanauts", "cool-name"])
def test_every_node_of_a_card_s_code_lies_on_that_card_s_lines(pack: str) -> None:
    # Positions are given in one walk after generating; a span leaking past the card that
    # placed it (to a sibling, or up to its parent) would point a traceback at another card.
    loaded = load_checked(ROOT_PACKS / pack)
    assert loaded.pack is not None
    lines = {
        (checked.file, number): (card["at"][0], card["at"][2])
        for checked in loaded.pack.files
        for number, card in enumerate(checked.cards, start=1)
    }
    for compiled_file in compile_pack(loaded.pack).files:
        for function in compiled_file.module.body:
            if not isinstance(function, ast.FunctionDef):
                continue
            first, last = lines[(compiled_file.file, int(function.name.split("_")[1]))]
            for node in ast.walk(function):
                positioned: Any = node
                if "lineno" in node._attributes:
                    line, end = positioned.lineno, positioned.end_lineno
                    assert first <= line <= end <= last, (compiled_file.file, function.name)


@pytest.mark.parametrize("card_file", sorted(SPECIMENS.glob("*.card")), ids=lambda p: p.stem)
def test_generated_python_matches_the_golden_file(card_file: Path, update_goldens: bool) -> None:
    pack = compiled(SPECIMENS)
    shown = f"tests/specimens/coma-ward/{card_file.name}"
    source = next(f for f in pack.files if f.file == shown).source() + "\n"
    golden = GOLDEN / f"{card_file.stem}.py.txt"
    if update_goldens:
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(source)
    assert golden.exists(), f"no golden file {golden}; run `make test UPDATE=1`"
    assert source == golden.read_text()


def test_same_seed_same_log() -> None:
    pack = compiled(SPECIMENS)

    def run(seed: int) -> list[dict[str, object]]:
        game = pack.new_game(seed=seed)
        for card in pack.cards:
            if card.kind == "hallucination":
                game.play(card)
        return game.log.to_json()

    assert run(7) == run(7)
    assert run(7) != run(8)


def test_a_pack_compiled_again_reuses_its_code_but_not_its_cards(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Generating is most of compiling: the same file compiled again runs the kept code, into
    new cards on the new library; a changed file is generated anew."""
    from compiler import codegen, kept

    monkeypatch.setattr(kept, "_keeping", [True])  # as serve and the language server keep
    loaded = load_checked(TESTS / "specimens" / "coma-ward")
    assert loaded.pack is not None
    first = compile_pack(loaded.pack)
    generated: list[str] = []
    real = codegen.generate
    monkeypatch.setattr(
        codegen, "generate", lambda r, c, file, s: generated.append(file) or real(r, c, file, s)
    )
    again = compile_pack(loaded.pack)
    assert generated == []
    assert again.library is not first.library
    assert all(a is not b for a, b in zip(again.cards, first.cards, strict=True))
    changed = loaded.pack.files[0]
    changed.text += "\n# edited\n"
    compile_pack(loaded.pack)
    assert generated == [changed.file]
