"""A turn of free actions then one main action, as data (`game: turn:`): its two questions in
the game's words, each free action at most once, one main action or the fallback, an action
taken without asking after another (`then:`), actions offered once for each target
(`targets:`) and the default answer a check picks (`prefer:`); bad data refused at its line.

Night Rounds, the game built here, is Lamp Watch's porch (tests/test_whole_from_data.py) with
such a turn, no Python: its fallback is the base module's `step`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest

from compiler.build import CompiledPack
from runtime.datagame import whole_game_of
from runtime.decisions import Decision, Defaults, PresetThenAsk
from runtime.game import Game
from runtime.state import Player
from runtime.world import SEATED
from tests.helpers import compiled, run

RULES = """\
ruleset: night-rounds
title: Night Rounds
version: 1
extends: base
runtime: base

stats:
  oil: {min: 0, max: 5, start: 3, at_min: death}

places:
  porch: {start: true, adjacent: [yard]}
  yard: {}

tracks:
  light: {min: 0, max: 9, start: 0}

turns:
  round: [keepers]
  phases:
    keepers: {each: character}

game:
  seats: {fewest: 1, most: 3}
  turn:
    free: {ask: "a free action, or on", on: "to the main action", kind: free}
    main: {ask: "the main action", kind: main, fallback: step}
  actions:
    rest: {once: true, effect: gain oil 1}
    look: {once: true, effect: 'say "A glint in the dark."', then: fetch}
    fetch: {main: true, when: "oil <= 3", effect: advance light 2}
    trim:
      main: true
      when: "oil >= 2"
      effect: |
        lose oil 1
        advance light
    wait: {main: true, when: "oil >= 5", effect: 'say "Waiting."'}
  end:
    won: "light >= 6"
    round_limit: 20
"""


def rounds_pack(folder: Path, rules: str = RULES) -> Path:
    """The Night Rounds pack, its ruleset as given (no cards of its own)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "ruleset.yaml").write_text(rules, encoding="utf-8")
    (folder / "pack.yaml").write_text(
        "pack: night-rounds\ntitle: Night Rounds\nversion: 0.1.0\nruleset: ruleset.yaml\n",
        encoding="utf-8",
    )
    return folder


@pytest.fixture(scope="module")
def pack(tmp_path_factory: pytest.TempPathFactory) -> CompiledPack:
    return compiled(rounds_pack(tmp_path_factory.mktemp("rounds") / "night-rounds"))


class _Seen:
    """Answers from a script (then the defaults), remembering every question."""

    def __init__(self, *answers: str) -> None:
        self.then = PresetThenAsk(list(answers), Defaults())
        self.asked: list[Decision] = []

    def decide(self, decision: Decision) -> int:
        self.asked.append(decision)
        return self.then.decide(decision)


def _turn(pack: CompiledPack, *answers: str, players: int = 1, oil: int = 3) -> tuple[Game, _Seen]:
    """One turn of the first seat, set up, with these answers."""
    whole = whole_game_of(pack.rules, pack.whole)
    game = whole.new_game(pack.rules, pack.cards, players, 1)
    for player in game.state.players:
        player.location = "porch"
        player.stats.set("oil", oil)
    seen = _Seen(*answers)
    game.decisions = seen
    game.module.turns[SEATED](game, game.state.players[0])
    return game, seen


def _asked(seen: _Seen) -> list[tuple[str, str, tuple[str, ...]]]:
    return [(d.kind, d.prompt, d.choices) for d in seen.asked]


def test_free_actions_once_each_then_one_main_action_in_the_games_words(
    pack: CompiledPack,
) -> None:
    game, seen = _turn(pack, "rest", "to the main action", "trim")
    assert _asked(seen) == [
        ("free", "a free action, or on", ("to the main action", "rest", "look")),
        ("free", "a free action, or on", ("to the main action", "look")),  # rest taken
        ("main", "the main action", ("trim",)),  # oil 4: no fetch, no wait
    ]
    assert game.state.tracks["light"] == 1 and game.state.players[0].stats.get("oil") == 3
    # The actions taken are counted, as a turn of action points counts them.
    assert game.state.tallies == {"took: rest": 1, "took: trim": 1}


def test_an_action_followed_by_another_takes_it_without_asking(pack: CompiledPack) -> None:
    game, seen = _turn(pack, "look")
    # `fetch` follows `look` (oil 3): the turn's main action, never offered, nothing more asked.
    assert _asked(seen) == [
        ("free", "a free action, or on", ("to the main action", "rest", "look"))
    ]
    assert game.state.tracks["light"] == 2
    # When it cannot be taken (oil 4), the free actions go on.
    game, seen = _turn(pack, "look", "to the main action", oil=4)
    assert [d.kind for d in seen.asked] == ["free", "free", "main"]
    assert all("fetch" not in d.choices for d in seen.asked)


def test_a_seat_with_no_main_action_takes_the_fallback(pack: CompiledPack) -> None:
    game, seen = _turn(pack, "to the main action", "yard", oil=1)
    assert [d.kind for d in seen.asked] == ["free", "step"]  # no main question: the step
    assert game.state.players[0].location == "yard"


def _others(game: Game, player: Player) -> Sequence[Player]:
    return [other for other in game.state.players if other is not player]


def _with_targets(pack: CompiledPack, prefer: str | None = None) -> CompiledPack:
    """The pack with `trim` and `wait` taken on each other seat (the module's `others`), and
    `trim` preferred as the check named says."""
    whole = pack.whole
    assert whole is not None and whole.turn is not None
    main = tuple(
        replace(a, targets="others", prefer=prefer if a.name == "trim" else None)
        if a.name in ("trim", "wait")
        else a
        for a in whole.turn.main
    )
    return replace(pack, whole=replace(whole, turn=replace(whole.turn, main=main)))


def test_actions_sharing_targets_are_offered_target_by_target(
    pack: CompiledPack, monkeypatch: pytest.MonkeyPatch
) -> None:
    aimed = _with_targets(pack)
    whole = whole_game_of(aimed.rules, aimed.whole)
    game = whole.new_game(aimed.rules, aimed.cards, 3, 1)
    game.module = game.module.extend(game.module.name, targets={"others": _others})
    for player in game.state.players:
        player.stats.set("oil", 5)
    seen = _Seen("to the main action", "wait player 3")
    game.decisions = seen
    game.module.turns[SEATED](game, game.state.players[0])
    (main,) = [d for d in seen.asked if d.kind == "main"]
    assert main.choices == ("trim player 2", "wait player 2", "trim player 3", "wait player 3")
    assert game.state.target is game.state.players[2]  # an effect's `the target`
    assert game.state.aim is None  # whom the action under way is taken on: none after it


def test_the_default_is_the_action_a_check_prefers(pack: CompiledPack) -> None:
    aimed = _with_targets(pack, prefer="far_away")
    whole = whole_game_of(aimed.rules, aimed.whole)
    for far, default in ((True, 0), (False, 1)):
        game = whole.new_game(aimed.rules, aimed.cards, 2, 1)
        game.module = game.module.extend(
            game.module.name,
            targets={"others": _others},
            can={"far_away": lambda _game, _player, far=far: far},
        )
        game.state.players[0].stats.set("oil", 5)
        seen = _Seen("to the main action")
        game.decisions = seen
        game.module.turns[SEATED](game, game.state.players[0])
        (main,) = [d for d in seen.asked if d.kind == "main"]
        # `trim` is passed over while its check does not hold: `wait` is the default then.
        assert main.choices == ("trim player 2", "wait player 2") and main.default == default


def test_the_game_plays_whole_and_simulates_with_no_python(
    tmp_path: Path,
) -> None:
    folder = rounds_pack(tmp_path / "night-rounds")
    code, output = run("play", str(folder), "--game", "--seed", "3")
    assert code == 0, output
    assert "a free action, or on" in output
    code, output = run("simulate", str(folder), "--games", "40", "--seed", "1")
    assert code == 0, output
    assert "took: trim" in output


def _problems(tmp_path: Path, old: str, new: str) -> str:
    assert old in RULES, old
    folder = rounds_pack(tmp_path / "bad", RULES.replace(old, new))
    code, output = run("check", str(folder))
    assert code == 1, output
    assert "Traceback" not in output
    return output


def _line_of(text: str, needle: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), start=1) if needle in line)


@pytest.mark.parametrize(
    ("old", "new", "code", "at"),
    [
        ("then: fetch", "then: fecth", "E0491", "then: fecth"),
        ("then: fetch", "then: look", "E0491", "then: look"),
        ("rest: {once: true,", "rest: {once: true, targets: step,", "E0491", "rest: {"),
        ("fallback: step", "fallback: stepp", "E0484", "fallback: stepp"),
        ("rest: {once: true,", "rest: {once: true, prefer: no_such,", "E0484", "rest: {"),
        ("fetch: {main: true,", "fetch: {main: true, targets: nobody,", "E0484", "fetch: {"),
        ("fetch: {main: true,", "fetch: {main: true, cost: 1,", "E0491", "fetch: {"),
        ("fetch: {main: true,", "fetch: {once: true,", None, None),
    ],
)
def test_a_turn_that_does_not_hold_together_is_refused_at_its_line(
    tmp_path: Path, old: str, new: str, code: str | None, at: str | None
) -> None:
    if code is None:  # no main action at all
        rules = RULES.replace(old, new).replace("{main: true, when", "{once: true, when")
        rules = rules.replace("      main: true\n", "      once: true\n")
        folder = rounds_pack(tmp_path / "bad", rules)
        code_, output = run("check", str(folder))
        assert code_ == 1 and "error[E0491]" in output and "no action is `main: true`" in output
        return
    output = _problems(tmp_path, old, new)
    line = _line_of(RULES.replace(old, new), str(at))
    assert f"ruleset.yaml:{line}:" in output and f"error[{code}]" in output, output


def test_the_keys_of_such_a_turn_without_the_turn_are_refused(tmp_path: Path) -> None:
    rules = RULES.replace(
        '  turn:\n    free: {ask: "a free action, or on", on: "to the main action", kind: free}\n'
        '    main: {ask: "the main action", kind: main, fallback: step}\n',
        "",
    )
    folder = rounds_pack(tmp_path / "bad", rules)
    code, output = run("check", str(folder))
    assert code == 1 and "Traceback" not in output
    line = _line_of(rules, "then: fetch")
    assert f"ruleset.yaml:{line}:" in output and "`then:`, which only a turn of free" in output


@pytest.mark.parametrize(
    ("part", "code"),
    [
        ("{then: step}", "E0490"),
        ("{until: anywhere, procedure: step}", "E0490"),
        ("{until: no_such_check}", "E0484"),
        ("{until: step, then: no_such_procedure}", "E0484"),
    ],
)
def test_a_part_with_nothing_to_play_is_refused_at_its_line(
    tmp_path: Path, part: str, code: str
) -> None:
    rules = RULES.replace("  end:\n", f"  parts:\n    opening: {part}\n  end:\n")
    folder = rounds_pack(tmp_path / "bad", rules)
    result, output = run("check", str(folder))
    assert result == 1 and "Traceback" not in output
    line = _line_of(rules, "    opening: ")
    assert f"ruleset.yaml:{line}:" in output and f"error[{code}]" in output, output
