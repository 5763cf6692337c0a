"""A whole game written as data alone (`game:` in the ruleset) plays and simulates with no line
of Python; a `game:` that cannot make a game is refused at its line.

Lamp Watch, the game built here, is unlike the bundled games on purpose: no dice at all, one
place, two tracks racing, and a free action.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compiler import wholegame
from compiler.build import CompiledPack
from compiler.ruleset import load_ruleset
from runtime.datagame import data_whole_game, legal_actions, whole_game_of
from runtime.decisions import Decision, DecisionMaker, ScriptedDecisions
from runtime.game import Game
from runtime.whole import NotWhole, WholeGame
from tests.helpers import compiled, run, sweep_figures

RULES = """\
ruleset: lamp-watch
title: Lamp Watch
version: 1
extends: base
runtime: base

stats:
  oil: {min: 0, max: 5, start: 3, at_min: death}
  moves: {min: 0, max: 2, start: 2}

places:
  porch: {start: true}

tracks:
  dark: {min: 0, max: 9, start: 0}
  light: {min: 0, max: 6, start: 0}

turns:
  round: [keepers]
  phases:
    keepers: {each: character, actions: moves}

decks:
  notes: {kinds: [note]}

kinds:
  note:
    deck: notes
    blocks: [use]

blocks:
  use: {pattern: "use", body: effects, trigger: use, text: "use"}

game:
  seats: {fewest: 1, most: 3}
  setup:
    seat: gain oil 1
  actions:
    trim:
      text: "trim the wick"
      cost: 1
      effect: advance light
    burn:
      text: "burn oil for light"
      cost: 2
      when: "oil >= 2"
      effect: |
        lose oil 1
        advance light 2
    sit:
      text: "sit a while"
      once: true
      effect: 'say "The night is long."'
  turn_ends: advance dark
  end:
    lost: "dark >= 9"
    won: "light >= 6"
    round_limit: 30
  count:
    oil to spare: "oil >= 3"
  tally:
    oil left: oil
    dark at the end: {value: dark, each_seat: false}
"""

NOTES = """\
note "Logbook" {
    use { say "Nothing to report." }
    test "it says so" {
        use "Logbook"
        expect oil == 3
    }
}
"""


def lamp_pack(folder: Path, rules: str = RULES) -> Path:
    """The Lamp Watch pack, its ruleset as given."""
    (folder / "cards").mkdir(parents=True, exist_ok=True)
    (folder / "ruleset.yaml").write_text(rules, encoding="utf-8")
    (folder / "cards" / "notes.card").write_text(NOTES, encoding="utf-8")
    (folder / "pack.yaml").write_text(
        "pack: lamp-watch\ntitle: Lamp Watch\nversion: 0.1.0\nruleset: ruleset.yaml\n",
        encoding="utf-8",
    )
    return folder


@pytest.fixture(scope="module")
def lamp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return lamp_pack(tmp_path_factory.mktemp("lamp") / "lamp-watch")


@pytest.fixture(scope="module")
def lamp_compiled(lamp: Path) -> CompiledPack:
    return compiled(lamp)


def test_it_checks_clean_with_no_python(lamp: Path) -> None:
    code, output = run("check", "--strict", str(lamp))
    assert code == 0, output
    assert "0 errors, 0 warnings" in output


def test_play_game_prints_a_whole_game_to_its_end(lamp: Path) -> None:
    code, output = run("play", str(lamp), "--game", "--players", "2", "--seed", "4")
    assert code == 0, output
    assert "round 1 begins" in output and "an action, or end the turn" in output
    assert "the game is " in output and "outcome after the game:" in output


def test_simulate_gives_the_same_figures_on_one_and_two_workers(lamp: Path) -> None:
    options = ("--games", "120", "--players", "2", "--seed", "7")
    figures = [sweep_figures(lamp, *options, "--workers", w) for w in ("1", "2")]
    assert figures[0] == figures[1]
    text = json.dumps(figures[0])
    assert "took: trim" in text and "oil to spare" in text


def test_a_seat_that_only_trims_wins_on_the_count_the_rules_give(
    lamp_compiled: CompiledPack,
) -> None:
    whole = whole_game_of(lamp_compiled.rules, lamp_compiled.whole)
    game = whole.new_game(lamp_compiled.rules, lamp_compiled.cards, 1, 3)
    # Two trims a turn, then the seat ends it: light 2 a round, and dark 1 at its end; the
    # sixth trim wins at once, before the third turn ends.
    trims = ["trim the wick", "trim the wick"]
    game.decisions = ScriptedDecisions([*trims, "end the turn", *trims, "end the turn", *trims])
    whole.play(game, "game")
    assert game.state.over == "won" and game.state.round == 3
    assert game.state.tracks == {"dark": 2, "light": 6}
    done = whole.outcome(game)
    assert done.tallies == {"took: trim": 6, "oil left": 4, "dark at the end": 2}
    assert done.labels == {"oil to spare": "yes"}
    assert done.winners == ("player 1",)


def test_legal_actions_follow_cost_condition_and_once(lamp_compiled: CompiledPack) -> None:
    assert lamp_compiled.whole is not None
    whole = lamp_compiled.whole
    game = data_whole_game(whole).new_game(lamp_compiled.rules, lamp_compiled.cards, 1, 1)
    game.state.phase = "keepers"
    player = game.state.players[0]
    names = [a.name for a in legal_actions(whole, game, player, set())]
    assert names == ["trim", "burn", "sit"]
    player.stats.set("oil", 1)  # burn needs oil >= 2
    player.stats.set("moves", 1)
    assert [a.name for a in legal_actions(whole, game, player, {"sit"})] == ["trim"]
    player.stats.set("moves", 0)
    assert [a.name for a in legal_actions(whole, game, player, set())] == ["sit"]


def test_a_seat_that_only_waits_loses_to_the_dark(lamp_compiled: CompiledPack) -> None:
    whole = whole_game_of(lamp_compiled.rules, lamp_compiled.whole)
    game = whole.new_game(lamp_compiled.rules, lamp_compiled.cards, 1, 3)
    game.decisions = _Ending()
    whole.play(game, "game")
    done = whole.outcome(game)
    assert done.result == "lost" and game.state.round == 9 and done.stopped is None


def played(folder: Path, rules: str, seats: int, answers: DecisionMaker) -> tuple[WholeGame, Game]:
    """A Lamp Watch variant of these rules played whole, seed 3, with these answers."""
    pack = compiled(lamp_pack(folder, rules))
    whole = whole_game_of(pack.rules, pack.whole)
    game = whole.new_game(pack.rules, pack.cards, seats, 3)
    game.decisions = answers
    whole.play(game, "game")
    return whole, game


def test_a_game_that_never_ends_stops_at_the_round_limit(tmp_path: Path) -> None:
    endless = RULES.replace('lost: "dark >= 9"', 'lost: "dark >= 99"')
    whole, game = played(tmp_path / "endless", endless, 1, _Ending())
    done = whole.outcome(game)
    assert done.result is None and done.stopped == "round limit" and game.state.round == 30


class _Ending:
    """Ends every turn at once."""

    def decide(self, decision: Decision) -> int:
        return 0


def test_a_game_with_neither_data_nor_module_rules_is_not_whole(
    lamp_compiled: CompiledPack,
) -> None:
    with pytest.raises(NotWhole):
        whole_game_of(lamp_compiled.rules, None)


def _problems(tmp_path: Path, old: str, new: str) -> str:
    assert old in RULES, old
    folder = lamp_pack(tmp_path / "bad", RULES.replace(old, new))
    code, output = run("check", str(folder))
    assert code == 1, output
    assert "Traceback" not in output
    return output


def _line_of(text: str, needle: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), start=1) if needle in line)


def test_a_misspelt_verb_in_an_effect_is_told_at_its_line_and_column(tmp_path: Path) -> None:
    output = _problems(tmp_path, "        advance light 2\n", "        advanse light 2\n")
    line = _line_of(RULES, "        advance light 2")
    assert f"ruleset.yaml:{line}:9: error[E0200]: unknown verb 'advanse'" in output


def test_a_misspelt_stat_in_a_condition_is_told_at_its_column(tmp_path: Path) -> None:
    output = _problems(tmp_path, 'when: "oil >= 2"', 'when: "oyl >= 2"')
    line = _line_of(RULES, 'when: "oil >= 2"')
    column = RULES.splitlines()[line - 1].index("oil") + 1
    assert f"ruleset.yaml:{line}:{column}: error[" in output


@pytest.mark.parametrize(
    ("old", "new", "code"),
    [
        ('lost: "dark >= 9"', 'lost: |\n      dark >= 9\n      light >= 1', "E0480"),
        ("seats: {fewest: 1, most: 3}", "seats: {fewest: 3, most: 1}", "E0481"),
        ("keepers: {each: character, actions: moves}", "keepers: {each: character}", "E0482"),
        ("round: [keepers]\n  phases:\n    keepers: {each: character, actions: moves}",
         "round: [night]\n  phases:\n    night: {}", "E0482"),
        ('      effect: advance light\n', '      once: true\n', "E0483"),
        ('      effect: advance light\n', '      procedure: trim_wick\n', "E0484"),
        ("      once: true\n", "", "E0485"),
        ('    lost: "dark >= 9"\n    won: "light >= 6"\n', "", "E0486"),
        ("  turn_ends: advance dark\n", "  turns:\n    character: advance dark\n", "E0487"),
        ('won: "light >= 6"', 'won: "light >= 7"', "E0488"),
        ('won: "light >= 6"', 'won: "light >= 7 and oil >= 1"', "E0488"),
    ],
)  # fmt: skip
def test_a_game_section_that_makes_no_game_is_refused_with_its_code(
    tmp_path: Path, old: str, new: str, code: str
) -> None:
    output = _problems(tmp_path, old, new)
    assert f"error[{code}]" in output, output
    assert "ruleset.yaml:" in output


def test_play_refuses_a_broken_game_section_before_playing(tmp_path: Path) -> None:
    folder = lamp_pack(tmp_path / "bad", RULES.replace("      once: true\n", ""))
    code, output = run("play", str(folder), "--game")
    assert code == 1 and "E0485" in output and "Traceback" not in output


def test_the_turn_starts_with_the_effects_the_data_gives_it(tmp_path: Path) -> None:
    rules = RULES.replace("  turn_ends: advance dark\n", "  turn_starts: lose oil 1\n")
    whole, game = played(tmp_path / "dawn", rules, 2, _Ending())
    # Each seat starts with 3 + 1 oil, and loses one a turn: out in the fourth round.
    assert game.state.over == "lost" and game.state.round == 4
    assert whole.outcome(game).tallies["dark at the end"] == 0


def test_what_the_rules_put_on_this_stays_for_the_game(tmp_path: Path) -> None:
    rules = RULES.replace(
        "      effect: advance light\n",
        "      effect: |\n        put 1 batteries on this\n        advance light\n",
    ).replace("tracks:\n", "tracks:\n  batteries: {min: 0, max: 9, start: 0, on: card}\n")
    # the rule's answer: the first legal action, a trim
    _, game = played(tmp_path / "kept", rules, 1, ScriptedDecisions([]))
    assert game.state.over == "won" and game.state.tracks["light"] == 6
    assert game.state.rules_card is not None
    assert game.state.rules_card.tokens == {"batteries": 6}  # one a trim, all kept


def test_a_clean_game_of_procedures_is_checked_without_reading_its_files_again(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # Reading the ruleset's files again for their positions costs every check 4 ms; a
    # `game:` of procedures only, with nothing wrong, points at no line. (Coma Ward's own
    # `game:` has worth conditions to parse, so a game of its procedures alone is written.)
    procedures_only = tmp_path / "ruleset.yaml"
    procedures_only.write_text(
        "ruleset: procedures\ntitle: Procedures\nversion: 1\nextends: base\n"
        "runtime: coma-ward\ngame:\n  seats: {fewest: 2, most: 6}\n"
        "  setup: {procedure: deal_strips_and_quirks}\n"
        "  parts:\n    end: {procedure: phenomenon_act}\n"
        "  notes: note_the_game\n"
    )
    ruleset = load_ruleset(str(procedures_only))

    def refuse(ruleset: object) -> object:
        raise AssertionError("the ruleset's files were read again")

    monkeypatch.setattr(wholegame, "lineage_documents", refuse)
    monkeypatch.setattr(wholegame, "_LOWERED", {})
    assert wholegame.whole_game_problems(ruleset, {}) == []
