"""`pillbox play` and `pillbox build`: narration, answers, JSON, emitted code and IR files."""

from __future__ import annotations

import ast
import json
from pathlib import Path

from compiler.commands.play import PlayRequest, play_card, state_text
from compiler.irschema import validate_card
from compiler.ruleset import load_ruleset
from tests.conftest import TESTS
from tests.helpers import make_pack, run

SPECIMENS = TESTS / "specimens" / "coma-ward"
FIGURE = "The Figure at the End of the Hall"


def test_play_json_has_the_promised_keys_and_repeats_with_the_seed() -> None:
    args = ("play", str(SPECIMENS), FIGURE, "--seed", "5", "--choose", "Back away", "--json")
    args += ("--set", "dexterity=1", "--set", "terror=2")
    code, output = run(*args)
    assert code == 0, output
    played = json.loads(output)
    assert set(played) >= {"card", "seed", "state", "log"}
    assert played["card"] == FIGURE and played["seed"] == 5
    assert {"stats", "location", "items", "flags"} <= set(played["state"])
    assert played["log"][0] == {
        "kind": "given",
        "text": "dexterity is 1",
        "data": {"stat": "dexterity", "value": 1},
    }
    checks = [e for e in played["log"] if e["kind"] == "check"]
    assert len(checks) == 1 and checks[0]["text"].startswith("check dexterity (1 die): ")
    assert run(*args) == (code, output)  # same seed, same bytes


def test_play_narrates_then_shows_the_state() -> None:
    code, output = run(
        "play",
        str(SPECIMENS),
        "Someone Says Your Name",
        "--seed",
        "3",
        "--choose",
        "Answer",
        "--set",
        "terror=4",
    )
    assert code == 0, output
    lines = output.splitlines()
    assert lines[1] == "“From the next room, a voice you almost recognise says your name.”"
    assert "pick an option: Answer" in lines
    assert "  “You answer with a scream.”" in lines
    assert "state: health 5, terror 5" in output
    assert "(seed 3: run again with --seed 3 for the same dice)" in output


def test_play_asks_at_a_terminal(tmp_path: Path) -> None:
    replies = iter(["7", "back away", "no"])
    asked: list[str] = []

    def ask(prompt: str) -> str:
        asked.append(prompt)
        return next(replies)

    shown: list[str] = []
    request = PlayRequest(FIGURE, None, 1, ["dexterity=3"], [], False, interactive=True)
    assert play_card(SPECIMENS, None, request, shown.append, ask) in (0, 1)
    assert "  1. Call out to it" in shown and "  3. Back away" in shown
    assert "  answer with a number from 1 to 3, or the words of an answer" in shown  # "7" refused
    assert asked[0] == "pick an option?"


def test_play_without_answers_and_without_a_terminal_stops_with_e0601() -> None:
    code, output = run("play", str(SPECIMENS), FIGURE, "--seed", "1")
    assert code == 1
    assert "error[E0601]: the card asks 'pick an option'" in output
    assert "answer it with --choose" in output


def test_play_reports_answers_never_asked_for() -> None:
    code, output = run(
        "play",
        str(SPECIMENS),
        FIGURE,
        "--seed",
        "1",
        "--choose",
        "Walk toward it",
        "--choose",
        "yes",
    )
    assert code == 1
    assert "error[E0602]: --choose answers never asked for: 'yes'" in output


def test_play_usage_errors_exit_2() -> None:
    code, output = run("play", str(SPECIMENS), "The Figure at the End of the Hal")
    assert code == 2 and "did you mean 'The Figure at the End of the Hall'?" in output
    code, output = run("play", str(SPECIMENS), "Music from the Nursery", "--variant", "3")
    assert code == 2 and "has no variant 3 (variants: 1, 2)" in output
    code, output = run("play", str(SPECIMENS), FIGURE, "--set", "sanity=2")
    assert code == 2 and "'sanity' is not a stat" in output
    code, output = run("play", str(SPECIMENS), FIGURE, "--set", "terror=lots")
    assert code == 2 and "'lots' is not a whole number" in output
    code, output = run("play", str(SPECIMENS), FIGURE, "--set", "focus=99999999999999999")
    assert code == 2 and "focus goes from 1 to 5" in output
    code, output = run("play", str(SPECIMENS), FIGURE, "--set", "location=attic")
    assert code == 2 and "'attic' is not a place" in output


def test_play_a_variant() -> None:
    code, output = run(
        "play",
        str(SPECIMENS),
        "Music from the Nursery",
        "--variant",
        "2",
        "--seed",
        "2",
        "--choose",
        "Open the door",
        "--json",
    )
    assert code == 0, output
    played = json.loads(output)
    assert played["variant"] == 2
    assert any(e["kind"] == "draw" for e in played["log"])


def test_build_emits_python_per_file() -> None:
    code, output = run("build", str(SPECIMENS), "--emit", "python")
    assert code == 0, output
    sections = output.split("# ---- ")[1:]
    assert len(sections) == 5
    for section in sections:
        ast.parse(section.split("\n", 1)[1])
    assert "def card_1_option_3(game, card):" in output


def test_build_text_prints_the_rules_text() -> None:
    code, output = run("build", str(SPECIMENS), "--text")
    assert code == 0, output
    assert "Discard this item to roll a die: 1–2: −1 Health; 3–4: +1 Terror" in output


def test_build_writes_ir_that_fits_the_schema(tmp_path: Path) -> None:
    out = tmp_path / "out"
    code, output = run("build", str(SPECIMENS), "-o", str(out))
    assert code == 0, output
    written = json.loads((out / "coma-ward-specimens.ir.json").read_text())
    assert written["pack"] == "coma-ward-specimens" and written["ruleset"] == "coma-ward"
    cards = [card for f in written["files"] for card in f["cards"]]
    assert len(cards) == 21
    ruleset = load_ruleset("coma-ward")
    assert not [d for card in cards for d in validate_card(ruleset, card)]
    assert [p.name for p in out.iterdir()] == ["coma-ward-specimens.ir.json"]  # no temp left


def test_build_output_must_be_a_folder(tmp_path: Path) -> None:
    target = tmp_path / "a-file"
    target.write_text("keep me")
    code, output = run("build", str(SPECIMENS), "-o", str(target))
    assert code == 2 and "not a folder" in output
    assert target.read_text() == "keep me"


def test_build_writes_the_file_a_json_name_names(tmp_path: Path) -> None:
    target = tmp_path / "made" / "ir.json"
    code, output = run("build", str(SPECIMENS), "-o", str(target))
    assert code == 0, output
    assert json.loads(target.read_text())["pack"] == "coma-ward-specimens"
    assert [p.name for p in target.parent.iterdir()] == ["ir.json"]  # a file, not a folder


def test_build_refuses_a_pack_with_errors(tmp_path: Path) -> None:
    pack = make_pack(tmp_path / "pack", cards='item "X" { type weapon\n use { gain sanity 1 } }\n')
    code, output = run("build", str(pack), "-o", str(tmp_path / "out"))
    assert code == 1 and "error[E0201]" in output
    assert not (tmp_path / "out").exists()


def test_build_output_that_cannot_be_written_is_a_usage_error(tmp_path: Path) -> None:
    card_file = tmp_path / "plain-file"
    card_file.write_text("x")
    code, output = run("build", str(SPECIMENS), "-o", str(card_file / "sub"))
    assert code == 2 and "cannot write there" in output


def test_build_ir_paths_are_relative_to_the_pack(tmp_path: Path) -> None:
    out = tmp_path / "out"
    code, _ = run("build", str(SPECIMENS), "-o", str(out))
    assert code == 0
    written = json.loads((out / "coma-ward-specimens.ir.json").read_text())
    assert written["files"][0]["file"] == "hallucinations.card"
    assert written["files"][0]["cards"][0]["file"] == "hallucinations.card"
    assert (out / "coma-ward-specimens.ir.json").stat().st_mode & 0o044  # readable by others


def test_choose_takes_the_forms_the_prompt_takes_and_refuses_before_any_state() -> None:
    card = "Music from the Nursery"
    for answer in ("Hum along", "2", "hum", "HUM ALONG"):
        code, output = run("play", str(SPECIMENS), card, "--seed", "1", "--choose", answer)
        assert code == 0 and 'option "Hum along"' in output, (answer, output)
    code, output = run("play", str(SPECIMENS), card, "--seed", "1", "--choose", "Hum alng")
    assert code == 1 and "did you mean 'Hum along'?" in output
    assert "state:" not in output and "check focus" not in output  # nothing played is shown
    code, output = run("play", str(SPECIMENS), card, "--seed", "1", "--choose", "3")
    assert code == 1 and "answer with a number from 1 to 2" in output


def test_play_shows_the_flags_a_card_sets_not_the_engine_s_bookkeeping() -> None:
    # play printed `flags: bonus-waits:0:dodge:126:0.0:1, stood at:matron:roof`.
    state = {
        "stats": {"health": 5},
        "dead": False,
        "location": "ward",
        "items": [],
        "owned": [],
        "found": ["A"],
        "flags": ["lights_out", "bonus-waits:0:dodge:126:0.0:1", "stood at:matron:roof"],
        "bonuses": [],
    }
    text = state_text(state, "clues found")
    assert "flags: lights out" in text and "bonus-waits" not in text and "stood at" not in text
    assert "clues found: A" in text
    assert "flags" not in state_text({**state, "flags": ["revealed:12"]}, "found")
